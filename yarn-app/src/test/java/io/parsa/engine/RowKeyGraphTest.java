package io.parsa.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The transposes of a row-key CSR. */
class RowKeyGraphTest {

  /** A random CSR of {@code n} rows over {@code keys} keys, each row's keys distinct. */
  private static int[][] csr(SplittableRandom rnd, int n, int keys) {
    int[] rowStart = new int[n + 1];
    int[] rowKeys = new int[n * Math.min(keys, 12)];
    int w = 0;
    for (int g = 0; g < n; g++) {
      int len = rnd.nextInt(Math.min(keys, 12) + 1);
      int[] pick = rnd.ints(0, keys).distinct().limit(len).toArray();
      System.arraycopy(pick, 0, rowKeys, w, pick.length);
      w += pick.length;
      rowStart[g + 1] = w;
    }
    return new int[][] {rowStart, Arrays.copyOf(rowKeys, w)};
  }

  /** Key by key, the rows that hold it, ascending: {start (numKeys + 1 bounds), rows}, by the definition. */
  private static int[][] byDefinition(int[] rowStart, int[] rowKeys, int n, int keys) {
    int[] start = new int[keys + 1];
    int[] rows = new int[rowStart[n]];
    int w = 0;
    for (int e = 0; e < keys; e++) {
      for (int g = 0; g < n; g++) {
        for (int t = rowStart[g]; t < rowStart[g + 1]; t++) {
          if (rowKeys[t] == e) {
            rows[w++] = g;
          }
        }
      }
      start[e + 1] = w;
    }
    return new int[][] {start, rows};
  }

  /** A fresh transpose is the definition's: every key's bounds and rows, in ascending order. */
  @Test
  void transposeIsTheDefinitions() {
    SplittableRandom rnd = new SplittableRandom(5);
    for (int round = 0; round < 200; round++) {
      int n = 1 + rnd.nextInt(60);
      int keys = 1 + rnd.nextInt(40);
      int[][] g = csr(rnd, n, keys);
      int[][] want = byDefinition(g[0], g[1], n, keys);
      RowKeyGraph.Transposed t = RowKeyGraph.transpose(g[0], g[1], keys);
      assertArrayEquals(want[0], Arrays.copyOf(t.start(), keys + 1), "round " + round);
      assertArrayEquals(want[1], t.rows(), "round " + round);
    }
  }

  /**
   * Into reused arrays (longer than needed and holding another part's transpose) the transpose is still the
   * definition's: the same keys' bounds and the same rows in the same (ascending) order; the arrays are reused where
   * they are large enough.
   */
  @Test
  void transposeIntoReusedArraysEqualsAFreshTranspose() {
    SplittableRandom rnd = new SplittableRandom(3);
    int[] start = null;
    int[] rows = null;
    for (int round = 0; round < 200; round++) {
      int n = 1 + rnd.nextInt(60);
      int keys = 1 + rnd.nextInt(40);
      int[][] g = csr(rnd, n, keys);
      // a CSR with spare room after its n rows, as a clusterer's reused row arrays have
      int[] rowStart = Arrays.copyOf(g[0], n + 1 + rnd.nextInt(5));
      int[][] fresh = byDefinition(g[0], g[1], n, keys);
      int[] oldStart = start;
      int[] oldRows = rows;
      RowKeyGraph.Transposed into = RowKeyGraph.transposeInto(n, rowStart, g[1], keys, start, rows);
      int nnz = g[0][n];
      assertArrayEquals(fresh[0], Arrays.copyOf(into.start(), keys + 1), "round " + round);
      assertArrayEquals(fresh[1], Arrays.copyOf(into.rows(), nnz), "round " + round);
      if (oldStart != null && oldStart.length >= keys + 2) {
        assertSame(oldStart, into.start());
      }
      if (oldRows != null && oldRows.length >= nnz) {
        assertSame(oldRows, into.rows());
      }
      start = into.start();
      rows = into.rows();
    }
  }

  /**
   * On two, three or more threads than rows (ranges left empty), each counting a range of rows, the transpose is the
   * one on one thread: the same bounds, the same rows in the same ascending order, the spare entry at the end too.
   */
  @Test
  void transposeOnThreadsEqualsTheTransposeOnOne() {
    SplittableRandom rnd = new SplittableRandom(4);
    for (int round = 0; round < 200; round++) {
      int n = 1 + rnd.nextInt(60);
      int keys = 1 + rnd.nextInt(40);
      int[][] g = csr(rnd, n, keys);
      RowKeyGraph.Transposed one = RowKeyGraph.transposeInto(n, g[0], g[1], keys, null, null);
      for (int threads : new int[] {2, 3, n + 2}) {
        int[][] counts = new int[threads][keys + rnd.nextInt(3)];
        // counts and output arrays holding another transpose's leftovers, as reused workspace arrays do
        for (int[] c : counts) {
          Arrays.fill(c, 7);
        }
        int[] start = new int[keys + 2 + rnd.nextInt(3)];
        Arrays.fill(start, -1);
        RowKeyGraph.Transposed more = RowKeyGraph.transposeInto(n, g[0], g[1], keys, start, null, counts);
        String what = "round " + round + ", " + threads + " threads";
        assertArrayEquals(Arrays.copyOf(one.start(), keys + 2), Arrays.copyOf(more.start(), keys + 2), what);
        assertArrayEquals(Arrays.copyOf(one.rows(), g[0][n]), Arrays.copyOf(more.rows(), g[0][n]), what);
        assertSame(start, more.start());
      }
    }
  }
}
