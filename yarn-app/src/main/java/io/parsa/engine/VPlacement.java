package io.parsa.engine;

import java.util.Arrays;
import java.util.Locale;

/**
 * Places V given U (eq. 8 of the paper) over key signatures ({@link KeySignatures}): every key goes to one of the
 * parts that use it, and the largest cost_i = T_i is kept small.
 *
 * <p>Cost model (the paper's, with cost_i starting at |N(U_i)|, or a share of it): a key used by p parts that goes
 * to one of them, ξ, changes cost_ξ by p − 2 and no other cost. So a key used by one part goes to it (−1, never
 * worse), a key used by two parts costs the same wherever it goes (0), and only keys used by three or more parts
 * (weight w = p − 2 ≥ 1) need choosing: a restricted-assignment load-balancing problem over (signature, count).
 *
 * <p>Methods:
 * <ul>
 *   <li>{@link Method#SWEEP}: the paper's Algorithm 2, one sweep in the given key order (today's partition-v);</li>
 *   <li>{@link Method#SINGLES_FIRST}: the same sweep with the keys used by one part taken first;</li>
 *   <li>{@link Method#BALANCED}: singles home, two-part keys to the user with fewer keys, the rest greedily by
 *       decreasing weight (each key to its least-loaded user), then local search to a fixed point: move keys of a
 *       signature from user a to user b while cost_b + w &lt; cost_a (each move strictly lowers Σ cost², and never
 *       raises the larger of the two, so the maximum never grows). The local search is run from the greedy
 *       start and from the singles-first sweep, and the better result is kept, so it is never worse than
 *       either sweep order.</li>
 * </ul>
 * {@link #lowerBound} gives the LP relaxation's optimum over signatures, a lower bound for any placement that
 * puts every key on a part that uses it.
 */
public final class VPlacement {
  private VPlacement() {}

  /** How keys are placed. */
  public enum Method {
    SWEEP, SINGLES_FIRST, BALANCED;

    /** Parses a method name ("sweep", "singles-first", "balanced"); throws with the accepted names. */
    public static Method parse(String s) {
      for (Method m : values()) {
        if (m.cliName().equals(s.trim().toLowerCase(Locale.ROOT))) {
          return m;
        }
      }
      throw new IllegalArgumentException("V placement method must be sweep, singles-first or balanced, was " + s);
    }

    /** The name users type. */
    public String cliName() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  /** Parts of the keys and the costs at the end. */
  public static final class Result {
    private final int[] partOfKey;
    private final double[] cost;
    private final long[] delta;
    private final long[] keysPerPart;
    private final int localSearchMoves;

    Result(int[] partOfKey, double[] cost, long[] delta, long[] keysPerPart, int localSearchMoves) {
      this.partOfKey = partOfKey;
      this.cost = cost;
      this.delta = delta;
      this.keysPerPart = keysPerPart;
      this.localSearchMoves = localSearchMoves;
    }

    /** Part of the key added {@code j}-th to the signatures. */
    public int[] parts() {
      return partOfKey;
    }

    /** Final cost_i (start + delta). */
    public double[] cost() {
      return cost;
    }

    /** Integer sum of the cost changes per part (T_i = |N(U_i)| + delta_i when the start was |N(U_i)|). */
    public long[] delta() {
      return delta;
    }

    /** |V_i|. */
    public long[] keysPerPart() {
      return keysPerPart;
    }

    /** Max_i cost_i. */
    public double maxCost() {
      double m = Double.NEGATIVE_INFINITY;
      for (double c : cost) {
        m = Math.max(m, c);
      }
      return m;
    }

    /** Signature-level moves the local search made (0 for the sweeps). */
    public int localSearchMoves() {
      return localSearchMoves;
    }
  }

  /**
   * Places the keys of {@code sigs}.
   *
   * @param start cost_i before any key is placed (|N(U_i)|, or |N(U_i)| / R for one of R independent shares)
   */
  public static Result place(KeySignatures sigs, double[] start, Method method) {
    int k = sigs.k();
    if (start.length != k) {
      throw new IllegalArgumentException("start has " + start.length + " parts, expected " + k);
    }
    return switch (method) {
      case SWEEP -> sweep(sigs, start, false);
      case SINGLES_FIRST -> sweep(sigs, start, true);
      case BALANCED -> balanced(sigs, start);
    };
  }

  /** Algorithm 2 in key order (optionally the one-part keys first); ties to the lowest part index. */
  private static Result sweep(KeySignatures sigs, double[] start, boolean singlesFirst) {
    int k = sigs.k();
    int n = sigs.numKeys();
    double[] cost = start.clone();
    long[] delta = new long[k];
    long[] keys = new long[k];
    int[] part = new int[n];
    if (singlesFirst) {
      for (int j = 0; j < n; j++) {
        int s = sigs.signatureOfKey(j);
        if (sigs.size(s) == 1) {
          put(sigs, s, j, sigs.part(s, 0), part, cost, delta, keys);
        }
      }
    }
    for (int j = 0; j < n; j++) {
      int s = sigs.signatureOfKey(j);
      int p = sigs.size(s);
      if (singlesFirst && p == 1) {
        continue;
      }
      int best = -1;
      if (p == 0) {
        for (int i = 0; i < k; i++) {
          if (best < 0 || cost[i] < cost[best]) {
            best = i;
          }
        }
      } else {
        for (int t = 0; t < p; t++) {
          int i = sigs.part(s, t);
          if (best < 0 || cost[i] < cost[best]) {
            best = i;
          }
        }
      }
      put(sigs, s, j, best, part, cost, delta, keys);
    }
    return new Result(part, cost, delta, keys, 0);
  }

  private static void put(KeySignatures sigs, int s, int key, int i, int[] part, double[] cost, long[] delta,
      long[] keys) {
    part[key] = i;
    keys[i]++;
    int p = sigs.size(s);
    if (p > 0) {
      cost[i] += p - 2;
      delta[i] += p - 2;
    }
  }

  private static Result balanced(KeySignatures sigs, double[] start) {
    int k = sigs.k();
    int ns = sigs.numSignatures();
    // counts[off[s] + t] = keys of signature s given to its t-th part
    int[] off = new int[ns + 1];
    for (int s = 0; s < ns; s++) {
      off[s + 1] = off[s] + Math.max(1, sigs.size(s));
    }
    long[] greedy = new long[off[ns]];
    double[] loadG = start.clone();
    long[] keysG = new long[k];
    greedyCounts(sigs, off, greedy, loadG, keysG);
    int movesG = localSearch(sigs, off, greedy, loadG);

    // second start: the singles-first sweep
    Result sw = sweep(sigs, start, true);
    long[] fromSweep = new long[off[ns]];
    for (int j = 0; j < sigs.numKeys(); j++) {
      int s = sigs.signatureOfKey(j);
      fromSweep[off[s] + slotOf(sigs, s, sw.parts()[j])]++;
    }
    double[] loadS = sw.cost().clone();
    int movesS = localSearch(sigs, off, fromSweep, loadS);

    boolean useGreedy = max(loadG) <= max(loadS);
    return expand(sigs, off, useGreedy ? greedy : fromSweep, start, useGreedy ? movesG : movesS);
  }

  private static int slotOf(KeySignatures sigs, int s, int part) {
    int p = sigs.size(s);
    if (p == 0) {
      return 0;
    }
    for (int t = 0; t < p; t++) {
      if (sigs.part(s, t) == part) {
        return t;
      }
    }
    throw new IllegalStateException("part " + part + " not in signature " + s);
  }

  /** Singles home, pairs by key count, weighted signatures by decreasing weight to the least-loaded user. */
  private static void greedyCounts(KeySignatures sigs, int[] off, long[] counts, double[] load, long[] keys) {
    int k = sigs.k();
    int ns = sigs.numSignatures();
    Integer[] order = new Integer[ns];
    for (int s = 0; s < ns; s++) {
      order[s] = s;
    }
    // weight descending, then fewer alternatives... p == weight + 2, so descending p; stable on id
    Arrays.sort(order, (x, y) -> Integer.compare(sigs.size(y), sigs.size(x)));
    // singles first (they only lower costs), then by decreasing weight
    for (int s = 0; s < ns; s++) {
      if (sigs.size(s) == 1) {
        int i = sigs.part(s, 0);
        counts[off[s]] = sigs.count(s);
        load[i] -= sigs.count(s);
        keys[i] += sigs.count(s);
      } else if (sigs.size(s) == 0) {
        // never reached when V comes from the rows: park unused keys on the part with the fewest keys
        int best = 0;
        for (int i = 1; i < k; i++) {
          if (keys[i] < keys[best]) {
            best = i;
          }
        }
        counts[off[s]] = sigs.count(s);
        keys[best] += sigs.count(s);
      }
    }
    for (Integer boxed : order) {
      int s = boxed;
      int p = sigs.size(s);
      if (p < 2) {
        continue;
      }
      int w = p - 2;
      for (long c = sigs.count(s); c > 0; c--) {
        int bt = 0;
        for (int t = 1; t < p; t++) {
          int i = sigs.part(s, t);
          int b = sigs.part(s, bt);
          if (w == 0 ? keys[i] < keys[b] : load[i] < load[b] || (load[i] == load[b] && keys[i] < keys[b])) {
            bt = t;
          }
        }
        int i = sigs.part(s, bt);
        counts[off[s] + bt]++;
        load[i] += w;
        keys[i]++;
      }
    }
  }

  /**
   * Moves keys of one signature from a user a to a user b while cost_b + w &lt; cost_a, until no such move is
   * left (a fixed point) or a pass limit; returns the number of moves.
   */
  private static int localSearch(KeySignatures sigs, int[] off, long[] counts, double[] load) {
    int ns = sigs.numSignatures();
    int moves = 0;
    for (int pass = 0; pass < 10_000; pass++) {
      int before = moves;
      for (int s = 0; s < ns; s++) {
        int p = sigs.size(s);
        if (p < 3) {
          continue;
        }
        int w = p - 2;
        boolean moved = true;
        while (moved) {
          moved = false;
          int lo = 0;
          int hi = -1;
          for (int t = 0; t < p; t++) {
            double l = load[sigs.part(s, t)];
            if (l < load[sigs.part(s, lo)]) {
              lo = t;
            }
            if (counts[off[s] + t] > 0 && (hi < 0 || l > load[sigs.part(s, hi)])) {
              hi = t;
            }
          }
          if (hi < 0 || hi == lo) {
            break;
          }
          int a = sigs.part(s, hi);
          int b = sigs.part(s, lo);
          double gap = load[a] - load[b];
          if (load[b] + w < load[a]) {
            long m = Math.min(counts[off[s] + hi], Math.max(1L, (long) Math.floor(gap / (2.0 * w))));
            counts[off[s] + hi] -= m;
            counts[off[s] + lo] += m;
            load[a] -= m * (double) w;
            load[b] += m * (double) w;
            moves++;
            moved = true;
          }
        }
      }
      if (moves == before) {
        break;
      }
    }
    return moves;
  }

  /** Gives every key a part from the per-signature counts (keys of one signature in order, parts ascending). */
  private static Result expand(KeySignatures sigs, int[] off, long[] counts, double[] start, int moves) {
    int k = sigs.k();
    int n = sigs.numKeys();
    long[] left = counts.clone();
    int[] cursor = new int[sigs.numSignatures()];
    int[] part = new int[n];
    double[] cost = start.clone();
    long[] delta = new long[k];
    long[] keys = new long[k];
    for (int j = 0; j < n; j++) {
      int s = sigs.signatureOfKey(j);
      int p = sigs.size(s);
      if (p == 0) {
        int best = 0;
        for (int i = 1; i < k; i++) {
          if (keys[i] < keys[best]) {
            best = i;
          }
        }
        put(sigs, s, j, best, part, cost, delta, keys);
        continue;
      }
      while (left[off[s] + cursor[s]] == 0) {
        cursor[s]++;
      }
      left[off[s] + cursor[s]]--;
      put(sigs, s, j, sigs.part(s, cursor[s]), part, cost, delta, keys);
    }
    return new Result(part, cost, delta, keys, moves);
  }

  /**
   * Lower bound on max_i cost_i over every placement that puts each key on a part that uses it: the optimum of
   * the LP relaxation of eq. 8 over signatures (exact for k ≤ {@link TrafficBound#EXACT_MAX_K}, otherwise a
   * weaker bound over a family of part subsets; see {@link TrafficBound}).
   */
  public static double lowerBound(KeySignatures sigs, double[] start) {
    int k = sigs.k();
    double[] base = start.clone();
    TrafficBound tb = new TrafficBound(k);
    for (int s = 0; s < sigs.numSignatures(); s++) {
      int p = sigs.size(s);
      long c = sigs.count(s);
      if (p == 1) {
        base[sigs.part(s, 0)] -= c;
      } else if (p >= 3) {
        int[] parts = new int[p];
        for (int t = 0; t < p; t++) {
          parts[t] = sigs.part(s, t);
        }
        tb.addWeighted(parts, c * (p - 2));
      }
    }
    return tb.bound(base);
  }

  private static double max(double[] a) {
    double m = Double.NEGATIVE_INFINITY;
    for (double x : a) {
      m = Math.max(m, x);
    }
    return m;
  }
}
