package io.parsa.yarn;

import io.parsa.engine.Block;
import io.parsa.engine.NeighborSets;
import io.parsa.engine.ParsaEngine;
import io.parsa.yarn.io.BlockData;
import io.parsa.yarn.io.BlockFiles;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** The single-process engine over the same blocks, in order, sharing one S: the quality reference. */
final class SequentialReference {

  private SequentialReference() {}

  /** Exact M_max = max_i |N(U_i)| of the sequential run. */
  static long mMax(FileSystem fs, Path blocksDir, int k) throws IOException {
    List<Path> blocks = BlockFiles.list(fs, blocksDir);
    NeighborSets s = new NeighborSets(k);
    NeighborSets exact = new NeighborSets(k);
    ParsaEngine engine = new ParsaEngine(k);
    double[] loads = new double[k];
    int wpk = NeighborSets.wordsPerKey(k);
    for (Path p : blocks) {
      BlockData d = BlockFiles.read(fs, p);
      Block b = new Block(d.rowIds, d.rowStart, d.rowKeys, d.weights);
      long[] m = new long[b.keys().length * wpk];
      s.pull(b.keys(), m);
      int[] parts = engine.partition(b, m, loads);
      s.union(b.keys(), m);
      long[] used = new long[m.length];
      int[] start = b.localRowStart();
      int[] local = b.localKeys();
      for (int r = 0; r < b.numRows(); r++) {
        for (int e = start[r]; e < start[r + 1]; e++) {
          used[local[e] * wpk + (parts[r] >>> 6)] |= 1L << parts[r];
        }
      }
      exact.union(b.keys(), used);
    }
    long max = 0;
    for (long v : exact.setSizes()) {
      max = Math.max(max, v);
    }
    return max;
  }
}
