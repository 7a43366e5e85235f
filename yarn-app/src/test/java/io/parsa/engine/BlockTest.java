package io.parsa.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class BlockTest {
  @Test
  void renumbersKeysAscendingAndDropsDuplicatesWithinRows() {
    Block b = new Block(new long[] {10, 11, 12}, new int[] {0, 3, 3, 6},
        new long[] {500, -7, 500, 42, 42, 500}, null);
    assertEquals(3, b.numRows());
    assertEquals(6, b.numNonZeros());
    assertEquals(4, b.numEdges());
    assertArrayEquals(new long[] {-7, 42, 500}, b.keys());
    assertArrayEquals(new int[] {0, 2, 2, 4}, b.localRowStart());
    int[] lk = b.localKeys();
    assertArrayEquals(new int[] {2, 0, 1, 2}, java.util.Arrays.copyOf(lk, 4));
    assertEquals(11, b.rowId(1));
    assertEquals(1.0, b.weight(2));
  }

  /**
   * Keys within a small span are ranked through a table, others by sorting; both give the renumbering of a plain
   * sorted set of the keys, for dense ids, ids spread over a span just above the table's limit, and hashed ids of
   * both signs whose span overflows a long.
   */
  @Test
  void tableAndSortRenumberAlike() {
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(7);
    int rows = 300;
    int nnz = 3000;
    long[][] keySets = new long[4][nnz];
    for (int e = 0; e < nnz; e++) {
      keySets[0][e] = 1000 + rnd.nextInt(500); // dense: table
      keySets[1][e] = -5 + rnd.nextLong(Block.denseSpanLimit(nnz)); // span just below the limit: table
      keySets[2][e] = rnd.nextLong(Block.denseSpanLimit(nnz) + 2); // may reach just above it: sort
      keySets[3][e] = rnd.nextLong(); // hashed, both signs: sort
    }
    keySets[2][0] = 0;
    keySets[2][1] = Block.denseSpanLimit(nnz) + 1;
    keySets[3][0] = Long.MIN_VALUE;
    keySets[3][1] = Long.MAX_VALUE;
    int[] rowStart = new int[rows + 1];
    for (int r = 1; r < rows; r++) {
      rowStart[r] = rnd.nextInt(nnz + 1);
    }
    rowStart[rows] = nnz;
    java.util.Arrays.sort(rowStart);
    long[] ids = new long[rows];
    for (long[] keys : keySets) {
      Block b = new Block(ids, rowStart, keys, null);
      long[] distinct = java.util.Arrays.stream(keys).distinct().sorted().toArray();
      assertArrayEquals(distinct, b.keys());
      int w = 0;
      for (int r = 0; r < rows; r++) {
        assertEquals(w, b.localRowStart()[r]);
        java.util.Set<Long> seen = new java.util.HashSet<>();
        for (int e = rowStart[r]; e < rowStart[r + 1]; e++) {
          if (seen.add(keys[e])) {
            assertEquals(java.util.Arrays.binarySearch(distinct, keys[e]), b.localKeys()[w++], "row " + r);
          }
        }
      }
      assertEquals(w, b.numEdges());
    }
  }

  @Test
  void rejectsInconsistentInput() {
    assertThrows(IllegalArgumentException.class,
        () -> new Block(new long[] {1}, new int[] {0, 2}, new long[] {1}, null));
    assertThrows(IllegalArgumentException.class,
        () -> new Block(new long[] {1}, new int[] {0, 1}, new long[] {1}, new double[] {-1}));
  }
}
