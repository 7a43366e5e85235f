package io.parsa.jobs.ingest;

/** What a text line turned out to be. */
enum LineKind {
  /** A data record. */
  RECORD,
  /** Only a comment. */
  COMMENT,
  /** Empty or whitespace only. */
  BLANK
}
