package io.parsa.jobs.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.parsa.common.JsonFiles;
import io.parsa.jobs.ParsaCli;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A resumed pipeline reuses a step only when its inputs are provably those of the recorded run. */
class PipelineResumeTest {

  @TempDir
  Path tmp;

  private static final int K = 2;

  private int run(File input, File out) throws Exception {
    return ParsaCli.runStep(PipelineLocalTest.localConf(), "pipeline", "--input", input.getAbsolutePath(),
        "--format", "libsvm", "--k", String.valueOf(K), "--output", out.getAbsolutePath(), "--blocks", "2",
        "--workers", "1", "--mode", "embedded");
  }

  private static JsonNode timings(File out) throws Exception {
    return JsonFiles.MAPPER.readTree(new File(out, PipelineTool.TIMINGS));
  }

  private static Map<String, Integer> shardRows(File out) throws Exception {
    FileSystem fs = FileSystem.getLocal(PipelineLocalTest.localConf());
    Map<String, Integer> m = new HashMap<>();
    for (List<String> shard : PlacementCheck.shardLines(fs,
        new org.apache.hadoop.fs.Path(new File(out, "shards").getAbsolutePath()), K)) {
      for (String line : shard) {
        m.merge(line, 1, Integer::sum);
      }
    }
    return m;
  }

  @Test
  void appendedRowsAreNotServedFromTheStaleRunButRedoneIntoTheShards() throws Exception {
    File input = tmp.resolve("train.libsvm").toFile();
    Random rnd = new Random(7);
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      StringBuilder sb = new StringBuilder(rnd.nextBoolean() ? "1" : "0");
      int last = 0;
      for (int j = 0; j < 6; j++) {
        last += 1 + rnd.nextInt(20);
        sb.append(' ').append(last).append(":1");
      }
      lines.add(sb.toString());
    }
    Files.write(input.toPath(), lines, StandardCharsets.UTF_8);
    File out = tmp.resolve("run").toFile();

    assertEquals(0, run(input, out));
    assertEquals(PlacementCheck.linesOf(input), shardRows(out));

    // unchanged input: every step is reused, and the run says so
    assertEquals(0, run(input, out));
    JsonNode t = timings(out);
    for (String step : List.of("ingest", "partition-u", "refine-u", "key-usage", "partition-v", "metrics", "reshuffle")) {
      assertEquals("reused", t.get(step).asText(), step);
    }
    assertEquals(7, t.get("reused").size());

    // two rows appended, so every step depends on the change and is redone
    String extra1 = "1 5000:1 5001:1";
    String extra2 = "0 5001:1 5002:1 5003:1";
    Files.writeString(input.toPath(), extra1 + "\n" + extra2 + "\n", StandardCharsets.UTF_8,
        StandardOpenOption.APPEND);
    assertEquals(0, run(input, out));
    t = timings(out);
    for (String step : List.of("ingest", "partition-u", "refine-u", "key-usage", "partition-v", "metrics", "reshuffle")) {
      assertTrue(t.get(step).isNumber(), step + " must be redone, was " + t.get(step));
    }
    Map<String, Integer> rows = shardRows(out);
    assertEquals(1, rows.get(extra1));
    assertEquals(1, rows.get(extra2));
    assertEquals(PlacementCheck.linesOf(input), rows);
    JsonNode report = JsonFiles.MAPPER.readTree(new File(out, "metrics/report.json"));
    assertEquals(202, report.get("rows").asLong());
  }

  @Test
  void sameLengthEditIsCaughtByTheChecksumEvenWithTheOldModificationTime() throws Exception {
    File input = tmp.resolve("small.libsvm").toFile();
    Files.writeString(input.toPath(), "1 1:1 2:1\n0 2:1 3:1\n1 3:1 4:1\n0 4:1 5:1\n", StandardCharsets.UTF_8);
    File out = tmp.resolve("run2").toFile();
    assertEquals(0, run(input, out));
    long mtime = input.lastModified();
    // same length, same modification time, different content
    Files.writeString(input.toPath(), "1 1:1 2:1\n0 2:1 3:1\n1 3:1 4:1\n0 4:1 6:1\n", StandardCharsets.UTF_8);
    assertTrue(input.setLastModified(mtime));
    assertEquals(0, run(input, out));
    assertTrue(timings(out).get("ingest").isNumber(), "ingest must be redone");
    assertEquals(1, shardRows(out).get("0 4:1 6:1"));
  }

  @Test
  void morePartsThanRowsIsRefusedBeforePartitioningWithAClearMessage() throws Exception {
    File input = tmp.resolve("three.libsvm").toFile();
    Files.writeString(input.toPath(), "1 1:1 2:1\n0 2:1 3:1\n1 3:1 4:1\n", StandardCharsets.UTF_8);
    File out = tmp.resolve("run3").toFile();
    java.io.PrintStream saved = System.err;
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    int rc;
    try {
      System.setErr(new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
      rc = ParsaCli.runStep(PipelineLocalTest.localConf(), "pipeline", "--input", input.getAbsolutePath(),
          "--format", "libsvm", "--k", "5", "--output", out.getAbsolutePath(), "--blocks", "2", "--workers", "1",
          "--mode", "embedded");
    } finally {
      System.setErr(saved);
    }
    String text = err.toString(StandardCharsets.UTF_8);
    assertEquals(2, rc, text);
    assertTrue(text.contains("partition-u: --k 5 is more than the 3 rows of"), text);
    assertTrue(text.contains("2 of the 5 parts would be empty"), text);
    assertTrue(!new File(out, "u-assignment").exists(), "nothing was partitioned");

    // the random baseline is refused the same way
    assertEquals(2, ParsaCli.runStep(PipelineLocalTest.localConf(), "assign-baseline", "--blocks",
        new File(out, "blocks").getAbsolutePath(), "--output", tmp.resolve("base").toString(), "--k", "4"));
  }
}
