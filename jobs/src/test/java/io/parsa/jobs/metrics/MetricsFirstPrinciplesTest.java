package io.parsa.jobs.metrics;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.avro.MetricsReport;
import io.parsa.avro.PartMetrics;
import io.parsa.avro.PlacementMetrics;
import io.parsa.avro.VAssignment;
import io.parsa.jobs.baseline.BaselineAssignTool;
import io.parsa.jobs.ingest.IngestTool;
import io.parsa.jobs.mr.TestData;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.ToLongFunction;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;

/**
 * The metrics report against eq. 6 and 7 computed here from the raw input lines alone, on inputs with the traps that
 * once made traffic figures drift: a feature index listed twice in a row, self-loops in an undirected edge list, and
 * keys stored on a machine none of whose rows use them.
 */
class MetricsFirstPrinciplesTest {
  private static final Configuration CONF = TestData.localConf();
  private static final int K = 3;

  @Test
  void libsvmWithRepeatedIndices() throws Exception {
    String text = String.join("\n",
        "1 1:1 1:2 3:1",
        "0 2:1 3:1 3:1",
        "1 4:1",
        "0 1:1 5:1 5:1 2:1",
        "1 6:1 1:1 6:0.5",
        "0 3:1 6:1",
        "1 2:1 2:1") + "\n";
    Map<Long, Set<Long>> rows = new TreeMap<>();
    String[] lines = text.split("\n");
    for (int i = 0; i < lines.length; i++) {
      Set<Long> keys = new TreeSet<>();
      String[] tok = lines[i].trim().split("\\s+");
      for (int t = 1; t < tok.length; t++) {
        keys.add(Long.parseLong(tok[t].substring(0, tok[t].indexOf(':'))));
      }
      rows.put((long) i, keys); // row id = line number in the only file (ordinal 0)
    }
    // key 4 is stored on part 0 although only row 2 (part 2 under id mod 3) uses it (a key nobody uses is refused: V_WITHOUT_USE)
    check("libsvm", "libsvm", text, rows, Map.of(1L, 0, 2L, 1, 3L, 2, 4L, 0, 5L, 1, 6L, 2));
  }

  @Test
  void undirectedEdgesWithSelfLoops() throws Exception {
    String text = String.join("\n", "1 1", "1 2", "2 3", "3 3", "4 1", "2 2", "5 3", "4 4") + "\n";
    Map<Long, Set<Long>> rows = new TreeMap<>();
    for (String line : text.split("\n")) {
      String[] t = line.trim().split("\\s+");
      long u = Long.parseLong(t[0]);
      long v = Long.parseLong(t[1]);
      rows.computeIfAbsent(u, x -> new TreeSet<>()).add(v);
      rows.computeIfAbsent(v, x -> new TreeSet<>()).add(u);
    }
    // key 5 lives on part 0, but its only user, row 3, is on part 0 too (3 mod 3); key 2 lives on part 0, used by
    // rows 1, 2 and 3 (parts 1, 2, 0); key 4 lives on part 2, used by rows 1 and 4 (parts 1, 1): nobody on part 2
    check("uedges", "uedges", text, rows, Map.of(1L, 1, 2L, 0, 3L, 2, 4L, 2, 5L, 0));
  }

  private static void check(String name, String format, String text, Map<Long, Set<Long>> rows,
      Map<Long, Integer> vPart) throws Exception {
    FileSystem fs = FileSystem.get(CONF);
    Path dir = TestData.tempDir("first-principles-" + name);
    Path input = new Path(dir, "input.txt");
    try (OutputStream out = fs.create(input, true)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
    assertEquals(0, ToolRunner.run(CONF, new IngestTool(), new String[] {"--input", input.toString(), "--format",
        format, "--output", dir + "/blocks", "--blocks", "2"}));
    assertEquals(0, ToolRunner.run(CONF, new BaselineAssignTool(), new String[] {"--blocks", dir + "/blocks",
        "--k", String.valueOf(K), "--algorithm", "hash", "--output", dir + "/u"}));
    List<VAssignment> v = new ArrayList<>();
    vPart.forEach((key, part) -> v.add(new VAssignment(key, part, null)));
    TestData.writeAvro(fs, new Path(dir, "v/part-m-00000.avro"), v);
    fs.create(new Path(dir, "v/_SUCCESS"), true).close();
    assertEquals(0, ToolRunner.run(CONF, new MetricsTool(), new String[] {"--blocks", dir + "/blocks",
        "--u-assignment", dir + "/u", "--v-assignment", dir + "/v", "--output", dir + "/metrics", "--k",
        String.valueOf(K), "--no-variant"}));
    PlacementMetrics placed = MetricsTool.readReport(fs, new Path(dir, "metrics")).getPlaced();

    // eq. 6 and 7 from the definitions: N(U_i) = keys of part i's rows; a key owned by o and used by the parts P
    // costs every i in P \ {o} one pull, and o one serve for each of them
    long[] rowsPerPart = new long[K];
    Map<Long, Set<Integer>> users = new HashMap<>();
    rows.forEach((id, keys) -> {
      int part = (int) (id % K); // assign-baseline --algorithm hash: id mod k
      rowsPerPart[part]++;
      keys.forEach(key -> users.computeIfAbsent(key, x -> new TreeSet<>()).add(part));
    });
    long[] workingSet = new long[K];
    long[] traffic = new long[K];
    long[] serverKeys = new long[K];
    long[] inner = new long[K];
    long[] inter = new long[K];
    vPart.values().forEach(p -> serverKeys[p]++);
    users.forEach((key, parts) -> {
      int owner = vPart.get(key);
      for (int i : parts) {
        workingSet[i]++;
        if (i == owner) {
          inner[owner]++;
        } else {
          traffic[i]++;
          traffic[owner]++;
          inter[owner]++;
        }
      }
    });
    assertArrayEquals(rowsPerPart, col(placed, PartMetrics::getRows), "rows per part");
    assertArrayEquals(workingSet, col(placed, PartMetrics::getWorkingSet), "M_i");
    assertArrayEquals(traffic, col(placed, PartMetrics::getTraffic), "T_i");
    assertArrayEquals(serverKeys, col(placed, PartMetrics::getServerKeys), "|V_i|");
    long sumInner = 0;
    long sumInter = 0;
    for (int i = 0; i < K; i++) {
      sumInner += inner[i];
      sumInter += inter[i];
    }
    assertEquals(sumInner + sumInter, placed.getInnerAccesses() + placed.getInterAccesses(), "accesses");
    assertEquals(sumInter, placed.getInterAccesses(), "inter-machine accesses");
    assertTrue(sumInter > 0 && sumInner > 0, "the instance exercises both kinds of access");
  }

  private static long[] col(PlacementMetrics p, ToLongFunction<PartMetrics> f) {
    return p.getParts().stream().mapToLong(f).toArray();
  }
}
