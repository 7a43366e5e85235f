package io.parsa.jobs.mr;

/**
 * Counters of the shared row / assignment join (blocks joined with a u-assignment on row id), used by
 * partition-v, metrics and reshuffle. The *_ERRORS-style counters must be zero after a job.
 */
public enum JoinCounters {
  /** GraphRow records read from the blocks. */
  ROWS_IN,
  /** Non-zeros (GraphRow.keys entries) read from the blocks. */
  NONZEROS_IN,
  /** Bytes of GraphRow.raw read. */
  RAW_BYTES_IN,
  /** Sum (mod 2^64) of a 64-bit hash of each row's raw bytes, computed in the mapper. */
  ROW_HASH_SUM_IN,
  /** Sum (mod 2^64) of a second, independently seeded hash of each row's raw bytes. */
  ROW_HASH2_SUM_IN,
  /** UAssignment records read. */
  ASSIGNMENTS_IN,
  /** Rows that met exactly one assignment in the reducer. */
  JOINED_ROWS,
  /** Error: a row id with no assignment. */
  ROW_WITHOUT_ASSIGNMENT,
  /** Error: an assignment whose row id is not in the blocks. */
  ASSIGNMENT_WITHOUT_ROW,
  /** Error: a row id present more than once in the blocks. */
  DUPLICATE_ROW,
  /** Error: a row id assigned more than once. */
  DUPLICATE_ASSIGNMENT,
  /** Error: an assignment with a part outside [0, k). */
  BAD_PART
}
