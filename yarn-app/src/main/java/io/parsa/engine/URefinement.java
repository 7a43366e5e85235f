package io.parsa.engine;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Refines a U partition after Parsa by rounds of pairwise row swaps (in the spirit of Social Hash's swap rounds and
 * of FM moves), with gains from per-key part counts, keeping every part's row count unchanged (or, when the rows
 * do not divide evenly, moving a row only from a part with ⌈n/k⌉ rows to one with ⌊n/k⌋).
 *
 * <p>Objective: F = Σ_i f(M_i) with M_i = |N(U_i)| and f(M) = M̄ · (M / M̄)^p, M̄ the mean working set at the
 * start. p = 1 is the connectivity objective (Σ_i M_i = |V| + Σ_v (λ_v − 1), so T_sum = 2 (Σ_i M_i − |V|) when
 * V_i ⊆ N(U_i)); a larger p weighs large working sets more and so also drives M_max (and with it T_max) down.
 *
 * <p>A round: (1) for every row, the exact change of F if it alone moved to each other part (O(k) per non-zero
 * from the counts cnt[v][i]), keeping the {@link #TOP} best targets; (2) for every pair of parts {a, b}, the rows
 * of a that want b and the rows of b that want a are sorted by gain and paired best with best while the sum of
 * the two estimated gains is positive; each pair is applied only if its exact change of F, recomputed from the
 * live counts, is negative, else undone. With the max guard, a swap is also undone if it leaves a part above the
 * round's largest M_i or (unless {@link #setFloorGuard} turned it off) above its largest base_i = M_i − (keys used by
 * part i alone), the floor of T_i, so neither M_max nor that floor of T_max rises. So F never increases, no row is lost or duplicated (a row only changes
 * its part), and part sizes never change except by the balance-preserving single moves.
 *
 * <p>Memory: 4·|V|·k bytes of counts and |V|·k/8 bytes of presence bits plus the rows' key lists (4 bytes per non-zero) and 12 bytes per candidate.
 * Weighted rows ({@link Block#weighted}): a swap or a single move is made only if it leaves every part's weight
 * within [lo, hi], a window as wide as the heaviest row (what partition-u's lightest-part rule guarantees) placed
 * around the start's weights, or the start's own spread where that is wider ({@link #weightWindow}); row counts may
 * then change. Where the best two rows of a pair do not fit the window, a partner further down either list that does
 * is taken, else the heavier row is traded for several of the other part's lighter ones ({@link #exchange}): most
 * parts sit at the window's floor after a few rounds, where one-for-one swaps of rows of unequal weight stall.
 */
public final class URefinement {
  /** Targets kept per row. */
  public static final int TOP = 16;
  /** Default exponent p of the objective. */
  public static final double DEFAULT_EXPONENT = 2.0;

  private final int k;
  private final List<Block> blocks;
  private final int[] blockStart;
  private final int n;
  private final int[] rowStart;
  private final int[] rowKeys;
  private final int numKeys;
  private final int[] part;
  /** Rows of part i that use key v: cnt[i·numKeys + v], part-major (see {@link PartHits}). */
  private final int[] cnt;
  /** Bit i of word present[v·wpk + i/64] set iff cnt[i·numKeys + v] > 0 (the gain pass then costs O(λ_v + k/64)). */
  private final long[] present;
  private final int wpk;
  /** singles[i]: keys used by part i alone, so base_i = M_i − singles[i] is T_i's floor (see TrafficBound). */
  private final long[] singles;
  private final long[] m;
  private final int[] size;
  private final int floor;
  private final int ceil;
  /** Row weights (null: every row weighs 1 and row counts are kept as described above). */
  private final double[] weight;
  /** Weight per part and the window it stays in (weighted rows only; unweighted, {@link #size} is the weight). */
  private final double[] load;
  private double lo;
  private double hi;
  private double exponent;
  private final double mean;
  /** The most keys of any row. */
  private final int maxDeg;
  private final boolean guardMax;
  private boolean holdFloor = true;
  /** The working-set room of the connectivity rounds under the max guard ({@link #setRoom}); 0: none. */
  private long room;
  /**
   * Whether this refines a chunk of the rows ({@link #ofChunk}, {@link #ofWeightedChunk}): unit rows swap only, so every
   * part keeps its rows of the chunk, and the working sets count the fixed rows' keys. {@link #keysInAll}: the distinct keys of all rows, for T_sum.
   */
  private final boolean chunk;
  private final long keysInAll;
  /** A chunk's fixed pins (rows of other chunks per part and key), for the gain cache; null otherwise. */
  private final int[] fixedCounts;
  /** The most keys each part's working set may reach in a chunk's rounds ({@link #capWorkingSets}), or null. */
  private long[] partCap;
  /** Threads that rate rows and sort candidates in a round ({@link #setThreads}). */
  private int threads = 1;
  /**
   * Every row's part hits and sole keys, kept by {@link #move}: built at the second {@link #round} (a build costs
   * about what one round's rating does), where n·k {@link GainCache#fits}; null before, and from the move at which
   * it stops paying off (then not built again).
   */
  private GainCache cache;
  /** Where a round's candidate arrays come from: its own unless {@link #setWorkspace} shares one. */
  private Workspace workspace = new Workspace();
  /** The rows (read only; its rows of every key are shared with the other readers). */
  private final RowKeyGraph graph;
  private int roundsRun;
  private boolean cacheDropped;
  private boolean cacheKept;
  /** Rounds on fewer rows than this rate them on one thread (the threads' start-up would outweigh the work). */
  static final int PARALLEL_MIN_ROWS = 20_000;

  /** Statistics of one round. */
  public record RoundStats(int moves, int pairsTried, double objectiveBefore, double objectiveAfter, long mMax,
      long mSum, long tSumIfHome) {
    /** Relative change of F in percent. */
    public double objectiveChangePercent() {
      return objectiveBefore == 0 ? 0 : (objectiveAfter - objectiveBefore) * 100.0 / objectiveBefore;
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%d rows moved (%d pairs tried), F %.4g -> %.4g (%.2f %%), M_max %,d, "
          + "sum M %,d, T_sum %,d", moves, pairsTried, objectiveBefore, objectiveAfter, objectiveChangePercent(),
          mMax, mSum, tSumIfHome);
    }
  }

  /** Refinement of {@code parts[b][r]} (part of row r of block b), copied, with the default exponent. */
  public URefinement(int k, List<Block> blocks, int[][] parts) {
    this(k, blocks, parts, DEFAULT_EXPONENT, true);
  }

  /**
   * @param exponent p ≥ 1 of the objective Σ f(M_i)
   * @param guardMax refuse any swap that would leave a working set above the largest one at the start of the
   *     round, so M_max never grows
   */
  public URefinement(int k, List<Block> blocks, int[][] parts, double exponent, boolean guardMax) {
    this(k, blocks, RowKeyGraph.of(blocks), parts, exponent, guardMax);
  }

  /** The same, over {@code graph}, the rows of {@code blocks} as {@link RowKeyGraph#of} gives them (read only). */
  public URefinement(int k, List<Block> blocks, RowKeyGraph graph, int[][] parts, double exponent,
      boolean guardMax) {
    this(k, blocks, graph, parts, null, exponent, guardMax);
  }

  /**
   * The same from the multilevel partitioner's result over {@code graph}: its part counts, presence bits and gain
   * cache are taken over (the rounds change them) instead of counted again, where its rows are unweighted; the same
   * rounds and moves as from {@code placed.parts()}.
   */
  public URefinement(int k, List<Block> blocks, RowKeyGraph graph, MultilevelPartitioner.Counted placed,
      double exponent, boolean guardMax) {
    this(k, blocks, graph, placed.parts(), placed.graph == graph && placed.k == k && placed.take() ? placed : null,
        exponent, guardMax, null, null, 0);
  }

  private URefinement(int k, List<Block> blocks, RowKeyGraph graph, int[][] parts, MultilevelPartitioner.Counted placed,
      double exponent, boolean guardMax) {
    this(k, blocks, graph, parts, placed, exponent, guardMax, null, null, 0);
  }

  /**
   * Refinement of a chunk of the rows among all k parts while the other rows stay where they are (fixed pins): of the
   * chunk's {@code graph}, {@code fixedCounts[i·numKeys + v]} other rows of part i use key v (the graph's key ids),
   * and {@code workingSets[i]} is part i's whole working set M_i, of which the keys no row of the chunk uses stay as
   * they are. So M_i, F and every gain are the whole assignment's, exact while the other rows stay. Swaps only: every
   * part keeps its number of the chunk's rows, so the whole assignment's balance is kept; with the max guard M_max never rises (T_max's floor needs keys
   * the chunk does not see, so that guard is off). {@code keysInAll}: the distinct keys of all rows (for T_sum in the
   * round statistics). Unweighted rows only ({@link #ofWeightedChunk} for weighted ones).
   */
  public static URefinement ofChunk(int k, List<Block> blocks, RowKeyGraph graph, int[][] parts, int[] fixedCounts,
      long[] workingSets, long keysInAll, double exponent) {
    if (blocks.stream().anyMatch(Block::weighted)) {
      throw new IllegalArgumentException("a chunk of weighted rows is refined within a weight window (ofWeightedChunk)");
    }
    return chunkOf(k, blocks, graph, parts, fixedCounts, workingSets, keysInAll, exponent);
  }

  /**
   * As {@link #ofChunk}, for weighted rows: the chunk's rows move singly, in swaps and in exchanges as long as every
   * part's weight stays within [lo, hi], where part i weighs its rows of the chunk plus {@code fixedLoads[i]} (which
   * may be any offset: a caller that gives each of several chunks refined at once a share of every part's room sets it
   * so that the common window maps onto each part's own share). Row counts may change. Every part must weigh within
   * the window at the start.
   */
  public static URefinement ofWeightedChunk(int k, List<Block> blocks, RowKeyGraph graph, int[][] parts,
      int[] fixedCounts, long[] workingSets, long keysInAll, double exponent, double[] fixedLoads, double lo,
      double hi) {
    if (!blocks.stream().allMatch(Block::weighted) || fixedLoads.length != k) {
      throw new IllegalArgumentException("a weighted chunk needs weighted rows and " + k + " fixed loads, got "
          + fixedLoads.length);
    }
    URefinement r = chunkOf(k, blocks, graph, parts, fixedCounts, workingSets, keysInAll, exponent);
    for (int i = 0; i < k; i++) {
      r.load[i] += fixedLoads[i];
    }
    r.setWeightWindow(lo, hi);
    return r;
  }

  private static URefinement chunkOf(int k, List<Block> blocks, RowKeyGraph graph, int[][] parts, int[] fixedCounts,
      long[] workingSets, long keysInAll, double exponent) {
    if (fixedCounts.length != (long) graph.numKeys() * k || workingSets.length != k) {
      throw new IllegalArgumentException("fixed counts for " + graph.numKeys() + " keys and " + k + " parts, and " + k
          + " working sets, expected; got " + fixedCounts.length + " and " + workingSets.length);
    }
    URefinement r = new URefinement(k, blocks, graph, parts, null, exponent, true, fixedCounts, workingSets,
        keysInAll);
    r.holdFloor = false;
    return r;
  }

  /**
   * A chunk's rounds leave no part's working set above {@code caps[i]} (a swap that would is undone; a part already
   * above its cap may only shrink): where chunks are refined at once, each may get a share of every part's headroom
   * so that together they cannot lift M_max.
   */
  public void capWorkingSets(long[] caps) {
    if (!chunk || caps.length != k) {
      throw new IllegalArgumentException("working-set caps are for a chunk's k parts");
    }
    partCap = caps.clone();
  }

  /** Whether part i is above its cap and above {@code before}, its working set before a move (it may only shrink). */
  private boolean aboveCap(int i, long before) {
    return partCap != null && m[i] > Math.max(partCap[i], before);
  }

  private URefinement(int k, List<Block> blocks, RowKeyGraph graph, int[][] parts, MultilevelPartitioner.Counted placed,
      double exponent, boolean guardMax, int[] fixedCounts, long[] workingSets, long keysInAll) {
    if (k < 2) {
      throw new IllegalArgumentException("k must be >= 2 to refine, was " + k);
    }
    if (!(exponent >= 1)) {
      throw new IllegalArgumentException("exponent must be >= 1, was " + exponent);
    }
    this.k = k;
    this.blocks = blocks;
    this.exponent = exponent;
    this.guardMax = guardMax;
    this.chunk = fixedCounts != null;
    this.keysInAll = keysInAll;
    this.fixedCounts = fixedCounts;
    long blockRows = blocks.stream().mapToLong(Block::numRows).sum();
    if (graph.numRows() != blockRows || graph.blockStart().length != blocks.size() + 1) {
      throw new IllegalArgumentException("the graph has " + graph.numRows() + " rows in "
          + (graph.blockStart().length - 1) + " blocks, the blocks " + blockRows + " in " + blocks.size());
    }
    this.graph = graph;
    blockStart = graph.blockStart();
    n = graph.numRows();
    rowStart = graph.rowStart();
    rowKeys = graph.rowKeys();
    numKeys = graph.numKeys();
    int widest = 0;
    for (int g = 0; g < n; g++) {
      widest = Math.max(widest, rowStart[g + 1] - rowStart[g]);
    }
    maxDeg = widest;
    boolean weighted = blocks.stream().anyMatch(Block::weighted);
    boolean counted = placed != null && !weighted;
    // taken over, the partitioner's part array (the same parts as parts[][]; its gain cache reads it) is the rounds'
    part = counted ? placed.part : new int[n];
    for (int b = 0; b < blocks.size(); b++) {
      Block blk = blocks.get(b);
      if (parts[b].length != blk.numRows()) {
        throw new IllegalArgumentException("block " + b + " has " + blk.numRows() + " rows but " + parts[b].length
            + " parts");
      }
      for (int r = 0; r < blk.numRows(); r++) {
        int p = parts[b][r];
        if (p < 0 || p >= k) {
          throw new IllegalArgumentException("row " + r + " of block " + b + " has part " + p + " outside [0, " + k
              + ")");
        }
        part[blockStart[b] + r] = p;
      }
    }
    cnt = counted ? placed.cnt : new int[Math.multiplyExact(numKeys, k)];
    m = new long[k];
    size = new int[k];
    weight = weighted ? new double[n] : null;
    load = weighted ? new double[k] : null;
    double heaviest = 0;
    for (int b = 0; weighted && b < blocks.size(); b++) {
      Block blk = blocks.get(b);
      for (int r = 0; r < blk.numRows(); r++) {
        weight[blockStart[b] + r] = blk.weight(r);
        heaviest = Math.max(heaviest, blk.weight(r));
      }
    }
    wpk = (k + 63) >>> 6;
    for (int g = 0; g < n; g++) {
      int p = part[g];
      size[p]++;
      if (weighted) {
        load[p] += weight[g];
      }
      if (!counted) {
        for (int t = rowStart[g]; t < rowStart[g + 1]; t++) {
          cnt[p * numKeys + rowKeys[t]]++;
        }
      }
    }
    if (chunk) {
      for (int c = 0; c < cnt.length; c++) {
        if (fixedCounts[c] < 0) {
          throw new IllegalArgumentException("negative fixed count " + fixedCounts[c] + " of key " + (c % numKeys)
              + " in part " + (c / numKeys));
        }
        cnt[c] += fixedCounts[c];
      }
    }
    if (counted) {
      present = placed.bits;
      cache = placed.cache;
    } else {
      present = new long[Math.multiplyExact(numKeys, wpk)];
      for (int i = 0; i < k; i++) {
        for (int v = 0; v < numKeys; v++) {
          if (cnt[i * numKeys + v] > 0) {
            present[v * wpk + (i >>> 6)] |= 1L << i;
          }
        }
      }
    }
    for (int v = 0; v < numKeys; v++) {
      for (int w = 0; w < wpk; w++) {
        for (long x = present[v * wpk + w]; x != 0; x &= x - 1) {
          m[(w << 6) + Long.numberOfTrailingZeros(x)]++;
        }
      }
    }
    if (chunk) {
      // the chunk's keys counted above; the whole working set adds those of the other rows alone
      for (int i = 0; i < k; i++) {
        if (workingSets[i] < m[i]) {
          throw new IllegalArgumentException("part " + i + "'s working set " + workingSets[i] + " is below the "
              + m[i] + " keys of the chunk's key set it holds");
        }
        m[i] = workingSets[i];
      }
    }
    singles = new long[k];
    for (int v = 0; v < numKeys; v++) {
      if (lambda(v * wpk) == 1) {
        singles[only(v * wpk)]++;
      }
    }
    floor = n / k;
    ceil = (n + k - 1) / k;
    double[] window = weighted ? weightWindow(load, heaviest) : new double[] {floor, ceil};
    lo = window[0];
    hi = window[1];
    long sum = 0;
    for (long x : m) {
      sum += x;
    }
    mean = Math.max(1.0, sum / (double) k);
  }

  /**
   * The weights every part must keep, {lo, hi}: a window as wide as the heaviest row, placed as near the mean weight
   * as it can be while it still holds every part's start weight; the start's own [min, max] where that is wider (a
   * refinement never makes the balance worse than its start's).
   */
  public static double[] weightWindow(double[] loads, double heaviest) {
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    double sum = 0;
    for (double x : loads) {
      min = Math.min(min, x);
      max = Math.max(max, x);
      sum += x;
    }
    // room for rounding: sums of doubles taken in another order differ in the last bits
    double eps = 1e-9 * Math.max(1.0, Math.abs(max));
    if (max - min >= heaviest) {
      return new double[] {min - eps, max + eps};
    }
    double half = heaviest / 2;
    double c = Math.max(max - half, Math.min(min + half, sum / loads.length));
    return new double[] {c - half - eps, c + half + eps};
  }

  /** Whether part weights x and y (after a change) both stay in the window. */
  private boolean inWindow(double x, double y) {
    return x >= lo && x <= hi && y >= lo && y <= hi;
  }

  /**
   * With the max guard, whether swaps must also keep max_i base_i (T_max's floor) from rising (default true). The
   * connectivity phase needs it (at k = 256 it moved one-part keys away from the largest part and lifted T_max above
   * random's); a max-weighted phase may go without it, where it blocks lowering M_max on data with locality
   * (cnr-2000: M_max held at 25,942 with it, 22,891 without; docs/quality.md §9).
   */
  public void setFloorGuard(boolean hold) {
    this.holdFloor = hold;
  }

  /**
   * With the max guard, lets the connectivity rounds (exponent 1) grow any working set, and the floor of T_i with it,
   * up to {@code keys} where that is above the round's largest: what a user allows each machine to hold
   * ({@code refine-u --max-working-set}), so the total traffic may fall further than the largest working set of the
   * max-weighted rounds lets it. No effect at larger exponents, without the guard, or where {@code keys} is 0.
   */
  public URefinement setRoom(long keys) {
    if (keys < 0) {
      throw new IllegalArgumentException("working-set room must be >= 0, was " + keys);
    }
    this.room = keys;
    return this;
  }

  /**
   * Threads (≥ 1) that rate the rows and sort the candidates in each round: the round's two O(non-zeros · λ) and
   * O(rows · k log) passes; the swaps that follow stay on the calling thread. Every number of threads gives the same
   * moves (each row's rating depends on the counts only, and the candidates are filled in row order).
   */
  public void setThreads(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be >= 1, was " + threads);
    }
    this.threads = threads;
  }

  /**
   * Takes each round's candidate arrays from {@code ws} instead of a workspace of its own, so that the rounds of all
   * refinements of one thread reuse them; the same moves either way. The workspace must not serve another refinement
   * while this one runs a round.
   */
  public void setWorkspace(Workspace ws) {
    this.workspace = java.util.Objects.requireNonNull(ws);
  }

  /** Changes the exponent p for the following rounds (e.g. max-weighted rounds first, then connectivity). */
  public void setExponent(double exponent) {
    if (!(exponent >= 1)) {
      throw new IllegalArgumentException("exponent must be >= 1, was " + exponent);
    }
    this.exponent = exponent;
  }

  private double f(double x) {
    return exponent == 1.0 ? x : mean * Math.pow(x / mean, exponent);
  }

  /** F = Σ_i f(M_i). */
  public double objective() {
    double s = 0;
    for (long x : m) {
      s += f(x);
    }
    return s;
  }

  /** Change of F if row g moved from its part to part b (no change applied). */
  private double delta(int g, int b) {
    int a = part[g];
    int lose = 0;
    int gain = 0;
    int ca = a * numKeys;
    int cb = b * numKeys;
    int[] rowKeys = this.rowKeys; // fields in locals: C1 (small inputs) reloads a field at every use
    int[] cnt = this.cnt;
    for (int t = rowStart[g], end = rowStart[g + 1]; t < end; t++) {
      int e = rowKeys[t];
      if (cnt[ca + e] == 1) {
        lose++;
      }
      if (cnt[cb + e] == 0) {
        gain++;
      }
    }
    return f(m[a] - lose) - f(m[a]) + f(m[b] + gain) - f(m[b]);
  }

  private int lambda(int pw) {
    int c = 0;
    for (int w = 0; w < wpk; w++) {
      c += Long.bitCount(present[pw + w]);
    }
    return c;
  }

  private int only(int pw) {
    for (int w = 0; w < wpk; w++) {
      if (present[pw + w] != 0) {
        return (w << 6) + Long.numberOfTrailingZeros(present[pw + w]);
      }
    }
    throw new IllegalStateException("key used by no part");
  }

  private void move(int g, int b) {
    int a = part[g];
    int ca = a * numKeys;
    int cb = b * numKeys;
    int alone = 0;
    int[] rowKeys = this.rowKeys; // fields in locals: C1 (small inputs) reloads a field at every use
    int[] cnt = this.cnt;
    GainCache cache = this.cache;
    for (int t = rowStart[g], end = rowStart[g + 1]; t < end; t++) {
      int e = rowKeys[t];
      int pw = e * wpk;
      int leftInA = --cnt[ca + e];
      int wasInB = cnt[cb + e]++;
      boolean leaves = leftInA == 0;
      boolean arrives = wasInB == 0;
      if (cache != null && GainCache.updates(leftInA, wasInB)) {
        alone += cache.keyMoved(g, e, a, b, leftInA, wasInB);
      }
      if (leaves || arrives) {
        int before = lambda(pw);
        if (leaves) {
          m[a]--;
          present[pw + (a >>> 6)] &= ~(1L << a);
        }
        if (arrives) {
          m[b]++;
          present[pw + (b >>> 6)] |= 1L << b;
        }
        if (before == 1) {
          singles[a]--; // the key was a's alone (a held it)
        }
        if (lambda(pw) == 1) {
          singles[only(pw)]++;
        }
      }
    }
    part[g] = b;
    if (cache != null) {
      cache.moved(g, alone);
      if (!cacheKept && !cache.paysOff()) {
        this.cache = null; // the counts are kept without it; the rows are counted again from the next round
        cacheDropped = true;
      }
    }
    size[a]--;
    size[b]++;
    if (weight != null) {
      load[a] -= weight[g];
      load[b] += weight[g];
    }
  }

  /**
   * Heap of the gain cache that rounds over {@code rows} rows at k parts build (4·(k + 1) bytes per row where
   * {@link GainCache#fits}, else none), for sizing the heap.
   */
  public static long gainCacheBytes(long rows, int k) {
    return rows <= Integer.MAX_VALUE && GainCache.fits((int) rows, k) ? 4L * (k + 1) * rows : 0;
  }

  /**
   * Whether the rounds may cache the gains (they do by default; off, every round counts every row) and, with
   * {@code keep}, keep the cache even where it does not pay off, for tests.
   */
  void setGainCache(boolean on, boolean keep) {
    cacheDropped = !on;
    cacheKept = on && keep;
    if (!on) {
      cache = null;
    }
  }

  /** Whether the gain cache is in use now, for tests. */
  boolean gainCacheInUse() {
    return cache != null;
  }

  /** One round of pairwise swaps (and balance-preserving single moves). */
  public RoundStats round() {
    if (cache == null && !cacheDropped && roundsRun++ > 0 && GainCache.fits(n, k)) {
      RowKeyGraph.Transposed byKey = graph.byKey();
      cache = new GainCache(k, rowStart, rowKeys, numKeys, byKey.start(), byKey.rows(), part, present, cnt);
      if (chunk) {
        cache.fixedPins(fixedCounts);
      }
    }
    if (cache != null) {
      cache.saved(rowKeys.length); // this round rates every row from the cache
    }
    double before = objective();
    long cap = Long.MAX_VALUE;
    long capBase = Long.MAX_VALUE;
    boolean floorGuard = guardMax && holdFloor;
    if (guardMax) {
      cap = 0;
      capBase = Long.MIN_VALUE;
      for (int i = 0; i < k; i++) {
        cap = Math.max(cap, m[i]);
        capBase = floorGuard ? Math.max(capBase, m[i] - singles[i]) : Long.MAX_VALUE;
      }
      if (exponent == 1.0 && room > cap) {
        cap = room;
        capBase = Math.max(capBase, room);
      }
    }
    int top = Math.min(TOP, k - 1);
    // (1) best targets per row, as candidates sorted by gain in buckets (from-part, to-part)
    int chunks = n >= PARALLEL_MIN_ROWS ? threads : 1;
    int[] bucketStart = new int[k * k + 1];
    long[] cand = candidates(top, chunks, bucketStart);
    // buckets made heaps on the same threads, each thread a contiguous run of buckets; read best first, each sorted
    // only as far as the pairs below read it
    TopDown sorted = new TopDown(cand, bucketStart);
    Parallel.run(chunks, "refine-round", c -> {
      for (int x = k * k * c / chunks; x < k * k * (c + 1) / chunks; x++) {
        sorted.heapify(x);
      }
    });
    // (2) pairs of parts, in order of their best estimated swap
    int moves = 0;
    int tried = 0;
    int[] pairOrder = pairsByEstimate(sorted, bucketStart);
    boolean[] moved = new boolean[n];
    for (int pi : pairOrder) {
      int a = pi / k;
      int b = pi % k;
      int ia = bucketStart[a * k + b + 1] - 1;
      int ib = bucketStart[b * k + a + 1] - 1;
      int failures = 0;
      while (failures < 8) {
        ia = skipMoved(sorted, a * k + b, ia, moved); // positions from ia up are now in their sorted place
        ib = skipMoved(sorted, b * k + a, ib, moved);
        // balance-preserving single move from a larger part
        // (a chunk's unit rows only swap: each part keeps its rows of the chunk)
        if (ia >= 0 && (!chunk || weight != null) && gainOf(cand[ia]) > 0 && (weight == null
            ? size[a] > size[b] && size[a] > floor && size[b] < ceil
            : inWindow(load[a] - weight[rowOf(cand[ia])], load[b] + weight[rowOf(cand[ia])]))) {
          int g = rowOf(cand[ia]);
          ia--;
          tried++;
          if (delta(g, b) < -1e-9) {
            long mb = m[b];
            move(g, b);
            if (m[b] <= cap && m[b] - singles[b] <= capBase && m[a] - singles[a] <= capBase && !aboveCap(b, mb)) {
              moved[g] = true;
              moves++;
              failures = 0;
              continue;
            }
            move(g, a);
          }
          failures++;
          continue;
        }
        if (ia < 0 || ib < 0) {
          break;
        }
        double est = gainOf(cand[ia]) + gainOf(cand[ib]);
        if (est <= 0) {
          break;
        }
        int ga = rowOf(cand[ia]);
        int gb = rowOf(cand[ib]);
        tried++;
        if (weight != null && !inWindow(load[a] - weight[ga] + weight[gb], load[b] - weight[gb] + weight[ga])) {
          // the best two rows seldom weigh alike: a partner further down either list whose weight the window takes
          int pb = partner(sorted, b * k + a, ib, ga, a, b, moved, gainOf(cand[ia]));
          int pa = partner(sorted, a * k + b, ia, gb, b, a, moved, gainOf(cand[ib]));
          double eb = pb < 0 ? Double.NEGATIVE_INFINITY : gainOf(cand[ia]) + gainOf(sorted.get(b * k + a, pb));
          double ea = pa < 0 ? Double.NEGATIVE_INFINITY : gainOf(cand[ib]) + gainOf(sorted.get(a * k + b, pa));
          if (pb < 0 && pa < 0) {
            // nor one for one: the heavier row for several of the other part's lighter ones
            int done = weight[ga] >= weight[gb]
                ? exchange(ga, a, b, sorted, b * k + a, ib, moved, cap, capBase)
                : exchange(gb, b, a, sorted, a * k + b, ia, moved, cap, capBase);
            ia--;
            ib--;
            if (done > 0) {
              moves += done;
              failures = 0;
            } else {
              failures++;
            }
            continue;
          }
          if (eb >= ea) {
            gb = rowOf(sorted.get(b * k + a, pb));
            ia--;
          } else {
            ga = rowOf(sorted.get(a * k + b, pa));
            ib--;
          }
        } else {
          ia--;
          ib--;
        }
        long ma = m[a];
        long mb = m[b];
        double d1 = delta(ga, b);
        move(ga, b);
        double d2 = delta(gb, a);
        if (d1 + d2 < -1e-9) {
          move(gb, a);
          if (m[a] > cap || m[b] > cap || m[a] - singles[a] > capBase || m[b] - singles[b] > capBase
              || aboveCap(a, ma) || aboveCap(b, mb)) {
            move(gb, b);
            move(ga, a);
            failures++;
            continue;
          }
          moved[ga] = true;
          moved[gb] = true;
          moves += 2;
          failures = 0;
        } else {
          move(ga, a);
          failures++;
        }
      }
    }
    double after = objective();
    long mMax = 0;
    long mSum = 0;
    for (long x : m) {
      mMax = Math.max(mMax, x);
      mSum += x;
    }
    return new RoundStats(moves, tried, before, after, mMax, mSum, 2 * (mSum - (chunk ? keysInAll : numKeys)));
  }

  /**
   * Rates every row on {@code chunks} threads (ranges of rows; the same result on any number) and returns its
   * {@code top} best targets as packed (gain, row) candidates grouped by bucket a·k + b, in row order within a
   * bucket; {@code bucketStart} receives the buckets' bounds.
   */
  private long[] candidates(int top, int chunks, int[] bucketStart) {
    int[] tgt = workspace.ints("round.targets", n * top);
    float[] gains = workspace.floats("round.gains", n * top);
    int[][] counts = new int[chunks][];
    FTable ft = fTable();
    Parallel.run(chunks, "refine-round", c -> counts[c] = rateRows(n * (long) c / chunks, n * (long) (c + 1) / chunks,
        top, tgt, gains, ft));
    int[] bucketCount = counts[0];
    for (int c = 1; c < chunks; c++) {
      for (int x = 0; x < k * k; x++) {
        bucketCount[x] += counts[c][x];
      }
    }
    for (int x = 0; x < k * k; x++) {
      bucketStart[x + 1] = bucketStart[x] + bucketCount[x];
    }
    long[] cand = workspace.longs("round.candidates", bucketStart[k * k]);
    int[] fill = Arrays.copyOf(bucketStart, k * k);
    for (int g = 0; g < n; g++) {
      int a = part[g];
      for (int j = 0; j < top; j++) {
        int b = tgt[g * top + j];
        cand[fill[a * k + b]++] = pack(gains[g * top + j], g);
      }
    }
    return cand;
  }

  /**
   * f at every integer a rating can ask for while the counts stand still: M_i − deg … M_i + deg for any part i and
   * row degree, so the same values as {@link #f} without a {@code Math.pow} per row and part (at k = 256 on
   * cnr-2000 those took 70 % of a swap round). Empty (every value computed) with exponent 1, or where the range would
   * be larger than the rating's own calls.
   */
  private record FTable(long base, double[] values) {
    static final FTable NONE = new FTable(0, new double[0]);

    double f(URefinement r, long x) {
      long i = x - base;
      return i >= 0 && i < values.length ? values[(int) i] : r.f(x);
    }
  }

  private FTable fTable() {
    if (exponent == 1.0) {
      return FTable.NONE;
    }
    long lo = Long.MAX_VALUE;
    long hi = Long.MIN_VALUE;
    for (long x : m) {
      lo = Math.min(lo, x);
      hi = Math.max(hi, x);
    }
    lo = Math.max(0, lo - maxDeg);
    hi += maxDeg;
    long size = hi - lo + 1;
    if (size > MAX_F_TABLE || size > (long) n * k) {
      return FTable.NONE;
    }
    double[] values = new double[(int) size];
    for (int i = 0; i < values.length; i++) {
      values[i] = f(lo + i);
    }
    return new FTable(lo, values);
  }

  /** Largest {@link FTable}: 4·2^20 values, 32 MiB. */
  private static final long MAX_F_TABLE = 1L << 22;

  /**
   * Rates rows [from, to): for each, the exact change of F if it alone moved to each other part, keeping its
   * {@code top} best targets in {@code tgt} and their gains in {@code gains} (row g at g·top); returns the number of
   * (from-part, to-part) candidates of these rows per bucket a·k + b. Reads the counts only, so ranges run in parallel.
   */
  private int[] rateRows(long from, long to, int top, int[] tgt, float[] gains, FTable ft) {
    int[] bucketCount = new int[k * k];
    int[] zeros = new int[k];
    PartHits hits = new PartHits(k);
    double[] dg = new double[k];
    int[] order = new int[k];
    TopTargets picker = new TopTargets(k, top);
    double[] fm = new double[k];
    for (int i = 0; i < k; i++) {
      fm[i] = f(m[i]);
    }
    for (int g = (int) from; g < to; g++) {
      int a = part[g];
      // zeros[i]: the row's keys that part i does not hold yet
      int lose;
      if (cache != null) {
        lose = cache.sole(g);
        for (int i = 0; i < k; i++) {
          zeros[i] = cache.hits(g, i);
        }
      } else {
        lose = hits.count(rowKeys, rowStart[g], rowStart[g + 1], present, cnt, a * numKeys, zeros);
      }
      int deg = rowStart[g + 1] - rowStart[g];
      for (int i = 0; i < k; i++) {
        zeros[i] = deg - zeros[i];
      }
      double out = ft.f(this, m[a] - lose) - fm[a];
      for (int i = 0; i < k; i++) {
        dg[i] = i == a ? Double.POSITIVE_INFINITY : out + ft.f(this, m[i] + zeros[i]) - fm[i];
      }
      if (top == k - 1) {
        // every other part is a target (k ≤ TOP + 1): nothing to select, and the candidates land in their buckets in
        // row order whatever the order of a row's targets (the selection had been a tenth of refine-u at 10^7, k = 16)
        for (int i = 0, j = 0; i < k; i++) {
          if (i != a) {
            tgt[g * top + j] = i;
            gains[g * top + j] = (float) -dg[i];
            bucketCount[a * k + i]++;
            j++;
          }
        }
        continue;
      }
      picker.select(dg, order);
      for (int j = 0; j < top; j++) {
        tgt[g * top + j] = order[j];
        gains[g * top + j] = (float) -dg[order[j]];
        bucketCount[a * k + order[j]]++;
      }
    }
    return bucketCount;
  }

  /**
   * Weighted rows: moves row h from part s to part t, then rows of t rated for s (bucket x, from position pos down,
   * within {@link #PARTNER_LOOK}) to s until both parts' weights are back in the window: one heavy row for several
   * lighter ones. Kept if F falls and no working-set cap is crossed; else undone. Returns the rows moved (0 if none).
   */
  private int exchange(int h, int s, int t, TopDown sorted, int x, int pos, boolean[] moved, long cap, long capBase) {
    long ms = m[s];
    long mt = m[t];
    double d = delta(h, t);
    move(h, t);
    int[] in = exchanged;
    int count = 0;
    int end = Math.max(sorted.start[x], pos - PARTNER_LOOK + 1);
    for (int i = pos; i >= end && !inWindow(load[s], load[t]); i--) {
      int r = rowOf(sorted.get(x, i));
      if (moved[r] || part[r] != t || load[s] + weight[r] > hi || load[t] - weight[r] < lo) {
        continue;
      }
      d += delta(r, s);
      move(r, s);
      in[count++] = r;
    }
    if (inWindow(load[s], load[t]) && d < -1e-9 && m[s] <= cap && m[t] <= cap && m[s] - singles[s] <= capBase
        && m[t] - singles[t] <= capBase && !aboveCap(s, ms) && !aboveCap(t, mt)) {
      moved[h] = true;
      for (int j = 0; j < count; j++) {
        moved[in[j]] = true;
      }
      return count + 1;
    }
    for (int j = count - 1; j >= 0; j--) {
      move(in[j], t);
    }
    move(h, s);
    return 0;
  }

  /** How far down a list a weighted swap looks for a partner the weight window takes. */
  private static final int PARTNER_LOOK = 32;
  /** The rows an {@link #exchange} moved in, to undo it. */
  private final int[] exchanged = new int[PARTNER_LOOK];

  /**
   * Weighted rows: the highest position below {@code pos} of bucket x (rows of part {@code other} rated for part
   * {@code own}), within {@link #PARTNER_LOOK}, whose unmoved row swapped with row {@code fixed} of part {@code own}
   * keeps both parts' weights in the window and whose estimate with {@code fixedGain} is positive; -1 if none.
   */
  private int partner(TopDown sorted, int x, int pos, int fixed, int own, int other, boolean[] moved,
      double fixedGain) {
    int end = Math.max(sorted.start[x], pos - PARTNER_LOOK);
    for (int i = pos - 1; i >= end; i--) {
      long c = sorted.get(x, i);
      if (fixedGain + gainOf(c) <= 0) {
        return -1;
      }
      int r = rowOf(c);
      if (!moved[r] && inWindow(load[own] - weight[fixed] + weight[r], load[other] - weight[r] + weight[fixed])) {
        return i;
      }
    }
    return -1;
  }

  /** The highest position at or below i of bucket x whose row has not moved in this round, or -1. */
  private static int skipMoved(TopDown sorted, int x, int i, boolean[] moved) {
    int lo = sorted.start[x];
    while (i >= lo && moved[rowOf(sorted.get(x, i))]) {
      i--;
    }
    return i >= lo ? i : -1;
  }

  /**
   * Buckets of distinct packed candidates read from the best down, in the order a full ascending sort of each
   * bucket gives, sorting each only as far as it is read: a bucket is a binary max-heap in place, and reading
   * position i pops it until i holds what heapsort puts there. A round reads the top few of most buckets (pairs stop at
   * the first swap whose estimate is not positive), so this costs O(m) per bucket of m instead of a full sort's
   * O(m log m), which had been a fifth of refine-u at 10^7 non-zeros; the moves are the same.
   */
  static final class TopDown {
    /** Buckets of up to this many candidates are sorted at once. */
    private static final int SORT_OUTRIGHT = 256;
    private final long[] a;
    private final int[] start;
    /** Bucket x is a heap over [start[x], heapEnd[x]); above it, its largest values in ascending order. */
    private final int[] heapEnd;

    TopDown(long[] a, int[] start) {
      this.a = a;
      this.start = start;
      this.heapEnd = Arrays.copyOfRange(start, 1, start.length);
    }

    /** Prepares bucket x: sorted outright if small (read through, as at large k, a sort is quicker), else a heap. */
    void heapify(int x) {
      int n = heapEnd[x] - start[x];
      if (n <= SORT_OUTRIGHT) {
        Arrays.sort(a, start[x], heapEnd[x]);
        heapEnd[x] = start[x];
        return;
      }
      for (int i = n / 2 - 1; i >= 0; i--) {
        siftDown(start[x], i, n);
      }
    }

    /** The value at position i (start[x] ≤ i &lt; start[x + 1]) of bucket x sorted ascending. */
    long get(int x, int i) {
      while (heapEnd[x] > i) {
        int lo = start[x];
        int last = --heapEnd[x];
        long top = a[lo];
        a[lo] = a[last];
        a[last] = top;
        siftDown(lo, 0, last - lo);
      }
      return a[i];
    }

    private void siftDown(int lo, int i, int n) {
      long v = a[lo + i];
      while (true) {
        int c = 2 * i + 1;
        if (c >= n) {
          break;
        }
        if (c + 1 < n && a[lo + c + 1] > a[lo + c]) {
          c++;
        }
        if (a[lo + c] <= v) {
          break;
        }
        a[lo + i] = a[lo + c];
        i = c;
      }
      a[lo + i] = v;
    }
  }

  /** Unordered part pairs a &lt; b (encoded a·k + b), by decreasing best estimated swap gain. */
  private int[] pairsByEstimate(TopDown sorted, int[] bucketStart) {
    int np = k * (k - 1) / 2;
    long[] keyed = new long[np];
    int c = 0;
    for (int a = 0; a < k; a++) {
      for (int b = a + 1; b < k; b++) {
        int xa = a * k + b;
        int xb = b * k + a;
        double est = Double.NEGATIVE_INFINITY;
        if (bucketStart[xa + 1] > bucketStart[xa] && bucketStart[xb + 1] > bucketStart[xb]) {
          est = gainOf(sorted.get(xa, bucketStart[xa + 1] - 1)) + gainOf(sorted.get(xb, bucketStart[xb + 1] - 1));
        } else if (bucketStart[xa + 1] > bucketStart[xa]) {
          est = gainOf(sorted.get(xa, bucketStart[xa + 1] - 1));
        } else if (bucketStart[xb + 1] > bucketStart[xb]) {
          est = gainOf(sorted.get(xb, bucketStart[xb + 1] - 1));
        }
        keyed[c++] = pack((float) est, a * k + b);
      }
    }
    Arrays.sort(keyed);
    int[] order = new int[np];
    for (int i = 0; i < np; i++) {
      order[i] = rowOf(keyed[np - 1 - i]);
    }
    return order;
  }

  /**
   * The {@code top} indices with the smallest values (ascending) into {@code order[0, top)}, as a selection sort
   * over all indices picks them: step j takes the smallest value among positions j… of a permutation that starts as
   * the identity (the first such position on a tie) and swaps it with position j. That sort costs top·k steps per
   * row (at k = 256 most of a swap round); this picks the same indices in the same order from the few candidates
   * whose value is at most the top-th smallest, tracking only their positions, and falls back to the sort when
   * ties make the candidates many. Not thread-safe: one per thread.
   */
  static final class TopTargets {
    private final int top;
    private final double[] smallest;
    private final int[] cIdx;
    private final int[] cPos;
    private final boolean[] taken;

    TopTargets(int k, int top) {
      this.top = top;
      smallest = new double[top];
      int max = Math.min(k, 4 * top);
      cIdx = new int[max];
      cPos = new int[max];
      taken = new boolean[max];
    }

    void select(double[] v, int[] order) {
      int k = v.length;
      if (k < 2 * top) { // nearly every index is a candidate: the sort is as quick (measured at k = 16)
        selectionSort(v, order, top);
        return;
      }
      // the top smallest values, ascending: their last is the bound no chosen value exceeds
      int filled = 0;
      for (int i = 0; i < k; i++) {
        double x = v[i];
        if (filled == top && !(x < smallest[top - 1])) {
          continue;
        }
        int at = filled < top ? filled++ : top - 1;
        while (at > 0 && x < smallest[at - 1]) {
          smallest[at] = smallest[at - 1];
          at--;
        }
        smallest[at] = x;
      }
      double bound = smallest[top - 1];
      int c = 0;
      for (int i = 0; i < k; i++) {
        if (v[i] <= bound) {
          if (c == cIdx.length) {
            selectionSort(v, order, top);
            return;
          }
          cIdx[c] = i;
          cPos[c] = i;
          taken[c] = false;
          c++;
        }
      }
      for (int j = 0; j < top; j++) {
        int best = -1;
        int atJ = -1;
        for (int q = 0; q < c; q++) {
          if (taken[q]) {
            continue;
          }
          if (cPos[q] == j) {
            atJ = q;
          }
          if (best < 0 || v[cIdx[q]] < v[cIdx[best]] || (v[cIdx[q]] == v[cIdx[best]] && cPos[q] < cPos[best])) {
            best = q;
          }
        }
        // the sort swaps positions j and best: a candidate at j moves to best's position
        if (atJ >= 0 && atJ != best) {
          cPos[atJ] = cPos[best];
        }
        taken[best] = true;
        order[j] = cIdx[best];
      }
    }

    /** The selection sort itself (top·k steps). */
    static void selectionSort(double[] v, int[] order, int top) {
      int k = v.length;
      for (int i = 0; i < k; i++) {
        order[i] = i;
      }
      for (int j = 0; j < top; j++) {
        int best = j;
        for (int i = j + 1; i < k; i++) {
          if (v[order[i]] < v[order[best]]) {
            best = i;
          }
        }
        int x = order[j];
        order[j] = order[best];
        order[best] = x;
      }
    }
  }

  private static long pack(float gain, int row) {
    int bits = Float.floatToIntBits(gain);
    bits ^= (bits >> 31) & 0x7fffffff;
    return ((long) bits << 32) | (row & 0xffffffffL);
  }

  private static float gainOf(long packed) {
    int bits = (int) (packed >> 32);
    bits ^= (bits >> 31) & 0x7fffffff;
    return Float.intBitsToFloat(bits);
  }

  private static int rowOf(long packed) {
    return (int) packed;
  }

  /**
   * T_sum = 2 · Σ_v (λ_v − 1) of each of the assignments {@code parts[b][r]} (what {@link #sumTrafficIfHome} reports
   * once refinement starts from it), one pass over the non-zeros each, without building the refinement's counts.
   */
  public static long[] sumTrafficIfHome(int k, RowKeyGraph g, int[][]... assignments) {
    int wpk = (k + 63) >>> 6;
    long[] out = new long[assignments.length];
    long[] bits = new long[g.numKeys() * wpk];
    for (int x = 0; x < assignments.length; x++) {
      Arrays.fill(bits, 0L);
      long lambdaSum = 0;
      for (int b = 0; b + 1 < g.blockStart().length; b++) {
        int[] parts = assignments[x][b];
        for (int r = 0; r < parts.length; r++) {
          int row = g.blockStart()[b] + r;
          int p = parts[r];
          for (int t = g.rowStart()[row]; t < g.rowStart()[row + 1]; t++) {
            int w = g.rowKeys()[t] * wpk + (p >>> 6);
            if ((bits[w] & (1L << p)) == 0) {
              bits[w] |= 1L << p;
              lambdaSum++;
            }
          }
        }
      }
      out[x] = 2 * (lambdaSum - g.numKeys());
    }
    return out;
  }

  /** The current assignment, {@code parts[b][r]} for row r of block b (fresh arrays). */
  public int[][] parts() {
    int[][] out = new int[blocks.size()][];
    for (int b = 0; b < blocks.size(); b++) {
      out[b] = Arrays.copyOfRange(part, blockStart[b], blockStart[b + 1]);
    }
    return out;
  }

  /** Rows per part. */
  public int[] sizes() {
    return size.clone();
  }

  /** Weight per part (rows per part when the rows are unweighted). */
  public double[] loads() {
    return load != null ? load.clone() : Arrays.stream(size).asDoubleStream().toArray();
  }

  /**
   * Weighted rows: every part's weight stays within [lo, hi] instead of the window of {@link #weightWindow} (a caller
   * that refines some of the parts, whose window is the whole assignment's). Every part must weigh within it now.
   */
  public void setWeightWindow(double lo, double hi) {
    if (load == null) {
      throw new IllegalStateException("a weight window is for weighted rows");
    }
    for (int i = 0; i < k; i++) {
      if (load[i] < lo || load[i] > hi) {
        throw new IllegalArgumentException("part " + i + " weighs " + load[i] + ", outside the window [" + lo + ", "
            + hi + "]");
      }
    }
    this.lo = lo;
    this.hi = hi;
  }

  /** The window {lo, hi} every part's weight stays in (weighted rows, {@link #weightWindow}; unweighted ⌊n/k⌋, ⌈n/k⌉). */
  public double[] weightBounds() {
    return new double[] {lo, hi};
  }

  /** Keys used by part i alone, per part. */
  public long[] singleKeys() {
    return singles.clone();
  }

  /** M_i = |N(U_i)| per part. */
  public long[] workingSets() {
    return m.clone();
  }

  /**
   * The least T_max any V placement can reach for the current U (keys on a part that uses them): the LP optimum of
   * eq. 8 ({@link VPlacement#lowerBound}), which the default V placement meets on every measured instance.
   */
  public long trafficLowerBound() {
    KeySignatures sigs = new KeySignatures(k);
    for (int v = 0; v < numKeys; v++) {
      sigs.addBits(present, v * wpk);
    }
    double[] start = new double[k];
    for (int i = 0; i < k; i++) {
      start[i] = m[i];
    }
    return (long) Math.ceil(VPlacement.lowerBound(sigs, start) - 1e-9);
  }

  /** max_i M_i. */
  public long maxWorkingSet() {
    return Arrays.stream(m).max().orElse(0);
  }

  /** T_sum when every key is stored on a part that uses it: 2 (Σ_i M_i − |V|) (depends on U alone). */
  public long sumTrafficIfHome() {
    return 2 * (Arrays.stream(m).sum() - numKeys);
  }

  /**
   * The input-order start: rows ranked by row id over all blocks and cut into k consecutive runs whose sizes differ
   * by at most one ({@code parts[b][r]} = ⌊rank·k/n⌋). Row ids follow the input order (line numbers within files,
   * vertex ids of edge lists), which often carries locality that a random block split hides: web crawls numbered by
   * site, corpora grouped by topic. A start, not a placement: refinement and the choice between starts follow.
   * Weighted rows are cut by weight instead: a row goes to part ⌊(c + w/2)·k / W⌋ (c the weight of the rows before it
   * in id order, w its own, W the total), so every part weighs W/k within the heaviest row's weight.
   */
  public static int[][] inputOrderStart(int k, List<Block> blocks) {
    int n = 0;
    for (Block b : blocks) {
      n += b.numRows();
    }
    long[] ids = new long[n];
    int w = 0;
    for (Block b : blocks) {
      for (int r = 0; r < b.numRows(); r++) {
        ids[w++] = b.rowId(r);
      }
    }
    Arrays.sort(ids);
    boolean weighted = blocks.stream().anyMatch(Block::weighted);
    int[][] parts = new int[blocks.size()][];
    // weighted rows: each rank's weight, then the weight of the ranks before it
    double[] before = weighted ? new double[n + 1] : null;
    for (int b = 0; b < blocks.size(); b++) {
      Block blk = blocks.get(b);
      parts[b] = new int[blk.numRows()];
      for (int r = 0; r < blk.numRows(); r++) {
        int rank = Arrays.binarySearch(ids, blk.rowId(r));
        if (rank < 0 || (rank > 0 && ids[rank - 1] == blk.rowId(r)) || (rank + 1 < n && ids[rank + 1] == blk.rowId(r))) {
          throw new IllegalArgumentException("row id " + blk.rowId(r) + " is not unique over the blocks");
        }
        if (weighted) {
          before[rank + 1] = blk.weight(r);
          parts[b][r] = rank; // the part follows once every rank's weight is known
        } else {
          parts[b][r] = (int) ((long) rank * k / n);
        }
      }
    }
    if (weighted) {
      for (int i = 0; i < n; i++) {
        before[i + 1] += before[i];
      }
      double total = before[n];
      for (int[] p : parts) {
        for (int r = 0; r < p.length; r++) {
          int rank = p[r];
          p[r] = total > 0 ? weightedOrderPart(before[rank], before[rank + 1], total, k) : (int) ((long) rank * k / n);
        }
      }
    }
    return parts;
  }

  /**
   * The part of a weighted row in the input-order start: ⌊(c + w/2)·k / W⌋ at most k − 1, from {@code before} = c (the
   * weight of the rows before it in id order), {@code through} = c + w and {@code total} = W &gt; 0. The distributed
   * start ({@code OrderStart}) places its boundaries by this same formula, so the two starts agree row for row.
   */
  public static int weightedOrderPart(double before, double through, double total, int k) {
    double mid = (before + through) / 2;
    return (int) Math.min(k - 1, Math.floor(mid * k / total));
  }

  /** One line: F, M_max, Σ M_i. */
  public String summary() {
    long mMax = 0;
    long mSum = 0;
    for (long x : m) {
      mMax = Math.max(mMax, x);
      mSum += x;
    }
    return String.format(Locale.ROOT, "F %.4g, M_max %,d, sum M %,d, T_sum %,d, rows/part %d..%d", objective(), mMax,
        mSum, 2 * (mSum - numKeys), Arrays.stream(size).min().orElse(0), Arrays.stream(size).max().orElse(0))
        + (weight == null ? "" : String.format(Locale.ROOT, ", weight/part %.6g..%.6g (window %.6g..%.6g)",
            Arrays.stream(load).min().orElse(0), Arrays.stream(load).max().orElse(0), lo, hi));
  }
}
