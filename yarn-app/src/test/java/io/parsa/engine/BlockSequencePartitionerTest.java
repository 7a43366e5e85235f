package io.parsa.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Invariants of multi-block runs: every row once, balance over the whole run, S_i = N(U_i) ∪ initial. */
class BlockSequencePartitionerTest {

  static List<Block> blocks(SplittableRandom rnd, int count, boolean weighted) {
    List<Block> bs = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      bs.add(ParsaEngineReferenceTest.randomBlock(rnd, rnd.nextInt(50), 60, 10, weighted));
    }
    return bs;
  }

  static NeighborSets randomSets(SplittableRandom rnd, int k) {
    NeighborSets s = new NeighborSets(k);
    for (int i = 0; i < 100; i++) {
      long key = (rnd.nextInt(80) * 0x9E3779B97F4A7C15L) ^ 12345L; // overlaps the blocks' keys
      s.add(key, rnd.nextInt(k));
    }
    return s;
  }

  @Test
  void invariantsOverRandomRuns() {
    SplittableRandom rnd = new SplittableRandom(99);
    for (int trial = 0; trial < 60; trial++) {
      int k = new int[] {1, 2, 5, 16, 64, 70}[trial % 6];
      int theta = trial % 2 == 0 ? 2 : ParsaEngine.DEFAULT_THETA;
      List<Block> bs = blocks(rnd, 1 + rnd.nextInt(6), false);
      NeighborSets initial = trial % 3 == 0 ? null : randomSets(rnd, k);
      Initialisation init = initial == null ? Initialisation.none()
          : trial % 3 == 1 ? Initialisation.global(initial) : Initialisation.incremental(initial);
      BlockSequencePartitioner.Result r = new BlockSequencePartitioner(k, theta).partition(bs, init);
      String ctx = "trial " + trial;

      // every row exactly once, in a valid part; loads = row counts; balance within 1 over the whole run
      long[] count = new long[k];
      for (int b = 0; b < bs.size(); b++) {
        assertEquals(bs.get(b).numRows(), r.parts()[b].length, ctx);
        for (int p : r.parts()[b]) {
          assertTrue(p >= 0 && p < k, ctx);
          count[p]++;
        }
      }
      long min = Long.MAX_VALUE;
      long max = Long.MIN_VALUE;
      for (int i = 0; i < k; i++) {
        assertEquals(count[i], r.loads()[i], 0.0, ctx);
        min = Math.min(min, count[i]);
        max = Math.max(max, count[i]);
      }
      assertTrue(max - min <= 1, ctx + " loads " + java.util.Arrays.toString(count));

      // S_i = N(U_i) ∪ initial S_i
      NeighborSets expected = initial == null ? new NeighborSets(k) : initial.copy();
      for (int b = 0; b < bs.size(); b++) {
        expected.union(bs.get(b).keys(), BlockSequencePartitioner.ownSets(bs.get(b), r.parts()[b], k));
      }
      assertSameSets(expected, r.sets(), ctx);
      if (initial != null) {
        assertTrue(initial.numKeys() > 0); // the given sets are not modified by the run
      }
    }
  }

  @Test
  void weightedRunsBalanceTotalWeight() {
    SplittableRandom rnd = new SplittableRandom(5);
    for (int trial = 0; trial < 30; trial++) {
      int k = 1 + rnd.nextInt(8);
      List<Block> bs = blocks(rnd, 1 + rnd.nextInt(5), true);
      BlockSequencePartitioner.Result r = new BlockSequencePartitioner(k).partition(bs, Initialisation.none());
      double[] load = new double[k];
      for (int b = 0; b < bs.size(); b++) {
        for (int row = 0; row < bs.get(b).numRows(); row++) {
          load[r.parts()[b][row]] += bs.get(b).weight(row);
        }
      }
      assertArrayEquals(load, r.loads(), 1e-9);
      double min = java.util.Arrays.stream(load).min().orElse(0);
      double max = java.util.Arrays.stream(load).max().orElse(0);
      // the lightest part always picks next, so no part exceeds the lightest by more than one row's weight (3)
      assertTrue(max - min <= 3, "trial " + trial + " " + java.util.Arrays.toString(load));
    }
  }

  @Test
  void individualInitialisationDropsWarmupResultsAndResetsSets() {
    SplittableRandom rnd = new SplittableRandom(11);
    for (int trial = 0; trial < 20; trial++) {
      int k = 2 + rnd.nextInt(6);
      List<Block> bs = blocks(rnd, 2 + rnd.nextInt(4), false);
      int a = 1 + rnd.nextInt(2 * bs.size());
      BlockSequencePartitioner.Result r =
          new BlockSequencePartitioner(k).partition(bs, Initialisation.individual(a));

      // replay the warm-up by hand with a fresh engine
      ParsaEngine e = new ParsaEngine(k);
      NeighborSets s = new NeighborSets(k);
      for (int t = 0; t < a; t++) {
        Block b = bs.get(t % bs.size());
        long[] m = new long[b.numKeys() * NeighborSets.wordsPerKey(k)];
        s.pull(b.keys(), m);
        int[] parts = e.partition(b, m, new double[k]);
        s = new NeighborSets(k);
        s.union(b.keys(), BlockSequencePartitioner.ownSets(b, parts, k));
      }
      BlockSequencePartitioner.Result fromWarm =
          new BlockSequencePartitioner(k).partition(bs, Initialisation.global(s));
      for (int b = 0; b < bs.size(); b++) {
        assertArrayEquals(fromWarm.parts()[b], r.parts()[b], "trial " + trial);
      }
      assertArrayEquals(fromWarm.loads(), r.loads());
      assertSameSets(fromWarm.sets(), r.sets(), "trial " + trial);
      long rows = bs.stream().mapToLong(Block::numRows).sum();
      assertEquals(rows, java.util.Arrays.stream(r.loads()).sum(), 0.0); // warm-up rows not counted
    }
  }

  @Test
  void streamingVariantMatchesListVariant() {
    List<Block> bs = blocks(new SplittableRandom(8), 6, false);
    BlockSequencePartitioner.Result list =
        new BlockSequencePartitioner(5).partition(bs, Initialisation.individual(4));
    List<int[]> seen = new ArrayList<>();
    Iterable<Block> lazy = () -> bs.iterator(); // re-iterable, as a lazily loading source would be
    BlockSequencePartitioner.Result streamed = new BlockSequencePartitioner(5).partition(lazy,
        Initialisation.individual(4), (b, block, parts) -> {
          assertEquals(seen.size(), b);
          assertEquals(bs.get(b).numRows(), parts.length);
          seen.add(parts.clone());
        });
    assertEquals(null, streamed.parts());
    assertEquals(bs.size(), seen.size());
    for (int i = 0; i < bs.size(); i++) {
      assertArrayEquals(list.parts()[i], seen.get(i));
    }
    assertArrayEquals(list.loads(), streamed.loads());
    assertSameSets(list.sets(), streamed.sets(), "streamed");
    assertEquals(list.edgesProcessed(), streamed.edgesProcessed());
  }

  @Test
  void deterministic() {
    List<Block> bs = blocks(new SplittableRandom(1), 5, false);
    BlockSequencePartitioner.Result a = new BlockSequencePartitioner(7).partition(bs, Initialisation.individual(3));
    BlockSequencePartitioner.Result b = new BlockSequencePartitioner(7).partition(bs, Initialisation.individual(3));
    for (int i = 0; i < bs.size(); i++) {
      assertArrayEquals(a.parts()[i], b.parts()[i]);
    }
  }

  static void assertSameSets(NeighborSets expected, NeighborSets actual, String ctx) {
    assertEquals(expected.numKeys(), actual.numKeys(), ctx);
    assertArrayEquals(expected.setSizes(), actual.setSizes(), ctx);
    int wpk = NeighborSets.wordsPerKey(expected.k());
    expected.forEach((key, words, off) -> {
      long[] got = new long[wpk];
      actual.pull(new long[] {key}, got);
      assertArrayEquals(java.util.Arrays.copyOfRange(words, off, off + wpk), got, ctx + " key " + key);
    });
  }
}
