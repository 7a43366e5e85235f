package io.parsa.engine;

import java.util.Arrays;

/**
 * One block (subgraph, paper §4.2) of rows in CSR form, with its keys renumbered to dense local ids.
 *
 * <p>The constructor takes rows as given (global 64-bit keys, duplicates within a row allowed) and builds:
 * {@link #keys()} — the distinct keys of the block in ascending order, so local key {@code j} is
 * {@code keys()[j]}; and a de-duplicated local CSR ({@link #localRowStart()}, {@link #localKeys()}) in which
 * every row lists each of its distinct keys once, in the order of first occurrence in the input row. The
 * engine only ever sees the local CSR; a key repeated within one row counts once.
 *
 * <p>Instances are immutable after construction. {@code rowIds} and {@code weights} are kept, not copied, and
 * the arrays returned by accessors are the internal ones: callers must not modify any of them. Memory: 8·n (ids)
 * + 4·(n+1) + 4·edges (local CSR) + 8·distinct keys, plus the weights if given.
 */
public final class Block {
  private final long[] rowIds;
  private final double[] weights;
  private final long numNonZeros;
  private final long[] keys;
  private final int[] localRowStart;
  private final int[] localKeys;

  /**
   * Builds a block.
   *
   * @param rowIds   global row id of each row (length n)
   * @param rowStart CSR offsets into {@code rowKeys}, length n + 1, non-decreasing, {@code rowStart[0] == 0}
   * @param rowKeys  global keys of all rows, row r occupying {@code [rowStart[r], rowStart[r+1])}
   * @param weights  per-row weight (length n, finite, non-negative), or {@code null} for unit weights
   */
  public Block(long[] rowIds, int[] rowStart, long[] rowKeys, double[] weights) {
    int n = checkNotNull(rowIds, "rowIds").length;
    checkNotNull(rowStart, "rowStart");
    checkNotNull(rowKeys, "rowKeys");
    if (rowStart.length != n + 1) {
      throw new IllegalArgumentException("rowStart.length must be rowIds.length + 1 = " + (n + 1)
          + ", was " + rowStart.length);
    }
    if (rowStart[0] != 0 || rowStart[n] != rowKeys.length) {
      throw new IllegalArgumentException("rowStart must start at 0 and end at rowKeys.length = "
          + rowKeys.length + ", was [" + rowStart[0] + " .. " + rowStart[n] + "]");
    }
    for (int r = 0; r < n; r++) {
      if (rowStart[r + 1] < rowStart[r]) {
        throw new IllegalArgumentException("rowStart must be non-decreasing; row " + r + " has "
            + rowStart[r] + " > " + rowStart[r + 1]);
      }
    }
    if (weights != null) {
      if (weights.length != n) {
        throw new IllegalArgumentException("weights.length must be " + n + ", was " + weights.length);
      }
      for (int r = 0; r < n; r++) {
        if (!(weights[r] >= 0) || Double.isInfinite(weights[r])) {
          throw new IllegalArgumentException("weight of row " + r + " must be finite and >= 0, was "
              + weights[r]);
        }
      }
    }
    this.rowIds = rowIds;
    this.weights = weights;
    this.numNonZeros = rowKeys.length;

    int nnz = rowKeys.length;
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (long key : rowKeys) {
      min = Math.min(min, key);
      max = Math.max(max, key);
    }
    // the keys' span, or −1 where it overflows a long (keys of both signs far apart, e.g. hashed ids)
    long span = nnz == 0 || (max - min) < 0 ? -1 : max - min;
    int[] rank;
    int numKeys;
    if (span >= 0 && span < denseSpanLimit(nnz)) {
      // Dense keys (feature indices, vertex ids): the rank of every key from a table over their span, no sort. The
      // table's 4 bytes a slot stay within the sorted copy's 8 bytes a non-zero that the other path needs.
      int[] slot = new int[(int) span + 1];
      for (long key : rowKeys) {
        slot[(int) (key - min)] = 1;
      }
      numKeys = 0;
      for (int i = 0; i < slot.length; i++) {
        if (slot[i] != 0) {
          slot[i] = ++numKeys;
        }
      }
      long[] distinct = new long[numKeys];
      for (int i = 0; i < slot.length; i++) {
        if (slot[i] != 0) {
          distinct[slot[i] - 1] = min + i;
        }
      }
      this.keys = distinct;
      rank = new int[nnz];
      for (int e = 0; e < nnz; e++) {
        rank[e] = slot[(int) (rowKeys[e] - min)] - 1;
      }
    } else {
      // Renumber by sorting: the distinct keys ascending, then each non-zero's rank by binary search. Sorting a copy
      // needs 8 bytes a non-zero at the peak, where a hash map of the distinct keys needed 3-4 times that while it
      // grew (a worker prepares the next block while it partitions the current one, so this peak sets its heap).
      long[] sorted = rowKeys.clone();
      Arrays.sort(sorted);
      numKeys = 0;
      for (int e = 0; e < nnz; e++) {
        if (numKeys == 0 || sorted[e] != sorted[numKeys - 1]) {
          sorted[numKeys++] = sorted[e];
        }
      }
      sorted = numKeys == nnz ? sorted : Arrays.copyOf(sorted, numKeys);
      this.keys = sorted;
      rank = null;
    }

    // De-duplicate within each row, keeping first-occurrence order.
    int[] lastRow = new int[numKeys];
    Arrays.fill(lastRow, -1);
    int[] start = new int[n + 1];
    int[] local = rank != null ? rank : new int[nnz]; // written at or behind the position read
    int w = 0;
    for (int r = 0; r < n; r++) {
      start[r] = w;
      for (int e = rowStart[r], end = rowStart[r + 1]; e < end; e++) {
        int j = rank != null ? rank[e] : Arrays.binarySearch(keys, 0, numKeys, rowKeys[e]);
        if (lastRow[j] != r) {
          lastRow[j] = r;
          local[w++] = j;
        }
      }
    }
    start[n] = w;
    this.localRowStart = start;
    this.localKeys = w == nnz ? local : Arrays.copyOf(local, w);
  }

  /**
   * Largest key span (max − min) renumbered through a table instead of a sort: twice the non-zeros, so the table
   * (4 bytes a slot) is never larger than the sorted copy (8 bytes a non-zero), and at least 2^16; below the
   * largest Java array.
   */
  static long denseSpanLimit(int nnz) {
    return Math.min(Integer.MAX_VALUE - 8L, Math.max(1L << 16, 2L * nnz));
  }

  private static <T> T checkNotNull(T value, String name) {
    if (value == null) {
      throw new IllegalArgumentException(name + " must not be null");
    }
    return value;
  }

  /** Number of rows n. */
  public int numRows() {
    return rowIds.length;
  }

  /** Global id of local row {@code r}. */
  public long rowId(int r) {
    return rowIds[r];
  }

  /** Number of non-zeros as given (duplicates within a row included). */
  public long numNonZeros() {
    return numNonZeros;
  }

  /** Number of distinct (row, key) pairs, i.e. edges of the bipartite graph; what Algorithm 3 processes. */
  public long numEdges() {
    return localKeys.length;
  }

  /** Distinct global keys of the block, ascending; local key {@code j} is {@code keys()[j]}. */
  public long[] keys() {
    return keys;
  }

  /** Number of distinct keys. */
  public int numKeys() {
    return keys.length;
  }

  /** Whether rows carry weights (otherwise every row weighs 1). */
  public boolean weighted() {
    return weights != null;
  }

  /** Weight of row {@code r} (1 when the block is unweighted). */
  public double weight(int r) {
    return weights == null ? 1.0 : weights[r];
  }

  /** Offsets into {@link #localKeys()}, length n + 1. */
  public int[] localRowStart() {
    return localRowStart;
  }

  /** Local key ids of all rows, distinct within each row, in first-occurrence order. */
  public int[] localKeys() {
    return localKeys;
  }
}
