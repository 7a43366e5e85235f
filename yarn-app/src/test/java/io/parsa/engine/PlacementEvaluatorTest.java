package io.parsa.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PlacementEvaluatorTest {
  @Test
  void handCheckedMetrics() {
    // two blocks; rows: block0 r0 {1,2}, r1 {2,3}; block1 r0 {3}, r1 {1,1,4}
    Block b0 = new Block(new long[] {0, 1}, new int[] {0, 2, 4}, new long[] {1, 2, 2, 3}, null);
    Block b1 = new Block(new long[] {2, 3}, new int[] {0, 1, 4}, new long[] {3, 1, 1, 4}, null);
    int[][] parts = {{0, 1}, {1, 0}};
    PlacementEvaluator.KeyUsage u = PlacementEvaluator.usage(2, List.of(b0, b1), parts);
    // N(U_0) = {1,2,4}, N(U_1) = {2,3}
    assertArrayEquals(new long[] {1, 2, 3, 4}, u.keys());
    assertArrayEquals(new long[] {0b01, 0b11, 0b10, 0b01}, u.bits());
    // V: 1 -> 0, 2 -> 1, 3 -> 1, 4 -> 1
    PlacementMetrics m = PlacementEvaluator.evaluate(u, new int[] {0, 1, 1, 1});
    assertArrayEquals(new long[] {3, 2}, m.workingSetSizes());
    assertArrayEquals(new long[] {1, 3}, m.vSizes());
    // T_0 = |{2,4}| + 0 = 2; T_1 = |{}| + |V_1 ∩ N(U_0)| = |{2,4}| = 2
    assertArrayEquals(new long[] {2, 2}, m.traffic());
    assertEquals(4, m.tSum());
    assertEquals(3, m.innerMachineAccesses());
    assertEquals(2, m.interMachineAccesses());
    assertEquals(50.0, PlacementMetrics.improvementPercent(6, 4), 1e-12);
  }

  @Test
  void randomPlacementIsBalancedAndSeeded() {
    SplittableRandom rnd = new SplittableRandom(3);
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      blocks.add(ParsaEngineReferenceTest.randomBlock(rnd, 10 + i, 20, 5, false));
    }
    int[][] a = PlacementEvaluator.randomPlacement(4, blocks, 42);
    int[][] b = PlacementEvaluator.randomPlacement(4, blocks, 42);
    int[] count = new int[4];
    for (int i = 0; i < a.length; i++) {
      assertArrayEquals(a[i], b[i]);
      for (int p : a[i]) {
        count[p]++;
      }
    }
    int total = 10 + 11 + 12 + 13 + 14;
    for (int c : count) {
      assertEquals(true, c == total / 4 || c == total / 4 + 1);
    }
  }

  @Test
  void parsaBeatsRandomOnClusteredDataAndWarmupRecoversTheClusters() {
    // 4 clusters of 25 rows; a row of cluster c draws 6 keys (duplicates possible) from the 10 keys of cluster c,
    // plus one key shared by all rows
    SplittableRandom rnd = new SplittableRandom(17);
    int n = 100;
    long[] ids = new long[n];
    int[] start = new int[n + 1];
    List<Long> keys = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      ids[r] = r;
      int c = r % 4;
      for (int j = 0; j < 6; j++) {
        keys.add(c * 100L + rnd.nextInt(10));
      }
      keys.add(999L);
      start[r + 1] = keys.size();
    }
    Block b = new Block(ids, start, keys.stream().mapToLong(Long::longValue).toArray(), null);
    List<Block> blocks = List.of(b);

    // From empty sets the greedy's first picks (lowest distinct degree) mix two clusters in two parts.
    BlockSequencePartitioner.Result cold =
        new BlockSequencePartitioner(4).partition(blocks, Initialisation.none());
    PlacementEvaluator.Comparison cmp = PlacementEvaluator.compare(4, blocks, cold.parts(), 5);
    assertEquals(21, cmp.placed().mMax());
    assertEquals(true, cmp.random().mMax() > 30, "random M_max " + cmp.random().mMax());
    assertEquals(PlacementMetrics.improvementPercent(cmp.random().mMax(), cmp.placed().mMax()),
        cmp.mMaxImprovement(), 1e-12);
    assertEquals(true, cmp.tSumImprovement() > 0, "T_sum improvement " + cmp.tSumImprovement());

    // One warm-up pass (individual initialisation, §4.4) gives every part exactly one cluster: 10 keys + 1.
    BlockSequencePartitioner.Result warm =
        new BlockSequencePartitioner(4).partition(blocks, Initialisation.individual(1));
    PlacementMetrics w = PlacementEvaluator.evaluate(4, blocks, warm.parts());
    assertArrayEquals(new long[] {11, 11, 11, 11}, w.workingSetSizes());
    for (int r = 0; r < n; r++) {
      assertEquals(warm.parts()[0][r % 4], warm.parts()[0][r], "row " + r);
    }
  }
}
