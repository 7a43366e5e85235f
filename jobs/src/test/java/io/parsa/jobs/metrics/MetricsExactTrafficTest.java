package io.parsa.jobs.metrics;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.avro.GraphRow;
import io.parsa.avro.MetricsReport;
import io.parsa.avro.PartMetrics;
import io.parsa.avro.VAssignment;
import io.parsa.jobs.mr.TestData;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;

/**
 * Issue 12 ("the numbers must be exact"): the metrics step's T_i against a recomputation from first principles,
 * on data built to contain every suspected source of over-counting at once:
 * <ul>
 *   <li>rows that list a key several times (libsvm rows with a repeated index, and edge rows with a repeated
 *       target);</li>
 *   <li>self-loops: edge rows whose own vertex id is among their keys;</li>
 *   <li>keys whose owner does not use them (the v-assignment puts them on a part none of whose rows uses them),
 *       next to keys owned by a user.</li>
 * </ul>
 * The recomputation does not use the set/inner/served decomposition of the step: it replays the traffic of one
 * iteration request by request. Every worker i asks once for every distinct key it needs; a request for a key
 * stored on another machine o costs one unit at i (pull) and one at o (serve). T_i is the units at machine i.
 */
class MetricsExactTrafficTest {

  private static final int K = 5;

  @Test
  void trafficEqualsRequestByRequestReplay() throws Exception {
    Configuration conf = TestData.localConf();
    FileSystem fs = FileSystem.get(conf);
    Path dir = TestData.tempDir("exact-traffic");
    Random rnd = new Random(12);
    Map<Long, long[]> rowKeys = new HashMap<>();
    Map<Long, Integer> uPart = new HashMap<>();
    List<GraphRow> rows = new ArrayList<>();
    int duplicated = 0;
    int selfLoops = 0;
    for (long id = 0; id < 300; id++) {
      int n = 1 + rnd.nextInt(8);
      long[] ks = new long[n];
      for (int i = 0; i < n; i++) {
        ks[i] = rnd.nextInt(120);
      }
      if (id % 3 == 0) {
        ks[n - 1] = ks[0]; // the same index twice in one row
        duplicated++;
      }
      boolean edges = id % 2 == 1;
      if (edges && id % 5 == 1 && id < 120) {
        ks[0] = id; // self-loop: vertex id among its own neighbours
        selfLoops++;
      }
      rows.add(edges ? edgeRow(id, ks) : TestData.libsvmRow(id, ks));
      rowKeys.put(id, ks);
      uPart.put(id, rnd.nextInt(K));
    }
    TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, 3);
    TestData.writeUAssignment(fs, new Path(dir, "u"), uPart);

    // users of each distinct key
    Map<Long, Set<Integer>> users = new HashMap<>();
    rowKeys.forEach((id, ks) -> {
      for (long key : ks) {
        users.computeIfAbsent(key, x -> new HashSet<>()).add(uPart.get(id));
      }
    });
    // owners: every third key on a part that does not use it (when there is one), the others on a user
    Map<Long, Integer> owner = new HashMap<>();
    int ownerNotUser = 0;
    for (Map.Entry<Long, Set<Integer>> e : users.entrySet()) {
      Set<Integer> p = e.getValue();
      int o = -1;
      if (e.getKey() % 3 == 0) {
        for (int c = 0; c < K && o < 0; c++) {
          if (!p.contains(c)) {
            o = c;
          }
        }
      }
      if (o < 0) {
        o = p.iterator().next();
      } else {
        ownerNotUser++;
      }
      owner.put(e.getKey(), o);
    }
    assertTrue(duplicated > 0 && selfLoops > 0 && ownerNotUser > 0, "the data must contain every suspect");
    List<VAssignment> v = new ArrayList<>();
    owner.forEach((key, o) -> v.add(new VAssignment(key, o, null)));
    Path vDir = new Path(dir, "v");
    TestData.writeAvro(fs, new Path(vDir, "part-m-00000.avro"), v);
    fs.create(new Path(vDir, "_SUCCESS"), true).close();

    // replay: per worker, its distinct requests; each remote one costs 1 at the worker and 1 at the owner
    long[] traffic = new long[K];
    long[] workingSet = new long[K];
    long[] inner = new long[K];
    List<Set<Long>> requests = new ArrayList<>();
    for (int i = 0; i < K; i++) {
      requests.add(new HashSet<>());
    }
    rowKeys.forEach((id, ks) -> {
      for (long key : ks) {
        requests.get(uPart.get(id)).add(key);
      }
    });
    long nonZeros = 0;
    for (long[] ks : rowKeys.values()) {
      nonZeros += ks.length;
    }
    for (int i = 0; i < K; i++) {
      workingSet[i] = requests.get(i).size();
      for (long key : requests.get(i)) {
        int o = owner.get(key);
        if (o == i) {
          inner[i]++;
        } else {
          traffic[i]++;
          traffic[o]++;
        }
      }
    }

    // two reducers, so per-key state is split across tasks as on a cluster
    assertEquals(0, ToolRunner.run(conf, new MetricsTool(), new String[] {"--blocks", dir + "/blocks",
        "--u-assignment", dir + "/u", "--v-assignment", dir + "/v", "--output", dir + "/m", "--k", "" + K,
        "--reducers", "2", "--no-variant"}));
    MetricsReport r = MetricsTool.readReport(fs, new Path(dir, "m"));
    long[] got = r.getPlaced().getParts().stream().mapToLong(PartMetrics::getTraffic).toArray();
    assertArrayEquals(traffic, got, "T_i");
    assertArrayEquals(workingSet, r.getPlaced().getParts().stream().mapToLong(PartMetrics::getWorkingSet).toArray(),
        "M_i");
    assertArrayEquals(inner, r.getPlaced().getParts().stream().mapToLong(PartMetrics::getInnerAccesses).toArray(),
        "inner_i");
    assertEquals(java.util.Arrays.stream(traffic).sum(), r.getPlaced().getSumTraffic(), "T_sum");
    assertEquals(java.util.Arrays.stream(traffic).max().getAsLong(), r.getPlaced().getMaxTraffic(), "T_max");
    assertEquals(users.size(), r.getKeys(), "distinct keys, each counted once");
    assertEquals(nonZeros, r.getNonZeros(), "non-zeros count every listed entry, duplicates included");
  }

  /** An edge-list row: one "id<TAB>target" line per key, in order. */
  private static GraphRow edgeRow(long id, long[] keys) {
    StringBuilder sb = new StringBuilder();
    for (long key : keys) {
      if (sb.length() > 0) {
        sb.append('\n');
      }
      sb.append(id).append('\t').append(key);
    }
    return TestData.row(id, sb.toString(), keys);
  }
}
