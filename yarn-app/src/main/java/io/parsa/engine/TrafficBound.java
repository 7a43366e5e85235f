package io.parsa.engine;

import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.util.Arrays;

/**
 * Lower bound on max_i T_i for a fixed U partition, over every V placement that puts each key on a part that uses
 * it (eq. 8b, v_ij ≤ u_ij): the optimum of the LP relaxation of eq. 8.
 *
 * <p>With base_i = |N(U_i)| − (keys used by part i alone) — what part i costs when its one-part keys are home and
 * before any key used by p ≥ 3 parts is placed (keys used by two parts cost their users the same wherever they
 * go) — a key used by the parts P, |P| = p ≥ 3, adds w = p − 2 to the one part of P that gets it. Splitting keys
 * fractionally, z is feasible iff every set S of parts can absorb the weight of the keys used only inside S:
 * <pre>
 *   z* = max over non-empty S ⊆ {0..k−1} of ( Σ_{i∈S} base_i + Σ_{keys with P ⊆ S} (p − 2) ) / |S|
 * </pre>
 * (Hall's condition on the flow network keys → users → sink with capacities z − base_i). For k ≤
 * {@link #EXACT_MAX_K} every S is tried (subset sums over 2^k masks), which is the exact LP optimum; above, the
 * sets tried are the nested prefixes of the parts ordered by base_i and by base_i + an even split of their keys'
 * weight, plus S = all parts: still a valid lower bound, possibly below the LP optimum. Any integer placement has
 * T_max ≥ ⌈z*⌉.
 */
public final class TrafficBound {
  /** Largest k for which every subset of parts is tried. */
  public static final int EXACT_MAX_K = 16;

  private final int k;
  private final long[] maskWeight;
  private final IntArrayList sigStart = new IntArrayList(new int[] {0});
  private final IntArrayList sigParts = new IntArrayList();
  private final LongArrayList sigWeight = new LongArrayList();

  /** An accumulator for k parts. */
  public TrafficBound(int k) {
    this.k = k;
    this.maskWeight = k <= EXACT_MAX_K ? new long[1 << k] : null;
  }

  /** Adds the weight Σ (p − 2) of keys used by exactly the parts {@code parts} (p = parts.length ≥ 3). */
  public void addWeighted(int[] parts, long weight) {
    if (maskWeight != null) {
      int mask = 0;
      for (int i : parts) {
        mask |= 1 << i;
      }
      maskWeight[mask] += weight;
    } else {
      for (int i : parts) {
        sigParts.add(i);
      }
      sigStart.add(sigParts.size());
      sigWeight.add(weight);
    }
  }

  /** The bound for these base loads (length k). */
  public double bound(double[] base) {
    if (maskWeight != null) {
      return exact(base, maskWeight);
    }
    double total = 0;
    for (double b : base) {
      total += b;
    }
    for (int s = 0; s < sigWeight.size(); s++) {
      total += sigWeight.getLong(s);
    }
    double best = total / k;
    best = Math.max(best, prefixBound(base, base));
    double[] split = base.clone();
    for (int s = 0; s < sigWeight.size(); s++) {
      int from = sigStart.getInt(s);
      int to = sigStart.getInt(s + 1);
      for (int t = from; t < to; t++) {
        split[sigParts.getInt(t)] += sigWeight.getLong(s) / (double) (to - from);
      }
    }
    return Math.max(best, prefixBound(base, split));
  }

  /** Best (B[S] + F[S]) / |S| over the prefixes of the parts ordered by {@code order} descending. */
  private double prefixBound(double[] base, double[] order) {
    Integer[] idx = new Integer[k];
    for (int i = 0; i < k; i++) {
      idx[i] = i;
    }
    Arrays.sort(idx, (x, y) -> Double.compare(order[y], order[x]));
    int[] rank = new int[k];
    for (int r = 0; r < k; r++) {
      rank[idx[r]] = r;
    }
    double[] inside = new double[k];
    for (int s = 0; s < sigWeight.size(); s++) {
      int worst = 0;
      for (int t = sigStart.getInt(s); t < sigStart.getInt(s + 1); t++) {
        worst = Math.max(worst, rank[sigParts.getInt(t)]);
      }
      inside[worst] += sigWeight.getLong(s);
    }
    double best = Double.NEGATIVE_INFINITY;
    double b = 0;
    double f = 0;
    for (int r = 0; r < k; r++) {
      b += base[idx[r]];
      f += inside[r];
      best = Math.max(best, (b + f) / (r + 1));
    }
    return best;
  }

  /**
   * The exact LP optimum for k ≤ {@link #EXACT_MAX_K}.
   *
   * @param maskWeight 2^k entries: Σ (p − 2) over the keys used by exactly the parts of the mask (p ≥ 3)
   */
  public static double exact(double[] base, long[] maskWeight) {
    int k = base.length;
    if (k > EXACT_MAX_K || maskWeight.length != 1 << k) {
      throw new IllegalArgumentException("exact bound needs k <= " + EXACT_MAX_K + " and 2^k mask weights, got k = "
          + k + " and " + maskWeight.length + " weights");
    }
    int full = 1 << k;
    long[] f = maskWeight.clone();
    for (int i = 0; i < k; i++) {
      for (int m = 0; m < full; m++) {
        if ((m & (1 << i)) != 0) {
          f[m] += f[m ^ (1 << i)];
        }
      }
    }
    double[] b = new double[full];
    double best = Double.NEGATIVE_INFINITY;
    for (int m = 1; m < full; m++) {
      int low = Integer.numberOfTrailingZeros(m);
      b[m] = b[m & (m - 1)] + base[low];
      best = Math.max(best, (b[m] + f[m]) / Integer.bitCount(m));
    }
    return best;
  }

  /** The bound from the totals only (for any k): max(max_i base_i, (Σ base_i + Σ weights) / k). */
  public static double simple(double[] base, long totalWeight) {
    double sum = totalWeight;
    double max = Double.NEGATIVE_INFINITY;
    for (double x : base) {
      sum += x;
      max = Math.max(max, x);
    }
    return Math.max(max, sum / base.length);
  }
}
