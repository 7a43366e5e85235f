package io.parsa.engine;

import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.ints.IntArrays;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import it.unimi.dsi.fastutil.longs.LongHeapPriorityQueue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A multilevel partitioner of the rows (the multilevel path of Duan, Wang and Wu, §5, in the usual hypergraph form:
 * rows are vertices, keys are nets): <em>coarsen</em> by clustering rows that share keys, <em>place</em> the coarsest
 * graph, then <em>uncoarsen</em>, refining at every level, and finally balance the rows to within one per part.
 *
 * <p>Objective: the connectivity Σ_v (λ_v − 1) (λ_v = parts whose rows use key v), which fixes T_sum = 2 Σ_v (λ_v − 1)
 * once every key is stored on a part that uses it; the max objectives are left to the swap rounds of
 * {@link URefinement} that follow it. Coarsening preserves the objective exactly: a coarse vertex's keys are the
 * union of its rows' keys, and a key whose rows all fall into one coarse vertex is dropped from the coarser levels
 * (it can never be cut there).
 *
 * <ul>
 *   <li><b>Coarsening</b>: vertices in random order each join the neighbouring cluster with the highest rating
 *       Σ 1/(|e| − 1) over the shared keys e (keys with more than {@link Settings#maxNetSize} rows are ignored for the
 *       rating: they connect everything and cost |e|² to scan), provided the cluster stays under the weight limit
 *       W / (contraction limit); levels stop at {@code coarsestPerPart · k} vertices or when a level shrinks by less
 *       than 1 %.</li>
 *   <li><b>Initial placement</b> of the coarsest level: greedy growing of one part after the other (the unplaced
 *       vertex with the most keys already in the growing part joins it) and greedy assignment in random order
 *       (each vertex to the part holding most of its keys), several seeds each, each refined; the best is kept. It
 *       runs, as does the refinement of every coarse level, where the nets of identical pins are merged into one net
 *       weighing as many ({@link #mergeIdenticalNets}): the same gains with fewer pins.</li>
 *   <li><b>Refinement</b> at every level: rounds of moves (label propagation) of single vertices to the part that
 *       lowers the connectivity most, within a weight cap of (1 + ε) W / k; a zero-gain move is taken only if it
 *       evens out the weights.</li>
 *   <li><b>Balance</b>: at the finest level rows move from parts above ⌈n/k⌉ (or above ⌊n/k⌋ while others are below
 *       it) to parts below, cheapest first, until every part has ⌊n/k⌋ or ⌈n/k⌉ rows.</li>
 * </ul>
 *
 * <p>One JVM, unweighted rows. Memory: the fine graph in both directions (8 bytes per non-zero) plus the coarser
 * levels (at most as much again) and 4·k bytes of part counts per key.
 */
public final class MultilevelPartitioner {

  /**
   * Tuning of one run. A fresh partition coarsens to {@code coarsestPerPart}·k vertices and places the coarsest
   * level by the best of {@code initialTries}; a V-cycle (which keeps the given parts at its coarsest level) stops
   * coarsening at {@code vcyclePerPart}·k.
   */
  public record Settings(int maxNetSize, int coarsestPerPart, int vcyclePerPart, double imbalance, int initialTries,
      int refineRounds, int fmPasses, long seed) {
    /** The defaults, chosen by measurement (docs/quality.md §7 and §9). */
    public static Settings defaults() {
      return new Settings(300, 10, 160, 0.03, 128, 8, 4, 1);
    }

    /** The same settings with another seed. */
    public Settings withSeed(long s) {
      return new Settings(maxNetSize, coarsestPerPart, vcyclePerPart, imbalance, initialTries, refineRounds, fmPasses,
          s);
    }

    /**
     * The same settings with a fresh partition coarsened to {@code perPart}·k vertices: fewer, heavier coarse vertices
     * (no vertex weighs more than 1.5 · n / (perPart · k) rows, so a whole community of a graph may contract).
     */
    public Settings withCoarsestPerPart(int perPart) {
      return new Settings(maxNetSize, perPart, vcyclePerPart, imbalance, initialTries, refineRounds, fmPasses, seed);
    }
  }

  /** One level: vertices with weights, their nets (keys), and the nets' pins. */
  private static final class Level {
    final int n;
    final int[] weight;
    final int[] vStart;
    final int[] vNets;
    final int numNets;
    final int[] nStart;
    final int[] nPins;
    /** For a coarser level: the coarse vertex of every vertex of the next finer level. */
    int[] fineToCoarse;
    /** Keys used only by the rows inside vertex v (dropped from this level's nets; they count in its working set). */
    final int[] internal;
    /**
     * Weight of every net, or null where every net weighs 1: a level whose nets of identical pins were merged into one
     * ({@link #mergeIdenticalNets}) counts a net as many times as it merged, in every gain, working set and
     * connectivity, so it has the unmerged level's figures with fewer nets to scan.
     */
    int[] netWeight;
    /** Σ of the weights of every vertex's nets (where there are net weights). */
    int[] netDegree;

    /** With the nets' pins given ({@code pins}: the transpose of vStart / vNets). */
    Level(int n, int[] weight, int[] vStart, int[] vNets, int numNets, int[] internal, RowKeyGraph.Transposed pins) {
      this.n = n;
      this.internal = internal;
      this.weight = weight;
      this.vStart = vStart;
      this.vNets = vNets;
      this.numNets = numNets;
      nStart = pins.start();
      nPins = pins.rows();
    }

    int netSize(int e) {
      return nStart[e + 1] - nStart[e];
    }

    /** Weight of net e (1 unless nets were merged). */
    int netWeight(int e) {
      return netWeight == null ? 1 : netWeight[e];
    }

    /** The nets of v counted by weight: its number of keys outside its internal ones. */
    int degree(int v) {
      return netDegree == null ? vStart[v + 1] - vStart[v] : netDegree[v];
    }

    long totalWeight() {
      long s = 0;
      for (int x : weight) {
        s += x;
      }
      return s;
    }
  }

  private final int k;
  private final Settings settings;
  /** Largest working set a move may leave in its target part (a capped V-cycle: the given partition's M_max). */
  private long mCap = Long.MAX_VALUE;
  /** {@link #holdCap(boolean)}. */
  private boolean holdCap;
  /** {@link #descend(boolean)}. */
  private boolean descend;
  /** Whether coarsening keeps to the rows' communities ({@link #communities(boolean)}). */
  private boolean communities;
  /** Whether a run of unit rows ends with FM at exact balance ({@link #exactFm(boolean)}). */
  private boolean exactFm;
  /** Whether a V-cycle's levels are capped one vertex above ⌈n/k⌉ ({@link #tightCaps(boolean)}). */
  private boolean tightCaps;
  /** The communities of the finest level of the run under way, or null. */
  private int[] fineCommunity;
  private final Consumer<String> log;
  private int threads = 1;
  /**
   * Keys of a level's vertices (pins) from which its coarse nets, part counts and gains are counted on {@link #threads}
   * threads: on news20's finest level (2.8·10^6 pins) they were about two fifths of a capped V-cycle's time on one
   * thread, while starting a thread costs about 0.1 ms.
   */
  private int parallelPins = PARALLEL_PINS;
  /** The clustering threads' arrays of a V-cycle ({@link PartScratch}), one per thread, made at the first level. */
  private PartScratch[] scratch;
  /** Where the coarse levels' arrays come from: its own unless {@link #setWorkspace} shares one. */
  private Workspace workspace = new Workspace();
  /**
   * Whether the initial placement and the coarse levels' refinement run with identical nets merged (off only in
   * tests: the result is the same).
   */
  private boolean mergeNets = true;
  /** The finest level's row weights (null: every row weighs 1) and the weight every part ends within. */
  private int[] rowWeights;
  private long weightFloor;
  private long weightCeil;
  /** Whether the run is a chunk V-cycle of weighted rows, its window ([weightFloor, weightCeil]) held at every level. */
  private boolean chunkWindow;
  /** Nets of the level the last initial placement ran on (after merging), for the log and tests. */
  private int initialNets;
  /** Whether the initial placement only grows where the coarsest level allows it ({@link #growOnly(boolean)}). */
  private boolean growOnly;
  private int initialPins;

  public MultilevelPartitioner(int k, Settings settings, Consumer<String> log) {
    if (k < 2) {
      throw new IllegalArgumentException("k must be >= 2, was " + k);
    }
    this.k = k;
    this.settings = settings;
    this.log = log;
  }

  /**
   * Threads (≥ 1) that coarsen a V-cycle's levels, one given part at a time each, and count a large level's coarse
   * nets, part counts and gains (default 1); every number of threads gives the same result. A fresh partition
   * coarsens on one thread.
   */
  public MultilevelPartitioner setThreads(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be >= 1, was " + threads);
    }
    this.threads = threads;
    return this;
  }

  /** Counts every level on the threads, however small (tests: the same result as on one thread). */
  MultilevelPartitioner countEveryLevelOnThreads() {
    parallelPins = 0;
    return this;
  }

  /**
   * Whether a fresh partition's initial placement makes all its tries by greedy growing (half as many) where the
   * coarsest level is small enough to grow, instead of alternating growings with greedy assignments. For refine-u's
   * multilevel start: there a greedy assignment never placed best (ego-twitter, cnr-2000, email-enron at k = 16: two
   * seeds each, 384 greedy tries), and they took 37–58 % of ego-twitter's 2.1–3.0 s of initial placement. Not where
   * the distributed start places clusters from a sample of their keys: there growing alone ended cnr-2000 with 8 MiB
   * reducers at T_sum 22,492 against 19,434 (docs/quality.md §46).
   */
  public MultilevelPartitioner growOnly(boolean growOnly) {
    this.growOnly = growOnly;
    return this;
  }

  /**
   * Coarsens within the rows' communities ({@link Communities}, found once per graph and shared), and within parts in
   * a V-cycle, until they are contracted, then across them (docs/quality.md §67); off by default.
   */
  public MultilevelPartitioner communities(boolean on) {
    communities = on;
    return this;
  }

  /**
   * In a V-cycle of unit rows, caps every level's parts at ⌈n/k⌉ plus the level's heaviest vertex instead of (1 + ε)
   * n/k, so that the exact balance at the finest level has few rows to move (docs/quality.md §68); off by default.
   */
  public MultilevelPartitioner tightCaps(boolean on) {
    tightCaps = on;
    return this;
  }

  /**
   * Ends a run of unit rows with FM passes at exact balance ({@link #exactFm(State, long, long, int)}) instead of
   * passes that only move rows into the n mod k parts with room (docs/quality.md §69); off by default.
   */
  public MultilevelPartitioner exactFm(boolean on) {
    exactFm = on;
    return this;
  }

  /**
   * Whether a capped V-cycle of unit rows ends with every working set within its cap: where the final exact balance had
   * to lift a part above it (every row the fullest part could shed added keys to a part at the cap), rows then move
   * or swap out of the parts above it ({@link #holdCap(State, long, long)}). For a room a user gave
   * ({@code refine-u --max-working-set}), which a cycle must hold exactly; without it the caller allows a slack.
   * Weighted rows are left as the balance ends them (their parts keep a window of weights, not of row counts).
   */
  public MultilevelPartitioner holdCap(boolean on) {
    this.holdCap = on;
    return this;
  }

  /**
   * Whether a V-cycle from a given placement whose largest working set is above the cap brings the parts within it
   * level by level on the way down, as far as moves of whole coarse vertices can ({@link #holdCap(State, long, long,
   * int)} at every level before its refinement), so that a cap below the given M_max lowers it.
   */
  public MultilevelPartitioner descend(boolean on) {
    this.descend = on;
    return this;
  }

  /**
   * Takes the coarse levels' nets, pins and counts and the coarsening's per-net scratch from {@code ws} instead of a
   * workspace of its own, so that the V-cycles of all partitioners of one thread reuse them; the same result either
   * way. The workspace must not serve another partitioner while this one runs.
   */
  public MultilevelPartitioner setWorkspace(Workspace ws) {
    this.workspace = java.util.Objects.requireNonNull(ws);
    return this;
  }

  /**
   * Weighted rows ({@code weights[g]} for row g of the graph, integers): the finest level's vertices weigh them, and the
   * final balance keeps every part's weight within [{@code floor}, {@code ceil}] instead of ⌊n/k⌋..⌈n/k⌉ rows, as far
   * as the weights allow (a row is not divisible: the caller checks the parts' weights). For the V-cycles of
   * {@code refine-u --weighted}.
   */
  public MultilevelPartitioner setRowWeights(int[] weights, long floor, long ceil) {
    if (floor > ceil) {
      throw new IllegalArgumentException("weight window [" + floor + ", " + ceil + "] is empty");
    }
    this.rowWeights = weights;
    this.weightFloor = floor;
    this.weightCeil = ceil;
    return this;
  }

  /** The rows of {@code blocks} placed into k parts of ⌊n/k⌋ or ⌈n/k⌉ rows: {@code parts[b][r]}. */
  public int[][] partition(List<Block> blocks) {
    return partition(blocks, null);
  }

  /**
   * A V-cycle from {@code given} ({@code given[b][r]}, or null for a fresh partition): rows are clustered only with
   * rows of the same given part, the coarsest level keeps the given parts, and every level is refined on the way
   * back, so the result starts from the given partition's connectivity and improves on it.
   */
  public int[][] partition(List<Block> blocks, int[][] given) {
    return partition(blocks, given, Double.NaN);
  }

  /**
   * A V-cycle from {@code given}; with a working-set slack s ≥ 0 (not NaN) no refinement move leaves a part with a
   * working set above (1 + s) times the given partition's largest one (the final row balancing may still move rows
   * across it), so the connectivity falls while M_max is held (s = 0) or kept from running away.
   */
  public int[][] partition(List<Block> blocks, int[][] given, double workingSetSlack) {
    return partition(blocks, RowKeyGraph.of(blocks), given, workingSetSlack);
  }

  /**
   * The same over {@code g}, the rows of {@code blocks} as {@link RowKeyGraph#of} gives them (read only, so one
   * graph may serve every run); {@code given} may be null for a fresh partition.
   */
  public int[][] partition(List<Block> blocks, RowKeyGraph g, int[][] given, double workingSetSlack) {
    return partition(blocks, g, given, workingSetSlack, -1);
  }

  /**
   * The same for a caller that knows {@code given}'s largest working set ({@code givenMaxWorkingSet}, or −1 to have
   * it counted here, a pass over every row's keys).
   */
  public int[][] partition(List<Block> blocks, RowKeyGraph g, int[][] given, double workingSetSlack,
      long givenMaxWorkingSet) {
    return counted(blocks, g, given, workingSetSlack, givenMaxWorkingSet).parts();
  }

  /**
   * The same, with the part counts of every key under the result (and their gain cache, where the refinement kept
   * one) for the swap rounds that follow ({@link URefinement#URefinement(int, List, RowKeyGraph, Counted, double,
   * boolean)}), so that they need not count them again.
   */
  public Counted counted(List<Block> blocks, RowKeyGraph g, int[][] given, double workingSetSlack,
      long givenMaxWorkingSet) {
    int[] flat = null;
    if (given != null) {
      flat = new int[g.numRows()];
      for (int b = 0; b < blocks.size(); b++) {
        System.arraycopy(given[b], 0, flat, g.blockStart()[b], given[b].length);
      }
    }
    State st = partition(g, flat, workingSetSlack, givenMaxWorkingSet);
    int[][] out = new int[blocks.size()][];
    for (int b = 0; b < blocks.size(); b++) {
      out[b] = Arrays.copyOfRange(st.part, g.blockStart()[b], g.blockStart()[b + 1]);
    }
    return new Counted(g, k, out, st.part, st.cnt, st.bits, st.cache);
  }

  /**
   * A placement of the rows of a {@link RowKeyGraph} ({@link #parts}) with the counts it was refined with: every
   * key's rows per part ({@code cnt[p·numKeys + key]}), their presence bits and the gain cache (null if dropped),
   * the layout of the swap rounds' own counts. A {@link URefinement} built from it takes them over (and changes
   * them), so it serves one refinement.
   */
  public static final class Counted {
    final RowKeyGraph graph;
    final int k;
    private final int[][] parts;
    final int[] part;
    final int[] cnt;
    final long[] bits;
    final GainCache cache;

    Counted(RowKeyGraph graph, int k, int[][] parts, int[] part, int[] cnt, long[] bits, GainCache cache) {
      this.graph = graph;
      this.k = k;
      this.parts = parts;
      this.part = part;
      this.cnt = cnt;
      this.bits = bits;
      this.cache = cache;
    }

    /** The part of every row: {@code parts()[b][r]} for row r of block b. */
    public int[][] parts() {
      return parts;
    }

    /** True for the first caller only: the counts serve one refinement (a second one counts its own). */
    synchronized boolean take() {
      boolean first = !taken;
      taken = true;
      return first;
    }

    private boolean taken;
  }

  /**
   * The rows of {@code g} clustered as a fresh partition's coarsening clusters them, level after level, until at most
   * {@code targetVertices} clusters remain or a level shrinks by less than 1 %; no cluster weighs more than
   * {@code maxWeight} rows. Returns the cluster of every row, numbered 0..c−1. The first stage of the distributed
   * multilevel start: every group of parts is clustered on its own, and the clusters of all groups are placed
   * together ({@link #partitionWeighted}).
   */
  public int[] clusters(RowKeyGraph g, int targetVertices, int maxWeight) {
    return clusters(fineLevel(g), targetVertices, maxWeight, communities ? communitiesOf(g, "clusters") : null);
  }

  /**
   * Weighted vertices (the clusters of {@link #clusters}, as {@link #partitionWeighted} takes them) clustered further
   * the same way: until at most {@code targetVertices} remain or a level shrinks by less than 1 %, none heavier than
   * {@code maxWeight}. Returns the cluster of every vertex, numbered 0..c−1: a further level of the distributed
   * multilevel start where its clusters would not fit the one task that places them.
   */
  public int[] clustersWeighted(int[] weight, int[] vStart, int[] vNets, int numNets, int[] internal,
      int targetVertices, int maxWeight) {
    return clusters(new Level(weight.length, weight, vStart, vNets, numNets, internal,
        RowKeyGraph.transpose(vStart, vNets, numNets)), targetVertices, maxWeight, null);
  }

  /**
   * The clusters of {@link #clusters(RowKeyGraph, int, int)}; where {@code community} is given (a community of every
   * vertex of {@code fine}), vertices join only clusters of their own community until a level no longer shrinks
   * within them, then across them, as a fresh partition's coarsening does.
   */
  private int[] clusters(Level fine, int targetVertices, int maxWeight, int[] community) {
    int[] clusterOf = new int[fine.n];
    for (int v = 0; v < clusterOf.length; v++) {
      clusterOf[v] = v;
    }
    // only the level being coarsened is held (a clustering task's heap is small): every kept level is composed at once
    coarsenLevels(fine, Math.max(1, targetVertices), Math.max(1, maxWeight), null, community, MIN_SHRINK,
        new SplittableRandom(settings.seed()), (next, index, communities, kept) -> {
          if (kept) {
            for (int v = 0; v < clusterOf.length; v++) {
              clusterOf[v] = next.fineToCoarse[clusterOf[v]];
            }
          }
        });
    return clusterOf;
  }

  /** What {@link #coarsenLevels} shows of every level it builds. */
  private interface LevelSink {
    /**
     * {@code next}, level number {@code index}, coarsened within {@code communities} groups of communities (0: across
     * them); {@code kept}: whether it shrank enough to be a level, else it is dropped.
     */
    void level(Level next, int index, int communities, boolean kept);
  }

  /**
   * The coarsening of a fresh partition, a V-cycle and the distributed start's clusters: from {@code fine} while
   * more than {@code limit} vertices remain, no vertex heavier than {@code maxWeight}, each cluster within one part
   * of {@code restrict} (if given) and, where {@code community} is given, within one community until a level
   * shrinks by less than {@code minShrink}, then across communities until one does again. Every level built goes to
   * {@code sink}, numbered from 1. Returns every vertex's part of {@code restrict} at the coarsest level (null where
   * none was given).
   */
  private int[] coarsenLevels(Level fine, int limit, int maxWeight, int[] restrict, int[] community,
      double minShrink, SplittableRandom rnd, LevelSink sink) {
    Level cur = fine;
    int index = 1;
    while (cur.n > limit) {
      int[] groups = restrict;
      int numGroups = k;
      if (community != null) {
        groups = new int[cur.n];
        numGroups = groupsOf(community, restrict, groups);
      }
      Level next = coarsen(cur, index, maxWeight, groups, numGroups, rnd);
      boolean kept = next.n <= (1 - minShrink) * cur.n;
      sink.level(next, index, community == null ? 0 : numGroups, kept);
      if (!kept) {
        if (community != null) {
          community = null; // the communities are contracted: on across them
          continue;
        }
        break;
      }
      index++;
      restrict = coarser(restrict, cur.n, next);
      community = coarser(community, cur.n, next);
      cur = next; // its nets live in workspace slots of its own level number
    }
    return restrict;
  }

  /**
   * A fresh partition of weighted vertices (the clusters of {@link #clusters}, each the union of its rows' keys):
   * vertex v weighs {@code weight[v]} and holds the nets {@code vNets[vStart[v] .. vStart[v+1])} (dense ids below
   * {@code numNets}), and {@code internal[v]} keys that no other vertex holds (they count in its part's working set).
   * Coarsened, placed and refined level by level as {@link #partition(List)} does, with every part's weight at
   * most ⌈(1 + ε/2L)·W/k⌉ (L levels) where the weights allow; no exact balance (the caller balances the rows).
   * Returns every vertex's part with every part's working set (its vertices' internal keys and the nets it holds),
   * as the refinement kept them.
   */
  public Weighted partitionWeighted(int[] weight, int[] vStart, int[] vNets, int numNets, int[] internal) {
    return partitionWeighted(weight, vStart, vNets, numNets, internal, 0);
  }

  /**
   * As {@link #partitionWeighted(int[], int[], int[], int, int[])}, and with {@code window} &gt; 0 every part's weight
   * then brought within ⌊(1 − window)·W/k⌋ .. ⌈(1 + window)·W/k⌉ (from below too, where the plain run only caps it from
   * above) and refined within those bounds, as far as the vertices' weights allow: for a caller that can only balance
   * the rows one by one afterwards, which costs far more than moving whole vertices here.
   */
  public Weighted partitionWeighted(int[] weight, int[] vStart, int[] vNets, int numNets, int[] internal,
      double window) {
    return partitionWeighted(weight, vStart, vNets, numNets, internal, null, window);
  }

  /**
   * As {@link #partitionWeighted(int[], int[], int[], int, int[], double)}, and with {@code given} (every vertex's
   * part) not a fresh placement but a capped V-cycle from it: coarsened within the given parts, the given placement
   * refined level by level with weights capped at (1 + ε)·W/k and no part's working set lifted above the given
   * placement's largest, then brought within the window.
   */
  public Weighted partitionWeighted(int[] weight, int[] vStart, int[] vNets, int numNets, int[] internal, int[] given,
      double window) {
    return partitionWeighted(weight, vStart, vNets, numNets, null, internal, given, window);
  }

  /**
   * As {@link #partitionWeighted(int[], int[], int[], int, int[], int[], double)} with every net weighing
   * {@code netWeight[e]} keys (null: one each): a net that stands for several keys with the same holders, or for a
   * sample of keys, counts that many in every working set, gain and connectivity, and in coarsening's ratings (and
   * in the communities the vertices are coarsened within, with {@link #communities(boolean)}).
   */
  public Weighted partitionWeighted(int[] weight, int[] vStart, int[] vNets, int numNets, int[] netWeight,
      int[] internal, int[] given, double window) {
    int n = weight.length;
    long t0 = System.nanoTime();
    Level fine = new Level(n, weight, vStart, vNets, numNets, internal, RowKeyGraph.transpose(vStart, vNets, numNets));
    if (netWeight != null) {
      if (netWeight.length < numNets) {
        throw new IllegalArgumentException("a weight for each of the " + numNets + " nets, got " + netWeight.length);
      }
      fine.netWeight = netWeight;
      fine.netDegree = weightedDegrees(n, vStart, vNets, netWeight);
    }
    if (given != null && given.length != n) {
      throw new IllegalArgumentException("a given part for each of the " + n + " vertices, got " + given.length);
    }
    if (given != null) {
      // as a capped V-cycle: no move may lift a part's working set above the given placement's largest
      mCap = Arrays.stream(new State(fine, given.clone()).m).max().orElse(0);
    }
    if (communities) {
      fineCommunity = communitiesOf("multilevel", "weighted vertices",
          () -> Communities.of(n, numNets, fine.nStart, fine.nPins, netWeight, settings.maxNetSize(), 1));
    }
    try {
      return placeWeighted(fine, given, window, t0);
    } finally {
      mCap = Long.MAX_VALUE;
      fineCommunity = null;
    }
  }

  private Weighted placeWeighted(Level fine, int[] given, double window, long t0) {
    State st = run(fine, given, t0, false);
    if (window > 0) {
      double mean = fine.totalWeight() / (double) k;
      long ceil = (long) Math.ceil((1 + window) * mean);
      long floor = (long) Math.floor((1 - window) * mean);
      long before = st.connectivity();
      balance(st, ceil, floor);
      refine(st, ceil, floor, settings.refineRounds(), new SplittableRandom(settings.seed() + 1));
      fm(st, ceil, floor, settings.fmPasses());
      log(String.format(Locale.ROOT, "multilevel: weights within %,d..%,d: connectivity %,d -> %,d, weights %,d..%,d"
          + " (%.2f s in all)", floor, ceil, before, st.connectivity(), Arrays.stream(st.weight).min().orElse(0),
          Arrays.stream(st.weight).max().orElse(0), secs(t0)));
    }
    return new Weighted(st.part, st.m.clone());
  }

  /** A placement of weighted vertices ({@link #partitionWeighted}): every vertex's part, every part's working set. */
  public record Weighted(int[] part, long[] workingSets) {}

  /**
   * A capped V-cycle of a chunk of the rows among all k parts while every other row stays where it is, the multilevel
   * counterpart of {@link URefinement#ofChunk} (same arguments): the rows of {@code g} in parts {@code given};
   * {@code fixedCounts[i·numKeys + v]} other rows of part i use key v; {@code workingSets[i]} is part i's whole
   * working set. The other rows enter as k fixed vertices, one per part, holding the keys their part's rows use among
   * the chunk's and, as internal keys, the part's keys the chunk does not see; each weighs so much (a part's weight
   * made 4·(most rows of the chunk in a part) + 4 with its chunk rows) that no cluster and no move can take it under
   * the V-cycle's weight cap. So the connectivity and every working set are the whole assignment's. No move lifts part
   * i's working set above {@code caps[i]} or its given one if larger (null: the largest given one; the fixed vertices'
   * internal keys are padded by the largest cap less part i's, so that the partitioner's one cap is every part's
   * own); at the end every part is brought back to exactly its given number of the chunk's rows. Returns the chunk's new parts with the whole
   * assignment's working sets, or null where the cycle did not end with a smaller Σ M_i, every part within its cap
   * (so M_max no larger than the given one, or than the largest cap where caps above it give room).
   */
  public Weighted chunkVCycle(RowKeyGraph g, int[] given, int[] fixedCounts, long[] workingSets, long[] caps) {
    return chunkVCycle(g, given, fixedCounts, workingSets, caps, null, null, null);
  }

  /**
   * {@link #chunkVCycle(RowKeyGraph, int[], int[], long[], long[])} for rows of whole-number weights {@code weights}:
   * the chunk's rows in part i must weigh between {@code low[i]} and {@code high[i]} (the given parts do) at every
   * level, instead of every part keeping its number of the chunk's rows. The partitioner has one weight window for
   * all parts, so each part gets the narrowest part's width, placed within its own bounds around its given weight
   * (the fixed vertex of part i weighs so much more than the chunk's rows could that its part's window is
   * [E − w, E] for every part). Returns null also where the given parts are outside the bounds.
   */
  public Weighted chunkVCycle(RowKeyGraph g, int[] given, int[] fixedCounts, long[] workingSets, long[] caps,
      int[] weights, long[] low, long[] high) {
    long t0 = System.nanoTime();
    int n = g.numRows();
    int nk = g.numKeys();
    if (given.length != n || fixedCounts.length != (long) k * nk || workingSets.length != k
        || (caps != null && caps.length != k)
        || (weights != null && (weights.length != n || low == null || high == null || low.length != k
            || high.length != k))) {
      throw new IllegalArgumentException("chunk V-cycle: " + n + " rows, " + nk + " keys and " + k + " parts, got "
          + given.length + " parts, " + fixedCounts.length + " fixed counts, " + workingSets.length + " working sets"
          + (weights == null ? "" : ", " + weights.length + " weights and bounds for " + (low == null ? 0 : low.length)
              + " and " + (high == null ? 0 : high.length) + " parts"));
    }
    long[] chunkWeight = new long[k];
    for (int i = 0; i < n; i++) {
      chunkWeight[given[i]] += weights == null ? 1 : weights[i];
    }
    // unit rows: every part keeps its rows of the chunk ([each, each]); weighted rows: a window of the narrowest
    // part's width w, part p's chunk weight within [end[p] − w, end[p]] ⊆ [low[p], high[p]], its given weight inside
    long width = 0;
    long[] end = chunkWeight.clone();
    if (weights != null) {
      width = Long.MAX_VALUE;
      for (int p = 0; p < k; p++) {
        if (chunkWeight[p] < low[p] || chunkWeight[p] > high[p]) {
          log("chunk V-cycle: part " + p + "'s rows of the chunk weigh " + chunkWeight[p] + ", outside " + low[p] + ".."
              + high[p] + "; the given parts are kept");
          return null;
        }
        width = Math.min(width, high[p] - low[p]);
      }
      for (int p = 0; p < k; p++) {
        end[p] = Math.max(low[p], Math.min(chunkWeight[p], high[p] - width)) + width;
      }
    }
    long most = Arrays.stream(end).max().orElse(0);
    int each = Math.toIntExact(Math.addExact(Math.multiplyExact(4, most), 4));
    int[] weight = new int[n + k];
    int[] vStart = new int[n + k + 1];
    int[] rs = g.rowStart();
    int[] rk = g.rowKeys();
    System.arraycopy(rs, 0, vStart, 0, n + 1);
    int anchorPins = 0;
    for (int c = 0; c < fixedCounts.length; c++) {
      if (fixedCounts[c] > 0) {
        anchorPins++;
      }
    }
    int[] vNets = Arrays.copyOf(rk, Math.addExact(rs[n], anchorPins));
    long maxBefore = Arrays.stream(workingSets).max().orElse(0);
    long sumBefore = Arrays.stream(workingSets).sum();
    long[] cap = new long[k];
    for (int p = 0; p < k; p++) {
      cap[p] = caps == null ? maxBefore : Math.max(caps[p], workingSets[p]);
    }
    long top = Arrays.stream(cap).max().orElse(0);
    int[] internal = new int[n + k];
    int[] parts = Arrays.copyOf(given, n + k);
    int w = rs[n];
    for (int p = 0; p < k; p++) {
      for (int v = 0; v < nk; v++) {
        if (fixedCounts[p * nk + v] > 0) {
          vNets[w++] = v;
        }
      }
      weight[n + p] = Math.toIntExact(each - end[p]);
      parts[n + p] = p;
      vStart[n + p + 1] = w;
    }
    if (weights == null) {
      Arrays.fill(weight, 0, n, 1);
    } else {
      System.arraycopy(weights, 0, weight, 0, n);
    }
    Level fine = new Level(n + k, weight, vStart, vNets, nk, internal, RowKeyGraph.transpose(vStart, vNets, nk));
    // the chunk's keys each part holds (through its chunk rows or its other rows), counted before the fixed vertices
    // get the part's other keys as internal ones
    long[] held = new State(fine, parts).m;
    for (int p = 0; p < k; p++) {
      if (workingSets[p] < held[p]) {
        throw new IllegalArgumentException("chunk V-cycle: part " + p + "'s working set " + workingSets[p]
            + " is below the " + held[p] + " keys of the chunk it holds");
      }
      internal[n + p] = Math.toIntExact(workingSets[p] - held[p] + top - cap[p]);
    }
    mCap = top;
    long savedCeil = weightCeil;
    long savedFloor = weightFloor;
    State st;
    try {
      if (weights != null) {
        // weighted rows: the window holds at every level (no final balance could restore it without moves that
        // undo the cycle's), so the given placement, inside it, is never left
        chunkWindow = true;
        weightCeil = each;
        weightFloor = each - width;
      }
      st = run(fine, parts, t0, false);
      if (weights == null) {
        balance(st, each, each);
      }
    } finally {
      mCap = Long.MAX_VALUE;
      chunkWindow = false;
      weightCeil = savedCeil;
      weightFloor = savedFloor;
    }
    for (int p = 0; p < k; p++) {
      if (st.part[n + p] != p || st.weight[p] > each || st.weight[p] < each - width) {
        // not reached (the fixed vertices cannot move, and unit rows can always be balanced): the given parts stay
        log("chunk V-cycle: part " + p + " lost its fixed rows or its balance; the given parts are kept");
        return null;
      }
    }
    long[] m = new long[k];
    boolean within = true;
    for (int p = 0; p < k; p++) {
      m[p] = st.m[p] - (top - cap[p]);
      within &= m[p] <= cap[p];
    }
    long maxAfter = Arrays.stream(m).max().orElse(0);
    long sumAfter = Arrays.stream(m).sum();
    log(String.format(Locale.ROOT, "chunk V-cycle: %,d rows, %,d keys: M_max %,d -> %,d, sum M %,d -> %,d (%.2f s)",
        n, nk, maxBefore, maxAfter, sumBefore, sumAfter, secs(t0)));
    // within its cap, every part is within the largest cap, which is at least the given M_max
    return sumAfter < sumBefore && within ? new Weighted(Arrays.copyOf(st.part, n), m) : null;
  }

  /**
   * Part of every row of {@code g}, rows balanced within one; a V-cycle from {@code given} if not null, with the
   * working sets capped as in {@link #partition(List, int[][], double)} when {@code workingSetSlack} ≥ 0.
   */
  private State partition(RowKeyGraph g, int[] given, double workingSetSlack, long givenMax) {
    long t0 = System.nanoTime();
    Level fine = fineLevel(g, rowWeights);
    if (workingSetSlack >= 0 && given != null) {
      long max = givenMax >= 0 ? givenMax : Arrays.stream(new State(fine, given.clone()).m).max().orElse(0);
      mCap = (long) Math.floor(max * (1 + workingSetSlack));
    }
    if (communities) {
      fineCommunity = communitiesOf(g, "multilevel");
    }
    try {
      return run(fine, given, t0, true);
    } finally {
      mCap = Long.MAX_VALUE;
      fineCommunity = null;
    }
  }

  /** The community of every row of {@code g}, logged under {@code what} with their count and time. */
  private int[] communitiesOf(RowKeyGraph g, String what) {
    return communitiesOf(what, "rows", () -> g.communities(settings.maxNetSize()));
  }

  /** The communities {@code find} returns (one per vertex), logged under {@code what} with their count and time. */
  private int[] communitiesOf(String what, String of, java.util.function.Supplier<int[]> find) {
    long tc = System.nanoTime();
    int[] community = find.get();
    log(String.format(Locale.ROOT, "%s: %,d communities of %s (%.2f s)", what,
        Arrays.stream(community).max().orElse(-1) + 1, of, secs(tc)));
    return community;
  }

  /**
   * The rows of {@code g} as the finest level: weight 1 each, every key a net, no internal keys yet; the nets' pins
   * are the graph's own {@link RowKeyGraph#byKey}, shared by every V-cycle and start.
   */
  private static Level fineLevel(RowKeyGraph g) {
    return fineLevel(g, null);
  }

  /** As {@link #fineLevel(RowKeyGraph)}, the rows weighing {@code weights} (null: 1 each). */
  private static Level fineLevel(RowKeyGraph g, int[] weights) {
    int[] w = weights;
    if (w == null) {
      w = new int[g.numRows()];
      Arrays.fill(w, 1);
    }
    return new Level(g.numRows(), w, g.rowStart(), g.rowKeys(), g.numKeys(), new int[g.numRows()], g.byKey());
  }

  /** Turns the merging of identical nets off or on (tests: the same result either way). */
  MultilevelPartitioner setMergeNets(boolean on) {
    mergeNets = on;
    return this;
  }

  /** Nets of the level the last initial placement ran on, after merging identical ones (tests). */
  int initialNets() {
    return initialNets;
  }

  /**
   * The best single move of row {@code row} of {@code g} under {@code part} and a weight cap (gain &lt;&lt; 32 |
   * target, or Long.MIN_VALUE for none): the gain rule of the refinement, exposed for tests.
   */
  long bestMove(RowKeyGraph g, int[] part, int row, long cap) {
    Level fine = fineLevel(g);
    return new State(fine, part.clone()).bestMove(row, cap, 0);
  }

  /**
   * FM passes at exact balance on rows, for tests: {@code part} (balanced within one) is refined in place, no move
   * lifting a working set above {@code workingSetCap}; returns every part's working set, then the connectivity.
   */
  long[] exactFm(RowKeyGraph g, int[] part, long workingSetCap, int passes) {
    long saved = mCap;
    mCap = workingSetCap;
    try {
      State st = new State(fineLevel(g), part, true);
      int n = g.numRows();
      if (passes > 0) {
        exactFm(st, (n + k - 1) / k, n / k, passes);
      }
      long[] out = Arrays.copyOf(st.m, k + 1);
      out[k] = st.connectivity();
      return out;
    } finally {
      mCap = saved;
    }
  }

  /**
   * Applies the moves {@code rows[i]} → {@code targets[i]} in order to {@code part} (a copy) through one refinement
   * state, with or without the gain cache (kept throughout), and returns every row's best move afterwards (gain
   * &lt;&lt; 32 | target, or Long.MIN_VALUE), with bit 62 of the word set where the row is a boundary row, then every
   * part's working set and the connectivity, for tests.
   */
  long[] bestMovesAfter(RowKeyGraph g, int[] part, int[] rows, int[] targets, long cap, boolean gainCache) {
    return bestMovesAfter(g, part, rows, targets, cap, gainCache, false);
  }

  /**
   * As above; with {@code merged}, on the rows' level with identical keys merged ({@link #mergeIdenticalNets}), and
   * the returned array ends with every part's working set and the connectivity after the moves.
   */
  long[] bestMovesAfter(RowKeyGraph g, int[] part, int[] rows, int[] targets, long cap, boolean gainCache,
      boolean merged) {
    Level fine = fineLevel(g);
    State st = new State(merged ? mergeIdenticalNets(fine) : fine, part.clone(), gainCache);
    st.keepCache = true;
    for (int i = 0; i < rows.length; i++) {
      st.move(rows[i], targets[i]);
    }
    long[] out = new long[g.numRows() + k + 1];
    for (int v = 0; v < g.numRows(); v++) {
      out[v] = st.bestMove(v, cap, 0) ^ (st.boundary(v) ? 1L << 62 : 0);
    }
    System.arraycopy(st.m, 0, out, g.numRows(), k);
    out[g.numRows() + k] = st.connectivity();
    return out;
  }

  /**
   * {@link #holdCap(State, long, long)} on {@code part} (a copy; every part ⌊n/k⌋ or ⌈n/k⌉ rows) under a working-set
   * cap {@code workingSetCap}, exposed for tests: the parts afterwards.
   */
  int[] heldWithinCap(RowKeyGraph g, int[] part, long workingSetCap) {
    long saved = mCap;
    mCap = workingSetCap;
    try {
      State st = new State(fineLevel(g), part.clone());
      int n = g.numRows();
      holdCap(st, (n + k - 1) / k, n / k);
      return st.part.clone();
    } finally {
      mCap = saved;
    }
  }

  /**
   * Whether row {@code row} has no move under a weight cap {@code cap} and a working-set cap {@code workingSetCap}
   * because of the working-set cap alone (what a capped V-cycle's FM uses to stop re-rating it), exposed for tests.
   */
  boolean heldBackByWorkingSetCap(RowKeyGraph g, int[] part, int row, long cap, long workingSetCap) {
    long saved = mCap;
    mCap = workingSetCap;
    try {
      State st = new State(fineLevel(g), part.clone());
      st.bestMove(row, cap, 0);
      return st.onlyCapped;
    } finally {
      mCap = saved;
    }
  }

  /**
   * The multilevel run from {@code fine}; returns the finest level's state (its part: every row's), balanced to within
   * one vertex per part if {@code exact} (unit weights), else as the finest level's weight cap allows.
   */
  private State run(Level fine, int[] given, long t0, boolean exact) {
    SplittableRandom rnd = new SplittableRandom(settings.seed());
    List<Level> levels = new ArrayList<>();
    levels.add(fine);
    long total = fine.totalWeight();
    int limit = Math.max(2 * k, (given == null ? settings.coarsestPerPart() : settings.vcyclePerPart()) * k);
    int maxWeight = (int) Math.max(1, Math.ceil(1.5 * total / limit));
    // rows cluster within their community (and, in a V-cycle, their part) until the communities are contracted
    int[] community = fineCommunity != null && fineCommunity.length == fine.n ? fineCommunity : null;
    int[] restrict = coarsenLevels(fine, limit, maxWeight, given, community,
        given == null ? MIN_SHRINK : VCYCLE_MIN_SHRINK, rnd, (next, index, communities, kept) -> {
          log(String.format(Locale.ROOT, "multilevel: level %d: %,d vertices, %,d nets, %,d pins, max weight %,d%s",
              index, next.n, next.numNets, next.vStart[next.n], maxWeight,
              communities == 0 ? "" : String.format(Locale.ROOT, " (within %,d communities)", communities)));
          if (kept) {
            levels.add(next);
          }
        });
    Level coarsest = levels.get(levels.size() - 1);
    log(String.format(Locale.ROOT, "multilevel: %d levels, %,d -> %,d vertices, nets %,d -> %,d (%.2f s)",
        levels.size(), fine.n, coarsest.n, fine.numNets, coarsest.numNets, secs(t0)));
    long t1 = System.nanoTime();
    long cap = capOf(total, settings.imbalance());
    // a capped V-cycle keeps every part at (1 − ε) n/k rows or more: rows that may not enter a full part would
    // otherwise leave others nearly empty, and the final balancing would refill them regardless of the cap
    long floorCap = mCap == Long.MAX_VALUE ? 0
        : (long) Math.floor((1 - settings.imbalance()) * Math.floor(total / (double) k));
    if ((rowWeights != null && mCap != Long.MAX_VALUE && exact) || chunkWindow) {
      // a capped V-cycle of weighted rows keeps every part in the caller's window at every level (the given placement
      // is in it): one that let parts wander by ε left the final balance moves that lifted M_max above the cap
      cap = weightCeil;
      floorCap = weightFloor;
    }
    int[] part = restrict != null ? restrict.clone() : initial(coarsest, cap, rnd);
    log(String.format(Locale.ROOT, "multilevel: %s connectivity %,d (%.2f s)", restrict != null
        ? "given placement" : String.format(Locale.ROOT, "initial placement (best of %d tries, %,d distinct nets, %,d pins)",
            initialTries(coarsest.n), initialNets, initialPins), connectivity(coarsest, part), secs(t1)));
    // one state per level, kept from the projection through its balancing, refinement and FM (at the finest level
    // on through the exact balance and its refinement): building a level's part counts and gain cache had been a
    // sixth of a V-cycle, and the finest level had been counted three times
    State st = null;
    for (int l = levels.size() - 1; l >= 1; l--) {
      Level coarse = levels.get(l);
      Level finer = levels.get(l - 1);
      int[] fp = new int[finer.n];
      for (int v = 0; v < finer.n; v++) {
        fp[v] = part[coarse.fineToCoarse[v]];
      }
      part = fp;
      // a coarse level's counts die with it (the level before is done with its own): workspace arrays where there
      // is a workspace; the finest level's go on to the swap rounds
      // a coarse level's refinement runs where its identical nets are merged (the same moves, fewer pins to scan);
      // the finest level's counts go on to the swap rounds as they are
      st = new State(l >= 2 && mergeNets ? mergeIdenticalNets(finer) : finer, part, true, l >= 2);
      long levelCap = cap;
      if (given != null && tightCaps && rowWeights == null) {
        // a V-cycle with tight caps: a part may hold at most one vertex of this level above ⌈n/k⌉, so the exact
        // balance at the end has a few rows to move instead of up to ε·n/k per part (docs/quality.md §68)
        int wmax = 0;
        for (int v = 0; v < finer.n; v++) {
          wmax = Math.max(wmax, finer.weight[v]);
        }
        levelCap = Math.min(cap, (total + k - 1) / k + wmax);
      }
      if (given == null) {
        // a fresh partition: the allowed imbalance shrinks level by level towards the finest one (ε·l/L, and ε/2L
        // there), so the final exact balancing has little left to undo (on cnr-2000 it had cost 25–35 % of the
        // connectivity at a fixed ε)
        double eps = settings.imbalance() * Math.max(0.5, l - 1) / (levels.size() - 1);
        levelCap = capOf(total, eps);
        balance(st, levelCap, floorCap);
      }
      if (given != null) {
        descendAt(st, l - 1, levelCap, floorCap);
      }
      refine(st, levelCap, floorCap, settings.refineRounds(), rnd);
      fm(st, levelCap, floorCap, settings.fmPasses());
    }
    if (levels.size() == 1) {
      st = new State(fine, part, true);
      if (given != null) {
        descendAt(st, 0, cap, floorCap);
      }
      refine(st, cap, floorCap, settings.refineRounds(), rnd);
    }
    if (!exact) {
      log(String.format(Locale.ROOT, "multilevel: connectivity %,d of weighted vertices, %.2f s in all",
          st.connectivity(), secs(t0)));
      return st;
    }
    long before = st.connectivity();
    // exact balance from here on: every part keeps ⌊n/k⌋..⌈n/k⌉ rows (weighted rows: the caller's window)
    long ceil = rowWeights == null ? (fine.n + k - 1) / k : weightCeil;
    long floor = rowWeights == null ? fine.n / k : weightFloor;
    if (rowWeights == null) {
      balance(st, ceil, floor);
    } else {
      balanceWeights(st, ceil, floor);
    }
    refine(st, ceil, floor, settings.refineRounds(), rnd);
    if (exactFm && rowWeights == null) {
      exactFm(st, ceil, floor, settings.fmPasses());
    } else {
      fm(st, ceil, floor, settings.fmPasses());
    }
    if (holdCap && mCap != Long.MAX_VALUE && rowWeights == null) {
      long over = Arrays.stream(st.m).max().orElse(0);
      if (over > mCap) {
        long t2 = System.nanoTime();
        int moves = holdCap(st, ceil, floor);
        log(String.format(Locale.ROOT, "multilevel: largest working set %,d after the exact balance, above the cap %,d:"
            + " %d row(s) moved to bring it to %,d (%.2f s)", over, mCap, moves,
            Arrays.stream(st.m).max().orElse(0), secs(t2)));
      }
    }
    long after = st.connectivity();
    log(String.format(Locale.ROOT, "multilevel: connectivity %,d before exact balance, %,d after (T_sum %,d), %.2f s"
        + " in all", before, after, 2 * after, secs(t0)));
    return st;
  }

  /**
   * With {@link #descend}, the parts of level {@code level}'s state above the working-set cap brought within it as far
   * as moves and swaps of its vertices can ({@link #holdCap(State, long, long, int)}, every part kept at {@code floor}
   * ..{@code cap} weight), before the level's refinement.
   */
  private void descendAt(State st, int level, long cap, long floor) {
    if (!descend || mCap == Long.MAX_VALUE || rowWeights != null) {
      return;
    }
    long over = Arrays.stream(st.m).max().orElse(0);
    if (over > mCap) {
      int moves = holdCap(st, cap, floor, st.h.n);
      log(String.format(Locale.ROOT, "multilevel: level %d: largest working set %,d above the cap %,d: %d vertices"
          + " moved, now %,d", level, over, mCap, moves, Arrays.stream(st.m).max().orElse(0)));
    }
  }

  /**
   * Numbers the groups of rows of the same community and, if {@code part} is not null, the same part (0, 1, … in
   * order of first appearance, part by part) into {@code out}; returns their count. Memory O(rows + communities).
   */
  private int groupsOf(int[] community, int[] part, int[] out) {
    int n = community.length;
    if (part == null) {
      System.arraycopy(community, 0, out, 0, n);
      return Communities.renumber(out);
    }
    int communities = 0;
    for (int c : community) {
      communities = Math.max(communities, c + 1);
    }
    int[] seenIn = new int[communities];
    Arrays.fill(seenIn, -1);
    int[] id = new int[communities];
    int count = 0;
    int[] partStart = new int[k + 1];
    int[] byPart = groupBy(n, part, partStart);
    for (int p = 0; p < k; p++) {
      for (int i = partStart[p]; i < partStart[p + 1]; i++) {
        int v = byPart[i];
        int c = community[v];
        if (seenIn[c] != p) {
          seenIn[c] = p;
          id[c] = count++;
        }
        out[v] = id[c];
      }
    }
    return count;
  }

  /** The group of every vertex of {@code next} (the coarser level of a level of n vertices), or null for null. */
  private static int[] coarser(int[] group, int n, Level next) {
    if (group == null) {
      return null;
    }
    int[] coarse = new int[next.n];
    for (int v = 0; v < n; v++) {
      coarse[next.fineToCoarse[v]] = group[v];
    }
    return coarse;
  }

  private long capOf(long total, double eps) {
    return (long) Math.ceil((1 + eps) * Math.ceil(total / (double) k));
  }

  /**
   * Clusters rows of one level for {@link #coarsen}: visits the rows of a group in a given order and joins each
   * unclustered row to the cluster its keys rate highest (the heavy-edge rating over keys of at most {@code maxNetSize}
   * rows of the level, weight 1/(pins − 1) per shared key) while the cluster stays under the weight limit. A group is
   * a whole level (a fresh partition) or one given part (a V-cycle, whose clusters never span two parts); a part's rows
   * and the pins of its keys are copied into a CSR of their own, numbered from 0, so the rating reads only arrays of
   * the part's size (the level-wide arrays and the searches for a part's pins within each key had been most of a
   * V-cycle's coarsening). One clusterer per thread; it writes the level's {@code cluster} only at its group's rows.
   */
  private final class Clusterer {
    private final Level h;
    private final int maxWeight;
    private final int[] restrict;
    /** The level's cluster of every row (a row of the cluster), written at the group's rows. */
    private final int[] clusterOut;
    /** Local number of every row of the level in its part's group (a V-cycle; shared, each thread its parts' rows). */
    private final int[] localId;
    /** Local key number of every key of the level, −1 where the current group has none (a V-cycle). */
    private int[] netLocal;
    // the group: rows 0..n−1 (global row rows[i]; null: the level itself), their keys (local numbers, global ones in
    // netGlobal; null: the level's own), and every local key's rows
    private int n;
    private int[] rows;
    private int[] rStart;
    private int[] rNets;
    private int[] netGlobal;
    private int[] nStart;
    private int[] nPins;
    // per row of the group: its cluster (−1: none yet), the row standing for its cluster, the cluster's weight
    private int[] cluster;
    private int[] root;
    private int[] cw;
    private double[] rating;
    private int[] touched;
    /**
     * The rating weight of every key of the group: w/(pins − 1) for a key of 2..maxNetSize rows of the level that
     * another row of the group also uses (w: its {@link Level#netWeight}), else 0 (not rated: too small, too large, or
     * no partner in the group).
     */
    private double[] netWeight;

    /** The part's CSR and its transpose, kept by the thread from one part (and level) to the next; null: none. */
    private final PartScratch scratch;

    Clusterer(Level h, int maxWeight, int[] restrict, int[] clusterOut, int[] localId, PartScratch scratch) {
      this.h = h;
      this.maxWeight = maxWeight;
      this.restrict = restrict;
      this.clusterOut = clusterOut;
      this.localId = localId;
      this.scratch = scratch;
    }

    /** The whole level as the group, rows visited in {@code order}. */
    void level(int[] order, SplittableRandom rnd) {
      n = h.n;
      rows = null;
      rStart = h.vStart;
      rNets = h.vNets;
      netGlobal = null;
      nStart = h.nStart;
      nPins = h.nPins;
      weighNets(h.numNets);
      visit(order, rnd);
    }

    /** The rows {@code partRows} (ascending) of one given part as the group, visited in a random order from rnd. */
    void part(int[] partRows, SplittableRandom rnd) {
      n = partRows.length;
      rows = partRows;
      if (netLocal == null) {
        netLocal = new int[h.numNets];
        Arrays.fill(netLocal, -1);
      }
      int nnz = 0;
      for (int i = 0; i < n; i++) {
        localId[rows[i]] = i;
        nnz += h.vStart[rows[i] + 1] - h.vStart[rows[i]];
      }
      PartScratch sc = scratch;
      // grown to the largest part so far; every entry read below is written first (rStart[0] stays 0)
      int[] rStart = sc.rStart = IntArrays.ensureCapacity(sc.rStart, n + 1);
      int[] rNets = sc.rNets = IntArrays.ensureCapacity(sc.rNets, nnz);
      int[] netGlobal = sc.netGlobal = IntArrays.ensureCapacity(sc.netGlobal, Math.min(nnz, h.numNets));
      this.rStart = rStart;
      this.rNets = rNets;
      this.netGlobal = netGlobal;
      int[] netLocal = this.netLocal; // fields in locals: C1 (small inputs) reloads a field at every use
      int[] hStart = h.vStart;
      int[] hNets = h.vNets;
      int nl = 0;
      int w = 0;
      for (int i = 0; i < n; i++) {
        for (int t = hStart[rows[i]], end = hStart[rows[i] + 1]; t < end; t++) {
          int e = hNets[t];
          int le = netLocal[e];
          if (le < 0) {
            le = nl++;
            netLocal[e] = le;
            netGlobal[le] = e;
          }
          rNets[w++] = le;
        }
        rStart[i + 1] = w;
      }
      for (int le = 0; le < nl; le++) {
        netLocal[netGlobal[le]] = -1;
      }
      // every local key's rows, ascending as in the level's pins: ratings add up in the same order
      RowKeyGraph.Transposed pins = RowKeyGraph.transposeInto(n, rStart, rNets, nl, sc.pinStart, sc.pins);
      nStart = sc.pinStart = pins.start();
      nPins = sc.pins = pins.rows();
      weighNets(nl);
      visit(permutation(n, rnd), rnd);
    }

    /** {@link #netWeight} of the group's {@code numNets} keys. */
    private void weighNets(int numNets) {
      if (netWeight == null || netWeight.length < numNets) {
        netWeight = new double[Math.max(numNets, rows == null ? numNets : Math.min(h.numNets, 2 * numNets))];
      }
      int maxNet = settings.maxNetSize();
      for (int le = 0; le < numNets; le++) {
        int size = h.netSize(netGlobal == null ? le : netGlobal[le]); // the key's rows in the whole level
        netWeight[le] = size < 2 || size > maxNet || nStart[le + 1] - nStart[le] < 2 ? 0
            : h.netWeight(netGlobal == null ? le : netGlobal[le]) / (double) (size - 1);
      }
    }

    private int global(int i) {
      return rows == null ? i : rows[i];
    }

    /**
     * Adds {@code s} to the rating of the cluster of group row {@code v} as a partner of group row {@code u},
     * recording the cluster in {@code touched} when first rated; returns the new count of touched clusters.
     */
    private int rate(int u, int v, double s, int nt) {
      if (v == u) {
        return nt;
      }
      int c = root[v];
      if (rating[c] == 0) {
        touched[nt++] = c;
      }
      rating[c] += s;
      return nt;
    }

    private void visit(int[] order, SplittableRandom rnd) {
      if (cluster == null || cluster.length < n) {
        int size = rows == null ? n : Math.max(n, (int) Math.min(h.n, 2L * n));
        cluster = new int[size];
        root = new int[size];
        cw = new int[size];
        rating = new double[size];
        touched = new int[size];
      }
      Arrays.fill(cluster, 0, n, -1);
      for (int i = 0; i < n; i++) {
        root[i] = i;
      }
      int maxNet = settings.maxNetSize();
      // the rating's arrays in locals: the hottest loop of a V-cycle, run by C1 on small inputs (docs/quality.md §20),
      // which reloads a field at every use and does not inline rate()
      int[] rStart = this.rStart;
      int[] rNets = this.rNets;
      int[] nStart = this.nStart;
      int[] nPins = this.nPins;
      int[] root = this.root;
      double[] rating = this.rating;
      int[] touched = this.touched;
      double[] netWeight = this.netWeight;
      int[] cluster = this.cluster;
      for (int u : order) {
        if (cluster[u] != -1) {
          continue;
        }
        int nt = 0;
        for (int t = rStart[u], tEnd = rStart[u + 1]; t < tEnd; t++) {
          int le = rNets[t];
          double s = netWeight[le];
          if (s == 0) {
            continue;
          }
          for (int q = nStart[le], qEnd = nStart[le + 1]; q < qEnd; q++) { // a step per pin, as rate() does
            int v = nPins[q];
            if (v != u) {
              int c = root[v];
              if (rating[c] == 0) {
                touched[nt++] = c;
              }
              rating[c] += s;
            }
          }
        }
        if (nt == 0) {
          // every key of u is used by more rows than are rated (a page linked only from hubs): rate a bounded window
          // of each such key's rows (those of u's group), so these rows still cluster with rows sharing their keys
          // instead of staying single and stalling the coarsening
          int gu = global(u);
          for (int t = rStart[u]; t < rStart[u + 1]; t++) {
            int e = netGlobal == null ? rNets[t] : netGlobal[rNets[t]];
            int sz = h.netSize(e);
            if (sz <= maxNet) {
              continue;
            }
            double s = h.netWeight(e) / (double) (sz - 1);
            int from = rnd.nextInt(sz);
            for (int i = 0; i < LARGE_NET_SCAN; i++) {
              int v = h.nPins[h.nStart[e] + (from + i) % sz];
              if (rows == null) {
                nt = rate(u, v, s, nt);
              } else if (v != gu && restrict[v] == restrict[gu]) {
                nt = rate(u, localId[v], s, nt);
              }
            }
          }
        }
        int best = -1;
        double bestScore = 0;
        int wu = h.weight[global(u)];
        for (int i = 0; i < nt; i++) {
          int c = touched[i];
          int wc = cluster[c] == -1 ? h.weight[global(c)] : cw[c];
          if (wu + wc <= maxWeight) {
            double score = rating[c];
            if (score > bestScore) {
              bestScore = score;
              best = c;
            }
          }
          rating[c] = 0;
        }
        if (best == -1) {
          cluster[u] = u;
          cw[u] = wu;
        } else {
          if (cluster[best] == -1) {
            cluster[best] = best;
            cw[best] = h.weight[global(best)];
          }
          cluster[u] = best;
          root[u] = best;
          cw[best] += wu;
        }
      }
      for (int i = 0; i < n; i++) {
        clusterOut[global(i)] = global(cluster[i]);
      }
    }
  }

  /**
   * A clustering thread's arrays for one given part at a time (its CSR, its keys' global numbers, the transpose), kept
   * across the parts and levels of a V-cycle: allocated fresh for every part, their zeroing and first touches of new
   * memory were the largest share of refine-u's page faults (docs/quality.md §24).
   */
  private static final class PartScratch {
    int[] rStart = IntArrays.EMPTY_ARRAY;
    int[] rNets = IntArrays.EMPTY_ARRAY;
    int[] netGlobal = IntArrays.EMPTY_ARRAY;
    int[] pinStart;
    int[] pins;
  }

  /**
   * One level of clustering. A fresh partition visits all rows in one random order; a V-cycle clusters every given
   * part on its own, in a random order drawn from a seed of its own (drawn from {@code rnd} in part order), on up to
   * {@link #setThreads} threads, so the result does not depend on the number of threads.
   */
  private Level coarsen(Level h, int index, int maxWeight, int[] restrict, SplittableRandom rnd) {
    return coarsen(h, index, maxWeight, restrict, k, rnd);
  }

  /** The same with {@code restrict} holding {@code groups} groups (0..groups−1) instead of k parts. */
  private Level coarsen(Level h, int index, int maxWeight, int[] restrict, int groups, SplittableRandom rnd) {
    int n = h.n;
    int[] cluster = new int[n];
    if (restrict == null) {
      new Clusterer(h, maxWeight, null, cluster, null, null).level(permutation(n, rnd), rnd);
    } else {
      int k = groups; // the parts of a V-cycle, or the groups of communities
      int[] partStart = new int[k + 1];
      int[] byPart = groupBy(h.n, restrict, partStart);
      int[] localId = new int[n];
      long[] seeds = new long[k];
      for (int p = 0; p < k; p++) {
        seeds[p] = rnd.nextLong();
      }
      AtomicInteger next = new AtomicInteger();
      int workers = Math.max(1, Math.min(threads, k));
      if (scratch == null || scratch.length < workers) {
        scratch = new PartScratch[workers];
        for (int c = 0; c < workers; c++) {
          scratch[c] = new PartScratch();
        }
      }
      Parallel.run(workers, "coarsen", c -> {
        Clusterer cl = new Clusterer(h, maxWeight, restrict, cluster, localId, scratch[c]);
        for (int p = next.getAndIncrement(); p < k; p = next.getAndIncrement()) {
          cl.part(Arrays.copyOfRange(byPart, partStart[p], partStart[p + 1]), new SplittableRandom(seeds[p]));
        }
      });
    }
    // number the clusters and gather members
    int[] id = new int[n];
    Arrays.fill(id, -1);
    int nc = 0;
    for (int v = 0; v < n; v++) {
      if (cluster[v] == v) {
        id[v] = nc++;
      }
    }
    int[] fineToCoarse = new int[n];
    int[] cWeight = new int[nc];
    for (int v = 0; v < n; v++) {
      int c = id[cluster[v]];
      fineToCoarse[v] = c;
      cWeight[c] += h.weight[v];
    }
    int[] memStart = new int[nc + 1];
    int[] members = groupBy(n, fineToCoarse, memStart);
    // nets that stay cut at the coarse level (two or more coarse pins), renumbered, and the coarse vertices' nets:
    // each on the threads where the level is large (the same level on any number of threads)
    int workers = h.vStart[n] < parallelPins ? 1 : threads;
    Workspace ws = workspace;
    int[] single = ws.ints("coarsen.single", h.numNets);
    int[] pins = coarsePins(h, nc, fineToCoarse, workers, single);
    int[] netId = ws.ints("coarsen.netId", h.numNets);
    int numNets = 0;
    int[] internal = new int[nc];
    for (int v = 0; v < n; v++) {
      internal[fineToCoarse[v]] += h.internal[v];
    }
    for (int e = 0; e < h.numNets; e++) {
      netId[e] = pins[e] >= 2 ? numNets++ : -1;
      if (pins[e] == 1) {
        internal[single[e]] += h.netWeight(e);
      }
    }
    int[] vStart = new int[nc + 1];
    int[] buf = coarseNets(h, index, nc, memStart, members, netId, workers, vStart);
    // the level keeps its (longer) buffer and its transpose lands in the workspace too: the level dies with its
    // V-cycle, before the next one of this thread asks for the same slots
    int[][] counts = new int[workers][];
    for (int c = 0; c < workers; c++) {
      counts[c] = ws.ints("coarsen.count." + c, numNets);
    }
    Level coarse = new Level(nc, cWeight, vStart, buf, numNets, internal, RowKeyGraph.transposeInto(nc, vStart, buf,
        numNets, ws.ints("level.pinStart." + index, numNets + 2), ws.ints("level.pins." + index, vStart[nc]), counts));
    coarse.fineToCoarse = fineToCoarse;
    if (h.netWeight != null) {
      // weighted nets (merged keys, or a caller's) keep their weights at every coarser level
      int[] netWeight = new int[numNets];
      for (int e = 0; e < h.numNets; e++) {
        if (netId[e] >= 0) {
          netWeight[netId[e]] = h.netWeight[e];
        }
      }
      coarse.netWeight = netWeight;
      coarse.netDegree = weightedDegrees(nc, vStart, buf, netWeight);
    }
    return coarse;
  }

  /**
   * Every net's pins at the coarse level of {@code nc} vertices ({@code fineToCoarse}), counted over its fine pins on
   * {@code workers} threads (a range of nets each; a coarse vertex counted once per net by a stamp of the thread's
   * own), with the one coarse pin of a net that has one in {@code single}.
   */
  private int[] coarsePins(Level h, int nc, int[] fineToCoarse, int workers, int[] single) {
    int[] pins = workspace.ints("coarsen.pins", h.numNets);
    int[][] stamps = new int[workers][];
    for (int c = 0; c < workers; c++) {
      stamps[c] = workspace.ints("coarsen.stamp." + c, nc);
      Arrays.fill(stamps[c], 0, nc, -1);
    }
    int[] netRanges = Parallel.ranges(h.nStart, h.numNets, workers);
    Parallel.run(workers, "contract", c -> {
      int[] stamp = stamps[c];
      int[] nStart = h.nStart; // in locals: C1 (small inputs) reloads a field at every use
      int[] nPins = h.nPins;
      for (int e = netRanges[c]; e < netRanges[c + 1]; e++) {
        int count = 0;
        int last = -1;
        for (int q = nStart[e], end = nStart[e + 1]; q < end; q++) {
          int cv = fineToCoarse[nPins[q]];
          if (stamp[cv] != e) {
            stamp[cv] = e;
            count++;
            last = cv;
          }
        }
        pins[e] = count;
        single[e] = last;
      }
    });
    return pins;
  }

  /**
   * The coarse vertices' nets ({@code netId} of their members' fine nets, −1: not a coarse net, each once), into the
   * level's buffer, with their bounds in {@code vStart}: on {@code workers} threads, each a range of coarse vertices
   * of about equal fine pins into a buffer of its own (the first thread's is the level's), joined in order.
   */
  private int[] coarseNets(Level h, int index, int nc, int[] memStart, int[] members, int[] netId, int workers,
      int[] vStart) {
    int[] hStart = h.vStart; // in locals: C1 (small inputs) reloads a field at every use
    int[] memPins = new int[nc + 1];
    for (int c = 0; c < nc; c++) {
      int sum = memPins[c];
      for (int q = memStart[c]; q < memStart[c + 1]; q++) {
        sum += hStart[members[q] + 1] - hStart[members[q]];
      }
      memPins[c + 1] = sum;
    }
    int[] ranges = Parallel.ranges(memPins, nc, workers);
    int[][] bufs = new int[workers][];
    bufs[0] = workspace.ints("level.nets." + index, hStart[h.n]);
    int[][] lastSeen = new int[workers][];
    for (int c = 0; c < workers; c++) {
      if (c > 0) {
        bufs[c] = workspace.ints("coarsen.buf." + c, memPins[ranges[c + 1]] - memPins[ranges[c]]);
      }
      lastSeen[c] = workspace.ints("coarsen.lastSeen." + c, h.numNets);
      Arrays.fill(lastSeen[c], 0, h.numNets, -1);
    }
    Parallel.run(workers, "contract", r -> {
      int[] seen = lastSeen[r];
      int[] out = bufs[r];
      int[] hNets = h.vNets;
      int w = 0;
      for (int c = ranges[r]; c < ranges[r + 1]; c++) {
        for (int q = memStart[c]; q < memStart[c + 1]; q++) {
          int v = members[q];
          for (int t = hStart[v], end = hStart[v + 1]; t < end; t++) {
            int e = hNets[t];
            if (netId[e] >= 0 && seen[e] != c) {
              seen[e] = c;
              out[w++] = netId[e];
            }
          }
        }
        vStart[c + 1] = w; // within the range's buffer; made global below
      }
    });
    int[] buf = bufs[0];
    int w = vStart[ranges[1]];
    for (int r = 1; r < workers; r++) {
      if (ranges[r] == ranges[r + 1]) {
        continue; // an empty range (its bound is the range before's end)
      }
      int len = vStart[ranges[r + 1]];
      System.arraycopy(bufs[r], 0, buf, w, len);
      for (int c = ranges[r]; c < ranges[r + 1]; c++) {
        vStart[c + 1] += w;
      }
      w += len;
    }
    return buf;
  }

  /**
   * The rows 0..n−1 grouped by {@code group[v]} in [0, start.length − 1), ascending within a group; {@code start}
   * (zeros on entry) receives the groups' bounds. Rows by given part, a coarse level's members, and the members of
   * every cluster of {@link #clusters}.
   */
  public static int[] groupBy(int n, int[] group, int[] start) {
    for (int v = 0; v < n; v++) {
      start[group[v] + 1]++;
    }
    for (int g = 0; g + 1 < start.length; g++) {
      start[g + 1] += start[g];
    }
    int[] rows = new int[n];
    int[] fill = Arrays.copyOf(start, start.length - 1);
    for (int v = 0; v < n; v++) {
      rows[fill[group[v]]++] = v;
    }
    return rows;
  }

  /**
   * Tries of the initial placement for k parts: {@code initialTries} up to k = 16, then fewer in proportion to k (at
   * least {@link #MIN_TRIES}). A try costs more with k (a coarsest level of 10·k vertices, a gain counted per 64 parts)
   * and varies less (its many parts average out): on ego-twitter at k = 256 the best of 8 tries ended as well as the
   * best of 128 (T_sum 552,516 / 558,134 against 557,198 for two seeds) in 7.6 s instead of 102 s; at k = 16 on
   * cnr-2000 8 tries had spread the initial connectivity 3× (docs/quality.md §9 and §15). With {@link #growOnly}, where
   * the coarsest level is small enough to grow, half as many tries are made (still at least {@link #MIN_TRIES}), all of
   * them growings (§46).
   */
  int initialTries() {
    return Math.max(MIN_TRIES, (int) ((long) settings.initialTries() * 16 / Math.max(16, k)));
  }

  /** Whether the initial placement grows the parts of a coarsest level of {@code n} vertices (in some tries or all). */
  private static boolean grows(int n) {
    return n <= GROW_LIMIT;
  }

  /** Tries of the initial placement of a coarsest level of {@code n} vertices ({@link #initialTries()}, §46). */
  private int initialTries(int n) {
    return grows(n) && growOnly ? Math.max(MIN_TRIES, (initialTries() + 1) / 2) : initialTries();
  }

  /** Initial placement of the coarsest level: the best of several greedy growings and greedy assignments. */
  private int[] initial(Level coarsest, long cap, SplittableRandom rnd) {
    Level h = mergeNets ? mergeIdenticalNets(coarsest) : coarsest;
    initialNets = h.numNets;
    initialPins = h.vStart[h.n];
    int[] best = null;
    long bestCut = Long.MAX_VALUE;
    // growing scans all vertices per pick (quadratic): only on a coarsest level of moderate size, where it alternates
    // with greedy assignments, or makes every try with growOnly (half as many tries)
    boolean growing = grows(h.n);
    int tries = initialTries(h.n);
    for (int t = 0; t < tries; t++) {
      int[] p = growing && (growOnly || t % 2 == 0) ? grow(h, rnd) : greedy(h, cap, rnd);
      // the gain cache kept even where its account says it costs more than counting: on a coarsest level of a few
      // hundred vertices of thousands of keys each, counting one vertex's keys outweighs the updates (ego-twitter: the
      // 128 tries of each multilevel start in 2.6–3.5 s instead of 3.8–4.3 s, the same placement)
      State st = new State(h, p, true, true);
      st.keepCache = true;
      refine(st, cap, 0, 2 * settings.refineRounds(), rnd);
      long cut = st.connectivity();
      if (cut < bestCut) {
        bestCut = cut;
        best = p;
      }
    }
    return best;
  }

  /**
   * {@code h} with every group of nets that have the same pins merged into one net weighing as many ({@link
   * Level#netWeight}; nets that already weigh more count their weights), or {@code h} itself where that would not
   * halve its pins. The vertices, their
   * weights and internal keys are the same, and every gain, working set and connectivity of an assignment is the
   * same on both, so a placement found on the merged level is the placement the level itself would have given, with
   * fewer pins to scan. A coarsest level holds many such nets: cnr-2000's 97,005 nets over 192 vertices are 2,101
   * distinct pin sets, and the initial placement's 128 tries had scanned every one of them.
   */
  static Level mergeIdenticalNets(Level h) {
    if (h.numNets < 2) {
      return h;
    }
    int m = h.numNets;
    int[] nStart = h.nStart;
    int[] nPins = h.nPins;
    int[] merged = new int[m];
    int[] first = new int[m];
    int[] weight = new int[m];
    Long2IntOpenHashMap byHash = new Long2IntOpenHashMap(m);
    byHash.defaultReturnValue(-1);
    int distinct = 0;
    for (int e = 0; e < m; e++) {
      long hash = nStart[e + 1] - nStart[e];
      for (int q = nStart[e]; q < nStart[e + 1]; q++) {
        hash = Mix64.mix(hash * 31 + nPins[q]);
      }
      int d = byHash.get(hash);
      if (d >= 0 && samePins(h, first[d], e)) {
        merged[e] = d;
        weight[d] += h.netWeight(e);
        continue;
      }
      // a new pin set (a different one under the same hash, vanishingly rare, simply stays a net of its own)
      merged[e] = distinct;
      first[distinct] = e;
      weight[distinct] = h.netWeight(e);
      if (d < 0) {
        byHash.put(hash, distinct);
      }
      distinct++;
    }
    long mergedPins = 0;
    for (int d = 0; d < distinct; d++) {
      mergedPins += h.netSize(first[d]);
    }
    if (mergedPins > 0.5 * h.vStart[h.n]) {
      return h;
    }
    // every vertex of a merged group lies on all of its nets: it keeps the group's net once
    int n = h.n;
    int[] vStart = new int[n + 1];
    int[] vNets = new int[h.vStart[n]];
    int[] degree = new int[n];
    int[] lastVertex = new int[distinct];
    Arrays.fill(lastVertex, -1);
    int w = 0;
    for (int v = 0; v < n; v++) {
      for (int t = h.vStart[v]; t < h.vStart[v + 1]; t++) {
        int d = merged[h.vNets[t]];
        if (lastVertex[d] != v) {
          lastVertex[d] = v;
          vNets[w++] = d;
          degree[v] += weight[d];
        }
      }
      vStart[v + 1] = w;
    }
    // the level keeps the longer buffers, as coarsen's levels do: nothing reads past vStart[n] or the distinct nets
    Level out = new Level(n, h.weight, vStart, vNets, distinct, h.internal, RowKeyGraph.transpose(vStart, vNets,
        distinct));
    out.netWeight = weight;
    out.netDegree = degree;
    return out;
  }

  /** Σ of the weights of every vertex's nets ({@link Level#netDegree}). */
  private static int[] weightedDegrees(int n, int[] vStart, int[] vNets, int[] netWeight) {
    int[] degree = new int[n];
    for (int v = 0; v < n; v++) {
      int d = 0;
      for (int t = vStart[v]; t < vStart[v + 1]; t++) {
        d += netWeight[vNets[t]];
      }
      degree[v] = d;
    }
    return degree;
  }

  private static boolean samePins(Level h, int e, int f) {
    int from = h.nStart[e];
    int size = h.nStart[e + 1] - from;
    if (h.nStart[f + 1] - h.nStart[f] != size) {
      return false;
    }
    return Arrays.equals(h.nPins, from, from + size, h.nPins, h.nStart[f], h.nStart[f] + size);
  }

  /** Grows part 0, then part 1, ...: the unplaced vertex with most keys already in the growing part joins it. */
  private int[] grow(Level h, SplittableRandom rnd) {
    int n = h.n;
    int[] part = new int[n];
    Arrays.fill(part, -1);
    int[] score = new int[n];
    boolean[] netIn = new boolean[h.numNets];
    long total = h.totalWeight();
    int placed = 0;
    for (int p = 0; p < k; p++) {
      long target = (total * (p + 1)) / k - (total * p) / k;
      long wsum = 0;
      Arrays.fill(score, 0);
      Arrays.fill(netIn, false);
      while (placed < n && (p == k - 1 || wsum < target)) {
        int v = -1;
        int bestScore = -1;
        for (int u = 0; u < n; u++) {
          if (part[u] == -1 && score[u] > bestScore) {
            bestScore = score[u];
            v = u;
          }
        }
        if (bestScore == 0) {
          // a fresh seed: a random unplaced vertex
          int skip = rnd.nextInt(n - placed);
          for (int u = 0; u < n; u++) {
            if (part[u] == -1 && skip-- == 0) {
              v = u;
              break;
            }
          }
        }
        if (p < k - 1 && wsum > 0 && wsum + h.weight[v] > target + h.weight[v] / 2) {
          break;
        }
        part[v] = p;
        placed++;
        wsum += h.weight[v];
        for (int t = h.vStart[v]; t < h.vStart[v + 1]; t++) {
          int e = h.vNets[t];
          if (!netIn[e]) {
            netIn[e] = true;
            int w = h.netWeight(e);
            for (int q = h.nStart[e]; q < h.nStart[e + 1]; q++) {
              score[h.nPins[q]] += w;
            }
          }
        }
      }
    }
    return part;
  }

  /**
   * Each vertex, in random order, to the part that already holds most of its keys and has room (or the lightest).
   * Only whether a part holds a net matters here, so the parts are counted from presence bits, 64 at a time.
   */
  private int[] greedy(Level h, long cap, SplittableRandom rnd) {
    int n = h.n;
    int[] part = new int[n];
    int wpk = (k + 63) >>> 6;
    long[] present = new long[Math.multiplyExact(h.numNets, wpk)];
    long[] weight = new long[k];
    int[] hits = new int[k];
    PartHits counter = new PartHits(k);
    for (int v : permutation(n, rnd)) {
      counter.count(h.vNets, h.vStart[v], h.vStart[v + 1], present, null, -1, hits, h.netWeight);
      int best = -1;
      for (int p = 0; p < k; p++) {
        if (weight[p] + h.weight[v] <= cap
            && (best < 0 || hits[p] > hits[best] || (hits[p] == hits[best] && weight[p] < weight[best]))) {
          best = p;
        }
      }
      if (best < 0) {
        best = 0;
        for (int p = 1; p < k; p++) {
          if (weight[p] < weight[best]) {
            best = p;
          }
        }
      }
      part[v] = best;
      weight[best] += h.weight[v];
      for (int t = h.vStart[v]; t < h.vStart[v + 1]; t++) {
        present[h.vNets[t] * wpk + (best >>> 6)] |= 1L << best;
      }
    }
    return part;
  }

  /** Part counts of every net, their presence bits and the parts' weights, for one level and one assignment. */
  private final class State {
    final Level h;
    final int[] part;
    final int[] cnt;
    /** Bit p of word bits[e·wpk + p/64] set iff cnt[p·numNets + e] > 0, so a gain costs O(λ_e) per net, not O(k). */
    final long[] bits;
    final int wpk;
    final long[] weight = new long[k];
    /** Working set of every part: its vertices' internal keys plus the nets it holds (= the rows' M_i exactly). */
    final long[] m = new long[k];
    final int[] hits = new int[k];
    final PartHits counter = new PartHits(k);
    /** The gain cache, or null: then every {@link #bestMove} counts the vertex's keys. */
    private GainCache cache;
    /** Keep the cache even where it does not pay off (tests). */
    boolean keepCache;
    /** Targets of the last {@link #bestMove} that the working-set cap alone turned away. */
    private int capped;
    /**
     * Whether the last {@link #bestMove} found no move because every part holding one of the vertex's keys would
     * have crossed the working-set cap (a capped V-cycle): only a fall in those parts' working sets frees it.
     */
    boolean onlyCapped;

    State(Level h, int[] part) {
      this(h, part, false);
    }

    /** With {@code gainCache}, and where n·k {@link GainCache#fits}, the gains are cached. */
    State(Level h, int[] part, boolean gainCache) {
      this(h, part, gainCache, false);
    }

    /**
     * As {@link #State(Level, int[], boolean)}; with {@code scratch}, the counts and presence bits are the
     * partitioner's workspace arrays, valid until the next scratch state: for a state that dies before the next one
     * is made (a coarse level's, an initial placement try's).
     */
    State(Level h, int[] part, boolean gainCache, boolean scratch) {
      this.h = h;
      this.part = part;
      wpk = (k + 63) >>> 6;
      int numNets = h.numNets;
      int wpk = this.wpk;
      int cells = Math.multiplyExact(numNets, k);
      int words = Math.multiplyExact(numNets, wpk);
      int[] cnt;
      long[] bits;
      if (scratch) {
        cnt = workspace.ints("state.counts", cells);
        Arrays.fill(cnt, 0, cells, 0);
        bits = workspace.longs("state.bits", words);
        Arrays.fill(bits, 0, words, 0L);
      } else {
        cnt = new int[cells];
        bits = new long[words];
      }
      this.cnt = cnt;
      this.bits = bits;
      int[] vStart = h.vStart;
      int[] vNets = h.vNets;
      int[] netWeight = h.netWeight;
      int threads = h.vStart[h.n] < parallelPins ? 1 : MultilevelPartitioner.this.threads;
      if (threads > 1) {
        countOnThreads(threads);
      } else {
        for (int v = 0; v < h.n; v++) {
          int p = part[v];
          weight[p] += h.weight[v];
          int base = p * numNets;
          int word = p >>> 6;
          long bit = 1L << p;
          int held = 0;
          for (int t = vStart[v], end = vStart[v + 1]; t < end; t++) {
            int e = vNets[t];
            if (cnt[base + e]++ == 0) {
              bits[e * wpk + word] |= bit;
              held += netWeight == null ? 1 : netWeight[e];
            }
          }
          m[p] += h.internal[v] + held;
        }
      }
      cache = gainCache && GainCache.fits(h.n, k) ? new GainCache(k, h.vStart, h.vNets, h.numNets, h.nStart, h.nPins,
          part, bits, cnt, netWeight, threads) : null;
    }

    /**
     * The constructor's counts on {@code threads} threads, the same as its own loop's: the part counts one part at a
     * time per thread (a part's counts are its own slice), then the presence bits and the held keys one range of keys
     * per thread (a key's bits are its own words).
     */
    private void countOnThreads(int threads) {
      int numNets = h.numNets;
      int[] partStart = new int[k + 1];
      int[] byPart = groupBy(h.n, part, partStart);
      AtomicInteger next = new AtomicInteger();
      Parallel.run(threads, "count", c -> {
        int[] vStart = h.vStart; // in locals: C1 (small inputs) reloads a field at every use
        int[] vNets = h.vNets;
        int[] cnt = this.cnt;
        for (int p = next.getAndIncrement(); p < k; p = next.getAndIncrement()) {
          int base = p * numNets;
          long w = 0;
          long internal = 0;
          for (int i = partStart[p]; i < partStart[p + 1]; i++) {
            int v = byPart[i];
            w += h.weight[v];
            internal += h.internal[v];
            for (int t = vStart[v], end = vStart[v + 1]; t < end; t++) {
              cnt[base + vNets[t]]++;
            }
          }
          weight[p] += w;
          m[p] += internal;
        }
      });
      int[] keyStart = new int[threads + 1];
      for (int c = 0; c <= threads; c++) {
        keyStart[c] = (int) ((long) numNets * c / threads);
      }
      long[][] held = new long[threads][k];
      Parallel.run(threads, "count", c -> {
        int[] cnt = this.cnt;
        long[] bits = this.bits;
        int[] netWeight = h.netWeight;
        long[] mine = held[c];
        for (int e = keyStart[c]; e < keyStart[c + 1]; e++) {
          for (int p = 0; p < k; p++) {
            if (cnt[p * numNets + e] != 0) {
              bits[e * wpk + (p >>> 6)] |= 1L << p;
              mine[p] += netWeight == null ? 1 : netWeight[e];
            }
          }
        }
      });
      for (long[] mine : held) {
        for (int p = 0; p < k; p++) {
          m[p] += mine[p];
        }
      }
    }

    void move(int v, int b) {
      int a = part[v];
      part[v] = b;
      weight[a] -= h.weight[v];
      weight[b] += h.weight[v];
      m[a] -= h.internal[v];
      m[b] += h.internal[v];
      int alone = 0;
      // fields in locals for C1, which reloads a field at every use
      int[] vNets = h.vNets;
      int[] cnt = this.cnt;
      long[] bits = this.bits;
      int wpk = this.wpk;
      GainCache cache = this.cache;
      int[] netWeight = h.netWeight;
      int aBase = a * h.numNets;
      int bBase = b * h.numNets;
      int aWord = a >>> 6;
      int bWord = b >>> 6;
      long aBit = 1L << a;
      long bBit = 1L << b;
      int mA = 0;
      int mB = 0;
      for (int t = h.vStart[v], end = h.vStart[v + 1]; t < end; t++) {
        int e = vNets[t];
        int leftInA = --cnt[aBase + e];
        int wasInB = cnt[bBase + e]++;
        if (leftInA == 0) {
          bits[e * wpk + aWord] &= ~aBit;
          mA += netWeight == null ? 1 : netWeight[e];
        }
        if (wasInB == 0) {
          bits[e * wpk + bWord] |= bBit;
          mB += netWeight == null ? 1 : netWeight[e];
        }
        if (cache != null && GainCache.updates(leftInA, wasInB)) {
          alone += cache.keyMoved(v, e, a, b, leftInA, wasInB);
        }
      }
      m[a] -= mA;
      m[b] += mB;
      if (cache != null) {
        cache.moved(v, alone);
        if (!keepCache && !cache.paysOff()) {
          this.cache = null; // the counts are kept without it; every later rating counts again
        }
      }
    }

    /**
     * Fills {@link #hits} with the keys of v that every part holds and returns the keys of v that no other vertex of
     * its part uses, from the gain cache where there is one.
     */
    int count(int v) {
      if (cache != null) {
        cache.saved(h.vStart[v + 1] - h.vStart[v]);
        for (int p = 0; p < k; p++) {
          hits[p] = cache.hits(v, p);
        }
        return cache.sole(v);
      }
      return countKeys(v, part[v]);
    }

    /** The keys of v that no other vertex of its part holds. */
    int sole(int v) {
      return cache != null ? cache.sole(v) : countKeys(v, part[v]);
    }

    /** {@link PartHits#count} of v's nets (by weight) as if v were in part {@code own}, into hits. */
    private int countKeys(int v, int own) {
      return counter.count(h.vNets, h.vStart[v], h.vStart[v + 1], bits, cnt, own * h.numNets, hits, h.netWeight);
    }

    /** Σ over nets of (parts holding the net − 1): the level's connectivity under the current assignment. */
    long connectivity() {
      long c = 0;
      for (int e = 0; e < h.numNets; e++) {
        int lambda = 0;
        for (int w = 0; w < wpk; w++) {
          lambda += Long.bitCount(bits[e * wpk + w]);
        }
        c += (long) h.netWeight(e) * Math.max(0, lambda - 1);
      }
      return c;
    }

    /** Whether some key of v is also used by another part. */
    boolean boundary(int v) {
      int a = part[v];
      if (cache != null) {
        cache.saved(h.vStart[v + 1] - h.vStart[v]);
        for (int p = 0; p < k; p++) {
          if (p != a && cache.hits(v, p) > 0) {
            return true;
          }
        }
        return false;
      }
      for (int t = h.vStart[v]; t < h.vStart[v + 1]; t++) {
        int pw = h.vNets[t] * wpk;
        for (int w = 0; w < wpk; w++) {
          long x = bits[pw + w];
          if (w == (a >>> 6)) {
            x &= ~(1L << a);
          }
          if (x != 0) {
            return true;
          }
        }
      }
      return false;
    }

    /**
     * The best move of v to a part that holds one of its keys and has room under {@code cap} (gain &lt;&lt; 32 |
     * target; the lighter part on a tie), or {@link #NO_MOVE}.
     */
    long bestMove(int v, long cap, long lower) {
      return bestMove(v, cap, lower, false);
    }

    /** {@link #bestMove(int, long, long)}, with {@code anyPart} to every part with room, holding v's keys or not. */
    long bestMove(int v, long cap, long lower, boolean anyPart) {
      int a = part[v];
      if (weight[a] - h.weight[v] < lower) {
        return NO_MOVE;
      }
      int deg = h.degree(v);
      int lose;
      if (cache != null) {
        cache.saved(h.vStart[v + 1] - h.vStart[v]);
        lose = cache.sole(v);
      } else {
        lose = countKeys(v, a);
      }
      long best = NO_MOVE;
      int targets = 0;
      capped = 0;
      for (int b = 0; b < k; b++) {
        int hb = cache != null ? cache.hits(v, b) : hits[b];
        if ((hb > 0 || anyPart) && b != a) {
          targets++;
          best = better(best, v, b, hb, lose, deg, cap);
        }
      }
      onlyCapped = best == NO_MOVE && targets > 0 && capped == targets;
      return best;
    }

    /**
     * The move of v to part t (gain &lt;&lt; 32 | t), t holding v's keys or not, if t has room under {@code cap} and
     * the working-set cap and v's part keeps {@code lower} or more; else {@link #NO_MOVE}.
     */
    long moveTo(int v, int t, long cap, long lower) {
      int a = part[v];
      if (t == a || weight[a] - h.weight[v] < lower) {
        return NO_MOVE;
      }
      int lose = count(v);
      return better(NO_MOVE, v, t, hits[t], lose, h.degree(v), cap);
    }

    /**
     * The move of v that restores exact balance ({@link #fm(State, long, long, int, long)}): out of part {@code over}
     * (if ≥ 0) into any part below {@code ceil}, else into part {@code under} from a part above {@code floor}.
     */
    long restoring(int v, int over, int under, long ceil, long floor) {
      return over >= 0 ? bestMove(v, ceil, floor - 1, true) : moveTo(v, under, ceil, floor);
    }

    /**
     * {@code best} or the move of v to b (not v's own part), whichever gains more (the lighter target on a tie), b
     * holding {@code hb} of v's {@code deg} keys; b only if it has room under {@code cap} and the working-set cap.
     */
    private long better(long best, int v, int b, int hb, int lose, int deg, long cap) {
      if (m[b] + h.internal[v] + deg - hb > mCap) {
        capped++;
        return best;
      }
      if (weight[b] + h.weight[v] > cap) {
        return best;
      }
      int gain = lose - (deg - hb);
      if (best == NO_MOVE || gain > gainOf(best) || (gain == gainOf(best) && weight[b] < weight[targetOf(best)])) {
        return ((long) gain << 32) | b;
      }
      return best;
    }
  }

  /**
   * Rounds of single-vertex moves (label propagation) that lower the connectivity, each part's weight kept at most
   * {@code cap}; a zero-gain move only if it evens out the weights.
   */
  private void refine(State st, long cap, long lower, int rounds, SplittableRandom rnd) {
    Level h = st.h;
    int[] part = st.part;
    for (int round = 0; round < rounds; round++) {
      int moves = 0;
      for (int v : permutation(h.n, rnd)) {
        long mv = st.bestMove(v, cap, lower);
        if (mv == NO_MOVE) {
          continue;
        }
        int gain = gainOf(mv);
        int b = targetOf(mv);
        if (gain > 0 || (gain == 0 && st.weight[b] + h.weight[v] < st.weight[part[v]])) {
          st.move(v, b);
          moves++;
        }
      }
      if (moves <= h.n / 1000) { // under 0.1 % of the vertices moved: converged
        break;
      }
    }
  }

  /**
   * k-way Fiduccia–Mattheyses passes: the vertex with the best move (possibly a loss) moves and is locked; after
   * {@code stall} moves without a new best the pass rolls back to its best prefix. Weights stay at most {@code cap}.
   * The queue holds an upper bound of every vertex's best gain: a move can raise a neighbour's gain only through a
   * small key whose last row left a part (+1 for the rows of that key still there) or that reached a new part (+1),
   * so the bound is raised by that much without recomputing the gain, and a gain is computed only when its vertex
   * comes to the top (it moves if no other bound beats its true gain, else it is queued again with it). Computing
   * the gains of every neighbour at once had taken half of refine-u's time on news20.
   */
  private void fm(State st, long cap, long lower, int passes) {
    fm(st, cap, lower, passes, Long.MAX_VALUE);
  }

  /**
   * FM passes at exact balance on unit rows, every part at {@code floor}..{@code ceil} rows (⌊n/k⌋..⌈n/k⌉) before and
   * after: where every part but n mod k is full, single moves under the caps are nearly all refused, so a move here may
   * lift a part one row above {@code ceil} or leave one a row below {@code floor}, and the moves after it must restore
   * the balance; a pass keeps its best balanced prefix (docs/quality.md §69).
   */
  private void exactFm(State st, long ceil, long floor, int passes) {
    fm(st, ceil + 1, floor - 1, passes, ceil);
  }

  /**
   * {@link #fm(State, long, long, int)}, or with {@code strictCeil} below {@code Long.MAX_VALUE} at exact balance
   * ({@link #exactFm}: {@code cap} = strictCeil + 1, {@code lower} = the floor − 1). Then the rows are queued by part;
   * after a move that left one part above strictCeil, the next move takes a row out of it into a part below
   * strictCeil, and after one that left a part below the floor, the next brings a row into it from a part above the
   * floor: the best such move by its gain among the queue's best-rated rows of the source parts and the rows that add
   * the fewest keys wherever they go (they may move where no part holds their keys). Where no such move exists, the
   * moves since the last balanced prefix are undone (their rows stay locked for the pass) and the pass goes on. So a
   * pass makes chains of moves that keep the balance at their end: a swap, a rotation through three parts, a loss
   * repaid by the next move.
   */
  private void fm(State st, long cap, long lower, int passes, long strictCeil) {
    boolean exact = strictCeil != Long.MAX_VALUE;
    Level h = st.h;
    int[] part = st.part;
    int n = h.n;
    boolean[] locked = new boolean[n];
    int[] movedV = new int[n];
    int[] movedFrom = new int[n];
    int stall = Math.max(100, Math.min(1000, n / 50));
    int[] seen = new int[n];
    int[] bump = new int[n];
    int[] touched = new int[n];
    // the bound queued for each vertex (its newest queue entry), NO_BOUND if none: older entries are skipped
    int[] bound = new int[n];
    // the pass in which a vertex of more than EAGER_DEGREE keys was last found held back by the working-set cap alone:
    // it is not re-rated after its neighbours' moves in that pass (at 10^7 non-zeros, re-rating rows of many keys
    // that no capped move could take, at the cost of all their keys, had made one capped V-cycle 5× slower than an
    // uncapped one)
    int[] cappedIn = new int[n];
    Arrays.fill(cappedIn, -1);
    int stamp = 0;
    // one queue for all passes, sized for every vertex once (it had grown by doubling from empty in every pass)
    // exact: one queue per part, its rows' bounds (a row is queued in its own part, and moves once per pass)
    LongHeapPriorityQueue[] heaps = new LongHeapPriorityQueue[exact ? k : 1];
    for (int q = 0; q < heaps.length; q++) {
      heaps[q] = new LongHeapPriorityQueue(exact ? Math.max(16, n / k) : n);
    }
    IntArrayList deferred = new IntArrayList();
    // exact: every part's rows that add the fewest keys wherever they go, cheapest first (moves that restore the
    // balance may take them where no part holds their keys), and the rows undone in a pass, locked until its end
    int[] cheapRows = exact ? new int[n] : null;
    int[] cheapStart = exact ? new int[k + 1] : null;
    int[] cheapNext = exact ? new int[k] : null;
    int[] movedGain = exact ? new int[n] : null;
    IntArrayList undone = new IntArrayList();
    long floor = lower + 1; // exact: the parts' floor (a move may leave one part a vertex below it)
    for (int pass = 0; pass < passes; pass++) {
      for (LongHeapPriorityQueue q : heaps) {
        q.clear();
      }
      Arrays.fill(bound, NO_BOUND);
      for (int v = 0; v < n; v++) {
        if (st.boundary(v)) {
          // exact: bounds of moves into any part by weight (parts above the cap now may have room later in the pass)
          long g = st.bestMove(v, exact ? Long.MAX_VALUE : cap, lower);
          if (g != NO_MOVE) {
            bound[v] = gainOf(g);
            heaps[exact ? part[v] : 0].enqueue(key(bound[v], v));
          } else if (st.onlyCapped) {
            cappedIn[v] = pass;
          }
        }
      }
      if (exact) {
        cheapest(st, cheapRows, cheapStart);
      }
      int moves = 0;
      int bestPrefix = 0;
      long run = 0;
      long best = 0;
      int lastBalanced = 0; // exact: the latest prefix with every part in balance
      int over = -1; // exact: the part above strictCeil, if any
      int under = -1; // exact: the part below floor, if any
      if (exact) {
        System.arraycopy(cheapStart, 0, cheapNext, 0, k);
      }
      while (moves - bestPrefix < stall) {
        int v;
        long g;
        if (over >= 0 || under >= 0) {
          // the next move must take a row out of the part above strictCeil into one below it, or else into the part
          // below the floor from one above it: the best such move by its gain, found by the queues' bounds
          g = NO_MOVE;
          v = -1;
          deferred.clear();
          while (true) {
            LongHeapPriorityQueue heap = null;
            for (int q = 0; q < k; q++) {
              boolean source = over >= 0 ? q == over : q != under && st.weight[q] > floor;
              if (source && !heaps[q].isEmpty() && (heap == null || heaps[q].firstLong() < heap.firstLong())) {
                heap = heaps[q];
              }
            }
            if (heap == null || (v >= 0 && gainFromKey(heap.firstLong()) <= gainOf(g))
                || deferred.size() >= FORCED_TRIES) {
              break;
            }
            long top = heap.dequeueLong();
            int u = (int) top;
            if (locked[u] || gainFromKey(top) != bound[u]) {
              continue;
            }
            long gu = st.restoring(u, over, under, strictCeil, floor);
            if (gu != NO_MOVE && (v < 0 || gainOf(gu) > gainOf(g))) {
              v = u;
              g = gu;
            }
            deferred.add(u);
          }
          // and the cheapest rows of the source parts, wherever their keys are
          for (int q = 0; q < k; q++) {
            if (over >= 0 ? q != over : q == under || st.weight[q] <= floor) {
              continue;
            }
            int tried = 0;
            for (int i = cheapNext[q]; i < cheapStart[q + 1] && tried < CHEAP_TRIES; i++) {
              int u = cheapRows[i];
              if (locked[u] || part[u] != q) {
                if (i == cheapNext[q]) {
                  cheapNext[q]++;
                }
                continue;
              }
              tried++;
              long gu = st.restoring(u, over, under, strictCeil, floor);
              if (gu != NO_MOVE && (v < 0 || gainOf(gu) > gainOf(g))) {
                v = u;
                g = gu;
              }
            }
          }
          for (int i = 0; i < deferred.size(); i++) {
            int u = deferred.getInt(i);
            if (u != v) {
              long gr = st.bestMove(u, Long.MAX_VALUE, lower); // queued again by its bound under any cap
              bound[u] = gr == NO_MOVE ? NO_BOUND : gainOf(gr);
              if (gr != NO_MOVE) {
                heaps[part[u]].enqueue(key(bound[u], u));
              }
            }
          }
          if (v < 0) {
            // the moves since the last balance are undone (their rows stay locked in this pass) and the pass goes on
            for (int i = moves - 1; i >= lastBalanced; i--) {
              st.move(movedV[i], movedFrom[i]);
              run -= movedGain[i];
              undone.add(movedV[i]);
            }
            moves = lastBalanced;
            over = -1;
            under = -1;
            continue;
          }
        } else {
          LongHeapPriorityQueue heap = heaps[0];
          for (int q = 1; q < heaps.length; q++) {
            if (!heaps[q].isEmpty() && (heap.isEmpty() || heaps[q].firstLong() < heap.firstLong())) {
              heap = heaps[q];
            }
          }
          if (heap.isEmpty()) {
            break;
          }
          long top = heap.dequeueLong();
          v = (int) top;
          if (locked[v] || gainFromKey(top) != bound[v]) {
            continue; // moved already, or a newer bound of v is queued
          }
          g = st.bestMove(v, cap, lower);
          if (g == NO_MOVE) {
            bound[v] = NO_BOUND;
            if (st.onlyCapped) {
              cappedIn[v] = pass;
            }
            continue;
          }
          int gain = gainOf(g);
          if (gain < gainFromKey(top) && !heap.isEmpty() && gain < gainFromKey(heap.firstLong())) {
            bound[v] = gain;
            heap.enqueue(key(gain, v));
            continue;
          }
        }
        int gain = gainOf(g);
        int a = part[v];
        int b = targetOf(g);
        locked[v] = true;
        movedV[moves] = v;
        movedFrom[moves] = a;
        if (exact) {
          movedGain[moves] = gain;
        }
        moves++;
        run += gain;
        st.move(v, b);
        if (exact) {
          over = heaviest(st.weight, strictCeil);
          under = lightest(st.weight, floor);
        }
        if (over < 0 && under < 0) {
          lastBalanced = moves;
          if (run > best) {
            best = run;
            bestPrefix = moves;
          }
        }
        bound[v] = NO_BOUND;
        stamp++;
        int nt = 0;
        for (int t = h.vStart[v]; t < h.vStart[v + 1] && nt < MAX_TOUCHED; t++) {
          int e = h.vNets[t];
          boolean lastInA = st.cnt[a * h.numNets + e] == 1;
          boolean newInB = st.cnt[b * h.numNets + e] == 1;
          if ((!lastInA && !newInB) || h.netSize(e) > UPDATE_NET_SIZE) {
            continue;
          }
          int w = h.netWeight(e);
          for (int q = h.nStart[e]; q < h.nStart[e + 1]; q++) {
            int u = h.nPins[q];
            int rise = (newInB ? w : 0) + (lastInA && part[u] == a ? w : 0);
            if (locked[u] || rise == 0) {
              continue;
            }
            if (seen[u] != stamp) {
              seen[u] = stamp;
              bump[u] = 0;
              touched[nt++] = u;
            }
            bump[u] += rise;
          }
        }
        int computed = 0;
        for (int i = 0; i < nt; i++) {
          int u = touched[i];
          boolean cheap = h.degree(u) <= EAGER_DEGREE;
          if (bound[u] == NO_BOUND || cheap) {
            // not queued (no move so far), or cheap to rate (few keys): its gain now, for up to MAX_UPDATES vertices
            if ((!cheap && cappedIn[u] == pass) || computed++ >= MAX_UPDATES) {
              continue;
            }
            long gu = st.bestMove(u, cap, lower);
            bound[u] = gu == NO_MOVE ? NO_BOUND : gainOf(gu);
            if (gu != NO_MOVE) {
              heaps[exact ? part[u] : 0].enqueue(key(bound[u], u));
            } else if (st.onlyCapped) {
              cappedIn[u] = pass;
            }
          } else {
            bound[u] += bump[u];
            heaps[exact ? part[u] : 0].enqueue(key(bound[u], u));
          }
        }
      }
      for (int i = moves - 1; i >= bestPrefix; i--) {
        st.move(movedV[i], movedFrom[i]);
      }
      for (int i = 0; i < moves; i++) {
        locked[movedV[i]] = false;
      }
      for (int i = 0; i < undone.size(); i++) {
        locked[undone.getInt(i)] = false;
      }
      undone.clear();
      if (best == 0) {
        break;
      }
    }
  }

  /**
   * Up to {@link #CHEAP_ROWS} rows of every part that add the fewest keys wherever they move (their keys less those
   * only they hold in their part, counted up to {@link #CHEAP_COST}), cheapest first: part p's in {@code rows[start[p]
   * .. start[p + 1])}. A counting sort by part and cost: O(n + k·CHEAP_COST).
   */
  private void cheapest(State st, int[] rows, int[] start) {
    Level h = st.h;
    int n = h.n;
    int buckets = CHEAP_COST + 1;
    int[] cost = new int[n];
    int[] first = new int[k * buckets + 1];
    for (int v = 0; v < n; v++) {
      cost[v] = Math.min(CHEAP_COST, Math.max(0, h.degree(v) + h.internal[v] - st.sole(v)));
      first[st.part[v] * buckets + cost[v] + 1]++;
    }
    for (int i = 1; i < first.length; i++) {
      first[i] += first[i - 1];
    }
    int[] order = new int[n];
    for (int v = 0; v < n; v++) {
      order[first[st.part[v] * buckets + cost[v]]++] = v;
    }
    // first[p·buckets + c] now ends bucket (p, c); part p's rows start where part p − 1's last bucket ends
    int filled = 0;
    for (int p = 0; p < k; p++) {
      start[p] = filled;
      int from = p == 0 ? 0 : first[p * buckets - 1];
      int to = Math.min(first[p * buckets + buckets - 1], from + CHEAP_ROWS);
      for (int i = from; i < to; i++) {
        rows[filled++] = order[i];
      }
    }
    start[k] = filled;
  }

  /** The heaviest part above {@code ceil}, or -1. */
  private int heaviest(long[] weight, long ceil) {
    int p = argMax(weight);
    return weight[p] > ceil ? p : -1;
  }

  /** The lightest part below {@code floor}, or -1. */
  private int lightest(long[] weight, long floor) {
    int p = 0;
    for (int q = 1; q < k; q++) {
      if (weight[q] < weight[p]) {
        p = q;
      }
    }
    return weight[p] < floor ? p : -1;
  }

  private static final long NO_MOVE = Long.MIN_VALUE;
  /** Rows of a part kept as the cheapest to move anywhere in an exact {@link #fm} pass. */
  private static final int CHEAP_ROWS = 512;
  /** Keys a move adds counted up to this many when the cheapest rows are chosen (above it the order is arbitrary). */
  private static final int CHEAP_COST = 255;
  /** Of those, at most this many of a part are rated for a move that restores the balance. */
  private static final int CHEAP_TRIES = 8;
  /** At most this many rows are rated for a move that restores the balance in an exact {@link #fm} pass. */
  private static final int FORCED_TRIES = 64;
  /** No gain bound queued for a vertex in {@link #fm}. */
  private static final int NO_BOUND = Integer.MIN_VALUE;
  /** A fresh partition's coarsening stops when a level has fewer than this share of vertices less than the one before. */
  private static final double MIN_SHRINK = 0.01;
  /**
   * A V-cycle's coarsening stops at a level that shrank by less than this share: its coarsest level keeps the given
   * parts, so a level that barely shrank (the clusters at their weight limit) only repeats the refinement of the one
   * above. At 10^7 non-zeros levels of 18 % and 2.7 % less took 5 s of a capped V-cycle and changed T_sum by 0.01 %;
   * on cnr-2000 its stalled levels of 2.4 % and 1.6 % less cost 4 s (docs/quality.md §18).
   */
  private static final double VCYCLE_MIN_SHRINK = 0.25;
  /** Rows of a key above the rated size looked at for a row whose keys are all that large. */
  private static final int LARGE_NET_SCAN = 64;
  /** Default of {@link #parallelPins}. */
  private static final int PARALLEL_PINS = 1 << 16;
  /** Largest coarsest level placed by greedy growing. */
  private static final int GROW_LIMIT = 20_000;
  /** Fewest tries of the initial placement at any k. */
  private static final int MIN_TRIES = 8;
  /** FM recomputes the gains of the rows of keys up to this size after a move (larger keys: lazily). */
  private static final int UPDATE_NET_SIZE = 64;
  /** At most this many gain recomputations after one move. */
  private static final int MAX_UPDATES = 128;
  /** At most about this many vertices (whole keys are read) have their gain bound raised after one move. */
  private static final int MAX_TOUCHED = 512;
  /**
   * Vertices with at most this many keys get their gain recomputed after a neighbour's move (cheap, and exact);
   * larger ones (text rows, coarse vertices) only have their bound raised.
   */
  private static final int EAGER_DEGREE = 64;

  private static long key(int gain, int v) {
    return ((long) ((1 << 30) - gain) << 32) | (v & 0xffffffffL);
  }

  private static int gainFromKey(long key) {
    return (1 << 30) - (int) (key >>> 32);
  }

  private static int gainOf(long move) {
    return (int) (move >> 32);
  }

  private static int targetOf(long move) {
    return (int) move;
  }

  /**
   * Moves vertices of {@code st}, cheapest first, until every part weighs at most {@code ceil} and at least
   * {@code floor} (or no vertex fits anywhere: a coarse level whose vertices are too heavy for the bounds is left as
   * close as it gets).
   */
  private void balance(State st, long ceil, long floor) {
    Level h = st.h;
    int[] part = st.part;
    int n = h.n;
    long[] size = st.weight;
    while (true) {
      boolean over = false;
      boolean under = false;
      for (int p = 0; p < k; p++) {
        over |= size[p] > ceil;
        under |= size[p] < floor;
      }
      if (!over && !under) {
        return;
      }
      // the largest part sheds rows down to ⌈n/k⌉ (or ⌊n/k⌋ while parts are below it) into every part with room
      int donor = argMax(size);
      long shed = size[donor] - (over ? ceil : floor);
      long fill = under ? floor : ceil;
      int[] recv = new int[k];
      long[] room = new long[k];
      int nr = 0;
      for (int p = 0; p < k; p++) {
        if (p != donor && size[p] < fill) {
          room[nr] = fill - size[p];
          recv[nr++] = p;
        }
      }
      int nd = 0;
      for (int v = 0; v < n; v++) {
        if (part[v] == donor) {
          nd++;
        }
      }
      int[] rows = new int[nd];
      nd = 0;
      for (int v = 0; v < n; v++) {
        if (part[v] == donor) {
          rows[nd++] = v;
        }
      }
      // every (row, receiver) by the keys the move adds minus the keys it frees, cheapest first
      long[] cand = new long[nd * nr];
      int[] added = new int[nd * nr];
      int c = 0;
      for (int i = 0; i < nd; i++) {
        int v = rows[i];
        // freed: v's keys no other row of the donor holds; a receiver gains the keys of v it does not hold
        int freed = st.count(v);
        int deg = h.degree(v);
        for (int j = 0; j < nr; j++) {
          int cost = deg - st.hits[recv[j]];
          added[i * nr + j] = cost + h.internal[v];
          cand[c++] = ((long) (cost - freed + (1 << 30)) << 32) | ((long) i * nr + j);
        }
      }
      Arrays.sort(cand, 0, c);
      // under a working-set cap, moves that would lift a receiver above it are passed over while others remain
      boolean[] gone = new boolean[nd];
      long movedAny = 0;
      for (int x = 0; x < c && shed > 0; x++) {
        int idx = (int) cand[x];
        int i = idx / nr;
        int j = idx % nr;
        int v = rows[i];
        int w = h.weight[v];
        if (gone[i] || room[j] < w || (w > shed && w > 1)
            || (mCap != Long.MAX_VALUE && st.m[recv[j]] + newKeys(st, v, recv[j]) > mCap)) {
          continue;
        }
        st.move(v, recv[j]);
        gone[i] = true;
        room[j] -= w;
        shed -= w;
        movedAny++;
      }
      if (movedAny == 0) {
        // every move would cross the working-set cap: balance comes first, and the moves that leave the receiving
        // part with the smallest working set are made (so the cap is crossed by as little as it can be)
        for (int x = 0; x < c; x++) {
          int idx = (int) cand[x];
          cand[x] = ((st.m[recv[idx % nr]] + added[idx]) << 32) | idx;
        }
        Arrays.sort(cand, 0, c);
        for (int x = 0; x < c && shed > 0; x++) {
          int idx = (int) cand[x];
          int i = idx / nr;
          int j = idx % nr;
          int w = h.weight[rows[i]];
          if (gone[i] || room[j] < w || (w > shed && w > 1)) {
            continue;
          }
          st.move(rows[i], recv[j]);
          gone[i] = true;
          room[j] -= w;
          shed -= w;
          movedAny++;
        }
        if (movedAny == 0) {
          return; // no vertex of the heaviest part fits into any lighter one (coarse levels only)
        }
      }
    }
  }

  /**
   * The final balance of weighted rows ({@link #setRowWeights}): while the heaviest part weighs more than
   * {@code ceil} or the lightest less than {@code floor}, one row of the heaviest moves to the lightest: the row that
   * adds the fewest keys there net of those it frees, among the rows that bring both parts into the window, else among
   * those lighter than the two parts' difference (so the sum of the squared weights falls and the loop ends). A row
   * is not divisible, so the window may stay out of reach; the caller checks.
   */
  private void balanceWeights(State st, long ceil, long floor) {
    Level h = st.h;
    long[] size = st.weight;
    while (true) {
      int donor = argMax(size);
      int recv = 0;
      for (int p = 1; p < k; p++) {
        recv = size[p] < size[recv] ? p : recv;
      }
      if (size[donor] <= ceil && size[recv] >= floor) {
        return;
      }
      long gap = size[donor] - size[recv];
      int best = -1;
      long bestKey = Long.MAX_VALUE;
      for (int v = 0; v < h.n; v++) {
        int w = h.weight[v];
        if (st.part[v] != donor || w >= gap) {
          continue;
        }
        boolean fits = size[donor] - w >= floor && size[recv] + w <= ceil;
        int freed = st.count(v);
        long fresh = (long) h.degree(v) - st.hits[recv] + h.internal[v];
        long cost = fresh - freed;
        // under a capped V-cycle, moves that keep the receiver within the working-set cap first; then fitting
        // moves, then by cost; the lowest row breaks ties
        boolean crosses = st.m[recv] + fresh > mCap;
        long key = ((crosses ? 1L : 0L) << 41) + ((fits ? 0L : 1L) << 40) + cost + (1L << 31);
        if (key < bestKey) {
          bestKey = key;
          best = v;
        }
      }
      if (best < 0) {
        return;
      }
      st.move(best, recv);
    }
  }

  /**
   * Brings the parts above {@link #mCap} within it by moving rows, keeping every part at {@code floor}..{@code ceil}
   * rows (by weight: at a coarse level, its vertices' weights). For the fullest part, its rows that free keys there
   * are rated by the keys a move adds to another part net of those it frees (the change of Σ M_i, as the
   * connectivity changes), for every part that stays within the cap; the
   * cheapest moves are tried first, directly where both parts' sizes allow it, else swapped with the row of the target
   * part that costs the least the other way. A move is kept where the fullest part's working set falls and the
   * target's stays within the cap. Stops where every part is within the cap or no such move is left; returns the rows
   * moved.
   */
  private int holdCap(State st, long ceil, long floor) {
    return holdCap(st, ceil, floor, 4 * k);
  }

  /** {@link #holdCap(State, long, long)} in at most {@code maxSteps} steps, vertices moved by their weights. */
  private int holdCap(State st, long ceil, long floor, int maxSteps) {
    Level h = st.h;
    int n = h.n;
    int moves = 0;
    for (int step = 0; step < maxSteps; step++) {
      int p = argMax(st.m);
      if (st.m[p] <= mCap) {
        break;
      }
      IntArrayList[] members = new IntArrayList[k];
      for (int q = 0; q < k; q++) {
        members[q] = new IntArrayList();
      }
      for (int v = 0; v < n; v++) {
        members[st.part[v]].add(v);
      }
      IntArrayList rows = members[p];
      // (cost, row of p, target) of every move that frees a key of p and keeps the target within the cap
      LongArrayList cand = new LongArrayList();
      for (int i = 0; i < rows.size(); i++) {
        int v = rows.getInt(i);
        int freed = st.count(v); // and every part's hits of v's keys: a part gains those it lacks (as balance rates)
        if (freed < 1) {
          continue;
        }
        for (int q = 0; q < k; q++) {
          if (q == p) {
            continue;
          }
          int fresh = h.internal[v] + h.degree(v) - st.hits[q];
          if (st.m[q] + fresh <= mCap) {
            cand.add(((long) (fresh - freed + (1 << 30)) << 32) | ((long) i * k + q));
          }
        }
      }
      long[] sorted = cand.toLongArray();
      Arrays.sort(sorted);
      boolean moved = false;
      long mp = st.m[p];
      for (int x = 0; x < Math.min(sorted.length, CAP_REPAIR_TRIES) && !moved; x++) {
        int idx = (int) sorted[x];
        int v = rows.getInt(idx / k);
        int q = idx % k;
        int wv = h.weight[v];
        boolean single = st.weight[p] - wv >= floor && st.weight[q] + wv <= ceil;
        st.move(v, q);
        if (single) {
          if (st.m[p] < mp && st.m[q] <= mCap) {
            moves++;
            moved = true;
          } else {
            st.move(v, p);
          }
          continue;
        }
        // a swap: of the rows of q that add fewer keys to p than v freed there, the one whose move adds the fewest
        // net of those it frees in q
        long room = mp - st.m[p];
        int best = -1;
        long bestCost = Long.MAX_VALUE;
        for (int j = 0; j < members[q].size(); j++) {
          int w = members[q].getInt(j);
          long wp = st.weight[p] + h.weight[w]; // v is in q already
          long wq = st.weight[q] - h.weight[w];
          if (wp < floor || wp > ceil || wq < floor || wq > ceil) {
            continue;
          }
          int freed = st.count(w);
          int fresh = h.internal[w] + h.degree(w) - st.hits[p];
          if (fresh < room) {
            long cost = fresh - (long) freed;
            if (cost < bestCost) {
              bestCost = cost;
              best = w;
            }
          }
        }
        if (best >= 0) {
          st.move(best, p);
          if (st.m[p] < mp && st.m[q] <= mCap) {
            moves += 2;
            moved = true;
            continue;
          }
          st.move(best, q);
        }
        st.move(v, p);
      }
      if (!moved) {
        break;
      }
    }
    return moves;
  }

  /** Moves of the fullest part's rows {@link #holdCap(State, long, long)} tries, cheapest first, per step. */
  private static final int CAP_REPAIR_TRIES = 256;

  /** Keys of v that part b does not hold yet (its internal keys and its nets absent from b). */
  private int newKeys(State st, int v, int b) {
    Level h = st.h;
    int fresh = h.internal[v];
    for (int t = h.vStart[v]; t < h.vStart[v + 1]; t++) {
      if (st.cnt[b * h.numNets + h.vNets[t]] == 0) {
        fresh += h.netWeight(h.vNets[t]);
      }
    }
    return fresh;
  }

  private static int argMax(long[] a) {
    int best = 0;
    for (int i = 1; i < a.length; i++) {
      if (a[i] > a[best]) {
        best = i;
      }
    }
    return best;
  }

  /** Σ_e (λ_e − 1) over the nets of {@code h}. */
  private long connectivity(Level h, int[] part) {
    long s = 0;
    boolean[] seen = new boolean[k];
    for (int e = 0; e < h.numNets; e++) {
      Arrays.fill(seen, false);
      int lambda = 0;
      for (int q = h.nStart[e]; q < h.nStart[e + 1]; q++) {
        int p = part[h.nPins[q]];
        if (!seen[p]) {
          seen[p] = true;
          lambda++;
        }
      }
      s += (long) h.netWeight(e) * Math.max(0, lambda - 1);
    }
    return s;
  }

  private static int[] permutation(int n, SplittableRandom rnd) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      a[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int x = a[i];
      a[i] = a[j];
      a[j] = x;
    }
    return a;
  }

  private void log(String s) {
    if (log != null) {
      log.accept(s);
    }
  }

  private static double secs(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }
}
