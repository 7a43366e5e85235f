package io.parsa.jobs.refine;

import java.util.Arrays;

/**
 * The flows of one streaming balance cycle, planned from the rows' rated moves as a minimum-cost transshipment over
 * the k parts. Each part with a surplus sends it, each part with a shortfall receives it, and a flow may pass through
 * a part that is balanced already (it takes rows in and sends as many of its own on), where that costs less than
 * the direct moves: a part whose rows share no keys with the short part sends to a neighbour, which sends on.
 *
 * <p>The cost of moving rows from a to b is convex: the c-th row costs the keys the c-th best of a's rows brings to
 * b, read from {@code hist[a]} (rows per target and bin, {@link GainReducer#GAIN_BINS}, best bin first;
 * {@link GainReducer#HISTOGRAM_OF_EVERY_TARGET}): bin j costs j − 1 keys (bin 0, which arrivals never fill, nothing), and the
 * last bin, rows that bring 32 keys or more, costs {@link #LAST_BIN_COST}. Weighted rows count weight, each unit at
 * its row's keys per unit of weight ({@link GainReducer#perWeight}, in sixteenths of a key). A row rated towards several parts counts towards each, so a plan may ask a part
 * for more rows to one target than propose it once every row picks its best planned target; the balance leaves
 * that to its next cycle.
 *
 * <p>Successive shortest paths (Bellman–Ford over the k parts, the residual graph of the convex costs): each
 * augmentation follows the cheapest path from a part with surplus left to a part with shortfall left, by as many
 * rows as keep every arc on it within one cost bin, so the plan is optimal for the binned costs. O(k³ + k²·bins)
 * per augmentation; augmentations are bounded by the bins crossed plus the parts filled.
 */
final class FlowPlan {

  /** The cost of the last bin's rows: they add 32 keys or more each (cnr-2000: up to 360). */
  static final long LAST_BIN_COST = 64;

  private FlowPlan() {}

  /** The cost in keys of one row of gain bin {@code bin}. */
  static long binCost(int bin) {
    return bin == GainReducer.GAIN_BINS - 1 ? LAST_BIN_COST : Math.max(0, bin - 1);
  }

  /**
   * The flows (rows, or weight) per ordered part pair: part a sends at most {@code surplus[a]} more than it receives,
   * part b receives at most {@code shortfall[b]} more than it sends, no pair carries more than {@code hist[a]} rates
   * towards it ({@code hist[a]} null: a sends nothing), and the total binned cost is least among such flows that move
   * as much as they can. Opposite flows of a pair are netted.
   */
  static long[][] plan(long[] surplus, long[] shortfall, long[][] hist) {
    int k = surplus.length;
    int bins = GainReducer.GAIN_BINS;
    long[] supply = surplus.clone();
    long[] demand = shortfall.clone();
    long[][] flow = new long[k][k];
    long[][] capacity = new long[k][k];
    for (int a = 0; a < k; a++) {
      for (int b = 0; b < k; b++) {
        if (a != b && hist[a] != null && hist[a].length >= k * bins) {
          for (int bin = 0; bin < bins; bin++) {
            capacity[a][b] += hist[a][b * bins + bin];
          }
        }
      }
    }
    long inf = Long.MAX_VALUE / 4;
    long[] dist = new long[k];
    int[] pred = new int[k];
    long[][] cost = new long[k][k];
    boolean[][] back = new boolean[k][k];
    while (true) {
      // the residual arc a → b: the cheaper of sending a's next row to b and taking back one of b's rows sent to a
      for (int a = 0; a < k; a++) {
        for (int b = 0; b < k; b++) {
          long c = inf;
          back[a][b] = false;
          if (a != b && flow[b][a] > 0) {
            c = -unitCost(hist[b], a, flow[b][a] - 1, bins);
            back[a][b] = true;
          }
          if (a != b && flow[a][b] < capacity[a][b]) {
            long f = unitCost(hist[a], b, flow[a][b], bins);
            if (f < c) {
              c = f;
              back[a][b] = false;
            }
          }
          cost[a][b] = c;
        }
      }
      Arrays.fill(dist, inf);
      Arrays.fill(pred, -1);
      for (int a = 0; a < k; a++) {
        if (supply[a] > 0) {
          dist[a] = 0;
        }
      }
      for (int round = 0; round < k; round++) {
        boolean changed = false;
        for (int a = 0; a < k; a++) {
          if (dist[a] >= inf) {
            continue;
          }
          for (int b = 0; b < k; b++) {
            if (cost[a][b] < inf && dist[a] + cost[a][b] < dist[b]) {
              dist[b] = dist[a] + cost[a][b];
              pred[b] = a;
              changed = true;
            }
          }
        }
        if (!changed) {
          break;
        }
      }
      int sink = -1;
      for (int b = 0; b < k; b++) {
        if (demand[b] > 0 && pred[b] >= 0 && (sink < 0 || dist[b] < dist[sink])) {
          sink = b;
        }
      }
      if (sink < 0) {
        break;
      }
      // the path back to the part with surplus it starts at, and how far it goes at these costs
      int source = sink;
      long amount = demand[sink];
      for (int steps = 0; pred[source] >= 0 && steps < k; steps++) {
        int a = pred[source];
        amount = Math.min(amount, back[a][source] ? inBin(hist[source], a, flow[source][a] - 1, bins, false)
            : inBin(hist[a], source, flow[a][source], bins, true));
        source = a;
      }
      if (pred[source] >= 0 || supply[source] <= 0 || amount <= 0) {
        break; // a cycle, or no row to move: cannot happen on consistent input (the residual costs are convex)
      }
      amount = Math.min(amount, supply[source]);
      for (int b = sink; b != source; b = pred[b]) {
        int a = pred[b];
        if (back[a][b]) {
          flow[b][a] -= amount;
        } else {
          flow[a][b] += amount;
        }
      }
      supply[source] -= amount;
      demand[sink] -= amount;
    }
    for (int a = 0; a < k; a++) {
      for (int b = a + 1; b < k; b++) {
        long both = Math.min(flow[a][b], flow[b][a]);
        flow[a][b] -= both;
        flow[b][a] -= both;
      }
    }
    return flow;
  }

  /** The cost of a's row number {@code index} (from 0, best first) towards {@code b}. */
  private static long unitCost(long[] hist, int b, long index, int bins) {
    long seen = 0;
    for (int bin = 0; bin < bins; bin++) {
      seen += hist[b * bins + bin];
      if (index < seen) {
        return binCost(bin);
      }
    }
    return LAST_BIN_COST;
  }

  /**
   * Rows of a towards b within the bin of row number {@code index}: from it to the bin's end ({@code forward}) or
   * from the bin's start to it, inclusive (taking rows back).
   */
  private static long inBin(long[] hist, int b, long index, int bins, boolean forward) {
    long start = 0;
    for (int bin = 0; bin < bins; bin++) {
      long size = hist[b * bins + bin];
      if (index < start + size) {
        return forward ? start + size - index : index - start + 1;
      }
      start += size;
    }
    return 0;
  }
}
