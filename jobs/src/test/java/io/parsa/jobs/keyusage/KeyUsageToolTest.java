package io.parsa.jobs.keyusage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.avro.GraphRow;
import io.parsa.avro.MetricsReport;
import io.parsa.avro.VAssignment;
import io.parsa.jobs.metrics.MetricsTool;
import io.parsa.jobs.mr.JoinValue;
import io.parsa.jobs.mr.Jobs;
import io.parsa.jobs.mr.Mix;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.TestData;
import io.parsa.jobs.partitionv.PartitionVTool;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.SequenceFile;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The key-usage step against a direct computation, through both joins (map-side for an aligned u-assignment,
 * reduce-side otherwise), and partition-v and metrics reading it instead of the rows.
 */
class KeyUsageToolTest {

  private static final int K = 5;
  private static final long SEED = 7;
  private static final Configuration CONF = TestData.localConf();
  private static Path dir;
  private static List<GraphRow> rows;
  private static Map<Long, Integer> assign;

  @BeforeAll
  static void data() throws Exception {
    FileSystem fs = FileSystem.get(CONF);
    dir = TestData.tempDir("key-usage");
    Random rnd = new Random(3);
    rows = new ArrayList<>();
    assign = new HashMap<>();
    for (long id = 0; id < 400; id++) {
      int n = 1 + rnd.nextInt(8);
      long[] keys = new long[n];
      for (int j = 0; j < n; j++) {
        keys[j] = 1 + rnd.nextInt(300); // repeated keys within a row happen
      }
      rows.add(TestData.libsvmRow(id, keys));
      assign.put(id, rnd.nextInt(K));
    }
    TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, 4);
    TestData.writeUAssignment(fs, new Path(dir, "u"), assign);
    TestData.writeAlignedUAssignment(fs, new Path(dir, "ua"), rows, 4, assign);
  }

  private static int run(Object tool, String... args) throws Exception {
    return ToolRunner.run(CONF, (org.apache.hadoop.util.Tool) tool, args);
  }

  private static int keyUsage(String u, String out, int reducers) throws Exception {
    return run(new KeyUsageTool(), "--blocks", dir + "/blocks", "--u-assignment", dir + "/" + u, "--output",
        dir + "/" + out, "--k", "" + K, "--seed", "" + SEED, "--reducers", "" + reducers);
  }

  /** key -> "placed parts | random parts" of a key-usage directory; fails on a key seen twice. */
  private static Map<Long, String> records(Path usage) throws Exception {
    FileSystem fs = FileSystem.get(CONF);
    Map<Long, String> out = new TreeMap<>();
    for (FileStatus f : fs.listStatus(usage, p -> p.getName().startsWith("part-"))) {
      try (SequenceFile.Reader r = new SequenceFile.Reader(CONF, SequenceFile.Reader.file(f.getPath()))) {
        LongWritable key = new LongWritable();
        JoinValue v = new JoinValue();
        while (r.next(key, v)) {
          assertEquals(JoinValue.USAGE, v.tag());
          long[] l = v.longs();
          String s = java.util.Arrays.toString(java.util.Arrays.copyOfRange(l, 0, v.usageCount(false))) + " | "
              + java.util.Arrays.toString(java.util.Arrays.copyOfRange(l, v.usageOffset(true), l.length));
          assertNull(out.put(key.get(), s), "key twice: " + key);
        }
      }
    }
    return out;
  }

  /** The same from first principles over the rows. */
  private static Map<Long, String> expected() {
    Map<Long, TreeSet<Long>> placed = new TreeMap<>();
    Map<Long, TreeSet<Long>> random = new TreeMap<>();
    for (GraphRow row : rows) {
      for (long key : row.getKeys()) {
        placed.computeIfAbsent(key, x -> new TreeSet<>()).add((long) assign.get(row.getId()));
        random.computeIfAbsent(key, x -> new TreeSet<>()).add((long) Mix.randomRowPart(SEED, row.getId(), K));
      }
    }
    Map<Long, String> out = new TreeMap<>();
    for (long key : placed.keySet()) {
      out.put(key, placed.get(key) + " | " + random.get(key));
    }
    return out;
  }

  @Test
  void bothJoinsGiveTheUsageOfEveryKeyOnceWithItsSummary() throws Exception {
    FileSystem fs = FileSystem.get(CONF);
    assertEquals(0, keyUsage("ua", "usage-map-side", 3));
    assertEquals(0, keyUsage("u", "usage-reduce-side", 2));
    // a map-side buffer of 7 pairs: every block flushes dozens of times and the combiner and reducer merge them
    assertEquals(0, run(new KeyUsageTool(), "-D", MrKeys.MAP_BUFFER_PAIRS + "=7", "--blocks", dir + "/blocks",
        "--u-assignment", dir + "/ua", "--output", dir + "/usage-small-buffer", "--k", "" + K, "--seed", "" + SEED,
        "--reducers", "2"));
    Map<Long, String> expected = expected();
    assertEquals(expected, records(new Path(dir, "usage-map-side")));
    assertEquals(expected, records(new Path(dir, "usage-reduce-side")));
    assertEquals(expected, records(new Path(dir, "usage-small-buffer")));
    KeyUsageJob.Summary a = KeyUsageJob.read(fs, new Path(dir, "usage-map-side"));
    KeyUsageJob.Summary b = KeyUsageJob.read(fs, new Path(dir, "usage-reduce-side"));
    assertTrue(a.mapSideJoin);
    assertFalse(b.mapSideJoin);
    assertEquals(3, a.files);
    assertEquals(3, fs.listStatus(new Path(dir, "usage-map-side"), p -> p.getName().startsWith("part-")).length);
    long nnz = rows.stream().mapToLong(r -> r.getKeys().size()).sum();
    long pairs = rows.stream().mapToLong(r -> new TreeSet<>(r.getKeys()).size()).sum();
    long[] rowsPlaced = new long[K];
    long[] wsPlaced = new long[K];
    for (GraphRow r : rows) {
      rowsPlaced[assign.get(r.getId())]++;
    }
    for (String s : expected.values()) {
      for (String p : s.substring(1, s.indexOf(']')).split(", ")) {
        wsPlaced[Integer.parseInt(p)]++;
      }
    }
    KeyUsageJob.Summary c = KeyUsageJob.read(fs, new Path(dir, "usage-small-buffer"));
    for (KeyUsageJob.Summary s : List.of(a, b, c)) {
      assertEquals(K, s.k);
      assertEquals(SEED, s.seed);
      assertEquals(rows.size(), s.rows);
      assertEquals(nnz, s.nonZeros);
      assertEquals(pairs, s.rowKeyPairs);
      assertEquals(expected.size(), s.keys);
      assertArrayEquals(rowsPlaced, s.rowsPlaced);
      assertArrayEquals(wsPlaced, s.workingSetPlaced);
      assertEquals(rows.size(), java.util.Arrays.stream(s.rowsRandom).sum());
    }
    assertEquals(0, fs.globStatus(new Path(dir, "usage-map-side/_partstats*")).length);
    assertTrue(fs.exists(new Path(dir, "usage-map-side/_SUCCESS")));
    // an existing output is not overwritten without --overwrite
    assertEquals(2, keyUsage("ua", "usage-map-side", 3));
  }

  /**
   * partition-v and metrics read the key usage (several files, one sweep share) and give what they give from the
   * rows; metrics refuses a key usage of another seed.
   */
  @Test
  void partitionVAndMetricsReadTheKeyUsageInsteadOfTheRows() throws Exception {
    FileSystem fs = FileSystem.get(CONF);
    assertEquals(0, keyUsage("ua", "usage-shared", 3));
    String usage = dir + "/usage-shared";
    assertEquals(0, run(new PartitionVTool(), "--key-usage", usage, "--output", dir + "/v", "--k", "" + K));
    Map<Long, Integer> v = new TreeMap<>();
    for (VAssignment a : Jobs.readAvroDir(fs, new Path(dir, "v"), VAssignment.class)) {
      assertNull(v.put(a.getKey(), a.getPart()), "key twice");
    }
    assertEquals(expected().keySet(), v.keySet());

    assertEquals(0, run(new MetricsTool(), "--key-usage", usage, "--v-assignment", dir + "/v", "--output",
        dir + "/m-usage", "--k", "" + K));
    assertEquals(0, run(new MetricsTool(), "--blocks", dir + "/blocks", "--u-assignment", dir + "/u",
        "--v-assignment", dir + "/v", "--output", dir + "/m-rows", "--k", "" + K, "--seed", "" + SEED,
        "--join-reducers", "3")); // the same files, so the variant's sweep visits the keys in the same order
    MetricsReport fromUsage = MetricsTool.readReport(fs, new Path(dir, "m-usage"));
    MetricsReport fromRows = MetricsTool.readReport(fs, new Path(dir, "m-rows"));
    assertEquals(fromRows, fromUsage);
    assertEquals(SEED, fromUsage.getRandomSeed());
    assertEquals(rows.size(), fromUsage.getRows());

    assertEquals(2, run(new MetricsTool(), "--key-usage", usage, "--v-assignment", dir + "/v", "--output",
        dir + "/m-seed", "--k", "" + K, "--seed", "8"));
    assertEquals(2, run(new PartitionVTool(), "--key-usage", usage, "--output", dir + "/v3", "--k", "3"));
    assertEquals(2, run(new PartitionVTool(), "--key-usage", usage, "--blocks", dir + "/blocks", "--output",
        dir + "/v4", "--k", "" + K));
  }
}
