package io.parsa.jobs.ingest;

/** Counters of the key-statistics job that ingest runs over the blocks it wrote. */
public enum KeyStatsCounters {
  /** Rows read back from the blocks. */
  ROWS_READ,
  /** Distinct keys V over all rows. */
  DISTINCT_KEYS,
  /** Key occurrences (= non-zeros) read by the mappers; must equal the ingest job's NONZEROS_OUT. */
  KEY_OCCURRENCES,
  /** Sum of key degrees (rows per key) over the reducers. */
  KEY_ROWS
}
