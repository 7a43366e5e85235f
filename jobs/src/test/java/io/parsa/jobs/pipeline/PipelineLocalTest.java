package io.parsa.jobs.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.parsa.common.JsonFiles;
import io.parsa.jobs.ParsaCli;
import java.io.File;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole pipeline in local mode (LocalJobRunner, local FS, embedded partition-u). */
class PipelineLocalTest {

  @TempDir
  Path tmp;

  static Configuration localConf() {
    Configuration conf = new Configuration();
    conf.set("fs.defaultFS", "file:///");
    conf.set("mapreduce.framework.name", "local");
    conf.setInt("mapreduce.task.io.sort.mb", 32);
    return conf;
  }

  private static File dataset(String name) {
    File f = new File(System.getProperty("parsa.datasets.dir", "../../shared/datasets"), name);
    Assumptions.assumeTrue(f.exists(), "dataset " + name + " not found at " + f.getAbsolutePath()
        + "; skipping (the core suite does not need it)");
    return f;
  }

  @Test
  void reutersPipelineKeepsEveryRowAndItsReportMatchesARecomputation() throws Exception {
    File input = dataset("reuters21578.libsvm.gz");
    int k = 8;
    File out = tmp.resolve("run").toFile();
    int rc = ParsaCli.runStep(localConf(), "pipeline", "--input", input.getAbsolutePath(), "--format", "libsvm",
        "--k", String.valueOf(k), "--output", out.getAbsolutePath(), "--blocks", "4", "--workers", "2");
    assertEquals(0, rc);

    FileSystem fs = FileSystem.getLocal(localConf());
    org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path(out.getAbsolutePath());
    List<List<String>> shards = PlacementCheck.shardLines(fs, new org.apache.hadoop.fs.Path(dir, "shards"), k);

    // the shards hold exactly the input's rows, as a multiset
    Map<String, Integer> inLines = PlacementCheck.linesOf(input);
    Map<String, Integer> outLines = new HashMap<>();
    int rows = 0;
    for (List<String> s : shards) {
      rows += s.size();
      for (String line : s) {
        outLines.merge(line, 1, Integer::sum);
      }
    }
    assertEquals(21_578, rows);
    assertEquals(inLines, outLines);

    // perfectly balanced: part sizes differ by at most one
    int min = Integer.MAX_VALUE;
    int max = 0;
    for (List<String> s : shards) {
      min = Math.min(min, s.size());
      max = Math.max(max, s.size());
    }
    assertTrue(max - min <= 1, "part sizes " + min + ".." + max);

    // the report's figures equal a recomputation from the shards and the V assignment
    JsonNode report = JsonFiles.MAPPER.readTree(new File(out, "metrics/report.json"));
    PlacementCheck.assertReportMatches(report, shards,
        PlacementCheck.readVAssignment(fs, new org.apache.hadoop.fs.Path(dir, "v-assignment")));
    assertEquals(1_628_543, report.get("nonZeros").asLong());
    assertTrue(report.get("improvementMaxWorkingSet").asDouble() > 0, "parsa beats random on M_max");

    // a second run with the same settings and input resumes: every step is reused
    rc = ParsaCli.runStep(localConf(), "pipeline", "--input", input.getAbsolutePath(), "--format", "libsvm",
        "--k", String.valueOf(k), "--output", out.getAbsolutePath(), "--blocks", "4", "--workers", "2");
    assertEquals(0, rc);
    JsonNode timings = JsonFiles.MAPPER.readTree(new File(out, PipelineTool.TIMINGS));
    assertEquals("reused", timings.get("ingest").asText());
    assertEquals("reused", timings.get("reshuffle").asText());
    // the timings say which JIT compilers ran them (this test JVM: tiered, unless its argLine says otherwise)
    assertEquals(PipelineTool.jitCompilers(), timings.get("jit").asText());
    assertTrue(List.of("c1", "tiered").contains(timings.get("jit").asText()), timings.toString());

    // other settings on the same directory are refused without --overwrite
    rc = ParsaCli.runStep(localConf(), "pipeline", "--input", input.getAbsolutePath(), "--format", "libsvm",
        "--k", "4", "--output", out.getAbsolutePath());
    assertNotEquals(0, rc);
  }

  /**
   * Two runs of the default pipeline on the bundled sample, two partition-u workers each, write the same shards and
   * the same report: partition-u's waves, refine-u, partition-v and the reshuffle depend on no timing.
   */
  @Test
  void theDefaultPipelineWritesTheSameShardsEveryRun() throws Exception {
    File sample = new File("../examples/sample.libsvm.gz");
    int k = 4;
    FileSystem fs = FileSystem.getLocal(localConf());
    List<List<List<String>>> shards = new java.util.ArrayList<>();
    List<JsonNode> reports = new java.util.ArrayList<>();
    for (String run : List.of("a", "b")) {
      File out = tmp.resolve(run).toFile();
      assertEquals(0, ParsaCli.runStep(localConf(), "pipeline", "--input", sample.getAbsolutePath(), "--format",
          "libsvm", "--k", String.valueOf(k), "--output", out.getAbsolutePath(), "--blocks", "4", "--workers", "2",
          "--mode", "embedded"));
      shards.add(PlacementCheck.shardLines(fs, new org.apache.hadoop.fs.Path(out.getAbsolutePath(), "shards"), k));
      reports.add(JsonFiles.MAPPER.readTree(new File(out, "metrics/report.json")));
      JsonNode stats = JsonFiles.MAPPER.readTree(new File(out, "_stats.json"));
      assertEquals(2, stats.get("waveWidth").asInt(), stats.toString());
    }
    assertEquals(4_000, shards.get(0).stream().mapToInt(List::size).sum());
    for (int i = 0; i < k; i++) {
      assertEquals(shards.get(0).get(i), shards.get(1).get(i), "shard " + i);
    }
    for (String figure : List.of("maxWorkingSet", "maxTraffic", "sumTraffic")) {
      assertEquals(reports.get(0).get("placed").get(figure), reports.get(1).get("placed").get(figure), figure);
    }
  }
}
