package io.parsa.jobs.refine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The streaming balance's plan ({@link FlowPlan}): within the needs and the rates, balancing, and least costly. */
class FlowPlanTest {

  private static final int BINS = GainReducer.GAIN_BINS;

  /**
   * Random needs and rates: no part sends more than its surplus net or receives more than its shortfall net, a part
   * with neither ends where it was, no pair carries more than its rates or flows both ways, and where every part's
   * rows rate every other part often enough the plan balances every part.
   */
  @Test
  void plansStayWithinTheNeedsAndTheRatesAndBalanceWhereRowsAllow() {
    Random rnd = new Random(11);
    for (int t = 0; t < 300; t++) {
      int k = 2 + rnd.nextInt(t % 3 == 0 ? 40 : 12);
      long[] rows = new long[k];
      long n = 0;
      for (int p = 0; p < k; p++) {
        rows[p] = rnd.nextInt(3) == 0 ? rnd.nextInt(5000) : 1000 + rnd.nextInt(7) - 3;
        n += rows[p];
      }
      long[][] need = MrRefinement.surplusAndShortfall(rows, n);
      assertEquals(Arrays.stream(need[0]).sum(), Arrays.stream(need[1]).sum());
      boolean everywhere = t % 2 == 0;
      long[][] hist = new long[k][k * BINS];
      for (int a = 0; a < k; a++) {
        for (int b = 0; b < k; b++) {
          if (a != b) {
            long rated = everywhere ? rows[a] : rnd.nextInt((int) need[0][a] + 3);
            for (long r = 0; r < rated; r++) {
              hist[a][b * BINS + rnd.nextInt(BINS)]++;
            }
          }
        }
      }
      long[][] q = FlowPlan.plan(need[0], need[1], hist);
      long[] net = new long[k];
      for (int a = 0; a < k; a++) {
        for (int b = 0; b < k; b++) {
          assertTrue(q[a][b] >= 0 && q[a][b] <= rated(hist, a, b), "flow " + a + " -> " + b + ", trial " + t);
          assertTrue(q[a][b] == 0 || q[b][a] == 0, "both ways between " + a + " and " + b + ", trial " + t);
          net[a] += q[a][b];
          net[b] -= q[a][b];
        }
      }
      for (int p = 0; p < k; p++) {
        assertTrue(net[p] <= need[0][p] && -net[p] <= need[1][p], "part " + p + " in trial " + t);
        assertTrue(net[p] >= 0 || need[1][p] > 0, "part " + p + " takes rows it does not need, trial " + t);
        assertTrue(net[p] <= 0 || need[0][p] > 0, "part " + p + " gives rows it does not have, trial " + t);
        if (everywhere) {
          assertEquals(need[0][p] - need[1][p], net[p], "part " + p + " balanced, trial " + t);
        }
      }
    }
  }

  /**
   * On small instances the plan moves as many rows as any flow within the needs and the rates can, at the least cost
   * (every flow within the rates among three or four parts, tried).
   */
  @Test
  void plansMoveTheMostRowsAtTheLeastCostOfAnyFlow() {
    Random rnd = new Random(5);
    for (int t = 0; t < 120; t++) {
      int k = 3 + rnd.nextInt(2);
      long[] surplus = new long[k];
      long[] shortfall = new long[k];
      for (int p = 0; p < k; p++) {
        int r = rnd.nextInt(5);
        if (r < 2) {
          surplus[p] = 1 + rnd.nextInt(3);
        } else if (r < 4) {
          shortfall[p] = 1 + rnd.nextInt(3);
        }
      }
      long[][] hist = new long[k][k * BINS];
      for (int a = 0; a < k; a++) {
        for (int b = 0; b < k; b++) {
          if (a != b) {
            for (int r = rnd.nextInt(k == 3 ? 4 : 3); r > 0; r--) {
              int bin = rnd.nextInt(4) == 0 ? BINS - 1 : rnd.nextInt(8);
              hist[a][b * BINS + bin]++;
            }
          }
        }
      }
      long[][] q = FlowPlan.plan(surplus, shortfall, hist);
      long[] best = bruteForce(surplus, shortfall, hist, k);
      assertEquals(best[0], moved(q, surplus), "rows moved, trial " + t + ": " + Arrays.deepToString(q));
      assertEquals(best[1], cost(q, hist), "cost, trial " + t + ": " + Arrays.deepToString(q));
    }
  }

  /**
   * A part whose rows share nothing with the part short of rows sends to a balanced neighbour, which sends as many of
   * its own on, where the two steps cost less than the direct move.
   */
  @Test
  void aFlowPassesThroughABalancedPartWhereThatCostsLess() {
    int k = 3;
    long[][] hist = new long[k][k * BINS];
    hist[0][2 * BINS + BINS - 1] = 50; // part 0's rows add 32 keys or more each to part 2
    hist[0][1 * BINS + 1] = 10; // and nothing to part 1
    hist[1][2 * BINS + 2] = 10; // part 1's add one key each to part 2
    long[][] q = FlowPlan.plan(new long[] {4, 0, 0}, new long[] {0, 0, 4}, hist);
    assertEquals(4, q[0][1], Arrays.deepToString(q));
    assertEquals(4, q[1][2], Arrays.deepToString(q));
    assertEquals(0, q[0][2], Arrays.deepToString(q));
    // with too few cheap rows in part 1 the rest goes direct
    hist[1][2 * BINS + 2] = 3;
    q = FlowPlan.plan(new long[] {4, 0, 0}, new long[] {0, 0, 4}, hist);
    assertEquals(3, q[1][2], Arrays.deepToString(q));
    assertEquals(1, q[0][2], Arrays.deepToString(q));
  }

  private static long rated(long[][] hist, int a, int b) {
    long s = 0;
    for (int bin = 0; bin < BINS; bin++) {
      s += hist[a][b * BINS + bin];
    }
    return s;
  }

  /** Rows that leave the parts with surplus, net. */
  private static long moved(long[][] q, long[] surplus) {
    long m = 0;
    for (int a = 0; a < q.length; a++) {
      if (surplus[a] > 0) {
        for (int b = 0; b < q.length; b++) {
          m += q[a][b] - q[b][a];
        }
      }
    }
    return m;
  }

  /** The binned cost of the flows: the c-th row of a pair costs its bin's cost, best bins first. */
  private static long cost(long[][] q, long[][] hist) {
    long c = 0;
    for (int a = 0; a < q.length; a++) {
      for (int b = 0; b < q.length; b++) {
        long left = q[a][b];
        for (int bin = 0; bin < BINS && left > 0; bin++) {
          long take = Math.min(left, hist[a][b * BINS + bin]);
          c += take * FlowPlan.binCost(bin);
          left -= take;
        }
      }
    }
    return c;
  }

  /** {most rows moved, least cost among the flows that move them}, over every flow within the rates. */
  private static long[] bruteForce(long[] surplus, long[] shortfall, long[][] hist, int k) {
    int pairs = k * (k - 1);
    int[] from = new int[pairs];
    int[] to = new int[pairs];
    int e = 0;
    for (int a = 0; a < k; a++) {
      for (int b = 0; b < k; b++) {
        if (a != b) {
          from[e] = a;
          to[e++] = b;
        }
      }
    }
    long[] best = {-1, Long.MAX_VALUE};
    long[][] q = new long[k][k];
    int base = k == 3 ? 4 : 3; // the rates allow up to 3 rows per pair among three parts, 2 among four
    int combos = 1;
    for (int i = 0; i < pairs; i++) {
      combos *= base;
    }
    for (int c = 0; c < combos; c++) {
      int code = c;
      boolean ok = true;
      for (int i = 0; i < pairs; i++) {
        q[from[i]][to[i]] = code % base;
        code /= base;
        ok &= q[from[i]][to[i]] <= rated(hist, from[i], to[i]);
      }
      if (!ok) {
        continue;
      }
      for (int p = 0; p < k && ok; p++) {
        long net = 0;
        for (int b = 0; b < k; b++) {
          net += q[p][b] - q[b][p];
        }
        ok = net <= surplus[p] && -net <= shortfall[p] && (net >= 0 || shortfall[p] > 0)
            && (net <= 0 || surplus[p] > 0);
      }
      if (!ok) {
        continue;
      }
      long m = moved(q, surplus);
      long cost = cost(q, hist);
      if (m > best[0] || (m == best[0] && cost < best[1])) {
        best[0] = m;
        best[1] = cost;
      }
    }
    return best;
  }
}
