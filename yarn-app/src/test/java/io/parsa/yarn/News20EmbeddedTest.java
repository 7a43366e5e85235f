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
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Embedded partition-u on news20: exactly once, balance within one row, M_max close to the sequential engine. */
class News20EmbeddedTest {

  @Test
  void news20TwoWorkers() throws Exception {
    File data = new File(System.getProperty("parsa.datasets.dir", "../../shared/datasets"), "news20.libsvm.gz");
    Assumptions.assumeTrue(data.exists(), "dataset news20 not found at " + data);
    Configuration conf = new Configuration();
    FileSystem fs = FileSystem.getLocal(conf);
    Path base = EmbeddedPartitionUTest.tempDir("news20");
    Path blocks = new Path(base, "blocks");
    List<TestBlocks.Row> rows = TestBlocks.readLibsvm(data, Integer.MAX_VALUE);
    TestBlocks.write(fs, blocks, rows, 16, 42);
    int k = 16;
    long t0 = System.currentTimeMillis();
    long ref = SequentialReference.mMax(fs, blocks, k);
    long refMs = System.currentTimeMillis() - t0;
    Path out = new Path(base, "out");
    t0 = System.currentTimeMillis();
    assertEquals(0, ToolRunner.run(conf, new PartitionUTool(), new String[] {"--blocks", blocks.toString(),
        "--output", out.toString(), "--k", Integer.toString(k), "--workers", "2", "--servers", "1", "--mode",
        "embedded"}));
    long runMs = System.currentTimeMillis() - t0;
    JsonNode stats = JsonFiles.MAPPER.readTree(new File(new Path(out, "_stats.json").toUri()));
    // exactly once, balance and M_max computed here from the blocks and the written u-assignment
    ExactPlacement exact = ExactPlacement.of(fs, blocks, new Path(out, "u-assignment"), k);
    long mMax = exact.mMax();
    System.out.printf("news20 k=%d: sequential M_max=%d (%d ms), 2 workers M_max=%d (%d ms), change %.2f%%%n", k,
        ref, refMs, mMax, runMs, 100.0 * (mMax - ref) / ref);
    assertEquals(rows.size(), stats.get("rows").asLong());
    assertEquals(rows.size(), exact.rows);
    assertTrue(exact.rowSpread() <= 1, "part sizes " + java.util.Arrays.toString(exact.rowsPerPart));
    for (int i = 0; i < k; i++) {
      assertEquals(exact.rowsPerPart[i], stats.get("rowsPerPart").get(i).asLong(), "reported rows of part " + i);
      assertTrue(stats.get("neighborSetSizes").get(i).asLong() >= exact.workingSetSizes[i], "S_i contains N(U_i)");
    }
    long min = Long.MAX_VALUE;
    long max = 0;
    for (JsonNode n : stats.get("rowsPerPart")) {
      min = Math.min(min, n.asLong());
      max = Math.max(max, n.asLong());
    }
    assertTrue(max - min <= 1, "part sizes " + stats.get("rowsPerPart"));
    assertEquals("sequential (block order)", stats.get("startingLoads").asText());
    // While a block's starting loads followed the order in which workers reserved, about 1 run in 10 landed 8-15 % above the sequential engine
    // (timing decided which part took the leftover rows of each block); 100 runs since: +0.4 .. +3.9 %.
    assertTrue(mMax <= ref * 1.05, "M_max " + mMax + " more than 5% above sequential " + ref);
  }
}
