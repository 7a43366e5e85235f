package io.parsa.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class MultilevelPartitionerTest {

  /**
   * Rows of {@code groups} planted groups: each row takes {@code deg} keys from its group's private pool and, with
   * probability {@code noise}, one key from a shared pool; rows are shuffled over {@code nBlocks} blocks.
   */
  private static List<Block> planted(SplittableRandom rnd, int rows, int groups, int pool, int deg, double noise,
      int nBlocks, int[] groupOf) {
    List<List<Integer>> byBlock = new ArrayList<>();
    for (int b = 0; b < nBlocks; b++) {
      byBlock.add(new ArrayList<>());
    }
    for (int r = 0; r < rows; r++) {
      byBlock.get(rnd.nextInt(nBlocks)).add(r);
    }
    List<Block> out = new ArrayList<>();
    for (List<Integer> members : byBlock) {
      long[] ids = new long[members.size()];
      int[] start = new int[members.size() + 1];
      List<Long> keys = new ArrayList<>();
      for (int i = 0; i < members.size(); i++) {
        int r = members.get(i);
        ids[i] = r;
        int g = r % groups;
        groupOf[r] = g;
        for (int d = 0; d < deg; d++) {
          keys.add((long) g * pool + rnd.nextInt(pool));
        }
        if (rnd.nextDouble() < noise) {
          keys.add(1_000_000L + rnd.nextInt(pool));
        }
        start[i + 1] = keys.size();
      }
      out.add(new Block(ids, start, keys.stream().mapToLong(Long::longValue).toArray(), null));
    }
    return out;
  }

  /** n rows of up to {@code maxDeg} distinct keys each (ascending), drawn from numKeys keys, as one block's graph. */
  private static RowKeyGraph randomRows(SplittableRandom rnd, int n, int numKeys, int maxDeg) {
    int[] rowStart = new int[n + 1];
    List<Integer> keys = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      boolean[] has = new boolean[numKeys];
      int deg = rnd.nextInt(Math.min(numKeys, maxDeg) + 1);
      for (int d = 0; d < deg; d++) {
        has[rnd.nextInt(numKeys)] = true;
      }
      for (int e = 0; e < numKeys; e++) {
        if (has[e]) {
          keys.add(e);
        }
      }
      rowStart[r + 1] = keys.size();
    }
    return new RowKeyGraph(n, new int[] {0, n}, rowStart, keys.stream().mapToInt(Integer::intValue).toArray(),
        numKeys);
  }

  /** The planted group of every row, as parts[b][r]. */
  private static int[][] plantedParts(List<Block> blocks, int[] groupOf) {
    int[][] planted = new int[blocks.size()][];
    for (int b = 0; b < blocks.size(); b++) {
      planted[b] = new int[blocks.get(b).numRows()];
      for (int r = 0; r < planted[b].length; r++) {
        planted[b][r] = groupOf[(int) blocks.get(b).rowId(r)];
      }
    }
    return planted;
  }

  private static long connectivity(int k, List<Block> blocks, int[][] parts) {
    PlacementEvaluator.KeyUsage u = PlacementEvaluator.usage(k, blocks, parts);
    int wpk = (k + 63) >>> 6;
    long s = 0;
    for (int j = 0; j < u.keys().length; j++) {
      int lambda = 0;
      for (int w = 0; w < wpk; w++) {
        lambda += Long.bitCount(u.bits()[j * wpk + w]);
      }
      s += lambda - 1;
    }
    return s;
  }

  private static void assertBalancedAndComplete(int k, List<Block> blocks, int[][] parts) {
    int n = 0;
    int[] size = new int[k];
    assertEquals(blocks.size(), parts.length);
    for (int b = 0; b < blocks.size(); b++) {
      assertEquals(blocks.get(b).numRows(), parts[b].length, "one part per row of block " + b);
      for (int p : parts[b]) {
        assertTrue(p >= 0 && p < k, "part " + p + " outside [0, " + k + ")");
        size[p]++;
        n++;
      }
    }
    for (int p = 0; p < k; p++) {
      assertTrue(size[p] == n / k || size[p] == (n + k - 1) / k,
          "part " + p + " has " + size[p] + " rows, expected " + n / k + " or " + (n + k - 1) / k);
    }
  }

  /**
   * Partitions {@code blocks} into k parts with {@code ml}, checks rows balanced within one, a connectivity at most
   * {@code slack}·(the planted groups') + {@code extra} and under 1/{@code belowRandom} of a random placement's, and
   * returns the parts.
   */
  private static int[][] assertFindsPlantedGroups(MultilevelPartitioner ml, int k, List<Block> blocks, int[] groupOf,
      double slack, int extra, int belowRandom) {
    int[][] parts = ml.partition(blocks);
    assertBalancedAndComplete(k, blocks, parts);
    long found = connectivity(k, blocks, parts);
    long best = connectivity(k, blocks, plantedParts(blocks, groupOf));
    long random = connectivity(k, blocks, PlacementEvaluator.randomPlacement(k, blocks, 3));
    assertTrue(found <= best * slack + extra, "multilevel connectivity " + found + " vs planted " + best);
    assertTrue(found * belowRandom < random, "multilevel " + found + " vs random " + random);
    return parts;
  }

  @Test
  void findsThePlantedGroupsWithRowsBalanced() {
    SplittableRandom rnd = new SplittableRandom(7);
    int k = 4;
    int rows = 2000;
    int[] groupOf = new int[rows];
    List<Block> blocks = planted(rnd, rows, k, 300, 12, 0.3, 5, groupOf);
    assertFindsPlantedGroups(new MultilevelPartitioner(k, MultilevelPartitioner.Settings.defaults(), null), k, blocks,
        groupOf, 1.05, 5, 5);
  }

  /**
   * refine-u's multilevel start grows every try of its initial placement, half as many as when growings alternate with
   * greedy assignments: it says so in its log and finds the planted groups as well, rows balanced and every row placed.
   */
  @Test
  void growOnlyMakesHalfTheTriesAllGrowingsAndFindsThePlantedGroups() {
    SplittableRandom rnd = new SplittableRandom(7);
    int k = 4;
    int rows = 2000;
    int[] groupOf = new int[rows];
    List<Block> blocks = planted(rnd, rows, k, 300, 12, 0.3, 5, groupOf);
    for (boolean growOnly : new boolean[] {false, true}) {
      List<String> lines = new ArrayList<>();
      MultilevelPartitioner ml = new MultilevelPartitioner(k, MultilevelPartitioner.Settings.defaults(), lines::add)
          .growOnly(growOnly);
      assertFindsPlantedGroups(ml, k, blocks, groupOf, 1.05, 5, 5);
      int tries = growOnly ? ml.initialTries() / 2 : ml.initialTries();
      assertTrue(lines.stream().anyMatch(l -> l.contains("initial placement (best of " + tries + " tries")),
          lines.toString());
    }
  }

  /**
   * A fresh partition coarsened to 5 vertices per part instead of 10 (refine-u's every other multilevel start on
   * graphs): its coarse vertices may weigh twice as much (1.5·n/(5k) rows, as its log says), its coarsest level is no
   * larger, and within communities it still finds the planted groups, rows balanced within one and every row placed.
   */
  @Test
  void fewerCoarsestVerticesPerPartAllowHeavierVerticesAndFindThePlantedGroups() {
    SplittableRandom rnd = new SplittableRandom(7);
    int k = 4;
    int rows = 2000;
    int[] groupOf = new int[rows];
    List<Block> blocks = planted(rnd, rows, k, 300, 12, 0.3, 5, groupOf);
    int[] coarsest = new int[2];
    int i = 0;
    for (int perPart : new int[] {10, 5}) {
      List<String> lines = new ArrayList<>();
      MultilevelPartitioner.Settings s = MultilevelPartitioner.Settings.defaults().withCoarsestPerPart(perPart);
      assertEquals(perPart, s.coarsestPerPart());
      MultilevelPartitioner ml = new MultilevelPartitioner(k, s, lines::add).communities(true);
      assertFindsPlantedGroups(ml, k, blocks, groupOf, 1.05, 5, 5);
      int maxWeight = (int) Math.ceil(1.5 * rows / (perPart * k));
      assertTrue(lines.stream().anyMatch(l -> l.contains("level 1:") && l.contains(
          String.format(Locale.ROOT, "max weight %,d", maxWeight))), lines.toString());
      String summary = lines.stream().filter(l -> l.contains(" levels, ")).findFirst().orElseThrow();
      coarsest[i++] = Integer.parseInt(summary.replaceAll(".* -> ([0-9,]+) vertices.*", "$1").replace(",", ""));
    }
    assertTrue(coarsest[1] <= coarsest[0], Arrays.toString(coarsest));
  }

  /**
   * The distributed start's two halves in one JVM: clusters of planted groups stay within one group, under the weight
   * cap, far fewer than the rows; and the clusters, placed as weighted vertices with the union of their rows' keys,
   * give every row its cluster's part with parts within the partitioner's weight tolerance (plus a cluster) and under
   * half a random placement's connectivity (the clusters that took rows of another group through a shared key of
   * two rows, which rates highest, cost the rest); a V-cycle on the rows from there reaches the planted groups' (give or
   * take 5 %).
   */
  @Test
  void clustersThenWeightedPlacementFindThePlantedGroups() {
    SplittableRandom rnd = new SplittableRandom(13);
    int k = 4;
    int rows = 2000;
    int[] groupOf = new int[rows];
    List<Block> blocks = planted(rnd, rows, k, 300, 12, 0.3, 3, groupOf);
    RowKeyGraph g = RowKeyGraph.of(blocks);
    MultilevelPartitioner ml = new MultilevelPartitioner(k, MultilevelPartitioner.Settings.defaults(), null);
    int maxWeight = 40;
    int[] cluster = ml.clusters(g, rows / 16, maxWeight);
    int c = java.util.Arrays.stream(cluster).max().getAsInt() + 1;
    assertTrue(c <= rows / 4, c + " clusters of " + rows + " rows");
    int[] weight = new int[c];
    int[] groupOfCluster = new int[c];
    java.util.Arrays.fill(groupOfCluster, -1);
    int[] flatGroup = new int[rows];
    int[][] planted = plantedParts(blocks, groupOf);
    for (int b = 0; b < blocks.size(); b++) {
      System.arraycopy(planted[b], 0, flatGroup, g.blockStart()[b], planted[b].length);
    }
    int mixed = 0;
    for (int v = 0; v < rows; v++) {
      weight[cluster[v]]++;
      if (groupOfCluster[cluster[v]] < 0) {
        groupOfCluster[cluster[v]] = flatGroup[v];
      } else if (groupOfCluster[cluster[v]] != flatGroup[v]) {
        mixed++;
      }
    }
    assertTrue(java.util.Arrays.stream(weight).max().getAsInt() <= maxWeight, java.util.Arrays.toString(weight));
    assertTrue(mixed * 5 < rows, mixed + " rows clustered with another group's");
    // each cluster's keys: the union of its rows' keys
    List<java.util.Set<Integer>> keysOf = new ArrayList<>();
    for (int v = 0; v < c; v++) {
      keysOf.add(new java.util.TreeSet<>());
    }
    for (int v = 0; v < rows; v++) {
      for (int t = g.rowStart()[v]; t < g.rowStart()[v + 1]; t++) {
        keysOf.get(cluster[v]).add(g.rowKeys()[t]);
      }
    }
    int[] vStart = new int[c + 1];
    List<Integer> nets = new ArrayList<>();
    for (int v = 0; v < c; v++) {
      nets.addAll(keysOf.get(v));
      vStart[v + 1] = nets.size();
    }
    MultilevelPartitioner.Weighted placed = ml.partitionWeighted(weight, vStart,
        nets.stream().mapToInt(Integer::intValue).toArray(), g.numKeys(), new int[c]);
    int[] part = placed.part();
    long[] load = new long[k];
    for (int v = 0; v < c; v++) {
      assertTrue(part[v] >= 0 && part[v] < k);
      load[part[v]] += weight[v];
    }
    for (long l : load) {
      // the tolerance, plus at most one cluster where none fits under it
      assertTrue(l <= Math.ceil(1.03 * rows / k) + maxWeight, java.util.Arrays.toString(load));
    }
    int[][] parts = new int[blocks.size()][];
    for (int b = 0; b < blocks.size(); b++) {
      parts[b] = new int[blocks.get(b).numRows()];
      for (int r = 0; r < parts[b].length; r++) {
        parts[b][r] = part[cluster[g.blockStart()[b] + r]];
      }
    }
    // the working sets it reports are the rows' own: every row goes with its cluster
    List<java.util.Set<Integer>> held = new ArrayList<>();
    for (int p = 0; p < k; p++) {
      held.add(new java.util.HashSet<>());
    }
    for (int v = 0; v < rows; v++) {
      for (int t = g.rowStart()[v]; t < g.rowStart()[v + 1]; t++) {
        held.get(part[cluster[v]]).add(g.rowKeys()[t]);
      }
    }
    for (int p = 0; p < k; p++) {
      assertEquals(held.get(p).size(), placed.workingSets()[p], "working set of part " + p);
    }
    long found = connectivity(k, blocks, parts);
    long best = connectivity(k, blocks, planted);
    long random = connectivity(k, blocks, PlacementEvaluator.randomPlacement(k, blocks, 3));
    assertTrue(found * 2 < random, "clusters placed: connectivity " + found + " vs random " + random);
    // the rows a cluster took from another group (its shared keys rate high) are what a V-cycle on the rows fixes,
    // as the distributed start's balance and group cycles do
    int[][] refined = ml.partition(blocks, g, parts, Double.NaN);
    assertBalancedAndComplete(k, blocks, refined);
    long after = connectivity(k, blocks, refined);
    assertTrue(after <= best * 1.05 + 5, "connectivity " + found + ", after a V-cycle " + after + ", planted " + best);
  }

  /**
   * Weighted nets: the vertices of an instance whose keys come in bundles (keys held by the same vertices), given once
   * as plain nets and once with each bundle one net weighing its keys, report the plain instance's working sets for the
   * parts they return (the weights carried through coarsening, merging and refinement), and the weighted run's
   * connectivity on the plain nets is within a few percent of the plain run's and far below a random placement's.
   */
  @Test
  void weightedNetsStandForTheirKeysThroughEveryLevel() {
    int k = 8;
    int c = 1600;
    int communities = 16;
    SplittableRandom rnd = new SplittableRandom(17);
    int[] weight = new int[c];
    for (int v = 0; v < c; v++) {
      weight[v] = 1 + rnd.nextInt(4);
    }
    // bundles: each a set of 2..5 holders (mostly of one community) and 1..12 keys all held by exactly those
    List<int[]> holders = new ArrayList<>();
    List<Integer> keysOf = new ArrayList<>();
    int perCommunity = c / communities;
    for (int b = 0; b < 1500; b++) {
      int home = rnd.nextInt(communities);
      java.util.TreeSet<Integer> h = new java.util.TreeSet<>();
      int size = 2 + rnd.nextInt(4);
      while (h.size() < size) {
        h.add(rnd.nextInt(10) == 0 ? rnd.nextInt(c) : home * perCommunity + rnd.nextInt(perCommunity));
      }
      holders.add(h.stream().mapToInt(Integer::intValue).toArray());
      keysOf.add(1 + rnd.nextInt(12));
    }
    int[] internal = new int[c];
    for (int v = 0; v < c; v++) {
      internal[v] = rnd.nextInt(5);
    }
    // plain: every key its own net; weighted: every bundle one net
    List<List<Integer>> plainNets = new ArrayList<>();
    List<List<Integer>> bundleNets = new ArrayList<>();
    for (int v = 0; v < c; v++) {
      plainNets.add(new ArrayList<>());
      bundleNets.add(new ArrayList<>());
    }
    int plainCount = 0;
    int[] bundleWeight = new int[holders.size()];
    for (int b = 0; b < holders.size(); b++) {
      bundleWeight[b] = keysOf.get(b);
      for (int v : holders.get(b)) {
        bundleNets.get(v).add(b);
        for (int i = 0; i < keysOf.get(b); i++) {
          plainNets.get(v).add(plainCount + i);
        }
      }
      plainCount += keysOf.get(b);
    }
    int[][] plain = csr(plainNets);
    int[][] bundled = csr(bundleNets);
    MultilevelPartitioner ml = new MultilevelPartitioner(k, MultilevelPartitioner.Settings.defaults(), line -> { });
    MultilevelPartitioner.Weighted byKeys = ml.partitionWeighted(weight, plain[0], plain[1], plainCount,
        internal.clone());
    MultilevelPartitioner.Weighted byBundles = ml.partitionWeighted(weight, bundled[0], bundled[1], holders.size(),
        bundleWeight, internal.clone(), null, 0);
    long[] ws = workingSets(k, byBundles.part(), plain[0], plain[1], internal);
    assertArrayEquals(ws, byBundles.workingSets(), "the weighted run's working sets are the keys' own");
    long weighted = connectivity(k, byBundles.part(), plain[0], plain[1], plainCount);
    long unweighted = connectivity(k, byKeys.part(), plain[0], plain[1], plainCount);
    int[] random = new int[c];
    for (int v = 0; v < c; v++) {
      random[v] = rnd.nextInt(k);
    }
    long chance = connectivity(k, random, plain[0], plain[1], plainCount);
    assertTrue(weighted <= 1.1 * unweighted, "bundled " + weighted + " vs keys " + unweighted);
    assertTrue(3 * weighted < chance, "bundled " + weighted + " vs random " + chance);
  }

  private static int[][] csr(List<List<Integer>> lists) {
    int[] start = new int[lists.size() + 1];
    List<Integer> all = new ArrayList<>();
    for (int v = 0; v < lists.size(); v++) {
      all.addAll(lists.get(v));
      start[v + 1] = all.size();
    }
    return new int[][] {start, all.stream().mapToInt(Integer::intValue).toArray()};
  }

  private static long[] workingSets(int k, int[] part, int[] vStart, int[] vNets, int[] internal) {
    long[] ws = new long[k];
    List<java.util.Set<Integer>> held = new ArrayList<>();
    for (int p = 0; p < k; p++) {
      held.add(new java.util.HashSet<>());
    }
    for (int v = 0; v < part.length; v++) {
      ws[part[v]] += internal[v];
      for (int t = vStart[v]; t < vStart[v + 1]; t++) {
        held.get(part[v]).add(vNets[t]);
      }
    }
    for (int p = 0; p < k; p++) {
      ws[p] += held.get(p).size();
    }
    return ws;
  }

  private static long connectivity(int k, int[] part, int[] vStart, int[] vNets, int numNets) {
    java.util.BitSet[] in = new java.util.BitSet[numNets];
    for (int v = 0; v < part.length; v++) {
      for (int t = vStart[v]; t < vStart[v + 1]; t++) {
        if (in[vNets[t]] == null) {
          in[vNets[t]] = new java.util.BitSet(k);
        }
        in[vNets[t]].set(part[v]);
      }
    }
    long s = 0;
    for (java.util.BitSet b : in) {
      if (b != null) {
        s += Math.max(0, b.cardinality() - 1);
      }
    }
    return s;
  }

  @Test
  void weightedPlacementKeepsAWindowFromBelowAndRefinesGivenPartsUnderTheCap() {
    int k = 8;
    int c = 2000;
    int communities = 16;
    SplittableRandom rnd = new SplittableRandom(11);
    int[] weight = new int[c];
    int[] vStart = new int[c + 1];
    List<Integer> nets = new ArrayList<>();
    long total = 0;
    for (int v = 0; v < c; v++) {
      // a few heavy vertices among light ones, as the distributed start's clusters come
      weight[v] = v % 97 == 0 ? 12 : 1 + rnd.nextInt(6);
      total += weight[v];
      int home = rnd.nextInt(communities);
      java.util.TreeSet<Integer> mine = new java.util.TreeSet<>();
      for (int t = 0; t < 5; t++) {
        mine.add(home * 50 + rnd.nextInt(50));
      }
      mine.add(communities * 50 + rnd.nextInt(200));
      nets.addAll(mine);
      vStart[v + 1] = nets.size();
    }
    int[] vNets = nets.stream().mapToInt(Integer::intValue).toArray();
    int numNets = communities * 50 + 200;
    double window = 0.01;
    double mean = total / (double) k;
    MultilevelPartitioner ml = new MultilevelPartitioner(k, MultilevelPartitioner.Settings.defaults(), line -> { });
    MultilevelPartitioner.Weighted plain = ml.partitionWeighted(weight, vStart, vNets, numNets, new int[c]);
    MultilevelPartitioner.Weighted windowed = ml.partitionWeighted(weight, vStart, vNets, numNets, new int[c], window);
    long[] load = new long[k];
    List<java.util.Set<Integer>> held = new ArrayList<>();
    for (int p = 0; p < k; p++) {
      held.add(new java.util.HashSet<>());
    }
    for (int v = 0; v < c; v++) {
      int p = windowed.part()[v];
      load[p] += weight[v];
      for (int t = vStart[v]; t < vStart[v + 1]; t++) {
        held.get(p).add(vNets[t]);
      }
    }
    for (int p = 0; p < k; p++) {
      assertTrue(load[p] >= Math.floor((1 - window) * mean) && load[p] <= Math.ceil((1 + window) * mean),
          "part " + p + " weighs " + load[p] + " of a mean " + mean + ": " + java.util.Arrays.toString(load));
      assertEquals(held.get(p).size(), windowed.workingSets()[p], "working set of part " + p);
    }
    // from given parts (the plain placement with a third of the vertices scattered): a V-cycle that refines them,
    // never lifting the largest working set above the given one's and lowering the total
    int[] given = plain.part().clone();
    for (int v = 0; v < c; v += 3) {
      given[v] = rnd.nextInt(k);
    }
    long[] givenSets = new long[k];
    List<java.util.Set<Integer>> givenHeld = new ArrayList<>();
    for (int p = 0; p < k; p++) {
      givenHeld.add(new java.util.HashSet<>());
    }
    for (int v = 0; v < c; v++) {
      for (int t = vStart[v]; t < vStart[v + 1]; t++) {
        givenHeld.get(given[v]).add(vNets[t]);
      }
    }
    for (int p = 0; p < k; p++) {
      givenSets[p] = givenHeld.get(p).size();
    }
    MultilevelPartitioner.Weighted cycled = ml.partitionWeighted(weight, vStart, vNets, numNets, new int[c],
        given.clone(), 0);
    long givenMax = java.util.Arrays.stream(givenSets).max().getAsLong();
    assertTrue(java.util.Arrays.stream(cycled.workingSets()).max().getAsLong() <= givenMax,
        java.util.Arrays.toString(cycled.workingSets()) + " above the given " + givenMax);
    assertTrue(java.util.Arrays.stream(cycled.workingSets()).sum() < java.util.Arrays.stream(givenSets).sum(),
        "Σ working sets " + java.util.Arrays.stream(cycled.workingSets()).sum() + " from the given "
            + java.util.Arrays.stream(givenSets).sum());
    // the window costs the placement little: its cut stays near the plain run's (each community's nets 50 of 1000)
    long plainSum = java.util.Arrays.stream(plain.workingSets()).sum();
    long windowedSum = java.util.Arrays.stream(windowed.workingSets()).sum();
    assertTrue(windowedSum <= 1.1 * plainSum, "Σ working sets " + windowedSum + " within the window, " + plainSum
        + " without");
  }

  @Test
  void vCycleImprovesAGivenPartitionAndKeepsAGoodOne() {
    SplittableRandom rnd = new SplittableRandom(21);
    int k = 8;
    int rows = 3000;
    int[] groupOf = new int[rows];
    List<Block> blocks = planted(rnd, rows, k, 200, 10, 0.3, 4, groupOf);
    int[][] planted = plantedParts(blocks, groupOf);
    MultilevelPartitioner ml = new MultilevelPartitioner(k, MultilevelPartitioner.Settings.defaults(), null);
    int[][] random = PlacementEvaluator.randomPlacement(k, blocks, 5);
    int[][] fromRandom = ml.partition(blocks, random);
    assertBalancedAndComplete(k, blocks, fromRandom);
    long before = connectivity(k, blocks, random);
    long after = connectivity(k, blocks, fromRandom);
    assertTrue(after < before * 0.8, "V-cycle from random: " + before + " -> " + after);
    int[][] fromPlanted = ml.partition(blocks, planted);
    assertBalancedAndComplete(k, blocks, fromPlanted);
    long best = connectivity(k, blocks, planted);
    assertTrue(connectivity(k, blocks, fromPlanted) <= best * 1.05 + 5, "V-cycle from the planted partition: " + best
        + " -> " + connectivity(k, blocks, fromPlanted));
    // capped, from the random partition
    assertCappedVCycleHolds(ml, k, blocks, random);
  }

  /**
   * Weighted rows (weight = the row's keys): a V-cycle from a start balanced by weight keeps every part's weight in the
   * window of refine-u's swap rounds (as wide as the heaviest row) and lowers the connectivity; every row placed once.
   */
  @Test
  void aVCycleOfWeightedRowsKeepsEveryPartsWeightInTheWindow() {
    SplittableRandom rnd = new SplittableRandom(23);
    int k = 8;
    List<Block> blocks = planted(rnd, 3000, k, 200, 10, 0.3, 4, new int[3000]);
    RowKeyGraph g = RowKeyGraph.of(blocks);
    int[] w = new int[g.numRows()];
    double heaviest = 0;
    double[] load = new double[k];
    int[][] start = new int[blocks.size()][];
    for (int b = 0; b < blocks.size(); b++) {
      start[b] = new int[blocks.get(b).numRows()];
      for (int r = 0; r < start[b].length; r++) {
        int x = Math.max(1, g.rowStart()[g.blockStart()[b] + r + 1] - g.rowStart()[g.blockStart()[b] + r]);
        w[g.blockStart()[b] + r] = x;
        heaviest = Math.max(heaviest, x);
        int p = 0;
        for (int i = 1; i < k; i++) {
          p = load[i] < load[p] ? i : p;
        }
        start[b][r] = p;
        load[p] += x;
      }
    }
    double[] window = URefinement.weightWindow(load, heaviest);
    MultilevelPartitioner ml = new MultilevelPartitioner(k, MultilevelPartitioner.Settings.defaults(), null)
        .setRowWeights(w, (long) Math.ceil(window[0]), (long) Math.floor(window[1]));
    int[][] parts = ml.partition(blocks, g, start, Double.NaN);
    double[] after = new double[k];
    for (int b = 0; b < blocks.size(); b++) {
      assertEquals(start[b].length, parts[b].length);
      for (int r = 0; r < parts[b].length; r++) {
        after[parts[b][r]] += w[g.blockStart()[b] + r];
      }
    }
    for (double x : after) {
      assertTrue(x >= window[0] && x <= window[1], java.util.Arrays.toString(after) + " outside "
          + java.util.Arrays.toString(window));
    }
    long before = connectivity(k, blocks, start);
    long now = connectivity(k, blocks, parts);
    assertTrue(now < before * 0.8, "weighted V-cycle: " + before + " -> " + now);
    // capped: every part's weight in the window at every level, so the final balance lifts no working set past the cap
    int[][] capped = ml.partition(blocks, g, start, 0.0);
    double[] cappedLoad = new double[k];
    for (int b = 0; b < blocks.size(); b++) {
      for (int r = 0; r < capped[b].length; r++) {
        cappedLoad[capped[b][r]] += w[g.blockStart()[b] + r];
      }
    }
    for (double x : cappedLoad) {
      assertTrue(x >= window[0] && x <= window[1], java.util.Arrays.toString(cappedLoad));
    }
    long capBefore = java.util.Arrays.stream(URefinementTest.recomputedWorkingSets(k, blocks, start)).max().getAsLong();
    long capAfter = java.util.Arrays.stream(URefinementTest.recomputedWorkingSets(k, blocks, capped)).max().getAsLong();
    assertTrue(capAfter <= capBefore, "capped weighted V-cycle: M_max " + capBefore + " -> " + capAfter);
    assertTrue(connectivity(k, blocks, capped) < before, "capped weighted V-cycle lowered no connectivity");
  }

  /**
   * A capped V-cycle from {@code from}: rows balanced and complete, the connectivity 10 % lower or more, and no working
   * set grown beyond the largest (up to the rows the final balancing moves).
   */
  private static void assertCappedVCycleHolds(MultilevelPartitioner ml, int k, List<Block> blocks, int[][] from) {
    int[][] capped = ml.partition(blocks, from, 0.0);
    assertBalancedAndComplete(k, blocks, capped);
    long maxBefore = maxWorkingSet(k, blocks, from);
    long maxAfter = maxWorkingSet(k, blocks, capped);
    assertTrue(maxAfter <= maxBefore * 1.05, "capped V-cycle M_max " + maxBefore + " -> " + maxAfter);
    long before = connectivity(k, blocks, from);
    long after = connectivity(k, blocks, capped);
    assertTrue(after < before * 0.9, "capped V-cycle: " + before + " -> " + after);
  }

  /**
   * The distributed start's clusters within communities: on planted groups that share keys across groups, where the
   * clusters aimed at fit within the rows' communities, every cluster's rows are of one community (clustering across
   * them, on the same rows, puts rows of different communities together), no cluster is above the weight cap, there
   * are far fewer clusters than rows, and the log says how many communities there were.
   */
  @Test
  void clustersWithinCommunitiesNeverSpanTwo() {
    SplittableRandom rnd = new SplittableRandom(29);
    int rows = 3000;
    int[] groupOf = new int[rows];
    List<Block> blocks = planted(rnd, rows, 12, 150, 5, 0.6, 3, groupOf);
    RowKeyGraph g = RowKeyGraph.of(blocks);
    int[] community = g.communities(MultilevelPartitioner.Settings.defaults().maxNetSize());
    int maxWeight = 60;
    List<String> lines = new ArrayList<>();
    int[] within = new MultilevelPartitioner(8, MultilevelPartitioner.Settings.defaults(), lines::add)
        .communities(true).clusters(g, rows / 16, maxWeight);
    int[] across = new MultilevelPartitioner(8, MultilevelPartitioner.Settings.defaults(), null)
        .clusters(g, rows / 16, maxWeight);
    assertEquals(0, mixedRows(within, community), "rows clustered with another community's");
    assertTrue(mixedRows(across, community) > 0, "clusters across communities: none spans two");
    int c = Arrays.stream(within).max().getAsInt() + 1;
    assertTrue(c <= rows / 4, c + " clusters of " + rows + " rows");
    int[] weight = new int[c];
    for (int v : within) {
      weight[v]++;
    }
    assertTrue(Arrays.stream(weight).min().getAsInt() >= 1, "cluster ids dense");
    assertTrue(Arrays.stream(weight).max().getAsInt() <= maxWeight, Arrays.toString(weight));
    assertTrue(lines.stream().anyMatch(l -> l.contains("communities of rows")), lines.toString());
  }

  /** Rows of a cluster whose group differs from the cluster's most common group. */
  private static int mixedRows(int[] cluster, int[] group) {
    int c = Arrays.stream(cluster).max().getAsInt() + 1;
    int groups = Arrays.stream(group).max().getAsInt() + 1;
    int[][] count = new int[c][groups];
    for (int v = 0; v < cluster.length; v++) {
      count[cluster[v]][group[v]]++;
    }
    int mixed = 0;
    for (int[] perGroup : count) {
      mixed += Arrays.stream(perGroup).sum() - Arrays.stream(perGroup).max().getAsInt();
    }
    return mixed;
  }

  /**
   * Coarsening within communities (and, in a V-cycle, within parts): a fresh partition finds the planted groups with
   * rows balanced within one, the log says how many communities it kept to, and a capped V-cycle from a random
   * balanced placement keeps the balance and M_max and lowers the connectivity, as without communities.
   */
  @Test
  void withinCommunitiesFindsThePlantedGroupsAndVCyclesHold() {
    SplittableRandom rnd = new SplittableRandom(11);
    int k = 8;
    int rows = 4000;
    int[] groupOf = new int[rows];
    List<Block> blocks = planted(rnd, rows, 2 * k, 200, 6, 0.3, 4, groupOf);
    List<String> lines = new ArrayList<>();
    MultilevelPartitioner ml = new MultilevelPartitioner(k, MultilevelPartitioner.Settings.defaults(), lines::add)
        .communities(true);
    int[][] parts = ml.partition(blocks);
    assertBalancedAndComplete(k, blocks, parts);
    long found = connectivity(k, blocks, parts);
    long random = connectivity(k, blocks, PlacementEvaluator.randomPlacement(k, blocks, 3));
    assertTrue(found * 4 < random, "within communities " + found + " vs random " + random);
    assertTrue(lines.stream().anyMatch(l -> l.contains("communities of rows")), lines.toString());
    assertTrue(lines.stream().anyMatch(l -> l.contains("(within ")), lines.toString());
    int[][] from = PlacementEvaluator.randomPlacement(k, blocks, 5);
    // a random placement balanced within one: row i of the shuffled order to part i mod k
    int n = 0;
    for (int[] p : from) {
      for (int r = 0; r < p.length; r++) {
        p[r] = n++ % k;
      }
    }
    assertCappedVCycleHolds(ml, k, blocks, from);
    // with tight caps as well: the same guarantees
    assertCappedVCycleHolds(ml.tightCaps(true), k, blocks, from);
    int[][] tight = ml.partition(blocks, from);
    assertBalancedAndComplete(k, blocks, tight);
    assertTrue(connectivity(k, blocks, tight) < connectivity(k, blocks, from), "a tight V-cycle lowers connectivity");
  }

  /**
   * FM at exact balance ({@code fm} with a strict ceiling): from rows placed within one of n/k, on planted groups and
   * on random rows, with and without a working-set cap at the start's M_max, every pass keeps every row placed and
   * the part sizes within one, never raises the connectivity, keeps every working set within the cap, and on the
   * planted groups (where n = 16·k, so every part is full and no single move is allowed) lowers the connectivity by
   * chains of moves.
   */
  @Test
  void fmAtExactBalanceKeepsEveryPartWithinOneAndLowersConnectivity() {
    SplittableRandom rnd = new SplittableRandom(17);
    for (int trial = 0; trial < 24; trial++) {
      int k = 2 + rnd.nextInt(15);
      boolean plantedRows = trial % 2 == 0;
      int n = plantedRows ? 16 * k * (10 + rnd.nextInt(20)) : k + rnd.nextInt(600);
      RowKeyGraph g;
      if (plantedRows) {
        int[] groupOf = new int[n];
        g = RowKeyGraph.of(planted(rnd, n, k, 40, 5, 0.3, 1, groupOf));
      } else {
        g = randomRows(rnd, n, 20 + rnd.nextInt(200), 12);
      }
      int[] part = new int[n];
      for (int r = 0; r < n; r++) {
        part[r] = r % k;
      }
      for (int r = n - 1; r > 0; r--) { // shuffled: every part keeps its count
        int j = rnd.nextInt(r + 1);
        int t = part[r];
        part[r] = part[j];
        part[j] = t;
      }
      MultilevelPartitioner ml = new MultilevelPartitioner(k, MultilevelPartitioner.Settings.defaults(), null);
      long[] before = ml.exactFm(g, part, Long.MAX_VALUE, 0);
      boolean capped = trial % 4 >= 2;
      long cap = capped ? Arrays.stream(before, 0, k).max().getAsLong() : Long.MAX_VALUE;
      int[] after = part.clone();
      long[] figures = ml.exactFm(g, after, cap, 4);
      int[] size = new int[k];
      for (int p : after) {
        assertTrue(p >= 0 && p < k, "trial " + trial + ": part " + p);
        size[p]++;
      }
      for (int p = 0; p < k; p++) {
        assertTrue(size[p] == n / k || size[p] == (n + k - 1) / k, "trial " + trial + ": part " + p + " has "
            + size[p] + " rows of " + n + ", k = " + k);
      }
      assertTrue(figures[k] <= before[k], "trial " + trial + ": connectivity " + before[k] + " -> " + figures[k]);
      for (int p = 0; p < k && capped; p++) {
        assertTrue(figures[p] <= cap, "trial " + trial + ": working set " + figures[p] + " above the cap " + cap);
      }
      if (plantedRows) {
        assertTrue(figures[k] < before[k], "trial " + trial + ": connectivity " + before[k] + " not lowered");
      }
    }
  }

  /**
   * A capped V-cycle over rows of many keys that no part can take without crossing the working-set cap (what FM
   * stops re-rating within a pass): rows stay balanced and complete, the largest working set does not grow beyond
   * the final balancing's few rows, and the connectivity still falls.
   */
  @Test
  void cappedVCycleWithRowsNoPartCanTake() {
    SplittableRandom rnd = new SplittableRandom(33);
    int k = 8;
    int rows = 3000;
    int[] groupOf = new int[rows];
    List<Block> blocks = new ArrayList<>(planted(rnd, rows, k, 200, 10, 0.3, 4, groupOf));
    // 40 rows of 150 keys each from every group's pool: more keys than any part's slack under the cap
    long[] ids = new long[40];
    int[] start = new int[41];
    long[] keys = new long[40 * 150];
    for (int i = 0; i < 40; i++) {
      ids[i] = rows + i;
      for (int d = 0; d < 150; d++) {
        keys[i * 150 + d] = (long) rnd.nextInt(k) * 200 + rnd.nextInt(200);
      }
      start[i + 1] = (i + 1) * 150;
    }
    blocks.add(new Block(ids, start, keys, null));
    assertCappedVCycleHolds(new MultilevelPartitioner(k, MultilevelPartitioner.Settings.defaults(), null), k, blocks,
        PlacementEvaluator.randomPlacement(k, blocks, 7));
  }

  /**
   * The repair a capped V-cycle that holds its cap runs after its final row balancing
   * ({@link MultilevelPartitioner#holdCap}): from balanced placements of random rows whose largest working sets sit a
   * few keys above a cap, rows move or swap until every part is within it, the parts keep ⌊n/k⌋ or ⌈n/k⌉ rows (a
   * part at ⌊n/k⌋ needs swaps), and every row stays placed. Where the cap is out of reach, nothing rises.
   */
  @Test
  void theCapRepairBringsEveryPartWithinTheCapAndKeepsTheRowCounts() {
    for (int seed = 1; seed <= 5; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      int k = 4;
      int n = 402; // parts of 101, 101, 100 and 100 rows: a full part may shed a row, the others must swap
      int numKeys = 600;
      int[] rowStart = new int[n + 1];
      IntArrayList keys = new IntArrayList();
      for (int v = 0; v < n; v++) {
        int d = 3 + rnd.nextInt(10);
        java.util.BitSet seen = new java.util.BitSet();
        for (int t = 0; t < d; t++) {
          int key = rnd.nextInt(numKeys);
          if (!seen.get(key)) {
            seen.set(key);
            keys.add(key);
          }
        }
        rowStart[v + 1] = keys.size();
      }
      RowKeyGraph g = new RowKeyGraph(n, new int[] {0, n}, rowStart, keys.toIntArray(), numKeys);
      int[] part = new int[n];
      for (int v = 0; v < n; v++) {
        part[v] = v % k;
      }
      long[] before = workingSets(g, part, k);
      long max = java.util.Arrays.stream(before).max().getAsLong();
      long cap = max - 4;
      MultilevelPartitioner ml = new MultilevelPartitioner(k, MultilevelPartitioner.Settings.defaults(), null);
      int[] held = ml.heldWithinCap(g, part, cap);
      long[] after = workingSets(g, held, k);
      assertArrayEquals(rowCounts(part, k), rowCounts(held, k), "seed " + seed + ": rows per part, in order");
      for (int p = 0; p < k; p++) {
        assertTrue(after[p] <= cap, "seed " + seed + ": part " + p + " at " + after[p] + " above the cap " + cap);
      }
      // a cap no move can reach: nothing rises above where it was
      int[] stuck = ml.heldWithinCap(g, part, 1);
      assertArrayEquals(rowCounts(part, k), rowCounts(stuck, k));
      assertTrue(java.util.Arrays.stream(workingSets(g, stuck, k)).max().getAsLong() <= max, "seed " + seed);
    }
  }

  /**
   * A descending V-cycle ({@link MultilevelPartitioner#descend}): part 0's 500 rows each hold three keys of their own
   * and three of a pool of 40, parts 1 to 3 light rows of one key from a pool of 40 each, so part 0's working set is
   * about 1,540 keys and the others' 40. Lowering it takes rows out of part 0 and light rows in, which no connectivity
   * move does: a capped V-cycle at 80 % of M_max without the descent ends above the cap (its final repair is a few
   * dozen rows), with the descent within it. Rows stay balanced within one, every row placed.
   */
  @Test
  void aDescendingVCycleBringsTheLargestWorkingSetDownToItsCap() {
    for (int seed = 1; seed <= 3; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      int k = 4;
      int rows = 2000;
      long[] ids = new long[rows];
      int[] start = new int[rows + 1];
      List<Long> keys = new ArrayList<>();
      int[][] given = {new int[rows]};
      for (int r = 0; r < rows; r++) {
        int part = r % k;
        ids[r] = r;
        given[0][r] = part;
        if (part == 0) {
          for (int d = 0; d < 3; d++) {
            keys.add(1_000_000L + 3L * r + d);
            keys.add((long) rnd.nextInt(40));
          }
        } else {
          keys.add(part * 10_000L + rnd.nextInt(40));
        }
        start[r + 1] = keys.size();
      }
      List<Block> blocks = List.of(new Block(ids, start, keys.stream().mapToLong(Long::longValue).toArray(), null));
      RowKeyGraph g = RowKeyGraph.of(blocks);
      long before = maxWorkingSet(k, blocks, given);
      long cap = (long) Math.floor(0.8 * before);
      MultilevelPartitioner.Settings s = MultilevelPartitioner.Settings.defaults().withSeed(seed);
      int[][] descended = new MultilevelPartitioner(k, s, null).holdCap(true).descend(true)
          .counted(blocks, g, given, 0.0, cap).parts();
      int[][] plain = new MultilevelPartitioner(k, s, null).holdCap(true).counted(blocks, g, given, 0.0, cap).parts();
      assertBalancedAndComplete(k, blocks, descended);
      assertBalancedAndComplete(k, blocks, plain);
      long after = maxWorkingSet(k, blocks, descended);
      assertTrue(after <= cap, "seed " + seed + ": M_max " + before + " -> " + after + ", cap " + cap);
      assertTrue(maxWorkingSet(k, blocks, plain) > cap, "seed " + seed + ": without the descent M_max "
          + maxWorkingSet(k, blocks, plain) + ", cap " + cap);
    }
  }

  private static long[] workingSets(RowKeyGraph g, int[] part, int k) {
    long[] m = new long[k];
    java.util.Set<Long> held = new java.util.HashSet<>();
    for (int v = 0; v < g.numRows(); v++) {
      for (int t = g.rowStart()[v]; t < g.rowStart()[v + 1]; t++) {
        if (held.add((long) part[v] * g.numKeys() + g.rowKeys()[t])) {
          m[part[v]]++;
        }
      }
    }
    return m;
  }

  /** The parts' row counts, in ascending order (a part may trade ⌈n/k⌉ for ⌊n/k⌋ with another). */
  private static int[] rowCounts(int[] part, int k) {
    int[] c = new int[k];
    for (int p : part) {
      c[p]++;
    }
    java.util.Arrays.sort(c);
    return c;
  }

  /**
   * A row is held back by the working-set cap alone only when every part holding one of its keys would cross it:
   * not when a part merely lacks room for its weight, nor when some part can take it.
   */
  @Test
  void heldBackByTheWorkingSetCapOnlyWhenEveryTargetCrossesIt() {
    // rows 0-3: row 0 uses keys 0..9, rows 1-3 one key each of rows 0's keys (0, 1, 2) plus a key of their own
    int[] rowStart = {0, 10, 12, 14, 16};
    int[] keys = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 10, 1, 11, 2, 12};
    RowKeyGraph g = new RowKeyGraph(4, new int[] {0, 4}, rowStart, keys, 13);
    int[] part = {0, 1, 2, 2};
    MultilevelPartitioner ml = new MultilevelPartitioner(3, MultilevelPartitioner.Settings.defaults(), null);
    // moving row 0 to part 1 adds 9 keys to its 2, to part 2 8 keys to its 4: working sets 11 and 12
    assertTrue(ml.heldBackByWorkingSetCap(g, part, 0, 10, 10), "both targets cross a cap of 10");
    assertTrue(!ml.heldBackByWorkingSetCap(g, part, 0, 10, 11), "part 1 fits under 11");
    // weight cap 2: part 2 (two rows) is full, part 1 crosses the working-set cap: not the working-set cap alone
    assertTrue(!ml.heldBackByWorkingSetCap(g, part, 0, 2, 11), "part 2 full, part 1 fits the working set");
    assertTrue(!ml.heldBackByWorkingSetCap(g, part, 0, 2, Long.MAX_VALUE), "no working-set cap");
    assertEquals(Long.MIN_VALUE, ml.bestMove(g, part, 0, 1), "no room for any move under a weight cap of 1");
  }

  private static long maxWorkingSet(int k, List<Block> blocks, int[][] parts) {
    PlacementEvaluator.KeyUsage u = PlacementEvaluator.usage(k, blocks, parts);
    return PlacementEvaluator.evaluate(u, new int[u.keys().length]).mMax();
  }

  /**
   * Above 64 parts (presence bits over several words, part-major counts, fewer initial tries): planted groups of
   * rows are still found, rows balanced within one, and a V-cycle from that partition keeps it balanced.
   */
  @Test
  void findsThePlantedGroupsAtMoreThan64Parts() {
    SplittableRandom rnd = new SplittableRandom(5);
    int k = 130;
    int rows = 2600;
    int[] groupOf = new int[rows];
    List<Block> blocks = planted(rnd, rows, k, 40, 8, 0.2, 3, groupOf);
    MultilevelPartitioner ml = new MultilevelPartitioner(k, MultilevelPartitioner.Settings.defaults(), null);
    assertEquals(128 * 16 / k, ml.initialTries());
    assertEquals(128, new MultilevelPartitioner(16, MultilevelPartitioner.Settings.defaults(), null).initialTries());
    assertEquals(8, new MultilevelPartitioner(1024, MultilevelPartitioner.Settings.defaults(), null).initialTries());
    // measured: 446 against the planted 446 and random's 14,221
    int[][] parts = assertFindsPlantedGroups(ml, k, blocks, groupOf, 1.1, 10, 10);
    int[][] again = ml.partition(blocks, parts);
    assertBalancedAndComplete(k, blocks, again);
    assertTrue(connectivity(k, blocks, again) <= connectivity(k, blocks, parts),
        "a V-cycle from the found partition made it worse");
  }

  @Test
  void balancesEveryShapeWithinOneRow() {
    SplittableRandom rnd = new SplittableRandom(11);
    for (int trial = 0; trial < 30; trial++) {
      int k = 2 + rnd.nextInt(12);
      int rows = k + rnd.nextInt(600);
      int[] groupOf = new int[rows];
      List<Block> blocks = planted(rnd, rows, 1 + rnd.nextInt(6), 5 + rnd.nextInt(50), 1 + rnd.nextInt(6),
          rnd.nextDouble(), 1 + rnd.nextInt(4), groupOf);
      MultilevelPartitioner.Settings d = MultilevelPartitioner.Settings.defaults();
      // small rated key sizes too, so rows whose keys are all larger take the bounded-window rating
      MultilevelPartitioner.Settings s = new MultilevelPartitioner.Settings(2 + rnd.nextInt(d.maxNetSize()),
          1 + rnd.nextInt(40), 1 + rnd.nextInt(40), rnd.nextDouble() * 0.2, 1 + rnd.nextInt(4), d.refineRounds(),
          rnd.nextInt(3), rnd.nextLong());
      int[][] parts = new MultilevelPartitioner(k, s, null).partition(blocks);
      assertBalancedAndComplete(k, blocks, parts);
      int[][] again = new MultilevelPartitioner(k, s, null).partition(blocks, parts);
      assertBalancedAndComplete(k, blocks, again);
    }
  }

  @Test
  void rowsWithoutKeysAndOneRowPerPart() {
    long[] ids = {10, 11, 12, 13};
    int[] start = {0, 0, 2, 2, 3};
    long[] keys = {5, 6, 5};
    List<Block> blocks = List.of(new Block(ids, start, keys, null));
    int[][] parts = new MultilevelPartitioner(4, MultilevelPartitioner.Settings.defaults(), null).partition(blocks);
    assertBalancedAndComplete(4, blocks, parts);
  }

  /**
   * One workspace serving a chain of partitioners (a fresh partition at more levels, V-cycles, capped V-cycles, with
   * other seeds and sizes between them, so its arrays are reused longer than the levels that fill them): the same
   * partitions, step by step, as partitioners that each start from a workspace of their own.
   */
  @Test
  void aWorkspaceReusedAcrossVCyclesGivesTheSamePartitions() {
    int k = 8;
    int[] groupOf = new int[3000];
    List<Block> big = planted(new SplittableRandom(43), 3000, k, 200, 10, 0.3, 4, groupOf);
    List<Block> small = planted(new SplittableRandom(44), 900, k, 60, 8, 0.4, 3, new int[900]);
    MultilevelPartitioner.Settings d = MultilevelPartitioner.Settings.defaults();
    MultilevelPartitioner.Settings deep = new MultilevelPartitioner.Settings(d.maxNetSize(), 10, 20, d.imbalance(),
        d.initialTries(), d.refineRounds(), d.fmPasses(), 5);
    Workspace ws = new Workspace();
    int[][] freshBig = new MultilevelPartitioner(k, deep, null).partition(big);
    int[][] reusedBig = new MultilevelPartitioner(k, deep, null).setWorkspace(ws).partition(big);
    assertPartsEqual(freshBig, reusedBig);
    int[][] fresh = freshBig;
    int[][] reused = reusedBig;
    for (int cycle = 0; cycle < 4; cycle++) {
      MultilevelPartitioner.Settings s = (cycle % 2 == 0 ? d : deep).withSeed(100 + cycle);
      double slack = cycle < 2 ? Double.NaN : 0.0;
      fresh = new MultilevelPartitioner(k, s, null).setThreads(2).partition(big, fresh, slack);
      reused = new MultilevelPartitioner(k, s, null).setThreads(2).setWorkspace(ws).partition(big, reused, slack);
      assertPartsEqual(fresh, reused);
      // a smaller graph in between leaves longer arrays with other contents in every slot
      assertPartsEqual(new MultilevelPartitioner(k, s, null).partition(small),
          new MultilevelPartitioner(k, s, null).setWorkspace(ws).partition(small));
    }
    assertBalancedAndComplete(k, big, reused);
  }

  private static void assertPartsEqual(int[][] expected, int[][] actual) {
    assertEquals(expected.length, actual.length);
    for (int b = 0; b < expected.length; b++) {
      assertArrayEquals(expected[b], actual[b], "block " + b);
    }
  }

  @Test
  void sameSeedSamePartition() {
    int[] groupOf = new int[800];
    List<Block> blocks = planted(new SplittableRandom(3), 800, 8, 40, 6, 0.5, 3, groupOf);
    MultilevelPartitioner.Settings s = MultilevelPartitioner.Settings.defaults();
    int[][] a = new MultilevelPartitioner(8, s, null).partition(blocks);
    int[][] b = new MultilevelPartitioner(8, s, null).partition(blocks);
    for (int i = 0; i < a.length; i++) {
      assertArrayEquals(a[i], b[i]);
    }
  }

  /**
   * A V-cycle clusters each given part on its own, from a seed of the part's own: one, two, three or more threads than
   * parts give the same partition, capped or not, with small keys, with keys too large to rate (maxNetSize 6, so many
   * rows rate only the fallback windows) and at more levels (a coarsest level of 20 vertices a part); so do threads
   * that also count every level's part counts, gains and coarse nets (large levels do).
   */
  @Test
  void vCycleGivesTheSamePartitionOnAnyNumberOfThreads() {
    int k = 8;
    int[] groupOf = new int[3000];
    List<Block> blocks = planted(new SplittableRandom(41), 3000, k, 200, 10, 0.3, 4, groupOf);
    int[][] random = PlacementEvaluator.randomPlacement(k, blocks, 9);
    MultilevelPartitioner.Settings d = MultilevelPartitioner.Settings.defaults();
    for (MultilevelPartitioner.Settings s : List.of(d, new MultilevelPartitioner.Settings(6, d.coarsestPerPart(), 20,
        d.imbalance(), d.initialTries(), d.refineRounds(), d.fmPasses(), 17))) {
      for (double slack : new double[] {Double.NaN, 0.0}) {
        int[][] one = new MultilevelPartitioner(k, s, null).partition(blocks, random, slack);
        assertBalancedAndComplete(k, blocks, one);
        assertTrue(connectivity(k, blocks, one) < connectivity(k, blocks, random));
        for (int threads : new int[] {2, 3, 2 * k}) {
          for (boolean counting : new boolean[] {false, true}) {
            MultilevelPartitioner mp = new MultilevelPartitioner(k, s, null).setThreads(threads);
            int[][] more = (counting ? mp.countEveryLevelOnThreads() : mp).partition(blocks, random, slack);
            for (int b = 0; b < one.length; b++) {
              assertArrayEquals(one[b], more[b], "block " + b + ", " + threads + " threads, slack " + slack
                  + (counting ? ", every level counted on the threads" : ""));
            }
          }
        }
      }
    }
  }

  /**
   * The gain of a move counted bit-sliced ({@link PartHits}: counts past the four register planes, and k above 64,
   * one word of parts after the other) matches a count key by key: the best target, its gain and the tie rule
   * (lighter part, then the lower part id) on random dense rows.
   */
  @Test
  void bestMoveMatchesACountKeyByKey() {
    SplittableRandom rnd = new SplittableRandom(5);
    for (int k : new int[] {2, 5, 16, 63, 64, 65, 100}) {
      for (int trial = 0; trial < 20; trial++) {
        int n = k + rnd.nextInt(400);
        int numKeys = 5 + rnd.nextInt(60);
        RowKeyGraph g = randomRows(rnd, n, numKeys, 45);
        int[] rowStart = g.rowStart();
        int[] keys = g.rowKeys();
        int[] part = new int[n];
        int skew = 1 + rnd.nextInt(k); // some trials crowd the rows into few parts, so counts run high
        long[] weight = new long[k];
        for (int r = 0; r < n; r++) {
          part[r] = rnd.nextInt(2) == 0 ? rnd.nextInt(skew) : rnd.nextInt(k);
          weight[part[r]]++;
        }
        int[][] cnt = new int[k][numKeys];
        for (int r = 0; r < n; r++) {
          for (int t = rowStart[r]; t < rowStart[r + 1]; t++) {
            cnt[part[r]][keys[t]]++;
          }
        }
        MultilevelPartitioner ml = new MultilevelPartitioner(k, MultilevelPartitioner.Settings.defaults(), null);
        for (int v = 0; v < n; v++) {
          long cap = n / k + rnd.nextInt(n);
          int a = part[v];
          int deg = rowStart[v + 1] - rowStart[v];
          int lose = 0;
          for (int t = rowStart[v]; t < rowStart[v + 1]; t++) {
            lose += cnt[a][keys[t]] == 1 ? 1 : 0;
          }
          int best = -1;
          int bestGain = 0;
          for (int b = 0; b < k; b++) {
            int hb = 0;
            for (int t = rowStart[v]; t < rowStart[v + 1]; t++) {
              hb += cnt[b][keys[t]] > 0 ? 1 : 0;
            }
            if (b == a || hb == 0 || weight[b] + 1 > cap) {
              continue;
            }
            int gain = lose - (deg - hb);
            if (best < 0 || gain > bestGain || (gain == bestGain && weight[b] < weight[best])) {
              best = b;
              bestGain = gain;
            }
          }
          long expected = best < 0 ? Long.MIN_VALUE : ((long) bestGain << 32) | best;
          assertEquals(expected, ml.bestMove(g, part, v, cap), "k=" + k + " trial " + trial + " row " + v);
        }
      }
    }
  }

  /**
   * The gain cache (part hits and sole keys per vertex, kept by every move) rates every row as a fresh count does
   * after a long run of random moves, which passes through every transition of a key's part counts (0 ↔ 1 and
   * 1 ↔ 2, the own part and the target), rows moving back included; the boundary test agrees as well.
   */
  @Test
  void gainCacheMatchesAFreshCountAfterMoves() {
    SplittableRandom rnd = new SplittableRandom(11);
    for (int k : new int[] {2, 3, 16, GainCache.MAX_PARTS}) {
      for (int trial = 0; trial < 10; trial++) {
        int n = k + rnd.nextInt(200);
        int numKeys = 3 + rnd.nextInt(40);
        RowKeyGraph g = randomRows(rnd, n, numKeys, 12);
        int[] part = new int[n];
        for (int r = 0; r < n; r++) {
          part[r] = rnd.nextInt(Math.min(k, 4)); // crowded parts first, so moves empty and fill parts of a key
        }
        int moves = 3 * n;
        int[] rows = new int[moves];
        int[] targets = new int[moves];
        int[] now = part.clone();
        for (int i = 0; i < moves; i++) {
          rows[i] = rnd.nextInt(n);
          int b = rnd.nextInt(k - 1);
          targets[i] = b >= now[rows[i]] ? b + 1 : b;
          now[rows[i]] = targets[i];
        }
        MultilevelPartitioner ml = new MultilevelPartitioner(k, MultilevelPartitioner.Settings.defaults(), null);
        long cap = n / k + 1 + rnd.nextInt(n);
        long[] cached = ml.bestMovesAfter(g, part, rows, targets, cap, true);
        assertArrayEquals(ml.bestMovesAfter(g, part, rows, targets, cap, false), cached, "k=" + k + " trial " + trial);
        assertArrayEquals(ml.bestMovesAfter(g, now, new int[0], new int[0], cap, false), cached,
            "k=" + k + " trial " + trial + ": against a state built from the final parts");
      }
    }
  }

  /** {@code g} with every key copied into 2..{@code copies} keys of the same rows, the copies' ids interleaved. */
  private static RowKeyGraph withCopiedKeys(SplittableRandom rnd, RowKeyGraph g, int copies) {
    int[] first = new int[g.numKeys() + 1];
    for (int e = 0; e < g.numKeys(); e++) {
      first[e + 1] = first[e] + 2 + rnd.nextInt(copies - 1);
    }
    int n = g.numRows();
    int[] rowStart = new int[n + 1];
    List<Integer> keys = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      for (int t = g.rowStart()[r]; t < g.rowStart()[r + 1]; t++) {
        int e = g.rowKeys()[t];
        for (int c = first[e]; c < first[e + 1]; c++) {
          keys.add(c);
        }
      }
      rowStart[r + 1] = keys.size();
    }
    return new RowKeyGraph(n, new int[] {0, n}, rowStart, keys.stream().mapToInt(Integer::intValue).toArray(),
        first[g.numKeys()]);
  }

  /**
   * A level whose identical keys are merged into weighted ones rates every row's best move, finds the same boundary
   * rows, and counts the same working sets and connectivity as the level itself, before and after a long run of random
   * moves, with and without the gain cache.
   */
  @Test
  void mergedIdenticalKeysRateEveryMoveAsTheKeysThemselves() {
    SplittableRandom rnd = new SplittableRandom(29);
    for (int k : new int[] {2, 5, 16}) {
      for (int trial = 0; trial < 8; trial++) {
        int n = k + rnd.nextInt(150);
        RowKeyGraph g = withCopiedKeys(rnd, randomRows(rnd, n, 3 + rnd.nextInt(30), 10), 4);
        int[] part = new int[n];
        for (int r = 0; r < n; r++) {
          part[r] = rnd.nextInt(Math.min(k, 4));
        }
        int moves = 2 * n;
        int[] rows = new int[moves];
        int[] targets = new int[moves];
        for (int i = 0; i < moves; i++) {
          rows[i] = rnd.nextInt(n);
          targets[i] = rnd.nextInt(k);
        }
        MultilevelPartitioner ml = new MultilevelPartitioner(k, MultilevelPartitioner.Settings.defaults(), null);
        long cap = n / k + 1 + rnd.nextInt(n);
        for (int[] r : new int[][] {new int[0], rows}) {
          int[] t = r.length == 0 ? new int[0] : targets;
          long[] plain = ml.bestMovesAfter(g, part, r, t, cap, false, false);
          String at = "k=" + k + " trial " + trial + " moves " + r.length;
          assertArrayEquals(plain, ml.bestMovesAfter(g, part, r, t, cap, false, true), at);
          assertArrayEquals(plain, ml.bestMovesAfter(g, part, r, t, cap, true, true), at + " (gain cache)");
        }
      }
    }
  }

  /**
   * A fresh partition places its coarsest level and refines its coarse levels with identical nets merged: far fewer
   * nets there, and every row in the same part as without merging; so does a capped V-cycle from a given partition.
   */
  @Test
  void aFreshPartitionIsTheSameWithIdenticalNetsMerged() {
    SplittableRandom rnd = new SplittableRandom(31);
    int k = 4;
    int rows = 1500;
    int[] groupOf = new int[rows];
    // keys copied 1..4 times: the copies are identical nets at every level
    RowKeyGraph copied = withCopiedKeys(rnd, RowKeyGraph.of(planted(rnd, rows, k, 200, 8, 0.4, 1, groupOf)), 4);
    long[] keys = new long[copied.rowKeys().length];
    long[] ids = new long[rows];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = copied.rowKeys()[i];
    }
    for (int r = 0; r < rows; r++) {
      ids[r] = r;
    }
    List<Block> blocks = List.of(new Block(ids, copied.rowStart().clone(), keys, null));
    RowKeyGraph g = RowKeyGraph.of(blocks);
    MultilevelPartitioner plain = new MultilevelPartitioner(k, MultilevelPartitioner.Settings.defaults(), null)
        .setMergeNets(false);
    int[][] expected = plain.partition(blocks, g, null, Double.NaN);
    int unmerged = plain.initialNets();
    MultilevelPartitioner merging = new MultilevelPartitioner(k, MultilevelPartitioner.Settings.defaults(), null);
    int[][] got = merging.partition(blocks, g, null, Double.NaN);
    for (int b = 0; b < blocks.size(); b++) {
      assertArrayEquals(expected[b], got[b], "block " + b);
    }
    assertTrue(merging.initialNets() < 0.75 * unmerged,
        "merged " + merging.initialNets() + " of the coarsest level's " + unmerged + " nets");
    int[][] given = new int[1][rows];
    for (int r = 0; r < rows; r++) {
      given[0][r] = (expected[0][r] + (r % 7 == 0 ? 1 : 0)) % k; // the result, a seventh of the rows moved on
    }
    assertArrayEquals(plain.partition(blocks, g, given, 0.0)[0], merging.partition(blocks, g, given, 0.0)[0],
        "a capped V-cycle");
  }
}
