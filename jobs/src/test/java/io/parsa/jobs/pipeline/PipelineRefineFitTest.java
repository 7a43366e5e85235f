package io.parsa.jobs.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.parsa.common.JsonFiles;
import io.parsa.jobs.ParsaCli;
import io.parsa.jobs.refine.RefineUTool;
import java.io.File;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * refine-u runs in one JVM: on data beyond that JVM's heap it refuses with the numbers, and the pipeline goes on
 * with partition-u's own assignment instead of failing after partition-u.
 */
class PipelineRefineFitTest {

  @TempDir
  Path tmp;

  private static final File SAMPLE = new File("../examples/sample.libsvm.gz");

  @Test
  void heapEstimateGrowsWithEdgesKeysAndParts() {
    long base = RefineUTool.heapNeeded(1_000, 10_000, 5_000, 16);
    assertTrue(RefineUTool.heapNeeded(1_000, 20_000, 5_000, 16) > base);
    assertTrue(RefineUTool.heapNeeded(1_000, 10_000, 10_000, 16) > base);
    assertTrue(RefineUTool.heapNeeded(1_000, 10_000, 5_000, 64) > base);
    // 3·10^8 non-zeros, 5.7·10^7 keys, k = 16: far beyond a 4 GiB driver
    assertTrue(RefineUTool.heapNeeded(30_000_000, 300_000_000, 57_000_000, 16) > (8L << 30));
  }

  @Test
  void pipelineRefinesWithMapReduceRoundsWhenRefineUCannotFitAndPlacesEveryRow() throws Exception {
    File out = tmp.resolve("run").toFile();
    Configuration conf = PipelineLocalTest.localConf();
    conf.setLong(RefineUTool.HEAP_LIMIT, 1L << 10); // 1 KiB: the sample (56,870 non-zeros) cannot fit
    int rc = ParsaCli.runStep(conf, "pipeline", "--input", SAMPLE.getAbsolutePath(), "--format", "libsvm", "--k",
        "4", "--output", out.getAbsolutePath(), "--blocks", "2", "--workers", "1", "--mode", "embedded");
    assertEquals(0, rc);
    JsonNode timings = JsonFiles.MAPPER.readTree(new File(out, PipelineTool.TIMINGS));
    assertTrue(timings.get("refine-u").isNumber(), timings.toString());
    // refine-u went distributed: its report says so, its rounds never raised the kept start's M_max, and the result
    // is better than partition-u's U on both (the multilevel start, short rows, trades some of its low T_sum for M_max)
    JsonNode refine = JsonFiles.MAPPER.readTree(new File(out, "u-refined/_refine.json"));
    assertEquals("mapreduce", refine.get("mode").asText());
    assertTrue(refine.get("maxWorkingSet").asLong() <= refine.get("startMaxWorkingSet").asLong(), refine.toString());
    JsonNode given = refine.get("starts").get(0);
    assertEquals("given", given.get("start").asText());
    assertTrue(refine.get("maxWorkingSet").asLong() < given.get("maxWorkingSet").asLong(), refine.toString());
    assertTrue(refine.get("sumTraffic").asLong() < given.get("sumTraffic").asLong(), refine.toString());
    // later steps read the refined assignment: the shards hold every row once
    FileSystem fs = FileSystem.getLocal(conf);
    assertEquals(4_000, shardRows(fs, out));

    // the step alone refuses with the numbers, before reading anything
    String why = RefineUTool.fitProblem(fs, new org.apache.hadoop.fs.Path(new File(out, "blocks").getAbsolutePath()),
        4, 1L << 10);
    assertNotNull(why);
    assertTrue(why.contains("56,870 non-zeros"), why);
    assertNull(RefineUTool.fitProblem(fs,
        new org.apache.hadoop.fs.Path(new File(out, "blocks").getAbsolutePath()), 4, 1L << 40));
    rc = ParsaCli.runStep(conf, "refine-u", "--blocks", new File(out, "blocks").getAbsolutePath(), "--u-assignment",
        new File(out, "u-assignment").getAbsolutePath(), "--output", tmp.resolve("r").toString(), "--k", "4",
        "--mode", "memory");
    assertNotEquals(0, rc, "--mode memory refuses data beyond the heap");
    assertFalse(tmp.resolve("r").toFile().exists());
  }

  /**
   * --weights nnz: ingest weighs every row by its non-zeros, partition-u balances the weights and refine-u keeps every
   * part's weight within the longest row's; every row reaches the shards once.
   */
  @Test
  void pipelineBalancesNonZerosWithWeightsNnz() throws Exception {
    File out = tmp.resolve("weighted").toFile();
    Configuration conf = PipelineLocalTest.localConf();
    assertEquals(0, ParsaCli.runStep(conf, "pipeline", "--input", SAMPLE.getAbsolutePath(), "--format", "libsvm",
        "--k", "4", "--output", out.getAbsolutePath(), "--blocks", "2", "--workers", "1", "--mode", "embedded",
        "--weights", "nnz"));
    FileSystem fs = FileSystem.getLocal(conf);
    assertEquals(4_000, shardRows(fs, out));
    long longest = 0;
    try (java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(
        new java.util.zip.GZIPInputStream(new java.io.FileInputStream(SAMPLE)), java.nio.charset.StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        longest = Math.max(longest, line.trim().split("\\s+").length - 1);
      }
    }
    JsonNode refine = JsonFiles.MAPPER.readTree(new File(out, "u-refined/_refine.json"));
    JsonNode w = refine.get("weightPerPart");
    assertNotNull(w, refine.toString());
    double max = 0;
    double min = Double.MAX_VALUE;
    for (JsonNode x : w) {
      max = Math.max(max, x.asDouble());
      min = Math.min(min, x.asDouble());
    }
    assertTrue(max - min <= longest, "part weights " + w + ", longest row " + longest);
    // the non-zeros, not the rows, are balanced: the four parts' weights add up to the sample's non-zeros
    assertEquals(56_870, w.get(0).asDouble() + w.get(1).asDouble() + w.get(2).asDouble() + w.get(3).asDouble(), 1e-6);
  }

  @Test
  void pipelineHandsTheObjectiveToRefineUAndRefusesAnUnknownOneBeforeWritingAnything() throws Exception {
    assertRefusedBeforeWriting("bad", "--objective", "fastest");
    JsonNode refine = refineStats("total", "--objective", "total");
    assertEquals("total", refine.get("objective").asText(), refine.toString());
    assertEquals(1, refine.get("schedule").size(), refine.toString());
    assertEquals(1.0, refine.get("schedule").get(0).asDouble(), 0.0);
  }

  /**
   * --refine-schedule, --capped-vcycles and --max-working-set reach refine-u; a bad schedule or room is refused before
   * anything is written.
   */
  @Test
  void pipelineHandsTheScheduleAndCappedVcyclesToRefineU() throws Exception {
    assertRefusedBeforeWriting("bad-schedule", "--refine-schedule", "2.5,0.5");
    assertRefusedBeforeWriting("bad-room", "--max-working-set", "0");
    JsonNode refine = refineStats("schedule", "--objective", "total", "--refine-schedule", "2.5,1",
        "--capped-vcycles", "2", "--max-working-set", "100000");
    assertEquals(100000, refine.get("maxWorkingSetRoom").asLong(), refine.toString());
    assertEquals("total", refine.get("objective").asText(), refine.toString());
    assertEquals(2, refine.get("schedule").size(), refine.toString());
    assertEquals(2.5, refine.get("schedule").get(0).asDouble(), 0.0);
    assertEquals(1.0, refine.get("schedule").get(1).asDouble(), 0.0);
    assertEquals(2, refine.get("cappedVcycles").asInt(), refine.toString());
  }

  /** --effort quick runs refine-u's swap rounds alone: no V-cycles, no multilevel start, and says so. */
  @Test
  void effortQuickRunsTheSwapRoundsOnly() throws Exception {
    JsonNode refine = refineStats("quick", "--effort", "quick");
    assertEquals(0, refine.get("vcycles").asInt(), refine.toString());
    assertEquals(0, refine.get("cappedVcycles").asInt(), refine.toString());
    assertEquals("skipped: --multilevel off", refine.get("multilevel").asText(), refine.toString());
    assertTrue(refine.get("rounds").size() > 0, refine.toString());
  }

  /** A pipeline on the sample with {@code extra} options exits with a usage error (2) and writes nothing. */
  private void assertRefusedBeforeWriting(String name, String... extra) throws Exception {
    File bad = tmp.resolve(name).toFile();
    List<String> args = new java.util.ArrayList<>(List.of("--input", SAMPLE.getAbsolutePath(), "--format", "libsvm",
        "--k", "4", "--output", bad.getAbsolutePath()));
    args.addAll(List.of(extra));
    assertEquals(2, ParsaCli.runStep(PipelineLocalTest.localConf(), "pipeline", args.toArray(new String[0])));
    assertFalse(bad.exists(), "nothing written for a refused run");
  }

  /**
   * Runs the pipeline on the sample (k = 4, 2 blocks, one embedded worker) with {@code extra} options, checks that
   * the shards hold every row, and returns refine-u's _refine.json.
   */
  private JsonNode refineStats(String name, String... extra) throws Exception {
    Configuration conf = PipelineLocalTest.localConf();
    File out = tmp.resolve(name).toFile();
    List<String> args = new java.util.ArrayList<>(List.of("--input", SAMPLE.getAbsolutePath(), "--format", "libsvm",
        "--k", "4", "--output", out.getAbsolutePath(), "--blocks", "2", "--workers", "1", "--mode", "embedded"));
    args.addAll(List.of(extra));
    assertEquals(0, ParsaCli.runStep(conf, "pipeline", args.toArray(new String[0])));
    assertEquals(4_000, shardRows(FileSystem.getLocal(conf), out));
    return JsonFiles.MAPPER.readTree(new File(out, "u-refined/_refine.json"));
  }

  /** Lines in the k = 4 shards of a pipeline directory. */
  private static int shardRows(FileSystem fs, File out) throws java.io.IOException {
    int rows = 0;
    for (List<String> s : PlacementCheck.shardLines(fs,
        new org.apache.hadoop.fs.Path(new File(out, "shards").getAbsolutePath()), 4)) {
      rows += s.size();
    }
    return rows;
  }
}
