package io.parsa.engine;

/**
 * The two terms of every move gain, cached per vertex and kept exact across moves: {@code hits(v, p)}, how many of
 * v's keys part p holds (p = v's own part: all of them), and {@code sole(v)}, how many of them v alone uses in its
 * own part. A vertex is then rated in O(k) instead of a pass over its keys ({@link PartHits}); a move pays for the
 * keys whose part counts cross 0 ↔ 1 (every user of the key is updated) or 1 ↔ 2 (the one other user in that part
 * is found), which for a key of many users in every part is rare. Where it is not (many parts, or keys of a few
 * users per part), the updates can cost more than the counting they save: it is built only up to {@link #MAX_PARTS}
 * parts and {@link #MAX_ENTRIES} counts ({@link #fits}), and it keeps the account ({@link #saved} against the users
 * its updates visit) so that callers drop it when {@link #paysOff} turns false, which changes no result (the cache is
 * exact, as the counts it replaces are). Used by the multilevel partitioner's label propagation and FM and by the U
 * refinement's swap rounds; memory 4·n·k bytes.
 */
final class GainCache {
  /** Largest n·k cached: 128 MiB of counts. */
  static final long MAX_ENTRIES = 1L << 25;
  /**
   * Most parts cached. Above, a part holds few users of a key, so its counts cross 0 ↔ 1 at most moves, and each
   * crossing visits every user of the key at a stride of k counts: reuters21578 at k = 256 refined 8–15 % slower
   * with the cache (21 of its 24 caches dropped), ego-twitter at k = 64 as fast (the rounds' cache dropped).
   */
  static final int MAX_PARTS = 32;

  private final int k;
  private final int[] nStart;
  private final int[] nPins;
  private final int[] part;
  private final int[] held;
  private final int[] sole;
  /** Weight of every key (identical keys merged into one), or null: every key weighs 1. */
  private final int[] netWeight;
  /**
   * Users of each key that are not vertices here (a chunk's fixed pins, {@code fixed[p·numNets + e]}), or null: a
   * key's last user in a part may then be one of them, which has no gain to keep.
   */
  private int[] fixed;
  private int numNets;
  /** Key users visited by updates, and the users (keys of rated vertices) that counting would have visited. */
  private long spent;
  private long saved;

  /** Whether n vertices at k parts are within {@link #MAX_ENTRIES} and {@link #MAX_PARTS}. */
  static boolean fits(int n, int k) {
    return k <= MAX_PARTS && (long) n * k <= MAX_ENTRIES;
  }

  /**
   * Counts every vertex of the CSR {@code vStart}/{@code vNets} (its transpose {@code nStart}/{@code nPins}) under
   * {@code part} (read as it changes), the part counts {@code cnt[p·numNets + e]} and the presence bits {@code bits}
   * of {@link PartHits}.
   */
  GainCache(int k, int[] vStart, int[] vNets, int numNets, int[] nStart, int[] nPins, int[] part, long[] bits,
      int[] cnt) {
    this(k, vStart, vNets, numNets, nStart, nPins, part, bits, cnt, null);
  }

  /** As above, each key weighing {@code netWeight[e]} (null: 1): hits and sole keys are sums of weights. */
  GainCache(int k, int[] vStart, int[] vNets, int numNets, int[] nStart, int[] nPins, int[] part, long[] bits,
      int[] cnt, int[] netWeight) {
    this(k, vStart, vNets, numNets, nStart, nPins, part, bits, cnt, netWeight, 1);
  }

  /**
   * As above, counted on {@code threads} threads, each a range of vertices of about equal keys (the counts are the
   * same on any number of threads).
   */
  GainCache(int k, int[] vStart, int[] vNets, int numNets, int[] nStart, int[] nPins, int[] part, long[] bits,
      int[] cnt, int[] netWeight, int threads) {
    int n = vStart.length - 1;
    this.k = k;
    this.nStart = nStart;
    this.nPins = nPins;
    this.part = part;
    held = new int[Math.multiplyExact(n, k)];
    sole = new int[n];
    this.numNets = numNets;
    this.netWeight = netWeight;
    saved = vStart[n]; // one counting pass of slack: the build's own cost
    int[] bounds = Parallel.ranges(vStart, n, threads);
    Parallel.run(threads, "gain-cache", c -> count(bounds[c], bounds[c + 1], vStart, vNets, numNets, bits, cnt));
  }

  /** The hits and sole keys of vertices {@code from..to−1}, with a counter of their own (one range per thread). */
  private void count(int from, int to, int[] vStart, int[] vNets, int numNets, long[] bits, int[] cnt) {
    PartHits counter = new PartHits(k);
    int[] hits = new int[k];
    int[] held = this.held; // fields in locals: C1 (small inputs) reloads a field at every use
    int[] sole = this.sole;
    int[] part = this.part;
    int[] netWeight = this.netWeight;
    int k = this.k;
    for (int v = from; v < to; v++) {
      sole[v] = counter.count(vNets, vStart[v], vStart[v + 1], bits, cnt, part[v] * numNets, hits, netWeight);
      System.arraycopy(hits, 0, held, v * k, k);
    }
  }

  /** The users of every key that are not vertices here ({@link #fixed}), counted in the part counts given. */
  void fixedPins(int[] fixed) {
    this.fixed = fixed;
  }

  /** Records that {@code keys} key users were read from the cache instead of being counted. */
  void saved(long keys) {
    saved += keys;
  }

  /** Whether the updates so far have visited no more key users than the cache saved counting, plus one build. */
  boolean paysOff() {
    return spent <= saved;
  }

  /** The keys of v that part p holds. */
  int hits(int v, int p) {
    return held[v * k + p];
  }

  /** The keys of v that no other vertex of v's part uses. */
  int sole(int v) {
    return sole[v];
  }

  /**
   * Key e of v after v's move from a to b: {@code leftInA} users of e are left in a, {@code wasInB} were in b before
   * v came. Returns e's weight if v is now e's only user in b (the caller sums these into {@link #moved}), else 0.
   * Callers skip the call where {@link #updates} says there is nothing to update.
   */
  int keyMoved(int v, int e, int a, int b, int leftInA, int wasInB) {
    int w = netWeight == null ? 1 : netWeight[e];
    if (leftInA == 0) {
      add(e, a, -w);
    } else if (leftInA == 1 && (fixed == null || fixed[a * numNets + e] == 0)) {
      sole[other(e, a, v)] += w;
    }
    if (wasInB == 0) {
      add(e, b, w);
      return w;
    }
    if (wasInB == 1 && (fixed == null || fixed[b * numNets + e] == 0)) {
      sole[other(e, b, v)] -= w;
    }
    return 0;
  }

  /**
   * Whether a key's move with {@code leftInA} users left in a and {@code wasInB} users in b before has anything for
   * {@link #keyMoved} to update: not while both counts stay at 2 or more (tiny, so C1 inlines it at the callers).
   */
  static boolean updates(int leftInA, int wasInB) {
    return leftInA <= 1 || wasInB <= 1;
  }

  /** After every key of v's move went through {@link #keyMoved}: v alone uses {@code alone} keys in its new part. */
  void moved(int v, int alone) {
    sole[v] = alone;
  }

  private void add(int e, int p, int d) {
    // fields in locals: C1 (small inputs) reloads a field at every use
    int from = nStart[e];
    int to = nStart[e + 1];
    int[] nPins = this.nPins;
    int[] held = this.held;
    int k = this.k;
    spent += to - from;
    for (int q = from; q < to; q++) {
      held[nPins[q] * k + p] += d;
    }
  }

  /** The user of key e other than {@code not} in part p (there is exactly one). */
  private int other(int e, int p, int not) {
    int from = nStart[e];
    int to = nStart[e + 1];
    int[] nPins = this.nPins;
    int[] part = this.part;
    for (int q = from; q < to; q++) {
      int u = nPins[q];
      if (u != not && part[u] == p) {
        spent += q - from + 1;
        return u;
      }
    }
    throw new IllegalStateException("key " + e + " has no other user in part " + p);
  }
}
