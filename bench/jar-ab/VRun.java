import io.parsa.engine.Block;
import io.parsa.engine.MultilevelPartitioner;
import io.parsa.engine.RowKeyGraph;
import io.parsa.yarn.io.AssignmentFiles;
import io.parsa.yarn.io.BlockData;
import io.parsa.yarn.io.BlockFiles;
import io.parsa.yarn.io.NeighborSetFiles;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * One multilevel V-cycle of the engine on a pipeline output's blocks and u-assignment (k = 16, one thread), for AB.
 * Compiled against one jar and loaded once per jar, so each instance runs its own jar's engine.
 */
public class VRun {
  /** {@link #rep} returns milliseconds × SCALE + a hash of the parts below SCALE. */
  static final long SCALE = 1_000_000_000L;

  private final List<Block> blocks = new ArrayList<>();
  private final int[][] parts;
  private final RowKeyGraph graph;

  public VRun(String dir) throws Exception {
    FileSystem fs = FileSystem.getLocal(new Configuration());
    Long2IntOpenHashMap partOf = new Long2IntOpenHashMap();
    for (Path f : NeighborSetFiles.list(fs, new Path(dir, "u-assignment"))) { // Avro files in name order
      AssignmentFiles.Rows r = AssignmentFiles.read(fs, f);
      for (int i = 0; i < r.n; i++) {
        partOf.put(r.ids[i], r.parts[i]);
      }
    }
    List<Path> blockFiles = NeighborSetFiles.list(fs, new Path(dir, "blocks"));
    parts = new int[blockFiles.size()][];
    for (int b = 0; b < blockFiles.size(); b++) {
      BlockData d = BlockFiles.read(fs, blockFiles.get(b));
      Block blk = new Block(d.rowIds, d.rowStart, d.rowKeys, d.weights);
      blocks.add(blk);
      parts[b] = new int[blk.numRows()];
      for (int i = 0; i < blk.numRows(); i++) {
        parts[b][i] = partOf.get(blk.rowId(i));
      }
    }
    graph = RowKeyGraph.of(blocks);
  }

  /** One V-cycle from the given U with the seed of round {@code rep}. */
  public long rep(int rep) {
    MultilevelPartitioner.Settings s = MultilevelPartitioner.Settings.defaults();
    long t0 = System.nanoTime();
    MultilevelPartitioner.Counted c = new MultilevelPartitioner(16, s.withSeed(s.seed() + 100 + rep), x -> { })
        .setThreads(1).counted(blocks, graph, parts, 0.0, -1);
    long ms = (System.nanoTime() - t0) / 1_000_000;
    int h = 0;
    for (int[] p : c.parts()) {
      h = h * 31 + Arrays.hashCode(p);
    }
    return ms * SCALE + Math.floorMod(h, (int) 1_000_000);
  }
}
