package io.parsa.jobs.refine;

import it.unimi.dsi.fastutil.ints.IntArrays;

/**
 * The best single move of one row under the per-key part counts of the round's start, for the objective
 * F = Σ_i f(M_i) linearised at the start: moving row r from part a to part b lowers M_a by s (its keys that no other
 * row of a uses) and raises M_b by t_b (its keys that no row of b uses), so the gain is w_a·s − w_b·t_b with
 * w_i = f'(M_i) up to a common factor ({@link #weights}: 1 for p = 1, the connectivity; (M_i/M̄)^(p−1) for larger
 * p, which favours moves out of the largest working sets). Parts none of the row's keys touch all have
 * t_b = |keys|; of those only the one of least weight can be best, so a row costs O(Σ λ_v) over its keys, not O(k).
 *
 * <p>Use: {@link #begin} with the row's part, {@link #key} once per distinct key of the row, then
 * {@link #bestTarget} and {@link #bestGain}. Ties go to the smaller part, so the result is deterministic.
 */
final class SwapGains {

  private final int k;
  private final double[] w;
  /** Parts by ascending weight (ties by index). */
  private final int[] order;
  private final int[] hits;
  /** Per part: keys of the row that exactly one row of that part uses. */
  private final int[] ones;
  private final int[] touched;
  private int nTouched;
  private int a;
  private int degree;
  private int sole;
  private boolean ownMissing;

  SwapGains(double[] weights) {
    this.k = weights.length;
    this.w = weights.clone();
    this.order = new int[k];
    for (int i = 0; i < k; i++) {
      order[i] = i;
    }
    IntArrays.stableSort(order, (x, y) -> Double.compare(w[x], w[y]));
    this.hits = new int[k];
    this.ones = new int[k];
    this.touched = new int[k];
  }

  /** Per-part weights f'(M_i) / f'(M̄) of f(M) = M̄·(M/M̄)^p. */
  static double[] weights(long[] workingSets, double p) {
    int k = workingSets.length;
    double mean = 0;
    for (long m : workingSets) {
      mean += m;
    }
    mean = Math.max(1e-9, mean / k);
    double[] w = new double[k];
    for (int i = 0; i < k; i++) {
      w[i] = p == 1 ? 1 : Math.pow(workingSets[i] / mean, p - 1);
    }
    return w;
  }

  /** Starts a row of part {@code part}. */
  void begin(int part) {
    for (int t = 0; t < nTouched; t++) {
      hits[touched[t]] = 0;
      ones[touched[t]] = 0;
    }
    nTouched = 0;
    a = part;
    degree = 0;
    sole = 0;
    ownMissing = false;
  }

  /**
   * One distinct key of the row: {@code counts[t]} rows of part {@code parts[t]} use it, for t in [from, to),
   * parts ascending, every count ≥ 1 (the row itself is among those of its own part).
   */
  void key(int[] parts, int[] counts, int from, int to) {
    degree++;
    boolean own = false;
    for (int t = from; t < to; t++) {
      int p = parts[t];
      if (p == a) {
        own = true;
        if (counts[t] == 1) {
          sole++;
        }
      } else {
        if (hits[p]++ == 0) {
          touched[nTouched++] = p;
        }
        if (counts[t] == 1) {
          ones[p]++;
        }
      }
    }
    if (!own) {
      ownMissing = true;
    }
  }

  /** True if some key of the row had no count in the row's own part (inconsistent counts; the row must not move). */
  boolean ownPartMissing() {
    return ownMissing;
  }

  private int best = -1;
  private double bestGain;

  /** The part the row gains most by moving to (never its own), or -1 if k = 1. */
  int bestTarget() {
    return bestTarget(null);
  }

  /**
   * The part among {@code allowed} (all parts where null) the row gains most by moving to (never its own), or -1 if
   * none is allowed.
   */
  int bestTarget(boolean[] allowed) {
    best = -1;
    bestGain = Double.NEGATIVE_INFINITY;
    for (int t = 0; t < nTouched; t++) {
      int b = touched[t];
      if (allowed == null || allowed[b]) {
        consider(b, gainTo(b));
      }
    }
    for (int b : order) {
      if (b != a && hits[b] == 0 && (allowed == null || allowed[b])) {
        consider(b, gainTo(b)); // the lightest untouched part; heavier untouched ones gain less
        break;
      }
    }
    return best;
  }

  /**
   * The gain of moving the row to part {@code b} (not its own): w_a·s − w_b·t_b.
   */
  double gainTo(int b) {
    return w[a] * sole - w[b] * arrivingTo(b);
  }

  /** Keys of the row that no row of part {@code b} (not its own) uses: what moving there alone adds to b. */
  int arrivingTo(int b) {
    return degree - hits[b];
  }

  /**
   * The part among those with a positive share in {@code shares} (null: among {@code allowed}, all parts where null;
   * never its own) to which the row brings the fewest keys new there, or -1 if there is none. Ties are drawn by
   * {@code draw} (the row's, uniform over the longs) in proportion to the tied parts' shares, so that where a part's
   * planned flows go to several parts the rows that bring nothing to any of them spread over them as the plan does;
   * without shares they go to the part of least weight, then the smaller index. Its {@link #bestGain} is minus those
   * keys plus less than half a key the more of its keys no other row of its part uses (among rows that bring as many,
   * those that free the most go first). The streaming balance moves rows so: a row that frees as many keys as it
   * brings is no free move there, as it grows its new part's working set.
   */
  int fewestArriving(boolean[] allowed, long[] shares, long draw) {
    best = -1;
    int fewest = Integer.MAX_VALUE;
    long tied = 0;
    for (int b : order) {
      if (b == a || (shares == null ? allowed != null && !allowed[b] : shares[b] <= 0)) {
        continue;
      }
      int t = arrivingTo(b);
      if (t < fewest) {
        best = b;
        fewest = t;
        tied = 0;
      }
      if (t == fewest) {
        tied += shares == null ? 0 : shares[b];
      }
    }
    if (best >= 0 && shares != null && tied > shares[best]) {
      long r = Math.floorMod(draw, tied);
      for (int b : order) {
        if (b != a && shares[b] > 0 && arrivingTo(b) == fewest) {
          if (r < shares[b]) {
            best = b;
            break;
          }
          r -= shares[b];
        }
      }
    }
    bestGain = best < 0 ? Double.NEGATIVE_INFINITY : -fewest + 0.5 * sole / (degree + 1.0);
    return best;
  }

  private void consider(int b, double g) {
    if (g > bestGain || (g == bestGain && b < best)) {
      best = b;
      bestGain = g;
    }
  }

  /** The gain of {@link #bestTarget}'s move (call it first). */
  double bestGain() {
    return bestGain;
  }

  /** Keys of the row new to {@link #bestTarget}'s part (t_b: what the move alone adds there; call it first). */
  int arriving() {
    return arrivingTo(best);
  }

  /**
   * An upper bound on what the move adds to {@link #bestTarget}'s working set when it is made together with other
   * moves chosen from the same counts: the row's keys that at most one row of the target uses (t_b plus those whose
   * one user may leave in the same round). Summed over a round's moves into a part, minus the sole keys of the moves
   * out of it ({@link #soleKeys}), it bounds the part's growth from above: a key with one user that leaves counts
   * −1 for the leaver and +1 for each arriving row, a key with no user +1 per arriving row, a key with two or more
   * users 0.
   */
  int arrivingBound() {
    return arrivingTo(best) + ones[best];
  }

  /** Keys of the row that no other row of its part uses (s). */
  int soleKeys() {
    return sole;
  }
}
