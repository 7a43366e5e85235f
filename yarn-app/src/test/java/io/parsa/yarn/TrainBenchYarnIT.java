package io.parsa.yarn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.parsa.avro.VAssignment;
import io.parsa.common.JsonFiles;
import io.parsa.train.TrainBenchTool;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * train-bench as a YARN application on the shared MiniDFSCluster + MiniYARNCluster: a master, k server and k worker
 * containers. The same placements trained embedded and on YARN give the same loss after every epoch and the same
 * Avro bytes on every inter-machine link; a worker that cannot read its shard fails the application clearly.
 */
class TrainBenchYarnIT {

  private static void text(FileSystem fs, Path p, String... lines) throws Exception {
    try (OutputStream o = fs.create(p, true)) {
      o.write((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
    }
  }

  private static Configuration conf(MiniClusters mc) {
    Configuration c = new Configuration(mc.conf);
    c.set(ParsaYarnConfig.STAGING_DIR, "/staging-train");
    c.setLong(ParsaYarnConfig.PROGRESS_INTERVAL_MS, 500);
    return c;
  }

  private static JsonNode report(FileSystem fs, Path dir) throws Exception {
    try (InputStream in = fs.open(new Path(dir, "report.json"))) {
      return JsonFiles.MAPPER.readTree(in);
    }
  }

  @Test
  @Timeout(400)
  void yarnAndEmbeddedTrainTheSameModelWithTheSameBytes() throws Exception {
    MiniClusters mc = MiniClusters.get();
    FileSystem fs = mc.dfs.getFileSystem();
    Path placed = new Path("/train/placed");
    text(fs, new Path(placed, "shards/part-00000"), "+1 1:1 2:1", "-1 2:0.5 3:1", "+1 1:0.5 5:1");
    text(fs, new Path(placed, "shards/part-00001"), "+1 3:1 4:1", "-1 1:1 4:1", "-1 6:1 4:0.25");
    try (DataFileWriter<VAssignment> w = new DataFileWriter<>(new SpecificDatumWriter<>(VAssignment.class))) {
      w.create(VAssignment.getClassSchema(), fs.create(new Path(placed, "v-assignment/part-00000.avro")));
      for (long key = 1; key <= 6; key++) {
        w.append(new VAssignment(key, key <= 2 || key == 5 ? 0 : 1, null));
      }
    }
    Path hash = new Path("/train/hash");
    text(fs, new Path(hash, "shards/part-00000"), "+1 1:1 2:1", "+1 3:1 4:1", "-1 6:1 4:0.25");
    text(fs, new Path(hash, "shards/part-00001"), "-1 2:0.5 3:1", "-1 1:1 4:1", "+1 1:0.5 5:1");
    String[] common = {"--placed", placed.toString(), "--hash", hash.toString(), "--epochs", "3", "--link-mbps",
        "0,0.5", "--learning-rate", "0.5", "--l2", "0.01"};
    Path onYarn = new Path("/train/report-yarn");
    Path embedded = new Path("/train/report-embedded");
    assertEquals(0, onYarn(mc, 256, concat(common, "--output", onYarn.toString())));
    assertEquals(0, ToolRunner.run(conf(mc), new TrainBenchTool(), concat(common, "--output", embedded.toString())));
    JsonNode y = report(fs, onYarn);
    JsonNode e = report(fs, embedded);
    assertTrue(y.path("mode").asText().startsWith("yarn"), y.path("mode").asText());
    // one link per machine: the server's answers reserve the link its machine's worker keeps
    assertTrue(y.path("linkEmulation").asText().contains("one serialised link"), y.path("linkEmulation").asText());
    assertEquals(4, y.path("runs").size());
    for (int r = 0; r < 4; r++) {
      JsonNode yr = y.path("runs").get(r);
      JsonNode er = e.path("runs").get(r);
      assertTrue(yr.path("meanEpochCpuSeconds").asDouble() > 0, yr.toString());
      assertEquals(er.path("placement").asText(), yr.path("placement").asText());
      assertEquals(er.path("rows").asLong(), yr.path("rows").asLong());
      assertEquals(er.path("interKeyAccessesPerEpoch").asLong(), yr.path("interKeyAccessesPerEpoch").asLong());
      for (int ep = 0; ep < 3; ep++) {
        JsonNode ye = yr.path("epochs").get(ep);
        JsonNode ee = er.path("epochs").get(ep);
        String what = yr.path("placement").asText() + " at " + yr.path("linkMbps").asDouble() + " Mbit/s, epoch "
            + (ep + 1);
        assertEquals(ee.path("loss").asDouble(), ye.path("loss").asDouble(), 0.0, "loss, " + what);
        // on YARN an epoch's CPU time is the containers' own, summed: known from the second epoch on
        assertEquals(ep > 0, ye.has("processCpuSeconds"), "cpu, " + what);
        assertTrue(ep == 0 || ye.path("processCpuSeconds").asDouble() > 0, "cpu, " + what + ": " + ye);
        if (ep > 0) {
          // epoch 1 also carries Avro's connection handshake, whose size depends on the endpoint
          assertEquals(ee.path("interFrameBytes").asLong(), ye.path("interFrameBytes").asLong(), "frames, " + what);
          assertEquals(ee.path("innerFrameBytes").asLong(), ye.path("innerFrameBytes").asLong(), "frames, " + what);
        }
      }
    }
    // the same loss under both placements too
    for (int ep = 0; ep < 3; ep++) {
      assertEquals(y.path("runs").get(0).path("epochs").get(ep).path("loss").asDouble(),
          y.path("runs").get(2).path("epochs").get(ep).path("loss").asDouble(), 0.0);
    }
  }

  @Test
  @Timeout(300)
  void aWorkerThatCannotReadItsShardFailsTheApplication() throws Exception {
    MiniClusters mc = MiniClusters.get();
    FileSystem fs = mc.dfs.getFileSystem();
    Path bad = new Path("/train/bad");
    text(fs, new Path(bad, "shards/part-00000"), "+1 1:1 2:1");
    text(fs, new Path(bad, "shards/part-00001"), "+1 3:1 oops");
    Path out = new Path("/train/report-bad");
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    java.io.PrintStream old = System.err;
    System.setErr(new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
    int rc;
    try {
      rc = onYarn(mc, 256, "--hash", bad.toString(), "--output", out.toString());
    } finally {
      System.setErr(old);
    }
    System.err.print(err.toString(StandardCharsets.UTF_8));
    assertEquals(1, rc);
    assertTrue(!fs.exists(out), "no report after a failed run");
    String console = err.toString(StandardCharsets.UTF_8);
    assertTrue(console.contains("worker 1 failed: ") && console.contains("part-00001:1"), console);
  }

  @Test
  @Timeout(120)
  void aRunLargerThanTheClusterIsRefusedBeforeSubmitting() throws Exception {
    MiniClusters mc = MiniClusters.get();
    FileSystem fs = mc.dfs.getFileSystem();
    Path dir = new Path("/train/big");
    text(fs, new Path(dir, "shards/part-00000"), "+1 1:1 2:1");
    text(fs, new Path(dir, "shards/part-00001"), "+1 3:1 4:1");
    // the mini cluster's one NodeManager offers 8192 MB; 2 x (3000 + 3000) + 256 does not fit
    assertEquals(2, onYarn(mc, 3000, "--hash", dir.toString(), "--output", "/train/report-big"));
    assertTrue(!fs.exists(new Path("/train/report-big")));
  }

  /** train-bench --mode yarn with a 256 MB master and servers and workers of {@code containerMb}. */
  private static int onYarn(MiniClusters mc, int containerMb, String... args) throws Exception {
    String mb = Integer.toString(containerMb);
    return ToolRunner.run(conf(mc), new TrainBenchTool(), concat(args, "--mode", "yarn", "--am-memory", "256",
        "--server-memory", mb, "--worker-memory", mb));
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
