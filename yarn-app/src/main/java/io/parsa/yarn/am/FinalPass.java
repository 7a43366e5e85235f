package io.parsa.yarn.am;

import io.parsa.engine.Block;
import io.parsa.yarn.JobSpec;
import io.parsa.yarn.io.AssignmentFiles;
import io.parsa.yarn.io.BlockData;
import io.parsa.yarn.io.BlockFiles;
import io.parsa.yarn.server.ShardStore;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The master's last pass over the blocks and the written u-assignment: proves that every row of every block is
 * assigned exactly once (each block's assignment file holds exactly the block's row ids), and computes the exact
 * working sets N(U_i) — so M_max = max_i |N(U_i)| in {@code _stats.json} is exact, not the (larger) S_i.
 * Blocks are read and checked in parallel; their per-key member bits are merged into one table.
 */
public final class FinalPass {

  /** What the pass found. */
  public static final class Result {
    public long rows;
    public long nonZeros;
    public long edges;
    public long[] rowsPerPart;
    public double[] loadPerPart;
    /** Exact N(U_i) as a key -> member bits table. */
    public ShardStore workingSets;
    public long[] workingSetSizes;
  }

  private FinalPass() {}

  public static Result run(JobSpec job, FileSystem fs, int threads) throws IOException, InterruptedException {
    return run(job, fs, threads, PerBlock.all(job.blockPaths.size()));
  }

  /** The same checks and sums over some blocks only (a new master attempt taking over finished blocks). */
  public static Result run(JobSpec job, FileSystem fs, int threads, List<Integer> blocks)
      throws IOException, InterruptedException {
    Path uDir = new Path(job.outputTmp, "u-assignment");
    int k = job.k;
    int wpk = job.wordsPerKey();
    Result res = new Result();
    res.rowsPerPart = new long[k];
    res.loadPerPart = new double[k];
    res.workingSets = new ShardStore(k);
    PerBlock.map(blocks, threads, "parsa-final-pass", b -> {
      checkBlock(job, fs, uDir, b, k, wpk, res);
      return null;
    });
    res.workingSetSizes = res.workingSets.setSizes();
    return res;
  }

  private static void checkBlock(JobSpec job, FileSystem fs, Path uDir, int bi, int k, int wpk, Result res)
      throws IOException {
    Path blockPath = new Path(job.blockPaths.get(bi));
    Path aPath = AssignmentFiles.fileFor(uDir, bi);
    if (!fs.exists(aPath)) {
      throw new IOException("block " + bi + " (" + blockPath + ") has no assignment file " + aPath);
    }
    BlockData data = BlockFiles.read(fs, blockPath);
    AssignmentFiles.Rows a = AssignmentFiles.read(fs, aPath);
    int n = data.numRows();
    if (a.n != n) {
      throw new IOException(aPath + " assigns " + a.n + " rows but block " + blockPath + " has " + n);
    }
    // Every row exactly once: the assignment's ids are a permutation of the block's ids. The worker writes
    // them in block order; fall back to a sorted comparison if a writer ever reorders.
    int[] partOfRow = new int[n];
    boolean inOrder = true;
    for (int r = 0; r < n && inOrder; r++) {
      inOrder = a.ids[r] == data.rowIds[r];
      partOfRow[r] = a.parts[r];
    }
    if (!inOrder) {
      long[] x = Arrays.copyOf(a.ids, n);
      long[] y = data.rowIds.clone();
      Arrays.sort(x);
      Arrays.sort(y);
      if (!Arrays.equals(x, y)) {
        throw new IOException(aPath + " does not assign exactly the rows of block " + blockPath);
      }
      java.util.HashMap<Long, Integer> m = new java.util.HashMap<>();
      for (int r = 0; r < n; r++) {
        m.put(a.ids[r], a.parts[r]);
      }
      for (int r = 0; r < n; r++) {
        partOfRow[r] = m.get(data.rowIds[r]);
      }
    }
    Block block = new Block(data.rowIds, data.rowStart, data.rowKeys, data.weights);
    long[] keys = block.keys();
    long[] bits = new long[keys.length * wpk];
    int[] start = block.localRowStart();
    int[] local = block.localKeys();
    long[] rowsPerPart = new long[k];
    double[] loadPerPart = new double[k];
    for (int r = 0; r < n; r++) {
      int p = partOfRow[r];
      if (p < 0 || p >= k) {
        throw new IOException(aPath + ": row " + data.rowIds[r] + " has part " + p + " outside [0, " + k + ")");
      }
      rowsPerPart[p]++;
      loadPerPart[p] += block.weight(r);
      for (int e = start[r]; e < start[r + 1]; e++) {
        bits[local[e] * wpk + (p >>> 6)] |= 1L << p;
      }
    }
    synchronized (res) {
      res.rows += n;
      res.nonZeros += block.numNonZeros();
      res.edges += block.numEdges();
      for (int p = 0; p < k; p++) {
        res.rowsPerPart[p] += rowsPerPart[p];
        res.loadPerPart[p] += loadPerPart[p];
      }
      res.workingSets.push(keys, bits, false);
    }
  }
}
