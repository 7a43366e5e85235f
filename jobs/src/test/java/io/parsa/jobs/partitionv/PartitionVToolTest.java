package io.parsa.jobs.partitionv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.avro.GraphRow;
import io.parsa.avro.VAssignment;
import io.parsa.jobs.mr.Jobs;
import io.parsa.jobs.mr.TestData;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;

/** Local-mode runs of partition-v on hand-checked and generated graphs. */
class PartitionVToolTest {

  private final Configuration conf = TestData.localConf();

  /**
   * k = 2; rows r0 {1,2} r1 {2,3} on part 0, r2 {3,4} r3 {4,5,1} on part 1. N(U_0) = {1,2,3}, N(U_1) = {1,3,4,5};
   * sweep from cost = [3, 4]: key 1 (parts 0,1) -> 0, cost0 = 3; key 2 (0) -> 0, cost0 = 2; key 3 (0,1) -> 0,
   * cost0 = 2; key 4 (1) -> 1, cost1 = 3; key 5 (1) -> 1, cost1 = 2. So V_0 = {1,2,3}, V_1 = {4,5}, T = [2, 2];
   * renumbered 1,2,3 -> 0,1,2 and 4,5 -> 3,4.
   */
  @Test
  void handWorkedExampleWithRenumber() throws Exception {
    FileSystem fs = FileSystem.get(conf);
    Path dir = TestData.tempDir("pv-hand");
    List<GraphRow> rows = List.of(TestData.libsvmRow(0, 1, 2), TestData.libsvmRow(1, 2, 3, 2),
        TestData.libsvmRow(2, 3, 4), TestData.libsvmRow(3, 4, 5, 1));
    TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, 2);
    TestData.writeUAssignment(fs, new Path(dir, "u"), Map.of(0L, 0, 1L, 0, 2L, 1, 3L, 1));
    Path out = new Path(dir, "v");
    assertEquals(0, ToolRunner.run(conf, new PartitionVTool(), new String[] {"--blocks", dir + "/blocks",
        "--u-assignment", dir + "/u", "--output", out.toString(), "--k", "2", "--renumber"}));
    Map<Long, long[]> got = new TreeMap<>();
    for (VAssignment v : Jobs.readAvroDir(fs, out, VAssignment.class)) {
      assertNull(got.put(v.getKey(), new long[] {v.getPart(), v.getNewKey()}), "key twice: " + v.getKey());
    }
    assertEquals(5, got.size());
    long[][] expected = {{0, 0}, {0, 1}, {0, 2}, {1, 3}, {1, 4}};
    for (int key = 1; key <= 5; key++) {
      assertEquals(expected[key - 1][0], got.get((long) key)[0], "part of key " + key);
      assertEquals(expected[key - 1][1], got.get((long) key)[1], "new key of key " + key);
    }
    assertTrue(fs.exists(new Path(out, "_SUCCESS")));
    assertEquals(0, fs.globStatus(new Path(out, "_partstats*")).length);
    assertEquals(0, fs.globStatus(new Path(dir, ".v*")).length, "work and temp dirs removed");
  }

  /** An aligned u-assignment (one file per block) joins map-side and places exactly as the reduce-side join. */
  @Test
  void alignedAssignmentJoinsMapSideWithTheSameResult() throws Exception {
    FileSystem fs = FileSystem.get(conf);
    Path dir = TestData.tempDir("pv-aligned");
    int k = 5;
    Random rnd = new Random(11);
    List<GraphRow> rows = new ArrayList<>();
    Map<Long, Integer> assign = new HashMap<>();
    for (long id = 0; id < 500; id++) {
      int n = 1 + rnd.nextInt(9);
      long[] keys = new long[n];
      for (int j = 0; j < n; j++) {
        keys[j] = 1 + rnd.nextInt(400);
      }
      rows.add(TestData.libsvmRow(id, keys));
      assign.put(id, rnd.nextInt(k));
    }
    TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, 4);
    TestData.writeUAssignment(fs, new Path(dir, "u"), assign);
    TestData.writeAlignedUAssignment(fs, new Path(dir, "ua"), rows, 4, assign);
    assertTrue(!io.parsa.jobs.mr.AlignedJoin.aligned(conf, new Path(dir, "blocks"), new Path(dir, "u")));
    assertTrue(io.parsa.jobs.mr.AlignedJoin.aligned(conf, new Path(dir, "blocks"), new Path(dir, "ua")));
    for (String method : new String[] {"sweep", "balanced"}) {
      Map<Long, Integer> reduceSide = new TreeMap<>();
      Map<Long, Integer> mapSide = new TreeMap<>();
      for (String u : new String[] {"u", "ua"}) {
        Path out = new Path(dir, "v-" + u + "-" + method);
        assertEquals(0, ToolRunner.run(conf, new PartitionVTool(), new String[] {"--blocks", dir + "/blocks",
            "--u-assignment", dir + "/" + u, "--output", out.toString(), "--k", "" + k, "--method", method}));
        for (VAssignment v : Jobs.readAvroDir(fs, out, VAssignment.class)) {
          assertNull((u.equals("u") ? reduceSide : mapSide).put(v.getKey(), v.getPart()), "key twice");
        }
      }
      assertEquals(reduceSide, mapSide, method);
    }
  }

  @Test
  void alignedAssignmentLackingARowFailsLoudly() throws Exception {
    FileSystem fs = FileSystem.get(conf);
    Path dir = TestData.tempDir("pv-aligned-missing");
    List<GraphRow> rows = List.of(TestData.libsvmRow(0, 1), TestData.libsvmRow(1, 2), TestData.libsvmRow(2, 3));
    TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, 2);
    TestData.writeAlignedUAssignment(fs, new Path(dir, "ua"), rows, 2, Map.of(0L, 0, 1L, 1, 2L, 0));
    // block 0 holds rows 0 and 2: rewrite its file with row 0 only
    io.parsa.yarn.io.AssignmentFiles.write(fs, new Path(dir, "ua"), 0, 1, new long[] {0}, new int[] {0});
    assertTrue(io.parsa.jobs.mr.AlignedJoin.aligned(conf, new Path(dir, "blocks"), new Path(dir, "ua")));
    assertEquals(1, ToolRunner.run(conf, new PartitionVTool(), new String[] {"--blocks", dir + "/blocks",
        "--u-assignment", dir + "/ua", "--output", dir + "/v", "--k", "2"}));
    assertTrue(!fs.exists(new Path(dir, "v")));
  }

  @Test
  void missingAssignmentFailsLoudly() throws Exception {
    FileSystem fs = FileSystem.get(conf);
    Path dir = TestData.tempDir("pv-missing");
    TestData.writeBlocks(fs, new Path(dir, "blocks"), List.of(TestData.libsvmRow(0, 1), TestData.libsvmRow(1, 2)), 1);
    TestData.writeUAssignment(fs, new Path(dir, "u"), Map.of(0L, 0));
    assertEquals(1, ToolRunner.run(conf, new PartitionVTool(), new String[] {"--blocks", dir + "/blocks",
        "--u-assignment", dir + "/u", "--output", dir + "/v", "--k", "2"}));
    assertTrue(!fs.exists(new Path(dir, "v")));
  }

  /** Generated data: R = 1 equals an in-test sequential Algorithm 2; R = 3 still assigns each key once, validly. */
  @Test
  void generatedGraphSingleAndMultiShare() throws Exception {
    FileSystem fs = FileSystem.get(conf);
    Path dir = TestData.tempDir("pv-gen");
    int k = 4;
    Random rnd = new Random(5);
    List<GraphRow> rows = new ArrayList<>();
    Map<Long, Integer> assign = new HashMap<>();
    TreeMap<Long, TreeSet<Integer>> usage = new TreeMap<>();
    for (long id = 0; id < 400; id++) {
      int n = 1 + rnd.nextInt(8);
      long[] keys = new long[n];
      int part = (int) (id % k);
      for (int j = 0; j < n; j++) {
        keys[j] = 1 + (long) Math.floor(Math.pow(rnd.nextDouble(), 3) * 300) + part * 20;
        usage.computeIfAbsent(keys[j], x -> new TreeSet<>()).add(part);
      }
      rows.add(TestData.libsvmRow(id, keys));
      assign.put(id, part);
    }
    TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, 3);
    TestData.writeUAssignment(fs, new Path(dir, "u"), assign);

    // in-test Algorithm 2, one sweep in ascending key order
    long[] ws = new long[k];
    usage.values().forEach(s -> s.forEach(p -> ws[p]++));
    double[] cost = new double[k];
    for (int i = 0; i < k; i++) {
      cost[i] = ws[i];
    }
    Map<Long, Integer> expected = new HashMap<>();
    usage.forEach((key, parts) -> {
      int xi = -1;
      for (int p : parts) {
        if (xi < 0 || cost[p] < cost[xi]) {
          xi = p;
        }
      }
      cost[xi] += -1 + parts.size() - 1;
      expected.put(key, xi);
    });

    assertEquals(0, ToolRunner.run(conf, new PartitionVTool(), new String[] {"--blocks", dir + "/blocks",
        "--u-assignment", dir + "/u", "--output", dir + "/v1", "--k", "" + k, "--method", "sweep"}));
    Map<Long, Integer> got = new HashMap<>();
    for (VAssignment v : Jobs.readAvroDir(fs, new Path(dir, "v1"), VAssignment.class)) {
      assertNull(got.put(v.getKey(), v.getPart()));
      assertNull(v.getNewKey());
    }
    assertEquals(expected, got);

    // the default (balanced) placement: every key on a user, T_max never above the sweep's
    assertEquals(0, ToolRunner.run(conf, new PartitionVTool(), new String[] {"--blocks", dir + "/blocks",
        "--u-assignment", dir + "/u", "--output", dir + "/v2", "--k", "" + k}));
    Map<Long, Integer> balanced = new HashMap<>();
    for (VAssignment v : Jobs.readAvroDir(fs, new Path(dir, "v2"), VAssignment.class)) {
      assertNull(balanced.put(v.getKey(), v.getPart()));
      assertTrue(usage.get(v.getKey()).contains(v.getPart()), "key on a part that does not use it");
    }
    assertEquals(usage.keySet(), balanced.keySet());
    assertTrue(maxTraffic(usage, balanced, ws) <= maxTraffic(usage, got, ws),
        "balanced T_max " + maxTraffic(usage, balanced, ws) + " above the sweep's " + maxTraffic(usage, got, ws));

    assertEquals(0, ToolRunner.run(conf, new PartitionVTool(), new String[] {"--blocks", dir + "/blocks",
        "--u-assignment", dir + "/u", "--output", dir + "/v3", "--k", "" + k, "--reducers", "3", "--join-reducers", "2", "--renumber"}));
    Map<Long, VAssignment> got3 = new HashMap<>();
    long[] vSize = new long[k];
    for (VAssignment v : Jobs.readAvroDir(fs, new Path(dir, "v3"), VAssignment.class)) {
      assertNull(got3.put(v.getKey(), v));
      assertTrue(usage.get(v.getKey()).contains(v.getPart()), "key on a part that does not use it");
      vSize[v.getPart()]++;
    }
    assertEquals(usage.keySet(), got3.keySet());
    long[] lo = new long[k];
    for (int p = 1; p < k; p++) {
      lo[p] = lo[p - 1] + vSize[p - 1];
    }
    TreeSet<Long> newKeys = new TreeSet<>();
    for (VAssignment v : got3.values()) {
      long nk = v.getNewKey();
      assertTrue(nk >= lo[v.getPart()] && nk < lo[v.getPart()] + vSize[v.getPart()], "new key outside its range");
      newKeys.add(nk);
    }
    assertEquals(usage.size(), newKeys.size());
    assertEquals(usage.size() - 1, newKeys.last());
  }

  @Test
  void joinReducersFollowTheInputSize() {
    assertEquals(1, io.parsa.jobs.mr.RowJoinJob.reducersFor(0, 100));
    assertEquals(1, io.parsa.jobs.mr.RowJoinJob.reducersFor(100, 100));
    assertEquals(2, io.parsa.jobs.mr.RowJoinJob.reducersFor(101, 100));
    assertEquals(40, io.parsa.jobs.mr.RowJoinJob.reducersFor(10L << 30, 256L << 20));
  }

  /** max_i T_i with T_i = |N(U_i)| + sum over keys on i of (users - 2). */
  private static long maxTraffic(Map<Long, TreeSet<Integer>> usage, Map<Long, Integer> v, long[] ws) {
    long[] t = ws.clone();
    usage.forEach((key, parts) -> t[v.get(key)] += parts.size() - 2);
    return java.util.Arrays.stream(t).max().orElse(0);
  }
}
