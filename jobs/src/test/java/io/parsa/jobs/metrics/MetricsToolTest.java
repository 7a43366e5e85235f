package io.parsa.jobs.metrics;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.avro.GraphRow;
import io.parsa.avro.MetricsReport;
import io.parsa.avro.PartMetrics;
import io.parsa.avro.PlacementMetrics;
import io.parsa.avro.VAssignment;
import io.parsa.jobs.mr.Mix;
import io.parsa.jobs.mr.ReferenceMetrics;
import io.parsa.jobs.mr.TestData;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The paper's Figure 4 (k = 3, communication costs 2, 3 and 3) worked by hand, as local-mode metrics runs.
 *
 * <p>The figure itself is not reproduced in the text we have, so this is a graph consistent with its caption
 * (costs 2, 3, 3; moving the 3rd vertex of V to machine 0 or 1 reduces the cost):
 * <pre>
 *   machine 0: worker U_0 = {u0},     server V_0 = {v0}
 *   machine 1: worker U_1 = {u1, u2}, server V_1 = {v1}
 *   machine 2: worker U_2 = {u3},     server V_2 = {v2, v3}      (v2 is "the 3rd vertex in V")
 *   N(u0) = {v0, v2}   N(u1) = {v0, v1}   N(u2) = {v2}   N(u3) = {v1, v3}
 *   N(U_0) = {v0, v2}, N(U_1) = {v0, v1, v2}, N(U_2) = {v1, v3}
 *
 *   T_0 = |N(U_0) \ V_0| + |V_0 ∩ N(U_1)| + |V_0 ∩ N(U_2)| = |{v2}| + |{v0}| + 0          = 2
 *   T_1 = |N(U_1) \ V_1| + |V_1 ∩ N(U_0)| + |V_1 ∩ N(U_2)| = |{v0, v2}| + 0 + |{v1}|      = 3
 *   T_2 = |N(U_2) \ V_2| + |V_2 ∩ N(U_0)| + |V_2 ∩ N(U_1)| = |{v1}| + |{v2}| + |{v2}|     = 3
 * </pre>
 * v2 is used by workers 0 and 1 but stored on machine 2, which therefore serves it twice. Moved to machine 0:
 * T = (2, 3, 1), sum 6 instead of 8 (machine 0 now serves v2 to worker 1 but no longer fetches it). Key v_j is
 * written as key j.
 */
class MetricsToolTest {

  private static final Configuration CONF = TestData.localConf();
  private static FileSystem fs;
  private static Path dir;
  private static final Map<Long, long[]> ROWS = new HashMap<>();
  private static final Map<Long, Integer> U = Map.of(0L, 0, 1L, 1, 2L, 1, 3L, 2);

  @BeforeAll
  static void writeFigure4() throws Exception {
    fs = FileSystem.get(CONF);
    dir = TestData.tempDir("fig4");
    ROWS.put(0L, new long[] {0, 2});
    ROWS.put(1L, new long[] {0, 1});
    ROWS.put(2L, new long[] {2});
    ROWS.put(3L, new long[] {1, 3});
    List<GraphRow> rows = new ArrayList<>();
    ROWS.forEach((id, ks) -> rows.add(TestData.libsvmRow(id, ks)));
    TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, 2);
    TestData.writeUAssignment(fs, new Path(dir, "u"), U);
  }

  private static void writeV(String name, int... partOfKey) throws Exception {
    List<VAssignment> v = new ArrayList<>();
    for (int key = 0; key < partOfKey.length; key++) {
      v.add(new VAssignment((long) key, partOfKey[key], null));
    }
    Path d = new Path(dir, name);
    TestData.writeAvro(fs, new Path(d, "part-m-00000.avro"), v);
    fs.create(new Path(d, "_SUCCESS"), true).close();
  }

  private static MetricsReport run(String v, String out) throws Exception {
    assertEquals(0, ToolRunner.run(CONF, new MetricsTool(), new String[] {"--blocks", dir + "/blocks",
        "--u-assignment", dir + "/u", "--v-assignment", dir + "/" + v, "--output", dir + "/" + out, "--k", "3",
        "--seed", "7", "--algorithm", "figure4"}));
    return MetricsTool.readReport(fs, new Path(dir, out));
  }

  private static long[] col(PlacementMetrics p, java.util.function.ToLongFunction<PartMetrics> f) {
    return p.getParts().stream().mapToLong(f).toArray();
  }

  @Test
  void figure4CostsAreTwoThreeThree() throws Exception {
    writeV("v", 0, 1, 2, 2);
    MetricsReport r = run("v", "metrics");
    PlacementMetrics p = r.getPlaced();
    assertArrayEquals(new long[] {2, 3, 3}, col(p, PartMetrics::getTraffic));
    assertArrayEquals(new long[] {1, 2, 1}, col(p, PartMetrics::getRows));
    assertArrayEquals(new long[] {2, 3, 2}, col(p, PartMetrics::getWorkingSet));
    assertArrayEquals(new long[] {1, 1, 2}, col(p, PartMetrics::getServerKeys));
    assertArrayEquals(new long[] {1, 1, 1}, col(p, PartMetrics::getInnerAccesses));
    assertArrayEquals(new long[] {1, 2, 1}, col(p, PartMetrics::getInterAccesses));
    assertEquals(3, p.getMaxTraffic());
    assertEquals(8, p.getSumTraffic());
    assertEquals(3, p.getMaxWorkingSet());
    assertEquals(7, p.getSumWorkingSet());
    assertEquals(4, r.getRows());
    assertEquals(4, r.getKeys());
    assertEquals(7, r.getNonZeros());
    assertEquals("figure4", r.getAlgorithm());
    // the work per part: u0's two non-zeros, u1's and u2's three, u3's two; no row carries a weight
    assertArrayEquals(new long[] {2, 3, 2}, col(p, PartMetrics::getNonZeros));
    assertEquals(3, p.getMaxNonZeros());
    assertEquals(2, p.getMinNonZeros());
    assertNull(p.getMaxWeight());
    assertTrue(p.getParts().stream().allMatch(x -> x.getWeight() == null));

    // the random baseline, recomputed here from the documented rule: U by mix(seed, id), V by mix(seed ^ salt, key)
    Map<Long, Integer> ru = new HashMap<>();
    ROWS.keySet().forEach(id -> ru.put(id, Mix.randomRowPart(7, id, 3)));
    Map<Long, Integer> rv = new HashMap<>();
    for (long key = 0; key < 4; key++) {
      rv.put(key, Mix.randomKeyPart(7, key, 3));
    }
    ReferenceMetrics ref = new ReferenceMetrics(ROWS, ru, rv, 3);
    assertArrayEquals(ref.traffic, col(r.getRandom(), PartMetrics::getTraffic));
    assertArrayEquals(ref.workingSet, col(r.getRandom(), PartMetrics::getWorkingSet));
    assertArrayEquals(ref.rows, col(r.getRandom(), PartMetrics::getRows));
    assertEquals(Reports.improvement(r.getRandom().getMaxTraffic(), 3), r.getImprovementMaxTraffic(), 1e-9);
    ReferenceMetrics variant = new ReferenceMetrics(ROWS, ru, ReferenceMetrics.algorithm2(ROWS, ru, 3), 3);
    assertArrayEquals(variant.traffic, col(r.getRandomUAlgorithm2V(), PartMetrics::getTraffic));

    String txt = new String(fs.open(new Path(dir, "metrics/report.txt")).readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(txt.contains("algorithm=figure4 k=3"), txt);
    assertTrue(txt.contains("non-zeros per part: placed 2 to 3, random "), txt);
    assertTrue(!txt.contains("row weight per part"), txt);
    // no key is used by three parts, so the bound is max_i (M_i - one-part keys) = max(2, 3, 2 - 1) = 3 = T_max
    assertEquals(3L, r.getMaxTrafficLowerBound());
    assertEquals(Boolean.TRUE, r.getMaxTrafficLowerBoundExact());
    assertTrue(txt.contains("T_max lower bound for this U (LP optimum of eq. 8, keys on a part that uses them): 3;"
        + " placed T_max 3 is 0.00 % above it"), txt);
    String html = new String(fs.open(new Path(dir, "metrics/report.html")).readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(html.contains("<svg"), "charts are inline SVG");
    assertTrue(!html.replace("http://www.w3.org/2000/svg", "").contains("http"), "no network references");
    assertTrue(!html.contains("<script") && !html.contains("<link") && !html.contains("src="),
        "HTML must be self-contained");
    assertTrue(html.contains("random U + Algorithm 2 V"));
    assertTrue(fs.exists(new Path(dir, "metrics/_SUCCESS")));
  }

  /**
   * Weighted rows with a u-assignment aligned with the blocks (the map-side join): each part's non-zeros and its rows'
   * weights, placed and random, as counted from the rows here.
   */
  @Test
  void weightedRowsGetTheirWeightAndNonZerosPerPart() throws Exception {
    Path d = TestData.tempDir("fig4-weighted");
    Map<Long, Double> weight = Map.of(0L, 5.0, 1L, 1.5, 2L, 2.0, 3L, 4.0);
    List<GraphRow> rows = new ArrayList<>();
    ROWS.forEach((id, ks) -> {
      GraphRow row = TestData.libsvmRow(id, ks);
      row.setWeight(weight.get(id));
      rows.add(row);
    });
    TestData.writeBlocks(fs, new Path(d, "blocks"), rows, 2);
    TestData.writeAlignedUAssignment(fs, new Path(d, "u"), rows, 2, U);
    List<VAssignment> v = new ArrayList<>();
    for (int key = 0; key < 4; key++) {
      v.add(new VAssignment((long) key, new int[] {0, 1, 2, 2}[key], null));
    }
    TestData.writeAvro(fs, new Path(d, "v/part-m-00000.avro"), v);
    fs.create(new Path(d, "v/_SUCCESS"), true).close();
    assertEquals(0, ToolRunner.run(CONF, new MetricsTool(), new String[] {"--blocks", d + "/blocks",
        "--u-assignment", d + "/u", "--v-assignment", d + "/v", "--output", d + "/metrics", "--k", "3",
        "--seed", "7"}));
    MetricsReport r = MetricsTool.readReport(fs, new Path(d, "metrics"));
    PlacementMetrics p = r.getPlaced();
    assertArrayEquals(new long[] {2, 3, 2}, col(p, PartMetrics::getNonZeros));
    double[] w = p.getParts().stream().mapToDouble(PartMetrics::getWeight).toArray();
    assertArrayEquals(new double[] {5.0, 3.5, 4.0}, w, 1e-12);
    assertEquals(5.0, p.getMaxWeight(), 1e-12);
    assertEquals(3.5, p.getMinWeight(), 1e-12);
    double[] rw = new double[3];
    long[] rnz = new long[3];
    ROWS.forEach((id, ks) -> {
      int part = Mix.randomRowPart(7, id, 3);
      rw[part] += weight.get(id);
      rnz[part] += ks.length;
    });
    assertArrayEquals(rnz, col(r.getRandom(), PartMetrics::getNonZeros));
    assertArrayEquals(rw, r.getRandom().getParts().stream().mapToDouble(PartMetrics::getWeight).toArray(), 1e-12);
    String txt = new String(fs.open(new Path(d, "metrics/report.txt")).readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(txt.contains("row weight per part: placed 3.500 to 5, random "), txt);
  }

  @Test
  void movingThirdVertexToMachineZeroReducesCost() throws Exception {
    writeV("v-moved", 0, 1, 0, 2);
    MetricsReport r = run("v-moved", "metrics-moved");
    assertArrayEquals(new long[] {2, 3, 1}, col(r.getPlaced(), PartMetrics::getTraffic));
    assertEquals(6, r.getPlaced().getSumTraffic());
  }

  @Test
  void vAssignmentMissingAKeyFailsLoudly() throws Exception {
    writeV("v-short", 0, 1, 2);
    assertEquals(1, ToolRunner.run(CONF, new MetricsTool(), new String[] {"--blocks", dir + "/blocks",
        "--u-assignment", dir + "/u", "--v-assignment", dir + "/v-short", "--output", dir + "/m-short", "--k", "3",
        "--no-variant"}));
    assertTrue(!fs.exists(new Path(dir, "m-short")));
  }
}
