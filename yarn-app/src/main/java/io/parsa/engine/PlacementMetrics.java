package io.parsa.engine;

/**
 * Quality of one placement (U over workers, V over servers), as defined in the paper §2.4:
 * M_i = |N(U_i)|, |V_i|, and T_i = |N(U_i) \ V_i| + Σ_{j≠i} |V_i ∩ N(U_j)|.
 */
public final class PlacementMetrics {
  private final long[] m;
  private final long[] v;
  private final long[] t;
  private final long inner;

  PlacementMetrics(long[] m, long[] v, long[] t, long inner) {
    this.m = m;
    this.v = v;
    this.t = t;
    this.inner = inner;
  }

  /** M_i = |N(U_i)| per part. */
  public long[] workingSetSizes() {
    return m.clone();
  }

  /** |V_i| per part. */
  public long[] vSizes() {
    return v.clone();
  }

  /** T_i per part. */
  public long[] traffic() {
    return t.clone();
  }

  public long mMax() {
    return max(m);
  }

  public long mSum() {
    return sum(m);
  }

  public long tMax() {
    return max(t);
  }

  public long tSum() {
    return sum(t);
  }

  /** Σ_i |N(U_i) ∩ V_i|: accesses served on the same machine. */
  public long innerMachineAccesses() {
    return inner;
  }

  /** Σ_i |N(U_i) \ V_i|: accesses that cross the network (each counted once; T_sum counts them twice). */
  public long interMachineAccesses() {
    return sum(m) - inner;
  }

  /** (random − placed) / placed × 100 %, or 0 when both are 0. */
  public static double improvementPercent(long random, long placed) {
    if (placed == 0) {
      return random == 0 ? 0.0 : Double.POSITIVE_INFINITY;
    }
    return (random - placed) * 100.0 / placed;
  }

  private static long max(long[] a) {
    long r = 0;
    for (long x : a) {
      r = Math.max(r, x);
    }
    return r;
  }

  private static long sum(long[] a) {
    long r = 0;
    for (long x : a) {
      r += x;
    }
    return r;
  }

  @Override
  public String toString() {
    return "M_max=" + mMax() + " T_max=" + tMax() + " T_sum=" + tSum();
  }
}
