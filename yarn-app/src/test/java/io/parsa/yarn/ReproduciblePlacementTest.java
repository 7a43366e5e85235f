package io.parsa.yarn;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.parsa.yarn.client.PartitionUTool;
import io.parsa.yarn.io.AssignmentFiles;
import io.parsa.yarn.io.NeighborSetFiles;
import java.util.List;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;

/**
 * One worker and a fixed seed give the same placement whatever the timing: the worker overlays its own pushes
 * still in flight on what it pulls, so every block sees the neighbor sets of all blocks before it.
 */
class ReproduciblePlacementTest {

  private static TreeMap<Long, Integer> placement(Configuration conf, Path blocks, Path out, String workers)
      throws Exception {
    FileSystem fs = FileSystem.getLocal(conf);
    int rc = ToolRunner.run(conf, new PartitionUTool(), new String[] {"--blocks", blocks.toString(), "--output",
        out.toString(), "--k", "6", "--workers", workers, "--mode", "embedded", "--seed", "5"});
    assertEquals(0, rc);
    TreeMap<Long, Integer> m = new TreeMap<>();
    for (Path f : NeighborSetFiles.list(fs, new Path(out, "u-assignment"))) {
      AssignmentFiles.Rows r = AssignmentFiles.read(fs, f);
      for (int i = 0; i < r.n; i++) {
        m.put(r.ids[i], r.parts[i]);
      }
    }
    return m;
  }

  @Test
  void oneWorkerGivesTheSamePlacementWhateverTheTiming() throws Exception {
    Configuration conf = new Configuration();
    FileSystem fs = FileSystem.getLocal(conf);
    Path base = EmbeddedPartitionUTest.tempDir("repro");
    Path blocks = new Path(base, "blocks");
    List<TestBlocks.Row> rows = TestBlocks.random(4000, 3000, 12, 11);
    TestBlocks.write(fs, blocks, rows, 16, 3);

    TreeMap<Long, Integer> first = placement(conf, blocks, new Path(base, "a"), "1");
    assertEquals(rows.size(), first.size());
    // the same run again, and once with the worker pausing after every block (its pushes then always land
    // before the next pull, instead of racing it)
    assertEquals(first, placement(conf, blocks, new Path(base, "b"), "1"));
    Configuration slow = new Configuration(conf);
    slow.setLong(ParsaYarnConfig.TEST_WORKER_BLOCK_DELAY_MS, 20);
    assertEquals(first, placement(slow, blocks, new Path(base, "c"), "1"));
  }
}
