package io.parsa.engine;

/**
 * Paper's Algorithm 2 in memory: assigns every key (parameter) to one server part given which parts' working
 * sets N(U_i) use it, greedily keeping the largest per-machine traffic T_i small.
 *
 * <p>Exact rule (the MapReduce partition-v step is checked against it):
 * <ol>
 *   <li>cost_i = |N(U_i)| for every part i (the number of keys whose usage has bit i set).</li>
 *   <li>Keys are processed in increasing (signed 64-bit) key order.</li>
 *   <li>A key used by parts P ≠ ∅ goes to ξ = argmin_{i ∈ P} cost_i (ties: lowest part index), and
 *       cost_ξ += −1 + (|P| − 1).</li>
 *   <li>A key no part uses goes to the part with the fewest keys assigned so far (ties: lowest part index);
 *       costs are unchanged (nobody fetches it).</li>
 * </ol>
 */
public final class VAssigner {
  private VAssigner() {}

  /** The assignment and the running costs at the end. */
  public static final class Result {
    private final int[] part;
    private final long[] vSizes;
    private final long[] costs;

    Result(int[] part, long[] vSizes, long[] costs) {
      this.part = part;
      this.vSizes = vSizes;
      this.costs = costs;
    }

    /** Part of {@code keys[j]}, aligned with the input keys. */
    public int[] parts() {
      return part;
    }

    /** |V_i|. */
    public long[] vSizes() {
      return vSizes;
    }

    /** Final cost_i = T_i of the resulting placement. */
    public long[] costs() {
      return costs;
    }
  }

  /**
   * @param k     number of parts
   * @param keys  the keys, strictly ascending
   * @param usage wordsPerKey(k) words per key: bit i set iff key ∈ N(U_i)
   */
  public static Result assign(int k, long[] keys, long[] usage) {
    int wpk = NeighborSets.wordsPerKey(k);
    if (usage.length < (long) keys.length * wpk) {
      throw new IllegalArgumentException("usage.length must be >= keys.length * " + wpk + ", was "
          + usage.length);
    }
    for (int j = 1; j < keys.length; j++) {
      if (keys[j] <= keys[j - 1]) {
        throw new IllegalArgumentException("keys must be strictly ascending; keys[" + j + "] = " + keys[j]
            + " after " + keys[j - 1]);
      }
    }
    long[] cost = new long[k];
    for (int j = 0; j < keys.length; j++) {
      forEachPart(usage, j * wpk, wpk, k, i -> cost[i]++);
    }
    long[] vSizes = new long[k];
    int[] part = new int[keys.length];
    for (int j = 0; j < keys.length; j++) {
      int off = j * wpk;
      int best = -1;
      int users = 0;
      for (int w = 0; w < wpk; w++) {
        long bits = usage[off + w];
        while (bits != 0) {
          int i = (w << 6) + Long.numberOfTrailingZeros(bits);
          bits &= bits - 1;
          if (i >= k) {
            continue;
          }
          users++;
          if (best < 0 || cost[i] < cost[best]) {
            best = i;
          }
        }
      }
      if (best < 0) {
        best = 0;
        for (int i = 1; i < k; i++) {
          if (vSizes[i] < vSizes[best]) {
            best = i;
          }
        }
      } else {
        cost[best] += users - 2;
      }
      part[j] = best;
      vSizes[best]++;
    }
    return new Result(part, vSizes, cost);
  }

  interface PartConsumer {
    void accept(int part);
  }

  static void forEachPart(long[] words, int off, int wpk, int k, PartConsumer c) {
    for (int w = 0; w < wpk; w++) {
      long bits = words[off + w];
      while (bits != 0) {
        int i = (w << 6) + Long.numberOfTrailingZeros(bits);
        bits &= bits - 1;
        if (i < k) {
          c.accept(i);
        }
      }
    }
  }
}
