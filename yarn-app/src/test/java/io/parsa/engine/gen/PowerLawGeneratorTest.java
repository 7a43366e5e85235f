package io.parsa.engine.gen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class PowerLawGeneratorTest {

  @Test
  void producesExactlyTheRequestedNonZerosWithDistinctAscendingKeysInRange() throws Exception {
    long[] count = new long[2];
    long produced = new PowerLawGenerator(5_000, 20_000, 100_000, 2.2, 1.0, 7).generate((row, keys, n) -> {
      assertEquals(count[0], row, "rows come in order");
      for (int i = 0; i < n; i++) {
        assertTrue(keys[i] >= 1 && keys[i] <= 20_000, "key in [1, columns]");
        if (i > 0) {
          assertTrue(keys[i] > keys[i - 1], "keys distinct and ascending");
        }
      }
      count[0]++;
      count[1] += n;
    });
    assertEquals(5_000, count[0]);
    assertEquals(100_000, count[1]);
    assertEquals(100_000, produced);
  }

  @Test
  void aRowAskingForMoreThanTheCapDoesNotLoseNonZeros() throws Exception {
    // rows 10^4 with Pareto weights (exponent 2.2): seed 42 draws one row whose share of 10^6 is ~2.8 x 10^5,
    // far above the cap of columns/2 = 5 x 10^4; its excess goes to the other rows
    long[] max = new long[1];
    PowerLawGenerator g = new PowerLawGenerator(10_000, 100_000, 1_000_000, 2.2, 1.0, 42);
    long produced = g.generate((row, keys, n) -> max[0] = Math.max(max[0], n));
    assertEquals(1_000_000, produced);
    assertEquals(50_000, max[0], "the heaviest row is capped at columns/2");

    long[] sum = new long[1];
    produced = new PowerLawGenerator(10_000, 1_000, 1_000_000, 2.2, 1.0, 42).generate((row, keys, n) -> {
      assertTrue(n <= 500, "cap columns/2");
      sum[0] += n;
    });
    assertEquals(1_000_000, produced);
    assertEquals(1_000_000, sum[0]);
  }

  @Test
  void aShapeTooSmallForTheNonZerosFillsEveryRowToTheCap() throws Exception {
    PowerLawGenerator g = new PowerLawGenerator(100, 20, 5_000, 2.2, 1.0, 3);
    assertEquals(1_000, g.maxNonZeros());
    long[] rows = new long[1];
    long produced = g.generate((row, keys, n) -> {
      assertEquals(10, n);
      rows[0]++;
    });
    assertEquals(100, rows[0]);
    assertEquals(1_000, produced);
  }

  @Test
  void isDeterministicForASeedAndDiffersAcrossSeeds() throws Exception {
    assertEquals(rows(11), rows(11));
    assertTrue(!rows(11).equals(rows(12)));
  }

  @Test
  void keyPopularityIsSkewed() throws Exception {
    Long2LongOpenHashMap freq = new Long2LongOpenHashMap();
    new PowerLawGenerator(20_000, 10_000, 200_000, 2.5, 1.1, 3).generate((row, keys, n) -> {
      for (int i = 0; i < n; i++) {
        freq.addTo(keys[i], 1);
      }
    });
    long[] f = freq.values().toLongArray();
    Arrays.sort(f);
    long top = 0;
    for (int i = f.length - 1; i >= f.length - 100; i--) {
      top += f[i];
    }
    // With a Zipf-like exponent the 1% most popular keys carry far more than 1% of the non-zeros.
    assertTrue(top > 200_000 * 0.2, "top-100 keys hold " + top + " of 200000 non-zeros");
  }

  @Test
  void fullLocalityConfinesEachRowToItsCommunity() throws Exception {
    // clusters = 2, locality = 1: every row draws only from its community's half of the key space, so the
    // keys fall into exactly two groups that no row bridges.
    int columns = 1_000;
    int[] parent = new int[columns + 1];
    for (int i = 0; i <= columns; i++) {
      parent[i] = i;
    }
    new PowerLawGenerator(2_000, columns, 20_000, 2.5, 0.5, 5, 2, 1.0).generate((row, keys, n) -> {
      for (int i = 1; i < n; i++) {
        parent[find(parent, (int) keys[i])] = find(parent, (int) keys[0]);
      }
    });
    long roots = java.util.stream.IntStream.rangeClosed(1, columns).filter(i -> find(parent, i) == i).count();
    assertEquals(2, roots, "two disconnected communities");
  }

  private static int find(int[] parent, int x) {
    while (parent[x] != x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  }

  @Test
  void rejectsBadParameters() {
    assertThrows(IllegalArgumentException.class, () -> new PowerLawGenerator(10, 10, 10, 2, 1, 1, 0, 0.5));
    assertThrows(IllegalArgumentException.class, () -> new PowerLawGenerator(10, 10, 10, 2, 1, 1, 2, 1.5));
    assertThrows(IllegalArgumentException.class, () -> new PowerLawGenerator(0, 10, 10, 2, 1, 1));
    assertThrows(IllegalArgumentException.class, () -> new PowerLawGenerator(10, 10, 10, 1.0, 1, 1));
  }

  private static List<String> rows(long seed) throws Exception {
    List<String> out = new ArrayList<>();
    new PowerLawGenerator(200, 1_000, 3_000, 2.0, 0.8, seed)
        .generate((row, keys, n) -> out.add(row + ":" + Arrays.toString(Arrays.copyOf(keys, n))));
    return out;
  }
}
