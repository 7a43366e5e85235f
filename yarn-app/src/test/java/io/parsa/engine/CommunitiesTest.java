package io.parsa.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CommunitiesTest {

  /**
   * {@code groups} planted groups of rows: each row takes {@code deg} keys from its group's pool of {@code pool} keys
   * and, with probability {@code noise}, one key of another group's pool; the graph's rows in a shuffled order.
   */
  private static RowKeyGraph planted(SplittableRandom rnd, int rows, int groups, int pool, int deg, double noise,
      int[] groupOf) {
    int[] rowStart = new int[rows + 1];
    List<Integer> keys = new ArrayList<>();
    for (int r = 0; r < rows; r++) {
      int g = rnd.nextInt(groups);
      groupOf[r] = g;
      java.util.TreeSet<Integer> own = new java.util.TreeSet<>();
      for (int d = 0; d < deg; d++) {
        own.add(g * pool + rnd.nextInt(pool));
      }
      if (rnd.nextDouble() < noise) {
        own.add(((g + 1 + rnd.nextInt(groups - 1)) % groups) * pool + rnd.nextInt(pool));
      }
      keys.addAll(own);
      rowStart[r + 1] = keys.size();
    }
    return new RowKeyGraph(rows, new int[] {0, rows}, rowStart, keys.stream().mapToInt(Integer::intValue).toArray(),
        groups * pool);
  }

  private static int[] of(RowKeyGraph g, long seed) {
    RowKeyGraph.Transposed t = g.byKey();
    return Communities.of(g.numRows(), g.numKeys(), t.start(), t.rows(), 300, seed);
  }

  /**
   * Planted groups joined by a few stray keys are found: almost every row (≥ 95 %) shares its community with the
   * majority of its planted group, no community spans two groups' majorities, and the ids are dense from 0.
   */
  @Test
  void findsPlantedGroups() {
    SplittableRandom rnd = new SplittableRandom(3);
    int rows = 3000;
    int groups = 12;
    int[] groupOf = new int[rows];
    RowKeyGraph g = planted(rnd, rows, groups, 150, 6, 0.2, groupOf);
    int[] c = of(g, 1);
    int count = 0;
    for (int x : c) {
      assertTrue(x >= 0);
      count = Math.max(count, x + 1);
    }
    boolean[] used = new boolean[count];
    for (int x : c) {
      used[x] = true;
    }
    for (int i = 0; i < count; i++) {
      assertTrue(used[i], "community ids dense: " + i + " of " + count + " unused");
    }
    // the majority community of every group
    int[] major = new int[groups];
    for (int gr = 0; gr < groups; gr++) {
      int[] hits = new int[count];
      for (int r = 0; r < rows; r++) {
        if (groupOf[r] == gr) {
          hits[c[r]]++;
        }
      }
      for (int i = 0; i < count; i++) {
        if (hits[i] > hits[major[gr]]) {
          major[gr] = i;
        }
      }
    }
    for (int a = 0; a < groups; a++) {
      for (int b = a + 1; b < groups; b++) {
        assertTrue(major[a] != major[b], "groups " + a + " and " + b + " share community " + major[a]);
      }
    }
    int agree = 0;
    for (int r = 0; r < rows; r++) {
      if (c[r] == major[groupOf[r]]) {
        agree++;
      }
    }
    assertTrue(agree >= 0.95 * rows, agree + " of " + rows + " rows in their group's community");
  }

  /** The same seed gives the same communities; rows without shared keys are communities of their own. */
  @Test
  void deterministicAndLoneRowsAlone() {
    SplittableRandom rnd = new SplittableRandom(5);
    int[] groupOf = new int[800];
    RowKeyGraph g = planted(rnd, 800, 4, 100, 5, 0.3, groupOf);
    assertArrayEquals(of(g, 9), of(g, 9));
    // three rows: two share key 0, the third has only a key of its own and the fourth none
    RowKeyGraph small = new RowKeyGraph(4, new int[] {0, 4}, new int[] {0, 1, 2, 3, 3}, new int[] {0, 0, 1}, 2);
    int[] c = of(small, 1);
    assertEquals(c[0], c[1]);
    assertTrue(c[2] != c[0] && c[3] != c[0] && c[2] != c[3], java.util.Arrays.toString(c));
  }

  /**
   * A key that stands for many keys of the same rows ties them as many keys would: two planted groups stay apart
   * where the key that ten rows of each share weighs 1, and those rows join one community where it weighs 400; with
   * every weight 1 the communities are those of the unweighted call.
   */
  @Test
  void netWeightsTieRowsAsManyKeys() {
    SplittableRandom rnd = new SplittableRandom(7);
    int[] groupOf = new int[120];
    RowKeyGraph planted = planted(rnd, 120, 2, 40, 5, 0, groupOf);
    int a = -1;
    int b = -1;
    List<Integer> shared = new ArrayList<>();
    int[] ofGroup = new int[2];
    for (int r = 0; r < 120; r++) {
      if (ofGroup[groupOf[r]] < 10) {
        ofGroup[groupOf[r]]++;
        shared.add(r);
      }
    }
    // the planted rows plus one key (id 80) held by ten rows of each group
    int[] rowStart = new int[121];
    List<Integer> keys = new ArrayList<>();
    for (int r = 0; r < 120; r++) {
      for (int t = planted.rowStart()[r]; t < planted.rowStart()[r + 1]; t++) {
        keys.add(planted.rowKeys()[t]);
      }
      if (shared.contains(r)) {
        keys.add(80);
        if (groupOf[r] == 0 && a < 0) {
          a = r;
        } else if (groupOf[r] == 1 && b < 0) {
          b = r;
        }
      }
      rowStart[r + 1] = keys.size();
    }
    RowKeyGraph g = new RowKeyGraph(120, new int[] {0, 120}, rowStart, keys.stream().mapToInt(Integer::intValue)
        .toArray(), 81);
    RowKeyGraph.Transposed t = g.byKey();
    int[] ones = new int[81];
    java.util.Arrays.fill(ones, 1);
    int[] plain = Communities.of(120, 81, t.start(), t.rows(), 300, 1);
    assertArrayEquals(plain, Communities.of(120, 81, t.start(), t.rows(), ones, 300, 1));
    assertTrue(plain[a] != plain[b], "rows " + a + " and " + b + " apart: " + java.util.Arrays.toString(plain));
    int[] heavy = ones.clone();
    heavy[80] = 400;
    int[] tied = Communities.of(120, 81, t.start(), t.rows(), heavy, 300, 1);
    for (int r : shared) {
      assertEquals(tied[a], tied[r], "row " + r + " with row " + a + ": " + java.util.Arrays.toString(tied));
    }
  }
}
