package io.parsa.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The fast engine makes exactly the choices of the brute-force reference on many random small blocks. */
class ParsaEngineReferenceTest {

  static Block randomBlock(SplittableRandom rnd, int n, int universe, int maxDeg, boolean weighted) {
    long[] ids = new long[n];
    int[] start = new int[n + 1];
    List<Long> keys = new ArrayList<>();
    double[] w = weighted ? new double[n] : null;
    for (int r = 0; r < n; r++) {
      ids[r] = 1000 + r;
      int deg = rnd.nextInt(maxDeg + 1);
      for (int d = 0; d < deg; d++) {
        // skewed key choice, with sparse 64-bit key values (some negative), duplicates allowed
        int key = rnd.nextInt(1 + rnd.nextInt(universe));
        keys.add((key * 0x9E3779B97F4A7C15L) ^ 12345L);
      }
      start[r + 1] = keys.size();
      if (weighted) {
        w[r] = rnd.nextInt(4); // includes 0: ties and zero-weight rows
      }
    }
    long[] k = new long[keys.size()];
    for (int i = 0; i < k.length; i++) {
      k[i] = keys.get(i);
    }
    return new Block(ids, start, k, w);
  }

  @Test
  void fastEngineMatchesBruteForceOnRandomBlocks() {
    SplittableRandom rnd = new SplittableRandom(20260522L);
    // compared blocks with at least one row, per configuration the engine has separate code for
    int[] nonEmptyByStructure = new int[ParsaEngine.Structure.values().length];
    int nonEmptyWide = 0;
    int nonEmptyWeighted = 0;
    int nonEmptyTheta0 = 0;
    long totalPicks = 0;
    for (int trial = 0; trial < 400; trial++) {
      int k = switch (trial % 5) {
        case 0 -> 1 + rnd.nextInt(3);
        case 1 -> 2 + rnd.nextInt(8);
        case 2 -> 60 + rnd.nextInt(10); // crosses the 64-part word boundary
        default -> 2 + rnd.nextInt(20);
      };
      int theta = switch (trial % 4) {
        case 0 -> 0;
        case 1 -> 1 + rnd.nextInt(3);
        case 2 -> ParsaEngine.DEFAULT_THETA;
        default -> rnd.nextInt(6);
      };
      boolean weighted = trial % 3 == 0;
      ParsaEngine.Structure structure = ParsaEngine.Structure.values()[(trial / 5) % 2];
      ParsaEngine fast = new ParsaEngine(k, theta, structure);
      int wpk = NeighborSets.wordsPerKey(k);
      double[] loadsFast = new double[k];
      double[] loadsRef = new double[k];
      if (trial % 2 == 0) {
        for (int i = 0; i < k; i++) {
          loadsFast[i] = loadsRef[i] = rnd.nextInt(3);
        }
      }
      // several blocks through the same engine instance: exercises array reuse across sizes
      int blocks = 1 + rnd.nextInt(3);
      for (int bIdx = 0; bIdx < blocks; bIdx++) {
        Block b = randomBlock(rnd, rnd.nextInt(40), 1 + rnd.nextInt(30), rnd.nextInt(12), weighted);
        long[] mFast = new long[b.numKeys() * wpk];
        if (rnd.nextBoolean()) {
          for (int i = 0; i < mFast.length; i++) {
            mFast[i] = rnd.nextLong() & rnd.nextLong() & rnd.nextLong();
          }
        }
        long[] mRef = mFast.clone();
        List<ReferenceAlgorithm3.Pick> fastPicks = new ArrayList<>();
        fast.setListener((p, u, c) -> fastPicks.add(new ReferenceAlgorithm3.Pick(p, u, c)));
        ReferenceAlgorithm3 ref = new ReferenceAlgorithm3();
        int[] rFast = fast.partition(b, mFast, loadsFast);
        int[] rRef = ref.partition(k, b, mRef, loadsRef);
        String ctx = "trial " + trial + " block " + bIdx + " k=" + k + " theta=" + theta + " " + structure;
        assertEquals(ref.picks, fastPicks, ctx);
        assertArrayEquals(rRef, rFast, ctx);
        assertArrayEquals(mRef, mFast, ctx);
        assertArrayEquals(loadsRef, loadsFast, ctx);
        totalPicks += fastPicks.size();
        if (b.numRows() > 0) {
          nonEmptyByStructure[structure.ordinal()]++;
          nonEmptyWide += k > 64 ? 1 : 0;
          nonEmptyWeighted += weighted ? 1 : 0;
          nonEmptyTheta0 += theta == 0 ? 1 : 0;
        }
      }
    }
    // the comparison covered every branch with real blocks, not just empty ones
    for (ParsaEngine.Structure st : ParsaEngine.Structure.values()) {
      assertTrue(nonEmptyByStructure[st.ordinal()] >= 150, st + ": " + nonEmptyByStructure[st.ordinal()]);
    }
    assertTrue(nonEmptyWide >= 40, "blocks with k > 64 (two words per key): " + nonEmptyWide);
    assertTrue(nonEmptyWeighted >= 100, "weighted blocks: " + nonEmptyWeighted);
    assertTrue(nonEmptyTheta0 >= 80, "blocks with theta = 0: " + nonEmptyTheta0);
    assertTrue(totalPicks > 5000, "picks " + totalPicks);
  }

  @Test
  void highDegreeRowsExerciseTheOverflowList() {
    SplittableRandom rnd = new SplittableRandom(7);
    long aboveTheta = 0;
    for (int trial = 0; trial < 100; trial++) {
      int k = 1 + rnd.nextInt(6);
      int theta = rnd.nextInt(4);
      ParsaEngine fast = new ParsaEngine(k, theta, ParsaEngine.Structure.values()[trial % 2]);
      Block b = randomBlock(rnd, 5 + rnd.nextInt(30), 8 + rnd.nextInt(40), 30, false);
      long[] m1 = new long[b.numKeys()];
      long[] m2 = m1.clone();
      double[] l1 = new double[k];
      double[] l2 = new double[k];
      List<ReferenceAlgorithm3.Pick> fastPicks = new ArrayList<>();
      fast.setListener((p, u, c) -> fastPicks.add(new ReferenceAlgorithm3.Pick(p, u, c)));
      ReferenceAlgorithm3 ref = new ReferenceAlgorithm3();
      assertArrayEquals(ref.partition(k, b, m2, l2), fast.partition(b, m1, l1), "trial " + trial);
      assertEquals(ref.picks, fastPicks, "trial " + trial);
      aboveTheta += ref.picks.stream().filter(pk -> pk.cost() > theta + 1).count();
    }
    assertEquals(true, aboveTheta > 200, "picks above theta + 1: " + aboveTheta);
  }

  @Test
  void largerDenseBlocksExercisePoolCompaction() {
    SplittableRandom rnd = new SplittableRandom(1234);
    long compactions = 0;
    for (int trial = 0; trial < 12; trial++) {
      int k = 1 + rnd.nextInt(5);
      int theta = trial % 3 == 0 ? 3 : ParsaEngine.DEFAULT_THETA;
      ParsaEngine fast = new ParsaEngine(k, theta, ParsaEngine.Structure.BUCKET_STACKS);
      double[] l1 = new double[k];
      double[] l2 = new double[k];
      for (int blk = 0; blk < 2; blk++) {
        Block b = randomBlock(rnd, 200 + rnd.nextInt(300), 20 + rnd.nextInt(20), 14, trial % 2 == 0);
        long[] m1 = new long[b.numKeys()];
        long[] m2 = m1.clone();
        List<ReferenceAlgorithm3.Pick> fastPicks = new ArrayList<>();
        fast.setListener((p, u, c) -> fastPicks.add(new ReferenceAlgorithm3.Pick(p, u, c)));
        ReferenceAlgorithm3 ref = new ReferenceAlgorithm3();
        assertArrayEquals(ref.partition(k, b, m2, l2), fast.partition(b, m1, l1), "trial " + trial);
        assertEquals(ref.picks, fastPicks, "trial " + trial);
        assertArrayEquals(m2, m1);
      }
      compactions += fast.compactions();
    }
    assertEquals(true, compactions > 10, "compactions: " + compactions);
  }
}
