package io.parsa.jobs.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.hadoop.mapreduce.Counters;

/** Asserts the counter identities of a finished ingest job. */
final class IngestCountersCheck {

  private IngestCountersCheck() {}

  static long v(Counters c, IngestCounters k) {
    return c.findCounter(k).getValue();
  }

  static void assertBalanced(Counters c) {
    assertEquals(v(c, IngestCounters.ROWS_IN), v(c, IngestCounters.ROWS_OUT), "rows in = rows out");
    assertEquals(v(c, IngestCounters.NONZEROS_IN), v(c, IngestCounters.NONZEROS_OUT), "non-zeros in = out");
    assertEquals(v(c, IngestCounters.LINES), v(c, IngestCounters.RECORDS_IN) + v(c, IngestCounters.COMMENT_LINES)
        + v(c, IngestCounters.BLANK_LINES) + v(c, IngestCounters.BAD_RECORDS_SKIPPED), "every line accounted for");
    assertEquals(v(c, IngestCounters.RECORDS_IN), v(c, IngestCounters.RAW_LINES_OUT), "every line in one row");
  }
}
