package io.parsa.engine.bench;

import java.util.SplittableRandom;

/**
 * In-memory power-law bipartite graph for benchmarks: row degrees follow a discrete power law on
 * [minDegree, maxDegree] with exponent {@code rowExponent}; each non-zero's key rank follows a continuous
 * power law over [1, numKeys] with exponent {@code keyExponent} (a Zipf-like popularity), and ranks are
 * scrambled into sparse 64-bit keys. Deterministic for a seed. Duplicate keys within a row are possible.
 */
final class PowerLawGraph {
  private PowerLawGraph() {}

  static InMemoryGraph generate(int rows, long numKeys, double avgDegreeTarget, double keyExponent,
      long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    // Row degrees: Pareto with shape 2.0 scaled so the mean is about avgDegreeTarget, capped.
    int minDeg = Math.max(1, (int) Math.round(avgDegreeTarget / 2));
    int maxDeg = (int) Math.min(Integer.MAX_VALUE / 4, Math.max(minDeg, (long) avgDegreeTarget * 200));
    int[] start = new int[rows + 1];
    long total = 0;
    for (int r = 0; r < rows; r++) {
      double u = 1.0 - rnd.nextDouble();
      int d = (int) Math.min(maxDeg, Math.floor(minDeg / Math.sqrt(u)));
      total += d;
      if (total > Integer.MAX_VALUE - 16) {
        throw new IllegalArgumentException("too many non-zeros for one in-memory graph: " + total);
      }
      start[r + 1] = (int) total;
    }
    long[] keys = new long[(int) total];
    double oneMinusS = 1.0 - keyExponent;
    double top = Math.pow(numKeys, oneMinusS);
    for (int e = 0; e < keys.length; e++) {
      double u = rnd.nextDouble();
      double x = Math.abs(oneMinusS) < 1e-9
          ? Math.exp(u * Math.log(numKeys))
          : Math.pow((top - 1.0) * u + 1.0, 1.0 / oneMinusS);
      long rank = Math.min(numKeys - 1, Math.max(0, (long) x - 1));
      keys[e] = scramble(rank);
    }
    long[] ids = new long[rows];
    for (int r = 0; r < rows; r++) {
      ids[r] = r;
    }
    return new InMemoryGraph(ids, start, keys);
  }

  /** A bijective mix of the rank so popular keys are not small numbers. */
  static long scramble(long x) {
    x ^= x >>> 33;
    x *= 0xff51afd7ed558ccdL;
    x ^= x >>> 33;
    return x;
  }
}
