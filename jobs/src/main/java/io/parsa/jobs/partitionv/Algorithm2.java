package io.parsa.jobs.partitionv;

/**
 * Algorithm 2 of the paper (section 3.2), one sweep over the keys given the U partition: keeps cost_i, starting at
 * |N(U_i)| (or at a share of it), and assigns each key j to the part with the lowest current cost among the parts
 * that use it, ties to the lowest index; then cost_xi += -1 + sum_{i != xi} u_ij, i.e. the key stops costing
 * worker xi a remote access (-1) and starts costing server xi one request per other part that uses it.
 *
 * <p>Summed over all keys, the cost of part i ends at exactly T_i of eq. (7) when it started at |N(U_i)|; the
 * {@link #delta()} array (the integer sum of the updates) lets a caller that split the sweep recover T_i.
 *
 * <p>A key no part uses (impossible when V is derived from the rows, see PartitionVTool) goes to the part with the
 * lowest current cost over all parts and leaves the costs unchanged: it is never accessed, so costs no traffic.
 */
public final class Algorithm2 {

  private final double[] cost;
  private final long[] delta;
  private final long[] keysPerPart;

  /**
   * @param workingSets |N(U_i)| for each part i
   * @param shares the sweep is split over this many independent sweepers; each starts at |N(U_i)| / shares
   */
  public Algorithm2(long[] workingSets, int shares) {
    int k = workingSets.length;
    cost = new double[k];
    for (int i = 0; i < k; i++) {
      cost[i] = workingSets[i] / (double) shares;
    }
    delta = new long[k];
    keysPerPart = new long[k];
  }

  /**
   * Assigns one key used by the parts {@code parts[0..n)} (distinct, increasing) and returns its part.
   */
  public int assign(long[] parts, int n) {
    int xi = -1;
    if (n == 0) {
      for (int i = 0; i < cost.length; i++) {
        if (xi < 0 || cost[i] < cost[xi]) {
          xi = i;
        }
      }
      keysPerPart[xi]++;
      return xi;
    }
    for (int t = 0; t < n; t++) {
      int i = (int) parts[t];
      if (xi < 0 || cost[i] < cost[xi] || (cost[i] == cost[xi] && i < xi)) {
        xi = i;
      }
    }
    long d = -1 + (n - 1);
    cost[xi] += d;
    delta[xi] += d;
    keysPerPart[xi]++;
    return xi;
  }

  /** Current cost_i (a share of T_i if the sweep is split). */
  public double[] cost() {
    return cost;
  }

  /** Integer sum of the cost updates applied to each part. */
  public long[] delta() {
    return delta;
  }

  /** Keys assigned to each part so far. */
  public long[] keysPerPart() {
    return keysPerPart;
  }
}
