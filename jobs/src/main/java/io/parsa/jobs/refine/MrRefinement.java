package io.parsa.jobs.refine;

import io.parsa.engine.URefinement;
import io.parsa.jobs.mr.AlignedJoin;
import io.parsa.jobs.mr.BufferedSequenceFileInputFormat;
import io.parsa.jobs.mr.Jobs;
import io.parsa.jobs.mr.LongKeyComparator;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.PartStats;
import io.parsa.yarn.io.BlockFiles;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.SequenceFile;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.MultipleInputs;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.LazyOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.MultipleOutputs;
import org.apache.hadoop.mapreduce.lib.output.SequenceFileOutputFormat;
import org.apache.hadoop.mapreduce.lib.reduce.LongSumReducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * refine-u's distributed swap rounds ({@code --mode mapreduce}): the same kind of balance-preserving pairwise swaps
 * as the in-memory {@code URefinement}, as MapReduce jobs whose tasks each hold one block or one key, so nothing
 * grows with the data in one JVM. A round is four jobs over a u-assignment aligned with the blocks:
 * <ol>
 *   <li><b>count</b> ({@link CountMapper}, {@link CountReducer}): per key its rows per part; measures the working
 *       sets M_i exactly and sends each key's counts to the blocks that use it;</li>
 *   <li><b>gain</b> ({@link GainReducer}): per block, every row's best single move under the objective
 *       Σ_i f(M_i), f(M) ∝ M^p, linearised at the round's start ({@link SwapGains});</li>
 *   <li><b>pair</b> ({@link PairReducer}): per part pair, the best rows of the two directions swapped while their
 *       gains sum above zero and within each part's growth budget (its share of the headroom under the largest
 *       working set), so every part keeps its row count exactly;</li>
 *   <li><b>apply</b> ({@link ApplyReducer}): per block, the new assignment file.</li>
 * </ol>
 * The swaps of a round are chosen together from the start's counts, so they can interact (two swapped rows that
 * share keys gain less than their sum). The next round's count job therefore measures the result exactly, and a round
 * is kept only if the objective fell and M_max did not rise; otherwise it is dropped and redone from the same
 * candidates (three times at most per phase): after a rise of M_max, with the budgets charged by a bound on each
 * move's growth that cannot be exceeded whatever else moves ({@code SwapGains.arrivingBound}); after a rise of the
 * objective, with at most half as many swaps per pair. Hence, as in memory: rows per part never change, no row is
 * lost or duplicated (the jobs' counters prove it), and the kept objective and M_max never rise.
 *
 * <p>By default ({@link Groups}) the rounds run instead in <b>groups of parts</b> ({@link #groupCycles}): a job
 * whose reducers each refine the rows of one group of parts with the in-memory engine (V-cycles, swap rounds), which
 * is exact for the group because a part's working set depends on its own rows only (weighted rows keep every part's
 * weight in the window). Where not even two parts fit a reducer, each round is instead a <b>chunk round</b>
 * ({@link #chunkRounds}): every block's rows refined among all k parts by the in-memory swap rounds (unit rows at p = 1
 * after a V-cycle; weighted rows within each task's share of every part's room in the weight window) with the other
 * rows as fixed pins ({@link ChunkReducer}), a task's blocks in turn, each seeing the moves of those before it
 * ({@link #CHUNK_TASKS}). Where the multilevel rule says so, a distributed
 * multilevel start ({@link #multilevelStart}: rows clustered per group, the clusters placed in one reducer, the rows
 * balanced in groups) competes with the given and the input-order start.
 */
public final class MrRefinement {

  private static final Logger LOG = LoggerFactory.getLogger(MrRefinement.class);

  /** Rejected rounds after which a phase ends. */
  static final int MAX_REJECTED = 3;

  /** Counters of the four jobs; the error ones must be zero. */
  public enum Counters {
    /** Count job: distinct (row, key) pairs read. */
    ROW_KEY_PAIRS,
    /** Count job: distinct keys. */
    KEYS,
    /** Count job: rows that carry a weight (then the input-order start is cut by weight). */
    WEIGHTED_ROWS,
    /** Count job: rows whose weight is not a whole number (then no distributed multilevel or input-order start). */
    FRACTIONAL_WEIGHTS,
    /** Count job: the (row, key) pairs summed over the keys' counts (= ROW_KEY_PAIRS). */
    COUNTED_PAIRS,
    /** Count job: (block, key) records sent to the gain job. */
    KEY_BLOCK_RECORDS,
    /** Error (gain job): two count records of one key for one block. */
    DUPLICATE_KEY_COUNTS,
    /** Error (gain job): a row of a block without a part in its assignment file. */
    ROW_WITHOUT_PART,
    /** Gain job: rows rated. */
    ROWS_RATED,
    /** Error (gain job): a row with a key that has no counts, or none in the row's own part. */
    KEY_WITHOUT_COUNTS,
    /** Gain job: rows with a best move (all rows when k ≥ 2). */
    CANDIDATES,
    /** Pair job: pairs whose candidate buffer filled up (rows beyond it wait for a later round). */
    PAIR_BUFFER_FULL,
    /** Pair job: swaps (two moved rows each). */
    SWAPS,
    /** Error (apply job, or a count job applying moves): a row moved twice. */
    DUPLICATE_MOVE,
    /** Error (apply job): a move for a block that does not exist. */
    MOVE_OUTSIDE_BLOCKS,
    /** Error (apply job, or a count job applying moves): a move whose row is not in the move's source part. */
    STALE_MOVE,
    /** Error (apply job, or a count job applying moves): a move whose row is not in its block's assignment. */
    MOVE_WITHOUT_ROW,
    /** Apply job, or a count job applying moves: moves applied (= 2 · SWAPS, or CHUNK_MOVES). */
    MOVES_APPLIED,
    /** Apply job, or a count job applying moves: assignment records written (= rows). */
    ROWS_WRITTEN,
    /** Group V-cycle job: rows of parts in no group (k not a multiple of the group size); they stay. */
    ROWS_OUTSIDE_GROUPS,
    /** Error (group V-cycle job): a row that reached the reducer of a group its part is not in. */
    ROW_IN_WRONG_GROUP,
    /** Group V-cycle job: rows refined in their group (with ROWS_OUTSIDE_GROUPS, = rows). */
    GROUP_ROWS,
    /** Group V-cycle job: rows moved (= the apply job's MOVES_APPLIED). */
    GROUP_MOVES,
    /** Group V-cycle job: groups whose result was kept. */
    GROUPS_IMPROVED,
    /** Group V-cycle job: groups left as they were (no gain, or a working set above the cap). */
    GROUPS_UNCHANGED,
    /** Group V-cycle job: groups left as they were because their rows would not fit in the task's heap. */
    GROUPS_TOO_BIG,
    /** Group V-cycle job: groups left as they were because the V-cycle changed their row counts. */
    GROUPS_UNBALANCED,
    /** Chunk job: rows refined among all parts with the other rows fixed (= rows). */
    CHUNK_ROWS,
    /** Chunk job: rows moved (= MOVES_APPLIED of the count job that applies them). */
    CHUNK_MOVES,
    /** Chunk job: slices of blocks refined one after the other (a block too large for the heap is cut). */
    CHUNK_SLICES,
    /**
     * Chunk job: times a block's remaining rows were cut into slices by the heap measured after a collection instead of
     * the planned one (ChunkReducer's plan missed something the task held): such cuts are not reproducible run to run.
     */
    CHUNK_CUTS_BY_MEASURE,
    /**
     * Chunk job: rows left in their part because their keys alone outgrow a slice's heap (alone in a slice, a row
     * could not move anyway: every part keeps its rows of the block).
     */
    CHUNK_ROWS_TOO_LARGE,
    /** Chunk job: rows kept in a part another block owns ({@link ChunkReducer#PART_OWNERS}), counted in CHUNK_ROWS. */
    CHUNK_ROWS_FROZEN,
    /** Chunk job: capped V-cycles of a slice among all parts with the other rows fixed (the rounds at p = 1). */
    CHUNK_VCYCLES,
    /** Chunk job: those V-cycles whose result the slice's swap rounds started from (Σ M_i lower, M_max not higher). */
    CHUNK_VCYCLES_KEPT,
    /** Chunk job: slices of weighted rows not V-cycled because their weights are not whole numbers (or too large). */
    CHUNK_VCYCLES_NOT_WHOLE,
    /**
     * Chunk job: the change of Σ M_i its tasks counted, each from its own moves (negative where they lowered it); with
     * one task, exactly the change the next count job measures.
     */
    CHUNK_SUM_WORKING_SET_CHANGE,
    /** Error (chunk job): a key's counts below the rows of the block that use it (counts from another assignment). */
    STALE_KEY_COUNTS,
    /** Multilevel start, clustering job: clusters of rows made in all groups. */
    CLUSTERS,
    /** Multilevel start, clustering job: the clusters' distinct keys summed (the coarse graph's pins). */
    CLUSTER_PINS,
    /**
     * Multilevel start, a clustering job: keys that one cluster of their group alone holds (at least the keys one
     * cluster alone holds, which {@link SharedKeys} leaves unlisted).
     */
    GROUP_PRIVATE_PINS,
    /** Multilevel start, a further clustering level: clusters of the level below read (= its CLUSTERS). */
    CLUSTERS_COARSENED,
    /** Multilevel start, a further level's projection: clusters of the level below given their part (= its CLUSTERS). */
    CLUSTERS_DESCENDED,
    /** Multilevel start, placement job: clusters placed (= CLUSTERS). */
    CLUSTERS_PLACED,
    /** Multilevel start, placement job: 1 if the clusters did not fit the reducer's heap (nothing placed). */
    COARSE_GRAPH_TOO_BIG,
    /** Coarse V-cycle, placement job: groups whose clusters did not fit their task's heap, kept in their parts. */
    PLACE_GROUPS_KEPT,
    /** Multilevel start, placement job: placements that coarsened the clusters within their communities. */
    PLACED_IN_COMMUNITIES,
    /** Multilevel start, clustering job: groups (or chunks of them) clustered within their rows' communities. */
    CLUSTERED_IN_COMMUNITIES,
    /** Multilevel start, projection job: rows read with their cluster (= rows). */
    ROWS_PROJECTED,
    /** Error (projection job): a row whose cluster has no part. */
    CLUSTER_WITHOUT_PART,
    /** Multilevel start, projection job: rows moved to their cluster's part. */
    PROJECTED_MOVES,
    /** Multilevel start, a reduce-side join on the way down: placement records read (= the clusters placed). */
    PLACEMENTS_JOINED,
    /** Error (a reduce-side join on the way down): a cluster with two parts. */
    DUPLICATE_PLACEMENT,
    /** Multilevel start, shared-keys holders job: (key, cluster) pairs read (= the level's listed keys). */
    HOLDER_PAIRS,
    /** Multilevel start, shared-keys holders job: pairs of keys held by two or more clusters, sent back. */
    SHARED_PINS,
    /** Multilevel start, shared-keys merge job: clusters written (= the level's clusters). */
    CLUSTERS_MERGED,
    /** Multilevel start, shared-keys merge job: keys listed (= SHARED_PINS). */
    LISTED_PINS,
    /** Error (shared-keys merge job): pieces of a cluster without its header, or a cluster read twice. */
    PIECES_WITHOUT_CLUSTER,
    /** Multilevel start, shared-keys holders job listing a key sample: pairs of shared keys left out of it. */
    PINS_LEFT_OUT,
    /** Multilevel start, shared-keys merge job listing a key sample: pieces merged (= SHARED_PINS + PINS_LEFT_OUT). */
    SHARES_MERGED,
    /** Multilevel start, holder sets, holders job: keys held by two or more clusters. */
    SHARED_KEYS,
    /** Multilevel start, holder sets, holders job: (key, cluster) pairs of those keys. */
    SHARED_KEY_PINS,
    /** Multilevel start, holder sets, sets job: distinct sets of holders of a shared key. */
    HOLDER_SETS,
    /** Multilevel start, holder sets, sets job: (set, holder) pairs, the pins of one net per set. */
    SET_PINS,
    /** Multilevel start, holder sets, sets job: the keys the sets stand for (= SHARED_KEYS). */
    SET_KEYS,
    /** Multilevel start, holder sets, sets job: Σ keys · holders over the sets (= SHARED_KEY_PINS). */
    SET_KEY_PINS,
    /** Multilevel start, holder sets, merge job: Σ keys over the pieces merged (= SHARED_KEY_PINS). */
    KEY_PINS_MERGED,
    /** Multilevel start, a streaming balance's flow job: rows moved (= the apply job's MOVES_APPLIED). */
    FLOW_MOVES
  }

  /**
   * What a count job measured of the rows' weights: how many rows carry one, the weight per part (rows without one
   * weigh 1), the heaviest row, and how many weights are not whole numbers.
   */
  record Weights(long rows, double[] perPart, double heaviest, long fractional) {}

  /** What a count job measured on an assignment. */
  record Measure(Path u, Path counts, long[] rows, long[] workingSets, long keys, Weights weights, long pairs) {
    long weightedRows() {
      return weights.rows;
    }

    long maxWorkingSet() {
      return Arrays.stream(workingSets).max().orElse(0);
    }

    long sumWorkingSet() {
      return Arrays.stream(workingSets).sum();
    }

    /** T_sum when every key lives with one of its users: 2·(Σ M_i − |V|). */
    long sumTraffic() {
      return 2 * (sumWorkingSet() - keys);
    }

    /** The change of Σ (M_i / mean)^p from this assignment to {@code next} in percent, mean this one's. */
    double changePercent(Measure next, double p, int k) {
      double mean = Math.max(1e-9, (double) sumWorkingSet() / k);
      double before = objective(p, mean);
      return 100.0 * (next.objective(p, mean) - before) / Math.max(1e-12, before);
    }

    /**
     * Whether this start measures better than {@code other} by the rule that chooses between starts: a smaller
     * M_max / (the two's least M_max) + T_sum / (the two's least T_sum), the in-memory rule without its T_max term.
     */
    boolean measuresBetterThan(Measure other) {
      double mMin = Math.max(1, Math.min(maxWorkingSet(), other.maxWorkingSet()));
      double tMin = Math.max(1, Math.min(sumTraffic(), other.sumTraffic()));
      return maxWorkingSet() / mMin + sumTraffic() / tMin
          < other.maxWorkingSet() / mMin + other.sumTraffic() / tMin - 1e-12;
    }

    /** M_max, Σ M_i and T_sum into a round's log entry. */
    void putFigures(Map<String, Object> e) {
      e.put("maxWorkingSet", maxWorkingSet());
      e.put("sumWorkingSet", sumWorkingSet());
      e.put("sumTraffic", sumTraffic());
    }

    /** Σ (M_i / mean)^p, or Σ M_i for p = 1. */
    double objective(double p, double mean) {
      return MrRefinement.objective(workingSets, p, mean);
    }
  }

  /** Σ (M_i / mean)^p over {@code workingSets}, or Σ M_i for p = 1: the swap rounds' objective. */
  static double objective(long[] workingSets, double p, double mean) {
    double f = 0;
    for (long m : workingSets) {
      f += p == 1 ? m : Math.pow(m / mean, p);
    }
    return f;
  }

  /**
   * The outcome: {@code end} is the refined assignment as last measured (its directory is the input's if no round
   * was kept), with the start it came from and every round's log.
   */
  record Result(Measure end, String start, long startMaxWorkingSet, long startSumTraffic,
      List<Map<String, Object>> starts, List<Map<String, Object>> log) {}

  private final Configuration conf;
  /** Whether the swap rounds run as chunk rounds ({@link Groups#chunks}, or where no two parts fit a reducer). */
  private boolean chunkRounds;
  private final String step;
  private final Path blocks;
  private final Path work;
  private final int k;
  private final int reducers;
  private final int numBlocks;
  /** Reduce tasks of a chunk job ({@link #CHUNK_TASKS}). */
  private final int chunkTasks;
  private final FileSystem fs;
  private Path markers;
  private int jobNo;
  /** The chosen start's assignment, kept until the end where the refinement may have to fall back on it. */
  private Path startU;
  /** The least and the largest row id, as the count jobs saw them. */
  private long minId = Long.MAX_VALUE;
  private long maxId = Long.MIN_VALUE;
  private boolean keepBetterStart;
  /**
   * Weighted rows: the weights every part keeps, {lo, hi}, set from the start ({@link URefinement#weightWindow}, the
   * in-memory rounds' rule); null for rows without weights.
   */
  private double[] weightWindow;
  /**
   * The keys a user allows every working set ({@link #setRoom}; 0: none): the connectivity rounds (p = 1) may grow a
   * working set up to it where it is above the largest.
   */
  private long room;
  /**
   * Whether the distributed multilevel start and the coarse cycles cluster and place within communities of the rows
   * ({@link CoarsenReducer#COMMUNITY_FRAGMENTS}, {@link PlaceReducer#COMMUNITIES}): in the flows regime (not even two
   * parts fit a reducer) on graphs (rows of unit weight, short and k small as {@link RefineUTool#communities} has
   * them).
   */
  private boolean communityRegime;
  /**
   * Whether the distributed multilevel start clusters the given parts (partition-u's): then its chunks do not keep to
   * communities ({@link CoarsenReducer#COMMUNITY_FRAGMENTS}), as the coarse cycles' chunks of refined parts do
   * (partition-u's parts have no locality: ego-twitter's two seeds ended at T_sum +1.0 % and M_max +4.6 % with it,
   * docs/quality.md §78).
   */
  private boolean startFromGiven;

  /**
   * @param work     a directory for the rounds' job outputs (the caller deletes it)
   * @param reducers reducers of the count and gain jobs (the pair job has at most one per part pair, the apply job
   *                 at most one per block)
   */
  public MrRefinement(Configuration conf, String step, Path blocks, Path work, int k, int reducers)
      throws IOException {
    this.conf = conf;
    this.step = step;
    this.blocks = blocks;
    this.work = work;
    this.k = k;
    this.reducers = Math.max(1, reducers);
    this.fs = work.getFileSystem(conf);
    this.numBlocks = BlockFiles.list(blocks.getFileSystem(conf), blocks).size();
    int tasks = conf.getInt(CHUNK_TASKS, 0);
    this.chunkTasks = Math.max(1, Math.min(numBlocks, tasks > 0 ? tasks : this.reducers));
  }

  /**
   * The keys each machine may hold ({@code refine-u --max-working-set}; 0, the default: none). Where it is above the
   * largest working set, the connectivity rounds (p = 1: swap rounds, chunk rounds, group rounds and the group
   * V-cycles after the rounds) may grow any working set up to it to lower the total traffic, and no further; the
   * max-weighted rounds (p &gt; 1) and the V-cycles before the rounds are unchanged. As {@code URefinement#setRoom} in
   * memory.
   */
  public MrRefinement setRoom(long keys) {
    if (keys < 0) {
      throw new IllegalArgumentException("working-set room must be >= 0, was " + keys);
    }
    this.room = keys;
    return this;
  }

  /**
   * The largest working set a round at exponent {@code p} from {@code cur} may leave: cur's M_max, or the room
   * ({@link #setRoom}) at p = 1 where it is larger.
   */
  private long ceiling(Measure cur, double p) {
    return p == 1.0 && room > cur.maxWorkingSet() ? room : cur.maxWorkingSet();
  }

  /** Whether the last {@link #run} refined in chunk rounds where swap rounds would run ({@link #chunkRounds}). */
  public boolean chunkRounds() {
    return chunkRounds;
  }

  /**
   * With {@code keep}, the refined assignment is given up where the result of the V-cycles before the rounds (or the
   * start, where those did not measure better than it) measures better by the balanced rule
   * ({@link Measure#measuresBetterThan}: the phases keep what lowers their own objective, and a p = 8 phase can trade
   * more T_sum for M_max than the balanced objective gains); for {@code --objective balanced}. Not where that result
   * holds a working set above the given start's M_max and the refined one does not: refine-u does not give back the
   * largest working set partition-u reached (a multilevel start's own M_max can be above it).
   */
  public MrRefinement keepBetterStart(boolean keep) {
    this.keepBetterStart = keep;
    return this;
  }

  /**
   * How refine-u's distributed path uses groups of parts ({@link #groupCycles}): {@code before} group V-cycles on the
   * start (working sets capped at the start's M_max, give or take {@link RefineUTool#CAP_SLACK} for the final row
   * balancing, as the in-memory V-cycles before the rounds); then the schedule's phases, as up to {@code rounds}
   * group cycles of swap rounds inside each group (each kept only if it lowers the group's Σ M_i^p at the schedule's
   * first exponent without a working set above M_max) or, with {@code swaps}, as the distributed swap rounds over all
   * k parts at once, which with {@code chunks} are chunk rounds ({@link #chunkRounds}); then {@code after} group
   * V-cycles capped at M_max exactly (with {@code everyAfter}, all of them, as the in-memory capped V-cycles: a
   * count the user gave is not cut short by a cycle of small gain). {@code size} parts per group ({@code ≤ 0}: the
   * largest group a reducer's heap holds, {@link #autoGroupSize}; where not even two parts fit, chunk rounds alone).
   */
  record Groups(int before, int rounds, int after, int size, boolean swaps, boolean chunks, boolean everyAfter) {
    Groups(int before, int rounds, int after, int size, boolean swaps, boolean chunks) {
      this(before, rounds, after, size, swaps, chunks, false);
    }
  }

  /**
   * The distributed refinement, with {@code rounds} rounds per exponent of {@code schedule} as {@code groups} says,
   * from the aligned u-assignment {@code u0} or, with {@code orderStart}, from the input-order start
   * ({@link OrderStart}) if it measures better: smaller M_max / (least M_max) + T_sum / (least T_sum) of the two (the
   * in-memory rule without its T_max term).
   */
  Result run(Path u0, boolean orderStart, double[] schedule, int rounds, Groups groups) throws Exception {
    return run(u0, orderStart, "off", schedule, rounds, groups);
  }

  /**
   * The same, and with {@code multilevel} "on", or "auto" where {@link RefineUTool#multilevelReason} says so (the
   * in-memory rule: short rows up to its size limit, or locality in the input order), a distributed multilevel start
   * ({@link #multilevelStart}) built from the start chosen so far, kept if it measures better by the same rule.
   */
  Result run(Path u0, boolean orderStart, String multilevel, double[] schedule, int rounds, Groups groups)
      throws Exception {
    String balance = io.parsa.common.ParsaTool.choiceConf(conf, BALANCE, "auto", "auto", "groups", "flows");
    String startRounds = io.parsa.common.ParsaTool.choiceConf(conf, START_ROUNDS, "auto", "auto", "on", "off");
    if (conf.getInt(CHUNKS, 0) < 0 || conf.getInt(CHUNKS, 0) > CoarsenReducer.MAX_CHUNKS) {
      throw new io.parsa.common.UsageException("-D " + CHUNKS + " must be 0 (fitted) to " + CoarsenReducer.MAX_CHUNKS
          + ", got " + conf.get(CHUNKS));
    }
    fs.mkdirs(work);
    markers = new Path(work, "blocks.seq");
    try (SequenceFile.Writer w = SequenceFile.createWriter(conf, SequenceFile.Writer.file(markers),
        SequenceFile.Writer.keyClass(IntWritable.class), SequenceFile.Writer.valueClass(Move.class))) {
      IntWritable b = new IntWritable();
      Move m = new Move();
      for (int i = 0; i < numBlocks; i++) {
        b.set(i);
        w.append(b, m.marker(i));
      }
    }
    long t0 = System.nanoTime();
    Measure cur = count(u0);
    long givenMaxWorkingSet = cur.maxWorkingSet();
    long n = Arrays.stream(cur.rows).sum();
    String start = RefineUTool.START_GIVEN;
    List<Map<String, Object>> starts = new ArrayList<>();
    starts.add(startEntry(RefineUTool.START_GIVEN, cur));
    weightWindow = null;
    if (cur.weightedRows() > 0) {
      weightWindow = URefinement.weightWindow(cur.weights.perPart, cur.weights.heaviest);
      LOG.info("{}: {} rows carry weights (the heaviest {}); every part's weight stays within [{}, {}], now {} to {}",
          step, cur.weightedRows(), cur.weights.heaviest, weightWindow[0], weightWindow[1],
          Arrays.stream(cur.weights.perPart).min().orElse(0), Arrays.stream(cur.weights.perPart).max().orElse(0));
    }
    boolean weightedOrder = cur.weightedRows() > 0;
    if (orderStart && weightedOrder && cur.weights.fractional > 0) {
      LOG.info("{}: no input-order start: {} rows weigh other than whole numbers (the start is cut by weight in"
          + " whole numbers)", step, cur.weights.fractional);
    } else if (orderStart && n >= 2L * k) {
      Path orderU = new Path(work, "order-start");
      long[] rows = OrderStart.build(conf, step, blocks, work, orderU, k, n, weightedOrder);
      if (!weightedOrder) {
        for (long r : rows) {
          Jobs.check(r == n / k || r == (n + k - 1) / k, "%s: input-order start has %d rows in a part, expected"
              + " %d..%d", step, r, n / k, (n + k - 1) / k);
        }
      }
      Measure order = count(orderU);
      if (weightedOrder) {
        // cut by weight: every part weighs W/k within the heaviest row
        double mean = Arrays.stream(order.weights.perPart).sum() / k;
        for (double w : order.weights.perPart) {
          Jobs.check(Math.abs(w - mean) <= order.weights.heaviest + 1e-6 * Math.max(1, mean), "%s: input-order start"
              + " has a part of weight %s, expected %s within the heaviest row's %s", step, w, mean,
              order.weights.heaviest);
        }
      }
      starts.add(startEntry(RefineUTool.START_ORDER, order));
      boolean better = order.measuresBetterThan(cur);
      LOG.info("{}: input-order start M_max {}, T_sum {} against the given start's {}, {}: {}", step,
          order.maxWorkingSet(), order.sumTraffic(), cur.maxWorkingSet(), cur.sumTraffic(),
          better ? "refining the input-order start" : "refining the given start");
      if (better) {
        discard(cur, u0);
        cur = order;
        start = RefineUTool.START_ORDER;
        if (weightedOrder) {
          // the window follows the start refined
          weightWindow = URefinement.weightWindow(cur.weights.perPart, cur.weights.heaviest);
          LOG.info("{}: every part's weight stays within [{}, {}] of the input-order start", step, weightWindow[0],
              weightWindow[1]);
        }
      } else {
        discard(order, null);
      }
    }
    List<Map<String, Object>> log = new ArrayList<>();
    boolean useGroups = groups.before + groups.after > 0 || !groups.swaps;
    int auto = useGroups && groups.size <= 0 ? autoGroupSize(cur) : -1; // asked once: it logs its choice
    int g = !useGroups ? 0 : groups.size > 0 ? Math.min(groups.size, k) : auto;
    chunkRounds = groups.chunks;
    if (!groups.swaps && g < 2) {
      // groups asked for but not even two parts fit: the rounds refine each block among all parts instead of
      // swapping rows pair by pair (cnr-2000 at 8 MiB: 23,139 / 20,024 against 25,827 / 19,856, docs/quality.md §35)
      chunkRounds = true;
    }
    useGroups = g >= 2;
    long givenTSum = starts.get(0).get("sumTraffic") instanceof Long t ? t : -1;
    long orderTSum = starts.size() > 1 && starts.get(1).get("sumTraffic") instanceof Long t ? t : -1;
    // weighted rows: the start weighs its clusters by their rows' weights, and its balance cycles' V-cycles need
    // whole-number weights
    String reason = RefineUTool.multilevelReason(multilevel, cur.weights.fractional > 0, givenTSum, orderTSum, n,
        cur.pairs);
    LOG.info("{}: distributed multilevel start: {}", step, reason);
    boolean flowsRegime = false;
    communityRegime = false;
    boolean multilevelRan = false;
    if (reason.startsWith("run") && n >= 2L * k) {
      multilevelRan = true;
      int fitted = groups.size > 0 ? Math.min(groups.size, k) : g >= 2 ? g : auto >= 0 ? auto : autoGroupSize(cur);
      // flows where not even two parts fit a reducer (no set group size): no task then holds a group's rows
      boolean flows = balance.equals("flows") || (balance.equals("auto") && groups.size <= 0 && fitted < 2);
      flowsRegime = flows && !useGroups;
      communityRegime = flowsRegime && cur.weightedRows() == 0 && RefineUTool.communities(n, cur.pairs, k);
      startFromGiven = start.equals(RefineUTool.START_GIVEN);
      Measure ml = multilevelStart(cur, n, Math.max(1, fitted), flows, log);
      if (ml != null && flowsRegime && weightWindow == null && rounds > 0 && (startRounds.equals("on")
          || (startRounds.equals("auto") && !ml.measuresBetterThan(cur)))) {
        LOG.info("{}: multilevel start as placed: M_max {}, T_sum {} against the '{}' start's {}, {}: {}", step,
            ml.maxWorkingSet(), ml.sumTraffic(), start, cur.maxWorkingSet(), cur.sumTraffic(), startRounds.equals("on")
                ? "its connectivity rounds first (-D " + START_ROUNDS + "=on)"
                : "it measures worse; its connectivity rounds first");
        ml = startRounds(ml, u0, n, rounds, log);
      }
      if (ml != null) {
        Map<String, Object> entry = startEntry(RefineUTool.START_MULTILEVEL, ml);
        starts.add(entry);
        boolean better = ml.measuresBetterThan(cur);
        LOG.info("{}: multilevel start M_max {}, T_sum {} against the '{}' start's {}, {}: {}", step,
            ml.maxWorkingSet(), ml.sumTraffic(), start, cur.maxWorkingSet(), cur.sumTraffic(),
            better ? "refining the multilevel start" : "keeping the '" + start + "' start");
        if (better) {
          discard(cur, u0);
          cur = ml;
          start = RefineUTool.START_MULTILEVEL;
          if (weightWindow != null) {
            // the window of the start refined (the in-memory rule): around its own weights
            weightWindow = URefinement.weightWindow(cur.weights.perPart, cur.weights.heaviest);
            LOG.info("{}: every part's weight stays within [{}, {}] from the multilevel start", step, weightWindow[0],
                weightWindow[1]);
          }
        } else {
          discard(ml, null);
        }
      }
    }
    for (Map<String, Object> e : starts) {
      if (e.get("start").equals(start)) {
        e.put("kept", true);
      }
    }
    LOG.info("{}: distributed refinement: {} rows in {} blocks, k={}, start '{}' M_max {}, T_sum {} ({} s)", step,
        n, numBlocks, k, start, cur.maxWorkingSet(), cur.sumTraffic(), secs(t0));
    long m0 = cur.maxWorkingSet();
    long s0 = cur.sumTraffic();
    // what the refinement falls back on where its end measures worse: the start, or the V-cycles' result on it
    Measure chosen = cur;
    String fallbackWhat = "the '" + start + "' start";
    startU = cur.u;
    if (useGroups && groups.before > 0) {
      cur = groupCycles(cur, u0, n, groups.before, g, RefineUTool.CAP_SLACK, rounds, "before", true,
          new double[] {1}, false, log);
      if (!cur.u.equals(chosen.u) && !chosen.measuresBetterThan(cur)) {
        Measure given = chosen;
        chosen = cur;
        fallbackWhat = "the V-cycles' result before the rounds";
        startU = cur.u;
        discard(given, u0);
      }
    }
    boolean distributedSwaps = groups.swaps || !useGroups;
    if (!distributedSwaps && groups.rounds > 0 && rounds > 0 && schedule.length > 0) {
      if (room > 0) {
        // with room, one exponent at a time: a group keeps its result by its schedule's first exponent, and the p = 1
        // rounds that use the room raise a working set, which a p > 1 objective would count against them
        for (double p : schedule) {
          cur = groupCycles(cur, u0, n, groups.rounds, g, 0, rounds, "rounds", false, new double[] {p}, false, log);
        }
      } else {
        cur = groupCycles(cur, u0, n, groups.rounds, g, 0, rounds, "rounds", false, schedule, false, log);
      }
    }
    if (distributedSwaps && schedule.length > 0) {
      cur = swapRounds(verified(cur), u0, n, schedule, rounds, log); // the gain job reads the count job's counts
    }
    if (!useGroups) {
      cur = coarseCycles(cur, u0, n, conf.getInt(COARSE_VCYCLES, flowsRegime ? DEFAULT_COARSE_VCYCLES : 0), false,
          rounds, log);
    }
    if (useGroups && groups.after > 0) {
      cur = groupCycles(cur, u0, n, groups.after, g, 0, rounds, "after", true, new double[] {1}, groups.everyAfter,
          log);
    }
    // where a group of rows holds every part, the group cycles refined all of them at once already (cnr-2000: one
    // coarse cycle more, T_sum 16,744 -> 16,688, the next dropped)
    boolean allPartsInAGroup = useGroups && g >= k;
    cur = coarseCycles(cur, u0, n, conf.getInt(COARSE_GROUP_CYCLES, multilevelRan
        && !allPartsInAGroup ? DEFAULT_COARSE_GROUP_CYCLES : 0), true, rounds, log);
    Measure end = verified(cur);
    startU = null; // from here on discarded by choice
    boolean fallBack = keepBetterStart && !end.u.equals(chosen.u) && chosen.measuresBetterThan(end);
    if (fallBack && chosen.maxWorkingSet() > givenMaxWorkingSet && end.maxWorkingSet() <= givenMaxWorkingSet) {
      // the fallback never leaves the largest working set above the given start's where the end brought it within
      LOG.info("{}: the refinement ended at M_max {}, T_sum {}; {} (M_max {}, T_sum {}) measures better but holds a"
          + " working set above the given start's M_max {}: the end is kept", step, end.maxWorkingSet(),
          end.sumTraffic(), fallbackWhat, chosen.maxWorkingSet(), chosen.sumTraffic(), givenMaxWorkingSet);
      fallBack = false;
    }
    if (fallBack) {
      // the start, measured again (its counts may be gone): the count job must find what it measured before
      Measure back = verified(new Measure(chosen.u, null, chosen.rows, chosen.workingSets, chosen.keys,
          chosen.weights, chosen.pairs));
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("phase", "the rounds given up");
      end.putFigures(e);
      e.put("kept", false);
      log.add(e);
      LOG.info("{}: the refinement ended at M_max {}, T_sum {}, which measures worse than {} (M_max {}, T_sum {}):"
          + " that is kept", step, end.maxWorkingSet(), end.sumTraffic(), fallbackWhat, back.maxWorkingSet(),
          back.sumTraffic());
      discard(end, u0);
      end = back;
    } else if (!chosen.u.equals(end.u)) {
      discard(chosen, u0);
    }
    return new Result(end, start, m0, s0, starts, log);
  }

  /**
   * The connectivity rounds (p = 1: the refinement's own chunk rounds, or swap rounds with {@code --distributed-rounds
   * swaps}) of a multilevel start placed as clusters ({@link #START_ROUNDS}), before it is measured against the other
   * start: its rows moved as whole clusters and then one by one only by the balance flows, where the in-memory start
   * refines every level down to the rows. Their entries in {@code log} name the start.
   */
  private Measure startRounds(Measure ml, Path u0, long n, int rounds, List<Map<String, Object>> log)
      throws Exception {
    int from = log.size();
    long t0 = System.nanoTime();
    Measure refined = swapRounds(ml, u0, n, new double[] {1}, rounds, log);
    for (int i = from; i < log.size(); i++) {
      log.get(i).put("start", RefineUTool.START_MULTILEVEL);
    }
    LOG.info("{}: multilevel start refined by connectivity rounds: M_max {} -> {}, T_sum {} -> {} ({} s)", step,
        ml.maxWorkingSet(), refined.maxWorkingSet(), ml.sumTraffic(), refined.sumTraffic(), secs(t0));
    return refined;
  }

  /**
   * Up to {@code cycles} coarse V-cycles ({@link #COARSE_VCYCLES}; they end where {@link #COARSE_VCYCLE_DROPS} in a
   * row were dropped) or, with
   * {@code inGroups}, coarse group cycles ({@link #COARSE_GROUP_CYCLES}; a dropped one does not end them where the
   * next groups the parts otherwise, only where one group held them all) from {@code cur}, each kept where it
   * measures better and then polished by connectivity swap rounds: the flows after its projection moved rows one by
   * one (cnr-2000 at 32 MiB after the coarse V-cycle: one round, T_sum 18,658 → 18,278).
   */
  private Measure coarseCycles(Measure cur, Path u0, long n, int cycles, boolean inGroups, int rounds,
      List<Map<String, Object>> log) throws Exception {
    String what = inGroups ? "coarse group cycle" : "coarse V-cycle";
    if (cycles > 0 && cur.weights.fractional > 0) {
      // their clusters and flows weigh whole-number weights, as the multilevel start's
      LOG.info("{}: no {}s: weighted rows with weights that are not whole numbers", step, what);
      return cur;
    }
    int dropsInARow = 0;
    for (int cycle = 1; cycle <= cycles && n >= 2L * k && k >= 2; cycle++) {
      cur = verified(cur);
      Measure v = multilevelStart(cur, n, 1, true, log, true, inGroups ? cycle : 0);
      if (v == null) {
        break;
      }
      // with room (setRoom), never above it or above cur's M_max where that is larger, as the rounds
      boolean aboveRoom = room > 0 && v.maxWorkingSet() > ceiling(cur, 1.0);
      boolean better = !aboveRoom && v.measuresBetterThan(cur);
      log.get(log.size() - 1).put("kept", better);
      LOG.info("{}: {} {}: M_max {} -> {}, T_sum {} -> {}: {}", step, what, cycle, cur.maxWorkingSet(),
          v.maxWorkingSet(), cur.sumTraffic(), v.sumTraffic(), better ? "kept" : aboveRoom
              ? "dropped (M_max above --max-working-set " + room + ")" : "dropped");
      if (!better) {
        discard(v, null);
        if (inGroups && log.get(log.size() - 1).get("placeGroupSize") instanceof Integer size && size < k) {
          continue; // the next cycle groups the parts otherwise; one group of all parts would only repeat this one
        }
        if (!inGroups && ++dropsInARow < conf.getInt(COARSE_VCYCLE_DROPS, DEFAULT_COARSE_VCYCLE_DROPS)) {
          continue; // the next places from a key sample of its own
        }
        break;
      }
      dropsInARow = 0;
      discard(cur, u0);
      cur = swapRounds(v, u0, n, new double[] {1}, rounds, log);
    }
    return cur;
  }

  /**
   * The distributed swap rounds from {@code cur} (measured by a count job): up to {@code rounds} rounds per exponent of
   * {@code schedule}, each a gain, a pair and an apply job, kept where it lowers Σ M_i^p without raising M_max. Returns
   * the last kept assignment.
   */
  private Measure swapRounds(Measure cur, Path u0, long n, double[] schedule, int rounds,
      List<Map<String, Object>> log) throws Exception {
    if (chunkRounds) {
      return chunkRounds(cur, u0, n, schedule, rounds, log);
    }
    for (double p : schedule) {
      long maxPairs = Long.MAX_VALUE;
      int rejected = 0;
      Path candidates = null;
      boolean rate = true;
      boolean safe = false;
      for (int round = 1; round <= rounds; round++) {
        long tr = System.nanoTime();
        if (rate) {
          candidates = gain(cur, SwapGains.weights(cur.workingSets, p));
          rate = false;
        }
        long ceiling = ceiling(cur, p);
        long[] paired = pair(candidates, maxPairs, budgets(cur.workingSets, ceiling), weightRooms(cur), safe);
        long swaps = paired[0];
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("exponent", p);
        e.put("round", round);
        if (ceiling > cur.maxWorkingSet()) {
          e.put("room", ceiling);
        }
        e.put("rowsMoved", 2 * swaps);
        if (swaps == 0) {
          e.put("kept", false);
          e.put("seconds", secs(tr));
          log.add(e);
          LOG.info("{}: p={} round {}: no swap gains", step, p, round);
          break;
        }
        Measure next = movedAndCounted(cur, new Path(candidates.getParent(), "moves"), 2 * swaps, n,
            "a round of swaps");
        double change = cur.changePercent(next, p, k);
        boolean kept = keeps(next, change, ceiling);
        e.put("objectiveChangePercent", change);
        next.putFigures(e);
        e.put("maxSwapsPerPair", paired[1]);
        e.put("safeBudgets", safe);
        e.put("kept", kept);
        e.put("seconds", secs(tr));
        log.add(e);
        LOG.info("{}: p={} round {}: {} rows swapped (at most {} per pair{}), objective {}%, M_max {} -> {}, T_sum {}"
            + " -> {}: {} ({} s)", step, p, round, 2 * swaps, paired[1], safe ? ", bounded growth" : "",
            String.format("%+.2f", change),
            cur.maxWorkingSet(), next.maxWorkingSet(), cur.sumTraffic(), next.sumTraffic(),
            kept ? "kept" : "dropped", secs(tr));
        if (kept) {
          discard(cur, u0);
          fs.delete(candidates.getParent(), true);
          cur = next;
          rate = true;
          safe = false;
          maxPairs = Long.MAX_VALUE;
          if (change > -RefineUTool.MIN_ROUND_GAIN_PERCENT) {
            break;
          }
        } else {
          discard(next, null);
          if (++rejected >= MAX_REJECTED) {
            break;
          }
          if (next.maxWorkingSet() > ceiling && !safe) {
            safe = true; // the same candidates again, paired within the provable bound
          } else if (paired[1] <= 1) {
            break;
          } else {
            maxPairs = Math.max(1, paired[1] / 2);
          }
        }
      }
      if (candidates != null && fs.exists(candidates.getParent())) {
        fs.delete(candidates.getParent(), true);
      }
    }
    return cur;
  }

  /**
   * The distributed rounds' keep rule: {@code next}, {@code change} percent of the objective from {@code cur}, is kept
   * if the objective fell and M_max did not rise above {@code ceiling} (cur's M_max, or the room: {@link #ceiling}).
   */
  private static boolean keeps(Measure next, double change, long ceiling) {
    return change < 0 && next.maxWorkingSet() <= ceiling;
  }

  /**
   * {@code cur}'s assignment with the {@code moved} moves of {@code moves} applied, measured by the count job; throws
   * if any part's number of rows changed ({@code what}, the swap rounds, moves rows in swaps only).
   */
  private Measure movedAndCounted(Measure cur, Path moves, long moved, long n, String what) throws Exception {
    return sameRows(cur, count(apply(cur.u, moves, moved, n)), what);
  }

  /**
   * {@code next}, measured after {@code what} moved rows of {@code cur}; throws if any part's rows changed (unit rows
   * move in swaps only), or with weighted rows, if the rows over all parts changed or a part's weight left the window
   * (a chunk round moves weighted rows singly too).
   */
  private Measure sameRows(Measure cur, Measure next, String what) {
    if (weightWindow != null ? Arrays.stream(next.rows).sum() != Arrays.stream(cur.rows).sum()
        : !Arrays.equals(next.rows, cur.rows)) {
      throw new io.parsa.jobs.mr.ConsistencyException(step + ": rows per part changed by " + what + ": "
          + Arrays.toString(cur.rows) + " -> " + Arrays.toString(next.rows));
    }
    if (weightWindow != null && next.weights.perPart != null && Arrays.stream(next.weights.perPart)
        .anyMatch(x -> x < weightWindow[0] || x > weightWindow[1])) {
      throw new io.parsa.jobs.mr.ConsistencyException(step + ": a part's weight left [" + weightWindow[0] + ", "
          + weightWindow[1] + "] by " + what + ": " + Arrays.toString(cur.weights.perPart) + " -> "
          + Arrays.toString(next.weights.perPart));
    }
    return next;
  }

  /**
   * Reduce tasks of a chunk job (default 0: as many as the other jobs' reducers, at most one per block). A task
   * refines its blocks in turn, each seeing the moves of those before it ({@link ChunkReducer}), so only blocks of
   * different tasks can meet on a key: fewer tasks, fewer such meetings, less parallelism.
   */
  public static final String CHUNK_TASKS = "parsa.refine.chunk.tasks";

  /**
   * How far a chunk round at p &gt; 1 that measured worse shrinks each block's share of the parts' headroom before it
   * gives up: a factor of 4 per try, up to this (the blocks' moves meet on the largest working sets, where Σ M_i^p
   * is steepest).
   */
  static final int MAX_CHUNK_DAMPING = 64;

  /**
   * Chunk rounds from {@code cur} (measured by a count job), where the swap rounds would run ({@link #swapRounds}):
   * per exponent p of {@code schedule}, up to {@code rounds} jobs, each refining every block's rows by up to
   * {@code rounds} in-memory swap rounds (at p = 1 after a V-cycle) with the other blocks' rows as fixed pins
   * ({@link ChunkReducer}), kept where it lowers Σ M_i^p without raising M_max; a dropped job or one that gains under
   * {@link RefineUTool#MIN_ROUND_GAIN_PERCENT} ends the exponent's jobs. A p = 1 job that lowered Σ M_i but lifted
   * M_max (the blocks' moves met on the largest working set) is followed by one repair job at p = {@link
   * #REPAIR_EXPONENT} from its result, and the two are kept together where they measure better than {@code cur} by
   * the same rule. A dropped try is tried again with smaller shares of the headroom, and after a p = 1 try that lifted
   * M_max by d, with every part kept 2·d below M_max ({@link ChunkReducer#MAX_MARGIN}, doubled per such try). Beside
   * the repair job, a p = 1 job that lifted M_max is run again with the parts it lifted changed by one block only
   * ({@link #frozenRetry}), and the better of the two by the balanced rule is kept; in turn, the retry runs first and
   * the repair only where the retry lost much of the try's gain ({@link #REPAIR_UNLESS_RETRY_KEEPS}). Once a kept retry
   * held most of the try's gain, the exponent's later tries freeze the parts at M_max from the start
   * ({@link #FREEZE_AHEAD}). Returns the last kept assignment.
   */
  private Measure chunkRounds(Measure cur, Path u0, long n, double[] schedule, int rounds,
      List<Map<String, Object>> log) throws Exception {
    for (double p : schedule) {
      // each task's share of every part's headroom is 1 / (tasks · damping); 0: uncapped (p = 1 with swaps alone
      // until a round lifts M_max: their moves seldom meet on the largest working set; the chunk V-cycles' moves did:
      // on cnr-2000, every uncapped V-cycle round lifted M_max by 4–13 %); one task's count is exact, so it is capped at
      // M_max (the whole headroom) and never lifts it
      int damping = p > 1 || chunkTasks == 1 || conf.getBoolean(ChunkReducer.VCYCLES, true) ? 1 : 0;
      // keys every part stays below M_max: set where a p = 1 try lifted M_max, as the headroom's shares cannot keep the
      // blocks from meeting on the largest part (it has no headroom to share; at 3·10^7 non-zeros two tries lifted it by
      // 190 and 479 keys of 1,386,269 while lowering T_sum by 17 %, and were dropped)
      long margin = 0;
      // set once a p = 1 round kept a frozen retry that held most of the try's gain: later tries of this exponent freeze
      // the parts at M_max at once (FREEZE_AHEAD)
      boolean freezeAhead = false;
      for (int round = 1; round <= rounds; round++) {
        long tr = System.nanoTime();
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("phase", "chunk round");
        e.put("exponent", p);
        e.put("round", round);
        cur = verified(cur); // the chunk job reads the count job's counts
        if (margin > 0) {
          e.put("maxMargin", margin);
        }
        int[] ahead = null;
        int aheadOwner = -1;
        if (freezeAhead && chunkTasks > 1) {
          ahead = partsToFreeze(cur.workingSets, cur.workingSets, ceiling(cur, p));
          aheadOwner = (int) (frozenTries++ % numBlocks);
          Map<String, Object> a = new LinkedHashMap<>();
          a.put("frozenParts", ahead);
          a.put("frozenOwner", aheadOwner);
          e.put("frozenAhead", a);
        }
        Measure next = chunkJob(cur, p, damping, margin, owners(ahead, aheadOwner), rounds, n, e);
        if (next == null) {
          e.put("kept", false);
          e.put("seconds", secs(tr));
          log.add(e);
          LOG.info("{}: p={} chunk round {}: no moves", step, p, round);
          break;
        }
        double change = cur.changePercent(next, p, k);
        long ceiling = ceiling(cur, p);
        boolean kept = keeps(next, change, ceiling);
        e.put("objectiveChangePercent", change);
        next.putFigures(e);
        if (!kept && p <= 1 && change < 0) {
          // the blocks met on the largest working set: the same job again with the parts they met on changed by one
          // block only, and a repair job from the try's result; of the two, each kept where it measures better than
          // the round's start by the rule above, the one that measures better by the balanced rule is kept
          // (independent chains of jobs: run side by side where CONCURRENT_CANDIDATES allows, else in turn)
          Map<String, Object> f = new LinkedHashMap<>();
          final Measure start = cur;
          final Measure lifted = next;
          final int d = damping;
          final long mg = margin;
          java.util.concurrent.Callable<Measure> retry = null;
          if (chunkTasks > 1 && next.maxWorkingSet() > ceiling && conf.getBoolean(FREEZE_MAX, true)) {
            e.put("frozenRetry", f);
            retry = () -> frozenRetry(start, lifted, p, d, mg, rounds, n, f);
          }
          Map<String, Object> r = new LinkedHashMap<>();
          r.put("exponent", REPAIR_EXPONENT);
          java.util.concurrent.Callable<Measure> repair = () -> chunkJob(verified(lifted), REPAIR_EXPONENT,
              conf.getInt(REPAIR_DAMPING, 1), 0, null, rounds, n, r);
          Measure frozen;
          Measure repaired = null;
          boolean concurrent = retry != null && conf.getBoolean(CONCURRENT_CANDIDATES, false);
          if (concurrent) {
            Measure[] both = sideBySide(retry, repair);
            frozen = both[0];
            repaired = both[1];
          } else {
            frozen = retry == null ? null : retry.call();
          }
          // the retry's share of the try's gain: whether the repair is needed, and whether later tries freeze ahead
          double share = frozen == null ? 0 : cur.changePercent(frozen, p, k) / change;
          if (!concurrent) {
            // in turn: the retry first, and the repair only where the retry lost much of the try's gain
            double skipAt = conf.getDouble(REPAIR_UNLESS_RETRY_KEEPS, DEFAULT_REPAIR_UNLESS_RETRY_KEEPS);
            if (frozen != null && share >= skipAt) {
              r.put("skipped", true);
              r.put("retryShareOfTheTrysGain", share);
              LOG.info("{}: p={} chunk round {}: the frozen retry kept {}% of the try's gain (at least {}%): no repair"
                  + " job", step, p, round, String.format("%.1f", 100 * share), String.format("%.0f", 100 * skipAt));
            } else {
              repaired = repair.call();
            }
          }
          if (repaired != null) {
            double fixedChange = cur.changePercent(repaired, p, k);
            r.put("objectiveChangePercent", fixedChange);
            repaired.putFigures(r);
            boolean fixed = keeps(repaired, fixedChange, ceiling);
            r.put("kept", fixed);
            LOG.info("{}: p={} chunk round {}: M_max {} -> {}, T_sum {} -> {}; a repair job at p={}: M_max {}, T_sum {},"
                + " objective {}% against the round's start: {}", step, p, round, cur.maxWorkingSet(),
                next.maxWorkingSet(), cur.sumTraffic(), next.sumTraffic(), REPAIR_EXPONENT, repaired.maxWorkingSet(),
                repaired.sumTraffic(), String.format("%+.2f", fixedChange), fixed ? "a candidate" : "dropped");
            if (!fixed) {
              discard(repaired, null);
              repaired = null;
            }
          }
          e.put("repair", r);
          Measure best = frozen;
          if (repaired != null && (best == null || repaired.measuresBetterThan(best))) {
            best = repaired;
          }
          for (Measure other : new Measure[] {frozen, repaired}) {
            if (other != null && other != best) {
              discard(other, null);
            }
          }
          if (best != null) {
            Map<String, Object> t = new LinkedHashMap<>();
            t.put("rowsMoved", e.get("rowsMoved"));
            next.putFigures(t);
            e.put("liftedTry", t);
            discard(next, null);
            next = best;
            change = cur.changePercent(best, p, k);
            kept = true;
            e.put("keptBy", best == frozen ? "frozen retry" : "repair");
            if (best == frozen) {
              e.put("rowsMoved", f.get("rowsMoved"));
              // where freezing cost little of the try's gain, the exponent's later tries freeze at once
              freezeAhead = share >= conf.getDouble(FREEZE_AHEAD, DEFAULT_FREEZE_AHEAD);
              e.put("freezeAhead", freezeAhead);
            }
            e.put("objectiveChangePercent", change); // the round's figures are the kept job's (with the try's repair)
            next.putFigures(e);
          }
        }
        e.put("kept", kept);
        e.put("seconds", secs(tr));
        log.add(e);
        LOG.info("{}: p={} chunk round {}{}: {} rows moved, objective {}%, M_max {} -> {}, T_sum {} -> {}: {} ({} s)",
            step, p, round, ahead == null ? "" : " (parts " + Arrays.toString(ahead) + " changed by block " + aheadOwner
            + " alone)", e.get("rowsMoved"), String.format("%+.2f", change), cur.maxWorkingSet(), next.maxWorkingSet(),
            cur.sumTraffic(), next.sumTraffic(), kept ? "kept" : "dropped", secs(tr));
        if (!kept) {
          discard(next, null);
          if (chunkTasks > 1 && damping < MAX_CHUNK_DAMPING && (p > 1 || next.maxWorkingSet() > ceiling)) {
            // the blocks' moves met: the next try gives each a (smaller) share of every part's headroom, and where
            // they lifted M_max at p = 1, keeps every part twice that lift below it
            damping = damping == 0 ? 1 : damping * 4;
            if (p <= 1 && next.maxWorkingSet() > ceiling) {
              margin = Math.max(2 * margin, 2 * (next.maxWorkingSet() - ceiling));
            }
            continue;
          }
          break;
        }
        discard(cur, u0);
        cur = next;
        // (at p = 1 against Σ M_i, as the swap rounds: counted against T_sum instead, the rounds ran on at cnr-2000 with
        // 32 MiB reducers to a lower T_sum, after which the coarse V-cycle was dropped and the end was 22,845 / 21,204
        // against 23,899 / 17,300; docs/quality.md §35)
        if (change > -RefineUTool.MIN_ROUND_GAIN_PERCENT) {
          break;
        }
      }
    }
    return cur;
  }

  /**
   * Whether independent chains of jobs of the distributed rounds run side by side (default false): a p = 1 chunk job's
   * frozen retry and its repair job ({@link #chunkRounds}), each a chunk job and the count job that applies its moves.
   * Where the cluster has free containers and cores for both, the round takes the longer chain's time instead of the
   * sum; where it has not, their tasks contend: on the 2-core pseudo-cluster at 3·10^7 non-zeros the two chains took
   * 509 s side by side against 399 s in turn (docs/quality.md §41).
   */
  public static final String CONCURRENT_CANDIDATES = "parsa.refine.concurrent-candidates";

  /**
   * The results of {@code first} and {@code second}, {@code first} on a thread of its own while {@code second} runs on
   * this one ({@link #CONCURRENT_CANDIDATES}; the caller runs them in turn otherwise). Where either throws, the other
   * is still waited for (its files discarded), so no job of the refinement outlives it; the first failure is thrown.
   */
  private Measure[] sideBySide(java.util.concurrent.Callable<Measure> first,
      java.util.concurrent.Callable<Measure> second) throws Exception {
    java.util.concurrent.ExecutorService ex = java.util.concurrent.Executors.newSingleThreadExecutor(t -> {
      Thread th = new Thread(t, step + " side job");
      th.setDaemon(true);
      return th;
    });
    try {
      java.util.concurrent.Future<Measure> a = ex.submit(first);
      Measure b;
      try {
        b = second.call();
      } catch (Exception | Error failed) {
        try {
          Measure lost = a.get();
          if (lost != null) {
            discard(lost, null);
          }
        } catch (java.util.concurrent.ExecutionException other) {
          failed.addSuppressed(other.getCause());
        }
        throw failed;
      }
      try {
        return new Measure[] {a.get(), b};
      } catch (java.util.concurrent.ExecutionException failed) {
        if (b != null) {
          discard(b, null);
        }
        Throwable cause = failed.getCause();
        if (cause instanceof Exception x) {
          throw x;
        }
        throw (Error) cause;
      }
    } finally {
      ex.shutdown();
    }
  }

  /**
   * Whether a p = 1 chunk job that lowered Σ M_i but lifted M_max is also run again from the same start with the parts
   * at or above the start's M_max changed by one block only ({@link ChunkReducer#PART_OWNERS}, {@link #frozenRetry};
   * default true), beside its repair job.
   */
  public static final String FREEZE_MAX = "parsa.refine.chunk.freeze-max";

  /**
   * Once a p = 1 chunk round kept its frozen retry ({@link #FREEZE_MAX}) and the retry held at least this share of the
   * try's gain in Σ M_i (default {@link #DEFAULT_FREEZE_AHEAD}; above 1: never), the later tries of that exponent's
   * rounds run with the parts at M_max frozen from the start (changed by one block only, the owner turning as the
   * retries' does). Where the blocks met on the largest part once, they meet there again: at 3·10^7 non-zeros every
   * p = 1 try lifted M_max on the same part and only its frozen retry, at 95–99.8 % of the try's gain, was kept, so
   * each round ran two chains of jobs for one result. Where the retry held less, freezing costs: on cnr-2000 with
   * 8 MiB reducers (76 %) two frozen tries ended the refinement at T_sum 20,188 instead of 19,434 (docs/quality.md
   * §43). A frozen try that still lifts M_max (on a part below it) is retried and repaired as any other.
   */
  public static final String FREEZE_AHEAD = "parsa.refine.chunk.freeze-ahead";

  /** Default of {@link #FREEZE_AHEAD}: as {@link #DEFAULT_REPAIR_UNLESS_RETRY_KEEPS}, where the retry needs no repair. */
  static final double DEFAULT_FREEZE_AHEAD = 0.9;

  /** The frozen retries and frozen tries run so far: the next one's owner block is this, modulo the blocks. */
  private long frozenTries;

  /** The placements from a key sample made so far: the next one draws sample number this (SharedKeys#LIST_SAMPLE). */
  private long keySamples;

  /**
   * A p = 1 chunk job {@code lifted} from {@code cur} lowered Σ M_i and lifted M_max: its blocks met on the largest
   * parts (a part's working set is the union of its rows' keys, so each block's count of it is exact only while no
   * other block changes its rows). The same job again from {@code cur}, with the parts at cur's M_max and those the
   * try lifted above it frozen for every block but one, in turn; that one's count of them is exact. Returns its result
   * where it moved rows and measures better than {@code cur} ({@link #keeps}), else null (its files discarded); logged
   * in {@code f}. At 3·10^7 non-zeros every p = 1 try had lifted M_max by 0.1–0.2 % on the part holding a row of
   * 1.3·10^6 keys, and the repair job at p = 8 then gave back most of the T_sum it had won (docs/quality.md §40).
   */
  private Measure frozenRetry(Measure cur, Measure lifted, double p, int damping, long margin, int rounds, long n,
      Map<String, Object> f) throws Exception {
    long ceiling = ceiling(cur, p);
    int[] frozen = partsToFreeze(cur.workingSets, lifted.workingSets, ceiling);
    int owner = (int) (frozenTries++ % numBlocks);
    f.put("frozenParts", frozen);
    f.put("frozenOwner", owner);
    Measure again = chunkJob(cur, p, damping, margin, owners(frozen, owner), rounds, n, f); // verified by the round
    if (again == null) {
      f.put("kept", false);
      return null;
    }
    double change = cur.changePercent(again, p, k);
    boolean kept = keeps(again, change, ceiling);
    f.put("objectiveChangePercent", change);
    again.putFigures(f);
    f.put("kept", kept);
    LOG.info("{}: p={} chunk job: M_max {} -> {}, T_sum {} -> {}; again with parts {} changed by block {} alone: M_max"
        + " {}, T_sum {}, objective {}% against the round's start", step, p, cur.maxWorkingSet(),
        lifted.maxWorkingSet(), cur.sumTraffic(), lifted.sumTraffic(), Arrays.toString(frozen), owner,
        again.maxWorkingSet(), again.sumTraffic(), String.format("%+.2f", change));
    if (!kept) {
      discard(again, null);
      return null;
    }
    return again;
  }

  /**
   * The parts a {@link #frozenRetry} freezes: those at the largest of the working sets {@code start}, and those
   * {@code lifted} holds above it; with room ({@code ceiling} above the largest, {@link #ceiling}), those lifted above
   * the room.
   */
  static int[] partsToFreeze(long[] start, long[] lifted, long ceiling) {
    long max = Math.max(ceiling, Arrays.stream(start).max().orElse(0));
    return java.util.stream.IntStream.range(0, start.length).filter(i -> start[i] == max || lifted[i] > max).toArray();
  }

  /**
   * The {@link ChunkReducer#PART_OWNERS} that leave the parts {@code frozen} to block {@code owner} alone and every
   * other part to any block; null where none is frozen.
   */
  private int[] owners(int[] frozen, int owner) {
    if (frozen == null || frozen.length == 0) {
      return null;
    }
    int[] owners = new int[k];
    Arrays.fill(owners, -1);
    for (int part : frozen) {
      owners[part] = owner;
    }
    return owners;
  }

  /** Exponent of the job that repairs a p = 1 chunk job's lifted M_max ({@link #chunkRounds}). */
  static final double REPAIR_EXPONENT = 8;

  /**
   * The repair job of a p = 1 chunk job that lifted M_max is not run where its frozen retry, run first, kept at least
   * this share of the try's gain in Σ M_i (default {@link #DEFAULT_REPAIR_UNLESS_RETRY_KEEPS}; above 1: always run;
   * side by side ({@link #CONCURRENT_CANDIDATES}) both run). The repair starts from the try's result and at p = 8 gives
   * back T_sum to lower M_max: at 3·10^7 non-zeros it lost all three times, each after a retry that had kept 95–99.7 %
   * of the gain, and cost a third of each p = 1 round; on ego-twitter it won after a retry that had kept 58 %, and on
   * cnr-2000 the retry, at 76 %, was kept over it (docs/quality.md §42).
   */
  static final String REPAIR_UNLESS_RETRY_KEEPS = "parsa.refine.chunk.repair-unless-retry-keeps";

  /** Default of {@link #REPAIR_UNLESS_RETRY_KEEPS}. */
  static final double DEFAULT_REPAIR_UNLESS_RETRY_KEEPS = 0.9;

  /** Damping of the repair job: each block may grow a part by 1 / (blocks · damping) of its headroom. */
  static final String REPAIR_DAMPING = "parsa.refine.chunk.repair-damping";

  /**
   * One chunk job from {@code cur} (its counts verified) at exponent {@code p}, each of its {@link #chunkTasks} tasks
   * given 1 / (tasks · damping) of every part's headroom (damping 0: uncapped), the parts {@code owners} name changed
   * by their block alone (null: none), its moves applied and measured; null if it moved no row. Its counters go to
   * {@code e}; with one task, its count of the change of Σ M_i must be the count job's measure.
   */
  private Measure chunkJob(Measure cur, double p, int damping, long margin, int[] owners, int rounds, long n,
      Map<String, Object> e) throws Exception {
    Job job = perBlockJob("refine each block's rows with the others fixed", cur, ChunkReducer.class,
        IntWritable.class);
    Configuration c = job.getConfiguration();
    c.setStrings(ChunkReducer.WORKING_SETS, Arrays.stream(cur.workingSets).mapToObj(Long::toString)
        .toArray(String[]::new));
    c.setLong(ChunkReducer.KEYS, cur.keys);
    c.setDouble(ChunkReducer.EXPONENT, p);
    c.setInt(ChunkReducer.ROUNDS, rounds);
    job.setNumReduceTasks(chunkTasks);
    c.setInt(ChunkReducer.TASKS_AT_ONCE, chunkTasks * damping);
    c.setLong(ChunkReducer.MAX_MARGIN, margin);
    long ceiling = ceiling(cur, p);
    if (ceiling > cur.maxWorkingSet()) {
      c.setLong(ChunkReducer.ROOM, ceiling);
      e.put("room", ceiling);
    }
    if (owners != null) {
      c.setStrings(ChunkReducer.PART_OWNERS, Arrays.stream(owners).mapToObj(Integer::toString).toArray(String[]::new));
    }
    if (cur.weightedRows() > 0) {
      // every task keeps each part's weight within its share of the part's room in the window
      c.setStrings(ChunkReducer.PART_WEIGHTS, Arrays.stream(cur.weights.perPart).mapToObj(Double::toString)
          .toArray(String[]::new));
      c.setStrings(ChunkReducer.WEIGHT_WINDOW, Double.toString(weightWindow[0]), Double.toString(weightWindow[1]));
      c.setInt(ChunkReducer.WEIGHT_SHARES, chunkTasks);
      e.put("weightShares", chunkTasks);
    }
    Path dir = next("chunks");
    Path moves = new Path(dir, "moves");
    FileOutputFormat.setOutputPath(job, moves);
    Jobs.run(job);
    Jobs.checkZero(job, Counters.DUPLICATE_KEY_COUNTS, Counters.ROW_WITHOUT_PART, Counters.KEY_WITHOUT_COUNTS,
        Counters.STALE_KEY_COUNTS);
    Jobs.checkEqual(step + ": rows refined in chunks vs rows", n, Jobs.count(job, Counters.CHUNK_ROWS));
    long moved = Jobs.count(job, Counters.CHUNK_MOVES);
    e.put("rowsMoved", moved);
    e.put("slices", Jobs.count(job, Counters.CHUNK_SLICES));
    if (Jobs.count(job, Counters.CHUNK_CUTS_BY_MEASURE) > 0) {
      e.put("cutsByMeasure", Jobs.count(job, Counters.CHUNK_CUTS_BY_MEASURE));
    }
    if (Jobs.count(job, Counters.CHUNK_ROWS_TOO_LARGE) > 0) {
      e.put("rowsTooLarge", Jobs.count(job, Counters.CHUNK_ROWS_TOO_LARGE));
    }
    if (Jobs.count(job, Counters.CHUNK_ROWS_FROZEN) > 0) {
      e.put("rowsFrozen", Jobs.count(job, Counters.CHUNK_ROWS_FROZEN));
    }
    if (Jobs.count(job, Counters.CHUNK_VCYCLES) > 0) {
      e.put("vcycles", Jobs.count(job, Counters.CHUNK_VCYCLES));
      e.put("vcyclesKept", Jobs.count(job, Counters.CHUNK_VCYCLES_KEPT));
    }
    if (Jobs.count(job, Counters.CHUNK_VCYCLES_NOT_WHOLE) > 0) {
      e.put("vcyclesNotWhole", Jobs.count(job, Counters.CHUNK_VCYCLES_NOT_WHOLE));
    }
    e.put("headroomShare", damping == 0 ? 1.0 : 1.0 / (chunkTasks * damping));
    try {
      if (moved == 0) {
        return null;
      }
      // the moves applied in the count job's maps (block b's in one file, BlockPartitioner): no apply job
      Measure next = sameRows(cur, count(cur.u, moves, job.getNumReduceTasks(), moved), "a chunk round");
      long counted = Jobs.count(job, Counters.CHUNK_SUM_WORKING_SET_CHANGE);
      long measured = next.sumWorkingSet() - cur.sumWorkingSet();
      e.put("sumWorkingSetChangeCounted", counted);
      e.put("sumWorkingSetChangeMeasured", measured);
      // one task saw every move as it made it: its count is the assignment's
      Jobs.check(chunkTasks > 1 || counted == measured, "%s: the chunk job's one task counted a change of %d in the"
          + " sum of the working sets, the count job measured %d", step, counted, measured);
      return next;
    } finally {
      fs.delete(dir, true);
    }
  }

  /**
   * Up to {@code cycles} group cycles from {@code cur}: each is one MapReduce job whose reducers each refine the rows
   * of a group of {@code groupSize} parts ({@link GroupReducer}: with {@code vcycle} a capped V-cycle, then swap
   * rounds at each exponent of {@code groupSchedule}, over those parts alone; the groups of a cycle never interact,
   * so each group's exact gain is its share of the cycle's), then the apply job. The parts are grouped afresh each
   * cycle (seeded by the cycle and the {@code phase}: before, rounds or after), so that rows can travel between any
   * two parts over the cycles. Stops at a cycle that lowers Σ M_i^p (p the schedule's first exponent) by less than
   * {@link RefineUTool#MIN_ROUND_GAIN_PERCENT}, unless {@code every}. Its result is measured by the reducers' part
   * stats; the count job measures it again ({@link #verified}) before the swap rounds and at the end.
   */
  private Measure groupCycles(Measure cur, Path u0, long n, int cycles, int groupSize, double slack, int rounds,
      String phase, boolean vcycle, double[] groupSchedule, boolean every, List<Map<String, Object>> log)
      throws Exception {
    long cap = cur.maxWorkingSet(); // the phase's: a slack per cycle would compound
    // the room (setRoom) where it is above the cap, for the rounds and the V-cycles after them at p = 1 alone (a group
    // keeps its result by its schedule's first exponent)
    boolean roomed = !phase.equals("before") && Arrays.stream(groupSchedule).allMatch(x -> x == 1.0)
        && ceiling(cur, 1.0) > cap;
    for (int cycle = 1; cycle <= cycles; cycle++) {
      long tr = System.nanoTime();
      int salt = phase.equals("after") ? 1000 : phase.equals("rounds") ? 2000 : 0;
      int[] groupOf = grouping(k, groupSize, cycle + salt);
      int groups = Arrays.stream(groupOf).max().orElse(-1) + 1;
      if (groups == 0) {
        break;
      }
      String what = vcycle ? "group V-cycle " + cycle + " " + phase + " the rounds" : "group rounds " + cycle;
      final int seedCycle = cycle;
      GroupRun run = groupJob(cur, groupOf, n, what, c -> {
        c.setLong(GroupReducer.CAP, cap);
        if (roomed) {
          c.setLong(GroupReducer.ROOM, room);
        }
        // after the rounds a V-cycle's final row balancing that lifts a working set above the cap moves rows back
        // within it, so that the cycle is not dropped for it (docs/quality.md §71); with room, the rounds' too
        c.setBoolean(GroupReducer.HOLD_CAP, phase.equals("after") || room > 0 && !phase.equals("before"));
        c.setDouble(GroupReducer.SLACK, slack);
        c.setLong(GroupReducer.SEED, 1000L + seedCycle);
        c.setInt(GroupReducer.ROUNDS, rounds);
        c.setBoolean(GroupReducer.VCYCLE, vcycle);
        c.setStrings(GroupReducer.SCHEDULE, Arrays.stream(groupSchedule).mapToObj(Double::toString)
            .toArray(String[]::new));
      });
      long movedRows = run.moved;
      Measure next = new Measure(null, null, run.rows, run.workingSets, cur.keys, run.weights, cur.pairs);
      double change = cur.changePercent(next, groupSchedule[0], k);
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("groupVCycle", cycle);
      e.put("phase", vcycle ? "V-cycles " + phase + " the rounds" : "swap rounds in groups");
      e.put("groupSize", groupSize);
      e.put("groups", groups);
      if (roomed) {
        e.put("room", room);
      }
      e.put("groupsImproved", Jobs.count(run.job, Counters.GROUPS_IMPROVED));
      e.put("groupsTooBig", Jobs.count(run.job, Counters.GROUPS_TOO_BIG));
      e.put("rowsMoved", movedRows);
      next.putFigures(e);
      e.put("exponent", groupSchedule[0]);
      e.put("objectiveChangePercent", change);
      e.put("kept", movedRows > 0);
      Measure applied = movedRows > 0 ? applied(cur, run, n) : null;
      e.put("seconds", secs(tr));
      log.add(e);
      LOG.info("{}: {} ({} groups of up to {} parts, {} improved): {} rows moved, M_max {} -> {}, T_sum {} -> {},"
          + " objective (p={}) {}% ({} s)", step, what, groups, groupSize, e.get("groupsImproved"), movedRows,
          cur.maxWorkingSet(), next.maxWorkingSet(), cur.sumTraffic(), next.sumTraffic(), groupSchedule[0],
          String.format("%+.2f", change), secs(tr));
      fs.delete(run.dir, true);
      if (movedRows == 0) {
        if (groups == 1 && !vcycle) {
          break; // one group of all parts and deterministic rounds: nothing to regroup, nothing new to try
        }
        continue; // another grouping, or a V-cycle's next seed, may still find something
      }
      discard(cur, u0);
      cur = applied;
      if (change > -RefineUTool.MIN_ROUND_GAIN_PERCENT && !every) {
        break;
      }
    }
    return cur;
  }

  /**
   * How the distributed multilevel start balances its projected rows: groups (group cycles, a reducer holding the
   * rows of two or more parts), flows (the streaming balance, {@link #flowBalance}: no task holds a part's rows) or
   * auto (default: flows where not even two parts fit a reducer and no group size is set).
   */
  public static final String BALANCE = "parsa.refine.multilevel.balance";
  /**
   * Chunks per group of parts in the distributed multilevel start's clustering (default 0: the fewest with which a
   * chunk's rows fit a reducer's heap, {@link #chunksFor}); each chunk is a range of the group's row ids.
   */
  public static final String CHUNKS = "parsa.refine.multilevel.chunks";
  /** Balance cycles after which the distributed multilevel start gives up (each balances every group it forms). */
  static final int MAX_BALANCE_CYCLES = 8;
  /** Rows per cluster the distributed multilevel start's clustering aims at, in every group. */
  static final int MULTILEVEL_SHRINK = 16;
  /** Clustering levels the distributed multilevel start may add above the first, for clusters too many to place. */
  static final int MAX_FURTHER_LEVELS = 4;
  /** First-level groups placed together where the distributed multilevel start places in groups (default: fitted). */
  public static final String PLACE_FAN = "parsa.refine.multilevel.place.fan";
  /**
   * Share of a level's keys that must be held by one cluster of their group alone (a bound on those one cluster alone
   * holds) for the level to be rewritten with only its shared keys listed: below it the two jobs cannot pay.
   */
  static final double MIN_UNLISTED = 0.1;
  /**
   * Least keys per cluster, on average, a global placement may be made from where it sees a sample of the top level's
   * keys ({@link SharedKeys#SAMPLE}); where fewer fit the placing task, the first level is placed in groups (unless
   * the sample is set). On cnr-2000 a sample of 2.4 keys per first-level cluster still placed better than four groups
   * (docs/quality.md §30).
   */
  static final double MIN_SAMPLED_KEYS = 2;
  /**
   * Heap (bytes) the task that places the distributed multilevel start's clusters may use; further clustering levels
   * are added while the clusters would need more (default: a reducer's heap, from the job configuration).
   */
  public static final String PLACE_BYTES = "parsa.refine.multilevel.place.bytes";

  /**
   * Whether each placement from a key sample draws a sample of its own (boolean, default true), or all of them the
   * same one (false; the keys' hash alone, as before §74 of docs/quality.md).
   */
  public static final String FRESH_SAMPLES = "parsa.refine.multilevel.place.fresh-samples";

  /**
   * Whether a placement from a sample lists one net per set of holders weighing its keys, the sets sampled in
   * proportion to their keys ({@link SharedKeys#SetPieceMapper}; boolean, default true), or a sample of the keys
   * themselves (false, as before §75 of docs/quality.md).
   */
  public static final String HOLDER_SETS = "parsa.refine.multilevel.place.holder-sets";

  /**
   * The distributed multilevel start (the multilevel path of Duan, Wang and Wu, §5, split so that no task holds more
   * than a group of parts or the coarse graph), from {@code cur}, whose parts only decide which rows are clustered
   * together:
   * <ol>
   *   <li><b>cluster</b> ({@link GroupMapper}, {@link CoarsenReducer}): the rows of each group of {@code groupSize}
   *       consecutive parts are clustered as the multilevel partitioner coarsens, across the group's parts, to about
   *       1/{@link #MULTILEVEL_SHRINK} of them; clusters weigh at most what the in-memory fresh partition allows;</li>
   *   <li><b>place</b> ({@link PlaceReducer}, one reducer): all clusters, as weighted vertices holding the union of
   *       their rows' keys, coarsened further, placed and refined into k parts. Where they would not fit the placing
   *       task ({@link #PLACE_BYTES}), further levels cluster the clusters ({@link #furtherLevels}); where the top
   *       level still does not fit, it is placed from the largest sample of its shared keys that fits
   *       ({@link SharedKeys#SAMPLE}; working sets counted in units of 1/rate keys), and below
   *       {@link #MIN_SAMPLED_KEYS} per cluster the first level in groups;</li>
   *   <li><b>project</b> ({@link ProjectMapper}, with the apply job's reducer): every row to its cluster's part;</li>
   *   <li><b>balance</b>: group cycles ({@link GroupReducer#BALANCE}) over groups of parts whose rows together are
   *       within one of n/k per part ({@link #balanceGroups}), until every part has ⌊n/k⌋ or ⌈n/k⌉ rows.</li>
   * </ol>
   * Returns the start as the count job measures it (which must find the working sets and rows the placement and the
   * balance cycles reported), or null (with a warning) where the clusters did not fit one reducer or the rows could
   * not be balanced.
   */
  private Measure multilevelStart(Measure cur, long n, int groupSize, boolean flows, List<Map<String, Object>> log)
      throws Exception {
    return multilevelStart(cur, n, groupSize, flows, log, false);
  }

  /**
   * The distributed multilevel start, or with {@code vcycle} a coarse V-cycle of {@code cur} ({@link #COARSE_VCYCLES}):
   * the rows clustered per part (groups of one), further levels clustering only within a part, and the top level's
   * placement refining the parts the clusters come from instead of placing them afresh.
   */
  private Measure multilevelStart(Measure cur, long n, int groupSize, boolean flows, List<Map<String, Object>> log,
      boolean vcycle) throws Exception {
    return multilevelStart(cur, n, groupSize, flows, log, vcycle, 0);
  }

  /**
   * The same, and with {@code groupCycle} ≥ 1 (a coarse V-cycle) a coarse group cycle ({@link #COARSE_GROUP_CYCLES}):
   * the first-level clusters of each group of parts (that cycle's grouping, {@link #grouping}, of the most parts whose
   * clusters fit a placing task) refined among the group's parts in a placing task of their own.
   */
  private Measure multilevelStart(Measure cur, long n, int groupSize, boolean flows, List<Map<String, Object>> log,
      boolean vcycle, int groupCycle) throws Exception {
    boolean placeGroups = vcycle && groupCycle > 0;
    if (vcycle && !placeGroups && conf.getBoolean(PlaceReducer.IN_GROUPS, false)) {
      // its placing task refines all parts at once (PlaceReducer.GIVEN); placed in groups it would fail there
      LOG.info("{}: coarse V-cycle skipped: -D {} places in groups, which cannot refine across them", step,
          PlaceReducer.IN_GROUPS);
      return null;
    }
    long t0 = System.nanoTime();
    int g = vcycle ? 1 : Math.max(1, Math.min(groupSize, k));
    int groups = (k + g - 1) / g;
    int[] groupOf = new int[k];
    for (int p = 0; p < k; p++) {
      groupOf[p] = (int) ((long) p * groups / k); // consecutive parts: an input-order start's neighbouring ranges
    }
    Path dir = next("multilevel");
    Path clusters = new Path(dir, "clusters");
    // where a group's rows would not fit a task, each group is clustered in chunks of its rows (by id range)
    int chunks = conf.getInt(CHUNKS, 0);
    if (chunks <= 0) {
      chunks = chunksFor(Jobs.reducerHeapBytes(conf), (long) n * g / k, cur.pairs * g / k,
          Math.min(cur.keys, g * cur.maxWorkingSet()));
    }
    Job job = Jobs.newJob(conf, step, "multilevel start: cluster the rows of each group of parts"
        + (chunks > 1 ? " in " + chunks + " chunks" : ""), MrRefinement.class);
    groupMapSide(job, cur.u, groupOf);
    Configuration c = job.getConfiguration();
    if (chunks > 1) {
      if (minId > maxId) {
        throw new IllegalStateException(step + ": no row id range measured before the multilevel start");
      }
      LOG.info("{}: multilevel start: the rows of a group of {} parts would not fit a task: each group clustered in"
          + " {} chunks of its rows by id range", step, g, chunks);
      c.setInt(GroupMapper.CHUNKS, chunks);
      c.set(GroupMapper.ID_RANGE, minId + "," + maxId);
      job.setNumReduceTasks(groups * chunks);
    }
    io.parsa.engine.MultilevelPartitioner.Settings d = io.parsa.engine.MultilevelPartitioner.Settings.defaults();
    int maxClusterWeight = (int) Math.max(1, Math.ceil(1.5 * n / ((double) d.coarsestPerPart() * k)));
    // where the rows are balanced one by one (flows), the placement balances them as far as whole clusters can: no
    // cluster of a further level heavier than a small share of a part, placed within that share of n/k (the first
    // level's clusters are far lighter on average; capping them too cut them finer and left a coarser sample placed)
    double flowShare = conf.getDouble(FLOW_SHARE, flows ? FLOW_CLUSTER_SHARE : 0);
    int furtherWeight = maxClusterWeight;
    long budget = conf.getLong(PLACE_BYTES, Jobs.reducerHeapBytes(conf));
    if (flowShare > 0) {
      // but never so light that the top level could not be placed from a fair sample of its keys: at most about
      // twice the rows per cluster of the most clusters the placing task holds with COMFORT_SAMPLED_KEYS keys each
      // (on a 36,004-row slice with a 300 KB placing task, 1 % of n/k made 806 second-level clusters, too many even
      // for a sample, and the start was placed in groups: T_sum 17,464 instead of 1,392)
      furtherWeight = furtherWeight(maxClusterWeight, flowShare, n, k, placeableClusters(budget, COMFORT_SAMPLED_KEYS));
    }
    new CoarsenReducer.Clustering(MULTILEVEL_SHRINK, maxClusterWeight, 1).setIn(c);
    // weighted rows: clusters weigh their rows' weights, in units that keep all of them within an int (each row at least
    // one unit), and the further levels' clusters are capped at as many units as the first level's rows weigh on average
    boolean weighted = cur.weightedRows() > 0;
    double totalWeight = Arrays.stream(cur.weights.perPart).sum();
    double weightUnit = weighted ? Math.max(1, totalWeight / (1 << 30)) : 0;
    if (weighted) {
      c.setDouble(CoarsenReducer.WEIGHT_UNIT, weightUnit);
      furtherWeight = (int) Math.min(Integer.MAX_VALUE / 2, Math.ceil(furtherWeight
          * Math.max(1, totalWeight / weightUnit / n)));
    }
    job.setReducerClass(CoarsenReducer.class);
    c.setBoolean(CoarsenReducer.COMMUNITY_FRAGMENTS, conf.getBoolean(CoarsenReducer.COMMUNITY_FRAGMENTS,
        communityRegime && (vcycle || !startFromGiven)));
    job.setOutputKeyClass(IntWritable.class);
    job.setOutputValueClass(ClusterRow.class);
    job.setOutputFormatClass(SequenceFileOutputFormat.class);
    MultipleOutputs.addNamedOutput(job, CoarsenReducer.MEMBERS, SequenceFileOutputFormat.class, LongWritable.class,
        Move.class);
    FileOutputFormat.setOutputPath(job, clusters);
    Jobs.run(job);
    AlignedJoin.check(job);
    Jobs.checkZero(job, Counters.ROW_IN_WRONG_GROUP);
    Jobs.checkEqual(step + ": rows clustered vs rows", n, Jobs.count(job, Counters.GROUP_ROWS));
    long numClusters = Jobs.count(job, Counters.CLUSTERS);
    long clusteredInCommunities = Jobs.count(job, Counters.CLUSTERED_IN_COMMUNITIES);
    long pins = Jobs.count(job, Counters.CLUSTER_PINS);
    boolean inGroups = placeGroups || conf.getBoolean(PlaceReducer.IN_GROUPS, false);
    long groupPrivate = Jobs.count(job, Counters.GROUP_PRIVATE_PINS);
    int forcedGroupSize = conf.getInt(COARSE_GROUP_SIZE, 0);
    Levels levels;
    if (placeGroups && forcedGroupSize <= 0 && coarseGroupSize(k, numClusters, pins, budget) < 2) {
      // not even two parts' first-level clusters fit a placing task: clusters of clusters, each within its part, until
      // two parts' do (the coarse V-cycle's climb, to a group's fit instead of all parts')
      LOG.info("{}: coarse group cycle {}: two parts' share of the {} first-level clusters ({} keys listed) needs more"
          + " than the placing task's {} bytes: further levels within each part", step, groupCycle, numClusters, pins,
          String.format("%,d", budget));
      levels = furtherLevels(dir, clusters, numClusters, pins, groupPrivate, groups, chunks, cur.pairs, furtherWeight,
          budget, true, (cl, pi) -> coarseGroupSize(k, cl, pi, budget) >= 2);
    } else if (inGroups) {
      levels = new Levels(clusters, numClusters, pins, List.of(), List.of(numClusters), 0, clusters, pins);
    } else {
      levels = furtherLevels(dir, clusters, numClusters, pins, groupPrivate, groups, chunks, cur.pairs, furtherWeight,
          budget, vcycle, null);
    }
    // the first level alone, with its shared keys only if it was rewritten
    Levels first = new Levels(levels.firstTop(), numClusters, levels.firstPins(), List.of(), List.of(numClusters),
        levels.firstTop().equals(clusters) ? 0 : 1, levels.firstTop(), levels.firstPins());
    long topNeed = ClusterGraph.heapNeeded(levels.topClusters(), levels.topPins(), k);
    double sample = 1;
    boolean toGroups = false;
    if (!inGroups) {
      // the top level's keys the placing task sees: all where they fit, else a sample of them (a set rate is honoured;
      // a fitted one only where it keeps a few keys per cluster)
      double forced = conf.getDouble(SharedKeys.SAMPLE, 0);
      sample = forced > 0 ? Math.min(1, forced) : topNeed > budget ? sampleRate(levels.topClusters(),
          levels.topPins(), budget) : 1;
      toGroups = forced <= 0 && sample < 1 && sample * levels.topPins() < MIN_SAMPLED_KEYS * levels.topClusters();
      if (sample < 1 && !toGroups) {
        LOG.info("{}: multilevel start: {} clusters ({} keys listed) need {} bytes against the {} of the placing"
            + " task: placed from a sample of {} of their keys", step, levels.topClusters(), levels.topPins(),
            String.format("%,d", topNeed), String.format("%,d", budget), String.format("%.3f", sample));
      }
    }
    if (toGroups && vcycle) {
      LOG.info("{}: coarse V-cycle skipped: {} clusters ({} keys listed) do not fit the placing task's {} bytes even"
          + " from a sample of a few keys each", step, levels.topClusters(), levels.topPins(),
          String.format("%,d", budget));
      fs.delete(dir, true);
      return null;
    }
    if (toGroups) {
      // no level fits one task, not even with a sample of a few keys per cluster: each group's first-level clusters
      // into the group's own parts (a group's clusters hold at most the group's rows and keys, which its clustering
      // task held)
      LOG.info("{}: multilevel start: {} clusters ({} keys listed) still need {} bytes, more than the {} of the"
          + " placing task: the first level's clusters are placed in their {} groups", step, levels.topClusters(),
          levels.topPins(), String.format("%,d", topNeed), String.format("%,d", budget), groups);
      levels = first;
      inGroups = true;
      sample = 1;
    }

    Path placed = levels.top();
    long sampledPins = levels.topPins();
    long holderSets = -1;
    if (sample < 1) {
      // the top level once more with only a sample of its shared keys listed, the working sets in units of 1/sample
      // keys (SharedKeys)
      placed = new Path(dir, "sampled");
      long sampleNo = conf.getBoolean(FRESH_SAMPLES, true) ? keySamples++ : 0;
      if (conf.getBoolean(HOLDER_SETS, true)) {
        // one net per set of holders, weighing its keys: the sets sampled, at the highest rate that fits
        Listed listed = holderSets(levels.top(), placed, levels.topClusters(), levels.topPins(), sample,
            conf.getDouble(SharedKeys.SAMPLE, 0) > 0, sampleNo, budget);
        sampledPins = listed.pins();
        sample = listed.rate();
        holderSets = listed.sets();
      } else {
        sampledPins = sharedKeysOnly(levels.top(), placed, levels.topClusters(), levels.topPins(), sample, sampleNo);
      }
    }
    Path placement = new Path(dir, "placement");
    job = Jobs.newJob(conf, step, "multilevel start: place the clusters" + (inGroups ? " in groups" : ""),
        MrRefinement.class);
    c = job.getConfiguration();
    c.setInt(MrKeys.K, k);
    job.setInputFormatClass(BufferedSequenceFileInputFormat.class);
    FileInputFormat.addInputPath(job, new Path(placed, "part-r-*"));
    job.setMapOutputKeyClass(IntWritable.class);
    job.setMapOutputValueClass(ClusterRow.class);
    job.setReducerClass(PlaceReducer.class);
    if (flowShare > 0) {
      c.setDouble(PlaceReducer.WINDOW, placeGroups ? Math.min(flowShare, GROUP_CYCLE_WINDOW) : flowShare);
    }
    c.setBoolean(PlaceReducer.GIVEN, vcycle);
    c.setBoolean(PlaceReducer.COMMUNITIES, conf.getBoolean(PlaceReducer.COMMUNITIES, communityRegime));
    c.setDouble(SharedKeys.LIST_RATE, sample); // its working sets in units of 1/sample keys (1: in keys)
    int placeGroupSize = 0;
    if (placeGroups) {
      // the most parts whose first-level clusters (with all their keys) fit a placing task, grouped anew each cycle;
      // every cluster's id names its part (groups of one part), and a part alone in its group keeps its clusters
      placeGroupSize = forcedGroupSize > 0 ? Math.min(k, forcedGroupSize)
          : coarseGroupSize(k, levels.topClusters(), levels.topPins(), budget);
      if (placeGroupSize < 2) {
        LOG.info("{}: coarse group cycle {} skipped: not even two parts' {} level-{} clusters ({} keys listed in"
            + " all) fit the placing task's {} bytes", step, groupCycle, levels.topClusters(), levels.clusters().size(),
            levels.topPins(), String.format("%,d", budget));
        fs.delete(dir, true);
        return null;
      }
      int[] placeGroupOf = grouping(k, placeGroupSize, groupCycle);
      int groupsMade = (k + placeGroupSize - 1) / placeGroupSize;
      placeGroupSize = (k + groupsMade - 1) / groupsMade; // the parts dealt evenly over that many groups
      for (int p = 0; p < k; p++) {
        if (placeGroupOf[p] < 0) {
          placeGroupOf[p] = groupsMade + p;
        }
      }
      LOG.info("{}: coarse group cycle {}: {} level-{} clusters ({} keys listed) refined in {} groups of up to {}"
          + " parts: {}", step, groupCycle, levels.topClusters(), levels.clusters().size(), levels.topPins(),
          groupsMade, placeGroupSize, Arrays.toString(placeGroupOf));
      c.setBoolean(PlaceReducer.IN_GROUPS, true);
      GroupReducer.setGroups(c, placeGroupOf);
      c.setInt(CoarsenClustersReducer.FAN, 1);
      c.setBoolean(CoarsenClustersReducer.GROUP_BY_PART, true);
      job.setMapperClass(CoarsenClustersReducer.GroupOfClusterMapper.class);
      job.setNumReduceTasks(groupsMade);
    } else if (inGroups) {
      int fan = placeFan(numClusters, levels.topPins(), groups, budget);
      LOG.info("{}: multilevel start: {} first-level clusters ({} keys listed) placed in groups of {} of the {}"
          + " groups", step, numClusters, levels.topPins(), fan, groups);
      c.setBoolean(PlaceReducer.IN_GROUPS, true);
      GroupReducer.setGroups(c, groupOf);
      c.setInt(CoarsenClustersReducer.FAN, fan);
      job.setMapperClass(CoarsenClustersReducer.GroupOfClusterMapper.class); // every cluster to its placement group
      job.setNumReduceTasks((groups + fan - 1) / fan);
    } else {
      job.setMapperClass(Mapper.class);
      job.setNumReduceTasks(1); // the coarse graph in one task: 1/16 of the rows, fewer pins where rows share keys
    }
    job.setOutputKeyClass(LongWritable.class);
    job.setOutputValueClass(IntWritable.class);
    job.setOutputFormatClass(SequenceFileOutputFormat.class);
    FileOutputFormat.setOutputPath(job, placement);
    Jobs.run(job);
    long placedInCommunities = Jobs.count(job, Counters.PLACED_IN_COMMUNITIES);
    long groupsKept = Jobs.count(job, Counters.PLACE_GROUPS_KEPT); // too big for their task: their parts kept
    if (Jobs.count(job, Counters.COARSE_GRAPH_TOO_BIG) > 0) {
      LOG.warn("{}: multilevel start skipped: its {} clusters ({} pins) do not fit {} reducer's heap (give reducers"
          + " more memory: mapreduce.reduce.memory.mb)", step, levels.topClusters(), levels.topPins(),
          inGroups ? "a group's" : "one");
      fs.delete(dir, true);
      return null;
    }
    Jobs.checkEqual(step + ": clusters placed vs clusters made", levels.topClusters(),
        Jobs.count(job, Counters.CLUSTERS_PLACED));

    Map<String, Map<String, long[]>> placedStats = PartStats.readPerTask(fs, placement);
    placement = descend(dir, placement, levels);
    long[] placedRows = PartStats.sum(placedStats, PlaceReducer.PLACED_ROWS, k);
    long[] placedWs = PartStats.sum(placedStats, PlaceReducer.PLACED_WORKING_SET, k);
    long heaviest = placedStats.values().stream().map(t -> t.get(PlaceReducer.HEAVIEST))
        .filter(java.util.Objects::nonNull).mapToLong(a -> a[0]).max().orElse(0);

    // every row to its cluster's part, the moves applied in the same job (the apply job's reducer, every block marked)
    // when the map tasks can hold the placement; else joined in the shuffle first
    Path u1 = next("u");
    long firstClusters = levels.clusters().get(0);
    Job joined = null;
    Path moves = null;
    if (!PartJoin.mapSide(conf, firstClusters)) {
      moves = new Path(dir, "projected");
      joined = joinJob("multilevel start: every row with its cluster's part (reduce-side join)", placement,
          new Path(clusters, CoarsenReducer.MEMBERS + "-r-*"), PartJoin.RowMapper.class,
          PartJoin.ProjectReducer.class, IntWritable.class, Move.class, moves);
      Jobs.run(joined);
      checkJoined(joined, firstClusters);
    }
    job = Jobs.newJob(conf, step, "multilevel start: every row to its cluster's part", MrRefinement.class);
    c = job.getConfiguration();
    c.setInt(MrKeys.K, k);
    if (joined == null) {
      c.set(ProjectMapper.PLACEMENT, fs.makeQualified(placement).toString());
      MultipleInputs.addInputPath(job, new Path(clusters, CoarsenReducer.MEMBERS + "-r-*"),
          BufferedSequenceFileInputFormat.class, ProjectMapper.class);
    } else {
      MultipleInputs.addInputPath(job, moves, BufferedSequenceFileInputFormat.class, Mapper.class);
    }
    MultipleInputs.addInputPath(job, markers, BufferedSequenceFileInputFormat.class, Mapper.class);
    applySide(job, cur.u, u1);
    Jobs.run(job);
    Job projected = joined == null ? job : joined;
    Jobs.checkZero(projected, Counters.CLUSTER_WITHOUT_PART);
    Jobs.checkEqual(step + ": rows projected vs rows", n, Jobs.count(projected, Counters.ROWS_PROJECTED));
    checkApplied(job, Jobs.count(projected, Counters.PROJECTED_MOVES), n);
    long[] rowsNow = PartStats.sum(PartStats.readPerTask(fs, u1), CountMapper.ROWS, k);
    if (!weighted && !Arrays.equals(rowsNow, placedRows)) { // weighted: the placement reports weights in units
      throw new io.parsa.jobs.mr.ConsistencyException(step + ": the placement reported rows per part "
          + Arrays.toString(placedRows) + ", the projected assignment has " + Arrays.toString(rowsNow));
    }
    fs.delete(dir, true);
    // from a key sample the placement's working sets were estimates: measured
    Measure m = sample < 1 || weighted || groupsKept > 0 ? count(u1) // weighted: the weights per part, measured
        : new Measure(u1, null, placedRows, placedWs, cur.keys, cur.weights, cur.pairs);
    long placedMax = m.maxWorkingSet();
    long placedSum = m.sumTraffic();
    // rows within one of n/k, or weighted rows within a window as wide as the heaviest row around the mean weight (the
    // in-memory multilevel start's)
    double[] window = weighted ? URefinement.weightWindow(evenly(totalWeight), cur.weights.heaviest) : null;
    long lo = weighted ? (long) Math.ceil(window[0]) : n / k;
    long hi = weighted ? (long) Math.floor(window[1]) : (n + k - 1) / k;
    int cycle = 0;
    long keysArriving = -1;
    if (flows) {
      long[] cycles = new long[2];
      m = flowBalance(m, n, cycles, weighted ? new long[] {lo, hi} : null);
      if (m == null) {
        return null;
      }
      cycle = (int) cycles[0];
      keysArriving = cycles[1];
    }
    while (weighted ? outside(m.weights.perPart, window) : offBalance(m.rows, n)) {
      if (++cycle > MAX_BALANCE_CYCLES) {
        LOG.warn("{}: multilevel start dropped: {} per part still {} after {} balance cycles", step,
            weighted ? "weight" : "rows", weighted ? Arrays.toString(m.weights.perPart) : Arrays.toString(m.rows),
            MAX_BALANCE_CYCLES);
        discard(m, null);
        return null;
      }
      long[] loads = weighted ? Arrays.stream(m.weights.perPart).mapToLong(x -> (long) Math.floor(x)).toArray()
          : m.rows;
      int[] bg = balanceGroups(loads, lo, hi, Math.max(2, g));
      final int seedCycle = cycle;
      GroupRun run = groupJob(m, bg, n, "multilevel start: balance cycle " + cycle, cc -> {
        cc.setBoolean(GroupReducer.BALANCE, true);
        cc.setLong(GroupReducer.CAP, placedMax);
        cc.setDouble(GroupReducer.SLACK, RefineUTool.CAP_SLACK);
        cc.setLong(GroupReducer.SEED, 3000L + seedCycle);
        if (window != null) {
          cc.setStrings(GroupReducer.WEIGHT_WINDOW, Double.toString(window[0]), Double.toString(window[1]));
        }
      });
      LOG.info("{}: multilevel start, balance cycle {}: {} per part {} -> {} ({} rows moved)", step, cycle,
          weighted ? "weight" : "rows", weighted ? Arrays.toString(m.weights.perPart) : Arrays.toString(m.rows),
          weighted ? Arrays.toString(run.weights.perPart) : Arrays.toString(run.rows), run.moved);
      if (run.moved == 0) {
        fs.delete(run.dir, true);
        continue;
      }
      Measure applied = applied(m, run, n);
      fs.delete(run.dir, true);
      discard(m, null);
      m = applied;
    }
    m = verified(m);
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("phase", placeGroups ? "coarse group cycle " + groupCycle : vcycle ? "coarse V-cycle" : "multilevel start");
    if (placeGroups) {
      e.put("placeGroupSize", placeGroupSize);
    }
    e.put("groupSize", g);
    e.put("chunks", chunks);
    e.put("clusteredInCommunities", clusteredInCommunities); // tasks' groups or chunks (CoarsenReducer)
    e.put("placedInCommunities", placedInCommunities); // placements (PlaceReducer)
    e.put("clusters", numClusters);
    e.put("clusterPins", pins);
    e.put("levels", levels.clusters().size());
    e.put("placedClusters", levels.topClusters());
    e.put("placedClusterPins", levels.topPins());
    e.put("sharedKeysOnly", levels.sharedOnly());
    e.put("placedInGroups", inGroups);
    if (groupsKept > 0) {
      e.put("placeGroupsKept", groupsKept);
    }
    e.put("placeSample", sample);
    e.put("placedListedPins", sampledPins);
    if (holderSets >= 0) {
      e.put("placedHolderSets", holderSets); // one net each, weighing its keys (SharedKeys)
    }
    if (sample < 1) {
      e.put("placedWorkingSetsEstimated", placedWs); // the placing task's own count from the sample, in keys
    }
    e.put("maxClusterWeight", maxClusterWeight);
    e.put("furtherMaxClusterWeight", furtherWeight);
    e.put("placedHeaviestCluster", heaviest);
    e.put("placedRowsPerPart", placedRows);
    e.put("placedMaxWorkingSet", placedMax);
    e.put("placedSumTraffic", placedSum);
    e.put("balance", flows ? "flows" : "groups");
    e.put("balanceCycles", cycle);
    if (keysArriving >= 0) {
      e.put("balanceKeysArriving", keysArriving); // as rated: each moved row's keys new to its part, as if alone
    }
    m.putFigures(e);
    e.put("seconds", secs(t0));
    log.add(e);
    LOG.info("{}: multilevel start: {} clusters ({} pins) from groups of {} parts, {} level(s), {} clusters ({} pins)"
        + " placed; placed M_max {}, T_sum {}; after {} balance cycle(s) ({}) M_max {}, T_sum {} ({} s)", step,
        numClusters, pins, g, levels.clusters().size(), levels.topClusters(), levels.topPins(), placedMax, placedSum,
        cycle, flows ? "flows" : "groups", m.maxWorkingSet(), m.sumTraffic(), secs(t0));
    return m;
  }

  /**
   * The fewest chunks (1 to {@link CoarsenReducer#MAX_CHUNKS}) into which a group of {@code rows} rows,
   * {@code pairs} (row, key) pairs and at most {@code keys} keys must be cut for one chunk's clustering to fit
   * {@code heap} bytes, as the clustering reducer checks it ({@link RefineUTool#heapNeeded} at two parts), plus its
   * copy of the rows (16 bytes per pair).
   */
  static int chunksFor(long heap, long rows, long pairs, long keys) {
    for (int c = 1; c < CoarsenReducer.MAX_CHUNKS; c++) {
      long p = pairs / c;
      if (RefineUTool.heapNeeded(rows / c, p, Math.min(keys, p), 2) + 16 * p <= heap) {
        return c;
      }
    }
    return CoarsenReducer.MAX_CHUNKS;
  }

  /**
   * The exponent of the part weights the streaming balance rates with ({@link SwapGains#weights}): just above 1, so
   * among the targets a row brings equally few keys to, the part with the smaller working set is the lighter and
   * wins the tie ({@link SwapGains#fewestArriving}). With equal weights every row that touched no part below target
   * proposed the same one (the first by index), which took them all: on cnr-2000 with 32 MiB reducers M_max 41,603
   * after the balance instead of 27,409 (§31, when rows proposed by net gain).
   */
  static final double FLOW_EXPONENT = 1.01;

  /**
   * Where the distributed multilevel start balances by streaming flows: the heaviest cluster of any level as a share of
   * n/k, and the window around n/k within which the placement keeps every part's rows ({@link PlaceReducer#WINDOW}).
   * A row moved alone by a flow adds most of its keys to its new part (on cnr-2000 about eleven keys per moved row); a
   * placement of clusters up to 15 % of a part (the in-memory partitioner's coarsest-level cap) left parts 8 % short
   * and the flows then raised T_sum by a third (§32).
   */
  static final double FLOW_CLUSTER_SHARE = 0.01;
  /**
   * {@link #FLOW_CLUSTER_SHARE}, set ({@code -D}; default: that share with the streaming balance, 0 with the group
   * balance, where it leaves the clusters' weights and the placement as they were).
   */
  public static final String FLOW_SHARE = "parsa.refine.multilevel.place.share";

  /**
   * Coarse V-cycles after the swap rounds where the start was balanced by streaming flows (no two parts fit a reducer;
   * {@code -D}, default {@link #DEFAULT_COARSE_VCYCLES}): the refined rows clustered again per part, the clusters'
   * parts refined as weighted vertices in the placing task without lifting the largest working set, every row to its
   * cluster's part, the flows, then connectivity swap rounds; kept while it measures better. A second one measured
   * worse on cnr-2000 while every placement saw the same key sample (docs/quality.md §33); each with a sample of its
   * own, with 8 MiB reducers, the second was kept under three of five pipeline seeds and lowered the mean T_sum by
   * 5.8 % (§74); up to six, ending at the second dropped in a row ({@link #COARSE_VCYCLE_DROPS}), the third to fifth
   * were kept under two of five and lowered the mean T_sum by a further 2.5 % (18,752 → 18,286; ego-twitter's two
   * seeds dropped the first two and ended as before; §77).
   */
  public static final String COARSE_VCYCLES = "parsa.refine.multilevel.coarse-vcycles";
  static final int DEFAULT_COARSE_VCYCLES = 6;

  /**
   * The coarse V-cycles end where this many in a row were dropped ({@code -D}, default {@link
   * #DEFAULT_COARSE_VCYCLE_DROPS}; 1: at the first dropped, as before §77 of docs/quality.md). Each places from a key
   * sample of its own, so one after a dropped one may still be kept: on cnr-2000 with 8 MiB reducers, under pipeline
   * seed 3 the fourth and fifth were kept after the third was dropped (T_sum 18,076 → 17,016).
   */
  public static final String COARSE_VCYCLE_DROPS = "parsa.refine.multilevel.coarse-vcycles.drops";
  static final int DEFAULT_COARSE_VCYCLE_DROPS = 2;

  /**
   * When a multilevel start of unit rows placed where not even two parts fit a reducer (the flows regime) gets
   * connectivity rounds (p = 1) before it is measured against the given or input-order start ({@link #startRounds}):
   * "auto" (default) where it measures worse than that start as placed, "on" always, "off" never. With 8 MiB reducers
   * they took ego-twitter's start (dropped until then) from T_sum 298,474 to 203,608, and the refinement's end over
   * three pipeline seeds from 13,788 / 242,265 (M_max / T_sum) to 12,978 / 226,383; on cnr-2000, where the start won
   * as placed under five seeds, rounds there ended 2.0 % higher in M_max and 0.5 % in T_sum (docs/quality.md §73).
   */
  public static final String START_ROUNDS = "parsa.refine.multilevel.start-rounds";
  /**
   * Coarse group cycles at the end of the distributed refinement ({@code -D}, default {@link
   * #DEFAULT_COARSE_GROUP_CYCLES} where the distributed multilevel start ran and no group of rows held all parts, none
   * elsewhere): the refined rows clustered again per part; then the parts, grouped anew every cycle into groups of the
   * most parts whose first-level clusters fit a placing task with all their keys
   * ({@link #COARSE_GROUP_SIZE}), each group's clusters refined among its parts in a task of its own, never lifting
   * the group's largest working set; every row to its cluster's part, the flows, connectivity swap rounds after a
   * kept cycle. A cycle is kept where it measures better; a dropped one does not end the cycles (the next groups the
   * parts otherwise) unless one group held all parts. Four by default, as many as the group cycles of rows after the
   * rounds: on cnr-2000 with 32 MiB reducers (flows, groups of 4) T_sum 18,278 → 16,708 with three and 16,076 with
   * six; with 128 MiB reducers (after the group cycles of rows in groups of 5, then groups of 8) 18,858 → 16,270 with
   * two of three kept (docs/quality.md §34).
   */
  public static final String COARSE_GROUP_CYCLES = "parsa.refine.multilevel.coarse-group-cycles";
  static final int DEFAULT_COARSE_GROUP_CYCLES = 4;
  /** Parts per group of a coarse group cycle ({@code -D}; default 0: the most that fit, {@link #coarseGroupSize}). */
  public static final String COARSE_GROUP_SIZE = "parsa.refine.multilevel.coarse-group-size";
  /**
   * The window of a coarse group cycle's placement ({@link PlaceReducer#WINDOW}, where the flows balance): tighter than
   * the start's, as the group's parts were balanced already (cnr-2000 at 32 MiB in pairs: the cycles after the first
   * ended 0.1–0.2 % above the rounds' T_sum with it, 0.8–2.5 % with the start's 1 %).
   */
  static final double GROUP_CYCLE_WINDOW = 0.002;

  /**
   * The most parts for which the streaming balance plans flows through balanced parts ({@link FlowPlan}): every row
   * then rates every other part, and each gain task's histograms hold k² × {@link GainReducer#GAIN_BINS} counts
   * (278 KiB at 32 parts). Beyond, only the rows of parts above target rate the parts below it.
   */
  static final int TRANSIT_MAX_PARTS = 32;

  /** Flow cycles after which the streaming balance gives up. */
  static final int MAX_FLOW_CYCLES = 12;

  /**
   * The streaming balance of the distributed multilevel start: until every part has ⌊n/k⌋ or ⌈n/k⌉ rows, cycles of
   * five jobs, none of whose tasks holds more than a block or a key's counts: the count job; the plan's gain job, in
   * which every row rates its move to every other part by the keys it brings there (what it frees in its own part is
   * no excuse to grow another's), counted per source, target and keys ({@link GainReducer#HISTOGRAM_OF_EVERY_TARGET});
   * the driver's plan
   * from those counts ({@link FlowPlan}: the least costly flows that take every part above its target
   * ({@link #surplusAndShortfall}) down to it and every part below up to it, through balanced parts where that costs
   * less); the proposals' gain job, in which every row of a part that sends proposes its best move among its part's
   * planned targets ({@link GainReducer#SHARES}); the flow job ({@link FlowReducer}), which takes each flow's best proposals up to its quota in one
   * pass over the sorted stream; the apply job. A flow short of proposals (its part's rows preferred its part's other
   * flows) leaves its part off target for the next cycle. Each cycle's rows per part are checked against the flows it
   * made. Where rows proposed only their best part below target and the flows took the best proposals first, a part
   * whose rows mostly preferred a target others filled first sent through the few rows that had proposed one still
   * short: on cnr-2000 rows adding 100–360 keys each, a coarse cycle's M_max 1,100 keys higher after 140 rows moved
   * (docs/quality.md §76). Returns the
   * balanced assignment, measured, or null (and a warning) after {@link #MAX_FLOW_CYCLES}; {@code cycles[0]} gets
   * the cycles run, {@code cycles[1]} the keys the moved rows were rated to bring to their parts
   * ({@link FlowReducer#ARRIVING}).
   *
   * <p>Weighted rows (whole-number weights; {@code window} {lo, hi} not null): the same cycles move weight until every
   * part weighs within the window ({@link #weightSurplusAndShortfall}: the parts outside it towards the mean weight),
   * the histograms and the flows counting weight ({@link GainReducer#HISTOGRAM_OF_WEIGHTS},
   * {@link FlowReducer#BY_WEIGHT}): a row moves where its weight fits its flow's quota, so no part passes the mean. A
   * cycle that moves nothing drops the start.
   */
  private Measure flowBalance(Measure m, long n, long[] cycles, long[] window) throws Exception {
    boolean weighted = window != null;
    while (weighted ? outside(m.weights.perPart, new double[] {window[0], window[1]}) : offBalance(m.rows, n)) {
      long[] loads = weighted ? wholeLoads(m.weights.perPart) : m.rows;
      if (++cycles[0] > MAX_FLOW_CYCLES) {
        LOG.warn("{}: multilevel start dropped: {} per part still {} after {} flow cycles", step,
            weighted ? "weight" : "rows", Arrays.toString(loads), MAX_FLOW_CYCLES);
        discard(m, null);
        return null;
      }
      m = verified(m); // the gain job needs the counts
      // the plan: every row rates its move to every other part (up to TRANSIT_MAX_PARTS parts; beyond, the rows of
      // parts above target rate the parts below), the flows from those rates; then every row of a part that sends
      // proposes its best part among those its part's flows go to
      long[][] need = weighted ? weightSurplusAndShortfall(loads, window[0], window[1]) : surplusAndShortfall(m.rows, n);
      double[] weights = SwapGains.weights(m.workingSets, FLOW_EXPONENT);
      Path rated = gain(m, weights, "rate each row's moves", c -> {
        if (k > TRANSIT_MAX_PARTS) {
          c.setStrings(GainReducer.TARGETS, GainReducer.targetsOf(need[0], need[1]));
        }
        c.setBoolean(GainReducer.HISTOGRAM_OF_EVERY_TARGET, true);
        c.setBoolean(GainReducer.HISTOGRAM_OF_WEIGHTS, weighted);
      });
      Map<String, Map<String, long[]>> rates = PartStats.readPerTask(fs, rated);
      fs.delete(rated.getParent(), true);
      long[][] hist = new long[k][];
      for (int p = 0; p < k; p++) {
        hist[p] = PartStats.sum(rates, GainReducer.HISTOGRAM + p, k * GainReducer.GAIN_BINS);
      }
      long[][] quotas = FlowPlan.plan(need[0], need[1], hist);
      String[] flows = FlowReducer.entries(quotas);
      Path candidates = gain(m, weights, "propose the planned moves", c -> c.setStrings(GainReducer.SHARES, flows));
      Path moves = new Path(candidates.getParent(), "moves");
      Job job = perPairJob("multilevel start: balance flow " + cycles[0], candidates, moves, FlowReducer.class,
          flows.length);
      job.getConfiguration().setInt(MrKeys.K, k);
      job.getConfiguration().setStrings(FlowReducer.QUOTAS, flows);
      job.getConfiguration().setBoolean(FlowReducer.BY_WEIGHT, weighted);
      Jobs.run(job);
      long moved = Jobs.count(job, Counters.FLOW_MOVES);
      Map<String, Map<String, long[]>> st = PartStats.readPerTask(fs, moves);
      long[] out = PartStats.sum(st, FlowReducer.OUT, k);
      long[] in = PartStats.sum(st, FlowReducer.IN, k);
      long arriving = Arrays.stream(PartStats.sum(st, FlowReducer.ARRIVING, k)).sum();
      cycles[1] += arriving;
      long[] expected = new long[k];
      String unit = weighted ? "weight" : "rows";
      for (int p = 0; p < k; p++) {
        expected[p] = loads[p] - out[p] + in[p];
        if (out[p] > 0 && Arrays.stream(quotas[p]).sum() < out[p]) {
          throw new io.parsa.jobs.mr.ConsistencyException(step + ": the flow job moved " + out[p] + " " + unit
              + " out of part " + p + ", more than its flows' " + Arrays.stream(quotas[p]).sum());
        }
      }
      LOG.info("{}: multilevel start, balance flow {}: {} rows moved ({} keys new to their parts, as rated), {} of {}"
          + " {} planned; {} per part {} -> {}", step, cycles[0], moved, arriving, Arrays.stream(out).sum(),
          Arrays.stream(quotas).flatMapToLong(Arrays::stream).sum(), unit, unit, Arrays.toString(loads),
          Arrays.toString(expected));
      if (moved == 0) {
        if (weighted) {
          // no proposed row's weight fits the room its flow has
          LOG.warn("{}: multilevel start dropped: no row's weight fits the flows {} (weight per part {}, window [{},"
              + " {}])", step, String.join(",", flows), Arrays.toString(loads), window[0], window[1]);
          fs.delete(candidates.getParent(), true);
          discard(m, null);
          return null;
        }
        throw new io.parsa.jobs.mr.ConsistencyException(step + ": no row proposed a move of the flows "
            + String.join(",", flows));
      }
      Measure next = count(apply(m.u, moves, moved, n));
      fs.delete(candidates.getParent(), true);
      if (!Arrays.equals(weighted ? wholeLoads(next.weights.perPart) : next.rows, expected)) {
        throw new io.parsa.jobs.mr.ConsistencyException(step + ": after balance flow " + cycles[0] + " the count job"
            + " finds " + unit + " per part " + (weighted ? Arrays.toString(next.weights.perPart) : Arrays.toString(next.rows))
            + ", the flows made " + Arrays.toString(expected));
      }
      discard(m, null);
      m = next;
    }
    return verified(m);
  }

  /** Whole-number part weights as longs (exact up to 2^53). */
  private static long[] wholeLoads(double[] weights) {
    return Arrays.stream(weights).mapToLong(Math::round).toArray();
  }

  /**
   * The streaming balance's needs for weighted rows whose parts weigh {@code loads} (whole numbers), to bring every part
   * into [lo, hi]: the parts above hi send and those below lo receive; where only one side is outside the window,
   * every part beyond the mean on the other side takes part. Each sends at most down to the mean, each receives at
   * most up to it: {surplus, shortfall} in weight.
   */
  static long[][] weightSurplusAndShortfall(long[] loads, long lo, long hi) {
    int k = loads.length;
    long mean = Math.floorDiv(Arrays.stream(loads).sum(), k);
    boolean above = Arrays.stream(loads).anyMatch(x -> x > hi);
    boolean below = Arrays.stream(loads).anyMatch(x -> x < lo);
    long[] surplus = new long[k];
    long[] shortfall = new long[k];
    for (int p = 0; p < k; p++) {
      if (above ? loads[p] > hi : below && loads[p] > mean) {
        surplus[p] = loads[p] - mean;
      }
      if (below ? loads[p] < lo : above && loads[p] < mean) {
        shortfall[p] = mean - loads[p];
      }
    }
    return new long[][] {surplus, shortfall};
  }

  /** Whether a part's weight lies outside {@code window}. */
  private static boolean outside(double[] weights, double[] window) {
    return Arrays.stream(weights).anyMatch(x -> x < window[0] || x > window[1]);
  }

  /** {@code total} over the k parts evenly. */
  private double[] evenly(double total) {
    double[] w = new double[k];
    Arrays.fill(w, total / k);
    return w;
  }

  /** Whether some part of {@code rows} (n in all) has fewer than ⌊n/k⌋ or more than ⌈n/k⌉ rows. */
  static boolean offBalance(long[] rows, long n) {
    long lo = n / rows.length;
    long hi = (n + rows.length - 1) / rows.length;
    return Arrays.stream(rows).anyMatch(r -> r < lo || r > hi);
  }

  /**
   * What balancing {@code rows} (n in all) asks of each part: {surplus, shortfall} per part, where the n mod k parts
   * with the most rows keep ⌈n/k⌉ and the others ⌊n/k⌋ (the fewest moves). The surpluses and the shortfalls sum to
   * the same.
   */
  static long[][] surplusAndShortfall(long[] rows, long n) {
    int k = rows.length;
    Integer[] byRows = new Integer[k];
    for (int p = 0; p < k; p++) {
      byRows[p] = p;
    }
    Arrays.sort(byRows, (x, y) -> rows[x] != rows[y] ? Long.compare(rows[y], rows[x]) : Integer.compare(x, y));
    long[] surplus = new long[k];
    long[] shortfall = new long[k];
    for (int i = 0; i < k; i++) {
      int p = byRows[i];
      long target = n / k + (i < n % k ? 1 : 0);
      surplus[p] = Math.max(0, rows[p] - target);
      shortfall[p] = Math.max(0, target - rows[p]);
    }
    return new long[][] {surplus, shortfall};
  }

  /**
   * Whether {@code clusters} clusters fit {@code budget} with {@link #MIN_SAMPLED_KEYS} keys each, the least sample a
   * global placement is made from.
   */
  private boolean sampleFits(long clusters, long budget) {
    return ClusterGraph.heapNeeded(clusters, (long) Math.ceil(MIN_SAMPLED_KEYS * clusters), k) <= budget;
  }

  /**
   * The most of {@code k} parts whose share of {@code clusters} first-level clusters listing {@code pins} keys fits a
   * placing task of {@code budget} bytes ({@link ClusterGraph#heapNeeded}), with a quarter to spare for parts above the
   * mean; 0 if not even two parts do.
   */
  static int coarseGroupSize(int k, long clusters, long pins, long budget) {
    for (int g = k; g >= 2; g--) {
      double share = Math.min(1, 1.25 * g / k);
      if (ClusterGraph.heapNeeded((long) Math.ceil(clusters * share), (long) Math.ceil(pins * share), g) <= budget) {
        return g;
      }
    }
    return 0;
  }

  /**
   * The heaviest cluster a further level may make where the placement balances by itself: {@code share} of n/k, but
   * at least twice the rows per cluster of the {@code placeable} clusters the placing task holds (so that the top
   * level still fits it), and at most the first level's cap {@code first}.
   */
  static int furtherWeight(int first, double share, long n, int k, long placeable) {
    double fitted = Math.ceil(2.0 * n / Math.max(1, placeable));
    return (int) Math.max(1, Math.min(first, Math.max(Math.ceil(share * n / k), fitted)));
  }

  /**
   * Keys per cluster with which a capped further level ({@link #FLOW_CLUSTER_SHARE}) must still fit the placing task:
   * the uncapped levels placed cnr-2000's slice from about 7 keys per cluster.
   */
  static final double COMFORT_SAMPLED_KEYS = 8;

  /** The most clusters that fit {@code budget} with {@code keysEach} keys each ({@link ClusterGraph#heapNeeded}). */
  private long placeableClusters(long budget, double keysEach) {
    long lo = 0;
    long hi = 1L << 34; // more clusters than any level has; heapNeeded stays far from overflowing
    while (lo < hi) {
      long mid = (lo + hi + 1) >>> 1;
      if (ClusterGraph.heapNeeded(mid, (long) Math.ceil(keysEach * mid), k) <= budget) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /**
   * The largest share of the {@code pins} keys of {@code clusters} clusters (to 1/1024) with which they fit
   * {@code budget} ({@link ClusterGraph#heapNeeded}); 0 if not even the clusters alone fit.
   */
  private double sampleRate(long clusters, long pins, long budget) {
    if (ClusterGraph.heapNeeded(clusters, 0, k) > budget) {
      return 0;
    }
    int lo = 0;
    int hi = 1024;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (ClusterGraph.heapNeeded(clusters, pins * mid / 1024, k) <= budget) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo / 1024.0;
  }

  /**
   * First-level groups placed together where the clusters are placed in groups: {@code -D
   * parsa.refine.multilevel.place.fan} if set, else the most whose share of the {@code clusters} clusters and their
   * {@code pins} keys fits {@code budget} (at least 1).
   */
  private int placeFan(long clusters, long pins, int groups, long budget) {
    int fan = conf.getInt(PLACE_FAN, 0);
    if (fan > 0) {
      return Math.min(fan, groups);
    }
    fan = 1;
    while (fan < groups && ClusterGraph.heapNeeded(clusters * (fan + 1) / groups, pins * (fan + 1) / groups, k)
        <= budget) {
      fan++;
    }
    return fan;
  }

  /**
   * The clustering levels of a distributed multilevel start: the directory of the clusters to place ({@code top}) with
   * their number and listed keys, the directories of the levels above the first, the clusters every level made, the
   * first level's first, how many levels were rewritten with only their shared keys listed ({@link SharedKeys}), and
   * the first level's clusters as last rewritten ({@code firstTop}, listing {@code firstPins} keys).
   */
  private record Levels(Path top, long topClusters, long topPins, List<Path> dirs, List<Long> clusters,
      int sharedOnly, Path firstTop, long firstPins) {}

  /** Whether a level of so many clusters listing so many keys fits where it is placed. */
  @FunctionalInterface
  private interface LongBiPredicate {
    boolean test(long clusters, long pins);
  }

  /**
   * Further clustering levels above the first ({@code clusters}: its {@code numClusters} clusters of {@code pins} keys
   * in {@code groups} groups), while they would not fit the one task that places them
   * ({@link ClusterGraph#heapNeeded}, against {@code budget}, from {@link #PLACE_BYTES}). A level that does not fit
   * is first rewritten with only the keys two or more of its clusters hold listed ({@link #sharedKeysOnly}) unless its
   * clustering found fewer than {@link #MIN_UNLISTED} of them held by one cluster of their group alone
   * ({@code groupPrivate}); if it still does not fit, the next level is a job whose tasks cluster the clusters of as
   * many groups of the level below as hold about the non-zeros one first-level task held ({@code pairs} / groups),
   * none heavier than {@code maxWeight} rows. A level whose clusters keep over 90 % of the keys listed below it, not
   * counting those one of them holds alone in its group (which the next rewrite may leave unlisted), is dropped and
   * ends the climb, unless the clusters below it are too many to be placed even from a sample of their keys
   * ({@link #sampleFits}). With {@code groupFits} (a coarse group cycle) the climb ends where that says a level fits
   * its groups' placing tasks, and only a level that hardly shrinks the clusters is dropped: a group's placement takes
   * no key sample.
   */
  private Levels furtherLevels(Path dir, Path clusters, long numClusters, long pins, long groupPrivate, int groups,
      int chunks, long pairs, int maxWeight, long budget, boolean withinParts, LongBiPredicate groupFits)
      throws Exception {
    // a first-level task held a chunk of a group: the first further level groups chunks, not whole groups
    int levelGroups = groups * chunks;
    long perFirstGroup = Math.max(1, pairs / levelGroups);
    List<Path> further = new ArrayList<>();
    List<Long> clustersPerLevel = new ArrayList<>(List.of(numClusters));
    Path top = clusters;
    boolean onlyShared = false;
    int sharedOnly = 0;
    Path firstTop = clusters;
    long firstPins = pins;
    while (groupFits == null ? ClusterGraph.heapNeeded(numClusters, pins, k) > budget
        : !groupFits.test(numClusters, pins)) {
      if (!onlyShared && groupPrivate < MIN_UNLISTED * pins) {
        LOG.info("{}: multilevel start, level {}: its keys are shared: at most {} of {} held by one cluster alone",
            step, further.size() + 1, groupPrivate, pins);
        onlyShared = true;
      }
      if (!onlyShared) {
        // first list only the keys the placement can cut: often enough, and the next level reads less
        Path shared = new Path(dir, "shared-" + (further.size() + 1));
        long listed = sharedKeysOnly(top, shared, numClusters, pins);
        LOG.info("{}: multilevel start, level {}: {} clusters list {} of their {} keys (the rest no other cluster"
            + " holds)", step, further.size() + 1, numClusters, listed, pins);
        top = shared;
        pins = listed;
        onlyShared = true;
        sharedOnly++;
        if (further.isEmpty()) {
          firstTop = shared;
          firstPins = listed;
        }
        continue;
      }
      if (further.size() >= MAX_FURTHER_LEVELS) {
        break;
      }
      int fan = (int) Math.max(2, Math.min(Math.max(2, levelGroups), perFirstGroup / Math.max(1, pins / levelGroups)));
      if (withinParts) {
        // a coarse V-cycle: a group of this level is one part (its chunks on the first further level), so every
        // cluster stays within the part it came from and its id's high half names that part
        fan = further.isEmpty() ? chunks : 1;
      }
      int nextGroups = (levelGroups + fan - 1) / fan;
      Path levelDir = new Path(dir, "level-" + (further.size() + 2));
      Job job = Jobs.newJob(conf, step, "multilevel start: cluster the clusters, level " + (further.size() + 2),
          MrRefinement.class);
      Configuration c = job.getConfiguration();
      c.setInt(MrKeys.K, k);
      c.setInt(CoarsenClustersReducer.FAN, fan);
      if (further.isEmpty() && chunks > 1) {
        c.setInt(GroupMapper.CHUNKS, chunks); // the first level's clusters name their chunk
      }
      new CoarsenReducer.Clustering(MULTILEVEL_SHRINK, maxWeight, 100L + further.size()).setIn(c);
      job.setInputFormatClass(BufferedSequenceFileInputFormat.class);
      FileInputFormat.addInputPath(job, new Path(top, "part-r-*"));
      job.setMapperClass(CoarsenClustersReducer.GroupOfClusterMapper.class);
      job.setMapOutputKeyClass(IntWritable.class);
      job.setMapOutputValueClass(ClusterRow.class);
      job.setReducerClass(CoarsenClustersReducer.class);
      job.setNumReduceTasks(nextGroups);
      job.setOutputKeyClass(IntWritable.class);
      job.setOutputValueClass(ClusterRow.class);
      job.setOutputFormatClass(SequenceFileOutputFormat.class);
      MultipleOutputs.addNamedOutput(job, CoarsenReducer.MEMBERS, SequenceFileOutputFormat.class, LongWritable.class,
          LongWritable.class);
      FileOutputFormat.setOutputPath(job, levelDir);
      Jobs.run(job);
      if (Jobs.count(job, Counters.GROUPS_TOO_BIG) > 0) {
        LOG.warn("{}: multilevel start: level {} given up, a group of {} clusters did not fit a reducer", step,
            further.size() + 2, fan);
        fs.delete(levelDir, true);
        break;
      }
      Jobs.checkEqual(step + ": clusters clustered again vs clusters", numClusters,
          Jobs.count(job, Counters.CLUSTERS_COARSENED));
      long nextClusters = Jobs.count(job, Counters.CLUSTERS);
      long nextPins = Jobs.count(job, Counters.CLUSTER_PINS);
      long nextPrivate = Jobs.count(job, Counters.GROUP_PRIVATE_PINS);
      LOG.info("{}: multilevel start, level {}: {} clusters ({} keys) in {} groups -> {} clusters ({} keys) in {}"
          + " groups", step, further.size() + 2, numClusters, pins, levelGroups, nextClusters, nextPins, nextGroups);
      boolean keysKept = nextPins - nextPrivate > 0.9 * pins;
      // a group's placement has no key sample: there fewer clusters are what it needs, if they are fewer
      if (keysKept && groupFits == null && sampleFits(numClusters, budget) || nextClusters > 0.9 * numClusters) {
        // rows without shared keys: clusters of clusters hold about as many keys, even with the keys one of them alone
        // holds left unlisted, so the level would only make the placement coarser (where the clusters below can be
        // placed from a sample of their keys; else fewer clusters are what the placing task needs, if they are fewer)
        LOG.info("{}: multilevel start: level {} dropped, its {} clusters (of {} below) hold {} of the {} keys listed"
            + " below ({} of them held by one cluster of their group alone)", step, further.size() + 2, nextClusters,
            numClusters, nextPins, pins, nextPrivate);
        fs.delete(levelDir, true);
        break;
      }
      further.add(levelDir);
      clustersPerLevel.add(nextClusters);
      onlyShared = false;
      groupPrivate = nextPrivate;
      top = levelDir;
      numClusters = nextClusters;
      pins = nextPins;
      levelGroups = nextGroups;
    }
    return new Levels(top, numClusters, pins, further, clustersPerLevel, sharedOnly, firstTop, firstPins);
  }

  /**
   * The {@code numClusters} clusters of {@code in} (listing {@code pins} keys) into {@code out} with only the keys two or
   * more of them hold listed, the others counted ({@link SharedKeys}: a holders job and a merge job). Returns the keys
   * listed.
   */
  private long sharedKeysOnly(Path in, Path out, long numClusters, long pins) throws Exception {
    return sharedKeysOnly(in, out, numClusters, pins, 1, 0);
  }

  /**
   * The same with only a sample of the shared keys listed ({@link SharedKeys#LIST_RATE} = {@code rate}), every
   * cluster's unlisted count in units of 1/rate keys (see {@link SharedKeys}), the sample number {@code sampleNo} of
   * that rate ({@link SharedKeys#LIST_SAMPLE}); returns the keys listed.
   */
  private long sharedKeysOnly(Path in, Path out, long numClusters, long pins, double rate, long sampleNo)
      throws Exception {
    Path pieces = new Path(out.getParent(), out.getName() + "-pieces");
    Job job = holdersJob(in, pieces, pins, "the clusters' shared keys"
        + (rate < 1 ? String.format(", a sample of %.3f listed", rate) : ""), SharedKeys.HolderReducer.class,
        LongWritable.class, ClusterRow.class, rate, sampleNo);
    long shared = Jobs.count(job, Counters.SHARED_PINS);
    Job merge = mergeJob(in, pieces, Mapper.class, out, "the clusters with their shared keys listed", numClusters,
        rate, sampleNo);
    checkPieces(merge, shared, Jobs.count(job, Counters.PINS_LEFT_OUT), rate, "keys");
    fs.delete(pieces, true);
    return shared;
  }

  /**
   * The holders job of {@link SharedKeys}, run: every (key, cluster) pair of the clusters in {@code in} shuffled by key
   * into {@code reducer} (a sample of rate {@code rate}, number {@code sampleNo}), written to {@code out}; the pairs
   * read checked against the clusters' {@code pins}.
   */
  private Job holdersJob(Path in, Path out, long pins, String what, Class<? extends Reducer> reducer,
      Class<?> outKey, Class<?> outValue, double rate, long sampleNo) throws Exception {
    Job job = Jobs.newJob(conf, step, "multilevel start: " + what, MrRefinement.class);
    job.getConfiguration().setDouble(SharedKeys.LIST_RATE, rate);
    job.getConfiguration().setLong(SharedKeys.LIST_SAMPLE, sampleNo);
    job.setInputFormatClass(BufferedSequenceFileInputFormat.class);
    FileInputFormat.addInputPath(job, new Path(in, "part-r-*"));
    job.setMapperClass(SharedKeys.HolderMapper.class);
    LongKeyComparator.mapOutputKeys(job);
    job.setMapOutputValueClass(LongWritable.class);
    job.setReducerClass(reducer);
    job.setNumReduceTasks(reducers);
    job.setOutputKeyClass(outKey);
    job.setOutputValueClass(outValue);
    job.setOutputFormatClass(SequenceFileOutputFormat.class);
    FileOutputFormat.setOutputPath(job, out);
    Jobs.run(job);
    Jobs.checkEqual(step + ": (key, cluster) pairs vs the clusters' keys", pins,
        Jobs.count(job, Counters.HOLDER_PAIRS));
    return job;
  }

  /**
   * The merge job of {@link SharedKeys}, run: each cluster of {@code in} (its header) with its pieces from
   * {@code pieces} (read by {@code piecesMapper}) into {@code out}, at rate {@code rate}, sample {@code sampleNo}; no
   * piece without its cluster, and every one of the {@code numClusters} clusters written.
   */
  private Job mergeJob(Path in, Path pieces, Class<? extends Mapper> piecesMapper, Path out, String what,
      long numClusters, double rate, long sampleNo) throws Exception {
    Job merge = Jobs.newJob(conf, step, "multilevel start: " + what, MrRefinement.class);
    merge.getConfiguration().setDouble(SharedKeys.LIST_RATE, rate);
    merge.getConfiguration().setLong(SharedKeys.LIST_SAMPLE, sampleNo);
    MultipleInputs.addInputPath(merge, new Path(in, "part-r-*"), BufferedSequenceFileInputFormat.class,
        SharedKeys.HeaderMapper.class);
    MultipleInputs.addInputPath(merge, pieces, BufferedSequenceFileInputFormat.class, piecesMapper);
    LongKeyComparator.mapOutputKeys(merge);
    merge.setMapOutputValueClass(ClusterRow.class);
    merge.setReducerClass(SharedKeys.MergeReducer.class);
    merge.setNumReduceTasks(reducers);
    merge.setOutputKeyClass(IntWritable.class);
    merge.setOutputValueClass(ClusterRow.class);
    merge.setOutputFormatClass(SequenceFileOutputFormat.class);
    FileOutputFormat.setOutputPath(merge, out);
    Jobs.run(merge);
    Jobs.checkZero(merge, Counters.PIECES_WITHOUT_CLUSTER);
    Jobs.checkEqual(step + ": " + what + ": clusters written vs clusters", numClusters,
        Jobs.count(merge, Counters.CLUSTERS_MERGED));
    return merge;
  }

  /**
   * The merge job's pieces against those sent to it: the {@code listed} ones (keys or holder sets) listed, and from a
   * sample ({@code rate} &lt; 1) every piece, listed or {@code leftOut}, merged.
   */
  private void checkPieces(Job merge, long listed, long leftOut, double rate, String what) throws Exception {
    Jobs.checkEqual(step + ": " + what + " listed vs sent", listed, Jobs.count(merge, Counters.LISTED_PINS));
    if (rate < 1) {
      Jobs.checkEqual(step + ": pieces of a sample of " + what + " merged vs sent", listed + leftOut,
          Jobs.count(merge, Counters.SHARES_MERGED));
    }
  }

  /** What {@link #holderSets} listed: pins, the rate of the sample, the distinct holder sets. */
  private record Listed(long pins, double rate, long sets) {}

  /**
   * The {@code numClusters} clusters of {@code in} (listing {@code pins} keys) into {@code out} with their shared keys
   * as one net per set of holders ({@link SharedKeys}: keys with the same holders are interchangeable), a sample of
   * the sets listed: three jobs, the keys' holders, the distinct sets with their keys, and the merge that lists a set
   * with probability min(1, r · keys) in units of 1/r keys. The rate r is {@code rate} where it was set by the user
   * ({@code forced}), else the highest candidate rate whose listed pins (counted by the sets job) fit {@code budget}
   * (at least {@code rate}, a key sample's that fits). Sample number {@code sampleNo} ({@link SharedKeys#LIST_SAMPLE}).
   */
  private Listed holderSets(Path in, Path out, long numClusters, long pins, double rate, boolean forced,
      long sampleNo, long budget) throws Exception {
    Path keyed = new Path(out.getParent(), out.getName() + "-keys");
    Job job = holdersJob(in, keyed, pins, "the holders of the clusters' shared keys", SharedKeys.HolderSetReducer.class,
        BytesWritable.class, LongWritable.class, 1, 0);
    long sharedKeys = Jobs.count(job, Counters.SHARED_KEYS);
    long sharedKeyPins = Jobs.count(job, Counters.SHARED_KEY_PINS);

    Path sets = new Path(out.getParent(), out.getName() + "-sets");
    Job setJob = Jobs.newJob(conf, step, "multilevel start: the sets of holders of the shared keys",
        MrRefinement.class);
    setJob.getConfiguration().setDouble(SharedKeys.LIST_RATE, rate); // the base of the candidate rates
    setJob.setInputFormatClass(BufferedSequenceFileInputFormat.class);
    FileInputFormat.addInputPath(setJob, new Path(keyed, "part-r-*"));
    setJob.setMapperClass(Mapper.class);
    setJob.setMapOutputKeyClass(BytesWritable.class);
    setJob.setMapOutputValueClass(LongWritable.class);
    setJob.setCombinerClass(LongSumReducer.class);
    setJob.setReducerClass(SharedKeys.SetReducer.class);
    setJob.setNumReduceTasks(reducers);
    setJob.setOutputKeyClass(LongWritable.class);
    setJob.setOutputValueClass(ClusterRow.class);
    setJob.setOutputFormatClass(SequenceFileOutputFormat.class);
    FileOutputFormat.setOutputPath(setJob, sets);
    Jobs.run(setJob);
    Jobs.checkEqual(step + ": keys of the holder sets vs shared keys", sharedKeys,
        Jobs.count(setJob, Counters.SET_KEYS));
    Jobs.checkEqual(step + ": keys times holders of the holder sets vs shared keys' pairs", sharedKeyPins,
        Jobs.count(setJob, Counters.SET_KEY_PINS));
    fs.delete(keyed, true);
    long numSets = Jobs.count(setJob, Counters.HOLDER_SETS);
    double chosen = rate;
    if (!forced) {
      for (int j = SharedKeys.CANDIDATES; j > 0; j--) {
        long listedAt = setJob.getCounters().findCounter(SharedKeys.PINS_AT_RATE, Integer.toString(j)).getValue();
        if (ClusterGraph.heapNeeded(numClusters, listedAt, k) <= budget) {
          chosen = SharedKeys.candidateRate(rate, j);
          break;
        }
      }
    }
    LOG.info("{}: multilevel start: {} shared keys of {} clusters ({} pairs) have {} sets of holders ({} pairs): a"
        + " sample of {} of them listed, each with probability min(1, {} · its keys) (a sample of the keys: {})", step,
        sharedKeys, numClusters, sharedKeyPins, numSets, Jobs.count(setJob, Counters.SET_PINS),
        String.format("%.3f", chosen), String.format("%.3f", chosen), String.format("%.3f", rate));

    Job merge = mergeJob(in, new Path(sets, "part-r-*"), SharedKeys.SetPieceMapper.class, out,
        "the clusters with a sample of their holder sets listed", numClusters, chosen, sampleNo);
    long listed = Jobs.count(merge, Counters.SHARED_PINS);
    checkPieces(merge, listed, Jobs.count(merge, Counters.PINS_LEFT_OUT), chosen, "holder sets");
    Jobs.checkEqual(step + ": keys of the holder sets merged vs shared keys' pairs", sharedKeyPins,
        Jobs.count(merge, Counters.KEY_PINS_MERGED));
    fs.delete(sets, true);
    return new Listed(listed, chosen, numSets);
  }

  /**
   * From the placement of the top level's clusters down to the first level's: one job per further level, each member
   * cluster given its cluster's part, map-only ({@link DescendMapper}) where the map tasks can hold the level's placement
   * ({@link PartJoin#mapSide}), else a reduce-side join ({@link PartJoin.DescendReducer}). Returns the first level's
   * placement.
   */
  private Path descend(Path dir, Path placement, Levels levels) throws Exception {
    for (int level = levels.dirs().size() - 1; level >= 0; level--) {
      Path below = new Path(dir, "placement-" + (level + 1));
      Path members = new Path(levels.dirs().get(level), CoarsenReducer.MEMBERS + "-r-*");
      long placed = level + 1 < levels.clusters().size() ? levels.clusters().get(level + 1) : levels.topClusters();
      String what = "multilevel start: parts of the level-" + (level + 1) + " clusters";
      Job job;
      if (PartJoin.mapSide(conf, placed)) {
        job = Jobs.newJob(conf, step, what, MrRefinement.class);
        job.getConfiguration().set(ProjectMapper.PLACEMENT, fs.makeQualified(placement).toString());
        job.setInputFormatClass(BufferedSequenceFileInputFormat.class);
        FileInputFormat.addInputPath(job, members);
        job.setMapperClass(DescendMapper.class);
        job.setNumReduceTasks(0);
        job.setOutputKeyClass(LongWritable.class);
        job.setOutputValueClass(IntWritable.class);
        job.setOutputFormatClass(SequenceFileOutputFormat.class);
        FileOutputFormat.setOutputPath(job, below);
        Jobs.run(job);
      } else {
        job = joinJob(what + " (reduce-side join)", placement, members, PartJoin.MemberMapper.class,
            PartJoin.DescendReducer.class, LongWritable.class, IntWritable.class, below);
        Jobs.run(job);
        checkJoined(job, placed);
      }
      Jobs.checkZero(job, Counters.CLUSTER_WITHOUT_PART);
      Jobs.checkEqual(step + ": level-" + (level + 1) + " clusters given a part vs made",
          levels.clusters().get(level), Jobs.count(job, Counters.CLUSTERS_DESCENDED));
      placement = below;
    }
    return placement;
  }

  /**
   * A reduce-side join of {@code placement} with {@code members} ({@link PartJoin}), {@code reducers} reduce tasks
   * writing {@code reducer}'s output as a SequenceFile into {@code out}.
   */
  @SuppressWarnings("rawtypes")
  private Job joinJob(String what, Path placement, Path members, Class<? extends Mapper> memberMapper,
      Class<? extends Reducer> reducer, Class<?> outKey, Class<?> outValue, Path out) throws IOException {
    Job job = Jobs.newJob(conf, step, what, MrRefinement.class);
    MultipleInputs.addInputPath(job, new Path(placement, "part-*"), BufferedSequenceFileInputFormat.class,
        PartJoin.PlacementMapper.class);
    MultipleInputs.addInputPath(job, members, BufferedSequenceFileInputFormat.class, memberMapper);
    PartJoin.configureShuffle(job);
    job.setReducerClass(reducer);
    job.setNumReduceTasks(reducers);
    job.setOutputKeyClass(outKey);
    job.setOutputValueClass(outValue);
    job.setOutputFormatClass(SequenceFileOutputFormat.class);
    FileOutputFormat.setOutputPath(job, out);
    return job;
  }

  /** A reduce-side join's counters: every one of the {@code placed} clusters' parts read once. */
  private void checkJoined(Job job, long placed) throws IOException {
    Jobs.checkZero(job, Counters.DUPLICATE_PLACEMENT);
    Jobs.checkEqual(step + ": placement records joined vs clusters placed", placed,
        Jobs.count(job, Counters.PLACEMENTS_JOINED));
  }

  /**
   * Groups of parts for a balance cycle: each group starts from the part furthest outside {@code lo..hi} rows and
   * takes the lightest (while its rows are above {@code hi} per part) or heaviest (below {@code lo}) of the parts left
   * until its rows are within lo..hi per part on average, so that balancing the group within one row balances each of
   * its parts, or it has {@code maxSize} parts. Parts already within bounds and not taken are in no group (−1).
   */
  static int[] balanceGroups(long[] rows, long lo, long hi, int maxSize) {
    int k = rows.length;
    int[] groupOf = new int[k];
    Arrays.fill(groupOf, -1);
    int groups = 0;
    while (true) {
      int seed = -1;
      long worst = 0;
      for (int p = 0; p < k; p++) {
        long dev = rows[p] > hi ? rows[p] - hi : rows[p] < lo ? lo - rows[p] : 0;
        if (groupOf[p] < 0 && dev > worst) {
          worst = dev;
          seed = p;
        }
      }
      if (seed < 0) {
        return groupOf;
      }
      groupOf[seed] = groups;
      int size = 1;
      long sum = rows[seed];
      while (size < maxSize && (sum < size * lo || sum > size * hi)) {
        boolean over = sum > size * hi;
        int pick = -1;
        for (int p = 0; p < k; p++) {
          if (groupOf[p] < 0 && (pick < 0 || (over ? rows[p] < rows[pick] : rows[p] > rows[pick]))) {
            pick = p;
          }
        }
        if (pick < 0) {
          break;
        }
        groupOf[pick] = groups;
        size++;
        sum += rows[pick];
      }
      groups++;
    }
  }

  /**
   * The map side of a job over groups of parts ({@link GroupMapper}: every row of {@code u} to its part's group in
   * {@code groupOf}) and one reducer per group: the groups' sizes, not the data's, bound each task.
   */
  private void groupMapSide(Job job, Path u, int[] groupOf) throws IOException {
    Configuration c = job.getConfiguration();
    c.setInt(MrKeys.K, k);
    GroupReducer.setGroups(c, groupOf);
    AlignedJoin.configureMapSide(job, blocks, u, GroupMapper.class);
    job.setMapOutputKeyClass(IntWritable.class);
    job.setMapOutputValueClass(GroupRow.class);
    job.setNumReduceTasks(Arrays.stream(groupOf).max().orElse(-1) + 1);
  }

  /** One group job's outcome: its moves (under {@code dir}), and every part's working set and rows after it. */
  private record GroupRun(Job job, Path dir, Path moves, long moved, long[] workingSets, long[] rows,
      Weights weights) {}

  /**
   * Runs one group job ({@link GroupMapper}, {@link GroupReducer}, one reducer per group) on {@code cur} with the
   * groups {@code groupOf}, the reducers set up by {@code settings}, and checks its counters: no row in a wrong
   * group, every row in a group or outside all. Parts in no group keep {@code cur}'s working sets and rows.
   */
  private GroupRun groupJob(Measure cur, int[] groupOf, long n, String what,
      java.util.function.Consumer<Configuration> settings) throws Exception {
    Path dir = next("group-cycle");
    Path moves = new Path(dir, "moves");
    Job job = Jobs.newJob(conf, step, what, MrRefinement.class);
    groupMapSide(job, cur.u, groupOf);
    settings.accept(job.getConfiguration());
    if (weightWindow != null && job.getConfiguration().get(GroupReducer.WEIGHT_WINDOW) == null) {
      job.getConfiguration().setStrings(GroupReducer.WEIGHT_WINDOW, Double.toString(weightWindow[0]),
          Double.toString(weightWindow[1]));
    }
    job.setReducerClass(GroupReducer.class);
    job.setOutputKeyClass(IntWritable.class);
    job.setOutputValueClass(Move.class);
    job.setOutputFormatClass(SequenceFileOutputFormat.class);
    FileOutputFormat.setOutputPath(job, moves);
    Jobs.run(job);
    AlignedJoin.check(job);
    Jobs.checkZero(job, Counters.ROW_IN_WRONG_GROUP);
    Jobs.checkEqual(step + ": rows in groups and outside vs rows", n,
        Jobs.count(job, Counters.GROUP_ROWS) + Jobs.count(job, Counters.ROWS_OUTSIDE_GROUPS));
    Map<String, Map<String, long[]>> st = PartStats.readPerTask(fs, moves);
    long[] ws = PartStats.sum(st, GroupReducer.WORKING_SET, k);
    long[] rows = PartStats.sum(st, GroupReducer.ROWS, k);
    // rows without weights weigh 1 each
    double[] weights = weightWindow == null ? null : PartStats.sumOfDoubles(st, GroupReducer.WEIGHTS, k);
    for (int p = 0; p < k; p++) {
      if (groupOf[p] < 0) {
        ws[p] = cur.workingSets[p];
        rows[p] = cur.rows[p];
        if (weights != null) {
          weights[p] = cur.weights.perPart[p];
        }
      }
    }
    if (weights == null) {
      weights = Arrays.stream(rows).asDoubleStream().toArray();
    }
    return new GroupRun(job, dir, moves, Jobs.count(job, Counters.GROUP_MOVES), ws, rows,
        new Weights(cur.weights.rows, weights, cur.weights.heaviest, cur.weights.fractional));
  }

  /**
   * {@code cur} with the moves of a group job on it applied (the apply job): the new assignment with the working sets
   * and rows the group job reported, to be measured again by {@link #verified}.
   */
  private Measure applied(Measure cur, GroupRun run, long n) throws Exception {
    return new Measure(apply(cur.u, run.moves, run.moved, n), null, run.rows, run.workingSets, cur.keys,
        run.weights, cur.pairs);
  }

  /**
   * {@code cur} as the count job measures it: the same if it was (its counts are there), else measured again, which
   * must find exactly the working sets and rows per part that the group cycles' reducers reported.
   */
  private Measure verified(Measure cur) throws Exception {
    if (cur.counts != null) {
      return cur;
    }
    Measure exact = count(cur.u);
    if (!Arrays.equals(exact.workingSets, cur.workingSets) || !Arrays.equals(exact.rows, cur.rows)) {
      throw new io.parsa.jobs.mr.ConsistencyException(step + ": the group cycles reported working sets "
          + Arrays.toString(cur.workingSets) + " and rows " + Arrays.toString(cur.rows) + ", the count job measured "
          + Arrays.toString(exact.workingSets) + " and " + Arrays.toString(exact.rows));
    }
    if (weightWindow != null) {
      for (int p = 0; p < k; p++) {
        // sums of the same weights taken in another order differ in the last bits
        double a = exact.weights.perPart[p];
        double b = cur.weights.perPart[p];
        if (Math.abs(a - b) > 1e-9 * Math.max(1, Math.abs(a))) {
          throw new io.parsa.jobs.mr.ConsistencyException(step + ": the group cycles reported part weights "
              + Arrays.toString(cur.weights.perPart) + ", the count job measured "
              + Arrays.toString(exact.weights.perPart));
        }
      }
    }
    return exact;
  }

  /**
   * The group of every part in group V-cycle {@code cycle}: the parts in an order shuffled by the cycle, dealt into
   * ⌈k / size⌉ groups of as equal sizes as can be (at most {@code size}); a part alone in its group is in none (−1).
   */
  static int[] grouping(int k, int size, int cycle) {
    int[] order = new int[k];
    for (int i = 0; i < k; i++) {
      order[i] = i;
    }
    java.util.Random rnd = new java.util.Random(0x9E3779B97F4A7C15L * cycle + k);
    for (int i = k - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    int groups = (k + Math.max(2, size) - 1) / Math.max(2, size);
    int[] groupOf = new int[k];
    for (int i = 0; i < k; i++) {
      int group = i % groups;
      boolean alone = (k - 1 - group) / groups == 0; // the only part dealt to this group
      groupOf[order[i]] = alone ? -1 : group;
    }
    return groupOf;
  }

  /**
   * The largest number of parts (2..k) whose rows a group V-cycle reducer can refine in its heap
   * ({@link Jobs#reducerHeapBytes}): the group's share of the rows and non-zeros, and at most its parts' working sets
   * of keys, as in-memory refine-u needs them ({@link RefineUTool#heapNeeded}), plus the reducer's own copy of the
   * rows (16 bytes per non-zero); 0 if not even two parts fit.
   */
  int autoGroupSize(Measure m) {
    long heap = Jobs.reducerHeapBytes(conf);
    int best = groupSizeFor(heap, k, Arrays.stream(m.rows).sum(), m.pairs, m.keys, m.maxWorkingSet());
    if (best == 0) {
      LOG.warn("{}: not even the rows of two parts fit a reducer's heap of {} MiB: no group cycles; the rounds refine each"
          + " block's rows among all parts, the other rows fixed (give reducers more memory, or set --group-size)", step,
          heap >> 20);
    } else {
      LOG.info("{}: groups of {} parts (of k = {}): the largest group whose rows fit a reducer's heap of {} MiB"
          + " (--group-size sets it)", step, best, k, heap >> 20);
    }
    return best;
  }

  /**
   * The largest g in 2..k whose group (g/k of the {@code rows} and of the {@code pairs} (row, key) pairs, at most
   * g·{@code maxWorkingSet} of the {@code keys}) fits {@code heap} bytes, or 0 if not even two parts do.
   */
  static int groupSizeFor(long heap, int k, long rows, long pairs, long keys, long maxWorkingSet) {
    int best = 0;
    for (int g = 2; g <= k; g++) {
      double share = (double) g / k;
      long need = RefineUTool.heapNeeded((long) (rows * share), (long) (pairs * share),
          Math.min(keys, g * maxWorkingSet), g) + (long) (16 * pairs * share);
      if (need <= heap) {
        best = g;
      }
    }
    return best;
  }

  private static Map<String, Object> startEntry(String name, Measure m) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("start", name);
    e.put("maxWorkingSet", m.maxWorkingSet());
    e.put("sumTraffic", m.sumTraffic());
    e.put("kept", false);
    return e;
  }

  private static String secs(long t0) {
    return String.format("%.2f", (System.nanoTime() - t0) / 1e9);
  }

  /** Deletes a measured round's files (its assignment too unless it is {@code keep}). */
  private void discard(Measure m, Path keep) throws IOException {
    if (m.counts != null) {
      fs.delete(m.counts, true);
    }
    if (!m.u.equals(keep) && !m.u.equals(startU)) {
      fs.delete(m.u, true);
    }
  }

  private synchronized Path next(String what) {
    return new Path(work, String.format("j%03d-%s", ++jobNo, what));
  }

  /** The count job on {@code u}: its exact working sets and rows per part, and the counts for the gain job. */
  Measure count(Path u) throws Exception {
    return count(u, null, 0, 0);
  }

  /**
   * The count job on {@code u} with the {@code moved} moves of {@code moves} (a per-block job's output over
   * {@code movesFiles} reducers, {@link BlockPartitioner}; none where null) applied in its maps
   * ({@link CountMapper#MOVES}): the new assignment (in a directory of its own) measured.
   */
  Measure count(Path u, Path moves, int movesFiles, long moved) throws Exception {
    Job job = Jobs.newJob(conf, step, moves == null ? "count keys per part" : "apply the moves and count keys per part",
        MrRefinement.class);
    Configuration c = job.getConfiguration();
    c.setInt(MrKeys.K, k);
    if (moves != null) {
      c.set(CountMapper.MOVES, fs.makeQualified(moves).toString());
      c.setInt(CountMapper.MOVES_FILES, movesFiles);
      Jobs.readsInTasks(job, moves);
    }
    AlignedJoin.configureMapSide(job, blocks, u, CountMapper.class);
    LongKeyComparator.mapOutputKeys(job);
    job.setMapOutputValueClass(KeyCounts.class);
    job.setReducerClass(CountReducer.class);
    job.setNumReduceTasks(reducers);
    job.setOutputKeyClass(IntWritable.class);
    job.setOutputValueClass(KeyCounts.class);
    job.setOutputFormatClass(SequenceFileOutputFormat.class);
    Path out = next("counts");
    FileOutputFormat.setOutputPath(job, out);
    Jobs.run(job);
    long joined = AlignedJoin.check(job);
    Jobs.checkEqual(step + ": key counts vs (row, key) pairs", Jobs.count(job, Counters.ROW_KEY_PAIRS),
        Jobs.count(job, Counters.COUNTED_PAIRS));
    if (moves != null) {
      checkApplied(job, moved, joined);
      Path applied = next("u");
      if (!fs.rename(new Path(out, CountMapper.U_OUT), applied)) {
        throw new IOException(step + ": could not move the count job's new assignment " + new Path(out,
            CountMapper.U_OUT) + " to " + applied);
      }
      u = applied;
    }
    Map<String, Map<String, long[]>> st = PartStats.readPerTask(fs, out);
    synchronized (this) { // count jobs may run side by side (CONCURRENT_CANDIDATES)
      for (Map<String, long[]> t : st.values()) {
        long[] range = t.get(CountMapper.ID_RANGE);
        if (range != null) {
          minId = Math.min(minId, range[0]);
          maxId = Math.max(maxId, range[1]);
        }
      }
    }
    return new Measure(u, out, PartStats.sum(st, CountMapper.ROWS, k), PartStats.sum(st, CountReducer.WORKING_SET, k),
        Jobs.count(job, Counters.KEYS), new Weights(Jobs.count(job, Counters.WEIGHTED_ROWS),
        PartStats.sumOfDoubles(st, CountMapper.WEIGHTS, k), PartStats.maxOfDoubles(st, CountMapper.HEAVIEST, 1)[0],
        Jobs.count(job, Counters.FRACTIONAL_WEIGHTS)),
        Jobs.count(job, Counters.ROW_KEY_PAIRS));
  }

  /** The gain job: every row's best move from {@code m}'s counts, weighted by {@code weights}. */
  private Path gain(Measure m, double[] weights) throws Exception {
    return gain(m, weights, "rate each row's best move", c -> {});
  }

  /**
   * The gain job ({@code what}, for its name): every row's best move from {@code m}'s counts, weighted by
   * {@code weights}, under {@code settings} ({@link GainReducer}'s: the moves a row may propose, the streaming
   * balance's plan pass or its proposals).
   */
  private Path gain(Measure m, double[] weights, String what, java.util.function.Consumer<Configuration> settings)
      throws Exception {
    Job job = perBlockJob(what, m, GainReducer.class, SwapKey.class);
    Configuration c = job.getConfiguration();
    settings.accept(c);
    c.setStrings(GainReducer.WEIGHTS, Arrays.stream(weights).mapToObj(Double::toString).toArray(String[]::new));
    Path out = new Path(next("round"), "candidates");
    FileOutputFormat.setOutputPath(job, out);
    Jobs.run(job);
    Jobs.checkZero(job, Counters.DUPLICATE_KEY_COUNTS, Counters.ROW_WITHOUT_PART, Counters.KEY_WITHOUT_COUNTS);
    Jobs.checkEqual(step + ": rows rated vs rows", Arrays.stream(m.rows).sum(),
        Jobs.count(job, Counters.ROWS_RATED));
    return out;
  }

  /**
   * A job whose {@code reducer} meets each block with the count job's part counts of its keys (from {@code m}), and
   * reads the block and its assignment file itself ({@link BlockCounts}): the gain job and the chunk job. Its output
   * is {@code outKey} → {@link Move} in SequenceFiles; the caller sets the output path.
   */
  private Job perBlockJob(String what, Measure m, Class<? extends org.apache.hadoop.mapreduce.Reducer<IntWritable,
      KeyCounts, ?, Move>> reducer, Class<?> outKey) throws IOException {
    Job job = Jobs.newJob(conf, step, what, MrRefinement.class);
    Configuration c = job.getConfiguration();
    c.setInt(MrKeys.K, k);
    c.set(GainReducer.BLOCKS, blocks.getFileSystem(c).makeQualified(blocks).toString());
    c.set(GainReducer.U, m.u.getFileSystem(c).makeQualified(m.u).toString());
    Jobs.readsInTasks(job, blocks, m.u);
    MultipleInputs.addInputPath(job, m.counts, BufferedSequenceFileInputFormat.class, Mapper.class);
    MultipleInputs.addInputPath(job, markers, BufferedSequenceFileInputFormat.class, MarkerMapper.class);
    job.setMapOutputKeyClass(IntWritable.class);
    job.setMapOutputValueClass(KeyCounts.class);
    job.setPartitionerClass(BlockPartitioner.class);
    job.setReducerClass(reducer);
    job.setNumReduceTasks(Math.min(reducers, numBlocks));
    job.setOutputKeyClass(outKey);
    job.setOutputValueClass(Move.class);
    job.setOutputFormatClass(SequenceFileOutputFormat.class);
    return job;
  }

  /**
   * Each part's growth budget per pair: an equal share of its headroom under {@code ceiling} (the largest working set,
   * or the room above it: {@link #ceiling}).
   */
  private String[] budgets(long[] workingSets, long ceiling) {
    return Arrays.stream(workingSets).mapToObj(m -> Long.toString((ceiling - m) / Math.max(1, k - 1)))
        .toArray(String[]::new);
  }

  /**
   * A job over the gain job's {@code candidates} whose {@code reducer} meets each part pair's moves in one call, best
   * gain first per direction ({@link SwapKey}), and writes moves keyed by block to {@code out}; at most
   * {@code pairs} reducers (the pairs that can have moves).
   */
  private Job perPairJob(String what, Path candidates, Path out,
      Class<? extends org.apache.hadoop.mapreduce.Reducer<SwapKey, Move, IntWritable, Move>> reducer, int pairs)
      throws IOException {
    Job job = Jobs.newJob(conf, step, what, MrRefinement.class);
    job.setInputFormatClass(BufferedSequenceFileInputFormat.class);
    FileInputFormat.addInputPath(job, candidates);
    job.setMapperClass(Mapper.class);
    job.setMapOutputKeyClass(SwapKey.class);
    job.setMapOutputValueClass(Move.class);
    job.setPartitionerClass(SwapKey.PairPartitioner.class);
    job.setSortComparatorClass(SwapKey.Comparator.class);
    job.setGroupingComparatorClass(SwapKey.PairGrouping.class);
    job.setReducerClass(reducer);
    job.setNumReduceTasks(Math.max(1, Math.min(reducers, pairs)));
    job.setOutputKeyClass(IntWritable.class);
    job.setOutputValueClass(Move.class);
    job.setOutputFormatClass(SequenceFileOutputFormat.class);
    FileOutputFormat.setOutputPath(job, out);
    return job;
  }

  /**
   * Weighted rows: each part's room in the weight window per pair, {down, up} as {@link PairReducer#WEIGHT_DOWN} and
   * {@link PairReducer#WEIGHT_UP} take them, an equal share of what the part may lose and gain; null without weights.
   */
  private String[][] weightRooms(Measure m) {
    if (weightWindow == null) {
      return null;
    }
    double[] w = m.weights.perPart;
    String[][] rooms = new String[2][k];
    for (int i = 0; i < k; i++) {
      rooms[0][i] = Double.toString(Math.max(0, w[i] - weightWindow[0]) / Math.max(1, k - 1));
      rooms[1][i] = Double.toString(Math.max(0, weightWindow[1] - w[i]) / Math.max(1, k - 1));
    }
    return rooms;
  }

  /** The pair job: {swaps, most swaps of one pair}; moves under candidates/../moves. */
  private long[] pair(Path candidates, long maxPairs, String[] budget, String[][] weightRooms, boolean safe)
      throws Exception {
    Path out = new Path(candidates.getParent(), "moves");
    fs.delete(out, true);
    Job job = perPairJob("pair swaps per part pair", candidates, out, PairReducer.class, k * (k - 1) / 2);
    Configuration c = job.getConfiguration();
    c.setLong(PairReducer.MAX_PAIRS, maxPairs);
    c.setStrings(PairReducer.BUDGET, budget);
    if (weightRooms != null) {
      c.setStrings(PairReducer.WEIGHT_DOWN, weightRooms[0]);
      c.setStrings(PairReducer.WEIGHT_UP, weightRooms[1]);
    }
    c.setBoolean(PairReducer.SAFE, safe);
    Jobs.run(job);
    long most = 0;
    for (Map<String, long[]> t : PartStats.readPerTask(fs, out).values()) {
      long[] a = t.get(PairReducer.MOST_PAIRS);
      if (a != null) {
        most = Math.max(most, a[0]);
      }
    }
    long full = Jobs.count(job, Counters.PAIR_BUFFER_FULL);
    if (full > 0) {
      LOG.info("{}: {} part pair(s) had more candidates than {} holds; the rest wait for a later round", step, full,
          PairReducer.BUFFER);
    }
    return new long[] {Jobs.count(job, Counters.SWAPS), most};
  }

  /** The apply job: the assignment {@code u} with the {@code moved} rows of {@code moves} moved, one file per block. */
  private Path apply(Path u, Path moves, long moved, long rows) throws Exception {
    Job job = Jobs.newJob(conf, step, "apply the swaps per block", MrRefinement.class);
    job.setInputFormatClass(BufferedSequenceFileInputFormat.class);
    FileInputFormat.addInputPath(job, moves);
    FileInputFormat.addInputPath(job, markers);
    job.setMapperClass(Mapper.class);
    Path out = next("u");
    applySide(job, u, out);
    Jobs.run(job);
    checkApplied(job, moved, rows);
    return out;
  }

  /**
   * The reduce side of a job that applies moves (keyed by block, every block marked) to the assignment {@code u}
   * ({@link ApplyReducer}), writing the new assignment to {@code out}.
   */
  private void applySide(Job job, Path u, Path out) throws IOException {
    Configuration c = job.getConfiguration();
    c.setInt(MrKeys.K, k);
    c.set(GainReducer.U, u.getFileSystem(c).makeQualified(u).toString());
    Jobs.readsInTasks(job, u);
    job.setMapOutputKeyClass(IntWritable.class);
    job.setMapOutputValueClass(Move.class);
    job.setReducerClass(ApplyReducer.class);
    job.setNumReduceTasks(Math.min(reducers, numBlocks));
    job.setOutputKeyClass(NullWritable.class);
    job.setOutputValueClass(NullWritable.class);
    LazyOutputFormat.setOutputFormatClass(job, SequenceFileOutputFormat.class);
    FileOutputFormat.setOutputPath(job, out);
  }

  /** The apply reducer's counters: no error, {@code moved} moves applied, {@code rows} records written. */
  private void checkApplied(Job job, long moved, long rows) throws IOException {
    Jobs.checkZero(job, Counters.DUPLICATE_MOVE, Counters.MOVE_OUTSIDE_BLOCKS, Counters.STALE_MOVE,
        Counters.MOVE_WITHOUT_ROW);
    Jobs.checkEqual(step + ": moves applied vs moves decided", moved, Jobs.count(job, Counters.MOVES_APPLIED));
    Jobs.checkEqual(step + ": assignment records written vs rows", rows, Jobs.count(job, Counters.ROWS_WRITTEN));
  }
}
