package io.parsa.engine;

import java.util.Arrays;

/**
 * Parsa's Algorithm 3: partitions the rows of one {@link Block} over k parts, greedily minimising the growth
 * of the neighbor sets S_i, with perfectly balanced part loads carried across blocks.
 *
 * <h2>Algorithm</h2>
 * For each part i the engine keeps cost_i(u) = |N(u) \ S_i| for every unassigned row u of the block (N(u) is
 * the row's set of distinct keys; a key repeated within a row counts once). Then, until every row is assigned:
 * <ol>
 *   <li>the part p with the lowest load picks (ties: lowest part index); a row's load is its weight, 1 for
 *       an unweighted block; {@code loads} is carried in and out so balance holds over the whole run;</li>
 *   <li>p takes the unassigned row u* of lowest cost_p (tie-breaking below);</li>
 *   <li>u* is marked assigned (other parts drop it from their lists when it reaches a list front);
 *       load_p += weight(u*);</li>
 *   <li>for each key v of u* not in S_p (in the row's first-occurrence key order), v is added to S_p and
 *       cost_p(r) is decremented by one for each unassigned row r using v (in increasing row index).</li>
 * </ol>
 *
 * <h2>Tie-breaking (exact; a brute-force reference reproduces it)</h2>
 * Number the decrements of step 4 within one call of {@link #partition} 0, 1, 2, ... in the order in which they
 * are performed (picks in order; within a pick, keys in the row's first-occurrence order; within a key, rows in
 * increasing local index). Among the unassigned rows of minimum cost_p, part p picks the row whose cost_p was
 * decremented most recently (highest decrement number); rows whose cost_p has not been decremented during this
 * call rank after every decremented row, and among themselves by increasing local row index. Equivalently: every
 * cost bucket is a LIFO list, initially filled in increasing row order, and a decremented row moves to the front
 * of its new bucket.
 *
 * <h2>Data structure (paper §4.1, Figure 5)</h2>
 * Per part ({@link Structure#LINKED_LIST}, the default): an {@code int[3n]} array of nodes {cost, prev, next},
 * rows with cost 0..θ in per-cost doubly-linked lists with head pointers {@code heads[c]}, and rows with cost
 * &gt; θ in one overflow list sorted by cost (LIFO within a cost). Lowest cost, remove and decrement are O(1) for
 * costs ≤ θ + 1; a decrement above θ + 1 walks the overflow list back to the front of its new cost group. The
 * picking part unlinks its row at once; the other parts unlink an assigned row only when it reaches the front of
 * one of their lists (so an assignment costs O(1), not O(k)). Costs of all parts are initialised at the start of
 * a call with bit-sliced counters, O(k·n·log deg + nnz·ceil(k/64)·log deg); a part's lists are built when it
 * first picks in the call. The block's key→rows index drops assigned rows as it is scanned. Arrays are reused
 * across calls. Memory: about 12·n·k bytes for the nodes, 4·(θ+2)·k for the heads, 8·edges for the key→rows
 * index. {@link Structure#BUCKET_STACKS} is an alternative with the same choices (see {@link LazyBucketQueues}).
 *
 * <p>Not thread-safe; use one instance per thread.
 */
public final class ParsaEngine {
  /** Default θ: costs 0..θ get head pointers (the paper found 1000 covers over 99% of costs). */
  public static final int DEFAULT_THETA = 1000;
  /** Largest accepted θ (the head arrays take 4·(θ+2) bytes per part). */
  public static final int MAX_THETA = 1 << 24;

  /** Observer of each pick, for tests and tracing. */
  interface PickListener {
    void picked(int part, int row, int cost);
  }

  /** Which per-part cost structure the engine uses; both make exactly the same choices. */
  public enum Structure {
    /**
     * The paper's Figure 5: per part one array of nodes {cost, prev, next} with doubly-linked lists and head
     * pointers for costs 0..θ. The default: fastest in our measurements and 12 bytes per (row, part).
     */
    LINKED_LIST,
    /**
     * Bucket stacks with lazy deletion ({@link LazyBucketQueues}): no unlinking on assignment, sequential
     * writes on decrement, but stale entries to skip and compact; measured slower, 16 bytes per (row, part).
     */
    BUCKET_STACKS
  }

  private static final int NONE = -1;

  private final int k;
  private final int wpk;
  private final int theta;
  private final int overflow; // index of the overflow list's head in heads[p]

  private final int[][] nodes;
  private final int[][] heads;
  private final int[] minBucket;
  private final boolean[] built;

  private int[] keyStart = new int[0];
  private int[] keyEnd = new int[0];
  private int[] keyRows = new int[0];
  private boolean[] assigned = new boolean[0];
  private final long[] slices = new long[33];
  private PickListener listener;
  private final Structure structure;
  private final LazyBucketQueues lazy;

  /** An engine for {@code k} parts with θ = {@link #DEFAULT_THETA}. */
  public ParsaEngine(int k) {
    this(k, DEFAULT_THETA);
  }

  /** An engine for {@code k ≥ 1} parts whose cost lists have head pointers for costs 0..theta (theta ≥ 0). */
  public ParsaEngine(int k, int theta) {
    this(k, theta, Structure.LINKED_LIST);
  }

  /** An engine for {@code k ≥ 1} parts, θ ≥ 0, with the given cost structure. */
  public ParsaEngine(int k, int theta, Structure structure) {
    if (structure == null) {
      throw new IllegalArgumentException("structure must not be null");
    }
    this.structure = structure;
    if (k < 1) {
      throw new IllegalArgumentException("k must be >= 1, was " + k);
    }
    if (theta < 0 || theta > MAX_THETA) {
      throw new IllegalArgumentException("theta must be in [0, " + MAX_THETA + "], was " + theta);
    }
    this.k = k;
    this.wpk = NeighborSets.wordsPerKey(k);
    this.theta = theta;
    this.overflow = theta + 1;
    this.nodes = new int[k][];
    this.heads = new int[k][];
    this.minBucket = new int[k];
    this.built = new boolean[k];
    this.lazy = structure == Structure.BUCKET_STACKS ? new LazyBucketQueues(k, theta) : null;
  }

  /** Pool compactions of the bucket stacks so far (tests). */
  long compactions() {
    return lazy == null ? 0 : lazy.compactions;
  }

  /** The cost structure in use. */
  public Structure structure() {
    return structure;
  }

  /** Number of parts. */
  public int k() {
    return k;
  }

  /** θ of this engine. */
  public int theta() {
    return theta;
  }

  void setListener(PickListener listener) {
    this.listener = listener;
  }

  /**
   * Runs Algorithm 3 on one block.
   *
   * @param block      the rows to assign
   * @param membership in/out: S restricted to {@code block.keys()}, {@code wordsPerKey(k)} words per local key
   *                   (layout of {@link NeighborSets#pull}); on return S ∪ N(U_i) for every part i
   * @param loads      in/out: per-part load over the whole run so far (rows, or total weight); length k
   * @return the part of each row of the block
   */
  public int[] partition(Block block, long[] membership, double[] loads) {
    int n = block.numRows();
    int numKeys = block.numKeys();
    if ((long) numKeys * wpk > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("block too large for k = " + k + ": " + numKeys + " keys");
    }
    if (membership == null || membership.length < (long) numKeys * wpk) {
      throw new IllegalArgumentException("membership.length must be >= numKeys * wordsPerKey(k) = "
          + (long) numKeys * wpk + ", was " + (membership == null ? "null" : membership.length));
    }
    if (loads == null || loads.length != k) {
      throw new IllegalArgumentException("loads.length must be k = " + k + ", was "
          + (loads == null ? "null" : loads.length));
    }
    for (int j = 0; j < k; j++) {
      if (!(loads[j] >= 0) || Double.isInfinite(loads[j])) {
        throw new IllegalArgumentException("loads[" + j + "] must be finite and >= 0, was " + loads[j]);
      }
    }
    int[] result = new int[n];
    if (n == 0) {
      return result;
    }
    int[] rowStart = block.localRowStart();
    int[] rowKeys = block.localKeys();
    prepare(n, numKeys, rowStart, rowKeys);
    if (lazy != null) {
      lazy.reset(n, assigned);
      initCosts(n, rowStart, rowKeys, membership, lazy.cost, 1);
      partitionBuckets(block, membership, loads, result);
    } else {
      for (int j = 0; j < k; j++) {
        int[] nd = nodes[j];
        if (nd == null || nd.length < 3 * n) {
          nodes[j] = new int[3 * Math.max(n, nd == null ? 0 : nd.length / 3 + nd.length / 6)];
        }
        built[j] = false;
      }
      initCosts(n, rowStart, rowKeys, membership, nodes, 3);
      partitionLinked(block, membership, loads, result);
    }
    return result;
  }

  private static int lightest(double[] loads) {
    int p = 0;
    double best = loads[0];
    for (int j = 1; j < loads.length; j++) {
      if (loads[j] < best) {
        best = loads[j];
        p = j;
      }
    }
    return p;
  }

  private void partitionBuckets(Block block, long[] membership, double[] loads, int[] result) {
    int n = block.numRows();
    int[] rowStart = block.localRowStart();
    int[] rowKeys = block.localKeys();
    boolean weighted = block.weighted();
    final int[] ks = keyStart;
    final int[] ke = keyEnd;
    final int[] kr = keyRows;
    final boolean[] done = assigned;
    final LazyBucketQueues q = lazy;
    for (int step = 0; step < n; step++) {
      int p = lightest(loads);
      if (!q.built(p)) {
        q.build(p, n);
      }
      int u = q.lowest(p);
      if (listener != null) {
        listener.picked(p, u, q.cost[p][u]);
      }
      done[u] = true;
      result[u] = p;
      loads[p] += weighted ? block.weight(u) : 1.0;

      int word = p >>> 6;
      long bit = 1L << p;
      for (int e = rowStart[u], end = rowStart[u + 1]; e < end; e++) {
        int v = rowKeys[e];
        int w = v * wpk + word;
        long m = membership[w];
        if ((m & bit) != 0) {
          continue;
        }
        membership[w] = m | bit;
        // visit the key's unassigned rows in increasing order, dropping assigned ones from its list for good
        int out = ks[v];
        for (int x = ks[v], xe = ke[v]; x < xe; x++) {
          int r = kr[x];
          if (!done[r]) {
            kr[out++] = r;
            q.decrement(p, r);
          }
        }
        ke[v] = out;
      }
    }
  }

  private void partitionLinked(Block block, long[] membership, double[] loads, int[] result) {
    int n = block.numRows();
    int[] rowStart = block.localRowStart();
    int[] rowKeys = block.localKeys();
    boolean weighted = block.weighted();
    final int[] ks = keyStart;
    final int[] ke = keyEnd;
    final int[] kr = keyRows;
    final boolean[] done = assigned;
    for (int step = 0; step < n; step++) {
      int p = lightest(loads);
      if (!built[p]) {
        build(p, n);
      }
      int[] nd = nodes[p];
      int u = lowest(p);
      if (listener != null) {
        listener.picked(p, u, nd[3 * u]);
      }
      done[u] = true;
      result[u] = p;
      unlink(p, u); // other parts drop u lazily (see lowest)
      loads[p] += weighted ? block.weight(u) : 1.0;

      int word = p >>> 6;
      long bit = 1L << p;
      for (int e = rowStart[u], end = rowStart[u + 1]; e < end; e++) {
        int v = rowKeys[e];
        int w = v * wpk + word;
        long m = membership[w];
        if ((m & bit) != 0) {
          continue;
        }
        membership[w] = m | bit;
        int out = ks[v];
        for (int x = ks[v], xe = ke[v]; x < xe; x++) {
          int r = kr[x];
          if (!done[r]) {
            kr[out++] = r;
            decrement(p, nd, r);
          }
        }
        ke[v] = out;
      }
    }
  }

  /** Sizes the reusable arrays and builds the block's key→rows index (rows ascending). */
  private void prepare(int n, int numKeys, int[] rowStart, int[] rowKeys) {
    if (keyStart.length < numKeys + 1) {
      keyStart = new int[Math.max(numKeys + 1, keyStart.length + (keyStart.length >> 1))];
      keyEnd = new int[keyStart.length];
    }
    if (keyRows.length < rowKeys.length) {
      keyRows = new int[Math.max(rowKeys.length, keyRows.length + (keyRows.length >> 1))];
    }
    if (assigned.length < n) {
      assigned = new boolean[Math.max(n, assigned.length + (assigned.length >> 1))];
    } else {
      Arrays.fill(assigned, 0, n, false);
    }
    int[] ks = keyStart;
    Arrays.fill(ks, 0, numKeys + 1, 0);
    int edges = rowStart[n];
    for (int e = 0; e < edges; e++) {
      ks[rowKeys[e] + 1]++;
    }
    for (int v = 0; v < numKeys; v++) {
      ks[v + 1] += ks[v];
    }
    // fill using ks[v] as a cursor, then shift back
    int[] kr = keyRows;
    for (int r = 0; r < n; r++) {
      for (int e = rowStart[r], end = rowStart[r + 1]; e < end; e++) {
        kr[ks[rowKeys[e]]++] = r;
      }
    }
    System.arraycopy(ks, 0, keyEnd, 0, numKeys);
    for (int v = numKeys; v > 0; v--) {
      ks[v] = ks[v - 1];
    }
    ks[0] = 0;
  }

  /**
   * cost_i(u) = deg(u) − |N(u) ∩ S_i| for every part and row; marks every part's lists as not built.
   *
   * <p>Per row and per 64-part word, the membership words of the row's keys are summed in bit-sliced counters
   * (counter bit level l of part j = bit j of {@code slices[l]}), so the work is O(deg · levels) instead of
   * O(deg · parts holding the key); each part's count is then read out of the slices.
   */
  private void initCosts(int n, int[] rowStart, int[] rowKeys, long[] membership, int[][] all, int stride) {
    long[] slices = this.slices;
    for (int u = 0; u < n; u++) {
      int idx = stride * u;
      int from = rowStart[u];
      int to = rowStart[u + 1];
      int deg = to - from;
      for (int w = 0; w < wpk; w++) {
        int levels = 0;
        long any = 0;
        for (int e = from; e < to; e++) {
          long carry = membership[rowKeys[e] * wpk + w];
          any |= carry;
          for (int l = 0; carry != 0; l++) {
            if (l == levels) {
              slices[levels++] = 0;
            }
            long t = slices[l] & carry;
            slices[l] ^= carry;
            carry = t;
          }
        }
        int base = w << 6;
        int end = Math.min(k, base + 64);
        for (int j = base; j < end; j++) {
          int hits = 0;
          if (((any >>> j) & 1) != 0) {
            for (int l = 0; l < levels; l++) {
              hits |= (int) ((slices[l] >>> j) & 1) << l;
            }
          }
          all[j][idx] = deg - hits;
        }
      }
    }
  }

  /** Builds part p's lists over the unassigned rows: buckets in increasing row order, overflow sorted by cost. */
  private void build(int p, int n) {
    int[] hd = heads[p];
    if (hd == null) {
      hd = new int[theta + 2];
      heads[p] = hd;
    }
    Arrays.fill(hd, NONE);
    int[] nd = nodes[p];
    boolean[] done = assigned;
    int big = 0;
    int minB = overflow;
    for (int u = n - 1; u >= 0; u--) {
      if (done[u]) {
        continue;
      }
      int c = nd[3 * u];
      if (c > theta) {
        big++;
        continue;
      }
      int next = hd[c];
      nd[3 * u + 1] = NONE;
      nd[3 * u + 2] = next;
      if (next != NONE) {
        nd[3 * next + 1] = u;
      }
      hd[c] = u;
      if (c < minB) {
        minB = c;
      }
    }
    minBucket[p] = minB;
    built[p] = true;
    if (big == 0) {
      return;
    }
    long[] order = new long[big];
    int i = 0;
    for (int u = 0; u < n; u++) {
      if (!done[u] && nd[3 * u] > theta) {
        order[i++] = ((long) nd[3 * u] << 32) | u;
      }
    }
    Arrays.sort(order); // by cost, then by row index
    int prev = NONE;
    for (long o : order) {
      int u = (int) o;
      nd[3 * u + 1] = prev;
      nd[3 * u + 2] = NONE;
      if (prev == NONE) {
        hd[overflow] = u;
      } else {
        nd[3 * prev + 2] = u;
      }
      prev = u;
    }
  }

  /** The front row of part p's lowest non-empty list. */
  private int lowest(int p) {
    int[] hd = heads[p];
    boolean[] done = assigned;
    for (int c = minBucket[p]; c <= theta; c++) {
      int u = hd[c];
      while (u != NONE && done[u]) {
        unlink(p, u); // rows assigned by other parts leave this part's lists lazily, when they reach a front
        u = hd[c];
      }
      if (u != NONE) {
        minBucket[p] = c;
        return u;
      }
    }
    minBucket[p] = overflow;
    int u = hd[overflow];
    while (u != NONE && done[u]) {
      unlink(p, u);
      u = hd[overflow];
    }
    if (u == NONE) {
      throw new IllegalStateException("no unassigned row left for part " + p);
    }
    return u;
  }

  private void unlink(int p, int u) {
    int[] nd = nodes[p];
    int c = nd[3 * u];
    int pr = nd[3 * u + 1];
    int nx = nd[3 * u + 2];
    if (pr != NONE) {
      nd[3 * pr + 2] = nx;
    } else {
      heads[p][c > theta ? overflow : c] = nx;
    }
    if (nx != NONE) {
      nd[3 * nx + 1] = pr;
    }
  }

  /** cost_p(u) -= 1, moving u to the front of its new cost group. */
  private void decrement(int p, int[] nd, int u) {
    int c = nd[3 * u];
    int[] hd = heads[p];
    int pr = nd[3 * u + 1];
    int nx = nd[3 * u + 2];
    int nc = c - 1;
    if (c <= overflow) {
      // unlink from bucket min(c, θ+1), push to the front of bucket nc ≤ θ
      if (pr != NONE) {
        nd[3 * pr + 2] = nx;
      } else {
        hd[c] = nx; // c ≤ θ+1 = overflow, and the overflow head lives at hd[overflow]
      }
      if (nx != NONE) {
        nd[3 * nx + 1] = pr;
      }
      int head = hd[nc];
      nd[3 * u] = nc;
      nd[3 * u + 1] = NONE;
      nd[3 * u + 2] = head;
      if (head != NONE) {
        nd[3 * head + 1] = u;
      }
      hd[nc] = u;
      if (nc < minBucket[p]) {
        minBucket[p] = nc;
      }
      return;
    }
    // c > θ+1: stays in the overflow list; move to the front of the group with cost nc.
    nd[3 * u] = nc;
    int q = pr;
    while (q != NONE && nd[3 * q] >= nc) {
      q = nd[3 * q + 1];
    }
    if (q == pr) {
      return; // already right after the last row of lower cost
    }
    // unlink
    nd[3 * pr + 2] = nx; // pr != NONE here since q != pr
    if (nx != NONE) {
      nd[3 * nx + 1] = pr;
    }
    // insert after q (or at the head)
    int after = q == NONE ? hd[overflow] : nd[3 * q + 2];
    nd[3 * u + 1] = q;
    nd[3 * u + 2] = after;
    if (q == NONE) {
      hd[overflow] = u;
    } else {
      nd[3 * q + 2] = u;
    }
    nd[3 * after + 1] = u; // after != NONE: it is at least the old pr
  }
}
