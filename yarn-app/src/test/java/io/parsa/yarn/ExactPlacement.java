package io.parsa.yarn;

import io.parsa.engine.Block;
import io.parsa.engine.BlockSequencePartitioner;
import io.parsa.engine.NeighborSets;
import io.parsa.yarn.io.AssignmentFiles;
import io.parsa.yarn.io.BlockData;
import io.parsa.yarn.io.BlockFiles;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Test-side replacement of the master's former final pass: reads the blocks and a written u-assignment, checks that
 * every row of every block is assigned exactly once (and to a part in [0, k)), and computes the exact working sets
 * N(U_i), independently of anything partition-u reported.
 */
final class ExactPlacement {
  final long rows;
  final long[] rowsPerPart;
  final long[] workingSetSizes;
  /** Distinct keys used by any row. */
  final long keys;

  private ExactPlacement(long rows, long[] rowsPerPart, long[] workingSetSizes, long keys) {
    this.keys = keys;
    this.rows = rows;
    this.rowsPerPart = rowsPerPart;
    this.workingSetSizes = workingSetSizes;
  }

  long mMax() {
    long m = 0;
    for (long v : workingSetSizes) {
      m = Math.max(m, v);
    }
    return m;
  }

  long rowSpread() {
    long min = Long.MAX_VALUE;
    long max = 0;
    for (long v : rowsPerPart) {
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
    return max - min;
  }

  /** Checks and measures the u-assignment {@code uDir} of the blocks in {@code blocksDir}; throws on any violation. */
  static ExactPlacement of(FileSystem fs, Path blocksDir, Path uDir, int k) throws IOException {
    List<Path> blocks = BlockFiles.list(fs, blocksDir);
    NeighborSets used = new NeighborSets(k);
    LongOpenHashSet seen = new LongOpenHashSet();
    long[] rowsPerPart = new long[k];
    long rows = 0;
    for (int b = 0; b < blocks.size(); b++) {
      BlockData d = BlockFiles.read(fs, blocks.get(b));
      Path af = AssignmentFiles.fileFor(uDir, b);
      if (!fs.exists(af)) {
        throw new AssertionError("block " + b + " (" + blocks.get(b) + ") has no assignment file " + af);
      }
      AssignmentFiles.Rows a = AssignmentFiles.read(fs, af);
      if (a.n != d.numRows()) {
        throw new AssertionError(af + " assigns " + a.n + " rows, block " + blocks.get(b) + " has " + d.numRows());
      }
      Long2IntOpenHashMap partOf = new Long2IntOpenHashMap(a.n);
      for (int i = 0; i < a.n; i++) {
        if (a.parts[i] < 0 || a.parts[i] >= k) {
          throw new AssertionError(af + ": row " + a.ids[i] + " has part " + a.parts[i]);
        }
        if (partOf.put(a.ids[i], a.parts[i]) != partOf.defaultReturnValue() || !seen.add(a.ids[i])) {
          throw new AssertionError("row " + a.ids[i] + " assigned more than once");
        }
      }
      int[] parts = new int[d.numRows()];
      for (int r = 0; r < parts.length; r++) {
        if (!partOf.containsKey(d.rowIds[r])) {
          throw new AssertionError("row " + d.rowIds[r] + " of " + blocks.get(b) + " is not in " + af);
        }
        parts[r] = partOf.get(d.rowIds[r]);
        rowsPerPart[parts[r]]++;
      }
      rows += parts.length;
      Block block = new Block(d.rowIds, d.rowStart, d.rowKeys, d.weights);
      used.union(block.keys(), BlockSequencePartitioner.ownSets(block, parts, k));
    }
    return new ExactPlacement(rows, rowsPerPart, used.setSizes(), used.numKeys());
  }
}
