package io.parsa.yarn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.parsa.common.JsonFiles;
import io.parsa.yarn.client.PartitionUTool;
import io.parsa.yarn.client.PartitionUToolAccess;
import io.parsa.yarn.io.AssignmentFiles;
import io.parsa.yarn.io.NeighborSetFiles;
import java.io.File;
import java.nio.file.Files;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;

/** partition-u in embedded mode on the local file system: outputs, exactly-once, balance, failure recovery. */
class EmbeddedPartitionUTest {

  static Path tempDir(String name) throws Exception {
    return TestDirs.fresh(name);
  }

  static Set<Long> assignedIds(FileSystem fs, Path uDir, int k) throws Exception {
    Set<Long> ids = new HashSet<>();
    for (Path f : NeighborSetFiles.list(fs, uDir)) {
      AssignmentFiles.Rows r = AssignmentFiles.read(fs, f);
      for (int i = 0; i < r.n; i++) {
        assertTrue(ids.add(r.ids[i]), "row " + r.ids[i] + " assigned twice");
        assertTrue(r.parts[i] >= 0 && r.parts[i] < k);
      }
    }
    return ids;
  }

  @Test
  void partitionsEveryRowOnceAndBalanced() throws Exception {
    Configuration conf = new Configuration();
    FileSystem fs = FileSystem.getLocal(conf);
    Path base = tempDir("embedded");
    Path blocks = new Path(base, "blocks");
    List<TestBlocks.Row> rows = TestBlocks.random(3000, 4000, 12, 7);
    TestBlocks.write(fs, blocks, rows, 12, 3);
    Path out = new Path(base, "out");
    int rc = ToolRunner.run(conf, new PartitionUTool(), new String[] {"--blocks", blocks.toString(), "--output",
        out.toString(), "--k", "5", "--workers", "2", "--servers", "2", "--mode", "embedded", "--init-blocks", "1",
        "--warmup-blocks", "1"});
    assertEquals(0, rc);
    assertTrue(fs.exists(new Path(out, "u-assignment/_SUCCESS")));
    assertTrue(fs.exists(new Path(out, "neighbor-sets/_SUCCESS")));
    Set<Long> ids = assignedIds(fs, new Path(out, "u-assignment"), 5);
    assertEquals(rows.size(), ids.size());
    JsonNode stats = JsonFiles.MAPPER.readTree(new File(new Path(out, "_stats.json").toUri()));
    long min = Long.MAX_VALUE;
    long max = 0;
    for (JsonNode n : stats.get("rowsPerPart")) {
      min = Math.min(min, n.asLong());
      max = Math.max(max, n.asLong());
    }
    assertTrue(max - min <= 1, "part sizes " + stats.get("rowsPerPart"));
    assertEquals(3000, stats.get("rows").asLong());
    ExactPlacement exact = ExactPlacement.of(fs, blocks, new Path(out, "u-assignment"), 5);
    assertEquals(3000, exact.rows);
    assertTrue(exact.mMax() > 0);
    for (int i = 0; i < 5; i++) {
      assertEquals(exact.rowsPerPart[i], stats.get("rowsPerPart").get(i).asLong(), "reported rows of part " + i);
      // S_i contains N(U_i)
      assertTrue(stats.get("neighborSetSizes").get(i).asLong() >= exact.workingSetSizes[i]);
    }
    assertEquals("sequential (block order)", stats.get("startingLoads").asText());
  }

  @Test
  void withoutIngestStatisticsBlocksStartFromTheReservationOrderAndBalanceHolds() throws Exception {
    Configuration conf = new Configuration();
    FileSystem fs = FileSystem.getLocal(conf);
    Path base = tempDir("no-stats");
    Path blocks = new Path(base, "blocks");
    TestBlocks.write(fs, blocks, TestBlocks.random(2000, 3000, 10, 13), 8, 3, false);
    Path out = new Path(base, "out");
    assertEquals(0, ToolRunner.run(conf, new PartitionUTool(), new String[] {"--blocks", blocks.toString(),
        "--output", out.toString(), "--k", "4", "--workers", "2", "--mode", "embedded"}));
    JsonNode st = JsonFiles.MAPPER.readTree(new File(new Path(out, "_stats.json").toUri()));
    assertTrue(st.get("startingLoads").asText().startsWith("reservation order: rows per block unknown: "),
        st.get("startingLoads").asText());
    assertTrue(st.get("startingLoads").asText().contains("_stats.json does not exist"));
    ExactPlacement exact = ExactPlacement.of(fs, blocks, new Path(out, "u-assignment"), 4);
    assertEquals(2000, exact.rows);
    assertTrue(exact.rowSpread() <= 1, java.util.Arrays.toString(exact.rowsPerPart));
  }

  @Test
  void refusesExistingOutputAndRecoversFromAWorkerCrash() throws Exception {
    Configuration conf = new Configuration();
    FileSystem fs = FileSystem.getLocal(conf);
    Path base = tempDir("crash");
    Path blocks = new Path(base, "blocks");
    List<TestBlocks.Row> rows = TestBlocks.random(2000, 3000, 10, 11);
    TestBlocks.write(fs, blocks, rows, 10, 5);
    Path out = new Path(base, "out");
    fs.mkdirs(new Path(out, "u-assignment"));
    String[] args = {"--blocks", blocks.toString(), "--output", out.toString(), "--k", "4", "--workers", "2",
        "--mode", "embedded"};
    assertEquals(2, ToolRunner.run(conf, new PartitionUTool(), args));
    conf.setInt(ParsaYarnConfig.TEST_CRASH_WORKER_ID, 0);
    conf.setInt(ParsaYarnConfig.TEST_CRASH_AFTER_BLOCKS, 2);
    String[] args2 = {"--blocks", blocks.toString(), "--output", out.toString(), "--k", "4", "--workers", "2",
        "--mode", "embedded", "--overwrite"};
    assertEquals(0, ToolRunner.run(conf, new PartitionUTool(), args2));
    assertEquals(rows.size(), assignedIds(fs, new Path(out, "u-assignment"), 4).size());
    JsonNode stats = JsonFiles.MAPPER.readTree(new File(new Path(out, "_stats.json").toUri()));
    assertEquals(1, stats.get("workerFailures").asInt());
  }

  @Test
  void incrementalRunStartsFromEarlierNeighborSetsWithSynchronousPushesAndWeights() throws Exception {
    Configuration conf = new Configuration();
    FileSystem fs = FileSystem.getLocal(conf);
    Path base = tempDir("incremental");
    Path blocks = new Path(base, "blocks");
    TestBlocks.write(fs, blocks, TestBlocks.random(1500, 2000, 8, 21), 6, 1);
    Path first = new Path(base, "first");
    assertEquals(0, ToolRunner.run(conf, new PartitionUTool(), new String[] {"--blocks", blocks.toString(),
        "--output", first.toString(), "--k", "3", "--workers", "2", "--mode", "embedded", "--init-fraction", "0.2"}));
    Path second = new Path(base, "second");
    assertEquals(0, ToolRunner.run(conf, new PartitionUTool(), new String[] {"--blocks", blocks.toString(),
        "--output", second.toString(), "--k", "3", "--workers", "2", "--servers", "3", "--mode", "embedded",
        "--initial-neighbor-sets", new Path(first, "neighbor-sets").toString(), "--max-delay", "0",
        "--weighted"}));
    assertEquals(1500, assignedIds(fs, new Path(second, "u-assignment"), 3).size());
    JsonNode a = JsonFiles.MAPPER.readTree(new File(new Path(first, "_stats.json").toUri()));
    JsonNode b = JsonFiles.MAPPER.readTree(new File(new Path(second, "_stats.json").toUri()));
    assertEquals(2, a.get("initBlocks").asInt(), "ceil(0.2 x 6 blocks)");
    for (int i = 0; i < 3; i++) {
      // the second run's S_i start from the first run's, so they can only be larger
      assertTrue(b.get("neighborSetSizes").get(i).asLong() >= a.get("neighborSetSizes").get(i).asLong());
    }
    // the earlier sets are the final ones of a run on the same data: the rows fall back into similar parts
    long mA = ExactPlacement.of(fs, blocks, new Path(first, "u-assignment"), 3).mMax();
    long mB = ExactPlacement.of(fs, blocks, new Path(second, "u-assignment"), 3).mMax();
    assertTrue(mB <= mA * 1.2, mA + " vs " + mB);
  }

  @Test
  void autoModeNeedsAResourceManagerAndMapReduceOnYarn() {
    Configuration c = new Configuration(false);
    assertEquals(false, PartitionUToolAccess.clusterConfigured(c));
    c.set("yarn.resourcemanager.address", "rm.example.com:8032");
    assertEquals(false, PartitionUToolAccess.clusterConfigured(c));
    c.set("mapreduce.framework.name", "yarn");
    assertEquals(true, PartitionUToolAccess.clusterConfigured(c));
  }

  @Test
  void workersWaitForTheServersWhenTheirPushBufferIsFullAndStillAssignEveryRowOnce() throws Exception {
    Configuration conf = new Configuration();
    // one byte: every push waits until the one before it is acknowledged (the memory backpressure's worst case)
    conf.set(ParsaYarnConfig.WORKER_PUSH_BUFFER, "1");
    FileSystem fs = FileSystem.getLocal(conf);
    Path base = tempDir("push-buffer");
    Path blocks = new Path(base, "blocks");
    List<TestBlocks.Row> rows = TestBlocks.random(2500, 3000, 10, 21);
    TestBlocks.write(fs, blocks, rows, 10, 3);
    Path out = new Path(base, "out");
    assertEquals(0, ToolRunner.run(conf, new PartitionUTool(), new String[] {"--blocks", blocks.toString(),
        "--output", out.toString(), "--k", "4", "--workers", "2", "--servers", "2", "--mode", "embedded"}));
    assertEquals(rows.size(), assignedIds(fs, new Path(out, "u-assignment"), 4).size());
    ExactPlacement exact = ExactPlacement.of(fs, blocks, new Path(out, "u-assignment"), 4);
    assertEquals(2500, exact.rows);
    assertTrue(exact.rowSpread() <= 1, java.util.Arrays.toString(exact.rowsPerPart));
  }

  @Test
  void oneWorkerIsExactlyTheSequentialEngine() throws Exception {
    Configuration conf = new Configuration();
    FileSystem fs = FileSystem.getLocal(conf);
    Path base = tempDir("one-worker");
    Path blocks = new Path(base, "blocks");
    TestBlocks.write(fs, blocks, TestBlocks.random(3000, 3000, 10, 5), 12, 2);
    long ref = SequentialReference.mMax(fs, blocks, 6);
    for (int run = 0; run < 2; run++) {
      Path out = new Path(base, "out" + run);
      assertEquals(0, ToolRunner.run(conf, new PartitionUTool(), new String[] {"--blocks", blocks.toString(),
          "--output", out.toString(), "--k", "6", "--workers", "1", "--mode", "embedded"}));
      assertEquals(ref, ExactPlacement.of(fs, blocks, new Path(out, "u-assignment"), 6).mMax(),
          "unbounded tau, yet the worker sees all its own pushes");
    }
  }
}
