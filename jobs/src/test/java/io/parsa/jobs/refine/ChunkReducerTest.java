package io.parsa.jobs.refine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** How a chunk task cuts a block into slices for the heap its block's own data leaves. */
class ChunkReducerTest {

  private static final int K = 16;

  /** Pairs before each row of a block whose rows have {@code sizes[i]} keys. */
  private static long[] cum(int[] sizes) {
    long[] cum = new long[sizes.length + 1];
    for (int i = 0; i < sizes.length; i++) {
      cum[i + 1] = cum[i] + sizes[i];
    }
    return cum;
  }

  /**
   * A block like the generated 3·10^7-non-zero set's (600,000 rows of about 12 keys, power-law, one row of 1.3·10^6
   * keys), which ran a 409 MiB reduce task out of heap while slices were cut by rows: every slice is cut by its rows'
   * keys to fit the budget and could not take one more row, the rows are covered in order exactly once, and a row
   * too large to fit alone is left out (it stays in its part) instead of sinking the task.
   */
  @Test
  void slicesAreCutByTheirRowsKeysAndAHugeRowStaysWhereItIs() {
    Random rnd = new Random(7);
    int[] sizes = new int[600_000];
    for (int i = 0; i < sizes.length; i++) {
      sizes[i] = (int) Math.min(200_000, Math.floor(Math.pow(1 - rnd.nextDouble(), -1 / 1.2) * 3));
    }
    int huge = 590_123;
    sizes[huge] = 1_295_211;
    long[] cum = cum(sizes);
    long budget = 85L << 20; // half of the 170 MiB the block left in the failing tasks
    assertTrue(ChunkReducer.sliceBytes(1, sizes[huge], K, true) > budget, "the huge row fits alone: no test");
    assertTrue(ChunkReducer.leastSliceFits(cum, 0, K, true, budget));
    int slices = 0;
    int tooLarge = 0;
    int covered = 0;
    for (int from = 0; from < sizes.length; ) {
      int to = ChunkReducer.cut(cum, from, K, true, budget);
      if (to == from) {
        assertEquals(huge, from, "only the huge row is left out");
        tooLarge++;
        from++;
        continue;
      }
      assertTrue(ChunkReducer.sliceBytes(to - from, cum[to] - cum[from], K, true) <= budget, "slice at " + from);
      if (to < sizes.length) {
        assertTrue(ChunkReducer.sliceBytes(to + 1 - from, cum[to + 1] - cum[from], K, true) > budget,
            "the slice at " + from + " could have taken row " + to);
      }
      covered += to - from;
      slices++;
      from = to;
    }
    assertEquals(1, tooLarge);
    assertEquals(sizes.length - 1, covered);
    assertEquals(slices, ChunkReducer.plan(cum, 0, K, true, budget));
    assertTrue(slices > 1);
    // the whole block in one slice when it fits; more slices for a smaller budget
    long whole = ChunkReducer.sliceBytes(sizes.length, cum[sizes.length], K, true);
    assertEquals(1, ChunkReducer.plan(cum, 0, K, true, whole));
    assertEquals(2, ChunkReducer.plan(cum, 0, K, true, whole - 1));
    assertTrue(ChunkReducer.plan(cum, 0, K, true, budget / 4) > slices);
  }

  /**
   * Slices of the least rows ({@link ChunkReducer#MIN_SLICE_ROWS}, of the block's rows that fit alone, as large as
   * they are on average) must fit the budget, or the task refuses the block with a message: a budget just above them
   * is taken, one below is not, and a block of rows each too large to fit alone is refused too.
   */
  @Test
  void aBudgetBelowTheLeastSliceIsRefused() {
    int[] sizes = new int[50_000];
    java.util.Arrays.fill(sizes, 12);
    long[] cum = cum(sizes);
    long least = ChunkReducer.sliceBytes(ChunkReducer.MIN_SLICE_ROWS, 12L * ChunkReducer.MIN_SLICE_ROWS, K, true);
    assertTrue(ChunkReducer.leastSliceFits(cum, 0, K, true, least));
    assertFalse(ChunkReducer.leastSliceFits(cum, 0, K, true, least - 1));
    // from row 49,500 on only 500 rows are left: they are the least slice
    assertTrue(ChunkReducer.leastSliceFits(cum, 49_500, K, true, ChunkReducer.sliceBytes(500, 6_000, K, true)));
    long[] huge = cum(new int[] {1_000_000, 2_000_000});
    assertFalse(ChunkReducer.leastSliceFits(huge, 0, K, true, ChunkReducer.sliceBytes(1, 999_999, K, true)));
  }

  /**
   * A measure of the free heap runs its full collections and counts them, and garbage dropped before it reads as free:
   * a slice is cut by the measure only where what is live leaves too little.
   */
  @Test
  void aHeapMeasureCollectsAndCountsItsCollections() throws InterruptedException {
    byte[][] garbage = new byte[64][];
    for (int i = 0; i < garbage.length; i++) {
      garbage[i] = new byte[1 << 20];
    }
    long held = garbage.length;
    garbage = null;
    ChunkReducer.HeapMeasure m = ChunkReducer.measureFreeHeap();
    assertEquals(ChunkReducer.MEASURE_COLLECTIONS, m.collections(), m.toString());
    assertTrue(m.free() >= m.freeBefore(), m.toString());
    assertTrue(m.free() >= held << 20, m + ": the dropped " + held + " MiB are not free");
    assertTrue(m.requests() >= m.collections(), m.toString());
    assertTrue(m.toString().contains("(2 of 2 run"), m.toString());
    // enough free after the first collection: one is enough
    ChunkReducer.HeapMeasure once = ChunkReducer.measureFreeHeap(1);
    assertEquals(1, once.collections(), once.toString());
  }

  /** Where the heap holds more than the plan counted, the log names what holds it: the heap's largest classes. */
  @Test
  void theLogNamesWhatTheHeapHolds() {
    long[] held = new long[8 << 20]; // 64 MiB of longs: the histogram's first class
    String top = ChunkReducer.largestClasses(5);
    assertTrue(top.lines().count() <= 7, top);
    assertTrue(top.contains("[J"), top);
    assertEquals(8 << 20, held.length);
  }
}
