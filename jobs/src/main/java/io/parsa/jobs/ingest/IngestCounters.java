package io.parsa.jobs.ingest;

/**
 * Counters of the ingest job. After the job the tool checks ROWS_IN = ROWS_OUT, NONZEROS_IN = NONZEROS_OUT and,
 * for text input, LINES = RECORDS_IN + COMMENT_LINES + BLANK_LINES + BAD_RECORDS_SKIPPED and RAW_LINES_OUT =
 * RECORDS_IN (every data line lands in exactly one row's raw bytes).
 */
public enum IngestCounters {
  /** Input files read. */
  FILES,
  /** Map tasks over the input: one per file, or one per byte range of a large uncompressed text file. */
  SPLITS,
  /** Text lines read, of every kind. */
  LINES,
  /** Lines that are only a comment ('#', and '%' in edge lists). */
  COMMENT_LINES,
  /** Empty or whitespace-only lines. */
  BLANK_LINES,
  /** Malformed lines skipped under --skip-bad-records. */
  BAD_RECORDS_SKIPPED,
  /** Data records parsed: libsvm rows, edge-list lines, Avro records. */
  RECORDS_IN,
  /** Rows defined by the input: libsvm lines and Avro records (map side); distinct vertices of an edge list
   *  (counted where the reducer groups them, since no mapper sees a whole vertex). */
  ROWS_IN,
  /** Non-zeros parsed (map side): libsvm features, edge-list directed edges (two per line for uedges). */
  NONZEROS_IN,
  /** Rows written to blocks. */
  ROWS_OUT,
  /** Non-zeros written to blocks (sum of GraphRow.keys lengths). */
  NONZEROS_OUT,
  /** Distinct (row, key) pairs written: NONZEROS_OUT less the keys a row lists again. */
  EDGES_OUT,
  /** Input lines carried in the written rows' raw bytes (text input only). */
  RAW_LINES_OUT,
  /** Rows written that have no keys. */
  EMPTY_ROWS_OUT,
  /** Edge lists: row pieces the mappers emitted after combining a split's pieces per row (map output records). */
  COMBINED_PIECES
}
