package io.parsa.jobs.refine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.parsa.avro.GraphRow;
import io.parsa.avro.UAssignment;
import io.parsa.common.JsonFiles;
import io.parsa.jobs.mr.TestData;
import io.parsa.jobs.mr.Jobs;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;

class RefineUToolTest {

  private final Configuration conf = TestData.localConf();

  /** sum_i |N(U_i)| and max_i |N(U_i)| of an assignment. */
  private static long[] workingSets(Map<Long, long[]> rows, Map<Long, Integer> part, int k) {
    long[] m = MrRefinementTest.workingSetsPerPart(rows, part, k);
    return new long[] {java.util.Arrays.stream(m).sum(), java.util.Arrays.stream(m).max().orElse(0)};
  }

  /** Row id → part of a u-assignment directory; fails on a row assigned twice. */
  static Map<Long, Integer> readParts(FileSystem fs, Path dir) throws java.io.IOException {
    Map<Long, Integer> m = new HashMap<>();
    for (UAssignment a : Jobs.readAvroDir(fs, dir, UAssignment.class)) {
      assertNull(m.put(a.getId(), a.getPart()), "row " + a.getId() + " assigned twice");
    }
    return m;
  }

  /**
   * Four communities of 100 rows each, the i-th row of {@code ids} in community i / 100, five keys from its own
   * community's 200 (wide communities: swaps alone do not untangle them); blocks under dir/blocks and a round-robin
   * u-assignment (balanced, blind to the communities) under dir/u, and the same laid out per block (as the distributed
   * mode reads it) under dir/u-aligned.
   */
  private static void writeCommunities(FileSystem fs, Path dir, Random rnd, int k, List<Long> ids,
      Map<Long, long[]> keysOf, Map<Long, Integer> assign) throws java.io.IOException {
    List<GraphRow> rows = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      long id = ids.get(i);
      int community = i / 100;
      long[] keys = new long[5];
      for (int j = 0; j < keys.length; j++) {
        keys[j] = 1 + community * 200 + rnd.nextInt(200);
      }
      rows.add(TestData.libsvmRow(id, keys));
      keysOf.put(id, keys);
      assign.put(id, (int) (id % k));
    }
    TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, 3);
    TestData.writeUAssignment(fs, new Path(dir, "u"), assign);
    TestData.writeAlignedUAssignment(fs, new Path(dir, "u-aligned"), rows, 3, assign);
  }

  /** {@link #writeCommunities} with the row ids 0..399 shuffled: no locality in the input order. */
  private static void writeShuffledCommunities(FileSystem fs, Path dir, Random rnd, int k, Map<Long, long[]> keysOf,
      Map<Long, Integer> assign) throws java.io.IOException {
    List<Long> ids = new ArrayList<>();
    for (long id = 0; id < 400; id++) {
      ids.add(id);
    }
    java.util.Collections.shuffle(ids, rnd);
    writeCommunities(fs, dir, rnd, k, ids, keysOf, assign);
  }

  /**
   * Rows 0..399, each in a random one of k clusters with 1 to {@code maxKeys} distinct keys from its cluster's
   * {@code width} (keys 1 + cluster·width + x); every row's keys go to {@code keysOf}.
   */
  private static List<GraphRow> clusteredRows(Random rnd, int k, int maxKeys, int width, Map<Long, long[]> keysOf) {
    List<GraphRow> rows = new ArrayList<>();
    for (long id = 0; id < 400; id++) {
      int cluster = rnd.nextInt(k);
      long[] keys = rnd.longs(1 + rnd.nextInt(maxKeys), 0, width).distinct().map(x -> 1 + cluster * width + x)
          .toArray();
      rows.add(TestData.libsvmRow(id, keys));
      keysOf.put(id, keys);
    }
    return rows;
  }

  /**
   * Writes {@code rows} as blocks under dir/blocks and {@code assign} under dir/u, runs refine-u with its defaults and
   * {@code options} into dir/u2 and reads the refined assignment back, which must hold exactly the rows assigned.
   */
  private Map<Long, Integer> refine(FileSystem fs, Path dir, List<GraphRow> rows, Map<Long, Integer> assign,
      int k, String... options) throws Exception {
    TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, 3);
    TestData.writeUAssignment(fs, new Path(dir, "u"), assign);
    List<String> args = new ArrayList<>(List.of("--blocks", dir + "/blocks", "--u-assignment", dir + "/u", "--output",
        dir + "/u2", "--k", "" + k));
    args.addAll(List.of(options));
    assertEquals(0, ToolRunner.run(conf, new RefineUTool(), args.toArray(new String[0])));
    Map<Long, Integer> refined = readParts(fs, new Path(dir, "u2"));
    assertEquals(assign.keySet(), refined.keySet());
    return refined;
  }

  /** Rows per part of an assignment. */
  private static List<Integer> partSizes(Map<Long, Integer> parts, int k) {
    int[] sizes = new int[k];
    parts.values().forEach(p -> sizes[p]++);
    return java.util.Arrays.stream(sizes).boxed().toList();
  }

  /**
   * Clustered rows in k parts round robin (balanced, blind to the clusters), refined with {@code options} in dir:
   * every row kept, every part the same number of rows, M_max not raised and Σ M_i at least 20 % lower.
   */
  private void roundRobinRefinedBetter(Path dir, int k, long seed, int width, String... options) throws Exception {
    FileSystem fs = FileSystem.get(conf);
    Map<Long, long[]> keysOf = new HashMap<>();
    List<GraphRow> rows = clusteredRows(new Random(seed), k, 6, width, keysOf);
    Map<Long, Integer> assign = new HashMap<>();
    for (long id = 0; id < rows.size(); id++) {
      assign.put(id, (int) (id % k));
    }
    Map<Long, Integer> refined = refine(fs, dir, rows, assign, k, options);
    assertEquals(java.util.Collections.nCopies(k, rows.size() / k), partSizes(refined, k));
    long[] before = workingSets(keysOf, assign, k);
    long[] after = workingSets(keysOf, refined, k);
    assertTrue(after[1] <= before[1], "M_max " + before[1] + " -> " + after[1]);
    assertTrue(after[0] < before[0] * 0.8, "sum M " + before[0] + " -> " + after[0]);
  }

  @Test
  void refinedAssignmentKeepsEveryRowAndPartSizesAndLowersWorkingSets() throws Exception {
    FileSystem fs = FileSystem.get(conf);
    Path dir = TestData.tempDir("refine");
    int k = 4;
    roundRobinRefinedBetter(dir, k, 3, 50);
    assertTrue(fs.exists(new Path(dir, "u2/_SUCCESS")));
    assertTrue(fs.exists(new Path(dir, "u2/_refine.json")));

    // existing output: refused without --overwrite
    assertEquals(2, ToolRunner.run(conf, new RefineUTool(), new String[] {"--blocks", dir + "/blocks",
        "--u-assignment", dir + "/u", "--output", dir + "/u2", "--k", "" + k}));
  }

  /**
   * Above 64 parts (presence bits over two words, the targets picked from candidates, f from a table in the max phase,
   * the multilevel start with fewer tries): five rows per part, the working sets lower.
   */
  @Test
  void refinesAtMoreThan64Parts() throws Exception {
    roundRobinRefinedBetter(TestData.tempDir("refine-k80"), 80, 8, 12, "--multilevel", "on");
  }

  /**
   * Rows whose ids follow their communities (as a crawl numbered by site): the input-order start finds them, and
   * refine-u keeps it over the given round-robin start, which it also refines; --starts given keeps the given one.
   */
  @Test
  void inputOrderStartIsKeptWhenItRefinesBetter() throws Exception {
    FileSystem fs = FileSystem.get(conf);
    Path dir = TestData.tempDir("refine-order");
    int k = 4;
    Random rnd = new Random(5);
    List<Long> ids = new ArrayList<>();
    for (long id = 0; id < 400; id++) {
      ids.add(id);
    }
    Map<Long, long[]> keysOf = new HashMap<>();
    Map<Long, Integer> assign = new HashMap<>();
    writeCommunities(fs, dir, rnd, k, ids, keysOf, assign);
    for (String starts : new String[] {"given,order", "given"}) {
      Path out = new Path(dir, "u-" + starts.replace(',', '-'));
      assertEquals(0, ToolRunner.run(conf, new RefineUTool(), new String[] {"--blocks", dir + "/blocks",
          "--u-assignment", dir + "/u", "--output", out.toString(), "--k", "" + k, "--starts", starts,
          "--vcycles", "0", "--capped-vcycles", "0", "--multilevel", "off"}));
    }
    // the starts refined on two threads at once give the same assignment as one after the other
    Configuration two = new Configuration(conf);
    two.setInt(RefineUTool.THREADS, 2);
    assertEquals(0, ToolRunner.run(two, new RefineUTool(), new String[] {"--blocks", dir + "/blocks",
        "--u-assignment", dir + "/u", "--output", dir + "/u-parallel", "--k", "" + k, "--starts", "given,order",
        "--vcycles", "0", "--capped-vcycles", "0", "--multilevel", "off"}));
    Map<Long, Integer> parallel = readParts(fs, new Path(dir, "u-parallel"));
    Map<Long, Integer> both = readParts(fs, new Path(dir, "u-given-order"));
    Map<Long, Integer> given = readParts(fs, new Path(dir, "u-given"));
    assertEquals(assign.keySet(), both.keySet());
    assertEquals(both, parallel);
    assertEquals(List.of(100, 100, 100, 100), partSizes(both, k));
    long[] kept = workingSets(keysOf, both, k);
    long[] fromGiven = workingSets(keysOf, given, k);
    assertTrue(kept[0] < fromGiven[0] && kept[1] < fromGiven[1], "order start: sum/max M " + kept[0] + "/" + kept[1]
        + ", given start refined: " + fromGiven[0] + "/" + fromGiven[1]);
    String json = new String(fs.open(new Path(dir, "u-given-order/_refine.json")).readAllBytes(),
        java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(json.contains("\"start\" : \"order\""), json);
    assertEquals(2, ToolRunner.run(conf, new RefineUTool(), new String[] {"--blocks", dir + "/blocks",
        "--u-assignment", dir + "/u", "--output", dir + "/u-bad", "--k", "" + k, "--starts", "given,metis"}));
  }

  /**
   * Communities whose row ids are shuffled (no locality in the input order): --multilevel off skips the multilevel
   * start; on runs it, it finds the communities that swap rounds from a round-robin start do not, and every row keeps
   * exactly one part with the part sizes unchanged; auto runs it too, for the rows are short (4.9 keys on average), and says why.
   */
  @Test
  void multilevelStartFindsCommunitiesTheInputOrderHides() throws Exception {
    FileSystem fs = FileSystem.get(conf);
    Path dir = TestData.tempDir("refine-ml");
    int k = 4;
    Map<Long, long[]> keysOf = new HashMap<>();
    Map<Long, Integer> assign = new HashMap<>();
    writeShuffledCommunities(fs, dir, new Random(9), k, keysOf, assign);
    for (String when : new String[] {"off", "on", "auto"}) {
      assertEquals(0, ToolRunner.run(conf, new RefineUTool(), new String[] {"--blocks", dir + "/blocks",
          "--u-assignment", dir + "/u", "--output", dir + "/u-" + when, "--k", "" + k, "--multilevel", when,
          "--vcycles", "0", "--capped-vcycles", "0"}));
    }
    // a V-cycle on the given start alone finds them too
    assertEquals(0, ToolRunner.run(conf, new RefineUTool(), new String[] {"--blocks", dir + "/blocks",
        "--u-assignment", dir + "/u", "--output", dir + "/u-vcycle", "--k", "" + k, "--starts", "given",
        "--vcycles", "1"}));
    Map<Long, Integer> vc = readParts(fs, new Path(dir, "u-vcycle"));
    assertEquals(assign.keySet(), vc.keySet());
    assertEquals(List.of(100, 100, 100, 100), partSizes(vc, k));
    String auto = new String(fs.open(new Path(dir, "u-auto/_refine.json")).readAllBytes(),
        java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(auto.contains("\"multilevel\" : \"run: short rows (4.9 keys per row on average, at most 48)"), auto);
    assertTrue(auto.contains("\"start\" : \"multilevel\""), auto);
    String off = new String(fs.open(new Path(dir, "u-off/_refine.json")).readAllBytes(),
        java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(off.contains("\"multilevel\" : \"skipped: --multilevel off"), off);
    String on = new String(fs.open(new Path(dir, "u-on/_refine.json")).readAllBytes(),
        java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(on.contains("\"start\" : \"multilevel\""), on);
    Map<Long, Integer> ml = readParts(fs, new Path(dir, "u-on"));
    Map<Long, Integer> swaps = readParts(fs, new Path(dir, "u-off"));
    assertEquals(assign.keySet(), ml.keySet());
    assertEquals(List.of(100, 100, 100, 100), partSizes(ml, k));
    long[] withMl = workingSets(keysOf, ml, k);
    long[] without = workingSets(keysOf, swaps, k);
    assertTrue(withMl[0] < without[0] && withMl[1] < without[1], "multilevel: sum/max M " + withMl[0] + "/"
        + withMl[1] + ", swap rounds only: " + without[0] + "/" + without[1]);
    long[] withVc = workingSets(keysOf, vc, k);
    assertTrue(withVc[0] < without[0] && withVc[1] < without[1], "V-cycle: sum/max M " + withVc[0] + "/"
        + withVc[1] + ", swap rounds only: " + without[0] + "/" + without[1]);
  }

  /** Communities and tight V-cycle caps are for short rows (graphs) up to k = 16, where they were measured better. */
  @Test
  void communitiesForShortRowsUpToSixteenParts() {
    // 10 rows of 3 keys (short) and 10 rows of 60 keys (long)
    int[] shortStart = new int[11];
    int[] shortKeys = new int[30];
    int[] longStart = new int[11];
    int[] longKeys = new int[600];
    for (int r = 0; r < 10; r++) {
      shortStart[r + 1] = 3 * (r + 1);
      longStart[r + 1] = 60 * (r + 1);
      for (int j = 0; j < 3; j++) {
        shortKeys[3 * r + j] = (r + j) % 12;
      }
      for (int j = 0; j < 60; j++) {
        longKeys[60 * r + j] = r + j;
      }
    }
    io.parsa.engine.RowKeyGraph shortRows = new io.parsa.engine.RowKeyGraph(10, new int[] {0, 10}, shortStart,
        shortKeys, 12);
    io.parsa.engine.RowKeyGraph longRows = new io.parsa.engine.RowKeyGraph(10, new int[] {0, 10}, longStart, longKeys,
        70);
    assertTrue(RefineUTool.communities(shortRows, 16));
    assertTrue(RefineUTool.communities(shortRows, 4));
    assertFalse(RefineUTool.communities(shortRows, RefineUTool.COMMUNITIES_MAX_K + 1));
    assertFalse(RefineUTool.communities(longRows, 16));
  }

  /**
   * Short rows run the multilevel start first; with the default starts, the given start (round robin over communities,
   * its T_sum far above the multilevel start's) is then not refined, and says so in the report. {@code --starts
   * given,order} refines it anyway and ends at the same figures (here the planted communities, which the refined given
   * start reaches too and wins on the tie): the shortcut changes the time, not the result.
   */
  @Test
  void startsFarAboveTheMultilevelStartAreNotRefined() throws Exception {
    FileSystem fs = FileSystem.get(conf);
    Path dir = TestData.tempDir("refine-far");
    int k = 4;
    Map<Long, long[]> keysOf = new HashMap<>();
    Map<Long, Integer> assign = new HashMap<>();
    writeShuffledCommunities(fs, dir, new Random(9), k, keysOf, assign);
    for (String[] extra : new String[][] {{}, {"--starts", "given,order"}}) {
      List<String> args = new ArrayList<>(List.of("--blocks", dir + "/blocks", "--u-assignment", dir + "/u",
          "--output", dir + "/u-" + extra.length, "--k", "" + k));
      args.addAll(List.of(extra));
      assertEquals(0, ToolRunner.run(conf, new RefineUTool(), args.toArray(new String[0])));
    }
    JsonNode fast = JsonFiles.read(fs, new Path(dir, "u-0/_refine.json"), JsonNode.class);
    JsonNode all = JsonFiles.read(fs, new Path(dir, "u-2/_refine.json"), JsonNode.class);
    assertTrue(fast.get("multilevel").asText().startsWith("run: short rows"), fast.toString());
    assertTrue(fast.get("communities").asBoolean(), "short rows coarsen within communities: " + fast);
    JsonNode skipped = fast.get("startsNotRefined");
    assertTrue(skipped != null && skipped.size() >= 1, fast.toString());
    List<String> refined = new ArrayList<>();
    fast.get("starts").forEach(c -> refined.add(c.get("start").asText()));
    for (JsonNode e : skipped) {
      assertTrue(e.get("sumTraffic").asLong() > RefineUTool.FAR_START_RATIO * e.get("multilevelSumTraffic").asLong(),
          e.toString());
      assertTrue(!refined.contains(e.get("start").asText()), fast.toString());
    }
    assertTrue(!refined.contains("given") && refined.contains("multilevel"), refined.toString());
    assertNull(all.get("startsNotRefined"), all.toString());
    List<String> refinedAll = new ArrayList<>();
    all.get("starts").forEach(c -> refinedAll.add(c.get("start").asText()));
    assertTrue(refinedAll.contains("given"), refinedAll.toString());
    JsonNode keptFast = kept(fast);
    JsonNode keptAll = kept(all);
    for (String figure : new String[] {"maxWorkingSet", "sumTraffic", "maxTrafficLowerBound"}) {
      assertEquals(keptAll.get(figure).asLong(), keptFast.get(figure).asLong(), figure + ": " + fast + " / " + all);
    }
    Map<Long, Integer> a = readParts(fs, new Path(dir, "u-0"));
    Map<Long, Integer> b = readParts(fs, new Path(dir, "u-2"));
    assertEquals(assign.keySet(), a.keySet());
    assertEquals(assign.keySet(), b.keySet());
    assertEquals(List.of(100, 100, 100, 100), partSizes(a, k));
    assertEquals(List.of(100, 100, 100, 100), partSizes(b, k));
  }

  /** The start a refine-u report kept. */
  private static JsonNode kept(JsonNode report) {
    for (JsonNode c : report.get("starts")) {
      if (c.get("start").asText().equals(report.get("start").asText())) {
        return c;
      }
    }
    throw new AssertionError("no kept start in " + report);
  }

  /**
   * With four starts on two threads the capped V-cycles run on the one that leads after its swap rounds only: it is
   * the kept start, the three others carry no capped V-cycle in their logs, and every row keeps one part.
   */
  @Test
  void cappedVCyclesRunOnTheLeadingStart() throws Exception {
    FileSystem fs = FileSystem.get(conf);
    Path dir = TestData.tempDir("refine-finalists");
    int k = 4;
    Map<Long, long[]> keysOf = new HashMap<>();
    Map<Long, Integer> assign = new HashMap<>();
    writeShuffledCommunities(fs, dir, new Random(13), k, keysOf, assign);
    Configuration two = new Configuration(conf);
    two.setInt(RefineUTool.THREADS, 2);
    assertEquals(0, ToolRunner.run(two, new RefineUTool(), new String[] {"--blocks", dir + "/blocks",
        "--u-assignment", dir + "/u", "--output", dir + "/out", "--k", "" + k, "--starts", "given,order",
        "--multilevel", "on", "--multilevel-seeds", "2", "--capped-vcycles", "2"}));
    JsonNode json = JsonFiles.read(fs, new Path(dir, "out/_refine.json"), JsonNode.class);
    JsonNode starts = json.get("starts");
    assertEquals(4, starts.size(), json.toString());
    int ran = 0;
    for (JsonNode st : starts) {
      boolean cycles = false;
      for (JsonNode r : st.get("rounds")) {
        cycles |= r.has("cappedVCycle");
      }
      assertEquals(st.get("cappedVcyclesRan").asBoolean(), cycles, st.toString());
      ran += cycles ? 1 : 0;
      if (st.get("kept").asBoolean()) {
        assertTrue(cycles, "the kept start " + st.get("start") + " had no capped V-cycle");
      }
    }
    assertEquals(1, ran, json.toString());
    Map<Long, Integer> out = readParts(fs, new Path(dir, "out"));
    assertEquals(assign.keySet(), out.keySet());
    assertEquals(List.of(100, 100, 100, 100), partSizes(out, k));
  }

  /**
   * With two multilevel seeds on two threads the other starts are refined on the thread the first seed leaves, and the
   * leading seed's capped V-cycles run beside them: the U is the one refined start by start on one thread, whether a
   * seed leads (a round-robin given start refined by swap rounds alone) or the given start does (the communities
   * themselves: the early capped V-cycles are not used, and the given start gets its own).
   */
  @Test
  void startsRefinedBesideTheMultilevelSeedsGiveTheSameU() throws Exception {
    FileSystem fs = FileSystem.get(conf);
    Path dir = TestData.tempDir("refine-beside");
    int k = 4;
    Map<Long, long[]> keysOf = new HashMap<>();
    Map<Long, Integer> assign = new HashMap<>();
    writeShuffledCommunities(fs, dir, new Random(13), k, keysOf, assign);
    Map<Long, Integer> communities = new HashMap<>();
    keysOf.forEach((id, keys) -> communities.put(id, (int) ((keys[0] - 1) / 200)));
    TestData.writeUAssignment(fs, new Path(dir, "u-communities"), communities);
    for (String u : new String[] {"u", "u-communities"}) {
      boolean seedLeads = u.equals("u");
      Map<Integer, Map<Long, Integer>> byThreads = new HashMap<>();
      Map<Integer, JsonNode> reports = new HashMap<>();
      for (int threads : new int[] {1, 2}) {
        Configuration c = new Configuration(conf);
        c.setInt(RefineUTool.THREADS, threads);
        Path out = new Path(dir, u + "-out-" + threads);
        assertEquals(0, ToolRunner.run(c, new RefineUTool(), new String[] {"--blocks", dir + "/blocks",
            "--u-assignment", dir + "/" + u, "--output", out.toString(), "--k", "" + k, "--starts",
            seedLeads ? "given" : "given,order", "--vcycles", seedLeads ? "0" : "1", "--multilevel", "on",
            "--multilevel-seeds", "2", "--capped-vcycles", "2"}));
        byThreads.put(threads, readParts(fs, out));
        reports.put(threads, JsonFiles.read(fs, new Path(out, "_refine.json"), JsonNode.class));
      }
      assertEquals(assign.keySet(), byThreads.get(2).keySet());
      assertEquals(byThreads.get(1), byThreads.get(2), u);
      assertEquals(List.of(100, 100, 100, 100), partSizes(byThreads.get(2), k));
      for (int threads : new int[] {1, 2}) {
        JsonNode json = reports.get(threads);
        assertEquals(seedLeads ? 3 : 4, json.get("starts").size(), json.toString());
        int polished = 0;
        for (JsonNode st : json.get("starts")) {
          polished += st.get("cappedVcyclesRan").asBoolean() ? 1 : 0;
          if (st.get("kept").asBoolean()) {
            assertTrue(st.get("cappedVcyclesRan").asBoolean(), json.toString());
          }
        }
        assertEquals(1, polished, json.toString());
      }
      assertEquals(reports.get(1).get("start").asText(), reports.get(2).get("start").asText());
      if (seedLeads) {
        assertTrue(reports.get(2).get("start").asText().startsWith("multilevel"), reports.get(2).toString());
      } else {
        assertEquals("given", reports.get(2).get("start").asText(), reports.get(2).toString());
        assertEquals(communities, byThreads.get(2));
      }
    }
  }

  /**
   * Rows 0..399 in shuffled order, four communities of 100 rows with 12 keys each: community 0 draws its keys from 400
   * (a part holding it holds all 400), the others from 40 each. Connectivity alone keeps the communities whole, so the
   * multilevel start's largest working set is about three times the mean, and the descent takes it down.
   */
  private static List<GraphRow> unevenCommunities(Random rnd, Map<Long, long[]> keysOf) {
    List<Long> ids = new ArrayList<>();
    for (long id = 0; id < 400; id++) {
      ids.add(id);
    }
    java.util.Collections.shuffle(ids, rnd);
    List<GraphRow> rows = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      int community = i / 100;
      // community 0: 12 keys of 2,000 (nearly all its own); the others: ten groups of ten rows, 6 keys of the group's 8
      long base = community == 0 ? 1 : 2001 + (community - 1) * 80 + (i % 100) / 10 * 8;
      long[] own = community == 0 ? rnd.longs(40, 0, 2000).distinct().limit(12).map(x -> base + x).toArray()
          : rnd.longs(40, 0, 8).distinct().limit(6).map(x -> base + x).toArray();
      // and two of 200 keys that every community uses
      long[] keys = java.util.stream.LongStream.concat(java.util.Arrays.stream(own),
          rnd.longs(10, 3000, 3200).distinct().limit(2)).toArray();
      rows.add(TestData.libsvmRow(ids.get(i), keys));
      keysOf.put(ids.get(i), keys);
    }
    return rows;
  }

  private static Map<String, Object> descentStep(int step, boolean kept, long mMax, long tSum) {
    return Map.of("descentStep", step, "kept", kept, "maxWorkingSet", mMax, "sumTraffic", tSum);
  }

  /**
   * The knee of a descent: the last step kept before the first whose T_sum rises by more than a quarter of its M_max's
   * fall (the first step, which takes the outliers down, is not judged); none where the first step was not kept; the
   * room is the smallest knee of the seeds, and only where no room was given and the max guard is on.
   */
  @Test
  void theKneeIsTheLastStepThatLoweredMMaxAtLittleCostInTSum() {
    Map<String, Object> first = descentStep(1, true, 20_000, 188_000); // +12 % T_sum: not judged
    Map<String, Object> free = descentStep(2, true, 18_000, 192_600); // -10 % for +2.45 %: free
    Map<String, Object> costly = descentStep(3, true, 16_200, 197_500); // -10 % for +2.54 %: not free
    List<Map<String, Object>> log = List.of(Map.of("exponent", 8.0), first, free, costly, descentStep(4, true, 15_000,
        197_700), Map.of("exponent", 1.0));
    assertEquals(18_000, RefineUTool.knee(log));
    assertEquals(18_000, RefineUTool.knee(List.of(first, free, descentStep(3, false, 16_200, 197_600))));
    assertEquals(20_000, RefineUTool.knee(List.of(first)));
    assertEquals(0, RefineUTool.knee(List.of(descentStep(1, false, 20_000, 188_000))));
    assertEquals(0, RefineUTool.knee(List.of(Map.of("exponent", 8.0))));
    assertEquals(18_000, RefineUTool.kneeRoom(List.of(List.of(), log, List.of(first))));
    assertEquals(0, RefineUTool.kneeRoom(List.of(List.of(), List.of())));
    RefineUTool.Guard none = new RefineUTool.Guard(true, 0);
    assertEquals(new RefineUTool.Guard(true, 18_000), RefineUTool.kneeGuard(none, true, List.of(log)));
    assertEquals(none, RefineUTool.kneeGuard(none, false, List.of(log)));
    RefineUTool.Guard given = new RefineUTool.Guard(true, 17_421);
    assertEquals(given, RefineUTool.kneeGuard(given, true, List.of(log)));
    RefineUTool.Guard off = new RefineUTool.Guard(false, 0);
    assertEquals(off, RefineUTool.kneeGuard(off, true, List.of(log)));
  }

  /** The largest working set of the last descent step each start kept (its knee), from {@code _refine.json}. */
  private static List<Long> lastKeptDescentSteps(JsonNode json) {
    List<Long> knees = new ArrayList<>();
    for (JsonNode st : json.get("starts")) {
      long last = 0;
      for (JsonNode e : st.get("rounds")) {
        if (e.has("descentStep") && e.get("kept").asBoolean()) {
          last = e.get("maxWorkingSet").asLong();
        }
      }
      if (last > 0) {
        knees.add(last);
      }
    }
    return knees;
  }

  /**
   * The balanced objective without a room: where the multilevel seeds descend, each ends its descent at its knee, the
   * smallest knee is every start's room, a seed above it descends to it, and the refined U holds every working set
   * within it, with balanced rows and every row once, the same on one thread as on two; {@code knee-room=false}
   * and {@code --objective max} give no room and descend further.
   */
  @Test
  void theDescentsKneeIsTheRoomOfTheBalancedObjective() throws Exception {
    FileSystem fs = FileSystem.get(conf);
    Path dir = TestData.tempDir("refine-knee");
    int k = 4;
    Map<Long, long[]> keysOf = new HashMap<>();
    List<GraphRow> rows = unevenCommunities(new Random(3), keysOf);
    Map<Long, Integer> assign = new HashMap<>();
    for (long id = 0; id < rows.size(); id++) {
      assign.put(id, (int) (id % k));
    }
    TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, 3);
    TestData.writeUAssignment(fs, new Path(dir, "u"), assign);
    Map<String, Map<Long, Integer>> parts = new HashMap<>();
    Map<String, JsonNode> reports = new HashMap<>();
    for (String run : new String[] {"t1", "t2", "off", "max"}) {
      Configuration c = new Configuration(conf);
      c.setInt(RefineUTool.THREADS, run.equals("t1") ? 1 : 2);
      c.setBoolean(RefineUTool.KNEE_ROOM, !run.equals("off"));
      Path out = new Path(dir, "u-" + run);
      List<String> args = new ArrayList<>(List.of("--blocks", dir + "/blocks", "--u-assignment", dir + "/u",
          "--output", out.toString(), "--k", "" + k));
      if (run.equals("max")) {
        args.addAll(List.of("--objective", "max"));
      }
      assertEquals(0, ToolRunner.run(c, new RefineUTool(), args.toArray(new String[0])));
      parts.put(run, readParts(fs, out));
      assertEquals(assign.keySet(), parts.get(run).keySet(), run);
      assertEquals(List.of(100, 100, 100, 100), partSizes(parts.get(run), k), run);
      reports.put(run, JsonFiles.read(fs, new Path(out, "_refine.json"), JsonNode.class));
    }
    JsonNode json = reports.get("t2");
    List<Long> knees = lastKeptDescentSteps(json);
    assertEquals(2, knees.size(), json.toString()); // both seeds descended
    long room = java.util.Collections.min(knees);
    assertEquals(room, json.get("maxWorkingSetRoom").asLong(), json.toString());
    assertTrue(json.has("maxWorkingSetRoomFrom"), json.toString());
    assertTrue(json.get("withinMaxWorkingSetRoom").asBoolean(), json.toString());
    long[] m = MrRefinementTest.workingSetsPerPart(keysOf, parts.get("t2"), k);
    assertTrue(java.util.Arrays.stream(m).allMatch(x -> x <= room), java.util.Arrays.toString(m) + " room " + room);
    // the seed whose knee is above the room came down to it before its rounds
    boolean toRoom = false;
    for (JsonNode st : json.get("starts")) {
      for (JsonNode e : st.get("rounds")) {
        if (e.has("descentToRoom")) {
          assertEquals(room, e.get("descentToRoom").asLong());
          assertTrue(e.get("maxWorkingSet").asLong() <= room, e.toString());
          toRoom = true;
        }
      }
    }
    assertTrue(toRoom == (java.util.Collections.max(knees) > room), json.toString());
    assertEquals(parts.get("t1"), parts.get("t2"));
    assertEquals(json.get("maxWorkingSetRoom"), reports.get("t1").get("maxWorkingSetRoom"));
    // without the knee's room: no room, and the descent goes past the knee (its rule is T_sum's rise against M_max's)
    for (String run : new String[] {"off", "max"}) {
      JsonNode other = reports.get(run);
      assertFalse(other.has("maxWorkingSetRoom"), other.toString());
      assertTrue(java.util.Collections.min(lastKeptDescentSteps(other)) < room, other.toString());
    }
    // the room is there to lower the total: here below the U refined without it (with the keys placed where they are
    // used, T_sum = 2 · (Σ M_i − keys), and both place the same keys, so T_sum compares as Σ M_i does)
    long sumRoom = workingSets(keysOf, parts.get("t2"), k)[0];
    long sumOff = workingSets(keysOf, parts.get("off"), k)[0];
    assertTrue(sumRoom < sumOff, "sum M " + sumRoom + " vs " + sumOff);
  }

  /**
   * --objective decides which refined start is kept: the three figures on balance, the two maxima, or the total (the
   * ego-twitter figures of docs/quality.md §10, plus a start with lower maxima and a higher total).
   */
  @Test
  void objectiveDecidesWhichStartIsKept() {
    long[] balanced = {13_586, 13_627, 206_388};
    long[] total = {34_557, 31_409, 169_176};
    long[] maxima = {12_000, 14_000, 230_000};
    List<long[]> starts = List.of(balanced, total, maxima);
    assertEquals(0, RefineUTool.Objective.BALANCED.best(starts));
    assertEquals(1, RefineUTool.Objective.TOTAL.best(starts));
    assertEquals(2, RefineUTool.Objective.MAX.best(starts));
    // a start better on all three wins under every objective; the first of equals is kept
    long[] dominant = {12_000, 13_000, 160_000};
    for (RefineUTool.Objective o : RefineUTool.Objective.values()) {
      assertEquals(3, o.best(List.of(balanced, total, maxima, dominant)), o.id());
      assertEquals(0, o.best(List.of(balanced, balanced.clone())), o.id());
    }
    // ties on the primary figure are broken by the others
    assertEquals(1, RefineUTool.Objective.TOTAL.best(List.of(new long[] {20, 20, 100}, new long[] {10, 10, 100})));
    assertEquals(1, RefineUTool.Objective.MAX.best(List.of(new long[] {10, 10, 200}, new long[] {10, 10, 100})));
    // a capped V-cycle is kept only if it improves the objective
    assertTrue(RefineUTool.Objective.TOTAL.improves(new long[] {14_000, 14_000, 200_000}, balanced));
    assertTrue(!RefineUTool.Objective.MAX.improves(new long[] {14_000, 14_000, 200_000}, balanced));
    assertTrue(!RefineUTool.Objective.BALANCED.improves(balanced, balanced));
  }

  /** --objective total refines with the connectivity schedule and records it; an unknown objective is refused. */
  @Test
  void objectiveTotalRunsTheConnectivityScheduleAndKeepsRowsBalanced() throws Exception {
    FileSystem fs = FileSystem.get(conf);
    Path dir = TestData.tempDir("refine-objective");
    int k = 4;
    Map<Long, long[]> keysOf = new HashMap<>();
    Map<Long, Integer> assign = new HashMap<>();
    writeShuffledCommunities(fs, dir, new Random(5), k, keysOf, assign);
    assertEquals(0, ToolRunner.run(conf, new RefineUTool(), new String[] {"--blocks", dir + "/blocks",
        "--u-assignment", dir + "/u", "--output", dir + "/u-total", "--k", "" + k, "--objective", "total"}));
    Map<Long, Integer> refined = readParts(fs, new Path(dir, "u-total"));
    assertEquals(assign.keySet(), refined.keySet());
    assertEquals(List.of(100, 100, 100, 100), partSizes(refined, k));
    long[] before = workingSets(keysOf, assign, k);
    long[] after = workingSets(keysOf, refined, k);
    assertTrue(after[0] < before[0] && after[1] <= before[1], "sum/max M " + before[0] + "/" + before[1] + " -> "
        + after[0] + "/" + after[1]);
    String json = new String(fs.open(new Path(dir, "u-total/_refine.json")).readAllBytes(),
        java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(json.contains("\"objective\" : \"total\""), json);
    assertTrue(json.replaceAll("\\s", "").contains("\"schedule\":[1.0]"), json);
    assertEquals(2, ToolRunner.run(conf, new RefineUTool(), new String[] {"--blocks", dir + "/blocks",
        "--u-assignment", dir + "/u", "--output", dir + "/u-bad", "--k", "" + k, "--objective", "speed"}));
  }

  /**
   * --max-working-set: refine-u with room above the largest working set the plain run leaves holds every working set
   * within it, keeps rows balanced and every row, records the room; a room below that largest working set leaves the
   * plain run's U and records that it was not met; --no-max-guard and 0 refuse it.
   */
  @Test
  void roomPerMachineHoldsEveryWorkingSetWithinIt() throws Exception {
    FileSystem fs = FileSystem.get(conf);
    Path dir = TestData.tempDir("refine-room");
    int k = 4;
    Map<Long, long[]> keysOf = new HashMap<>();
    Map<Long, Integer> assign = new HashMap<>();
    writeShuffledCommunities(fs, dir, new Random(9), k, keysOf, assign);
    String[] base = {"--blocks", dir + "/blocks", "--u-assignment", dir + "/u", "--k", "" + k, "--objective", "total",
        "--schedule", "8,1"};
    assertEquals(0, ToolRunner.run(conf, new RefineUTool(), concat(base, "--output", dir + "/u-plain")));
    long plainMax = workingSets(keysOf, readParts(fs, new Path(dir, "u-plain")), k)[1];
    long room = plainMax + plainMax / 10;
    assertEquals(0, ToolRunner.run(conf, new RefineUTool(), concat(base, "--output", dir + "/u-room",
        "--max-working-set", "" + room)));
    Map<Long, Integer> refined = readParts(fs, new Path(dir, "u-room"));
    assertEquals(assign.keySet(), refined.keySet());
    assertEquals(List.of(100, 100, 100, 100), partSizes(refined, k));
    long[] before = workingSets(keysOf, assign, k);
    long[] after = workingSets(keysOf, refined, k);
    assertTrue(after[1] <= room, "M_max " + after[1] + " above the room " + room);
    assertTrue(after[0] < before[0], "sum M " + before[0] + " -> " + after[0]);
    String json = new String(fs.open(new Path(dir, "u-room/_refine.json")).readAllBytes(),
        java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(json.replaceAll("\\s", "").contains("\"maxWorkingSetRoom\":" + room), json);
    assertTrue(json.replaceAll("\\s", "").contains("\"withinMaxWorkingSetRoom\":true"), json);
    // a room below the largest working set the max-weighted rounds leave is not used: the plain run's U, and said so
    assertEquals(0, ToolRunner.run(conf, new RefineUTool(), concat(base, "--output", dir + "/u-small",
        "--max-working-set", "1")));
    assertEquals(readParts(fs, new Path(dir, "u-plain")), readParts(fs, new Path(dir, "u-small")));
    String small = new String(fs.open(new Path(dir, "u-small/_refine.json")).readAllBytes(),
        java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(small.replaceAll("\\s", "").contains("\"withinMaxWorkingSetRoom\":false"), small);
    assertEquals(2, ToolRunner.run(conf, new RefineUTool(), concat(base, "--output", dir + "/u-ng",
        "--max-working-set", "" + room, "--no-max-guard")));
    assertEquals(2, ToolRunner.run(conf, new RefineUTool(), concat(base, "--output", dir + "/u-zero",
        "--max-working-set", "0")));
  }

  /**
   * The rule that keeps a capped V-cycle by its largest working set: without a room (or with one below M_max, which is
   * not used) it may rise by CAP_SLACK for the final row balancing; a room in use is held exactly, also where the
   * working sets have grown up to it (the slack had let the cycles from there lift M_max to 17,520 on ego-twitter with
   * a room of 17,400).
   */
  @Test
  void aCappedVCycleHoldsARoomTheWorkingSetsHaveReached() {
    RefineUTool.Guard none = new RefineUTool.Guard(true, 0);
    assertTrue(none.held(1000, 1010));
    assertFalse(none.held(1000, 1011));
    RefineUTool.Guard reached = new RefineUTool.Guard(true, 1000);
    assertTrue(reached.roomUsed(1000));
    assertTrue(reached.held(1000, 1000));
    assertFalse(reached.held(1000, 1001), "a room the working sets reached is held exactly");
    RefineUTool.Guard above = new RefineUTool.Guard(true, 1200);
    assertTrue(above.held(1000, 1200));
    assertFalse(above.held(1000, 1201));
    RefineUTool.Guard below = new RefineUTool.Guard(true, 900);
    assertFalse(below.roomUsed(1000));
    assertTrue(below.held(1000, 1010), "a room below M_max is not used: the slack as without it");
    assertFalse(below.held(1000, 1011));
    assertFalse(new RefineUTool.Guard(false, 0).roomUsed(1000));
  }

  /**
   * --max-working-set in the distributed rounds (swap rounds, chunk rounds or group rounds, the group V-cycles after
   * them): with room at the start's largest working set, the p = 1 rounds and the V-cycles after them run with it
   * (logged per round) and hold every working set within it; the total falls, every row is kept, rows stay balanced,
   * the room is recorded.
   */
  @Test
  void roomPerMachineHoldsInTheDistributedRounds() throws Exception {
    FileSystem fs = FileSystem.get(conf);
    Path dir = TestData.tempDir("refine-room-mr");
    int k = 4;
    Map<Long, long[]> keysOf = new HashMap<>();
    Map<Long, Integer> assign = new HashMap<>();
    // clusters of unequal sizes whose rows also use keys of a common pool: balanced parts must mix them
    Random rnd = new Random(5);
    writeRoundRobin(fs, dir, 400, k, id -> {
      int cluster = rnd.nextInt(k);
      return rnd.ints(8, 0, 2).mapToLong(common -> common == 1 ? 1000 + rnd.nextInt(300)
          : 1 + cluster * 60 + rnd.nextInt(60)).distinct().toArray();
    }, keysOf, assign);
    long[] before = workingSets(keysOf, assign, k);
    long room = before[1];
    for (String form : List.of("swaps", "chunks", "groups")) {
      assertEquals(0, ToolRunner.run(conf, new RefineUTool(), new String[] {"--blocks", dir + "/blocks",
          "--u-assignment", dir + "/u-aligned", "--k", "" + k, "--mode", "mapreduce", "--objective", "total",
          "--schedule", "8,1", "--distributed-rounds", form, "--multilevel", "off", "--starts", "given", "--vcycles",
          "0", "--capped-vcycles", "1", "--rounds", "4", "--max-working-set", "" + room, "--output",
          dir + "/room-" + form}));
      Map<Long, Integer> refined = readParts(fs, new Path(dir, "room-" + form));
      assertEquals(assign.keySet(), refined.keySet(), form);
      assertEquals(List.of(100, 100, 100, 100), partSizes(refined, k), form);
      long[] after = workingSets(keysOf, refined, k);
      assertTrue(after[1] <= room, form + ": M_max " + after[1] + " above the room " + room);
      assertTrue(after[0] < before[0], form + ": sum M " + before[0] + " -> " + after[0]);
      JsonNode json = JsonFiles.read(fs, new Path(dir, "room-" + form + "/_refine.json"), JsonNode.class);
      assertEquals(room, json.get("maxWorkingSetRoom").asLong(), json.toString());
      assertTrue(json.get("withinMaxWorkingSetRoom").asBoolean(), json.toString());
      int roomed = 0;
      for (JsonNode r : json.get("rounds")) {
        boolean p1 = r.path("exponent").asDouble(0) == 1.0 && (r.has("round") || r.has("groupVCycle")
            && !r.path("phase").asText().contains("before"));
        if (p1 && r.path("maxWorkingSet").asLong(0) < room) {
          assertEquals(room, r.path("room").asLong(0), form + ": " + r);
          roomed++;
        }
      }
      assertTrue(roomed >= 2, form + ": rounds with room " + roomed + " in " + json.get("rounds"));
    }
  }

  /**
   * --capped-vcycles N given with --mode mapreduce runs all N group V-cycles after the rounds, as the in-memory path
   * runs its N capped V-cycles: a cycle of small gain does not end them (it does where the count is the default).
   * Every cycle keeps the rows, the balance and the largest working set.
   */
  @Test
  void aGivenCountOfGroupVCyclesAfterTheRoundsRunsThemAll() throws Exception {
    FileSystem fs = FileSystem.get(conf);
    Path dir = TestData.tempDir("refine-every-after");
    int k = 4;
    Map<Long, long[]> keysOf = new HashMap<>();
    Map<Long, Integer> assign = new HashMap<>();
    // rows of uniformly random keys: the V-cycles after the rounds keep finding a little
    Random rnd = new Random(11);
    writeRoundRobin(fs, dir, 2000, k, id -> rnd.longs(10, 1, 1500).distinct().toArray(), keysOf, assign);
    int given = 6;
    assertEquals(0, ToolRunner.run(conf, new RefineUTool(), new String[] {"--blocks", dir + "/blocks",
        "--u-assignment", dir + "/u-aligned", "--k", "" + k, "--mode", "mapreduce", "--distributed-rounds", "groups",
        "--multilevel", "off", "--starts", "given", "--vcycles", "0", "--capped-vcycles", "" + given, "--rounds", "4",
        "--output", dir + "/every"}));
    JsonNode json = JsonFiles.read(fs, new Path(dir, "every/_refine.json"), JsonNode.class);
    long after = 0;
    long maxWorkingSet = Long.MAX_VALUE;
    for (JsonNode r : json.get("rounds")) {
      if (r.has("groupVCycle") && r.path("phase").asText().contains("after")) {
        after++;
        assertTrue(r.get("maxWorkingSet").asLong() <= maxWorkingSet, "M_max rose: " + r);
        maxWorkingSet = r.get("maxWorkingSet").asLong();
      }
    }
    assertEquals(given, after, "group V-cycles after the rounds in " + json.get("rounds"));
    Map<Long, Integer> refined = readParts(fs, new Path(dir, "every"));
    assertEquals(assign.keySet(), refined.keySet());
    assertEquals(List.of(500, 500, 500, 500), partSizes(refined, k));
    assertTrue(workingSets(keysOf, refined, k)[0] < workingSets(keysOf, assign, k)[0]);
  }

  /**
   * Rows 0..n−1 with the keys {@code keys} gives each (into {@code keysOf}), assigned round robin over k parts (into
   * {@code assign}), written as 3 blocks under dir/blocks with their assignment under dir/u-aligned.
   */
  private static void writeRoundRobin(FileSystem fs, Path dir, int n, int k,
      java.util.function.LongFunction<long[]> keys, Map<Long, long[]> keysOf, Map<Long, Integer> assign)
      throws java.io.IOException {
    List<GraphRow> rows = new ArrayList<>();
    for (long id = 0; id < n; id++) {
      long[] ks = keys.apply(id);
      rows.add(TestData.libsvmRow(id, ks));
      keysOf.put(id, ks);
      assign.put(id, (int) (id % k));
    }
    TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, 3);
    TestData.writeAlignedUAssignment(fs, new Path(dir, "u-aligned"), rows, 3, assign);
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /**
   * Weighted rows (weight = key count, 1 to 8): a start balanced by weight (each row to the lightest part, as
   * partition-u --weighted does) is refined with every part's weight still within the heaviest row's weight, no row
   * lost, and the working sets lower; _refine.json records the weights per part. Whole weights get the V-cycles too
   * (the multilevel partitioner weighs its vertices in integers).
   */
  @Test
  void weightedRowsKeepEveryPartsWeightWithinTheHeaviestRow() throws Exception {
    JsonNode j = refineWeighted("refine-weighted", 0);
    assertEquals(0, j.get("vcycles").asInt(), "none before the swap rounds by default: " + j);
    assertTrue(j.get("cappedVcycles").asInt() >= 1, j.toString());
    assertTrue(j.get("rounds").toString().contains("cappedVCycle"), "a capped V-cycle ran: " + j.get("rounds"));
    // asked for, a V-cycle before the rounds weighs the rows too
    assertEquals(1, refineWeighted("refine-weighted-pre", 0, "--vcycles", "1").get("vcycles").asInt());
    // and the multilevel start places them by weight (kept only if its parts end as balanced)
    JsonNode ml = refineWeighted("refine-weighted-ml", 0, "--multilevel", "on");
    assertTrue(ml.get("multilevel").asText().startsWith("run"), ml.toString());
    assertTrue(ml.get("starts").toString().contains("multilevel"), ml.toString());
  }

  /**
   * Weighted rows whose clusters follow the id order, started from the lightest part in id order (blind to the
   * clusters): the input-order start, cut by weight, is refined and kept, finds the clusters, and keeps every part's
   * weight within the heaviest row's.
   */
  @Test
  void weightedInputOrderStartIsCutByWeightAndKeptWhereItRefinesBetter() throws Exception {
    FileSystem fs = FileSystem.get(conf);
    Path dir = TestData.tempDir("refine-weighted-order");
    int k = 4;
    Random rnd = new Random(21);
    Map<Long, long[]> keysOf = new HashMap<>();
    List<GraphRow> rows = new ArrayList<>();
    for (long id = 0; id < 400; id++) {
      int cluster = (int) (id * k / 400);
      long[] keys = rnd.longs(1 + rnd.nextInt(8), 0, 60).distinct().map(x -> 1 + cluster * 60 + x).toArray();
      rows.add(TestData.libsvmRow(id, keys));
      keysOf.put(id, keys);
    }
    Map<Long, Double> weightOf = new HashMap<>();
    Map<Long, Integer> assign = lightestPartStart(rows, keysOf, 0, k, weightOf);
    Map<Long, Integer> refined = refine(fs, dir, rows, assign, k, "--starts", "given,order", "--vcycles", "0",
        "--capped-vcycles", "0", "--multilevel", "off");
    double[] w = new double[k];
    refined.forEach((id, p) -> w[p] += weightOf.get(id));
    double spread = java.util.Arrays.stream(w).max().getAsDouble() - java.util.Arrays.stream(w).min().getAsDouble();
    assertTrue(spread <= 8 + 1e-9, "part weights " + java.util.Arrays.toString(w));
    JsonNode j = JsonFiles.MAPPER.readTree(fs.open(new Path(dir, "u2/_refine.json")));
    assertEquals("order", j.get("start").asText(), j.toString());
    long[] before = workingSets(keysOf, assign, k);
    long[] after = workingSets(keysOf, refined, k);
    assertTrue(after[0] < before[0] / 2 && after[1] < before[1] / 2, "sum/max M " + before[0] + "/" + before[1] + " -> "
        + after[0] + "/" + after[1]);
  }

  /** Weights that are not whole numbers: the swap rounds alone, with the same guarantees. */
  @Test
  void fractionalWeightsAreRefinedBySwapRoundsAlone() throws Exception {
    JsonNode j = refineWeighted("refine-weighted-frac", 0.5, "--multilevel", "on");
    assertEquals(0, j.get("vcycles").asInt(), j.toString());
    assertEquals(0, j.get("cappedVcycles").asInt(), j.toString());
    assertTrue(j.get("multilevel").asText().startsWith("skipped: weighted rows it cannot weigh"), j.toString());
  }

  /**
   * Weighs every row its key count + {@code extra} (into {@code weightOf} too) and puts each, in row order, in the
   * lightest part so far, as partition-u --weighted does: a start balanced by weight, blind to the rows' keys.
   */
  private static Map<Long, Integer> lightestPartStart(List<GraphRow> rows, Map<Long, long[]> keysOf, double extra,
      int k, Map<Long, Double> weightOf) {
    Map<Long, Integer> assign = new HashMap<>();
    double[] load = new double[k];
    for (GraphRow row : rows) {
      long id = row.getId();
      double w = keysOf.get(id).length + extra;
      row.setWeight(w);
      weightOf.put(id, w);
      int p = 0;
      for (int i = 1; i < k; i++) {
        p = load[i] < load[p] ? i : p;
      }
      assign.put(id, p);
      load[p] += w;
    }
    return assign;
  }

  /**
   * {@link #weightedRowsKeepEveryPartsWeightWithinTheHeaviestRow} with every weight + {@code extra} and refine-u's
   * {@code options}; its _refine.json.
   */
  private JsonNode refineWeighted(String name, double extra, String... options) throws Exception {
    FileSystem fs = FileSystem.get(conf);
    Path dir = TestData.tempDir(name);
    int k = 4;
    Map<Long, long[]> keysOf = new HashMap<>();
    List<GraphRow> rows = clusteredRows(new Random(17), k, 8, 60, keysOf);
    Map<Long, Double> weightOf = new HashMap<>();
    Map<Long, Integer> assign = lightestPartStart(rows, keysOf, extra, k, weightOf);
    Map<Long, Integer> refined = refine(fs, dir, rows, assign, k, options);
    double[] w = new double[k];
    refined.forEach((id, p) -> w[p] += weightOf.get(id));
    double spread = java.util.Arrays.stream(w).max().getAsDouble() - java.util.Arrays.stream(w).min().getAsDouble();
    assertTrue(spread <= 8 + extra + 1e-9, "part weights " + java.util.Arrays.toString(w));
    long[] before = workingSets(keysOf, assign, k);
    long[] after = workingSets(keysOf, refined, k);
    assertTrue(after[1] <= before[1] && after[0] < before[0] * 0.8, "sum/max M " + before[0] + "/" + before[1]
        + " -> " + after[0] + "/" + after[1]);
    String json = new String(fs.open(new Path(dir, "u2/_refine.json")).readAllBytes(),
        java.nio.charset.StandardCharsets.UTF_8);
    assertTrue(json.contains("\"weightPerPart\""), json);
    return JsonFiles.MAPPER.readTree(json);
  }

  /**
   * The V-cycles run by default: all up to 8·10^6 non-zeros, then one capped V-cycle and none before the swap rounds
   * while non-zeros × k is at most 3.2·10^8 (2·10^7 at k = 16), then none; never more than the defaults given.
   */
  @Test
  void defaultVCyclesFollowTheInputSizeAndK() {
    long all = RefineUTool.AUTO_VCYCLE_MAX_NONZEROS;
    long work = RefineUTool.AUTO_CAPPED_VCYCLE_MAX_WORK;
    assertArrayEquals(new int[] {1, 3}, RefineUTool.autoCycles(all, 256, 1, 3));
    assertArrayEquals(new int[] {0, 1}, RefineUTool.autoCycles(all + 1, 16, 1, 3));
    assertArrayEquals(new int[] {0, 1}, RefineUTool.autoCycles(work / 16, 16, 1, 3));
    assertArrayEquals(new int[] {0, 0}, RefineUTool.autoCycles(work / 16 + 1, 16, 1, 3));
    assertArrayEquals(new int[] {0, 1}, RefineUTool.autoCycles(10_000_000, 32, 1, 3));
    assertArrayEquals(new int[] {0, 0}, RefineUTool.autoCycles(10_000_000, 64, 1, 3));
    assertArrayEquals(new int[] {0, 0}, RefineUTool.autoCycles(10_000_000, 16, 1, 0));
    assertArrayEquals(new int[] {2, 0}, RefineUTool.autoCycles(1_000, 2, 2, 0));
  }

  /** auto: short rows run the multilevel start; long rows need locality in the input order, and say so. */
  @Test
  void multilevelAutoRuleSaysWhy() {
    assertTrue(RefineUTool.multilevelReason("auto", false, -1, -1, 100, 4_800).startsWith("run: short rows (48.0"));
    assertEquals("skipped: long rows (48.5 keys per row on average) and auto needs both the 'given' and the 'order'"
        + " starts to detect locality", RefineUTool.multilevelReason("auto", false, -1, -1, 200, 9_700));
    assertEquals("run: --multilevel on", RefineUTool.multilevelReason("on", false, -1, -1, 200, 9_700));
    // short rows above the size up to which they run it by default
    assertTrue(RefineUTool.multilevelReason("auto", false, -1, -1, 1_000_000, 10_000_000)
        .startsWith("skipped: large input (10.0 keys per row on average, but 10,000,000 non-zeros, above the 8,000,000"),
        RefineUTool.multilevelReason("auto", false, -1, -1, 1_000_000, 10_000_000));
    assertTrue(RefineUTool.multilevelReason("auto", true, -1, -1, 100, 100).startsWith("skipped: weighted rows it cannot"
        + " weigh"));
    // long rows: the input-order start's T_sum at most half the given start's shows locality
    assertEquals("run: the input order shows locality (input-order start T_sum 500 vs given start 1,000)",
        RefineUTool.multilevelReason("auto", false, 1_000, 500, 200, 9_700));
    assertTrue(RefineUTool.multilevelReason("auto", false, 1_000, 501, 200, 9_700)
        .startsWith("skipped: long rows (48.5 keys per row on average) and no locality in the input order"));
  }

  /**
   * A u-assignment that does not match the blocks is a usage error naming the row and the files, whichever of the
   * reading threads finds it: a row without a part, a part outside [0, k), a row no block holds; nothing is written.
   */
  @Test
  void rowMissingFromTheAssignmentIsAUsageError() throws Exception {
    FileSystem fs = FileSystem.get(conf);
    Path dir = TestData.tempDir("refine-missing");
    TestData.writeBlocks(fs, new Path(dir, "blocks"), List.of(TestData.libsvmRow(0, 1), TestData.libsvmRow(1, 2)), 1);
    String[][] cases = {
        {"u-missing", "row 1 of block ", "has no part in the u-assignment"},
        {"u-range", "record ", "has part 5, expected a part in [0, 2)"},
        {"u-extra", "assigns 1 row(s) that no block of", "e.g. row 7"}};
    List<Map<Long, Integer>> assignments = List.of(Map.of(0L, 0), Map.of(0L, 0, 1L, 5), Map.of(0L, 0, 1L, 1, 7L, 1));
    for (int c = 0; c < cases.length; c++) {
      Path u = new Path(dir, cases[c][0]);
      TestData.writeUAssignment(fs, u, assignments.get(c));
      java.io.PrintStream saved = System.err;
      java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
      int rc;
      try {
        System.setErr(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
        rc = ToolRunner.run(conf, new RefineUTool(), new String[] {"--blocks", dir + "/blocks", "--u-assignment",
            u.toString(), "--output", dir + "/out-" + c, "--k", "2"});
      } finally {
        System.setErr(saved);
      }
      String text = err.toString(java.nio.charset.StandardCharsets.UTF_8);
      assertEquals(2, rc, text);
      assertTrue(text.contains(cases[c][1]) && text.contains(cases[c][2]), text);
      assertTrue(!fs.exists(new Path(dir, "out-" + c)));
    }
  }
}
