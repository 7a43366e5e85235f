package io.parsa.yarn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.parsa.common.JsonFiles;
import io.parsa.yarn.client.PartitionUTool;
import java.io.File;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;

/**
 * partition-u in embedded mode (the same master, server and worker code as on YARN, over loopback RPC) through
 * failures that must not cascade: a server restart slower than the RPC retry limit, and a worker that hangs.
 */
class FailureRecoveryEmbeddedTest {

  private static JsonNode stats(Path out) throws Exception {
    return JsonFiles.MAPPER.readTree(new File(new Path(out, "_stats.json").toUri()));
  }

  @Test
  void aServerRestartSlowerThanTheRpcRetryLimitFailsNoWorker() throws Exception {
    Configuration conf = new Configuration();
    FileSystem fs = FileSystem.getLocal(conf);
    Path base = EmbeddedPartitionUTest.tempDir("server-restart");
    Path blocks = new Path(base, "blocks");
    List<TestBlocks.Row> rows = TestBlocks.random(2400, 3000, 10, 13);
    TestBlocks.write(fs, blocks, rows, 12, 3);
    // server 1 dies after 6 acknowledged pushes (after the stage-end snapshot: some are only in its log) and
    // its replacement needs 4 s to come up, while every RPC gives up after 1 s of retries
    conf.setInt(ParsaYarnConfig.TEST_CRASH_SERVER_ID, 1);
    conf.setLong(ParsaYarnConfig.TEST_CRASH_SERVER_AFTER_PUSHES, 6);
    conf.setLong(ParsaYarnConfig.TEST_SERVER_RESTART_DELAY_MS, 4_000);
    conf.setLong(ParsaYarnConfig.WORKER_RPC_RETRY_MS, 1_000);
    conf.setLong(ParsaYarnConfig.TEST_WORKER_BLOCK_DELAY_MS, 50);
    Path out = new Path(base, "out");
    assertEquals(0, ToolRunner.run(conf, new PartitionUTool(), new String[] {"--blocks", blocks.toString(),
        "--output", out.toString(), "--k", "4", "--workers", "2", "--servers", "2", "--mode", "embedded",
        "--init-blocks", "1", "--max-worker-failures", "0"}));
    assertEquals(rows.size(), EmbeddedPartitionUTest.assignedIds(fs, new Path(out, "u-assignment"), 4).size(),
        "every row exactly once");
    JsonNode st = stats(out);
    assertEquals(1, st.get("serverRestarts").asInt());
    assertEquals(0, st.get("workerFailures").asInt(), "the workers waited for the server instead of failing");
    // acknowledged pushes survived the crash: the dumped S_i still contain the exact N(U_i)
    ExactPlacement exact = ExactPlacement.of(fs, blocks, new Path(out, "u-assignment"), 4);
    for (int i = 0; i < 4; i++) {
      assertTrue(st.get("neighborSetSizes").get(i).asLong() >= exact.workingSetSizes[i]);
    }
  }

  @Test
  void aHungWorkerIsDetectedKilledAndReplaced() throws Exception {
    Configuration conf = new Configuration();
    FileSystem fs = FileSystem.getLocal(conf);
    Path base = EmbeddedPartitionUTest.tempDir("hung-worker");
    Path blocks = new Path(base, "blocks");
    List<TestBlocks.Row> rows = TestBlocks.random(2000, 3000, 10, 17);
    TestBlocks.write(fs, blocks, rows, 10, 3);
    // worker 1 stops making progress on its third block, holding it; 3 s without progress = hung
    conf.setInt(ParsaYarnConfig.TEST_HANG_WORKER_ID, 1);
    conf.setInt(ParsaYarnConfig.TEST_HANG_AFTER_BLOCKS, 2);
    conf.setLong(ParsaYarnConfig.AM_LIVENESS_TIMEOUT_MS, 3_000);
    conf.setLong(ParsaYarnConfig.TEST_WORKER_BLOCK_DELAY_MS, 100);
    Path out = new Path(base, "out");
    assertEquals(0, ToolRunner.run(conf, new PartitionUTool(), new String[] {"--blocks", blocks.toString(),
        "--output", out.toString(), "--k", "4", "--workers", "2", "--servers", "1", "--mode", "embedded",
        "--init-blocks", "0"}));
    assertEquals(rows.size(), EmbeddedPartitionUTest.assignedIds(fs, new Path(out, "u-assignment"), 4).size(),
        "every row exactly once, the hung worker's blocks included");
    JsonNode st = stats(out);
    assertTrue(st.get("hungWorkers").asInt() >= 1, st.toString());
    assertTrue(st.get("workerReplacements").asInt() >= 1, st.toString());
    long min = Long.MAX_VALUE;
    long max = 0;
    for (JsonNode n : st.get("rowsPerPart")) {
      min = Math.min(min, n.asLong());
      max = Math.max(max, n.asLong());
    }
    assertTrue(max - min <= 1, "balance holds after the replacement: " + st.get("rowsPerPart"));
  }

  @Test
  void aHungServerIsDetectedKilledAndRestartedWithoutFailingWorkers() throws Exception {
    Configuration conf = new Configuration();
    FileSystem fs = FileSystem.getLocal(conf);
    Path base = EmbeddedPartitionUTest.tempDir("hung-server");
    Path blocks = new Path(base, "blocks");
    List<TestBlocks.Row> rows = TestBlocks.random(2000, 3000, 10, 19);
    TestBlocks.write(fs, blocks, rows, 10, 3);
    // server 0 hangs inside its 7th push, holding its push lock; 2 s without a healthy ping = hung
    conf.setInt(ParsaYarnConfig.TEST_HANG_SERVER_ID, 0);
    conf.setLong(ParsaYarnConfig.TEST_HANG_SERVER_AFTER_PUSHES, 6);
    conf.setLong(ParsaYarnConfig.AM_SERVER_LIVENESS_TIMEOUT_MS, 2_000);
    conf.setLong(ParsaYarnConfig.TEST_WORKER_BLOCK_DELAY_MS, 50);
    Path out = new Path(base, "out");
    assertEquals(0, ToolRunner.run(conf, new PartitionUTool(), new String[] {"--blocks", blocks.toString(),
        "--output", out.toString(), "--k", "4", "--workers", "2", "--servers", "2", "--mode", "embedded",
        "--init-blocks", "1", "--max-worker-failures", "0"}));
    assertEquals(rows.size(), EmbeddedPartitionUTest.assignedIds(fs, new Path(out, "u-assignment"), 4).size(),
        "every row exactly once");
    JsonNode st = stats(out);
    assertEquals(1, st.get("hungServers").asInt(), st.toString());
    assertEquals(1, st.get("serverRestarts").asInt(), st.toString());
    assertEquals(0, st.get("workerFailures").asInt(), "the workers waited for the restarted server");
  }
}
