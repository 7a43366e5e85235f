package io.parsa.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class VPlacementTest {

  /** Random instance: n keys over k parts, each key used by a random non-empty subset. */
  private static KeySignatures random(SplittableRandom rnd, int k, int n, double density) {
    KeySignatures sigs = new KeySignatures(k);
    long[] parts = new long[k];
    for (int j = 0; j < n; j++) {
      int c = 0;
      for (int i = 0; i < k; i++) {
        if (rnd.nextDouble() < density) {
          parts[c++] = i;
        }
      }
      if (c == 0) {
        parts[c++] = rnd.nextInt(k);
      }
      sigs.add(parts, c);
    }
    return sigs;
  }

  private static double[] start(KeySignatures sigs) {
    long[] m = sigs.workingSets();
    double[] s = new double[m.length];
    for (int i = 0; i < m.length; i++) {
      s[i] = m[i];
    }
    return s;
  }

  /** Exhaustive optimum of max_i cost_i over every placement of each key on one of its users. */
  private static double bruteForce(KeySignatures sigs, double[] start) {
    return search(sigs, 0, start.clone());
  }

  private static double search(KeySignatures sigs, int j, double[] cost) {
    if (j == sigs.numKeys()) {
      double m = Double.NEGATIVE_INFINITY;
      for (double c : cost) {
        m = Math.max(m, c);
      }
      return m;
    }
    int s = sigs.signatureOfKey(j);
    int p = sigs.size(s);
    double best = Double.POSITIVE_INFINITY;
    for (int t = 0; t < p; t++) {
      int i = sigs.part(s, t);
      cost[i] += p - 2;
      best = Math.min(best, search(sigs, j + 1, cost));
      cost[i] -= p - 2;
    }
    return best;
  }

  /** The costs a placement really has, recomputed from the parts of the keys. */
  private static double[] recompute(KeySignatures sigs, double[] start, int[] parts) {
    double[] c = start.clone();
    for (int j = 0; j < sigs.numKeys(); j++) {
      int s = sigs.signatureOfKey(j);
      boolean user = false;
      for (int t = 0; t < sigs.size(s); t++) {
        user |= sigs.part(s, t) == parts[j];
      }
      assertTrue(user, "key " + j + " placed on part " + parts[j] + " that does not use it");
      c[parts[j]] += sigs.size(s) - 2;
    }
    return c;
  }

  @Test
  void balancedIsOptimalOnNearlyAllSmallRandomInstancesAndNeverWorseThanASweep() {
    SplittableRandom rnd = new SplittableRandom(7);
    int optimal = 0;
    int trials = 300;
    for (int trial = 0; trial < trials; trial++) {
      int k = 3 + rnd.nextInt(3);
      int n = 3 + rnd.nextInt(6);
      KeySignatures sigs = random(rnd, k, n, 0.3 + 0.5 * rnd.nextDouble());
      double[] start = start(sigs);
      double opt = bruteForce(sigs, start);
      VPlacement.Result bal = VPlacement.place(sigs, start, VPlacement.Method.BALANCED);
      VPlacement.Result sweep = VPlacement.place(sigs, start, VPlacement.Method.SWEEP);
      VPlacement.Result first = VPlacement.place(sigs, start, VPlacement.Method.SINGLES_FIRST);
      double bound = VPlacement.lowerBound(sigs, start);
      assertEquals(bal.maxCost(), max(recompute(sigs, start, bal.parts())), 1e-9, "trial " + trial);
      assertEquals(sweep.maxCost(), max(recompute(sigs, start, sweep.parts())), 1e-9, "trial " + trial);
      assertTrue(Math.ceil(bound - 1e-9) <= opt, "trial " + trial + ": bound " + bound + " above optimum " + opt);
      assertTrue(bal.maxCost() >= opt - 1e-9, "trial " + trial);
      assertTrue(bal.maxCost() <= sweep.maxCost() && bal.maxCost() <= first.maxCost(),
          "trial " + trial + ": balanced " + bal.maxCost() + " worse than a sweep " + sweep.maxCost() + "/"
              + first.maxCost());
      if (bal.maxCost() == opt) {
        optimal++;
      }
    }
    System.out.println("balanced optimal on " + optimal + " of " + trials);
    // restricted assignment with unequal weights is NP-hard: the local search is a heuristic, and on this seed one
    // instance of 300 needs a three-key exchange to reach the optimum (5 instead of 6)
    assertTrue(optimal >= trials * 99 / 100, "balanced placement optimal on " + optimal + " of " + trials);
  }

  @Test
  void boundIsExactLpOptimumOnFractionalInstance() {
    // three parts, start 10/0/0; 4 keys used by all three (w = 1 each): LP spreads them over parts 1, 2
    KeySignatures sigs = new KeySignatures(3);
    for (int j = 0; j < 4; j++) {
      sigs.add(new long[] {0, 1, 2}, 3);
    }
    double bound = VPlacement.lowerBound(sigs, new double[] {10, 0, 0});
    assertEquals(10.0, bound, 1e-9);
    double bound2 = VPlacement.lowerBound(sigs, new double[] {1, 1, 1});
    assertEquals((3 + 4) / 3.0, bound2, 1e-9);
  }

  @Test
  void prefixBoundForLargeKIsBelowTheOptimumAndAtLeastTheAverage() {
    SplittableRandom rnd = new SplittableRandom(3);
    KeySignatures sigs = random(rnd, 40, 2000, 0.1);
    double[] start = start(sigs);
    double bound = VPlacement.lowerBound(sigs, start);
    VPlacement.Result bal = VPlacement.place(sigs, start, VPlacement.Method.BALANCED);
    double sum = 0;
    for (double c : bal.cost()) {
      sum += c;
    }
    assertTrue(bound >= sum / 40 - 1e-9);
    assertTrue(bound <= bal.maxCost() + 1e-9);
  }

  private static double max(double[] a) {
    double m = Double.NEGATIVE_INFINITY;
    for (double x : a) {
      m = Math.max(m, x);
    }
    return m;
  }
}
