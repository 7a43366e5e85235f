package io.parsa.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ParsaEngineSmokeTest {
  @Test
  void twoClustersGoToTwoParts() {
    // rows 0,1 use keys {1,2}; rows 2,3 use keys {3,4}
    Block b = new Block(new long[] {0, 1, 2, 3}, new int[] {0, 2, 4, 6, 8},
        new long[] {1, 2, 1, 2, 3, 4, 3, 4}, null);
    ParsaEngine e = new ParsaEngine(2);
    long[] m = new long[b.numKeys()];
    double[] loads = new double[2];
    int[] parts = e.partition(b, m, loads);
    // part 0 picks row 0 (lowest index, cost 2); then part 1: rows 1 cost 2, 2 cost 2, 3 cost 2 -> row 1?
    // part 1's costs are untouched by part 0, so it picks row 1 (lowest index); then part 0 has row... see below
    assertEquals(2.0, loads[0]);
    assertEquals(2.0, loads[1]);
    assertArrayEquals(new int[] {0, 1, 0, 1}, parts);
  }
}
