package io.parsa.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class VAssignerTest {
  @Test
  void greedyByRunningCostWithUnusedKeysToFewestKeys() {
    // k = 2: key 10 used by {0,1}, key 20 by {0}, key 30 by nobody, key 40 by {1}, key 50 by {0,1}
    long[] keys = {10, 20, 30, 40, 50};
    long[] usage = {0b11, 0b01, 0b00, 0b10, 0b11};
    VAssigner.Result r = VAssigner.assign(2, keys, usage);
    // cost = M = (3, 3). key 10: tie -> 0, cost0 = 3 - 1 + 1 = 3. key 20: -> 0, cost0 = 2.
    // key 30: unused -> fewest keys: |V| = (2, 0) -> 1. key 40: -> 1, cost1 = 2.
    // key 50: tie at 2 -> 0, cost0 = 2.
    assertArrayEquals(new int[] {0, 0, 1, 1, 0}, r.parts());
    assertArrayEquals(new long[] {3, 2}, r.vSizes());
    assertArrayEquals(new long[] {2, 2}, r.costs());
    PlacementMetrics m = PlacementEvaluator.evaluate(
        new PlacementEvaluator.KeyUsage(2, keys, usage), r.parts());
    assertArrayEquals(m.traffic(), r.costs());
  }

  @Test
  void worksAcrossWords() {
    int k = 130;
    long[] usage = new long[3 * 3];
    usage[0 * 3 + 2] = 1L << 1;                 // key 0 used by part 129 only
    usage[1 * 3 + 1] = 1L << 5;                 // key 1 used by part 69 only
    usage[2 * 3] = 1L;                          // key 2 used by part 0 only
    VAssigner.Result r = VAssigner.assign(k, new long[] {-5, 0, 7}, usage);
    assertArrayEquals(new int[] {129, 69, 0}, r.parts());
  }

  @Test
  void rejectsUnsortedKeys() {
    assertThrows(IllegalArgumentException.class, () -> VAssigner.assign(1, new long[] {2, 1}, new long[2]));
  }
}
