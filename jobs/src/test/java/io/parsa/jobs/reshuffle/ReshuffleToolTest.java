package io.parsa.jobs.reshuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.avro.GraphRow;
import io.parsa.avro.VAssignment;
import io.parsa.jobs.mr.Jobs;
import io.parsa.jobs.mr.TestData;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Local-mode reshuffle of a small mixed graph (libsvm rows with qid, comments, odd whitespace; edge-list rows with
 * several lines; a target-only vertex with empty raw), k = 3 with part = id mod 3 and part 2 left EMPTY.
 */
class ReshuffleToolTest {

  private static final Configuration CONF = TestData.localConf();
  private static FileSystem fs;
  private static Path dir;

  @BeforeAll
  static void writeInput() throws Exception {
    fs = FileSystem.get(CONF);
    dir = TestData.tempDir("reshuffle");
    List<GraphRow> rows = new ArrayList<>();
    rows.add(TestData.row(0, "2 qid:3 5:0.5  7:1 # five and seven", 5, 7));
    rows.add(TestData.row(1, "1", new long[0]));
    rows.add(TestData.row(3, "-1\t3:2 5:1", 3, 5));
    rows.add(TestData.row(4, "4\t5\n4\t3 extra", 5, 3));
    rows.add(TestData.row(6, "", new long[0]));
    rows.add(TestData.row(7, "7 3", 3));
    TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, 2);
    Map<Long, Integer> u = new HashMap<>();
    for (GraphRow r : rows) {
      u.put(r.getId(), (int) (r.getId() % 2)); // parts 0 and 1 only; part 2 stays empty
    }
    TestData.writeUAssignment(fs, new Path(dir, "u"), u);
    TestData.writeAlignedUAssignment(fs, new Path(dir, "ua"), rows, 2, u);
    List<VAssignment> v = List.of(new VAssignment(3L, 0, 0L), new VAssignment(5L, 1, 1L),
        new VAssignment(7L, 1, 2L));
    TestData.writeAvro(fs, new Path(dir, "v/part-m-00000.avro"), v);
    fs.create(new Path(dir, "v/_SUCCESS"), true).close();
  }

  private static String read(Path p) throws Exception {
    return new String(fs.open(p).readAllBytes(), StandardCharsets.UTF_8);
  }

  private static int run(String... extra) throws Exception {
    List<String> args = new ArrayList<>(List.of("--blocks", dir + "/blocks", "--u-assignment", dir + "/u",
        "--k", "3"));
    args.addAll(List.of(extra));
    return ToolRunner.run(CONF, new ReshuffleTool(), args.toArray(new String[0]));
  }

  @Test
  void textShardsAreTheRowsByteForByte() throws Exception {
    assertEquals(0, run("--output", dir + "/shards"));
    assertEquals("2 qid:3 5:0.5  7:1 # five and seven\n4\t5\n4\t3 extra\n", read(new Path(dir, "shards/part-00000")));
    assertEquals("1\n-1\t3:2 5:1\n7 3\n", read(new Path(dir, "shards/part-00001")));
    assertEquals("", read(new Path(dir, "shards/part-00002")));
    assertEquals(3, fs.globStatus(new Path(dir, "shards/part-*")).length);
    assertTrue(fs.exists(new Path(dir, "shards/_SUCCESS")));
    assertEquals(2, run("--output", dir + "/shards"), "existing output refused");
  }

  /** An aligned u-assignment (one file per block) is joined in the shard job's map tasks: the same shards. */
  @Test
  void alignedAssignmentJoinsMapSideIntoTheSameShards() throws Exception {
    assertTrue(io.parsa.jobs.mr.AlignedJoin.aligned(CONF, new Path(dir, "blocks"), new Path(dir, "ua")));
    assertEquals(0, ToolRunner.run(CONF, new ReshuffleTool(), new String[] {"--blocks", dir + "/blocks",
        "--u-assignment", dir + "/ua", "--k", "3", "--output", dir + "/shards-aligned", "--renumber",
        "--v-assignment", dir + "/v"}));
    assertEquals(0, run("--output", dir + "/shards-joined", "--renumber", "--v-assignment", dir + "/v"));
    for (int i = 0; i < 3; i++) {
      String name = String.format("part-%05d", i);
      assertEquals(read(new Path(dir, "shards-joined/" + name)), read(new Path(dir, "shards-aligned/" + name)), name);
    }
    // a block whose assignment file lacks a row: the step fails and writes nothing
    io.parsa.yarn.io.AssignmentFiles.write(fs, new Path(dir, "ua-missing"), 0, 0, new long[] {0}, new int[] {0});
    fs.create(new Path(dir, "ua-missing/_SUCCESS"), true).close();
    org.apache.hadoop.fs.FileUtil.copy(fs, io.parsa.yarn.io.AssignmentFiles.fileFor(new Path(dir, "ua"), 1), fs,
        io.parsa.yarn.io.AssignmentFiles.fileFor(new Path(dir, "ua-missing"), 1), false, CONF);
    assertEquals(1, ToolRunner.run(CONF, new ReshuffleTool(), new String[] {"--blocks", dir + "/blocks",
        "--u-assignment", dir + "/ua-missing", "--k", "3", "--output", dir + "/shards-missing"}));
    assertTrue(!fs.exists(new Path(dir, "shards-missing")));
  }

  @Test
  void renumberedTextRewritesOnlyTheKeys() throws Exception {
    assertEquals(0, run("--output", dir + "/renumbered", "--renumber", "--v-assignment", dir + "/v"));
    // libsvm: idx -> newKey + 1 (3->1, 5->2, 7->3); edges: second column -> newKey (3->0, 5->1)
    assertEquals("2 qid:3 2:0.5  3:1 # five and seven\n4\t1\n4\t0 extra\n",
        read(new Path(dir, "renumbered/part-00000")));
    assertEquals("1\n-1\t1:2 2:1\n7 0\n", read(new Path(dir, "renumbered/part-00001")));
    assertEquals("", read(new Path(dir, "renumbered/part-00002")));
  }

  @Test
  void avroShardsHoldTheRowsWithRenumberedKeys() throws Exception {
    assertEquals(0, run("--output", dir + "/avro", "--output-format", "avro", "--renumber", "--v-assignment",
        dir + "/v"));
    List<GraphRow> s0 = Jobs.readAvroDir(fs, new Path(dir, "avro"), GraphRow.class);
    assertEquals(6, s0.size());
    TreeSet<Long> ids = new TreeSet<>();
    for (int part = 0; part < 3; part++) {
      List<GraphRow> rows = new ArrayList<>();
      try (org.apache.avro.file.DataFileStream<GraphRow> in = new org.apache.avro.file.DataFileStream<>(
          fs.open(new Path(dir, String.format("avro/part-%05d.avro", part))),
          new org.apache.avro.specific.SpecificDatumReader<>(GraphRow.class))) {
        in.forEach(rows::add);
      }
      for (GraphRow r : rows) {
        assertEquals(part, (int) (r.getId() % 2));
        ids.add(r.getId());
        if (r.getId() == 3) {
          assertEquals(List.of(0L, 1L), r.getKeys());
          assertEquals("-1\t1:2 2:1", StandardCharsets.UTF_8.decode(r.getRaw()).toString());
        }
      }
      if (part == 2) {
        assertTrue(rows.isEmpty());
      }
    }
    assertEquals(new TreeSet<>(List.of(0L, 1L, 3L, 4L, 6L, 7L)), ids);
  }

  @Test
  void renumberRefusesAKeyMapThatDoesNotFitTheReducers() throws Exception {
    Configuration small = new Configuration(CONF);
    small.setLong(ReshuffleTool.REDUCER_HEAP_BYTES, 100);
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    java.io.PrintStream old = System.err;
    int rc;
    try {
      System.setErr(new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
      rc = ToolRunner.run(small, new ReshuffleTool(), new String[] {"--blocks", dir + "/blocks", "--u-assignment",
          dir + "/u", "--k", "3", "--output", dir + "/too-big", "--renumber", "--v-assignment", dir + "/v"});
    } finally {
      System.setErr(old);
    }
    assertEquals(2, rc);
    String msg = err.toString(StandardCharsets.UTF_8);
    assertTrue(msg.contains("--renumber keeps the 3 keys of") && msg.contains("mapreduce.reduce.memory.mb"), msg);
    assertTrue(!fs.exists(new Path(dir, "too-big")));
  }

  @Test
  void reducerHeapAndKeyMapEstimates() {
    assertEquals(16L * (4 + 1), ReshuffleTool.renumberMapBytes(3));
    assertEquals(16L * ((1 << 21) + 1), ReshuffleTool.renumberMapBytes(1_000_000));
    Configuration c = new Configuration(false);
    c.set("mapreduce.framework.name", "yarn");
    c.setInt("mapreduce.reduce.memory.mb", 2048);
    assertEquals((long) (2048 * 0.8) << 20, ReshuffleTool.reducerHeapBytes(c));
    c.set("mapreduce.reduce.java.opts", "-Djava.net.preferIPv4Stack=true -Xmx3g");
    assertEquals(3L << 30, ReshuffleTool.reducerHeapBytes(c));
    c.setLong(ReshuffleTool.REDUCER_HEAP_BYTES, 12345);
    assertEquals(12345, ReshuffleTool.reducerHeapBytes(c));
  }

  @Test
  void renumberWithoutNewKeysFailsLoudly() throws Exception {
    List<VAssignment> v = List.of(new VAssignment(3L, 0, 0L), new VAssignment(5L, 1, 1L));
    TestData.writeAvro(fs, new Path(dir, "v-short/part-m-00000.avro"), v);
    fs.create(new Path(dir, "v-short/_SUCCESS"), true).close();
    assertEquals(1, run("--output", dir + "/bad", "--renumber", "--v-assignment", dir + "/v-short"));
    assertTrue(!fs.exists(new Path(dir, "bad")));
  }
}
