package io.parsa.jobs.mr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.avro.GraphRow;
import io.parsa.avro.MetricsReport;
import io.parsa.avro.PartMetrics;
import io.parsa.avro.PlacementMetrics;
import io.parsa.avro.VAssignment;
import io.parsa.jobs.baseline.BaselineAssignTool;
import io.parsa.jobs.metrics.MetricsTool;
import io.parsa.jobs.metrics.Reports;
import io.parsa.jobs.partitionv.PartitionVTool;
import io.parsa.jobs.reshuffle.ReshuffleTool;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Reuters-21578 through the MapReduce steps in local mode: blocks built here from the libsvm file (the brief's id
 * rule), baseline(random) u-assignment, partition-v (2 shares, renumbered), metrics, reshuffle (plain and
 * renumbered). Each step runs once; the assertions share the outputs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MrStepsReutersIT {

  private static final int K = 8;
  private static final long SEED = 11;
  private final Configuration conf = TestData.localConf();
  private FileSystem fs;
  private Path dir;
  private List<GraphRow> input;
  private final Map<String, Long> stepMillis = new java.util.LinkedHashMap<>();

  /** Why the tests are skipped (the dataset is missing), or null. */
  private String missing;

  @BeforeAll
  void runSteps() throws Exception {
    File data = new File(System.getProperty("parsa.datasets.dir", "../shared/datasets"), "reuters21578.libsvm.gz");
    if (!data.exists()) {
      // an assumption here would abort the class and report 0 tests; each test is skipped with the reason instead
      missing = "dataset reuters21578.libsvm.gz not found at " + data.getAbsolutePath()
          + "; skipping (the core suite does not need it)";
      return;
    }
    fs = FileSystem.get(conf);
    dir = TestData.tempDir("reuters");
    input = TestData.parseLibsvm(data);
    TestData.writeBlocks(fs, new Path(dir, "blocks"), input, 4);
    step("baseline", new BaselineAssignTool(), "--blocks", dir + "/blocks", "--output", dir + "/u", "--k", "" + K,
        "--algorithm", "random", "--seed", "3");
    step("partition-v", new PartitionVTool(), "--blocks", dir + "/blocks", "--u-assignment", dir + "/u",
        "--output", dir + "/v", "--k", "" + K, "--reducers", "2", "--renumber");
    step("metrics", new MetricsTool(), "--blocks", dir + "/blocks", "--u-assignment", dir + "/u", "--v-assignment",
        dir + "/v", "--output", dir + "/metrics", "--k", "" + K, "--seed", "" + SEED, "--algorithm", "random");
    step("reshuffle", new ReshuffleTool(), "--blocks", dir + "/blocks", "--u-assignment", dir + "/u",
        "--output", dir + "/shards", "--k", "" + K);
    step("reshuffle --renumber", new ReshuffleTool(), "--blocks", dir + "/blocks", "--u-assignment", dir + "/u",
        "--v-assignment", dir + "/v", "--output", dir + "/shards-renumbered", "--k", "" + K, "--renumber");
    System.out.println("MrStepsReutersIT step times (ms): " + stepMillis);
  }

  @BeforeEach
  void requireDataset() {
    Assumptions.assumeTrue(missing == null, missing);
  }

  private void step(String name, org.apache.hadoop.util.Tool tool, String... args) throws Exception {
    long t0 = System.nanoTime();
    assertEquals(0, ToolRunner.run(conf, tool, args), name + " failed");
    stepMillis.put(name, (System.nanoTime() - t0) / 1_000_000);
  }

  private List<List<String>> shards(String name) throws Exception {
    List<List<String>> out = new ArrayList<>();
    for (int i = 0; i < K; i++) {
      List<String> lines = new ArrayList<>();
      try (BufferedReader r = new BufferedReader(new InputStreamReader(
          fs.open(new Path(dir, String.format("%s/part-%05d", name, i))), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          lines.add(line);
        }
      }
      out.add(lines);
    }
    return out;
  }

  private static long[] keysOf(String line) {
    String[] t = line.trim().split("\\s+");
    long[] k = new long[t.length - 1];
    for (int i = 1; i < t.length; i++) {
      k[i - 1] = Long.parseLong(t[i].substring(0, t[i].indexOf(':')));
    }
    return k;
  }

  @Test
  void shardsHoldExactlyTheInputRows() throws Exception {
    Map<String, Integer> expected = new HashMap<>();
    for (GraphRow r : input) {
      expected.merge(StandardCharsets.UTF_8.decode(r.getRaw().duplicate()).toString(), 1, Integer::sum);
    }
    Map<String, Integer> got = new HashMap<>();
    shards("shards").forEach(s -> s.forEach(l -> got.merge(l, 1, Integer::sum)));
    assertEquals(input.size(), got.values().stream().mapToInt(Integer::intValue).sum());
    assertEquals(expected, got);
  }

  @Test
  void reportEqualsRecomputationFromShardsAndVAssignment() throws Exception {
    MetricsReport report = MetricsTool.readReport(fs, new Path(dir, "metrics"));
    Map<Long, Integer> vPart = new HashMap<>();
    for (VAssignment v : Jobs.readAvroDir(fs, new Path(dir, "v"), VAssignment.class)) {
      assertEquals(null, vPart.put(v.getKey(), v.getPart()), "key twice in v-assignment");
    }
    Map<Long, long[]> rowKeys = new HashMap<>();
    Map<Long, Integer> uPart = new HashMap<>();
    long id = 0;
    List<List<String>> shards = shards("shards");
    long nnz = 0;
    for (int i = 0; i < K; i++) {
      for (String line : shards.get(i)) {
        long[] ks = keysOf(line);
        nnz += ks.length;
        rowKeys.put(id, ks);
        uPart.put(id++, i);
      }
    }
    ReferenceMetrics ref = new ReferenceMetrics(rowKeys, uPart, vPart, K);
    assertEquals(ref.keys, vPart.size(), "v-assignment covers exactly the used keys");
    PlacementMetrics p = report.getPlaced();
    assertArrayEquals(ref.rows, col(p, PartMetrics::getRows));
    assertArrayEquals(ref.workingSet, col(p, PartMetrics::getWorkingSet));
    assertArrayEquals(ref.serverKeys, col(p, PartMetrics::getServerKeys));
    assertArrayEquals(ref.traffic, col(p, PartMetrics::getTraffic));
    assertArrayEquals(ref.inner, col(p, PartMetrics::getInnerAccesses));
    assertArrayEquals(ref.inter, col(p, PartMetrics::getInterAccesses));
    assertEquals(java.util.Arrays.stream(ref.traffic).max().getAsLong(), p.getMaxTraffic());
    assertEquals(java.util.Arrays.stream(ref.traffic).sum(), p.getSumTraffic());
    assertEquals(java.util.Arrays.stream(ref.workingSet).max().getAsLong(), p.getMaxWorkingSet());
    assertEquals(input.size(), report.getRows());
    assertEquals(ref.keys, report.getKeys());
    assertEquals(nnz, report.getNonZeros());

    // random placement, recomputed from the input rows with the documented rule
    Map<Long, long[]> inRows = new HashMap<>();
    Map<Long, Integer> ru = new HashMap<>();
    for (GraphRow r : input) {
      inRows.put(r.getId(), r.getKeys().stream().mapToLong(Long::longValue).toArray());
      ru.put(r.getId(), Mix.randomRowPart(SEED, r.getId(), K));
    }
    Map<Long, Integer> rv = new HashMap<>();
    vPart.keySet().forEach(key -> rv.put(key, Mix.randomKeyPart(SEED, key, K)));
    ReferenceMetrics rnd = new ReferenceMetrics(inRows, ru, rv, K);
    assertArrayEquals(rnd.traffic, col(report.getRandom(), PartMetrics::getTraffic));
    assertArrayEquals(rnd.workingSet, col(report.getRandom(), PartMetrics::getWorkingSet));
    assertArrayEquals(rnd.rows, col(report.getRandom(), PartMetrics::getRows));
    assertEquals(Reports.improvement(report.getRandom().getMaxTraffic(), p.getMaxTraffic()),
        report.getImprovementMaxTraffic(), 1e-9);
    assertTrue(p.getSumTraffic() < report.getRandom().getSumTraffic(),
        "Algorithm 2 V beats random V on total traffic");

    // the variant: random U, V by Algorithm 2 (metrics ran with one reducer, so one sweep in key order)
    ReferenceMetrics var = new ReferenceMetrics(inRows, ru, ReferenceMetrics.algorithm2(inRows, ru, K), K);
    assertNotNull(report.getRandomUAlgorithm2V());
    assertArrayEquals(var.traffic, col(report.getRandomUAlgorithm2V(), PartMetrics::getTraffic));
    assertArrayEquals(var.serverKeys, col(report.getRandomUAlgorithm2V(), PartMetrics::getServerKeys));
    assertArrayEquals(var.inner, col(report.getRandomUAlgorithm2V(), PartMetrics::getInnerAccesses));
  }

  @Test
  void renumberedShardsAreTheSameRowsWithContiguousKeyRanges() throws Exception {
    Map<Long, VAssignment> v = new HashMap<>();
    for (VAssignment a : Jobs.readAvroDir(fs, new Path(dir, "v"), VAssignment.class)) {
      v.put(a.getKey(), a);
    }
    long[] lo = new long[K];
    long[] hi = new long[K];
    java.util.Arrays.fill(lo, Long.MAX_VALUE);
    java.util.Arrays.fill(hi, Long.MIN_VALUE);
    Map<Long, Long> back = new HashMap<>();
    for (VAssignment a : v.values()) {
      assertNotNull(a.getNewKey());
      assertEquals(null, back.put(a.getNewKey(), a.getKey()), "new key used twice");
      lo[a.getPart()] = Math.min(lo[a.getPart()], a.getNewKey());
      hi[a.getPart()] = Math.max(hi[a.getPart()], a.getNewKey());
    }
    long next = 0;
    for (int i = 0; i < K; i++) {
      if (hi[i] >= lo[i]) {
        assertEquals(next, lo[i], "part " + i + " range starts where part " + (i - 1) + " ended");
        next = hi[i] + 1;
      }
    }
    assertEquals(v.size(), next);
    List<List<String>> plain = shards("shards");
    List<List<String>> ren = shards("shards-renumbered");
    for (int i = 0; i < K; i++) {
      assertEquals(plain.get(i).size(), ren.get(i).size());
      for (int j = 0; j < plain.get(i).size(); j++) {
        String[] a = plain.get(i).get(j).split(" ", -1);
        String[] b = ren.get(i).get(j).split(" ", -1);
        assertEquals(a.length, b.length);
        assertEquals(a[0], b[0], "label kept");
        for (int t = 1; t < a.length; t++) {
          int ca = a[t].indexOf(':');
          int cb = b[t].indexOf(':');
          assertEquals(a[t].substring(ca), b[t].substring(cb), "value kept");
          long oldKey = Long.parseLong(a[t].substring(0, ca));
          long newIdx = Long.parseLong(b[t].substring(0, cb));
          assertEquals(v.get(oldKey).getNewKey() + 1, newIdx, "libsvm index = newKey + 1");
        }
      }
    }
  }

  private static long[] col(PlacementMetrics p, ToLongFunction<PartMetrics> f) {
    return p.getParts().stream().mapToLong(f).toArray();
  }
}
