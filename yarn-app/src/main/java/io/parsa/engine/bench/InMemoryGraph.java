package io.parsa.engine.bench;

import io.parsa.engine.Block;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/** A whole bipartite graph in memory: rows in CSR form with global 64-bit keys (benchmark input). */
final class InMemoryGraph {
  final long[] rowIds;
  final int[] rowStart;
  final long[] keys;

  InMemoryGraph(long[] rowIds, int[] rowStart, long[] keys) {
    this.rowIds = rowIds;
    this.rowStart = rowStart;
    this.keys = keys;
  }

  int numRows() {
    return rowIds.length;
  }

  long numNonZeros() {
    return rowStart[rowIds.length];
  }

  /**
   * Splits the rows into {@code b} blocks at random: the rows are shuffled (Fisher–Yates, SplittableRandom
   * of {@code seed}) and cut into b consecutive runs whose sizes differ by at most one.
   */
  List<Block> randomBlocks(int b, long seed) {
    int n = numRows();
    int[] perm = new int[n];
    for (int i = 0; i < n; i++) {
      perm[i] = i;
    }
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int i = n - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int x = perm[i];
      perm[i] = perm[j];
      perm[j] = x;
    }
    List<Block> blocks = new ArrayList<>(b);
    for (int blk = 0; blk < b; blk++) {
      int from = (int) ((long) n * blk / b);
      int to = (int) ((long) n * (blk + 1) / b);
      int[] rows = Arrays.copyOfRange(perm, from, to);
      Arrays.sort(rows); // keep input order within a block
      long[] ids = new long[rows.length];
      int[] start = new int[rows.length + 1];
      long nnz = 0;
      for (int i = 0; i < rows.length; i++) {
        nnz += rowStart[rows[i] + 1] - rowStart[rows[i]];
      }
      long[] ks = new long[Math.toIntExact(nnz)];
      int w = 0;
      for (int i = 0; i < rows.length; i++) {
        int r = rows[i];
        ids[i] = rowIds[r];
        int len = rowStart[r + 1] - rowStart[r];
        System.arraycopy(keys, rowStart[r], ks, w, len);
        w += len;
        start[i + 1] = w;
      }
      blocks.add(new Block(ids, start, ks, null));
    }
    return blocks;
  }
}
