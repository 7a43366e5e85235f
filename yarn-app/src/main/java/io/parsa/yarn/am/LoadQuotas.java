package io.parsa.yarn.am;

import java.util.PriorityQueue;

/**
 * Water-filling of a block's load over the k parts, reproducing the engine's rule "the part with the lowest load
 * takes the next row, ties to the lowest index". A worker that starts the engine from {@code base} ends with
 * exactly {@code base + quota} for unit row weights, so reserving the quota keeps every part within one row of
 * the others over the whole run, however many blocks run concurrently.
 */
public final class LoadQuotas {

  private LoadQuotas() {}

  /** Per-part rows that {@code rows} unit-weight rows add to {@code base} under the engine's rule. */
  public static double[] unitQuota(double[] base, long rows) {
    int k = base.length;
    double[] quota = new double[k];
    PriorityQueue<long[]> heap = new PriorityQueue<>(k, (a, b) -> {
      int c = Double.compare(Double.longBitsToDouble(a[0]), Double.longBitsToDouble(b[0]));
      return c != 0 ? c : Long.compare(a[1], b[1]);
    });
    for (int i = 0; i < k; i++) {
      heap.add(new long[] {Double.doubleToLongBits(base[i]), i});
    }
    // Fast path: lift everybody to a common floor in bulk, then distribute the remainder one at a time.
    double max = Double.NEGATIVE_INFINITY;
    for (double b : base) {
      max = Math.max(max, b);
    }
    double need = 0;
    for (double b : base) {
      need += max - b;
    }
    long left = rows;
    if (need <= rows && allIntegral(base)) {
      long rounds = (rows - (long) need) / k;
      heap.clear();
      for (int i = 0; i < k; i++) {
        quota[i] = max - base[i] + rounds;
        heap.add(new long[] {Double.doubleToLongBits(max + rounds), i});
      }
      left = rows - (long) need - rounds * k;
    }
    for (long r = 0; r < left; r++) {
      long[] top = heap.poll();
      int i = (int) top[1];
      quota[i] += 1;
      top[0] = Double.doubleToLongBits(Double.longBitsToDouble(top[0]) + 1);
      heap.add(top);
    }
    return quota;
  }

  /** Continuous water-filling of {@code weight} onto {@code base} (weighted rows: an approximation). */
  public static double[] weightQuota(double[] base, double weight) {
    int k = base.length;
    double[] sorted = base.clone();
    java.util.Arrays.sort(sorted);
    double level = sorted[0];
    double remaining = weight;
    int i = 0;
    while (i < k) {
      while (i + 1 < k && sorted[i + 1] <= level) {
        i++;
      }
      double next = i + 1 < k ? sorted[i + 1] : Double.POSITIVE_INFINITY;
      double cost = (next - level) * (i + 1);
      if (cost >= remaining) {
        level += remaining / (i + 1);
        break;
      }
      remaining -= cost;
      level = next;
    }
    double[] quota = new double[k];
    for (int p = 0; p < k; p++) {
      quota[p] = Math.max(0, level - base[p]);
    }
    return quota;
  }

  private static boolean allIntegral(double[] a) {
    for (double v : a) {
      if (v != Math.rint(v) || Math.abs(v) > 1e15) {
        return false;
      }
    }
    return true;
  }
}
