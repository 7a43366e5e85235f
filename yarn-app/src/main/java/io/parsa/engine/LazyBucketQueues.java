package io.parsa.engine;

import it.unimi.dsi.fastutil.ints.Int2IntOpenHashMap;
import java.util.Arrays;

/**
 * Per-part cost queues of {@link ParsaEngine} as bucket stacks with lazy deletion (the default structure).
 *
 * <p>Part p keeps {@code cost[p][u]} for every row and, for each cost c in 0..θ, a LIFO chain of entries
 * (row, next) in a per-part pool. A decrement writes {@code cost[u] = c − 1} and pushes a new entry for u onto
 * chain c − 1; the old entry stays behind and is recognised as stale (an entry (u, c) is live iff u is
 * unassigned and {@code cost[u] == c}; costs only fall, so u has at most one live entry). Assigning a row only
 * sets its flag, so no part's structure is touched. Stale entries are popped when they reach a chain's top, and
 * the pool is compacted (order preserved) when it is full. This gives the same order as the doubly-linked list
 * of the paper's Figure 5 — newest decrement first within a cost — with sequential memory traffic instead of
 * three random writes per decrement.
 *
 * <pre>
 *   head[c] ──▶ (u9, ·) ──▶ (u4, ·) ──▶ (u7, ·) ──▶ ⊥      chain for cost c, newest first
 *   pool:  | u · | u · | u · | ...                        entries: row, index of next entry (−1 = end)
 * </pre>
 * Rows with cost &gt; θ are kept in an overflow array in increasing row order; only when every chain is empty is it
 * scanned for the lowest cost (ties: latest decrement — stamps kept in a small map — then lowest row).
 * Memory per part: 4n (costs) + 8·(1.5n + 256) (pool) + 4(θ+1) bytes.
 */
final class LazyBucketQueues {
  private static final int NONE = -1;

  private final int k;
  private final int theta;
  final int[][] cost;
  private final int[][] head;
  private final int[][] pool;
  private final int[] poolSize;
  private final int[] minBucket;
  private final int[] maxBucket;
  private final boolean[] built;
  private final int[][] ovRows;
  private final int[] ovCount;
  private final Int2IntOpenHashMap[] ovStamp;
  private final int[] ovClock;
  private boolean[] assigned;
  private int[] scratch = new int[0];
  /** Number of pool compactions so far (for tests). */
  long compactions;

  LazyBucketQueues(int k, int theta) {
    this.k = k;
    this.theta = theta;
    this.cost = new int[k][];
    this.head = new int[k][];
    this.pool = new int[k][];
    this.poolSize = new int[k];
    this.minBucket = new int[k];
    this.maxBucket = new int[k];
    this.built = new boolean[k];
    this.ovRows = new int[k][];
    this.ovCount = new int[k];
    this.ovStamp = new Int2IntOpenHashMap[k];
    this.ovClock = new int[k];
  }

  /** Prepares for a block of n rows: every part's cost array has room for n, no part is built. */
  void reset(int n, boolean[] assigned) {
    this.assigned = assigned;
    for (int p = 0; p < k; p++) {
      if (cost[p] == null || cost[p].length < n) {
        cost[p] = new int[Math.max(n, cost[p] == null ? 0 : cost[p].length + (cost[p].length >> 1))];
      }
      built[p] = false;
    }
  }

  boolean built(int p) {
    return built[p];
  }

  /** Builds part p's chains over the unassigned rows (rows pushed in decreasing order: lowest row on top). */
  void build(int p, int n) {
    int[] hd = head[p];
    if (hd == null) {
      hd = new int[theta + 1];
      head[p] = hd;
    }
    int cap = n + Math.max(n >> 1, 256);
    if (pool[p] == null || pool[p].length < 2 * cap) {
      pool[p] = new int[2 * cap];
    }
    Arrays.fill(hd, NONE);
    poolSize[p] = 0;
    minBucket[p] = theta + 1;
    maxBucket[p] = -1;
    int[] c = cost[p];
    boolean[] done = assigned;
    int big = 0;
    for (int u = n - 1; u >= 0; u--) {
      if (!done[u]) {
        if (c[u] <= theta) {
          push(p, c[u], u);
        } else {
          big++;
        }
      }
    }
    ovCount[p] = 0;
    if (big > 0) {
      if (ovRows[p] == null || ovRows[p].length < big) {
        ovRows[p] = new int[Math.max(big, 16)];
      }
      int[] ov = ovRows[p];
      int i = 0;
      for (int u = 0; u < n; u++) {
        if (!done[u] && c[u] > theta) {
          ov[i++] = u;
        }
      }
      ovCount[p] = big;
      if (ovStamp[p] == null) {
        ovStamp[p] = new Int2IntOpenHashMap();
      } else {
        ovStamp[p].clear();
      }
      ovClock[p] = 0;
    }
    built[p] = true;
  }

  private void push(int p, int c, int u) {
    int[] pl = pool[p];
    int size = poolSize[p];
    if (2 * size == pl.length) {
      compact(p);
      size = poolSize[p];
      if (4 * size > 3 * pl.length) { // cannot happen with cap ≥ 1.5 × live rows; kept as a guard
        pool[p] = pl = Arrays.copyOf(pl, pl.length + (pl.length >> 1));
      }
    }
    int[] hd = head[p];
    pl[2 * size] = u;
    pl[2 * size + 1] = hd[c];
    hd[c] = size;
    poolSize[p] = size + 1;
    if (c < minBucket[p]) {
      minBucket[p] = c;
    }
    if (c > maxBucket[p]) {
      maxBucket[p] = c;
    }
  }

  /** Drops stale entries, keeping every chain's order. */
  private void compact(int p) {
    int[] pl = pool[p];
    int[] hd = head[p];
    int[] c = cost[p];
    boolean[] done = assigned;
    if (scratch.length < pl.length) {
      scratch = new int[pl.length];
    }
    int[] s = scratch;
    compactions++;
    int w = 0;
    for (int b = 0; b <= maxBucket[p]; b++) {
      int first = NONE;
      int prev = NONE;
      for (int e = hd[b]; e != NONE; e = pl[2 * e + 1]) {
        int u = pl[2 * e];
        if (!done[u] && c[u] == b) {
          s[2 * w] = u;
          s[2 * w + 1] = NONE;
          if (prev == NONE) {
            first = w;
          } else {
            s[2 * prev + 1] = w;
          }
          prev = w;
          w++;
        }
      }
      hd[b] = first;
    }
    System.arraycopy(s, 0, pl, 0, 2 * w);
    poolSize[p] = w;
  }

  /** cost_p(u) −= 1 and u moves to the top of its new chain (or gets a newer stamp in the overflow). */
  void decrement(int p, int u) {
    int nc = --cost[p][u];
    if (nc <= theta) {
      push(p, nc, u);
    } else {
      ovStamp[p].put(u, ++ovClock[p]);
    }
  }

  /** The row part p picks: top live entry of the lowest non-empty chain, else the best overflow row. */
  int lowest(int p) {
    int[] hd = head[p];
    int[] pl = pool[p];
    int[] c = cost[p];
    boolean[] done = assigned;
    for (int b = minBucket[p], max = maxBucket[p]; b <= max; b++) {
      int e = hd[b];
      while (e != NONE) {
        int u = pl[2 * e];
        if (!done[u] && c[u] == b) {
          hd[b] = e;
          minBucket[p] = b;
          return u;
        }
        e = pl[2 * e + 1];
      }
      hd[b] = NONE;
    }
    minBucket[p] = theta + 1;
    int[] ov = ovRows[p];
    Int2IntOpenHashMap stamps = ovStamp[p];
    int best = NONE;
    int bestStamp = 0;
    int w = 0;
    for (int i = 0, end = ovCount[p]; i < end; i++) {
      int u = ov[i];
      if (done[u] || c[u] <= theta) {
        continue; // assigned, or moved down into a chain
      }
      ov[w++] = u;
      int st = stamps.get(u);
      if (best == NONE || c[u] < c[best] || (c[u] == c[best] && st > bestStamp)) {
        best = u;
        bestStamp = st;
      }
    }
    ovCount[p] = w;
    if (best == NONE) {
      throw new IllegalStateException("no unassigned row left for part " + p);
    }
    return best;
  }
}
