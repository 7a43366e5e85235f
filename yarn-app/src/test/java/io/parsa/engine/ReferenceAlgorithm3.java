package io.parsa.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * Brute-force Algorithm 3 for tests: recomputes every cost from scratch at every step and breaks ties by
 * per-(part, row) "last decremented" sequence numbers, exactly as documented in {@link ParsaEngine}.
 */
final class ReferenceAlgorithm3 {
  /** One pick: part, row, cost at the time of the pick. */
  record Pick(int part, int row, int cost) {}

  final List<Pick> picks = new ArrayList<>();

  int[] partition(int k, Block block, long[] membership, double[] loads) {
    int n = block.numRows();
    int numKeys = block.numKeys();
    int wpk = NeighborSets.wordsPerKey(k);
    int[] rs = block.localRowStart();
    int[] lk = block.localKeys();
    boolean[][] s = new boolean[k][numKeys];
    for (int i = 0; i < k; i++) {
      for (int v = 0; v < numKeys; v++) {
        s[i][v] = ((membership[v * wpk + (i >>> 6)] >>> i) & 1) != 0;
      }
    }
    long[][] stamp = new long[k][n];
    for (int i = 0; i < k; i++) {
      for (int u = 0; u < n; u++) {
        stamp[i][u] = -(u + 1L); // never decremented: lower row index ranks first
      }
    }
    long counter = 0;
    boolean[] assigned = new boolean[n];
    int[] result = new int[n];
    for (int step = 0; step < n; step++) {
      int p = 0;
      for (int j = 1; j < k; j++) {
        if (loads[j] < loads[p]) {
          p = j;
        }
      }
      int best = -1;
      int bestCost = Integer.MAX_VALUE;
      for (int u = 0; u < n; u++) {
        if (assigned[u]) {
          continue;
        }
        int c = 0;
        for (int e = rs[u]; e < rs[u + 1]; e++) {
          if (!s[p][lk[e]]) {
            c++;
          }
        }
        if (c < bestCost || (c == bestCost && stamp[p][u] > stamp[p][best])) {
          best = u;
          bestCost = c;
        }
      }
      picks.add(new Pick(p, best, bestCost));
      assigned[best] = true;
      result[best] = p;
      loads[p] += block.weight(best);
      for (int e = rs[best]; e < rs[best + 1]; e++) {
        int v = lk[e];
        if (s[p][v]) {
          continue;
        }
        s[p][v] = true;
        membership[v * wpk + (p >>> 6)] |= 1L << p;
        for (int r = 0; r < n; r++) {
          if (assigned[r]) {
            continue;
          }
          for (int x = rs[r]; x < rs[r + 1]; x++) {
            if (lk[x] == v) {
              stamp[p][r] = counter++;
              break;
            }
          }
        }
      }
    }
    return result;
  }
}
