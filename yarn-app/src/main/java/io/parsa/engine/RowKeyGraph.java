package io.parsa.engine;

import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.util.Arrays;
import java.util.List;

/**
 * All rows of a list of blocks as one CSR over dense key ids: global row g (blocks in order, rows in block order)
 * lists its distinct keys in {@code rowKeys[rowStart[g] .. rowStart[g+1])}, each as an id in [0, numKeys). The
 * in-memory form shared by the U refinement and the multilevel partitioner, read only. Memory: 4 bytes per non-zero,
 * 4 per row and a transient hash table of the distinct keys; once asked for, the rows of every key ({@link #byKey})
 * another 4 bytes per non-zero, built once and shared by every reader instead of one copy each.
 */
public final class RowKeyGraph {
  private final int numRows;
  private final int[] blockStart;
  private final int[] rowStart;
  private final int[] rowKeys;
  private final int numKeys;
  private volatile Transposed byKey;
  private volatile int[] communities;
  private int communitiesNetSize;

  /**
   * @param blockStart first global row of every block, and the row count at the end
   * @param rowStart CSR offsets of the rows' keys ({@code numRows + 1} entries)
   * @param rowKeys every row's distinct dense key ids
   */
  public RowKeyGraph(int numRows, int[] blockStart, int[] rowStart, int[] rowKeys, int numKeys) {
    this.numRows = numRows;
    this.blockStart = blockStart;
    this.rowStart = rowStart;
    this.rowKeys = rowKeys;
    this.numKeys = numKeys;
  }

  public int numRows() {
    return numRows;
  }

  public int[] blockStart() {
    return blockStart;
  }

  public int[] rowStart() {
    return rowStart;
  }

  public int[] rowKeys() {
    return rowKeys;
  }

  public int numKeys() {
    return numKeys;
  }

  /** The rows of every key ({@link #transpose} of this graph), built at the first call and shared afterwards. */
  Transposed byKey() {
    Transposed t = byKey;
    if (t == null) {
      synchronized (this) {
        t = byKey;
        if (t == null) {
          t = transpose(rowStart, rowKeys, numKeys);
          byKey = t;
        }
      }
    }
    return t;
  }

  /**
   * The community of every row ({@link Communities#of}, keys of more than {@code maxNetSize} rows left out, seed 1),
   * found at the first call and shared afterwards by every start and V-cycle over this graph.
   */
  int[] communities(int maxNetSize) {
    int[] c = communities;
    if (c == null || communitiesNetSize != maxNetSize) {
      synchronized (this) {
        c = communities;
        if (c == null || communitiesNetSize != maxNetSize) {
          Transposed t = byKey();
          c = Communities.of(numRows, numKeys, t.start(), t.rows(), maxNetSize, 1);
          communitiesNetSize = maxNetSize;
          communities = c;
        }
      }
    }
    return c;
  }

  /** The blocks' rows, renumbering keys densely in order of first appearance. */
  public static RowKeyGraph of(List<Block> blocks) {
    int[] blockStart = new int[blocks.size() + 1];
    long edges = 0;
    for (int b = 0; b < blocks.size(); b++) {
      Block blk = blocks.get(b);
      blockStart[b + 1] = Math.addExact(blockStart[b], blk.numRows());
      edges += blk.numEdges();
    }
    int n = blockStart[blocks.size()];
    int[] rowStart = new int[n + 1];
    int[] rowKeys = new int[Math.toIntExact(edges)];
    Long2IntOpenHashMap dense = new Long2IntOpenHashMap();
    dense.defaultReturnValue(-1);
    int w = 0;
    for (int b = 0; b < blocks.size(); b++) {
      Block blk = blocks.get(b);
      long[] keys = blk.keys();
      int[] ls = blk.localRowStart();
      int[] lk = blk.localKeys();
      // the dense id of each of the block's keys, looked up once per block (ids in order of first use, as before)
      int[] idOf = new int[keys.length];
      Arrays.fill(idOf, -1);
      for (int r = 0; r < blk.numRows(); r++) {
        for (int t = ls[r]; t < ls[r + 1]; t++) {
          int id = idOf[lk[t]];
          if (id < 0) {
            long key = keys[lk[t]];
            id = dense.get(key);
            if (id < 0) {
              id = dense.size();
              dense.put(key, id);
            }
            idOf[lk[t]] = id;
          }
          rowKeys[w++] = id;
        }
        rowStart[blockStart[b] + r + 1] = w;
      }
    }
    return new RowKeyGraph(n, blockStart, rowStart, rowKeys, dense.size());
  }

  /**
   * The transpose of a CSR of {@code rowStart.length − 1} rows over {@code numKeys} keys: the rows of key e are
   * {@code rows[start[e] .. start[e+1])}, ascending ({@code start} has one spare entry at the end, see
   * {@link #transposeInto}). Shared by the multilevel levels (pins of every net) and the swap rounds' gain cache
   * (rows of every key).
   */
  static Transposed transpose(int[] rowStart, int[] rowKeys, int numKeys) {
    return transposeInto(rowStart.length - 1, rowStart, rowKeys, numKeys, null, null);
  }

  /**
   * The transpose ({@link #transpose}) of the first {@code n} rows, into {@code start} (at least numKeys + 2 entries)
   * and {@code rows} (at least the non-zeros) where they are large enough (null: none), else into new arrays; the
   * arrays returned may be longer than the transpose. A V-cycle's clusterer reuses them from one part to the next
   * instead of touching fresh memory for every part (docs/quality.md §24).
   */
  static Transposed transposeInto(int n, int[] rowStart, int[] rowKeys, int numKeys, int[] start, int[] rows) {
    int nnz = rowStart[n]; // bounds in locals: C1 (small inputs) evaluates them at every step
    if (start == null || start.length < numKeys + 2) {
      start = new int[numKeys + 2];
    } else {
      Arrays.fill(start, 0, numKeys + 2, 0);
    }
    if (rows == null || rows.length < nnz) {
      rows = new int[nnz];
    }
    // counts at e + 2, their prefix sums make start[e + 1] the first slot of key e, which the fill below advances to
    // the first slot of key e + 1: no second array of fill positions
    for (int t = 0; t < nnz; t++) {
      start[rowKeys[t] + 2]++;
    }
    for (int e = 0; e < numKeys; e++) {
      start[e + 2] += start[e + 1];
    }
    for (int g = 0; g < n; g++) {
      for (int t = rowStart[g], end = rowStart[g + 1]; t < end; t++) {
        rows[start[rowKeys[t] + 1]++] = g;
      }
    }
    return new Transposed(start, rows);
  }

  /**
   * As {@link #transposeInto(int, int[], int[], int, int[], int[])} on {@code counts.length} threads, each a range of
   * rows of about equal keys, with {@code counts[c]} (at least numKeys entries) thread c's count of every key: the
   * first range's rows of a key come first, so the transpose is the same as on one thread.
   */
  static Transposed transposeInto(int n, int[] rowStart, int[] rowKeys, int numKeys, int[] start, int[] rows,
      int[][] counts) {
    int threads = counts.length;
    if (threads == 1) {
      return transposeInto(n, rowStart, rowKeys, numKeys, start, rows);
    }
    int nnz = rowStart[n];
    int[] st = start == null || start.length < numKeys + 2 ? new int[numKeys + 2] : start;
    int[] out = rows == null || rows.length < nnz ? new int[nnz] : rows;
    int[] bounds = Parallel.ranges(rowStart, n, threads);
    Parallel.run(threads, "transpose", c -> {
      int[] count = counts[c];
      Arrays.fill(count, 0, numKeys, 0);
      for (int t = rowStart[bounds[c]], end = rowStart[bounds[c + 1]]; t < end; t++) {
        count[rowKeys[t]]++;
      }
    });
    // every thread's first slot of every key: the keys in order, the threads in order within a key
    int pos = 0;
    for (int e = 0; e < numKeys; e++) {
      st[e] = pos;
      for (int[] count : counts) {
        int here = count[e];
        count[e] = pos;
        pos += here;
      }
    }
    st[numKeys] = nnz;
    st[numKeys + 1] = nnz;
    Parallel.run(threads, "transpose", c -> {
      int[] next = counts[c];
      for (int g = bounds[c]; g < bounds[c + 1]; g++) {
        for (int t = rowStart[g], end = rowStart[g + 1]; t < end; t++) {
          out[next[rowKeys[t]]++] = g;
        }
      }
    });
    return new Transposed(st, out);
  }

  /** A transposed CSR ({@link #transpose}). */
  record Transposed(int[] start, int[] rows) {
  }
}
