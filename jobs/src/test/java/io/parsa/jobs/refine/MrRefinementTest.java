package io.parsa.jobs.refine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.parsa.avro.GraphRow;
import io.parsa.avro.UAssignment;
import io.parsa.common.JsonFiles;
import io.parsa.jobs.mr.Jobs;
import io.parsa.jobs.mr.TestData;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
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
import org.apache.hadoop.io.WritableComparator;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;

/** refine-u's distributed swap rounds: the gain rule by hand, the shuffle key's order, and whole runs. */
class MrRefinementTest {

  private final Configuration conf = TestData.localConf();

  /**
   * The streaming balance's rating: the part a row brings the fewest keys to, whatever it frees; ties to the part of
   * least weight, or drawn in proportion to the planned flows' shares; weighted rows per unit of weight.
   */
  @Test
  void fewestArrivingKeysByHand() {
    // row of part 0 with keys v1 (also 1 row of part 1 and 1 of part 2) and v2 (it alone): 1 key new to parts 1 and
    // 2, 2 to part 3
    int[][] parts = {{0, 1, 2}, {0}};
    int[][] counts = {{1, 1, 1}, {1}};
    SwapGains g = new SwapGains(new double[] {1, 1, 0.9, 1});
    g.begin(0);
    for (int j = 0; j < 2; j++) {
      g.key(parts[j], counts[j], 0, parts[j].length);
    }
    assertEquals(2, g.fewestArriving(null, null, 0)); // tie of parts 1 and 2: the lighter
    assertEquals(1, g.arriving());
    assertEquals(-1 + 0.5 * 2 / 3.0, g.bestGain(), 1e-12); // frees both keys: ahead of rows that bring 1 and free less
    assertEquals(3, g.fewestArriving(new boolean[] {false, false, false, true}, null, 0));
    assertEquals(2, g.arrivingTo(3));
    long[] shares = {0, 3, 1, 5};
    int[] drawn = new int[4];
    for (long draw = 0; draw < 4000; draw++) {
      drawn[g.fewestArriving(null, shares, draw)]++;
    }
    assertArrayEquals(new int[] {0, 3000, 1000, 0}, drawn); // 3 : 1 between the tied parts; part 3 brings more
    // weighted rows are rated per unit of weight, in sixteenths of a key: 20 keys with 100 non-zeros before 5 with 5
    assertEquals(3.0, GainReducer.perWeight(3, null, 0));
    assertEquals(3.2, GainReducer.perWeight(20, new double[] {5, 100}, 1), 1e-12);
    assertEquals(16.0, GainReducer.perWeight(5, new double[] {5, 100}, 0), 1e-12);
  }

  @Test
  void bestMoveByHand() {
    // row of part 0 with three keys: v1 used by it alone in part 0 and by 2 rows of part 1, v2 by 2 rows of part 0,
    // v3 by it alone in part 0 and by 1 row of part 2; k = 4
    int[][] parts = {{0, 1}, {0}, {0, 2}};
    int[][] counts = {{1, 2}, {2}, {1, 1}};
    SwapGains g = new SwapGains(new double[] {1, 1, 1, 1});
    g.begin(0);
    for (int j = 0; j < 3; j++) {
      g.key(parts[j], counts[j], 0, parts[j].length);
    }
    // s = 2 (v1, v3 leave part 0); t_1 = 2 (v2, v3 new to part 1), t_2 = 2, t_3 = 3: gains 0, 0, -1; tie -> part 1
    assertEquals(1, g.bestTarget());
    assertEquals(0.0, g.bestGain());
    assertEquals(2, g.soleKeys());
    assertEquals(2, g.arrivingBound()); // v2 and v3 are new to part 1 (v1 has two users there)

    // weights favour leaving part 0 (heavy) for part 3 (light): 2·2 − 0.5·3 = 2.5 beats 2·2 − 1·2 = 2
    g = new SwapGains(new double[] {2, 1, 1, 0.5});
    g.begin(0);
    for (int j = 0; j < 3; j++) {
      g.key(parts[j], counts[j], 0, parts[j].length);
    }
    assertEquals(3, g.bestTarget());
    assertEquals(2.5, g.bestGain());
    assertEquals(3, g.arrivingBound());

    // part 2 slightly lighter: 2 − 0.9·2 = 0.2 wins; v3 has one user in part 2, who may leave in the same round, so
    // the bound on what the move adds there counts it: 2 new keys + 1
    g = new SwapGains(new double[] {1, 1, 0.9, 1});
    g.begin(0);
    for (int j = 0; j < 3; j++) {
      g.key(parts[j], counts[j], 0, parts[j].length);
    }
    assertEquals(2, g.bestTarget());
    assertEquals(0.2, g.bestGain(), 1e-12);
    assertEquals(3, g.arrivingBound());
    // every target rated (the streaming balance's plan): 2 − 1·2, 2 − 0.9·2, 2 − 1·3; the best is the best target's
    assertEquals(0.0, g.gainTo(1), 1e-12);
    assertEquals(0.2, g.gainTo(2), 1e-12);
    assertEquals(-1.0, g.gainTo(3), 1e-12);

    // weights of p = 3 at working sets 10, 5, 5, 20 (mean 10): (M/10)^2
    assertArrayEquals(new double[] {1, 0.25, 0.25, 4}, SwapGains.weights(new long[] {10, 5, 5, 20}, 3), 1e-12);
    assertArrayEquals(new double[] {1, 1, 1, 1}, SwapGains.weights(new long[] {10, 5, 5, 20}, 1), 1e-12);
  }

  @Test
  void swapKeyBytesSortAsTheKeys() throws Exception {
    Random rnd = new Random(7);
    WritableComparator raw = new SwapKey.Comparator();
    WritableComparator group = new SwapKey.PairGrouping();
    double[] gains = {-3.5, -1, -0.0, 0.0, 1e-9, 2, 7.25, Double.MAX_VALUE, -Double.MAX_VALUE};
    for (int t = 0; t < 2_000; t++) {
      SwapKey a = random(rnd, gains);
      SwapKey b = random(rnd, gains);
      byte[] x = bytes(a);
      byte[] y = bytes(b);
      assertEquals(SwapKey.BYTES, x.length);
      assertEquals(Integer.signum(a.compareTo(b)), Integer.signum(raw.compare(x, 0, x.length, y, 0, y.length)),
          a + " vs " + b);
      boolean samePair = a.lo() == b.lo() && a.hi() == b.hi();
      assertEquals(samePair, group.compare(x, 0, x.length, y, 0, y.length) == 0);
      SwapKey back = new SwapKey();
      back.readFields(new DataInputStream(new ByteArrayInputStream(x)));
      assertEquals(0, back.compareTo(a));
      assertEquals(Double.doubleToLongBits(a.gain()), Double.doubleToLongBits(back.gain()));
    }
    // within a pair: direction lo -> hi first, best gain first
    SwapKey first = new SwapKey().set(2, 5, 1.0, 9);
    SwapKey better = new SwapKey().set(2, 5, 3.0, 10);
    SwapKey back = new SwapKey().set(5, 2, 100.0, 1);
    assertTrue(better.compareTo(first) < 0);
    assertTrue(first.compareTo(back) < 0);
  }

  private static SwapKey random(Random rnd, double[] gains) {
    int from = rnd.nextInt(5);
    int to = (from + 1 + rnd.nextInt(4)) % 5;
    double g = rnd.nextBoolean() ? gains[rnd.nextInt(gains.length)] : rnd.nextGaussian() * 10;
    long row = rnd.nextInt(3) == 0 ? rnd.nextLong() : rnd.nextInt(20) - 10;
    return new SwapKey().set(from, to, g, row);
  }

  private static byte[] bytes(SwapKey k) throws Exception {
    ByteArrayOutputStream bo = new ByteArrayOutputStream();
    k.write(new DataOutputStream(bo));
    return bo.toByteArray();
  }

  /** Working sets |N(U_i)| of an assignment, by brute force. */
  static long[] workingSetsPerPart(Map<Long, long[]> rows, Map<Long, Integer> part, int k) {
    List<Set<Long>> n = new ArrayList<>();
    for (int i = 0; i < k; i++) {
      n.add(new HashSet<>());
    }
    rows.forEach((id, keys) -> {
      for (long key : keys) {
        n.get(part.get(id)).add(key);
      }
    });
    return n.stream().mapToLong(Set::size).toArray();
  }

  private static long[] sizes(Map<Long, Integer> part, int k) {
    long[] s = new long[k];
    part.values().forEach(p -> s[p]++);
    return s;
  }

  /**
   * Random instances with planted communities and a blind balanced start (aligned with the blocks, as partition-u
   * writes it; in one, a block whose rows use no key): the distributed rounds keep every part's row count, place
   * every row once, never raise M_max or the total, lower the total, and report the exact working sets of what they
   * wrote.
   */
  @Test
  void distributedRoundsKeepBalanceAndNeverWorsen() throws Exception {
    Random rnd = new Random(11);
    FileSystem fs = FileSystem.getLocal(conf);
    // {k, rows, block files, whether the rows of the last block use no key at all}
    int[][] shapes = {{2, 120, 3, 0}, {3, 150, 4, 0}, {5, 200, 2, 0}, {4, 120, 3, 1}, {4, 160, 3, 0}};
    // the four-job swap rounds alone, the default's group cycles (V-cycles, rounds in groups, V-cycles), and chunk
    // rounds (each block's rows among all parts, the others fixed; the last shape's blocks in two slices each)
    String[] modes = {"swaps", "groups", "chunks", "groups", "chunks"};
    for (int[] shape : shapes) {
      int k = shape[0];
      int n = shape[1];
      int files = shape[2];
      Path dir = TestData.tempDir("mr-refine");
      List<GraphRow> rows = new ArrayList<>();
      Map<Long, long[]> keysOf = new HashMap<>();
      Map<Long, Integer> start = new HashMap<>();
      for (int i = 0; i < n; i++) {
        long id = 1000L * i + rnd.nextInt(1000); // ids not in block order
        int community = rnd.nextInt(k);
        int deg = shape[3] == 1 && i % files == files - 1 ? 0 : 1 + rnd.nextInt(6);
        long[] keys = new long[deg];
        for (int j = 0; j < deg; j++) {
          // mostly the community's keys, some global ones, duplicates allowed
          keys[j] = rnd.nextInt(5) == 0 ? 10_000 + rnd.nextInt(30) : community * 40L + rnd.nextInt(40);
        }
        rows.add(TestData.libsvmRow(id, keys));
        keysOf.put(id, keys);
        start.put(id, i % k);
      }
      TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, files);
      TestData.writeAlignedUAssignment(fs, new Path(dir, "u"), rows, files, start);
      Path out = new Path(dir, "refined");
      int index = java.util.Arrays.asList(shapes).indexOf(shape);
      String mode = modes[index];
      boolean swaps = !mode.equals("groups");
      Configuration c = new Configuration(conf);
      if (index == shapes.length - 1) {
        c.setInt(ChunkReducer.SLICES, 2);
      }
      int rc = ToolRunner.run(c, new RefineUTool(), new String[] {"--blocks", new Path(dir, "blocks").toString(),
          "--u-assignment", new Path(dir, "u").toString(), "--output", out.toString(), "--k", String.valueOf(k),
          "--mode", "mapreduce", "--rounds", "4", "--reducers", "2", "--starts", "given", "--group-size", "2",
          "--multilevel", "off",
          "--distributed-rounds", mode, "--vcycles", swaps ? "0" : "1", "--capped-vcycles",
          swaps ? "0" : "1"});
      assertEquals(0, rc);
      Map<Long, Integer> refined = RefineUToolTest.readParts(fs, out);
      assertEquals(start.keySet(), refined.keySet(), "every row once");
      assertArrayEquals(sizes(start, k), sizes(refined, k), "rows per part unchanged");
      for (int b = 0; b < files; b++) {
        assertTrue(fs.exists(io.parsa.yarn.io.AssignmentFiles.fileFor(out, b)), "aligned with the blocks");
      }
      long[] before = workingSetsPerPart(keysOf, start, k);
      long[] after = workingSetsPerPart(keysOf, refined, k);
      long keys = keysOf.values().stream().flatMapToLong(java.util.Arrays::stream).distinct().count();
      JsonNode report = JsonFiles.MAPPER.readTree(fs.open(new Path(out, "_refine.json")));
      assertEquals("mapreduce", report.get("mode").asText());
      for (int i = 0; i < k; i++) {
        assertEquals(after[i], report.get("workingSets").get(i).asLong(), "exact working set of part " + i);
      }
      long maxBefore = java.util.Arrays.stream(before).max().getAsLong();
      long maxAfter = java.util.Arrays.stream(after).max().getAsLong();
      long sumBefore = java.util.Arrays.stream(before).sum();
      long sumAfter = java.util.Arrays.stream(after).sum();
      assertEquals(maxBefore, report.get("startMaxWorkingSet").asLong());
      assertEquals(2 * (sumBefore - keys), report.get("startSumTraffic").asLong());
      assertEquals(2 * (sumAfter - keys), report.get("sumTraffic").asLong());
      assertTrue(maxAfter <= maxBefore, "M_max " + maxBefore + " -> " + maxAfter);
      assertTrue(sumAfter < sumBefore, "k=" + k + ": sum of working sets " + sumBefore + " -> " + sumAfter);
      // every kept round lowered its objective; a dropped one is reported as such
      assertEquals(mode, report.get("distributedRounds").asText());
      int chunkRounds = 0;
      for (JsonNode r : report.get("rounds")) {
        assertEquals(!swaps, r.has("groupsImproved"), r.toString());
        assertEquals(mode.equals("chunks"), r.path("phase").asText().equals("chunk round"), r.toString());
        if (r.get("kept").asBoolean()) {
          assertTrue(r.get("objectiveChangePercent").asDouble() < 0, r.toString());
          chunkRounds += r.path("phase").asText().equals("chunk round") ? 1 : 0;
        }
        if (r.path("phase").asText().equals("chunk round") && r.get("exponent").asDouble() == 1) {
          // at p = 1 every slice is V-cycled among all parts first
          assertTrue(r.path("vcycles").asLong() > 0, r.toString());
        }
        if (r.has("repair") && r.get("kept").asBoolean()) {
          // a p = 1 job that lifted M_max, kept only through its repair job or its frozen retry, whichever measured
          // better: the round's figures are that job's
          assertTrue(r.get("maxWorkingSet").asLong() <= maxBefore, r.toString());
          String by = r.get("keptBy").asText();
          JsonNode kept = r.get(by.equals("repair") ? "repair" : "frozenRetry");
          assertEquals(kept.get("sumTraffic").asLong(), r.get("sumTraffic").asLong(), r.toString());
          assertTrue(kept.get("kept").asBoolean(), r.toString());
          assertTrue(r.get("liftedTry").get("maxWorkingSet").asLong() > r.get("maxWorkingSet").asLong(), r.toString());
        }
        if (index == shapes.length - 1 && r.has("slices")) {
          assertEquals(2 * files, r.get("slices").asInt(), r.toString());
        }
      }
      assertEquals(mode.equals("chunks"), chunkRounds > 0, report.toString());
      assertEquals(0, fs.listStatus(dir, p -> p.getName().startsWith(".")).length, "work and temp dirs removed");
    }
  }

  /**
   * Weighted rows (weight 1 to 12, unrelated to the keys) from a start balanced by weight (each row to the lightest
   * part, as partition-u --weighted does), refined by the distributed swap rounds (exponents 8 and 1) and by the
   * group cycles (V-cycles and rounds in groups of 2 of the 4 parts): every row once, every part's weight within a
   * window as wide as the heaviest row around the start's (row counts may change), the working sets lower, and
   * _refine.json's weights per part exact. A swap of a heavy row for a light one shifts weight between the two parts;
   * before the rounds kept weights, such swaps took parts far out of the window.
   */
  @Test
  void distributedRefinementKeepsEveryPartsWeightWithinTheHeaviestRow() throws Exception {
    for (String mode : new String[] {"swaps", "groups", "chunks"}) {
      Random rnd = new Random(23);
      FileSystem fs = FileSystem.getLocal(conf);
      int k = 4;
      int n = 240;
      int files = 3;
      Path dir = TestData.tempDir("mr-refine-weighted");
      // k communities of 40 keys, a fifth of the keys from 30 shared ones, 1 to 6 keys a row
      WeightedRows wr = weightedRows(n, k, i -> 1000L * i + rnd.nextInt(1000), communityKeys(rnd, k, 1, 6, 5, 40,
          10_000, 30), rnd);
      List<GraphRow> rows = wr.rows();
      Map<Long, long[]> keysOf = wr.keysOf();
      Map<Long, Integer> start = wr.start();
      Map<Long, Double> weightOf = wr.weightOf();
      double[] load = wr.load();
      double heaviest = wr.heaviest();
      double[] window = io.parsa.engine.URefinement.weightWindow(load, heaviest);
      TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, files);
      TestData.writeAlignedUAssignment(fs, new Path(dir, "u"), rows, files, start);
      Path out = new Path(dir, "refined");
      boolean groups = mode.equals("groups");
      boolean chunks = mode.equals("chunks");
      Configuration c = new Configuration(conf);
      // chunks: a task per block, the three refined at once, each within its third of every part's room
      c.setInt(MrRefinement.CHUNK_TASKS, files);
      assertEquals(0, ToolRunner.run(c, new RefineUTool(), new String[] {"--blocks",
          new Path(dir, "blocks").toString(), "--u-assignment", new Path(dir, "u").toString(), "--output",
          out.toString(), "--k", String.valueOf(k), "--mode", "mapreduce", "--rounds", "4", "--reducers", "2",
          "--schedule", "8,1", "--multilevel", "off", "--distributed-rounds", mode, "--group-size", "2",
          "--vcycles", groups ? "1" : "0", "--capped-vcycles", groups ? "1" : "0"}), mode);
      Map<Long, Integer> refined = RefineUToolTest.readParts(fs, out);
      assertEquals(start.keySet(), refined.keySet(), mode + ": every row once");
      double[] w = new double[k];
      refined.forEach((id, p) -> w[p] += weightOf.get(id));
      JsonNode report = JsonFiles.MAPPER.readTree(fs.open(new Path(out, "_refine.json")));
      for (int i = 0; i < k; i++) {
        assertTrue(w[i] >= window[0] && w[i] <= window[1], mode + ": part " + i + " weighs " + w[i] + ", outside ["
            + window[0] + ", " + window[1] + "]: " + java.util.Arrays.toString(w));
        assertEquals(w[i], report.get("weightPerPart").get(i).asDouble(), 1e-9, report.toString());
      }
      long[] before = workingSetsPerPart(keysOf, start, k);
      long[] after = workingSetsPerPart(keysOf, refined, k);
      assertTrue(java.util.Arrays.stream(after).max().getAsLong()
          <= java.util.Arrays.stream(before).max().getAsLong(), mode);
      assertTrue(java.util.Arrays.stream(after).sum() < java.util.Arrays.stream(before).sum(),
          mode + ": " + java.util.Arrays.toString(before) + " -> " + java.util.Arrays.toString(after));
      assertEquals(mode, report.get("distributedRounds").asText());
      long improved = 0;
      for (JsonNode r : report.get("rounds")) {
        improved += r.path("groupsImproved").asLong();
      }
      assertEquals(groups, improved > 0, mode + ": groups kept " + improved + " times: " + report.get("rounds"));
      long chunkRoundsKept = 0;
      long tasks = 0;
      long chunkVCycles = 0;
      for (JsonNode r : report.get("rounds")) {
        if (r.path("phase").asText().equals("chunk round") && r.path("kept").asBoolean()) {
          chunkRoundsKept++;
          tasks = Math.max(tasks, r.path("weightShares").asLong());
        }
        chunkVCycles += r.path("vcycles").asLong();
      }
      assertEquals(chunks, chunkRoundsKept > 0, mode + ": " + report.get("rounds"));
      if (chunks) {
        assertEquals(files, tasks, report.get("rounds").toString());
        // the p = 1 rounds V-cycle every slice of whole-number weights within its task's share of the window
        assertTrue(chunkVCycles > 0, report.get("rounds").toString());
      }
    }
  }

  /** Weighted rows, their keys and weights, and a start that gives each row to the lightest part so far. */
  private record WeightedRows(List<GraphRow> rows, Map<Long, long[]> keysOf, Map<Long, Integer> start,
      Map<Long, Double> weightOf, double[] load, double heaviest) {}

  /**
   * Keys of a row of one of {@code communities} communities of {@code width} keys each: {@code minLen} plus up to
   * {@code spread} − 1 of them, each one in {@code sharedOneIn} from {@code sharedRange} keys shared by all from
   * {@code sharedBase}.
   */
  private static java.util.function.Supplier<long[]> communityKeys(Random rnd, int communities, int minLen,
      int spread, int sharedOneIn, int width, long sharedBase, int sharedRange) {
    return () -> {
      int community = rnd.nextInt(communities);
      long[] keys = new long[minLen + rnd.nextInt(spread)];
      for (int j = 0; j < keys.length; j++) {
        keys[j] = rnd.nextInt(sharedOneIn) == 0 ? sharedBase + rnd.nextInt(sharedRange)
            : community * (long) width + rnd.nextInt(width);
      }
      return keys;
    };
  }

  /** n rows of ids {@code idOf}, keys {@code keys} and weights 1 to 12 from {@code rnd}, in k parts by weight. */
  private static WeightedRows weightedRows(int n, int k, java.util.function.IntToLongFunction idOf,
      java.util.function.Supplier<long[]> keys, Random rnd) {
    List<GraphRow> rows = new ArrayList<>();
    Map<Long, long[]> keysOf = new HashMap<>();
    Map<Long, Integer> start = new HashMap<>();
    Map<Long, Double> weightOf = new HashMap<>();
    double[] load = new double[k];
    double heaviest = 0;
    for (int i = 0; i < n; i++) {
      long id = idOf.applyAsLong(i);
      long[] ks = keys.get();
      GraphRow row = TestData.libsvmRow(id, ks);
      double w = 1 + rnd.nextInt(12);
      row.setWeight(w);
      heaviest = Math.max(heaviest, w);
      rows.add(row);
      keysOf.put(id, ks);
      weightOf.put(id, w);
      int p = 0;
      for (int q = 1; q < k; q++) {
        p = load[q] < load[p] ? q : p;
      }
      start.put(id, p);
      load[p] += w;
    }
    return new WeightedRows(rows, keysOf, start, weightOf, load, heaviest);
  }

  /**
   * Group V-cycles alone (no swap rounds before them): rows of scrambled communities, k = 6 in groups of 3 and k = 5
   * in groups of 2 (one part in no group each cycle). Every row once, rows per part the same multiset, M_max never
   * higher, T_sum lower, and the reported working sets exact (the tool also checks them against a count job).
   */
  @Test
  void groupVCyclesLowerTheTotalAndKeepBalance() throws Exception {
    Random rnd = new Random(17);
    FileSystem fs = FileSystem.getLocal(conf);
    int[][] shapes = {{6, 3, 240}, {5, 2, 203}};
    for (int[] shape : shapes) {
      int k = shape[0];
      int n = shape[2];
      Path dir = TestData.tempDir("mr-group");
      List<GraphRow> rows = new ArrayList<>();
      Map<Long, long[]> keysOf = new HashMap<>();
      Map<Long, Integer> start = new HashMap<>();
      for (int i = 0; i < n; i++) {
        long id = 13L * i + 5;
        int community = rnd.nextInt(k);
        long[] keys = new long[2 + rnd.nextInt(5)];
        for (int j = 0; j < keys.length; j++) {
          keys[j] = rnd.nextInt(8) == 0 ? 9_000 + rnd.nextInt(20) : community * 30L + rnd.nextInt(30);
        }
        rows.add(TestData.libsvmRow(id, keys));
        keysOf.put(id, keys);
        start.put(id, i % k); // blind to the communities
      }
      TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, 3);
      TestData.writeAlignedUAssignment(fs, new Path(dir, "u"), rows, 3, start);
      Path out = new Path(dir, "refined");
      assertEquals(0, ToolRunner.run(conf, new RefineUTool(), new String[] {"--blocks",
          new Path(dir, "blocks").toString(), "--u-assignment", new Path(dir, "u").toString(), "--output",
          out.toString(), "--k", String.valueOf(k), "--mode", "mapreduce", "--rounds", "0", "--starts", "given", "--multilevel", "off",
          "--vcycles", "2", "--capped-vcycles", "1", "--group-size", String.valueOf(shape[1]), "--reducers", "2"}));
      Map<Long, Integer> refined = RefineUToolTest.readParts(fs, out);
      assertEquals(start.keySet(), refined.keySet(), "every row once");
      long[] sizesBefore = sizes(start, k);
      long[] sizesAfter = sizes(refined, k);
      java.util.Arrays.sort(sizesBefore);
      java.util.Arrays.sort(sizesAfter);
      assertArrayEquals(sizesBefore, sizesAfter, "rows per part: the same multiset");
      long[] before = workingSetsPerPart(keysOf, start, k);
      long[] after = workingSetsPerPart(keysOf, refined, k);
      JsonNode report = JsonFiles.MAPPER.readTree(fs.open(new Path(out, "_refine.json")));
      for (int i = 0; i < k; i++) {
        assertEquals(after[i], report.get("workingSets").get(i).asLong(), "exact working set of part " + i);
      }
      assertTrue(java.util.Arrays.stream(after).max().getAsLong() <= java.util.Arrays.stream(before).max().getAsLong(),
          java.util.Arrays.toString(before) + " -> " + java.util.Arrays.toString(after));
      long sumBefore = java.util.Arrays.stream(before).sum();
      long sumAfter = java.util.Arrays.stream(after).sum();
      assertTrue(sumAfter < sumBefore, "k=" + k + ": sum of working sets " + sumBefore + " -> " + sumAfter);
      int cycles = 0;
      long moved = 0;
      for (JsonNode r : report.get("rounds")) {
        assertTrue(r.has("groupVCycle"), "no swap rounds were asked for: " + r);
        assertEquals(shape[1], r.get("groupSize").asInt());
        if (r.get("kept").asBoolean()) {
          assertTrue(r.get("objectiveChangePercent").asDouble() < 0, r.toString());
          moved += r.get("rowsMoved").asLong();
        }
        cycles++;
      }
      assertTrue(cycles >= 1 && cycles <= 3, report.toString());
      assertTrue(report.get("rounds").get(0).get("phase").asText().startsWith("V-cycles before"), report.toString());
      long changed = start.keySet().stream().filter(id -> !start.get(id).equals(refined.get(id))).count();
      assertTrue(changed > 0 && changed <= moved, changed + " rows in another part, " + moved + " moves reported");
      assertEquals(0, fs.listStatus(dir, p -> p.getName().startsWith(".")).length, "work and temp dirs removed");
    }
  }

  /**
   * Each cycle's groups: ⌈k/g⌉ groups whose sizes differ by at most one, every part in one of them (a part alone in its
   * group in none), new each cycle.
   */
  @Test
  void groupingsCoverThePartsAndChangeFromCycleToCycle() {
    for (int[] kg : new int[][] {{16, 2}, {16, 4}, {7, 2}, {7, 3}, {5, 5}, {2, 2}, {3, 2}}) {
      int k = kg[0];
      int g = kg[1];
      Set<String> seen = new HashSet<>();
      for (int cycle = 1; cycle <= 4; cycle++) {
        int[] groupOf = MrRefinement.grouping(k, g, cycle);
        Map<Integer, Integer> members = new HashMap<>();
        int alone = 0;
        for (int gr : groupOf) {
          if (gr < 0) {
            alone++;
          } else {
            members.merge(gr, 1, Integer::sum);
          }
        }
        int groups = (k + g - 1) / g;
        for (int size : members.values()) {
          assertTrue(size >= Math.max(2, k / groups) && size <= (k + groups - 1) / groups,
              "k=" + k + " g=" + g + ": a group of " + size);
        }
        assertEquals(groups, members.size() + alone, "k=" + k + " g=" + g);
        assertEquals(k, members.values().stream().mapToInt(Integer::intValue).sum() + alone);
        assertTrue(alone <= 1 && (alone == 0 || k / groups == 1), "k=" + k + " g=" + g);
        seen.add(java.util.Arrays.toString(groupOf));
      }
      if (k >= 7) {
        assertTrue(seen.size() > 1, "k=" + k + " g=" + g + ": the same groups every cycle");
      }
    }
  }

  /**
   * The default group size: the largest group whose share of the rows fits a reducer's heap, read from the job
   * configuration; 0 (the swap rounds alone) where not even two parts fit.
   */
  @Test
  void groupSizeFollowsTheReducersHeap() {
    // news20-like: 18,846 rows, 1.6 M (row, key) pairs, 53,975 keys, M_max 29,000; k = 16
    long rows = 18_846;
    long pairs = 1_600_000;
    long keys = 53_975;
    long mMax = 29_000;
    int small = MrRefinement.groupSizeFor(64L << 20, 16, rows, pairs, keys, mMax);
    int large = MrRefinement.groupSizeFor(1L << 30, 16, rows, pairs, keys, mMax);
    assertTrue(small >= 2 && small < large, small + " parts in 64 MiB, " + large + " in 1 GiB");
    assertEquals(16, MrRefinement.groupSizeFor(8L << 30, 16, rows, pairs, keys, mMax), "everything fits 8 GiB");
    assertEquals(0, MrRefinement.groupSizeFor(1L << 20, 16, rows, pairs, keys, mMax), "not two parts in 1 MiB");
    for (long heap = 16L << 20; heap <= (2L << 30); heap *= 2) {
      int g = MrRefinement.groupSizeFor(heap, 16, rows, pairs, keys, mMax);
      if (g >= 2) {
        double share = (double) g / 16;
        long need = RefineUTool.heapNeeded((long) (rows * share), (long) (pairs * share), Math.min(keys, g * mMax), g)
            + (long) (16 * pairs * share);
        assertTrue(need <= heap, "g=" + g + " needs " + need + " > " + heap);
      }
    }
    Configuration yarn = new Configuration(false);
    yarn.set("mapreduce.framework.name", "yarn");
    yarn.set("mapreduce.reduce.java.opts", "-Djava.net.preferIPv4Stack=true -Xmx768m");
    assertEquals(768L << 20, Jobs.reducerHeapBytes(yarn));
    yarn.unset("mapreduce.reduce.java.opts");
    yarn.setInt("mapreduce.reduce.memory.mb", 2048);
    assertEquals((long) (2048 * 0.8) << 20, Jobs.reducerHeapBytes(yarn));
  }

  /** {@link #communityRowsInTwoBlocks(String, long, int, long, int)} of 160 rows. */
  private TwoBlocks communityRowsInTwoBlocks(String name, long seed, int k, long hugeId) throws IOException {
    return communityRowsInTwoBlocks(name, seed, k, hugeId, 160);
  }

  /**
   * {@code n} rows (ids 0, 3, 6, ...) of three keys from one of k communities of 40 keys (n / 4 from 160 rows on),
   * except row {@code hugeId} (−1: none) with 5,000 keys of its own, started round robin over the parts, written to a
   * new local directory {@code dir}/blocks in two blocks (rows alternating) with their aligned U in {@code dir}/u.
   */
  private TwoBlocks communityRowsInTwoBlocks(String name, long seed, int k, long hugeId, int n) throws IOException {
    FileSystem fs = FileSystem.getLocal(conf);
    Path dir = TestData.tempDir(name);
    Random rnd = new Random(seed);
    List<GraphRow> rows = new ArrayList<>();
    Map<Long, Integer> start = new HashMap<>();
    int spread = Math.max(40, n / 4);
    for (int i = 0; i < n; i++) {
      long id = 3L * i;
      int community = rnd.nextInt(k);
      long[] keys = new long[id == hugeId ? 5000 : 3];
      for (int j = 0; j < keys.length; j++) {
        keys[j] = id == hugeId ? 1000 + j : community * (long) spread + rnd.nextInt(spread);
      }
      rows.add(TestData.libsvmRow(id, keys));
      start.put(id, i % k);
    }
    TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, 2);
    TestData.writeAlignedUAssignment(fs, new Path(dir, "u"), rows, 2, start);
    return new TwoBlocks(fs, dir, rows, start);
  }

  /** The rows of {@link #communityRowsInTwoBlocks}, their start, and where they were written. */
  private record TwoBlocks(FileSystem fs, Path dir, List<GraphRow> rows, Map<Long, Integer> start) {}

  /**
   * Reducers too small for two parts' rows: a warning, and the rounds refine each block's rows among all parts with the
   * other rows fixed (chunk rounds), still a refined assignment.
   */
  @Test
  void withoutRoomForTwoPartsTheRoundsRunInChunks() throws Exception {
    int k = 4;
    TwoBlocks t = communityRowsInTwoBlocks("mr-group-fallback", 23, k, -1);
    FileSystem fs = t.fs();
    Path dir = t.dir();
    List<GraphRow> rows = t.rows();
    Map<Long, Integer> start = t.start();
    Path out = new Path(dir, "refined");
    Configuration tiny = new Configuration(conf);
    tiny.set("mapreduce.framework.name", "local");
    // the local runner's heap shared by a million reducers: a few KiB each
    tiny.setInt(io.parsa.jobs.common.LocalJobs.LOCAL_REDUCES, 1 << 20);
    assertEquals(0, ToolRunner.run(tiny, new RefineUTool(), new String[] {"--blocks",
        new Path(dir, "blocks").toString(), "--u-assignment", new Path(dir, "u").toString(), "--output",
        out.toString(), "--k", String.valueOf(k), "--mode", "mapreduce", "--rounds", "2", "--starts", "given",
        "--multilevel", "off"}));
    JsonNode report = JsonFiles.MAPPER.readTree(fs.open(new Path(out, "_refine.json")));
    assertTrue(report.get("rounds").size() > 0, report.toString());
    assertEquals("chunks", report.get("distributedRounds").asText());
    for (JsonNode r : report.get("rounds")) {
      assertEquals("chunk round", r.path("phase").asText(), "chunk rounds only: " + r);
    }
    assertEquals(rows.size(), Jobs.readAvroDir(fs, out, UAssignment.class).size());
  }

  /**
   * A row whose keys alone outgrow a slice's budget ({@link ChunkReducer#SLICE_BYTES}; the generated 3·10^7-non-zero
   * set had a row of 1.3·10^6 keys): the chunk rounds refine every other row and leave that one in its part, each
   * round reports it (rowsTooLarge), and every row is kept once with the rows per part unchanged.
   */
  @Test
  void aRowTooLargeForASliceStaysInItsPart() throws Exception {
    int k = 4;
    long hugeId = 3L * 37;
    TwoBlocks t = communityRowsInTwoBlocks("mr-chunk-huge-row", 29, k, hugeId);
    Map<Long, Integer> start = t.start();
    Configuration c = new Configuration(conf);
    long budget = 200_000;
    assertTrue(ChunkReducer.sliceBytes(1, 5000, k, true) > budget, "the huge row fits a slice: no test");
    assertTrue(ChunkReducer.sliceBytes(80, 240, k, true) <= budget, "a block's other rows do not fit a slice");
    c.setLong(ChunkReducer.SLICE_BYTES, budget);
    Map.Entry<Map<Long, Integer>, JsonNode> run = chunkRounds(c, t, k, "refined");
    for (JsonNode r : chunkRoundsOf(run.getValue())) {
      assertEquals(1, r.path("rowsTooLarge").asInt(), r.toString());
    }
    Map<Long, Integer> refined = run.getKey();
    assertEquals(start.get(hugeId), refined.get(hugeId), "the huge row stayed in its part");
    assertTrue(start.entrySet().stream().anyMatch(e -> !e.getValue().equals(refined.get(e.getKey()))),
        "no row moved");
  }

  /**
   * The chunk rounds of {@code t} with 2 rounds at p = 8 and 1 (no V-cycles) under configuration {@code c}, every row
   * kept once with the rows per part unchanged: the refined parts and the report.
   */
  private Map.Entry<Map<Long, Integer>, JsonNode> chunkRounds(Configuration c, TwoBlocks t, int k, String out)
      throws Exception {
    Path o = new Path(t.dir(), out);
    assertEquals(0, ToolRunner.run(c, new RefineUTool(), new String[] {"--blocks",
        new Path(t.dir(), "blocks").toString(), "--u-assignment", new Path(t.dir(), "u").toString(), "--output",
        o.toString(), "--k", String.valueOf(k), "--mode", "mapreduce", "--rounds", "2", "--starts", "given",
        "--multilevel", "off", "--distributed-rounds", "chunks", "--vcycles", "0", "--capped-vcycles", "0"}));
    JsonNode report = JsonFiles.MAPPER.readTree(t.fs().open(new Path(o, "_refine.json")));
    Map<Long, Integer> refined = RefineUToolTest.readParts(t.fs(), o);
    assertEquals(t.start().keySet(), refined.keySet(), "every row once");
    assertArrayEquals(sizes(t.start(), k), sizes(refined, k), "rows per part unchanged");
    return Map.entry(refined, report);
  }

  /** The chunk rounds' entries of a refine-u report. */
  private static List<JsonNode> chunkRoundsOf(JsonNode report) {
    List<JsonNode> rounds = new ArrayList<>();
    for (JsonNode r : report.get("rounds")) {
      if (r.path("phase").asText().equals("chunk round")) {
        rounds.add(r);
      }
    }
    assertTrue(!rounds.isEmpty(), report.toString());
    return rounds;
  }

  /**
   * A block too large for a task's heap ({@link ChunkReducer#HEAP_BYTES}, here room for about 1,250 of a block's 1,500
   * rows at p = 1, where a slice holds its V-cycle too) is cut into the slices its plan gives, whatever the heap holds
   * besides: two runs, the second with 256 MiB more of the JVM's heap in use, cut the same slices, make the same moves,
   * and end on the same parts.
   */
  @Test
  void aTaskCutsTheSameSlicesWhateverElseItsHeapHolds() throws Exception {
    int k = 4;
    TwoBlocks t = communityRowsInTwoBlocks("mr-chunk-planned-slices", 31, k, -1, 3000);
    Configuration c = new Configuration(conf);
    long heap = (2 * ChunkReducer.sliceBytes(1250, 3750, k, true) + (256 << 10)) * ChunkReducer.RESERVE_SHARE
        / (ChunkReducer.RESERVE_SHARE - 1);
    c.setLong(ChunkReducer.HEAP_BYTES, heap);
    Map.Entry<Map<Long, Integer>, JsonNode> first = chunkRounds(c, t, k, "first");
    long[] ballast = new long[32 << 20];
    java.util.Arrays.fill(ballast, 7);
    Map.Entry<Map<Long, Integer>, JsonNode> second = chunkRounds(c, t, k, "second");
    assertEquals(7 * ballast.length, java.util.Arrays.stream(ballast).sum()); // held through the second run
    List<JsonNode> a = chunkRoundsOf(first.getValue());
    List<JsonNode> b = chunkRoundsOf(second.getValue());
    assertEquals(a.size(), b.size());
    assertTrue(a.stream().anyMatch(r -> r.get("exponent").asDouble() == 1 && r.get("slices").asLong() > 2),
        "the two blocks not cut at p = 1: " + a);
    for (int i = 0; i < a.size(); i++) {
      assertFalse(a.get(i).has("cutsByMeasure"), a.get(i).toString());
      assertEquals(a.get(i).get("slices"), b.get(i).get("slices"), b.get(i).toString());
      assertEquals(a.get(i).get("rowsMoved"), b.get(i).get("rowsMoved"), b.get(i).toString());
    }
    assertEquals(first.getKey(), second.getKey(), "the two runs' parts");
    assertTrue(t.start().entrySet().stream().anyMatch(e -> !e.getValue().equals(first.getKey().get(e.getKey()))),
        "no row moved");
  }

  /**
   * Where a task's plan promises more heap than it has ({@link ChunkReducer#HEAP_BYTES} far above the JVM's), the
   * heap measured after a collection cuts the slices, and every chunk round reports it (cutsByMeasure).
   */
  @Test
  void aPlanAboveTheMeasuredHeapGivesWayAndIsReported() throws Exception {
    int k = 4;
    TwoBlocks t = communityRowsInTwoBlocks("mr-chunk-measured-slices", 37, k, -1);
    Configuration c = new Configuration(conf);
    c.setLong(ChunkReducer.HEAP_BYTES, Long.MAX_VALUE / 4);
    for (JsonNode r : chunkRoundsOf(chunkRounds(c, t, k, "refined").getValue())) {
      assertTrue(r.path("cutsByMeasure").asLong() >= 1, r.toString());
    }
  }

  /**
   * A chunk job with a part frozen for every block but one ({@link ChunkReducer#PART_OWNERS}, set here as the driver's
   * frozen retry sets it, {@link MrRefinement#FREEZE_MAX}): k = 3 and two blocks, the part holding a row of 5,000 keys
   * frozen, block 0 its owner. Block 1's rows in it stay there (rowsFrozen), none of block 1's rows enters it, and the
   * rest of the rows are still refined.
   */
  @Test
  void aChunkJobLetsOneBlockChangeAFrozenPart() throws Exception {
    int k = 3;
    long hugeId = 3L; // row 1: block 1 (rows alternate between the two blocks), part 1
    TwoBlocks t = communityRowsInTwoBlocks("mr-chunk-frozen", 41, k, hugeId);
    FileSystem fs = t.fs();
    Map<Long, Integer> start = t.start();
    int hot = start.get(hugeId);
    Path out = new Path(t.dir(), "refined");
    Configuration c = new Configuration(conf);
    int[] owners = new int[k];
    java.util.Arrays.fill(owners, -1);
    owners[hot] = 0;
    c.setStrings(ChunkReducer.PART_OWNERS, java.util.Arrays.stream(owners).mapToObj(Integer::toString)
        .toArray(String[]::new));
    assertEquals(0, ToolRunner.run(c, new RefineUTool(), new String[] {"--blocks",
        new Path(t.dir(), "blocks").toString(), "--u-assignment", new Path(t.dir(), "u").toString(), "--output",
        out.toString(), "--k", String.valueOf(k), "--mode", "mapreduce", "--rounds", "1", "--schedule", "1",
        "--starts", "given", "--multilevel", "off", "--distributed-rounds", "chunks", "--vcycles", "0",
        "--capped-vcycles", "0"}));
    JsonNode report = JsonFiles.MAPPER.readTree(fs.open(new Path(out, "_refine.json")));
    JsonNode round = null;
    for (JsonNode r : report.get("rounds")) {
      if (r.path("phase").asText().equals("chunk round")) {
        round = r;
      }
    }
    assertTrue(round != null && round.get("kept").asBoolean() && !round.has("repair"), report.toString());
    Map<Long, Integer> refined = RefineUToolTest.readParts(fs, out);
    assertEquals(start.keySet(), refined.keySet(), "every row once");
    assertArrayEquals(sizes(start, k), sizes(refined, k), "rows per part unchanged");
    long held = 0;
    long movedInBlock1 = 0;
    for (int i = 1; i < t.rows().size(); i += 2) { // block 1
      long id = t.rows().get(i).getId();
      assertEquals(start.get(id) == hot, refined.get(id) == hot, "row " + id + " of block 1 in or out of part " + hot);
      held += start.get(id) == hot ? 1 : 0;
      movedInBlock1 += start.get(id).equals(refined.get(id)) ? 0 : 1;
    }
    assertEquals(held, round.get("rowsFrozen").asLong(), round.toString());
    assertTrue(movedInBlock1 > 0, "block 1 moved none of its other rows");
    assertTrue(round.get("maxWorkingSet").asLong() <= report.get("startMaxWorkingSet").asLong(), report.toString());
  }

  /**
   * 300 rows of four communities with some shared keys in three blocks, each row's part its index mod {@code k} (into
   * {@code start}): with a task per block, a p = 1 chunk job's blocks meet on the largest part here.
   */
  private Path blocksThatMeet(String name, int k, Map<Long, Integer> start) throws IOException {
    FileSystem fs = FileSystem.getLocal(conf);
    Random rnd = new Random(3);
    List<GraphRow> rows = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      long id = 3L * i;
      int community = rnd.nextInt(k);
      long[] keys = new long[2 + rnd.nextInt(4)];
      for (int j = 0; j < keys.length; j++) {
        keys[j] = rnd.nextInt(5) == 0 ? 50_000 + rnd.nextInt(60) : community * 1000L + rnd.nextInt(40);
      }
      rows.add(TestData.libsvmRow(id, keys));
      start.put(id, i % k);
    }
    Path dir = TestData.tempDir(name);
    TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, 3);
    TestData.writeAlignedUAssignment(fs, new Path(dir, "u"), rows, 3, start);
    return dir;
  }

  /**
   * The blocks that meet above, refined by one chunk task ({@link MrRefinement#CHUNK_TASKS}): it refines them in turn,
   * each seeing the moves of those before it, so they cannot meet. Every job's count of the change of Σ M_i is the
   * count job's measure (the driver checks it), no try lifts M_max or is retried or repaired, and every row stays
   * once, rows per part unchanged.
   */
  @Test
  void oneChunkTaskRefinesItsBlocksInTurnAndCountsExactly() throws Exception {
    FileSystem fs = FileSystem.getLocal(conf);
    int k = 4;
    Map<Long, Integer> start = new HashMap<>();
    Path dir = blocksThatMeet("mr-chunk-one-task", k, start);
    Path out = new Path(dir, "refined");
    Configuration c = new Configuration(conf);
    c.setInt(MrRefinement.CHUNK_TASKS, 1);
    assertEquals(0, ToolRunner.run(c, new RefineUTool(), new String[] {"--blocks", new Path(dir, "blocks").toString(),
        "--u-assignment", new Path(dir, "u").toString(), "--output", out.toString(), "--k", String.valueOf(k),
        "--mode", "mapreduce", "--rounds", "2", "--schedule", "8,1", "--starts", "given", "--multilevel", "off",
        "--distributed-rounds", "chunks", "--vcycles", "0", "--capped-vcycles", "0"}));
    JsonNode report = JsonFiles.MAPPER.readTree(fs.open(new Path(out, "_refine.json")));
    long max = report.get("startMaxWorkingSet").asLong();
    int jobs = 0;
    for (JsonNode r : report.get("rounds")) {
      if (!r.path("phase").asText().equals("chunk round") || !r.has("sumWorkingSetChangeMeasured")) {
        continue;
      }
      jobs++;
      assertEquals(r.get("sumWorkingSetChangeMeasured"), r.get("sumWorkingSetChangeCounted"), r.toString());
      assertFalse(r.has("frozenRetry") || r.has("repair") || r.has("liftedTry"), r.toString());
      assertEquals(1.0, r.get("headroomShare").asDouble(), r.toString());
      assertTrue(r.get("maxWorkingSet").asLong() <= max, "a job lifted M_max: " + r);
      if (r.get("kept").asBoolean()) {
        max = r.get("maxWorkingSet").asLong();
        assertTrue(r.get("sumWorkingSetChangeMeasured").asLong() <= 0 || r.get("exponent").asDouble() > 1, r.toString());
      }
    }
    assertTrue(jobs >= 2, "fewer than two chunk jobs moved rows: " + report);
    Map<Long, Integer> refined = RefineUToolTest.readParts(fs, out);
    assertEquals(start.keySet(), refined.keySet(), "every row once");
    assertArrayEquals(sizes(start, k), sizes(refined, k), "rows per part unchanged");
  }

  /**
   * A p = 1 chunk job whose blocks met on the largest part (300 rows of four communities with some shared keys, three
   * blocks, k = 4, after two p = 8 jobs; found by a search over seeds): it lowered Σ M_i and lifted M_max, so it ran
   * again with that part frozen for all blocks but one, beside its repair job. The retry did not lift M_max; both were
   * candidates, the round kept the one better by the balanced rule, with that one's figures, and reports the try.
   * Where the retry kept enough of the try's gain the repair is skipped and the retry is the round's result; where it
   * kept enough for {@link MrRefinement#FREEZE_AHEAD}, the next p = 1 round's try freezes the parts at M_max from the
   * start (with the next owner); none does below that share or after a kept repair.
   */
  @Test
  void aP1ChunkJobThatLiftedMmaxIsRetriedWithThePartFrozenBesideItsRepair() throws Exception {
    FileSystem fs = FileSystem.getLocal(conf);
    int k = 4;
    Map<Long, Integer> start = new HashMap<>();
    Path dir = blocksThatMeet("mr-chunk-lift", k, start);
    // the retry and the repair side by side (parsa.refine.concurrent-candidates) and one after the other: the same
    // result; in turn with the repair skipped wherever the retry is kept: the retry's result
    Path out = new Path(dir, "refined");
    Path inTurn = new Path(dir, "refined-in-turn");
    Path retryOnly = new Path(dir, "refined-retry-only");
    Path retryNotAhead = new Path(dir, "refined-retry-not-ahead");
    for (Path o : new Path[] {out, inTurn, retryOnly, retryNotAhead}) {
      Configuration c = new Configuration(conf);
      c.setInt(MrRefinement.CHUNK_TASKS, 3); // a task per block: the blocks are refined at once and meet
      c.setBoolean(MrRefinement.CONCURRENT_CANDIDATES, o == out);
      c.setDouble(MrRefinement.REPAIR_UNLESS_RETRY_KEEPS, o == retryOnly || o == retryNotAhead ? 0 : 2);
      if (o == retryOnly) {
        c.setDouble(MrRefinement.FREEZE_AHEAD, 0.5); // the retry here holds 80 % of the try's gain
      }
      assertEquals(0, ToolRunner.run(c, new RefineUTool(), new String[] {"--blocks",
          new Path(dir, "blocks").toString(), "--u-assignment", new Path(dir, "u").toString(), "--output",
          o.toString(), "--k", String.valueOf(k), "--mode", "mapreduce", "--rounds", "2", "--schedule", "8,1",
          "--starts", "given", "--multilevel", "off", "--distributed-rounds", "chunks", "--vcycles", "0",
          "--capped-vcycles", "0"}));
    }
    JsonNode report = JsonFiles.MAPPER.readTree(fs.open(new Path(out, "_refine.json")));
    JsonNode reportInTurn = JsonFiles.MAPPER.readTree(fs.open(new Path(inTurn, "_refine.json")));
    for (String figure : new String[] {"workingSets", "sumTraffic"}) {
      assertEquals(report.get(figure), reportInTurn.get(figure), figure);
    }
    assertEquals(RefineUToolTest.readParts(fs, out), RefineUToolTest.readParts(fs, inTurn), "the same assignment");
    long before = -1;
    JsonNode lifted = null;
    for (JsonNode r : report.get("rounds")) {
      if (r.has("frozenRetry")) {
        lifted = r;
        break;
      }
      if (r.get("kept").asBoolean()) {
        before = r.get("maxWorkingSet").asLong();
      }
    }
    assertTrue(lifted != null && before > 0, "no p = 1 job lifted M_max here: " + report);
    assertEquals(1.0, lifted.get("exponent").asDouble(), lifted.toString());
    assertTrue(lifted.get("liftedTry").get("maxWorkingSet").asLong() > before, lifted.toString());
    JsonNode retry = lifted.get("frozenRetry");
    JsonNode repair = lifted.get("repair");
    assertTrue(retry.get("maxWorkingSet").asLong() <= before, "the frozen retry lifted M_max: " + lifted);
    assertTrue(retry.get("rowsFrozen").asLong() > 0 && retry.get("frozenParts").size() > 0, lifted.toString());
    assertTrue(retry.get("kept").asBoolean() && repair.get("kept").asBoolean(), lifted.toString());
    // the balanced rule between the two: M_max / least + T_sum / least
    double m = Math.min(retry.get("maxWorkingSet").asDouble(), repair.get("maxWorkingSet").asDouble());
    double t = Math.min(retry.get("sumTraffic").asDouble(), repair.get("sumTraffic").asDouble());
    double retryScore = retry.get("maxWorkingSet").asDouble() / m + retry.get("sumTraffic").asDouble() / t;
    double repairScore = repair.get("maxWorkingSet").asDouble() / m + repair.get("sumTraffic").asDouble() / t;
    String by = repairScore < retryScore ? "repair" : "frozen retry";
    assertEquals(by, lifted.get("keptBy").asText(), lifted.toString());
    JsonNode kept = by.equals("repair") ? repair : retry;
    assertTrue(lifted.get("kept").asBoolean(), lifted.toString());
    assertEquals(kept.get("maxWorkingSet").asLong(), lifted.get("maxWorkingSet").asLong(), lifted.toString());
    assertEquals(kept.get("sumTraffic").asLong(), lifted.get("sumTraffic").asLong(), lifted.toString());
    Map<Long, Integer> refined = RefineUToolTest.readParts(fs, out);
    assertEquals(start.keySet(), refined.keySet(), "every row once");
    assertArrayEquals(sizes(start, k), sizes(refined, k), "rows per part unchanged");

    // the repair kept: the later p = 1 tries are not frozen
    boolean after = false;
    for (JsonNode r : report.get("rounds")) {
      after |= r == lifted;
      assertFalse(r.has("frozenAhead") && !(after && by.equals("frozen retry")), r.toString());
    }

    // the repair skipped: the same try and retry, the retry kept as the round's result
    JsonNode alone = null;
    JsonNode ahead = null;
    for (JsonNode r : JsonFiles.MAPPER.readTree(fs.open(new Path(retryOnly, "_refine.json"))).get("rounds")) {
      if (alone != null && r.get("exponent").asDouble() == 1.0) {
        ahead = r;
        break;
      }
      assertFalse(r.has("frozenAhead"), r.toString());
      if (r.has("frozenRetry")) {
        alone = r;
      }
    }
    assertTrue(alone != null, "no frozen retry in turn");
    // the next p = 1 round's try froze the parts at M_max from the start, the owner turning from the retry's
    double share = alone.get("repair").get("retryShareOfTheTrysGain").asDouble();
    assertTrue(share >= 0.5 && share < MrRefinement.DEFAULT_FREEZE_AHEAD, alone.toString());
    assertTrue(alone.get("freezeAhead").asBoolean(), alone.toString());
    assertTrue(ahead != null, "no p = 1 round after the kept retry");
    JsonNode a = ahead.get("frozenAhead");
    assertTrue(a != null && a.get("frozenParts").size() > 0 && ahead.get("rowsFrozen").asLong() > 0, ahead.toString());
    assertEquals((alone.get("frozenRetry").get("frozenOwner").asInt() + 1) % 3, a.get("frozenOwner").asInt(),
        ahead.toString());
    assertTrue(!ahead.get("kept").asBoolean()
        || ahead.get("maxWorkingSet").asLong() <= alone.get("maxWorkingSet").asLong(), ahead.toString());
    assertEquals(lifted.get("liftedTry"), alone.get("liftedTry"), alone.toString());
    assertEquals(retry, alone.get("frozenRetry"), alone.toString());
    JsonNode skipped = alone.get("repair");
    assertTrue(skipped.get("skipped").asBoolean() && !skipped.has("maxWorkingSet"), alone.toString());
    assertTrue(skipped.get("retryShareOfTheTrysGain").asDouble() > 0, alone.toString());
    assertEquals("frozen retry", alone.get("keptBy").asText(), alone.toString());
    assertEquals(retry.get("maxWorkingSet"), alone.get("maxWorkingSet"), alone.toString());
    assertEquals(retry.get("sumTraffic"), alone.get("sumTraffic"), alone.toString());
    Map<Long, Integer> retried = RefineUToolTest.readParts(fs, retryOnly);
    assertEquals(start.keySet(), retried.keySet(), "every row once");
    assertArrayEquals(sizes(start, k), sizes(retried, k), "rows per part unchanged");

    // at the default share a retry that held 80 % of the try's gain freezes nothing ahead: the next round tries unfrozen
    boolean seen = false;
    for (JsonNode r : JsonFiles.MAPPER.readTree(fs.open(new Path(retryNotAhead, "_refine.json"))).get("rounds")) {
      assertFalse(r.has("frozenAhead"), r.toString());
      if (r.has("frozenRetry")) {
        assertEquals(alone.get("frozenRetry"), r.get("frozenRetry"), r.toString());
        assertFalse(r.get("freezeAhead").asBoolean(), r.toString());
        seen = true;
      }
    }
    assertTrue(seen, "no frozen retry at the default share");
  }

  /**
   * The count job applies a per-block job's moves in its maps (block b's in file b mod the files): the new assignment
   * in a directory of its own, measured as the count job measures a written one; a move from a part its row is not in
   * fails the job by name.
   */
  @Test
  void theCountJobAppliesTheMovesOfEachBlockFromItsOwnFile() throws Exception {
    FileSystem fs = FileSystem.getLocal(conf);
    int k = 3;
    List<GraphRow> rows = new ArrayList<>();
    Map<Long, Integer> start = new HashMap<>();
    for (int i = 0; i < 30; i++) {
      rows.add(TestData.libsvmRow(10L + i, i % 7, 100 + i % 5, 200 + i));
      start.put(10L + i, i % k);
    }
    Path dir = TestData.tempDir("mr-count-moves");
    TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, 3); // row i in block i % 3
    TestData.writeAlignedUAssignment(fs, new Path(dir, "u"), rows, 3, start);
    // two files: blocks 0 and 2 in part-r-00000, block 1 in part-r-00001; rows 10 (block 0) and 11 (block 1) swap
    // parts 0 and 1, row 12 (block 2) moves 2 -> 0 and row 13 (block 0) 0 -> 2
    Path moves = new Path(dir, "moves");
    long[][] mv = {{10, 0, 0, 1}, {11, 1, 1, 0}, {12, 2, 2, 0}, {13, 0, 0, 2}};
    writeMoves(fs, moves, 2, mv);
    MrRefinement mr = new MrRefinement(conf, "test", new Path(dir, "blocks"), new Path(dir, "work"), k, 2);
    MrRefinement.Measure before = mr.count(new Path(dir, "u"));
    MrRefinement.Measure after = mr.count(new Path(dir, "u"), moves, 2, mv.length);
    Map<Long, Integer> expected = new HashMap<>(start);
    for (long[] m : mv) {
      expected.put(m[0], (int) m[3]);
    }
    assertEquals(expected, RefineUToolTest.readParts(fs, after.u()), "every move applied, every row once");
    assertNotEquals(new Path(dir, "u"), after.u());
    assertEquals(start, RefineUToolTest.readParts(fs, new Path(dir, "u")), "the start untouched");
    assertArrayEquals(before.rows(), after.rows(), "swaps keep the rows per part");
    MrRefinement.Measure written = mr.count(after.u());
    assertArrayEquals(written.workingSets(), after.workingSets(), "measured as the written assignment");
    assertEquals(written.keys(), after.keys());

    Path stale = new Path(dir, "stale");
    writeMoves(fs, stale, 2, new long[][] {{10, 0, 1, 2}}); // row 10 is in part 0, not 1
    Exception e = assertThrows(Exception.class, () -> mr.count(new Path(dir, "u"), stale, 2, 1));
    assertTrue(e.getMessage().contains("STALE_MOVE"), e.getMessage());
  }

  /** Moves {row, block, from, to} written as a per-block job over {@code files} reducers writes them. */
  private static void writeMoves(FileSystem fs, Path dir, int files, long[][] moves) throws IOException {
    for (int f = 0; f < files; f++) {
      try (org.apache.hadoop.io.SequenceFile.Writer w = org.apache.hadoop.io.SequenceFile.createWriter(fs.getConf(),
          org.apache.hadoop.io.SequenceFile.Writer.file(BlockPartitioner.fileOf(dir, f, files)),
          org.apache.hadoop.io.SequenceFile.Writer.keyClass(org.apache.hadoop.io.IntWritable.class),
          org.apache.hadoop.io.SequenceFile.Writer.valueClass(Move.class))) {
        for (long[] m : moves) {
          if (m[1] % files == f) {
            w.append(new org.apache.hadoop.io.IntWritable((int) m[1]),
                new Move().set(m[0], (int) m[1], (int) m[2], (int) m[3]));
          }
        }
      }
    }
  }

  /**
   * A frozen retry freezes the parts at the start's M_max and those the lifted try took above it; with room above
   * M_max, only those the try took above the room.
   */
  @Test
  void aFrozenRetryFreezesThePartsAtAndAboveTheStartsMmax() {
    assertArrayEquals(new int[] {1, 3}, MrRefinement.partsToFreeze(new long[] {5, 9, 7, 9}, new long[] {6, 8, 7, 9},
        9));
    assertArrayEquals(new int[] {0, 1, 2}, MrRefinement.partsToFreeze(new long[] {8, 9, 7, 6},
        new long[] {10, 9, 11, 9}, 0));
    assertArrayEquals(new int[] {2}, MrRefinement.partsToFreeze(new long[] {8, 9, 7, 6}, new long[] {10, 9, 11, 9},
        10));
  }

  @Test
  void mapreduceModeNeedsAnAlignedAssignment() throws Exception {
    assertUsageError(conf, "mr-refine-unaligned", false, "one file per block");
  }

  /**
   * Runs refine-u --mode mapreduce with {@code conf} on 20 rows in two blocks (the u-assignment aligned with them or,
   * if not {@code aligned}, one file) and asserts that it fails with {@code message} on stderr, writing nothing.
   */
  private static void assertUsageError(Configuration conf, String name, boolean aligned, String message)
      throws Exception {
    FileSystem fs = FileSystem.getLocal(conf);
    Path dir = TestData.tempDir(name);
    List<GraphRow> rows = new ArrayList<>();
    Map<Long, Integer> start = new HashMap<>();
    for (int i = 0; i < 20; i++) {
      rows.add(TestData.libsvmRow(i, i % 5, 100 + i % 3));
      start.put((long) i, i % 2);
    }
    TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, 2);
    if (aligned) {
      TestData.writeAlignedUAssignment(fs, new Path(dir, "u"), rows, 2, start);
    } else {
      TestData.writeUAssignment(fs, new Path(dir, "u"), start); // one file, not one per block
    }
    Path out = new Path(dir, "refined");
    java.io.PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(captured, true));
    int rc;
    try {
      rc = ToolRunner.run(conf, new RefineUTool(), new String[] {"--blocks", new Path(dir, "blocks").toString(),
          "--u-assignment", new Path(dir, "u").toString(), "--output", out.toString(), "--k", "2", "--mode",
          "mapreduce"});
    } finally {
      System.setErr(err);
    }
    assertNotEquals(0, rc);
    assertTrue(captured.toString().contains(message), captured.toString());
    assertTrue(!fs.exists(out));
  }

  /**
   * The MapReduce input-order start equals the in-memory one, for sparse ids spread over a huge range; with weights
   * (whole numbers, some rows heavier than a part's share) too.
   */
  @Test
  void orderStartMatchesTheInMemoryOne() throws Exception {
    Random rnd = new Random(5);
    FileSystem fs = FileSystem.getLocal(conf);
    // k, rows, files, weighted (0: no; else the heaviest weight)
    int[][] shapes = {{7, 200, 3, 0}, {2, 31, 2, 0}, {16, 500, 4, 0}, {7, 200, 3, 9}, {16, 500, 4, 40}, {5, 40, 2, 60},
        {8, 40, 2, 200}};
    for (int[] shape : shapes) {
      int k = shape[0];
      int n = shape[1];
      int files = shape[2];
      int heaviest = shape[3];
      Path dir = TestData.tempDir("mr-order");
      List<GraphRow> rows = new ArrayList<>();
      Set<Long> used = new HashSet<>();
      while (rows.size() < n) {
        // libsvm-like ids (file ordinal << 40 | line), a few huge ones
        long id = rnd.nextInt(10) == 0 ? Long.MAX_VALUE - rnd.nextInt(1000)
            : ((long) rnd.nextInt(3) << 40) + rnd.nextInt(5000);
        if (used.add(id)) {
          GraphRow row = TestData.libsvmRow(id, 1 + rnd.nextInt(50));
          if (heaviest > 0) {
            row.setWeight((double) (rnd.nextInt(10) == 0 ? heaviest : 1 + rnd.nextInt(3)));
          }
          rows.add(row);
        }
      }
      Path blocks = new Path(dir, "blocks");
      TestData.writeBlocks(fs, blocks, rows, files);
      Path out = new Path(dir, "order");
      long[] sizes = OrderStart.build(conf, "test", blocks, new Path(dir, "work"), out, k, n, heaviest > 0);
      List<io.parsa.engine.Block> bs = new ArrayList<>();
      for (Path f : io.parsa.yarn.io.BlockFiles.list(fs, blocks)) {
        io.parsa.yarn.io.BlockData d = io.parsa.yarn.io.BlockFiles.read(fs, f);
        bs.add(new io.parsa.engine.Block(d.rowIds, d.rowStart, d.rowKeys, d.weights));
      }
      int[][] expected = io.parsa.engine.URefinement.inputOrderStart(k, bs);
      long[] expectedSizes = new long[k];
      for (int b = 0; b < bs.size(); b++) {
        io.parsa.yarn.io.AssignmentFiles.Rows a = io.parsa.yarn.io.AssignmentFiles.read(fs,
            io.parsa.yarn.io.AssignmentFiles.fileFor(out, b));
        assertEquals(bs.get(b).numRows(), a.n);
        for (int r = 0; r < a.n; r++) {
          assertEquals(bs.get(b).rowId(r), a.ids[r]);
          assertEquals(expected[b][r], a.parts[r], "k=" + k + " row " + a.ids[r]);
          expectedSizes[expected[b][r]]++;
        }
      }
      assertArrayEquals(expectedSizes, sizes);
    }
  }

  /** Rows whose input order follows their communities: the distributed rounds start from the input order. */
  @Test
  void inputOrderWithLocalityIsTheStart() throws Exception {
    Random rnd = new Random(3);
    FileSystem fs = FileSystem.getLocal(conf);
    int k = 4;
    int n = 160;
    Path dir = TestData.tempDir("mr-refine-order");
    List<GraphRow> rows = new ArrayList<>();
    Map<Long, long[]> keysOf = new HashMap<>();
    Map<Long, Integer> start = new HashMap<>();
    for (int i = 0; i < n; i++) {
      long id = 10L * i; // input order = id order
      int community = i * k / n;
      long[] keys = new long[4];
      for (int j = 0; j < keys.length; j++) {
        keys[j] = community * 100L + rnd.nextInt(60);
      }
      rows.add(TestData.libsvmRow(id, keys));
      keysOf.put(id, keys);
      start.put(id, i % k); // blind
    }
    TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, 3);
    TestData.writeAlignedUAssignment(fs, new Path(dir, "u"), rows, 3, start);
    Path out = new Path(dir, "refined");
    assertEquals(0, ToolRunner.run(conf, new RefineUTool(), new String[] {"--blocks",
        new Path(dir, "blocks").toString(), "--u-assignment", new Path(dir, "u").toString(), "--output",
        out.toString(), "--k", "4", "--mode", "mapreduce", "--multilevel", "off", "--rounds", "2", "--vcycles", "0",
        "--capped-vcycles", "0"}));
    JsonNode report = JsonFiles.MAPPER.readTree(fs.open(new Path(out, "_refine.json")));
    assertEquals("order", report.get("start").asText(), report.toString());
    Map<Long, Integer> refined = new HashMap<>();
    for (UAssignment a : Jobs.readAvroDir(fs, out, UAssignment.class)) {
      refined.put(a.getId(), a.getPart());
    }
    long[] sizes = sizes(refined, k);
    for (long s : sizes) {
      assertEquals(n / k, s);
    }
    long given = java.util.Arrays.stream(workingSetsPerPart(keysOf, start, k)).sum();
    long after = java.util.Arrays.stream(workingSetsPerPart(keysOf, refined, k)).sum();
    // the input order is the planted partition: each part holds one community, whose keys are among 60
    assertTrue(after <= k * 60L && after * 2 < given, "sum of working sets " + given + " (blind start) -> " + after);
  }

  /**
   * The distributed multilevel start on communities that neither the start nor the input order shows (ids scrambled,
   * a blind start): clustered in groups of 2 of the k = 6 parts, placed in one reducer, balanced in groups. Every row
   * once, every part n/k rows, the start kept is the multilevel one, its T_sum at most half the blind start's, and the
   * report's working sets exact.
   */
  @Test
  void multilevelStartFindsScrambledCommunities() throws Exception {
    JsonNode ml = multilevelStartOnScrambledCommunities(conf, "mr-multilevel", 600).ml();
    assertEquals(1, ml.get("levels").asInt(), ml.toString());
    assertEquals(ml.get("clusters").asLong(), ml.get("placedClusters").asLong(), ml.toString());
  }

  /**
   * Weighted rows (weight 1 to 12) on communities that neither the start nor the input order shows, from a start
   * balanced by weight: the distributed multilevel start weighs its clusters by their rows' weights and balances the
   * projected parts into a window as wide as the heaviest row around the mean weight, by V-cycles of weighted rows
   * in groups, or by streaming flows that move weight (as where not even two parts fit a reducer). Either way it is
   * the start kept; every row once, the parts' weights at most the heaviest row apart at the end, `weightPerPart`
   * exact, and T_sum at most half the blind start's.
   */
  @Test
  void multilevelStartOfWeightedRowsBalancesTheirWeights() throws Exception {
    for (String balance : new String[] {"groups", "flows"}) {
      Random rnd = new Random(31);
      FileSystem fs = FileSystem.getLocal(conf);
      int k = 6;
      int n = 600;
      Path dir = TestData.tempDir("mr-multilevel-weighted-" + balance);
      // ids blind to the 2k communities of 50 keys, a twentieth of the keys from 40 shared ones, 3 to 6 keys a row
      WeightedRows wr = weightedRows(n, k, i -> (i * 7919L) % 100_003, communityKeys(rnd, 2 * k, 3, 4, 20, 50, 50_000,
          40), rnd);
      Map<Long, long[]> keysOf = wr.keysOf();
      Map<Long, Integer> start = wr.start();
      Map<Long, Double> weightOf = wr.weightOf();
      TestData.writeBlocks(fs, new Path(dir, "blocks"), wr.rows(), 3);
      TestData.writeAlignedUAssignment(fs, new Path(dir, "u"), wr.rows(), 3, start);
      Path out = new Path(dir, "refined");
      Configuration c = new Configuration(conf);
      c.set(MrRefinement.BALANCE, balance);
      assertEquals(0, ToolRunner.run(c, new RefineUTool(), new String[] {"--blocks",
          new Path(dir, "blocks").toString(), "--u-assignment", new Path(dir, "u").toString(), "--output",
          out.toString(), "--k", String.valueOf(k), "--mode", "mapreduce", "--multilevel", "on", "--group-size", "2",
          "--rounds", "2", "--vcycles", "0", "--capped-vcycles", "1", "--reducers", "2"}), balance);
      JsonNode report = JsonFiles.MAPPER.readTree(fs.open(new Path(out, "_refine.json")));
      assertEquals("multilevel", report.get("start").asText(), balance + ": " + report);
      JsonNode ml = null;
      for (JsonNode r : report.get("rounds")) {
        if (r.path("phase").asText().equals("multilevel start")) {
          ml = r;
        }
      }
      assertNotNull(ml, report.toString());
      assertEquals(balance, ml.get("balance").asText(), ml.toString());
      Map<Long, Integer> refined = RefineUToolTest.readParts(fs, out);
      assertEquals(start.keySet(), refined.keySet(), balance + ": every row once");
      double[] w = new double[k];
      refined.forEach((id, p) -> w[p] += weightOf.get(id));
      for (int i = 0; i < k; i++) {
        assertEquals(w[i], report.get("weightPerPart").get(i).asDouble(), 1e-9, report.toString());
      }
      double spread = java.util.Arrays.stream(w).max().getAsDouble() - java.util.Arrays.stream(w).min().getAsDouble();
      assertTrue(spread <= 12 + 1e-9, balance + ": part weights " + java.util.Arrays.toString(w));
      long keys = keysOf.values().stream().flatMapToLong(java.util.Arrays::stream).distinct().count();
      long tBefore = 2 * (java.util.Arrays.stream(workingSetsPerPart(keysOf, start, k)).sum() - keys);
      long tAfter = 2 * (java.util.Arrays.stream(workingSetsPerPart(keysOf, refined, k)).sum() - keys);
      assertTrue(2 * tAfter <= tBefore, balance + ": T_sum " + tBefore + " (blind start) -> " + tAfter);
    }
  }

  /**
   * Where no level's clusters fit the placing task (4 KiB here), each group's first-level clusters are placed into the
   * group's own parts, one reducer per group (no two groups fit together either): the same guarantees (the
   * placement's working sets are exact, since no part takes rows of two groups).
   */
  @Test
  void multilevelStartPlacesInGroupsWhereNoLevelFitsOneTask() throws Exception {
    Configuration small = new Configuration(conf);
    small.setLong(MrRefinement.PLACE_BYTES, 4096);
    JsonNode ml = multilevelStartOnScrambledCommunities(small, "mr-multilevel-groups", 600).ml();
    assertTrue(ml.get("placedInGroups").asBoolean(), ml.toString());
    assertEquals(1, ml.get("levels").asInt(), ml.toString());
    assertEquals(ml.get("clusters").asLong(), ml.get("placedClusters").asLong(), ml.toString());
  }

  /**
   * The streaming balance (flows) instead of balance groups, as where not even two parts' rows fit a reducer: the
   * projected rows are balanced by count, gain (a plan's rates, then the proposals), flow and apply jobs whose tasks
   * hold a block or a pair's sorted stream, with the same guarantees (every row once, exact balance, exact working
   * sets, T_sum at most half the blind start's).
   */
  @Test
  void multilevelStartBalancesByStreamingFlowsWhereNoGroupOfPartsFitsATask() throws Exception {
    Configuration flows = new Configuration(conf);
    flows.set(MrRefinement.BALANCE, "flows");
    JsonNode ml = multilevelStartOnScrambledCommunities(flows, "mr-multilevel-flows", 600).ml();
    assertEquals("flows", ml.get("balance").asText(), ml.toString());
    assertTrue(ml.get("balanceCycles").asInt() >= 1, "the projection was balanced already: " + ml);
    assertTrue(ml.get("balanceKeysArriving").asLong() >= 0, ml.toString()); // what the moved rows brought, as rated
    // the further levels' clusters are kept to 1 % of a part (here a few rows), the first level's as elsewhere
    int k = ml.get("placedRowsPerPart").size();
    assertEquals((int) Math.ceil(MrRefinement.FLOW_CLUSTER_SHARE * 600 / k),
        ml.get("furtherMaxClusterWeight").asInt(), ml.toString());
    assertTrue(ml.get("placedHeaviestCluster").asInt() <= ml.get("maxClusterWeight").asInt(), ml.toString());
  }

  /**
   * Where no two parts' rows fit a reducer (the distributed swap rounds refine; the start was balanced by flows), a
   * coarse V-cycle follows the rounds: the refined rows clustered again per part, the clusters' parts refined in the
   * placing task without lifting the largest working set, every row to its cluster's part, the flows. It is kept only
   * where it measures better; up to the default number run, ending early only after the default number dropped in a
   * row; and the usual guarantees hold (every row once, exact balance, exact working sets).
   */
  @Test
  void coarseVCycleFollowsTheSwapRoundsWhereNoTwoPartsFitATask() throws Exception {
    Configuration flows = new Configuration(conf);
    flows.set(MrRefinement.BALANCE, "flows");
    MultilevelRun run = multilevelStartOnScrambledCommunities(flows, "mr-coarse-vcycle", 1200, false, "swaps");
    JsonNode v = null;
    JsonNode lastKept = null; // the last step kept from the V-cycle on: it, its p = 1 rounds or a coarse group cycle
    List<Boolean> kept = new ArrayList<>();
    for (JsonNode r : run.report().get("rounds")) {
      if (r.path("phase").asText().equals("coarse V-cycle")) {
        v = r;
        kept.add(r.get("kept").asBoolean());
      }
      if (v != null && r.path("kept").asBoolean() && r.has("maxWorkingSet")) {
        lastKept = r;
      }
    }
    assertNotNull(v, run.report().toString());
    // up to the default count, ending early only where the default number in a row were dropped
    int drops = MrRefinement.DEFAULT_COARSE_VCYCLE_DROPS;
    assertTrue(kept.size() <= MrRefinement.DEFAULT_COARSE_VCYCLES, kept.toString());
    for (int i = 0; i + drops < kept.size(); i++) {
      assertTrue(kept.subList(i, i + drops).contains(true), "V-cycles ran on after " + drops + " dropped: " + kept);
    }
    if (kept.size() < MrRefinement.DEFAULT_COARSE_VCYCLES) {
      assertFalse(kept.subList(kept.size() - drops, kept.size()).contains(true), "ended early: " + kept);
    }
    assertEquals(1, v.get("groupSize").asInt(), v.toString()); // clusters within one part each
    // short rows at k <= 16 in the flows regime: the start and the V-cycles place within the clusters' communities,
    // and the V-cycles cluster each part's rows within the communities the task sees (CoarsenReducer, PlaceReducer:
    // counted)
    assertEquals(1, run.ml().get("placedInCommunities").asLong(), run.ml().toString());
    assertEquals(1, v.get("placedInCommunities").asLong(), v.toString());
    assertTrue(v.get("clusteredInCommunities").asLong() > 0, v.toString());
    assertTrue(v.has("kept"), v.toString());
    JsonNode r = run.report();
    if (v.get("kept").asBoolean()) {
      // the result is the V-cycle's, or that of the last step kept after it (its p = 1 rounds, a coarse group cycle)
      assertEquals(lastKept.get("maxWorkingSet").asLong(), r.get("maxWorkingSet").asLong(), lastKept.toString());
      assertEquals(lastKept.get("sumTraffic").asLong(), r.get("sumTraffic").asLong(), lastKept.toString());
    } else {
      // dropped because it measured worse than the rounds' result, which stands
      double mMin = Math.min(v.get("maxWorkingSet").asDouble(), r.get("maxWorkingSet").asDouble());
      double tMin = Math.min(v.get("sumTraffic").asDouble(), r.get("sumTraffic").asDouble());
      assertTrue(v.get("maxWorkingSet").asDouble() / mMin + v.get("sumTraffic").asDouble() / tMin
          >= r.get("maxWorkingSet").asDouble() / mMin + r.get("sumTraffic").asDouble() / tMin - 1e-9, v + " vs " + r);
    }
  }

  /**
   * Where no two parts' rows fit a reducer, a multilevel start placed as clusters may get connectivity rounds (p = 1)
   * before it is measured against the given start (-D start-rounds=on: always): they are logged as the start's, the
   * start is measured after them (never at a higher T_sum than placed), and the usual guarantees hold. By default
   * (auto) only a start that measures worse as placed gets them: this one measures better, and has none.
   */
  @Test
  void aMultilevelStartPlacedByFlowsGetsConnectivityRoundsBeforeItIsMeasured() throws Exception {
    Configuration flows = new Configuration(conf);
    flows.set(MrRefinement.BALANCE, "flows");
    flows.set(MrRefinement.START_ROUNDS, "on");
    MultilevelRun run = multilevelStartOnScrambledCommunities(flows, "mr-start-rounds", 1200, false, "swaps");
    List<JsonNode> ours = new ArrayList<>();
    JsonNode lastKept = run.ml();
    for (JsonNode r : run.report().get("rounds")) {
      if (r.path("start").asText().equals("multilevel")) {
        ours.add(r);
        assertEquals(1.0, r.get("exponent").asDouble(), r.toString());
        if (r.path("kept").asBoolean()) {
          lastKept = r;
        }
      }
    }
    assertFalse(ours.isEmpty(), run.report().toString());
    assertTrue(lastKept.get("sumTraffic").asLong() <= run.ml().get("sumTraffic").asLong(),
        run.ml() + " -> " + lastKept);
    JsonNode measured = null;
    for (JsonNode st : run.report().get("starts")) {
      if (st.get("start").asText().equals("multilevel")) {
        measured = st;
      }
    }
    assertNotNull(measured, run.report().toString());
    assertEquals(lastKept.get("sumTraffic").asLong(), measured.get("sumTraffic").asLong(), measured.toString());
    assertEquals(lastKept.get("maxWorkingSet").asLong(), measured.get("maxWorkingSet").asLong(), measured.toString());

    Configuration auto = new Configuration(flows);
    auto.set(MrRefinement.START_ROUNDS, "auto");
    MultilevelRun without = multilevelStartOnScrambledCommunities(auto, "mr-start-rounds-auto", 1200, false, "swaps");
    JsonNode given = without.report().get("starts").get(0);
    assertEquals("given", given.get("start").asText(), given.toString());
    double mMin = Math.min(given.get("maxWorkingSet").asDouble(), without.ml().get("maxWorkingSet").asDouble());
    double tMin = Math.min(given.get("sumTraffic").asDouble(), without.ml().get("sumTraffic").asDouble());
    assertTrue(without.ml().get("maxWorkingSet").asDouble() / mMin + without.ml().get("sumTraffic").asDouble() / tMin
        < given.get("maxWorkingSet").asDouble() / mMin + given.get("sumTraffic").asDouble() / tMin,
        "the start measures better as placed: " + without.ml() + " vs " + given);
    for (JsonNode r : without.report().get("rounds")) {
      assertFalse(r.has("start"), r.toString());
    }
  }

  /**
   * Coarse group cycles (four by default where the multilevel start ran; two here) after the coarse V-cycle, in pairs
   * (-D coarse-group-size=2): each
   * cycle groups the parts anew and refines a group's first-level clusters among its parts in a placing task of the
   * group's own (six parts: three tasks). Every cycle is logged with its group size, keeps the rows (placed rows add up
   * to n), and is kept only where it measures better; the usual guarantees hold for the result.
   */
  @Test
  void coarseGroupCyclesRefineEachGroupOfPartsInATaskOfItsOwn() throws Exception {
    Configuration flows = cyclesInPairs(2);
    int n = 1200;
    MultilevelRun run = multilevelStartOnScrambledCommunities(flows, "mr-coarse-groups", n, false, "swaps");
    List<JsonNode> cycles = new ArrayList<>();
    for (JsonNode r : run.report().get("rounds")) {
      if (r.path("phase").asText().startsWith("coarse group cycle")) {
        cycles.add(r);
      }
    }
    assertEquals(2, cycles.size(), run.report().toString());
    for (int i = 0; i < cycles.size(); i++) {
      JsonNode c = cycles.get(i);
      assertEquals("coarse group cycle " + (i + 1), c.get("phase").asText());
      assertEquals(2, c.get("placeGroupSize").asInt(), c.toString());
      assertEquals(1, c.get("groupSize").asInt(), c.toString()); // clustered per part
      assertTrue(c.get("placedInGroups").asBoolean(), c.toString());
      assertTrue(c.has("kept"), c.toString());
      long placed = 0;
      for (JsonNode x : c.get("placedRowsPerPart")) {
        placed += x.asLong();
      }
      assertEquals(n, placed, c.toString());
    }
  }

  /** The streaming balance (flows) with {@code cycles} coarse group cycles in pairs of parts. */
  private Configuration cyclesInPairs(int cycles) {
    Configuration c = new Configuration(conf);
    c.set(MrRefinement.BALANCE, "flows");
    c.setInt(MrRefinement.COARSE_GROUP_CYCLES, cycles);
    c.setInt(MrRefinement.COARSE_GROUP_SIZE, 2);
    return c;
  }

  /**
   * A coarse group cycle whose groups' clusters do not fit their placing task (the group size forced to 2 where a task
   * of 200 KB holds less, the tasks' heap that too: -D parsa.refine.multilevel.place.heap-bytes): each group keeps its
   * parts, counted, instead of the cycle failing, and the cycle measures exactly the assignment it started from.
   */
  @Test
  void aCoarseGroupCycleKeepsTheGroupsThatDoNotFitTheirTask() throws Exception {
    Configuration small = cyclesInPairs(1);
    small.setLong(MrRefinement.PLACE_BYTES, PLACE_BYTES_FOR_CLIMB);
    small.setLong(PlaceReducer.HEAP_BYTES, PLACE_BYTES_FOR_CLIMB);
    int n = 6000;
    MultilevelRun run = multilevelStartOnScrambledCommunities(small, "mr-coarse-groups-kept", n, true, "swaps");
    JsonNode before = null;
    JsonNode cycle = null;
    for (JsonNode r : run.report().get("rounds")) {
      if (r.path("phase").asText().equals("coarse group cycle 1")) {
        cycle = r;
        break;
      }
      if (r.has("sumTraffic") && r.path("kept").asBoolean(true)) {
        before = r; // the last assignment kept
      }
    }
    assertNotNull(cycle, run.report().toString());
    assertNotNull(before, run.report().toString());
    assertEquals(3, cycle.get("placeGroupsKept").asInt(), cycle.toString()); // six parts in pairs
    long placed = 0;
    for (JsonNode x : cycle.get("placedRowsPerPart")) {
      placed += x.asLong();
    }
    assertEquals(n, placed, cycle.toString());
    assertEquals(before.get("maxWorkingSet").asLong(), cycle.get("placedMaxWorkingSet").asLong(), cycle.toString());
    assertEquals(before.get("sumTraffic").asLong(), cycle.get("placedSumTraffic").asLong(), cycle.toString());
    assertFalse(cycle.get("kept").asBoolean(), cycle.toString());
  }

  /**
   * Where not even two parts' first-level clusters fit a placing task, a coarse group cycle clusters them again within
   * each part until two parts' share fits, places that level in groups and descends through it: the same guarantees.
   */
  @Test
  void coarseGroupCyclesClimbLevelsWithinPartsWhereTwoPartsDoNotFit() throws Exception {
    Configuration small = new Configuration(conf);
    small.set(MrRefinement.BALANCE, "flows");
    small.setLong(MrRefinement.PLACE_BYTES, PLACE_BYTES_FOR_CLIMB);
    small.setDouble(MrRefinement.FLOW_SHARE, 1.0);
    int n = 6000;
    MultilevelRun run = multilevelStartOnScrambledCommunities(small, "mr-coarse-group-levels", n, true, "swaps");
    JsonNode cycle = null;
    for (JsonNode r : run.report().get("rounds")) {
      if (r.path("phase").asText().equals("coarse group cycle 1")) {
        cycle = r;
      }
    }
    assertNotNull(cycle, run.report().toString());
    assertTrue(cycle.get("levels").asInt() >= 2, cycle.toString());
    assertTrue(cycle.get("placedClusters").asLong() < cycle.get("clusters").asLong(), cycle.toString());
    assertTrue(cycle.get("placeGroupSize").asInt() >= 2, cycle.toString());
    long placed = 0;
    for (JsonNode x : cycle.get("placedRowsPerPart")) {
      placed += x.asLong();
    }
    assertEquals(n, placed, cycle.toString());
  }

  /** A placing task too small for two parts' first-level clusters in that test, large enough for the next level's. */
  private static final long PLACE_BYTES_FOR_CLIMB = 200_000;

  /** A coarse group cycle's group: the most parts whose share of the clusters fits the task, none if not two. */
  @Test
  void coarseGroupSizeIsTheMostPartsThatFit() {
    long clusters = 16_000;
    long pins = 800_000;
    long all = ClusterGraph.heapNeeded((long) (clusters * 1.0), pins, 16);
    assertEquals(16, MrRefinement.coarseGroupSize(16, clusters, pins, all));
    assertEquals(0, MrRefinement.coarseGroupSize(16, clusters, pins, 1_000));
    int g = MrRefinement.coarseGroupSize(16, clusters, pins, all / 4);
    assertTrue(g >= 2 && g < 16, "group size " + g);
    assertTrue(ClusterGraph.heapNeeded((long) Math.ceil(clusters * 1.25 * g / 16), (long) Math.ceil(pins * 1.25 * g
        / 16), g) <= all / 4);
    assertTrue(ClusterGraph.heapNeeded((long) Math.ceil(clusters * Math.min(1, 1.25 * (g + 1) / 16)),
        (long) Math.ceil(pins * Math.min(1, 1.25 * (g + 1) / 16)), g + 1) > all / 4);
  }

  /**
   * Where not even a group's rows fit a task, the clustering runs in chunks of each group's rows (three id ranges
   * here), and with the streaming balance no task of the multilevel start holds a part's rows: the same guarantees.
   * With a placing task too small for the first level (as in the shared-keys test below), the further level clusters
   * the chunks' clusters in groups of chunks.
   */
  @Test
  void multilevelStartClustersInChunksWhereAGroupWouldNotFitATask() throws Exception {
    Configuration chunked = new Configuration(conf);
    chunked.set(MrRefinement.BALANCE, "flows");
    chunked.setInt(MrRefinement.CHUNKS, 3);
    chunked.setLong(MrRefinement.PLACE_BYTES, 420_000);
    // clusters of the further level up to a tenth of a part (50 rows): at 1 % (5 rows) none of the first level's
    // could be joined at this size
    chunked.setDouble(MrRefinement.FLOW_SHARE, 0.1);
    JsonNode ml = multilevelStartOnScrambledCommunities(chunked, "mr-multilevel-chunks", 3000, true).ml();
    assertEquals(3, ml.get("chunks").asInt(), ml.toString());
    assertEquals("flows", ml.get("balance").asText(), ml.toString());
    assertTrue(ml.get("levels").asInt() >= 2, ml.toString());
    int k = ml.get("placedRowsPerPart").size();
    assertEquals((int) Math.ceil(0.1 * 3000 / k), ml.get("furtherMaxClusterWeight").asInt(), ml.toString());
    assertTrue(ml.get("placedClusters").asLong() < ml.get("clusters").asLong(), ml.toString());
  }

  /**
   * The per-pair tables the flow cycle hands its jobs (the gain job's allowed moves, the flow job's quotas) read back
   * as written, and a bad entry names the key and the entry.
   */
  @Test
  void partPairsReadBackAsWrittenAndNameABadEntry() {
    long[][] q = new long[5][5];
    q[0][3] = 7;
    q[4][1] = 1;
    q[2][0] = 120_000_000_000L;
    assertArrayEquals(q, FlowReducer.quotas(FlowReducer.entries(q), 5));
    boolean[][] allowed = GainReducer.targets(GainReducer.targetsOf(new long[] {0, 2, 0, 1}, new long[] {3, 0, 1, 0}),
        4);
    assertNull(allowed[0]);
    assertNull(allowed[2]);
    assertArrayEquals(new boolean[] {true, false, true, false}, allowed[1]);
    assertArrayEquals(new boolean[] {true, false, true, false}, allowed[3]);
    assertNull(GainReducer.targets(null, 4), "unset: any move");
    for (String[] bad : new String[][] {{"0:1"}, {"0:5:3"}, {"2:2:1"}, {"0:1:-1"}, {"a:1:1"}}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FlowReducer.quotas(bad, 5));
      assertTrue(e.getMessage().startsWith(FlowReducer.QUOTAS + ": ") && e.getMessage().endsWith(bad[0]),
          e.getMessage());
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> GainReducer.targets(new String[] {"1:2:3"}, 4));
    assertTrue(e.getMessage().contains(GainReducer.TARGETS) && e.getMessage().contains("expected from:to"),
        e.getMessage());
  }

  /**
   * The further levels' cap where the placement balances by itself: 1 % of n/k where the placing task holds enough
   * clusters, heavier where it holds few (so the top level still fits it), never above the first level's cap.
   */
  @Test
  void furtherLevelsCapFollowsThePlacingTask() {
    long n = 325_557;
    int k = 16;
    assertEquals(204, MrRefinement.furtherWeight(3_052, 0.01, n, k, 18_000));
    assertEquals(204, MrRefinement.furtherWeight(3_052, 0.01, n, k, 1L << 34));
    assertEquals((int) Math.ceil(2.0 * n / 1_000), MrRefinement.furtherWeight(3_052, 0.01, n, k, 1_000));
    assertEquals(3_052, MrRefinement.furtherWeight(3_052, 0.01, n, k, 10));
    assertEquals(3_052, MrRefinement.furtherWeight(3_052, 0.01, n, k, 0));
    assertEquals(1, MrRefinement.furtherWeight(1, 0.01, 10, k, 1_000));
  }

  /**
   * A balance, chunk or start-rounds setting the distributed start does not know is a usage error, named before any
   * job runs.
   */
  @Test
  void unknownBalanceOrChunksAreUsageErrors() throws Exception {
    Configuration badBalance = new Configuration(conf);
    badBalance.set(MrRefinement.BALANCE, "sideways");
    assertUsageError(badBalance, "mr-refine-bad-balance", true, "must be auto, groups or flows, got 'sideways'");
    Configuration badChunks = new Configuration(conf);
    badChunks.setInt(MrRefinement.CHUNKS, -2);
    assertUsageError(badChunks, "mr-refine-bad-chunks", true, "must be 0 (fitted) to 256, got -2");
    Configuration badRounds = new Configuration(conf);
    badRounds.set(MrRefinement.START_ROUNDS, "true");
    assertUsageError(badRounds, "mr-refine-bad-start-rounds", true, "start-rounds must be auto, on or off, got 'true'");
  }

  /**
   * A row's chunk: a group whose rows are an id range (a quarter of the ids here, 4 groups) falls into its chunks as
   * consecutive sub-ranges of about equal size; rows spread over all ids fill every chunk about equally; ids over the
   * whole range of a long do too.
   */
  @Test
  void chunksCutAGroupsIdRangeIntoEqualRanges() {
    int chunks = 3;
    int groups = 4;
    long n = 120_000;
    int[] size = new int[chunks];
    int last = 0;
    int changes = 0;
    for (long id = n / 4; id < n / 2; id++) { // the second group's ids
      int c = GroupMapper.chunkOf(id, 0, n, groups * chunks, chunks);
      size[c]++;
      changes += c != last && id > n / 4 ? 1 : 0;
      last = c;
    }
    assertEquals(chunks - 1, changes, "one range per chunk");
    for (int c : size) {
      assertEquals(n / 4 / chunks, c, 2);
    }
    Random rnd = new Random(3);
    int[] spread = new int[chunks];
    for (int i = 0; i < 60_000; i++) {
      spread[GroupMapper.chunkOf(rnd.nextLong(), Long.MIN_VALUE, Math.pow(2, 64), groups * chunks, chunks)]++;
    }
    for (int c : spread) {
      assertEquals(20_000, c, 600, java.util.Arrays.toString(spread));
    }
    assertEquals(chunks - 1, GroupMapper.chunkOf(Long.MAX_VALUE, Long.MIN_VALUE, Math.pow(2, 64), 12, chunks));
    assertEquals(0, GroupMapper.chunkOf(Long.MIN_VALUE, Long.MIN_VALUE, Math.pow(2, 64), 12, chunks));
  }

  /** Chunks per group: one where the group fits, more as the heap shrinks, each then fitting. */
  @Test
  void chunksFollowTheReducersHeap() {
    long rows = 1_000_000;
    long pairs = 20_000_000;
    long keys = 5_000_000;
    long whole = RefineUTool.heapNeeded(rows, pairs, keys, 2) + 16 * pairs;
    assertEquals(1, MrRefinement.chunksFor(whole, rows, pairs, keys));
    int previous = 1;
    for (long heap = whole / 2; heap > whole / 64; heap /= 2) {
      int c = MrRefinement.chunksFor(heap, rows, pairs, keys);
      assertTrue(c > previous, heap + " bytes: " + c + " chunks after " + previous);
      long p = pairs / c;
      assertTrue(RefineUTool.heapNeeded(rows / c, p, Math.min(keys, p), 2) + 16 * p <= heap, c + " chunks");
      previous = c;
    }
    assertEquals(CoarsenReducer.MAX_CHUNKS, MrRefinement.chunksFor(1, rows, pairs, keys));
  }

  /**
   * The streaming balance of weighted rows: the parts above the window send down to the mean, those below it receive up
   * to it; where only one side is outside, every part beyond the mean on the other side takes part; in the window, no
   * part moves.
   */
  @Test
  void weightedFlowsSendFromThePartsOutsideTheWindowTowardsTheMean() {
    // mean 100, window [95, 105]
    long[][] need = MrRefinement.weightSurplusAndShortfall(new long[] {112, 99, 97, 92}, 95, 105);
    assertArrayEquals(new long[] {12, 0, 0, 0}, need[0]);
    assertArrayEquals(new long[] {0, 0, 0, 8}, need[1]);
    need = MrRefinement.weightSurplusAndShortfall(new long[] {104, 103, 102, 91}, 95, 105);
    assertArrayEquals(new long[] {4, 3, 2, 0}, need[0]);
    assertArrayEquals(new long[] {0, 0, 0, 9}, need[1]);
    need = MrRefinement.weightSurplusAndShortfall(new long[] {110, 100, 100, 90}, 95, 105);
    assertArrayEquals(new long[] {10, 0, 0, 0}, need[0]);
    assertArrayEquals(new long[] {0, 0, 0, 10}, need[1]);
    need = MrRefinement.weightSurplusAndShortfall(new long[] {104, 100, 100, 96}, 95, 105);
    assertArrayEquals(new long[4], need[0]);
    assertArrayEquals(new long[4], need[1]);
  }

  /**
   * The key sample of the distributed start's placement: about the rate asked for (on consecutive ids, as ingest
   * numbers keys), the same for a key whoever asks, and nested (a key in a sample is in every larger one), so a smaller
   * placing task sees a subset of what a larger one sees; and each sample number a sample of its own.
   */
  @Test
  void keySamplesHaveTheirRateAndAreNested() {
    int n = 200_000;
    for (double rate : new double[] {0.02, 0.1, 0.5}) {
      int in = 0;
      for (long key = 0; key < n; key++) {
        if (SharedKeys.sampled(key, rate)) {
          in++;
          assertTrue(SharedKeys.sampled(key, Math.min(1, rate * 2)), "key " + key + " at " + rate + " and twice it");
        }
      }
      assertEquals(rate, (double) in / n, 0.005, "share of " + n + " keys sampled at " + rate);
    }
    assertTrue(SharedKeys.sampled(12345L, 1.0) && !SharedKeys.sampled(12345L, 0.0));
    // another sample number: the same rate and nesting, and a sample of its own (two samples at 0.1 share about 1 %
    // of the keys, as independent ones would)
    int both = 0;
    int in = 0;
    for (long key = 0; key < n; key++) {
      boolean fresh = SharedKeys.sampled(key, 0.1, 3);
      if (fresh) {
        in++;
        assertTrue(SharedKeys.sampled(key, 0.2, 3), "key " + key + " in sample 3 at 0.1 and 0.2");
        both += SharedKeys.sampled(key, 0.1) ? 1 : 0;
      }
      assertEquals(SharedKeys.sampled(key, 0.1), SharedKeys.sampled(key, 0.1, 0), "sample 0 is the keys' hash alone");
    }
    assertEquals(0.1, (double) in / n, 0.005, "share of " + n + " keys in sample 3 at 0.1");
    assertEquals(0.01, (double) both / n, 0.003, "share of keys in samples 0 and 3 at 0.1");
  }

  /**
   * A global placement from a sample of the clusters' keys (a third of them, by a hash of the key, so that every
   * cluster holding a key agrees): the same guarantees, with the working sets measured after the projection (the
   * placement's own count in units of the sample, an estimate). Then, where the clusters fit the placing task
   * only with a share of their keys (a third of them, by {@code ClusterGraph.heapNeeded}), the driver itself places
   * them from the largest sample that fits after any further levels (at least two keys per cluster), not in groups.
   * The sample is one of holder sets (one net per set of clusters holding the same keys, weighing those keys, listed
   * with probability min(1, rate · keys)), which lists no more pins than a sample of the keys at that rate does.
   */
  @Test
  void multilevelStartPlacesGloballyFromAKeySampleWhereTheKeysDoNotFitOneTask() throws Exception {
    Configuration sampled = new Configuration(conf);
    sampled.setDouble(SharedKeys.SAMPLE, 0.3);
    JsonNode ml = multilevelStartOnScrambledCommunities(sampled, "mr-multilevel-sample", 600).ml();
    assertEquals(0.3, ml.get("placeSample").asDouble(), ml.toString());
    assertFalse(ml.get("placedInGroups").asBoolean(), ml.toString());
    assertEquals(1, ml.get("levels").asInt(), ml.toString());
    assertTrue(ml.get("placedListedPins").asLong() < 0.5 * ml.get("placedClusterPins").asLong(), ml.toString());
    // the placing task's working sets, counted in units of the sample, estimate the measured ones: their sum is off
    // the measured Σ M_i only by the sampling of the keys the placement cuts and each cluster's rounding
    long keys = ml.get("sumWorkingSet").asLong() - ml.get("sumTraffic").asLong() / 2;
    long measured = ml.get("placedSumTraffic").asLong() / 2 + keys;
    long estimated = 0;
    for (JsonNode w : ml.get("placedWorkingSetsEstimated")) {
      estimated += w.asLong();
    }
    assertEquals(measured, estimated, 0.1 * measured, "placed Σ M_i, estimated vs measured");
    // one net per set of holders, sampled in proportion to its keys: fewer nets than keys, and no more pins listed
    // than a sample of the keys at the same rate lists
    assertTrue(ml.get("placedHolderSets").asLong() > 0, ml.toString());
    Configuration byKeys = new Configuration(sampled);
    byKeys.setBoolean(MrRefinement.HOLDER_SETS, false);
    JsonNode keySample = multilevelStartOnScrambledCommunities(byKeys, "mr-multilevel-key-sample", 600).ml();
    assertFalse(keySample.has("placedHolderSets"), keySample.toString());
    assertTrue(ml.get("placedListedPins").asLong() <= keySample.get("placedListedPins").asLong(),
        ml + " vs " + keySample);

    Configuration small = new Configuration(conf);
    small.setLong(MrRefinement.PLACE_BYTES,
        ClusterGraph.heapNeeded(ml.get("clusters").asLong(), ml.get("clusterPins").asLong() / 3, 6));
    JsonNode fitted = multilevelStartOnScrambledCommunities(small, "mr-multilevel-fitted-sample", 600).ml();
    assertFalse(fitted.get("placedInGroups").asBoolean(), fitted.toString());
    double rate = fitted.get("placeSample").asDouble();
    assertTrue(rate < 1, fitted.toString());
    assertTrue(rate * fitted.get("placedClusterPins").asLong()
        >= MrRefinement.MIN_SAMPLED_KEYS * fitted.get("placedClusters").asLong(), fitted.toString());
  }

  /**
   * The same on rows that each also hold a key of their own (as a web page its own address), where the task that
   * places the clusters has less room (420 KB) than the first level's clusters need, even with only their shared keys
   * listed (about 705 KB with all keys, 447 KB with those), and more than the second level's (about 388 KB): the
   * first level is rewritten with only its shared keys listed (every row's own key counted, not listed; the count job
   * then checks the placement's working sets, which include them), a further level clusters the clusters (in groups
   * of groups), and the parts come down level by level. And where the map tasks may not hold a level's placement (here: none), the parts
   * come down through reduce-side joins (placement and members shuffled by cluster, the part sorted first) instead of
   * map-side reads: the same guarantees and, the placement being the same, every row in the same part as with the
   * map-side joins.
   */
  @Test
  void multilevelStartListsSharedKeysOnlyAndJoinsInTheShuffleWhereTheTasksCannotHoldMore() throws Exception {
    Configuration small = new Configuration(conf);
    small.setLong(MrRefinement.PLACE_BYTES, 420_000);
    int n = 3000;
    MultilevelRun mapSide = multilevelStartOnScrambledCommunities(small, "mr-multilevel-mapjoin", n, true);
    small.setLong(PartJoin.MAP_JOIN_BYTES, 0);
    MultilevelRun reduceSide = multilevelStartOnScrambledCommunities(small, "mr-multilevel-shufflejoin", n, true);
    JsonNode ml = reduceSide.ml();
    assertTrue(ml.get("levels").asInt() >= 2, ml.toString());
    assertTrue(ml.get("placedClusters").asLong() < ml.get("clusters").asLong(), ml.toString());
    assertTrue(ml.get("sharedKeysOnly").asInt() >= 1, ml.toString());
    assertFalse(ml.get("placedInGroups").asBoolean(), ml.toString());
    assertTrue(ml.get("placedClusterPins").asLong() <= ml.get("clusterPins").asLong() - n, ml.toString());
    assertEquals(mapSide.ml().get("levels"), ml.get("levels"));
    assertEquals(mapSide.refined(), reduceSide.refined(), "the same part for every row");
  }

  /** A refine-u run's multilevel start entry and its rows' parts. */
  private record MultilevelRun(JsonNode ml, Map<Long, Integer> refined, JsonNode report) {}

  /** The multilevel start's log entry of a refine-u run on scrambled communities, after checking its result. */
  private static MultilevelRun multilevelStartOnScrambledCommunities(Configuration conf, String name, int n)
      throws Exception {
    return multilevelStartOnScrambledCommunities(conf, name, n, false);
  }

  /** The same, every row holding also a key of its own if {@code ownKeys}. */
  private static MultilevelRun multilevelStartOnScrambledCommunities(Configuration conf, String name, int n,
      boolean ownKeys) throws Exception {
    return multilevelStartOnScrambledCommunities(conf, name, n, ownKeys, "groups");
  }

  /** The same with the schedule's rounds run as {@code rounds} ({@code --distributed-rounds}: groups or swaps). */
  private static MultilevelRun multilevelStartOnScrambledCommunities(Configuration conf, String name, int n,
      boolean ownKeys, String rounds) throws Exception {
    Random rnd = new Random(29);
    FileSystem fs = FileSystem.getLocal(conf);
    int k = 6;
    Path dir = TestData.tempDir(name);
    List<GraphRow> rows = new ArrayList<>();
    Map<Long, long[]> keysOf = new HashMap<>();
    Map<Long, Integer> start = new HashMap<>();
    for (int i = 0; i < n; i++) {
      long id = (i * 7919L) % 100_003; // the input order is blind to the communities too
      int community = rnd.nextInt(2 * k);
      long[] keys = new long[3 + rnd.nextInt(4) + (ownKeys ? 1 : 0)];
      for (int j = 0; j < keys.length; j++) {
        keys[j] = rnd.nextInt(20) == 0 ? 50_000 + rnd.nextInt(40) : community * 50L + rnd.nextInt(50);
      }
      if (ownKeys) {
        keys[keys.length - 1] = 1_000_000 + id;
      }
      rows.add(TestData.libsvmRow(id, keys));
      keysOf.put(id, keys);
      start.put(id, i % k);
    }
    TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, 3);
    TestData.writeAlignedUAssignment(fs, new Path(dir, "u"), rows, 3, start);
    Path out = new Path(dir, "refined");
    conf = new Configuration(conf);
    conf.setIfUnset(MrRefinement.COARSE_GROUP_CYCLES, "1"); // one of the default four: the same path, a quarter the jobs
    assertEquals(0, ToolRunner.run(conf, new RefineUTool(), new String[] {"--blocks",
        new Path(dir, "blocks").toString(), "--u-assignment", new Path(dir, "u").toString(), "--output",
        out.toString(), "--k", String.valueOf(k), "--mode", "mapreduce", "--multilevel", "on", "--group-size", "2", "--distributed-rounds", rounds,
        "--rounds", "2", "--vcycles", "0", "--capped-vcycles", "0", "--reducers", "2"}));
    JsonNode report = JsonFiles.MAPPER.readTree(fs.open(new Path(out, "_refine.json")));
    assertEquals("multilevel", report.get("start").asText(), report.toString());
    // the balanced objective, the refinement's own, never worse than at its start
    double m0 = report.get("startMaxWorkingSet").asDouble();
    double s0 = report.get("startSumTraffic").asDouble();
    double m1 = report.get("maxWorkingSet").asDouble();
    double s1 = report.get("sumTraffic").asDouble();
    double mMin = Math.max(1, Math.min(m0, m1));
    double tMin = Math.max(1, Math.min(s0, s1));
    assertTrue(m1 / mMin + s1 / tMin <= m0 / mMin + s0 / tMin + 1e-9,
        "start " + m0 + " / " + s0 + " -> refined " + m1 + " / " + s1);
    JsonNode ml = null;
    for (JsonNode r : report.get("rounds")) {
      if (r.path("phase").asText().equals("multilevel start")) {
        ml = r;
      }
    }
    assertTrue(ml != null && ml.get("clusters").asLong() > 0 && ml.get("clusters").asLong() < n, report.toString());
    Map<Long, Integer> refined = RefineUToolTest.readParts(fs, out);
    assertEquals(start.keySet(), refined.keySet(), "every row once");
    for (long size : sizes(refined, k)) {
      assertEquals(n / k, size, java.util.Arrays.toString(sizes(refined, k)));
    }
    long[] before = workingSetsPerPart(keysOf, start, k);
    long[] after = workingSetsPerPart(keysOf, refined, k);
    for (int i = 0; i < k; i++) {
      assertEquals(after[i], report.get("workingSets").get(i).asLong(), "exact working set of part " + i);
    }
    long keys = keysOf.values().stream().flatMapToLong(java.util.Arrays::stream).distinct().count();
    long tBefore = 2 * (java.util.Arrays.stream(before).sum() - keys);
    long tAfter = 2 * (java.util.Arrays.stream(after).sum() - keys);
    assertTrue(2 * tAfter <= tBefore, "T_sum " + tBefore + " (blind start) -> " + tAfter);
    assertTrue(java.util.Arrays.stream(after).max().getAsLong() < java.util.Arrays.stream(before).max().getAsLong(),
        java.util.Arrays.toString(before) + " -> " + java.util.Arrays.toString(after));
    assertEquals(0, fs.listStatus(dir, p -> p.getName().startsWith(".")).length, "work and temp dirs removed");
    return new MultilevelRun(ml, refined, report);
  }

  /**
   * Balance groups: over random row counts (some parts far above n/k, some below), every group within its size limit,
   * and where a group could reach it, its rows within one of n/k per part, so that one balance cycle balances its
   * parts; parts left out are within bounds.
   */
  @Test
  void balanceGroupsBalanceEveryPartTheyTake() {
    Random rnd = new Random(5);
    for (int t = 0; t < 200; t++) {
      int k = 2 + rnd.nextInt(30);
      int maxSize = 2 + rnd.nextInt(6);
      long[] rows = new long[k];
      long n = 0;
      for (int p = 0; p < k; p++) {
        rows[p] = 1000 + (rnd.nextInt(4) == 0 ? rnd.nextInt(41) - 20 : 0);
        n += rows[p];
      }
      long lo = n / k;
      long hi = (n + k - 1) / k;
      int[] groupOf = MrRefinement.balanceGroups(rows, lo, hi, maxSize);
      int groups = java.util.Arrays.stream(groupOf).max().orElse(-1) + 1;
      for (int p = 0; p < k; p++) {
        if (groupOf[p] < 0) {
          assertTrue(rows[p] >= lo && rows[p] <= hi, "part " + p + " left out with " + rows[p] + " rows");
        }
      }
      long[] after = rows.clone();
      for (int g = 0; g < groups; g++) {
        final int group = g;
        int[] parts = java.util.stream.IntStream.range(0, k).filter(p -> groupOf[p] == group).toArray();
        assertTrue(parts.length >= 1 && parts.length <= maxSize, java.util.Arrays.toString(groupOf));
        long sum = java.util.Arrays.stream(parts).mapToLong(p -> rows[p]).sum();
        for (int i = 0; i < parts.length; i++) {
          after[parts[i]] = sum / parts.length + (i < sum % parts.length ? 1 : 0);
        }
      }
      // what balancing each group within one does: repeated, every part ends within bounds
      for (int cycle = 0; cycle < MrRefinement.MAX_BALANCE_CYCLES
          && java.util.Arrays.stream(after).anyMatch(r -> r < lo || r > hi); cycle++) {
        long[] cur = after.clone();
        int[] again = MrRefinement.balanceGroups(cur, lo, hi, maxSize);
        for (int g = 0; g <= java.util.Arrays.stream(again).max().orElse(-1); g++) {
          final int group = g;
          int[] parts = java.util.stream.IntStream.range(0, k).filter(p -> again[p] == group).toArray();
          long sum = java.util.Arrays.stream(parts).mapToLong(p -> cur[p]).sum();
          for (int i = 0; i < parts.length; i++) {
            after[parts[i]] = sum / parts.length + (i < sum % parts.length ? 1 : 0);
          }
        }
      }
      for (long r : after) {
        assertTrue(r >= lo && r <= hi, "k=" + k + " groups of " + maxSize + ": " + java.util.Arrays.toString(rows)
            + " -> " + java.util.Arrays.toString(after));
      }
    }
  }
}
