package io.parsa.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.parsa.avro.VAssignment;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrainBenchToolTest {

  @TempDir
  Path tmp;

  /**
   * Local file system whatever else the JVM loaded: once a mini-cluster test has run in this JVM, YarnConfiguration
   * has made the cluster's yarn-site.xml (fs.defaultFS = the stopped MiniDFS) a default resource of every Configuration.
   */
  private static Configuration localConf() {
    Configuration c = new Configuration();
    c.set("fs.defaultFS", "file:///");
    return c;
  }

  private static void shard(Path dir, int i, String... lines) throws Exception {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(String.format("part-%05d", i)), String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
  }

  @Test
  void comparesPlacementsAndReconcilesWithTheMetricsReport() throws Exception {
    Path placed = tmp.resolve("placed");
    shard(placed.resolve("shards"), 0, "+1 1:1 2:1", "-1 2:0.5 3:1");
    shard(placed.resolve("shards"), 1, "+1 3:1 4:1", "-1 1:1 4:1");
    Files.createDirectories(placed.resolve("v-assignment"));
    try (DataFileWriter<VAssignment> w = new DataFileWriter<>(new SpecificDatumWriter<>(VAssignment.class))) {
      w.create(VAssignment.getClassSchema(), placed.resolve("v-assignment/part-00000.avro").toFile());
      for (long key = 1; key <= 4; key++) {
        w.append(new VAssignment(key, key <= 2 ? 0 : 1, null));
      }
    }
    Files.writeString(placed.resolve("_timings.json"), "{\"total\": 100.0}");
    Files.createDirectories(placed.resolve("metrics"));
    Files.writeString(placed.resolve("metrics/report.json"), "{\"placed\": {\"interAccesses\": 2}}");
    Path random = tmp.resolve("random");
    shard(random.resolve("shards"), 0, "+1 1:1 2:1", "+1 3:1 4:1");
    shard(random.resolve("shards"), 1, "-1 2:0.5 3:1", "-1 1:1 4:1");
    File out = tmp.resolve("report").toFile();
    String[] args = {"--placed", placed.toString(), "--random", random.toString(), "--epochs", "3",
        "--output", out.toString()};
    assertEquals(0, ToolRunner.run(localConf(), new TrainBenchTool(), args));
    JsonNode report = new ObjectMapper().readTree(new File(out, "report.json"));
    JsonNode p = report.path("runs").get(0);
    JsonNode r = report.path("runs").get(1);
    assertEquals("parsa", p.path("placement").asText());
    assertEquals(2, p.path("interKeyAccessesPerEpoch").asLong());
    assertTrue(p.path("reconciliation").path("metricsAgree").asBoolean(), p.toString());
    assertEquals(64, p.path("reconciliation").path("predictedInterPayloadBytes").asLong());
    for (int e = 0; e < 3; e++) {
      assertEquals(p.path("epochs").get(e).path("loss").asDouble(), r.path("epochs").get(e).path("loss").asDouble(),
          0.0, "loss of epoch " + (e + 1));
    }
    assertEquals(100.0, report.path("payback").get(0).path("pipelineSeconds").asDouble(), 0.0);
    assertEquals("random", report.path("payback").get(0).path("against").asText());
    assertTrue(Files.readString(new File(out, "report.txt").toPath()).contains("payback against random"));
    assertTrue(new File(out, "report.html").length() > 0);
    assertTrue(Files.readString(new File(out, "report.txt").toPath()).contains("metrics step predicted 2"));
    assertEquals(5, report.path("warmupEpochs").asInt());
    assertEquals(1, report.path("rounds").asInt());
    // an existing report is kept unless --overwrite
    assertEquals(2, ToolRunner.run(localConf(), new TrainBenchTool(), args));
  }

  @Test
  void roundsAverageTheEpochTimeAndKeepTheFiguresOfEveryPlacement() throws Exception {
    Path random = tmp.resolve("random");
    shard(random.resolve("shards"), 0, "+1 1:1 2:1", "+1 3:1 4:1");
    shard(random.resolve("shards"), 1, "-1 2:0.5 3:1", "-1 1:1 4:1");
    File out = tmp.resolve("report").toFile();
    String[] args = {"--random", random.toString(), "--hash", random.toString(), "--epochs", "2", "--link-mbps",
        "0,1000", "--warmup-epochs", "1", "--rounds", "2", "--output", out.toString()};
    assertEquals(0, ToolRunner.run(localConf(), new TrainBenchTool(), args));
    JsonNode report = new ObjectMapper().readTree(new File(out, "report.json"));
    JsonNode runs = report.path("runs");
    assertEquals(4, runs.size());
    String[] order = {"random", "random", "hash", "hash"};
    double[] rates = {0, 1000, 0, 1000};
    for (int i = 0; i < 4; i++) {
      JsonNode r = runs.get(i);
      assertEquals(order[i], r.path("placement").asText());
      assertEquals(rates[i], r.path("linkMbps").asDouble(), 0.0);
      assertEquals(2, r.path("epochs").size());
      JsonNode perRound = r.path("meanEpochSecondsPerRound");
      assertEquals(2, perRound.size());
      assertEquals((perRound.get(0).asDouble() + perRound.get(1).asDouble()) / 2,
          r.path("meanEpochSeconds").asDouble(), 1e-12);
      // embedded: every machine is a thread of this process, whose CPU time per epoch is reported beside the wall time
      JsonNode cpuPerRound = r.path("meanEpochCpuSecondsPerRound");
      assertEquals(2, cpuPerRound.size());
      assertEquals((cpuPerRound.get(0).asDouble() + cpuPerRound.get(1).asDouble()) / 2,
          r.path("meanEpochCpuSeconds").asDouble(), 1e-12);
      for (JsonNode e : r.path("epochs")) {
        // present and not negative (a few-millisecond epoch can read 0: the clock ticks in milliseconds or more)
        assertTrue(e.has("processCpuSeconds") && e.path("processCpuSeconds").asDouble() >= 0, e.toString());
      }
    }
    assertTrue(Files.readString(new File(out, "report.txt").toPath()).contains("cpu s"));
  }

  @Test
  void timeDilationSlowsTheLinksAndDividesEveryTime() throws Exception {
    // auto: k machines over the host's cores, never below 1
    assertEquals(8.0, TrainBenchTool.dilation("auto", 16, 2), 0.0);
    assertEquals(1.0, TrainBenchTool.dilation("auto", 2, 4), 0.0);
    assertEquals(2.5, TrainBenchTool.dilation("2.5", 16, 2), 0.0);
    Path random = tmp.resolve("random");
    shard(random.resolve("shards"), 0, "+1 1:1 2:1", "+1 3:1 4:1");
    shard(random.resolve("shards"), 1, "-1 2:0.5 3:1", "-1 1:1 4:1");
    File out = tmp.resolve("report").toFile();
    String[] args = {"--random", random.toString(), "--epochs", "2", "--link-mbps", "1000", "--warmup-epochs", "0",
        "--time-dilation", "4", "--output", out.toString()};
    assertEquals(0, ToolRunner.run(localConf(), new TrainBenchTool(), args));
    JsonNode report = new ObjectMapper().readTree(new File(out, "report.json"));
    assertEquals(4.0, report.path("timeDilation").asDouble(), 0.0);
    JsonNode r = report.path("runs").get(0);
    // the link is named at the rate asked for; the emulation ran it 4x slower
    assertEquals(1000.0, r.path("linkMbps").asDouble(), 0.0);
    assertEquals(4 * r.path("meanEpochSeconds").asDouble(), r.path("measuredMeanEpochSeconds").asDouble(), 1e-12);
    for (JsonNode e : r.path("epochs")) {
      assertEquals(4 * e.path("wallSeconds").asDouble(), e.path("measuredWallSeconds").asDouble(), 1e-12);
    }
    String text = Files.readString(new File(out, "report.txt").toPath());
    assertTrue(text.contains("time dilation: 4: the 2 machines share"), text);
    // not a number >= 1: a usage error before anything runs
    String[] bad = {"--random", random.toString(), "--time-dilation", "0.5", "--output",
        tmp.resolve("r2").toString()};
    assertEquals(2, ToolRunner.run(localConf(), new TrainBenchTool(), bad));
    assertTrue(!tmp.resolve("r2").toFile().exists());
  }

  @Test
  void theScheduleRotatesWhichPlacementGoesFirst() {
    // 3 placements, 2 rates, 2 rounds: every slot starts with the next placement
    java.util.List<String> firsts = new java.util.ArrayList<>();
    for (int round = 0; round < 2; round++) {
      java.util.List<int[]> s = TrainBenchTool.schedule(3, 2, round);
      assertEquals(6, s.size());
      for (int r = 0; r < 2; r++) {
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (int j = 0; j < 3; j++) {
          assertEquals(r, s.get(3 * r + j)[0]);
          seen.add(s.get(3 * r + j)[1]);
        }
        assertEquals(3, seen.size(), "every placement once per rate");
        firsts.add(String.valueOf(s.get(3 * r)[1]));
      }
    }
    assertEquals(java.util.List.of("0", "1", "2", "0"), firsts);
  }

  @Test
  void aMalformedShardLineNamesFileAndLine() throws Exception {
    Path dir = tmp.resolve("bad");
    shard(dir.resolve("shards"), 0, "+1 1:1", "+1 2:x");
    shard(dir.resolve("shards"), 1, "+1 3:1");
    String[] args = {"--hash", dir.toString(), "--output", tmp.resolve("r").toString()};
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    java.io.PrintStream old = System.err;
    System.setErr(new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
    int rc;
    try {
      rc = ToolRunner.run(localConf(), new TrainBenchTool(), args);
    } finally {
      System.setErr(old);
    }
    assertEquals(2, rc);
    String msg = err.toString(StandardCharsets.UTF_8);
    assertTrue(msg.contains("part-00000:2: expected index:value"), msg);
  }

  private static java.util.Map<String, Object> run(String placement, double mbps, double epochSeconds) {
    java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
    m.put("placement", placement);
    m.put("linkMbps", mbps);
    m.put("meanEpochSeconds", epochSeconds);
    return m;
  }

  @Test
  void paybackIsThePipelineTimeOverTheEpochTimeSaved() {
    java.util.List<java.util.Map<String, Object>> runs = java.util.List.of(run("parsa", 10.0, 1.0),
        run("parsa", 1000.0, 0.9), run("random", 10.0, 3.0), run("random", 1000.0, 0.5), run("hash", 10.0, 1.5));
    java.util.List<java.util.Map<String, Object>> p = TrainBenchTool.payback(runs,
        java.util.Map.of("parsa", 100.0, "random", 60.0));
    assertEquals(3, p.size());
    assertEquals("random", p.get(0).get("against"));
    assertEquals(2.0, (Double) p.get(0).get("savedSecondsPerEpoch"), 1e-12);
    assertEquals(50.0, (Double) p.get(0).get("epochsToPayBack"), 1e-12);
    // beyond random's own 60 s pipeline parsa's costs 40 s: 20 epochs at 2 s saved each
    assertEquals(40.0, (Double) p.get(0).get("extraPipelineSeconds"), 1e-12);
    assertEquals(20.0, (Double) p.get(0).get("epochsToPayBackExtra"), 1e-12);
    // hash's pipeline was not timed: no extra figure
    assertEquals(null, p.get(1).get("epochsToPayBackExtra"));
    assertEquals("hash", p.get(1).get("against"));
    assertEquals(200.0, (Double) p.get(1).get("epochsToPayBack"), 1e-9);
    // at 1 Gbit/s the placed run saves nothing: it never pays back
    assertEquals(1000.0, p.get(2).get("linkMbps"));
    assertEquals(null, p.get(2).get("epochsToPayBack"));
    // without the pipeline's timings the payback is unknown
    assertEquals(null, TrainBenchTool.payback(runs, java.util.Map.of()).get(0).get("epochsToPayBack"));
  }
}
