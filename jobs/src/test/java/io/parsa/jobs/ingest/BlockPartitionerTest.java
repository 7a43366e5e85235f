package io.parsa.jobs.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.engine.Mix64;
import org.junit.jupiter.api.Test;

/** The row-to-block hash: reproducible, seed-dependent and balanced. */
class BlockPartitionerTest {

  @Test
  void sameSeedSameBlockDifferentSeedDifferentAssignment() {
    int moved = 0;
    for (long id = 0; id < 10_000; id++) {
      assertEquals(BlockPartitioner.blockOf(42, id, 16), BlockPartitioner.blockOf(42, id, 16));
      if (BlockPartitioner.blockOf(42, id, 16) != BlockPartitioner.blockOf(43, id, 16)) {
        moved++;
      }
    }
    // an independent assignment moves about 15/16 of the rows
    assertTrue(moved > 9_000, "moved " + moved);
  }

  @Test
  void balancedOnConsecutiveAndStructuredIds() {
    int b = 16;
    int n = 1_000_000;
    long[][] idSets = new long[3][n];
    for (int i = 0; i < n; i++) {
      idSets[0][i] = i;                       // one file's line numbers
      idSets[1][i] = ((long) (i % 7) << 40) | (i / 7);   // seven files
      idSets[2][i] = (long) i * 1024;         // ids with many low zero bits
    }
    for (long[] ids : idSets) {
      long[] count = new long[b];
      for (long id : ids) {
        count[BlockPartitioner.blockOf(42, id, b)]++;
      }
      double mean = (double) n / b;
      for (long c : count) {
        // binomial spread is sqrt(n/b) = 250, i.e. 0.4 %; allow 2 %
        assertTrue(Math.abs(c - mean) / mean < 0.02, "block of " + c + " rows, mean " + mean);
      }
    }
  }

  @Test
  void bucketsStayInRangeForNegativeHashes() {
    for (long id = -1000; id < 1000; id++) {
      int x = Mix64.bucket(-5, id, 7);
      assertTrue(x >= 0 && x < 7);
    }
    assertNotEquals(Mix64.hash(1, 2), Mix64.hash(2, 1));
  }
}
