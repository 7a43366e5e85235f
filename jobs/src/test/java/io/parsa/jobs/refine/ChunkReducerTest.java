package io.parsa.jobs.refine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** How a chunk task cuts a block into slices for the heap its block's own data leaves. */
class ChunkReducerTest {

  /**
   * A block of 600,000 rows and 7·10^6 non-zeros (the generated 3·10^7-non-zero set's, which ran a 409 MiB reduce
   * task out of heap with slices sized to half of the whole heap): the fewest slices whose refinement fits the budget,
   * more slices for a smaller budget, none where even slices of the least rows do not fit, and one slice whenever the
   * whole block fits.
   */
  @Test
  void slicesAreTheFewestThatFitWhatTheBlockLeaves() {
    int rows = 600_000;
    long pairs = 7_000_000;
    int k = 16;
    long whole = ChunkReducer.sliceBytes(rows, pairs, k, true);
    assertEquals(1, ChunkReducer.slices(rows, pairs, k, true, whole));
    int previous = 1;
    for (long mib : new long[] {1024, 256, 128, 54, 16}) {
      long budget = mib << 20;
      int s = ChunkReducer.slices(rows, pairs, k, true, budget);
      assertTrue(s >= previous, mib + " MiB: " + s + " slices, fewer than for a larger budget (" + previous + ")");
      assertTrue(ChunkReducer.sliceBytes(rows / s, pairs / s, k, true) <= budget, mib + " MiB: " + s + " slices");
      if (s > 1) {
        assertTrue(ChunkReducer.sliceBytes(rows / (s - 1), pairs / (s - 1), k, true) > budget,
            mib + " MiB: " + (s - 1) + " slices would have fitted");
      }
      previous = s;
    }
    assertTrue(previous > 1);
    // slices of 1,000 rows (about 12,000 non-zeros here) need a few MiB: below that the task refuses the block
    long least = ChunkReducer.sliceBytes(ChunkReducer.MIN_SLICE_ROWS, pairs / (rows / ChunkReducer.MIN_SLICE_ROWS), k,
        true);
    assertEquals(-1, ChunkReducer.slices(rows, pairs, k, true, least / 2));
    assertTrue(ChunkReducer.slices(rows, pairs, k, true, least) > 0);
    // a block smaller than the least slice is one slice or none
    assertEquals(1, ChunkReducer.slices(500, 5_000, k, true, ChunkReducer.sliceBytes(500, 5_000, k, true)));
    assertEquals(-1, ChunkReducer.slices(500, 5_000, k, true, 1000));
  }
}
