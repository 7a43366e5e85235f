package io.parsa.jobs.refine;

import io.parsa.avro.UAssignment;
import io.parsa.common.JsonFiles;
import io.parsa.common.OutputPaths;
import io.parsa.common.ParsaTool;
import io.parsa.common.UsageException;
import io.parsa.engine.Block;
import io.parsa.engine.MultilevelPartitioner;
import io.parsa.engine.RowKeyGraph;
import io.parsa.engine.URefinement;
import io.parsa.engine.Workspace;
import io.parsa.jobs.mr.Jobs;
import io.parsa.yarn.io.AssignmentFiles;
import io.parsa.yarn.io.BlockData;
import io.parsa.yarn.io.BlockFiles;
import io.parsa.yarn.io.BlockStats;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * refine-u: improves a u-assignment by rounds of balance-preserving row swaps ({@link URefinement}) and writes the
 * refined u-assignment (one {@code block-NNNNNN.avro} per block, as partition-u writes it).
 *
 * <p>Two ways to run ({@code --mode}): <b>memory</b> reads every block and the u-assignment through the Hadoop file
 * system (HDFS on a cluster) into this process — about 4·|V|·k bytes of per-key part counts plus 8 bytes per non-zero
 * and the blocks themselves — and refines here, from several starts, with V-cycles and the multilevel start;
 * <b>mapreduce</b> runs the swap rounds as MapReduce jobs whose tasks each hold one block or one key
 * ({@link MrRefinement}), from the given or the input-order start ({@link OrderStart}); <b>auto</b> (default) picks
 * memory when the data fits this JVM's heap. Either way rows keep their part counts (every part keeps its row count,
 * up to the one-row slack of ⌈n/k⌉ vs ⌊n/k⌋), no row is lost or duplicated, and with the max guard (default; always
 * in mapreduce mode) M_max never rises; the output is committed atomically.
 */
public class RefineUTool extends ParsaTool {

  private static final Logger LOG = LoggerFactory.getLogger(RefineUTool.class);

  /**
   * Each thread's arrays for its V-cycles and swap rounds (engine {@link Workspace}): the threads of one refine-u run
   * refine one start each, one after another within a start, so a thread's workspace serves one partitioner or
   * refinement at a time. The start pools' threads end with the run; the calling thread drops its own after the capped
   * V-cycles.
   */
  private static final ThreadLocal<Workspace> WORKSPACE = ThreadLocal.withInitial(Workspace::new);

  /**
   * Coarsest level, in vertices per part, of every other multilevel start on graphs (where they coarsen within
   * communities): 'multilevel', 'multilevel-3', … coarsen to 5 vertices per part, so a coarse vertex may weigh up to
   * 30 % of a part and a large community contracts whole; 'multilevel-2', … keep the engine's 10. The two kinds win on
   * different seeds: over eight seeds on cnr-2000 T_sum 14,104 with 10 for both, 13,494 with 5 for both, 13,592 with
   * one of each, and on ego-twitter 209,027 / 207,063 / 206,521, where the room preset's T_sum (187,488) comes from a
   * start of 10 (with 5 for both it gave 189,426–192,542: docs/quality.md §70).
   */
  static final int GRAPH_COARSEST_PER_PART = 5;

  /** Default number of rounds per phase. */
  public static final int DEFAULT_ROUNDS = 10;
  /** Default exponent schedule: max-weighted rounds (p = 8), then connectivity rounds (p = 1), both guarded. */
  public static final String DEFAULT_SCHEDULE = "8,1";
  /**
   * What refine-u optimises ({@code --objective}): the three figures on balance (default), the busiest machine (M_max,
   * then T_max), or the total traffic (T_sum). It sets the default schedule and decides which start is kept and
   * whether a capped V-cycle is kept; rows stay balanced and the max guard holds either way.
   */
  public enum Objective {
    /** M_max, T_max and T_sum on balance: the smallest M_max/min + T_max/min + T_sum/min; schedule 8,1. */
    BALANCED(DEFAULT_SCHEDULE),
    /** The busiest machine: the smallest M_max/min + T_max/min (T_sum breaks ties); schedule 8,1. */
    MAX(DEFAULT_SCHEDULE),
    /** All the traffic (a shared switch): the smallest T_sum (the balanced score breaks ties); schedule 1. */
    TOTAL("1");

    final String schedule;

    Objective(String schedule) {
      this.schedule = schedule;
    }

    /** The lower-case name users type. */
    public String id() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The names users may type, the default first. */
    public static String[] ids() {
      return java.util.Arrays.stream(values()).map(Objective::id).toArray(String[]::new);
    }

    /** The objective of a name from {@link #ids}. */
    public static Objective of(String id) {
      return valueOf(id.toUpperCase(java.util.Locale.ROOT));
    }

    /**
     * Primary score of the figures {@code f} = {M_max, T_max (bound), T_sum} against the references m, b, t (smaller
     * is better).
     */
    double primary(long[] f, double m, double b, double t) {
      return switch (this) {
        case BALANCED -> f[0] / Math.max(1, m) + f[1] / Math.max(1, b) + f[2] / Math.max(1, t);
        case MAX -> f[0] / Math.max(1, m) + f[1] / Math.max(1, b);
        case TOTAL -> f[2] / Math.max(1, t);
      };
    }

    /** Tie-breaker of {@link #primary} (smaller is better). */
    double secondary(long[] f, double m, double b, double t) {
      return this == MAX ? f[2] / Math.max(1, t) : BALANCED.primary(f, m, b, t);
    }

    /**
     * Index of the best of {@code figures} (each {M_max, T_max, T_sum}), each scored against the smallest of every
     * figure among them; the first of equals.
     */
    public int best(List<long[]> figures) {
      double m = figures.stream().mapToLong(f -> f[0]).min().orElse(1);
      double b = figures.stream().mapToLong(f -> f[1]).min().orElse(1);
      double t = figures.stream().mapToLong(f -> f[2]).min().orElse(1);
      int best = -1;
      double bestPrimary = Double.POSITIVE_INFINITY;
      double bestSecondary = Double.POSITIVE_INFINITY;
      for (int i = 0; i < figures.size(); i++) {
        double p = primary(figures.get(i), m, b, t);
        double q = secondary(figures.get(i), m, b, t);
        if (p < bestPrimary - 1e-12 || (p <= bestPrimary + 1e-12 && q < bestSecondary - 1e-12)) {
          best = i;
          bestPrimary = p;
          bestSecondary = q;
        }
      }
      return best;
    }

    /** Whether {@code now} is better than {@code was} for this objective (each {M_max, T_max, T_sum}). */
    public boolean improves(long[] now, long[] was) {
      double p = primary(now, was[0], was[1], was[2]);
      double p0 = primary(was, was[0], was[1], was[2]);
      return p < p0 - 1e-9 || (p <= p0 + 1e-9
          && secondary(now, was[0], was[1], was[2]) < secondary(was, was[0], was[1], was[2]) - 1e-9);
    }
  }

  /** Refinement starts. */
  public static final String START_GIVEN = "given";
  public static final String START_ORDER = "order";
  public static final String START_MULTILEVEL = "multilevel";
  public static final String DEFAULT_STARTS = START_GIVEN + "," + START_ORDER;
  /** {@code --multilevel auto}: the multilevel start runs when the input-order start's T_sum is at most this share
   * of the given start's (the input order carries locality, as in web crawls). */
  public static final double LOCALITY_RATIO = 0.5;
  /**
   * {@code --multilevel auto}: the multilevel start also runs when rows have at most this many keys on average (graphs:
   * cnr-2000 17, ego-twitter 33). There it costs 4–10 s and was kept on both; on the text sets (news20 149,
   * reuters21578 75) it cost 19–32 s and lost to the other starts (docs/quality.md §9). Only up to
   * {@link #AUTO_VCYCLE_MAX_NONZEROS}, like the V-cycles.
   */
  public static final double SHORT_ROWS = 48;
  /**
   * Where the multilevel start runs first (short rows), the given or the input-order start is not refined when its raw
   * T_sum is more than this many times the best refined multilevel start's: on cnr-2000 their V-cycle and rounds
   * took 4 of refine-u's 12.7 s and ended 3× and 14× above it (docs/quality.md §34); a V-cycle lowered a start's T_sum
   * by at most 3.9× in the runs measured, the rounds hardly at all.
   */
  public static final double FAR_START_RATIO = 4;
  /** A capped V-cycle whose result has an M_max more than this share above its start's is not kept. */
  static final double CAP_SLACK = 0.01;
  /**
   * Default number of multilevel starts (seeds) when the multilevel start runs: two, refined side by side on two
   * cores, for about the time of one (cnr-2000 refine-u 45 s vs 42.5 s; the second seed was kept on cnr-2000 and
   * ego-twitter, docs/quality.md §9).
   */
  public static final int DEFAULT_MULTILEVEL_SEEDS = 2;
  /** Default V-cycles per start before its swap rounds. */
  public static final int DEFAULT_VCYCLES = 1;
  /**
   * The V-cycles refine-u runs when none are asked for, for input of {@code nonZeros} at k parts: {before the swap
   * rounds, capped after them}, from the defaults {@code vcycles} and {@code capped}. Up to
   * {@link #AUTO_VCYCLE_MAX_NONZEROS} all of them; above, one capped V-cycle (at most {@code capped}) while non-zeros
   * times k is at most {@link #AUTO_CAPPED_VCYCLE_MAX_WORK}, else none.
   */
  static int[] autoCycles(long nonZeros, int k, int vcycles, int capped) {
    if (nonZeros <= AUTO_VCYCLE_MAX_NONZEROS) {
      return new int[] {vcycles, capped};
    }
    return new int[] {0, nonZeros * k <= AUTO_CAPPED_VCYCLE_MAX_WORK ? Math.min(capped, 1) : 0};
  }

  /**
   * Above this many non-zeros the default runs fewer V-cycles ({@link #autoCycles}; --vcycles, --capped-vcycles run
   * any number): they are single-threaded per start and took about 4 minutes each at 10^7 non-zeros (10^6 rows) on 2
   * cores when this limit was set (about 40 s now), while cnr-2000 (5.57·10^6 non-zeros) ran its whole default
   * refine-u with them in 47 s.
   */
  public static final long AUTO_VCYCLE_MAX_NONZEROS = 8_000_000L;
  /**
   * Above {@link #AUTO_VCYCLE_MAX_NONZEROS} one capped V-cycle per start still runs by default (none before the swap
   * rounds: at 10^7 a V-cycle there lowered T_sum but left the swap rounds a 17 % higher M_max) while non-zeros × k
   * is at most this: up to 2·10^7 non-zeros at k = 16, 10^7 at k = 32, none above 8·10^6 from k = 40. At 10^7 non-zeros
   * it took about 40 s at k = 16 and lowered T_sum by 4–8 % at the same M_max; at k = 256 it took 4 minutes and the
   * whole 8 GB heap (docs/quality.md §16).
   */
  public static final long AUTO_CAPPED_VCYCLE_MAX_WORK = 320_000_000L;
  /** Default working-set-capped V-cycles after the swap rounds, on the leading start. */
  public static final int DEFAULT_CAPPED_VCYCLES = 4;
  /**
   * Capped V-cycles after the swap rounds by default where the multilevel starts' knee is the room ({@link #kneeRoom}):
   * within a room the cycles went on lowering T_sum (ego-twitter, four seeds: all twelve kept under three, each after
   * the first 0.01–0.34 %, cycles 5–12 together 0.1–0.8 %; 3–6 s more), where without one the fourth gains little
   * (docs/quality.md §80).
   */
  static final int ROOM_CAPPED_VCYCLES = 12;
  /**
   * Default group V-cycles of {@code --mode mapreduce} before its swap rounds (the distributed counterpart of the
   * V-cycles before the rounds: each cycle refines groups of parts, one group per reducer, {@link MrRefinement}).
   */
  public static final int DEFAULT_GROUP_CYCLES_BEFORE = 4;
  /** Default group V-cycles of {@code --mode mapreduce} after its swap rounds (capped at M_max). */
  public static final int DEFAULT_GROUP_CYCLES_AFTER = 4;
  /** Default group cycles of {@code --mode mapreduce} that run the schedule's swap rounds inside each group. */
  public static final int DEFAULT_GROUP_ROUNDS = 8;
  /** A phase stops early when a round improves the objective by less than this (percent). */
  public static final double MIN_ROUND_GAIN_PERCENT = 0.1;

  /**
   * Heap (bytes) refine-u may assume it has; default this JVM's -Xmx. Lower it to keep refine-u off data that
   * would crowd the driver.
   */
  public static final String HEAP_LIMIT = "parsa.refine-u.heap.bytes";
  /** Starts refined at once (default: this machine's cores; fewer when their copies would not fit the heap). */
  public static final String THREADS = "parsa.refine-u.threads";

  /** {@link #HEAP_LIMIT}, or this JVM's maximum heap. */
  public static long heapLimit(Configuration conf) {
    return conf.getLong(HEAP_LIMIT, Runtime.getRuntime().maxMemory());
  }

  /**
   * Heap this step needs, in bytes, for a graph of {@code rows} rows, {@code edges} distinct (row, key) pairs and
   * {@code keys} distinct keys at k parts: the loaded blocks (row ids, offsets, 8-byte keys per edge), the
   * refinement's own copy (4 bytes per edge, dense key ids in a hash table), its per-key part counts and presence
   * bits (4·k + k/8 bytes per key), per-row state and the rounds' gain cache (4·(k + 1) bytes per row up to
   * k = 32); with a 1.5× margin for hash-table growth and the collector.
   */
  public static long heapNeeded(long rows, long edges, long keys, int k) {
    double perEdge = 8 + 4 + 16; // blocks, refinement CSR, multilevel: pins by key and the coarser levels
    double perKey = 24 + 4.0 * k + k / 8.0;
    double perRow = 8 + 4 + 4 + 4 + 24 + 8 * 4;
    return (long) (1.5 * (perEdge * edges + perKey * keys + perRow * rows + URefinement.gainCacheBytes(rows, k)));
  }

  /**
   * Why refine-u cannot run in memory on {@code blocksDir} in a heap of {@code maxHeap} bytes (from ingest's
   * statistics), or null if it fits or the statistics are missing (then it tries); beyond it {@code --mode auto} runs
   * the distributed rounds.
   */
  public static String fitProblem(FileSystem fs, Path blocksDir, int k, long maxHeap) throws IOException {
    BlockStats.Found f = BlockStats.read(fs, blocksDir, BlockFiles.list(fs, blocksDir).size());
    if (f.stats == null) {
      return null;
    }
    BlockStats st = f.stats;
    long keys = st.distinctKeys > 0 ? st.distinctKeys : st.nonZeros;
    if (st.nonZeros > Integer.MAX_VALUE) {
      return String.format("%,d non-zeros in %s exceed what one JVM's arrays hold (%,d)", st.nonZeros, blocksDir,
          Integer.MAX_VALUE);
    }
    long need = heapNeeded(st.rows, st.nonZeros, keys, k);
    if (need > maxHeap) {
      return String.format("%,d rows, %,d non-zeros and %,d keys at k = %d need about %,d MiB of heap in this"
          + " JVM, which has %,d MiB", st.rows, st.nonZeros, keys, k, need >> 20, maxHeap >> 20);
    }
    return null;
  }

  @Override
  protected String name() {
    return "refine-u";
  }

  @Override
  protected String description() {
    return "refine a u-assignment by balance-preserving row swaps that lower the working sets (in memory, or as"
        + " MapReduce rounds for data beyond one JVM)";
  }

  @Override
  protected Options options() {
    return new Options()
        .addOption(opt("blocks", "DIR", "graph blocks (Avro GraphRow)"))
        .addOption(opt("u-assignment", "DIR", "u-assignment to refine (Avro UAssignment)"))
        .addOption(opt("output", "DIR", "refined u-assignment directory"))
        .addOption(opt("k", "K", "number of parts (as in the u-assignment)"))
        .addOption(opt("rounds", "N", "at most N swap rounds per phase (default " + DEFAULT_ROUNDS + "; 0 copies)"))
        .addOption(opt("objective", "O", "what to optimise: balanced (default: M_max, T_max and T_sum on balance;"
            + " where the multilevel starts descend, the knee of their descent is the room, as --max-working-set),"
            + " max (the busiest machine: M_max, then T_max), total (the total traffic T_sum, for a network whose"
            + " shared switch is the bottleneck); sets the schedule and which start and capped V-cycle is kept"))
        .addOption(opt("schedule", "P[,P..]", "objective exponent of each phase, sum_i |N(U_i)|^p: large p weighs"
            + " the largest working sets, p = 1 is the total (default " + DEFAULT_SCHEDULE + "; 1 with --objective"
            + " total)"))
        .addOption(flag("no-max-guard", "allow swaps that raise the largest working set"))
        .addOption(opt("max-working-set", "KEYS", "the keys each machine may hold: the connectivity rounds (p = 1)"
            + " and the capped V-cycles may grow any working set up to KEYS, where that is above the largest the"
            + " max-weighted rounds left, to lower the total traffic T_sum (the max guard holds the rest; with"
            + " --objective total the start of the smallest T_sum is kept); in --mode mapreduce the p = 1 swap,"
            + " chunk and group rounds and the group V-cycles after them (default: none, the largest working set"
            + " never rises)"))
        .addOption(opt("starts", "S[,S]", "refine from each start and keep the best (smallest M_max/min"
            + " + T_max/min + T_sum/min):"
            + " 'given' (the u-assignment) and 'order' (rows in input order cut into k runs, by weight for weighted"
            + " rows, which finds the locality of web crawls and topic-sorted corpora); default " + DEFAULT_STARTS
            + ", where 'order' is refined only if its T_sum is below the given start's, and where the multilevel"
            + " start runs first (short rows) neither is refined if its T_sum is above " + (int) FAR_START_RATIO
            + "x the refined multilevel start's (--mode mapreduce: the start that measures better on M_max and T_sum"
            + " is refined)"))
        .addOption(opt("vcycles", "N", "multilevel V-cycles on each start before its swap rounds: rows clustered"
            + " only within their part, the start kept at the coarsest level and refined by label propagation and FM"
            + " on the way back; lowers the total traffic (default " + DEFAULT_VCYCLES + "; 0 = none; by default none"
            + " above " + AUTO_VCYCLE_MAX_NONZEROS + " non-zeros, where they are slow; --mode mapreduce: group V-cycles"
            + " before the swap rounds, default " + DEFAULT_GROUP_CYCLES_BEFORE + ", see --group-size)"))
        .addOption(opt("capped-vcycles", "N", "V-cycles after the swap rounds in which no move may raise a working set"
            + " above the largest, on the start that leads after its rounds (on all the cores), each followed by"
            + " connectivity rounds and kept while M_max, T_max and T_sum improve on balance"
            + " (sum of new/old ratios < 3) (default " + DEFAULT_CAPPED_VCYCLES + " up to "
            + AUTO_VCYCLE_MAX_NONZEROS + " non-zeros, above 1 up to " + AUTO_CAPPED_VCYCLE_MAX_WORK
            + " non-zeros × k, none beyond; 0 = none; --mode mapreduce: group V-cycles after the swap rounds, default "
            + DEFAULT_GROUP_CYCLES_AFTER + " stopping at one of less than " + MIN_ROUND_GAIN_PERCENT + " % gain; N"
            + " given: all N, as in memory)"))
        .addOption(opt("group-size", "G", "--mode mapreduce: parts per group of a group V-cycle, a MapReduce job"
            + " whose reducers each run a capped V-cycle over the rows of one group of parts, the parts grouped afresh"
            + " each cycle; a reducer holds about G/k of the rows (default: the largest group a reducer's heap holds,"
            + " from mapreduce.reduce.java.opts or mapreduce.reduce.memory.mb)"))
        .addOption(opt("distributed-rounds", "HOW", "--mode mapreduce: how the schedule's swap rounds run: groups"
            + " (default: " + DEFAULT_GROUP_ROUNDS + " cycles of the in-memory rounds inside each group of parts,"
            + " regrouped each cycle; where not even two parts fit a reducer, chunks), swaps (four"
            + " MapReduce jobs per round over all k parts at once, each task holding one block or one key) or chunks"
            + " (as swaps, but each round's task refines a block's rows among all k parts by the in-memory swap rounds,"
            + " every other row fixed)"))
        .addOption(opt("multilevel", "WHEN", "also refine from a multilevel partition (coarsen rows that share keys,"
            + " place, refine while uncoarsening): auto (default: when rows have at most " + (int) SHORT_ROWS
            + " keys on average, as graphs do, up to " + AUTO_VCYCLE_MAX_NONZEROS + " non-zeros, or the input-order"
            + " start shows locality, its T_sum at most half the"
            + " given start's), on, off; --mode mapreduce: a distributed multilevel start (rows clustered per group"
            + " of parts, the clusters placed in one reducer, then balanced in groups), by the same rule"))
        .addOption(opt("multilevel-seeds", "N", "multilevel starts, each from its own seed, when the multilevel"
            + " start runs (default " + DEFAULT_MULTILEVEL_SEEDS + "; on graphs every other one coarsens to "
            + GRAPH_COARSEST_PER_PART + " vertices per part instead of "
            + MultilevelPartitioner.Settings.defaults().coarsestPerPart() + ")"))
        .addOption(opt("mode", "M", "where the refinement runs: memory (this JVM: swap rounds, V-cycles, starts),"
            + " mapreduce (distributed, from the given or the input-order start: group cycles, MapReduce jobs whose"
            + " reducers each refine the rows of a group of parts, see --group-size and --distributed-rounds), auto"
            + " (default: memory when the data fits this JVM's heap, else mapreduce)"))
        .addOption(opt("reducers", "R", "--mode mapreduce: reducers of the per-key and per-block jobs (default: one"
            + " per 256 MiB of blocks)"))
        .addOption(flag("overwrite", "replace an existing output"));
  }

  /**
   * What the multilevel seeds of a run depend on besides the blocks: k, the rounds per phase, the schedule, the max
   * guard and room, {@code --multilevel}, the number of seeds, and whether the descent's knee may set the room
   * ({@link #kneeRoom}: the balanced objective without a room given). Equal plans on the same blocks give the same
   * seeds.
   */
  public record Seeds(int k, int rounds, double[] schedule, Guard guard, String multilevel, int count,
      boolean kneeRoom) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Seeds x && k == x.k && rounds == x.rounds && Arrays.equals(schedule, x.schedule)
          && guard.equals(x.guard) && multilevel.equals(x.multilevel) && count == x.count && kneeRoom == x.kneeRoom;
    }

    @Override
    public int hashCode() {
      return java.util.Objects.hash(k, rounds, Arrays.hashCode(schedule), guard, multilevel, count, kneeRoom);
    }
  }

  /** The seeds' plan of refine-u's options (usage errors as the step itself reports them). */
  private static Seeds seeds(CommandLine cl) {
    required(cl, "k");
    int k = intOpt(cl, "k", 0, 2);
    int rounds = intOpt(cl, "rounds", DEFAULT_ROUNDS, 0);
    Objective objective = Objective.of(choiceOpt(cl, "objective", Objective.BALANCED.id(), Objective.ids()));
    double[] schedule = schedule(cl.getOptionValue("schedule", objective.schedule));
    long room = cl.hasOption("max-working-set") ? longOpt(cl, "max-working-set", 0, 1) : 0;
    Guard guard = new Guard(!cl.hasOption("no-max-guard"), room);
    if (room > 0 && !guard.max()) {
      throw new UsageException("--max-working-set is room the max guard allows; it cannot go with --no-max-guard");
    }
    String multilevel = choiceOpt(cl, "multilevel", "auto", "auto", "on", "off");
    int count = intOpt(cl, "multilevel-seeds", DEFAULT_MULTILEVEL_SEEDS, 1);
    return new Seeds(k, rounds, schedule, guard, multilevel, count,
        objective == Objective.BALANCED && room == 0 && guard.max());
  }

  /** The seeds' plan of a refine-u command line ({@code args}, as the step takes them). */
  public static Seeds seeds(List<String> args) throws org.apache.commons.cli.ParseException {
    return seeds(new org.apache.commons.cli.DefaultParser().parse(new RefineUTool().options(),
        args.toArray(new String[0])));
  }

  @Override
  protected int run(CommandLine cl) throws Exception {
    Path blocksDir = new Path(required(cl, "blocks"));
    Path uDir = new Path(required(cl, "u-assignment"));
    Path out = new Path(required(cl, "output"));
    Seeds seeds = seeds(cl);
    int k = seeds.k();
    int rounds = seeds.rounds();
    Objective objective = Objective.of(choiceOpt(cl, "objective", Objective.BALANCED.id(), Objective.ids()));
    double[] schedule = seeds.schedule();
    long room = seeds.guard().room();
    Guard guard = seeds.guard();
    List<String> starts = new ArrayList<>();
    for (String st : cl.getOptionValue("starts", DEFAULT_STARTS).split(",")) {
      String t = st.trim();
      if (!t.equals(START_GIVEN) && !t.equals(START_ORDER)) {
        throw new UsageException("--starts: expected 'given' and/or 'order', got '" + t + "'");
      }
      if (!starts.contains(t)) {
        starts.add(t);
      }
    }
    String multilevel = seeds.multilevel();
    int multilevelSeeds = seeds.count();
    boolean explicitCycles = cl.hasOption("vcycles") || cl.hasOption("capped-vcycles");
    int vcycles = intOpt(cl, "vcycles", DEFAULT_VCYCLES, 0);
    int cappedVcycles = intOpt(cl, "capped-vcycles", DEFAULT_CAPPED_VCYCLES, 0);
    boolean overwrite = cl.hasOption("overwrite");

    Configuration conf = getConf();
    FileSystem fs = out.getFileSystem(conf);
    Jobs.requireComplete(conf, blocksDir, "blocks");
    Jobs.requireComplete(conf, uDir, "u-assignment");
    OutputPaths.checkWritable(fs, out, overwrite);
    String mode = choiceOpt(cl, "mode", "auto", "auto", "memory", "mapreduce");
    String tooBig = fitProblem(fs, blocksDir, k, heapLimit(conf));
    if (mode.equals("memory") && tooBig != null) {
      throw new UsageException("refine-u --mode memory: " + tooBig + "; give the driver more heap (-Xmx: PARSA_HEAP"
          + " locally, HADOOP_CLIENT_OPTS / HADOOP_HEAPSIZE with hadoop jar), or use --mode mapreduce (distributed swap"
          + " rounds) or auto");
    }
    if (mode.equals("mapreduce") || tooBig != null) {
      if (tooBig != null) {
        LOG.info("refine-u: does not fit in memory ({}); distributed refinement (--mode mapreduce) instead", tooBig);
      }
      if (objective != Objective.BALANCED) {
        LOG.warn("refine-u: --objective {} sets the distributed rounds' schedule ({}); they refine one start and keep"
            + " a round only if M_max does not rise{}", objective.id(), cl.getOptionValue("schedule", objective.schedule),
            room > 0 ? " (at p = 1: above --max-working-set " + room + ")" : "");
      }
      if (!guard.max()) {
        LOG.warn("refine-u: --no-max-guard needs --mode memory; the distributed rounds never keep a round that raises"
            + " M_max");
      }
      int reducers = cl.hasOption("reducers") ? intOpt(cl, "reducers", 1, 1)
          : io.parsa.jobs.mr.RowJoinJob.defaultReducers(conf, blocksDir);
      String distributedRounds = choiceOpt(cl, "distributed-rounds", "groups", "groups", "swaps", "chunks");
      MrRefinement.Groups groups = new MrRefinement.Groups(
          cl.hasOption("vcycles") ? vcycles : DEFAULT_GROUP_CYCLES_BEFORE, DEFAULT_GROUP_ROUNDS,
          cl.hasOption("capped-vcycles") ? cappedVcycles : DEFAULT_GROUP_CYCLES_AFTER,
          cl.hasOption("group-size") ? intOpt(cl, "group-size", 0, 2) : 0, !distributedRounds.equals("groups"),
          distributedRounds.equals("chunks"), cl.hasOption("capped-vcycles"));
      return runMapReduce(conf, fs, blocksDir, uDir, out, k, schedule, rounds, reducers, starts.contains(START_ORDER),
          multilevel, groups, objective == Objective.BALANCED, room, overwrite);
    }
    long t0 = System.nanoTime();

    List<Path> blockFiles = BlockFiles.list(fs, blocksDir);
    // ingest's counts, where the blocks have them, size each block's arrays once
    BlockStats counted = BlockStats.read(fs, blocksDir, blockFiles.size()).stats;
    // the pipeline may have read the blocks while partition-u ran
    Preload.Read preloaded = Preload.take(fs, blocksDir, blockFiles, k);
    Loaded loaded = preloaded != null ? new Loaded(readAssignment(fs, uDir, k), preloaded.blocks())
        : load(fs, uDir, k, blockFiles, counted);
    Long2IntOpenHashMap partOf = loaded.partOf();
    List<Block> blocks = loaded.blocks();
    int[][] parts = new int[blockFiles.size()][];
    long rows = 0;
    for (int b = 0; b < blockFiles.size(); b++) {
      Block d = blocks.get(b);
      if (d.weighted() && b == 0) {
        LOG.info("refine-u: the blocks carry row weights; every part's weight stays within a window as wide as the"
            + " heaviest row (or the start's own spread, if wider), and row counts may change");
      }
      parts[b] = new int[d.numRows()];
      for (int r = 0; r < d.numRows(); r++) {
        int p = partOf.remove(d.rowId(r));
        if (p < 0) {
          throw new UsageException("row " + d.rowId(r) + " of block " + blockFiles.get(b)
              + " has no part in the u-assignment " + uDir + " (or appears in two blocks)");
        }
        parts[b][r] = p;
      }
      rows += d.numRows();
    }
    if (!partOf.isEmpty()) {
      throw new UsageException("the u-assignment " + uDir + " assigns " + partOf.size() + " row(s) that no block of "
          + blocksDir + " holds, e.g. row " + partOf.keySet().iterator().nextLong());
    }
    double loadSec = (System.nanoTime() - t0) / 1e9;

    long t1 = System.nanoTime();
    // the rows over dense key ids, built once and read by every start, V-cycle and T_sum check
    RowKeyGraph graph = preloaded != null ? preloaded.graph() : RowKeyGraph.of(blocks);
    boolean weighted = blocks.stream().anyMatch(Block::weighted);
    // V-cycles weigh rows in integers: weighted rows of other weights get the swap rounds alone
    boolean cyclesFit = !weighted || RowWeights.integral(blocks);
    if (!cyclesFit) {
      LOG.info("refine-u: no V-cycles: a row weight is not a whole number, or all of them sum past 2^31 (the"
          + " multilevel partitioner weighs rows in ints); the swap rounds keep every part's weight within the"
          + " heaviest row's");
    }
    long nonZeros = blocks.stream().mapToLong(Block::numEdges).sum();
    if (!explicitCycles) {
      int[] auto = autoCycles(nonZeros, k, vcycles, cappedVcycles);
      if (auto[0] != vcycles || auto[1] != cappedVcycles) {
        LOG.info("refine-u: {} non-zeros at k = {}: by default {} V-cycle(s) before the swap rounds and {} capped after"
            + " them instead of {} and {} (all of them up to {} non-zeros, one capped V-cycle up to {} non-zeros × k;"
            + " one took about 40 s at 10^7 and k = 16 on 2 cores, docs/quality.md §16); --vcycles N /"
            + " --capped-vcycles N set them", nonZeros, k, auto[0], auto[1], vcycles, cappedVcycles,
            AUTO_VCYCLE_MAX_NONZEROS, AUTO_CAPPED_VCYCLE_MAX_WORK);
        vcycles = auto[0];
        cappedVcycles = auto[1];
      }
    }
    // weighted rows: a V-cycle before the swap rounds raised M_max by 7-26 % on three of the four shared data sets
    // (the swap rounds keep the weights and do not bring it back), so by default they get the capped V-cycles after
    // the rounds alone, which lowered all three figures or T_max and T_sum at M_max (docs/quality.md §54)
    final int preCycles = weighted && !cl.hasOption("vcycles") ? 0 : vcycles;
    final int postCycles = cappedVcycles;
    List<Candidate> candidates = new ArrayList<>();
    List<String> toRun = new ArrayList<>();
    // raw T_sum of the given and the input-order start, where known before refining (for the multilevel rule)
    long[] rawTSum = {-1, -1};
    toRun.addAll(starts);
    int[][] orderStart = !toRun.contains(START_ORDER) ? null
        : preloaded != null ? preloaded.orderStart() : URefinement.inputOrderStart(k, blocks);
    if (!cl.hasOption("starts") && toRun.contains(START_GIVEN) && toRun.contains(START_ORDER)) {
      // an input order that shows no locality at all (its T_sum no lower than the given start's) does not refine past
      // the given start, with or without V-cycles (docs/quality.md §12 and §24: reuters21578 and ego-twitter), and
      // refining it would halve the given start's cores
      rawTSum = URefinement.sumTrafficIfHome(k, graph, parts, orderStart);
      if (rawTSum[1] >= rawTSum[0]) {
        LOG.info("refine-u: input-order start skipped: its T_sum {} is no lower than the given start's {}"
            + " (--starts given,order refines it anyway)", String.format("%,d", rawTSum[1]),
            String.format("%,d", rawTSum[0]));
        toRun.remove(START_ORDER);
      }
    }
    // where the multilevel start's run does not hang on the other starts (short rows, or --multilevel on), it runs
    // first, and with the default starts a start whose raw T_sum is far above its result is not refined (§34)
    String multilevelReason = multilevelReason(multilevel, weighted && !cyclesFit, -1, -1, rows, nonZeros);
    boolean multilevelFirst = multilevelReason.startsWith("run");
    List<Map<String, Object>> notRefined = new ArrayList<>();
    boolean seedsAhead = false;
    long kneeRoom = 0; // the room the seeds' descent set (kneeGuard), where it did
    if (multilevelFirst) {
      // the seeds first; the other starts on the threads the seeds leave, the leader's capped V-cycles beside them
      List<Candidate> ahead = preloaded != null && seeds.equals(preloaded.plan()) ? preloaded.seeds() : null;
      seedsAhead = ahead != null;
      if (ahead != null) {
        LOG.info("refine-u: the multilevel start(s) {} were placed and refined while partition-u ran",
            String.join(", ", ahead.stream().map(c -> c.start).toList()));
      }
      MultilevelFirst first = multilevelFirst(conf, fs, blocksDir, k, multilevelSeeds, blocks, graph, schedule, rounds,
          guard, toRun, rawTSum, orderStart, parts, preCycles, postCycles, objective, ahead, kneeRoom(conf, seeds),
          cl.hasOption("capped-vcycles") || postCycles < DEFAULT_CAPPED_VCYCLES ? postCycles : ROOM_CAPPED_VCYCLES);
      candidates.addAll(first.candidates());
      if (first.guard().room() != room) {
        kneeRoom = first.guard().room();
        cappedVcycles = first.cappedVcycles();
      }
      notRefined.addAll(first.notRefined());
      LOG.info("refine-u: multilevel start: {}", multilevelReason);
    } else {
      candidates.addAll(refineStarts(conf, fs, blocksDir, k, toRun, blocks, graph, cyclesFit ? preCycles : 0, parts,
          orderStart, schedule, rounds, guard));
      multilevelReason = multilevelReason(multilevel, weighted && !cyclesFit, startTSum(candidates, START_GIVEN,
          rawTSum[0]),
          startTSum(candidates, START_ORDER, rawTSum[1]), rows, nonZeros);
      if (multilevelReason.startsWith("run")) {
        // the other starts were refined before the seeds' descents: no knee room (it would hold for the seeds alone)
        candidates.addAll(multilevelStarts(conf, fs, blocksDir, k, multilevelSeeds, blocks, graph, schedule, rounds,
            guard, false));
      }
      LOG.info("refine-u: multilevel start: {}", multilevelReason);
      if (cyclesFit && postCycles > 0) {
        try {
          polishLeader(candidates, k, blocks, graph, rounds, guard, postCycles, objective);
        } finally {
          WORKSPACE.remove(); // the calling thread outlives refine-u (a pipeline runs on in it)
        }
      }
    }
    RowWeights weights = cyclesFit ? RowWeights.of(blocks, graph, k) : null;
    if (weights != null) {
      // a multilevel start of weighted rows may miss its window (a row is not divisible): one that ends less balanced
      // than the given start could be is not kept
      double givenSpread = RowWeights.spread(weights.loads(parts));
      List<Candidate> balanced = candidates.stream().filter(c -> weights.balanced(c.ref.loads(), givenSpread)).toList();
      if (balanced.size() < candidates.size()) {
        LOG.info("refine-u: start(s) {} not kept: parts' weights further apart than the heaviest row's and the given"
            + " start's", String.join(", ", candidates.stream().filter(c -> !balanced.contains(c)).map(c -> c.start)
            .toList()));
      }
      if (!balanced.isEmpty()) {
        candidates = new ArrayList<>(balanced);
      }
    }
    Candidate best = choose(candidates, objective);
    Result ref = best.ref;
    if (candidates.size() > 1) {
      for (Candidate c : candidates) {
        LOG.info("refine-u: start '{}' refined to M_max {}, T_max >= {}, T_sum {} ({} s){}", c.start,
            c.ref.maxWorkingSet(), c.ref.maxTrafficBound(), c.ref.sumTrafficIfHome(), String.format("%.2f", c.seconds),
            c == best ? " <- kept" : "");
      }
    }
    List<Map<String, Object>> log = best.log;
    double refineSec = (System.nanoTime() - t1) / 1e9;

    Path tmp = OutputPaths.tempFor(out);
    try {
      fs.mkdirs(tmp);
      int[][] refined = ref.parts();
      for (int b = 0; b < blocks.size(); b++) {
        Block blk = blocks.get(b);
        long[] ids = new long[blk.numRows()];
        for (int r = 0; r < ids.length; r++) {
          ids[r] = blk.rowId(r);
        }
        AssignmentFiles.write(fs, tmp, b, 0, ids, refined[b]);
      }
      Map<String, Object> stats = new LinkedHashMap<>();
      stats.put("k", k);
      stats.put("rows", rows);
      stats.put("objective", objective.id());
      stats.put("schedule", schedule);
      stats.put("maxGuard", guard.max());
      if (kneeRoom > 0) {
        putRoom(stats, kneeRoom, ref.maxWorkingSet(), "the multilevel starts' descent (its knee)");
      } else {
        putRoom(stats, room, ref.maxWorkingSet(), null);
      }
      stats.put("vcycles", cyclesFit ? preCycles : 0);
      stats.put("cappedVcycles", cyclesFit ? cappedVcycles : 0);
      stats.put("rowsPerPart", ref.sizes());
      if (weighted) {
        stats.put("weightPerPart", ref.loads());
      }
      stats.put("workingSets", ref.workingSets());
      stats.put("readSeconds", loadSec);
      stats.put("blocksReadEarly", preloaded != null);
      stats.put("multilevelSeedsAhead", seedsAhead);
      stats.put("refineSeconds", refineSec);
      stats.put("start", best.start);
      stats.put("multilevel", multilevelReason);
      stats.put("communities", communities(graph, k)); // multilevel runs within communities, tight V-cycle caps
      if (!notRefined.isEmpty()) {
        stats.put("startsNotRefined", notRefined);
      }
      stats.put("rounds", log);
      List<Map<String, Object>> cands = new ArrayList<>();
      for (Candidate c : candidates) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("start", c.start);
        e.put("startMaxWorkingSet", c.startMMax);
        e.put("startSumTraffic", c.startTSum);
        e.put("maxWorkingSet", c.ref.maxWorkingSet());
        e.put("sumTraffic", c.ref.sumTrafficIfHome());
        e.put("maxTrafficLowerBound", c.ref.maxTrafficBound());
        e.put("seconds", c.seconds);
        e.put("cappedVcyclesRan", c.polished);
        e.put("kept", c == best);
        e.put("rounds", c.log);
        cands.add(e);
      }
      stats.put("starts", cands);
      JsonFiles.write(fs, new Path(tmp, "_refine.json"), stats);
      OutputPaths.commit(fs, tmp, out, overwrite);
    } finally {
      OutputPaths.discard(fs, tmp);
    }
    LOG.info("refine-u: {} rows refined in {} s (read {} s{}) -> {}; {}", rows,
        String.format("%.2f", refineSec), String.format("%.2f", loadSec),
        preloaded == null ? "" : preloaded.seeds() != null ? ", waiting for the blocks read and the seeds placed while"
            + " partition-u ran" : ", waiting for the blocks read while partition-u ran", out, ref.summary());
    return 0;
  }

  /**
   * The room of a run (0: none) into {@code stats} ({@code maxWorkingSetRoom}, and {@code withinMaxWorkingSetRoom}:
   * whether the refinement's largest working set {@code mMax} ended within it). {@code from} null: a user gave it
   * ({@code --max-working-set}), and a warning says where it was not met: the max-weighted rounds could not bring
   * M_max down to the room, so the room was not used and nothing rose above the M_max they left. Else where it came
   * from ({@code maxWorkingSetRoomFrom}).
   */
  static void putRoom(Map<String, Object> stats, long room, long mMax, String from) {
    if (room <= 0) {
      return;
    }
    stats.put("maxWorkingSetRoom", room);
    if (from != null) {
      stats.put("maxWorkingSetRoomFrom", from);
    }
    stats.put("withinMaxWorkingSetRoom", mMax <= room);
    if (from == null && mMax > room) {
      LOG.warn("refine-u: --max-working-set {} not used: the largest working set is {}, above it (the max-weighted"
          + " rounds could not bring it down to the room, and no round raised it); a larger room lets the total"
          + " traffic fall", room, mMax);
    }
  }

  /** {@code --mode mapreduce}: the distributed refinement ({@link MrRefinement}); output as the in-memory path's. */
  private int runMapReduce(Configuration conf, FileSystem fs, Path blocksDir, Path uDir, Path out, int k,
      double[] schedule, int rounds, int reducers, boolean orderStart, String multilevel,
      MrRefinement.Groups groups, boolean keepBetterStart, long room, boolean overwrite) throws Exception {
    if (!io.parsa.jobs.mr.AlignedJoin.aligned(conf, blocksDir, uDir)) {
      throw new UsageException("refine-u --mode mapreduce needs a u-assignment with one file per block"
          + " (block-NNNNNN.avro, as partition-u, refine-u and assign-baseline write it); " + uDir + " is not laid out"
          + " so for the blocks of " + blocksDir);
    }
    long t0 = System.nanoTime();
    Path tmp = OutputPaths.tempFor(out);
    Path work = Jobs.workDirFor(out);
    try {
      MrRefinement mr = new MrRefinement(conf, name(), blocksDir, work, k, reducers).keepBetterStart(keepBetterStart)
          .setRoom(room);
      MrRefinement.Result res = mr.run(uDir, orderStart, multilevel, schedule, rounds, groups);
      MrRefinement.Measure end = res.end();
      if (end.u().equals(uDir)) {
        fs.mkdirs(tmp);
        for (Path f : Jobs.avroFiles(uDir.getFileSystem(conf), uDir)) {
          org.apache.hadoop.fs.FileUtil.copy(uDir.getFileSystem(conf), f, fs, new Path(tmp, f.getName()), false,
              conf);
        }
      } else {
        if (!fs.rename(end.u(), tmp)) {
          throw new IOException("could not rename " + end.u() + " to " + tmp);
        }
        io.parsa.jobs.mr.PartStats.delete(fs, tmp);
        fs.delete(new Path(tmp, OutputPaths.SUCCESS), false);
      }
      double secs = (System.nanoTime() - t0) / 1e9;
      Map<String, Object> stats = new LinkedHashMap<>();
      stats.put("k", k);
      stats.put("mode", "mapreduce");
      stats.put("rows", Arrays.stream(end.rows()).sum());
      stats.put("schedule", schedule);
      stats.put("reducers", reducers);
      putRoom(stats, room, end.maxWorkingSet(), null);
      stats.put("groupVCyclesBefore", groups.before());
      stats.put("groupRounds", groups.swaps() ? 0 : groups.rounds());
      stats.put("groupVCyclesAfter", groups.after());
      // what ran: chunk rounds also where groups were asked for but not even two parts fit a reducer
      stats.put("distributedRounds", mr.chunkRounds() ? "chunks" : groups.swaps() ? "swaps" : "groups");
      stats.put("rowsPerPart", end.rows());
      if (end.weightedRows() > 0) {
        stats.put("weightPerPart", end.weights().perPart());
      }
      stats.put("workingSets", end.workingSets());
      stats.put("start", res.start());
      stats.put("starts", res.starts());
      stats.put("startMaxWorkingSet", res.startMaxWorkingSet());
      stats.put("startSumTraffic", res.startSumTraffic());
      stats.put("maxWorkingSet", end.maxWorkingSet());
      stats.put("sumTraffic", end.sumTraffic());
      stats.put("refineSeconds", secs);
      stats.put("rounds", res.log());
      JsonFiles.write(fs, new Path(tmp, "_refine.json"), stats);
      OutputPaths.commit(fs, tmp, out, overwrite);
      LOG.info("refine-u: distributed refinement in {} s -> {}: M_max {} -> {}, T_sum {} -> {}",
          String.format("%.2f", secs), out, res.startMaxWorkingSet(), end.maxWorkingSet(), res.startSumTraffic(),
          end.sumTraffic());
      return 0;
    } finally {
      OutputPaths.discard(fs, tmp);
      fs.delete(work, true);
    }
  }

  /** One refined start. */
  static final class Candidate {
    final String start;
    /** What is kept of the refinement (its per-key counts are dropped, so starts never share the heap). */
    final Result ref;
    final List<Map<String, Object>> log;
    final long startMMax;
    final long startTSum;
    final double seconds;
    /** Whether its capped V-cycles ran ({@link #polishLeader}). */
    final boolean polished;

    Candidate(String start, Result ref, List<Map<String, Object>> log, long startMMax, long startTSum,
        double seconds, boolean polished) {
      this.start = start;
      this.ref = ref;
      this.log = log;
      this.startMMax = startMMax;
      this.startTSum = startTSum;
      this.seconds = seconds;
      this.polished = polished;
    }
  }

  /** A refined assignment and its figures. */
  private record Result(int[][] parts, int[] sizes, double[] loads, long[] workingSets, long maxWorkingSet,
      long sumTrafficIfHome, long maxTrafficBound, String summary) {}

  /**
   * Runs the schedule's rounds from {@code parts}, logging every round; {@code floorInMaxPhases} false lets the
   * max-weighted phases (p &gt; 1) hold M_max alone (URefinement#setFloorGuard): for the multilevel starts, whose nearly
   * self-contained parts the floor guard freezes (cnr-2000: M_max 25,942 with it, 22,891 without). From Parsa's U it
   * stays: there it steers the p = 8 phase (news20, k = 64: 15,476 with it, 17,642 without).
   */
  private static Candidate refine(String start, int k, List<Block> blocks, RowKeyGraph graph, Start from,
      double[] schedule, int rounds, Guard guard, boolean floorInMaxPhases, int roundThreads) {
    long t0 = System.nanoTime();
    return refine(start, k, blocks, graph, from.refinement(k, blocks, graph, schedule[0], guard), schedule, rounds,
        floorInMaxPhases, roundThreads, new ArrayList<>(), t0);
  }

  /**
   * The same from a refinement built already ({@link Start#refinement}: a start's counts are taken over once, so the
   * caller that measured the start hands its refinement on), its rounds logged after what {@code log} holds, its time
   * counted from {@code t0}.
   */
  private static Candidate refine(String start, int k, List<Block> blocks, RowKeyGraph graph, URefinement ref,
      double[] schedule, int rounds, boolean floorInMaxPhases, int roundThreads, List<Map<String, Object>> log,
      long t0) {
    ref.setThreads(roundThreads);
    ref.setWorkspace(WORKSPACE.get());
    LOG.info("refine-u: start '{}': {} rows, {} blocks, k={}, {}", start, ref.sizes().length == 0 ? 0
        : Arrays.stream(ref.sizes()).sum(), blocks.size(), k, ref.summary());
    long m0 = ref.maxWorkingSet();
    long t0Sum = ref.sumTrafficIfHome();
    for (double p : schedule) {
      rounds(start, "", ref, p, rounds, log, floorInMaxPhases);
    }
    return new Candidate(start, result(ref), log, m0, t0Sum, (System.nanoTime() - t0) / 1e9, false);
  }

  /**
   * The capped V-cycles after the swap rounds, on the start most likely to be kept (the best for the objective after
   * its rounds), on all the cores; the others stay as their rounds left them. The leader after the rounds was the start
   * kept after the cycles on reuters21578 (seven of seven U), ego-twitter and cnr-2000 (docs/quality.md §24); on
   * news20, where the given and the input-order start end within half a percent of each other, the trailing one won
   * twice of four. A second finalist polished beside the leader halved the leader's cores for it.
   */
  private static void polishLeader(List<Candidate> candidates, int k, List<Block> blocks, RowKeyGraph graph,
      int rounds, Guard guard, int cycles, Objective objective) {
    Candidate leader = candidates.get(objective.best(candidates.stream().map(c -> figures(c.ref)).toList()));
    if (candidates.size() > 1) {
      LOG.info("refine-u: capped V-cycles on the leading start after the swap rounds ({}); not on {}", leader.start,
          String.join(", ", candidates.stream().filter(c -> c != leader).map(c -> c.start).toList()));
    }
    candidates.set(candidates.indexOf(leader), polish(leader, k, blocks, graph, rounds, guard, cycles, objective,
        roundThreads(1)));
  }

  /** Up to {@code cycles} capped V-cycles on a refined start, each followed by connectivity rounds; kept while better. */
  private static Candidate polish(Candidate c, int k, List<Block> blocks, RowKeyGraph graph, int rounds,
      Guard guard, int cycles, Objective objective, int roundThreads) {
    long t0 = System.nanoTime();
    String start = c.start;
    List<Map<String, Object>> log = new ArrayList<>(c.log);
    Result res = c.ref;
    RowWeights weights = RowWeights.of(blocks, graph, k);
    boolean graphMode = communities(graph, k);
    for (int cycle = 1; cycle <= cycles; cycle++) {
      stopIfCancelled(start);
      // a V-cycle that may not raise any working set above the largest, then connectivity rounds
      int[][] cur = res.parts();
      MultilevelPartitioner.Settings s = MultilevelPartitioner.Settings.defaults();
      boolean roomed = guard.roomUsed(res.maxWorkingSet()); // a room is held exactly (below)
      MultilevelPartitioner mp = new MultilevelPartitioner(k, s.withSeed(s.seed() + 100 + cycle),
          cycleLog(start, "capped V-cycle " + cycle)).setThreads(roundThreads).setWorkspace(WORKSPACE.get())
          .holdCap(roomed).communities(graphMode).tightCaps(graphMode).exactFm(graphMode);
      double[] window = weights == null ? null : weights.window(res.loads());
      if (weights != null) {
        weights.applyTo(mp, window);
      }
      long cap = guard.cap(res.maxWorkingSet());
      MultilevelPartitioner.Counted vc = mp.counted(blocks, graph, cur, 0.0, cap);
      URefinement after = guard.applyTo(new URefinement(k, blocks, graph, vc, 1.0, guard.max()));
      after.setThreads(roundThreads);
      after.setWorkspace(WORKSPACE.get());
      rounds(start, "after capped V-cycle " + cycle + " ", after, 1.0, rounds, log, true);
      Result polished = result(after);
      // kept if it improves the objective (the rule that chooses between starts)
      boolean better = objective.improves(figures(polished), figures(res));
      boolean held = guard.held(res.maxWorkingSet(), polished.maxWorkingSet());
      // weighted rows: every part's weight stays in the window of the start of the cycle
      boolean balanced = weights == null || RowWeights.within(polished.loads(), window);
      LOG.info("refine-u: start '{}' capped V-cycle {}: M_max {} -> {}, T_max >= {} -> {}, T_sum {} -> {}: {}", start,
          cycle, res.maxWorkingSet(), polished.maxWorkingSet(), res.maxTrafficBound(), polished.maxTrafficBound(),
          res.sumTrafficIfHome(), polished.sumTrafficIfHome(), !held ? (roomed
              ? "dropped (M_max above --max-working-set " + cap + ")"
              : "dropped (M_max rose by more than " + Math.round(100 * CAP_SLACK) + " %)")
              : !balanced ? "dropped (a part's weight left " + Arrays.toString(window) + ")" : better ? "kept" : "dropped (not better for --objective "
              + objective.id() + ")");
      better &= held && balanced;
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("cappedVCycle", cycle);
      e.put("kept", better);
      e.put("maxWorkingSet", polished.maxWorkingSet());
      e.put("maxTrafficLowerBound", polished.maxTrafficBound());
      e.put("sumTraffic", polished.sumTrafficIfHome());
      log.add(e);
      if (!better) {
        break;
      }
      res = polished;
    }
    return new Candidate(start, res, log, c.startMMax, c.startTSum, c.seconds + (System.nanoTime() - t0) / 1e9,
        true);
  }

  private static Result result(URefinement ref) {
    return new Result(ref.parts(), ref.sizes(), ref.loads(), ref.workingSets(), ref.maxWorkingSet(),
        ref.sumTrafficIfHome(), ref.trafficLowerBound(), ref.summary());
  }

  /** Up to {@code rounds} rounds at exponent p, until a round gains under {@link #MIN_ROUND_GAIN_PERCENT}. */
  private static void rounds(String start, String phase, URefinement ref, double p, int rounds,
      List<Map<String, Object>> log, boolean floorInMaxPhase) {
    ref.setExponent(p);
    // T_max's floor is always held in the connectivity phase (p = 1)
    ref.setFloorGuard(p == 1.0 || floorInMaxPhase);
    for (int round = 1; round <= rounds; round++) {
      stopIfCancelled(start);
      long tr = System.nanoTime();
      URefinement.RoundStats st = ref.round();
      double secs = (System.nanoTime() - tr) / 1e9;
      LOG.info("refine-u: start '{}' {}p={} round {}: {} ({} s)", start, phase, p, round, st,
          String.format("%.2f", secs));
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("exponent", p);
      e.put("round", round);
      e.put("rowsMoved", st.moves());
      e.put("objectiveChangePercent", st.objectiveChangePercent());
      e.put("maxWorkingSet", st.mMax());
      e.put("sumWorkingSet", st.mSum());
      e.put("sumTraffic", st.tSumIfHome());
      e.put("seconds", secs);
      if (!phase.isEmpty()) {
        e.put("phase", phase.trim());
      }
      log.add(e);
      if (stalled(st)) {
        break;
      }
    }
  }

  /** Whether a round moved nothing or gained under {@link #MIN_ROUND_GAIN_PERCENT}: its phase ends. */
  static boolean stalled(URefinement.RoundStats st) {
    return st.moves() == 0 || st.objectiveChangePercent() > -MIN_ROUND_GAIN_PERCENT;
  }

  /** Up to {@code rounds} rounds of {@code ref} at its exponent until one {@link #stalled}, {@code tick} after each. */
  static void roundsUntilStalled(URefinement ref, int rounds, Runnable tick) {
    for (int round = 0; round < rounds; round++) {
      URefinement.RoundStats st = ref.round();
      tick.run();
      if (stalled(st)) {
        break;
      }
    }
  }

  /**
   * {@code n} multilevel V-cycles from {@code parts}, each capped at its start's largest working set (the connectivity
   * falls; rows stay balanced within one), their levels coarsened on {@code threads} threads.
   */
  static Start vcycles(String start, int k, List<Block> blocks, RowKeyGraph graph, int n, int[][] parts,
      int threads) {
    Start cur = new Start(parts, null);
    MultilevelPartitioner.Settings d = MultilevelPartitioner.Settings.defaults();
    RowWeights weights = n > 0 ? RowWeights.of(blocks, graph, k) : null;
    boolean graphMode = communities(graph, k);
    for (int c = 0; c < n; c++) {
      MultilevelPartitioner mp = new MultilevelPartitioner(k, d.withSeed(d.seed() + c),
          cycleLog(start, "V-cycle " + (c + 1))).setThreads(threads).setWorkspace(WORKSPACE.get())
          .communities(graphMode).tightCaps(graphMode).exactFm(graphMode);
      double[] window = weights == null ? null : weights.window(weights.loads(cur.parts()));
      if (weights != null) {
        weights.applyTo(mp, window);
      }
      MultilevelPartitioner.Counted vc = mp.counted(blocks, graph, cur.parts(), 0.0, -1);
      if (weights != null && !RowWeights.within(weights.loads(vc.parts()), window)) {
        LOG.info("refine-u: start '{}' V-cycle {} dropped: a part's weight left {}", start, c + 1,
            Arrays.toString(window));
        break;
      }
      cur = new Start(vc);
    }
    return cur;
  }

  /**
   * Weighted rows' weights as integers in the graph's row order, for their V-cycles (the multilevel partitioner weighs
   * its vertices in integers), and the heaviest row, which sets the window every part's weight keeps
   * ({@link URefinement#weightWindow}, the swap rounds' own rule).
   */
  record RowWeights(int[] weights, int[] blockStart, double heaviest, int k) {
    /** Null where every row weighs 1. */
    static RowWeights of(List<Block> blocks, RowKeyGraph graph, int k) {
      if (blocks.stream().noneMatch(Block::weighted)) {
        return null;
      }
      int[] w = new int[graph.numRows()];
      double heaviest = 0;
      for (int b = 0; b < blocks.size(); b++) {
        Block blk = blocks.get(b);
        for (int r = 0; r < blk.numRows(); r++) {
          double x = blk.weight(r);
          if (!integral(x)) {
            throw new IllegalStateException("row weight " + x + " is not an integer (checked before)");
          }
          w[graph.blockStart()[b] + r] = (int) x;
          heaviest = Math.max(heaviest, x);
        }
      }
      return new RowWeights(w, graph.blockStart(), heaviest, k);
    }

    /**
     * Whether every row's weight is a whole number and all of them sum to an int, as the multilevel partitioner weighs
     * its vertices (else the V-cycles are skipped).
     */
    static boolean integral(List<Block> blocks) {
      long total = 0;
      for (Block blk : blocks) {
        for (int r = 0; r < blk.numRows(); r++) {
          double x = blk.weight(r);
          if (!integral(x)) {
            return false;
          }
          total += (long) x;
          if (total > Integer.MAX_VALUE) {
            return false;
          }
        }
      }
      return true;
    }

    private static boolean integral(double x) {
      return x == Math.rint(x) && x >= 0 && x <= Integer.MAX_VALUE;
    }

    /**
     * The weights {@code w} as ints where every one is a whole number and they sum to at most {@code limit}, else null
     * (a chunk's rows for the multilevel partitioner).
     */
    static int[] whole(double[] w, long limit) {
      int[] out = new int[w.length];
      long total = 0;
      for (int i = 0; i < w.length; i++) {
        if (!integral(w[i]) || (total += (long) w[i]) > limit) {
          return null;
        }
        out[i] = (int) w[i];
      }
      return out;
    }

    double[] window(double[] loads) {
      return URefinement.weightWindow(loads, heaviest);
    }

    /** The window of a fresh placement: as wide as the heaviest row, around the mean weight of a part. */
    double[] freshWindow() {
      double total = 0;
      for (int x : weights) {
        total += x;
      }
      double[] even = new double[k];
      Arrays.fill(even, total / k);
      return window(even);
    }

    /** Whether the parts of {@code loads} differ by at most the heaviest row's weight, or {@code spread} if more. */
    boolean balanced(double[] loads, double spread) {
      return spread(loads) <= Math.max(heaviest, spread) * (1 + 1e-12) + 1e-9;
    }

    /** The heaviest part's weight less the lightest's. */
    static double spread(double[] loads) {
      double min = Double.POSITIVE_INFINITY;
      double max = Double.NEGATIVE_INFINITY;
      for (double x : loads) {
        min = Math.min(min, x);
        max = Math.max(max, x);
      }
      return max - min;
    }

    void applyTo(MultilevelPartitioner mp, double[] window) {
      mp.setRowWeights(weights, (long) Math.ceil(window[0]), (long) Math.floor(window[1]));
    }

    /** Every part's weight under {@code parts}. */
    double[] loads(int[][] parts) {
      double[] l = new double[k];
      for (int b = 0; b < parts.length; b++) {
        for (int r = 0; r < parts[b].length; r++) {
          l[parts[b][r]] += weights[blockStart[b] + r];
        }
      }
      return l;
    }

    static boolean within(double[] loads, double[] window) {
      for (double x : loads) {
        if (x < window[0] || x > window[1]) {
          return false;
        }
      }
      return true;
    }
  }

  /**
   * The swap rounds' max guard (no swap raises the largest working set; {@code --no-max-guard} turns it off) and the
   * room a user allows each working set ({@code --max-working-set}; 0: none): the connectivity rounds and the capped
   * V-cycles may grow a working set up to it where it is above the largest, to lower the total traffic.
   */
  record Guard(boolean max, long room) {
    /** The refinement with this guard's room set. */
    URefinement applyTo(URefinement ref) {
      if (max) {
        ref.setRoom(room);
      }
      return ref;
    }

    /** The cap of a capped V-cycle from a start whose largest working set is {@code mMax}. */
    long cap(long mMax) {
      return max ? Math.max(mMax, room) : mMax;
    }

    /** Whether the room is used from a start whose largest working set is {@code mMax}: given, and not below it. */
    boolean roomUsed(long mMax) {
      return max && room > 0 && room >= mMax;
    }

    /**
     * Whether a capped V-cycle from a start of largest working set {@code before} that ends at {@code after} is held:
     * without a room in use, the cycle is capped at M_max, and one whose final row balancing crossed it by more than
     * {@link #CAP_SLACK} is not kept; a room in use is the cap, held exactly, also once the working sets have grown up
     * to it (there the slack had let later cycles lift M_max above the room: 17,520 for a room of 17,400 on
     * ego-twitter).
     */
    boolean held(long before, long after) {
      return roomUsed(before) ? after <= room : after <= (long) Math.floor((1 + CAP_SLACK) * before);
    }
  }

  /** A start's parts, with the multilevel partitioner's counts under them when it placed them last (else null). */
  record Start(int[][] parts, MultilevelPartitioner.Counted counted) {
    /** The partitioner's result, with its counts. */
    Start(MultilevelPartitioner.Counted counted) {
      this(counted.parts(), counted);
    }

    /** The swap rounds from these parts, taking the counts over where there are any. */
    URefinement refinement(int k, List<Block> blocks, RowKeyGraph graph, double exponent, Guard guard) {
      return guard.applyTo(counted != null ? new URefinement(k, blocks, graph, counted, exponent, guard.max())
          : new URefinement(k, blocks, graph, parts, exponent, guard.max()));
    }
  }

  /** The multilevel code's progress lines, in refine-u's log under the start and the cycle. */
  private static java.util.function.Consumer<String> cycleLog(String start, String cycle) {
    return line -> LOG.info("refine-u: start '{}' {}: {}", start, cycle, line.replace("multilevel: ", ""));
  }

  /** The start T_sum of the refined start named {@code start}, else {@code known} (-1: unknown). */
  private static long startTSum(List<Candidate> done, String start, long known) {
    return done.stream().filter(c -> c.start.equals(start)).mapToLong(c -> c.startTSum).findFirst().orElse(known);
  }

  /** Threads of each start's rounds when {@code concurrentStarts} starts share this JVM's cores. */
  static int roundThreads(int concurrentStarts) {
    return Math.max(1, Runtime.getRuntime().availableProcessors() / Math.max(1, concurrentStarts));
  }

  /** Threads that refine starts at once: {@link #THREADS} (default the cores), fewer if their copies do not fit. */
  static int startThreads(Configuration conf, FileSystem fs, Path blocksDir, int k, int starts) throws IOException {
    int threads = Math.max(1, Math.min(starts, conf.getInt(THREADS, Runtime.getRuntime().availableProcessors())));
    if (threads == 1) {
      return 1;
    }
    BlockStats.Found f = BlockStats.read(fs, blocksDir, BlockFiles.list(fs, blocksDir).size());
    if (f.stats == null) {
      return conf.get(THREADS) != null ? threads : 1; // unknown size: one start at a time unless told
    }
    BlockStats st = f.stats;
    long keys = st.distinctKeys > 0 ? st.distinctKeys : st.nonZeros;
    // every concurrent start holds its own counts and multilevel levels; the blocks and the row-key CSR are shared
    long shared = (long) (1.5 * (8 + 4) * st.nonZeros);
    long perStart = heapNeeded(st.rows, st.nonZeros, keys, k) - shared;
    long fit = (heapLimit(conf) - shared) / Math.max(1, perStart);
    return (int) Math.max(1, Math.min(threads, fit));
  }

  /** Daemon threads named {@code name}, for refining starts or reading blocks side by side. */
  private static ExecutorService pool(int threads, String name) {
    return Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * One multilevel start per seed, each refined like the others, on parallel threads where they fit the heap; with
   * {@code knee} ({@link #kneeRoom(Configuration, Seeds)}), the room of their connectivity rounds is their descents'
   * knee ({@link #kneeGuard}).
   */
  private static List<Candidate> multilevelStarts(Configuration conf, FileSystem fs, Path blocksDir, int k,
      int multilevelSeeds, List<Block> blocks, RowKeyGraph graph, double[] schedule, int rounds, Guard guard,
      boolean knee) throws Exception {
    int mlThreads = startThreads(conf, fs, blocksDir, k, multilevelSeeds);
    boolean descent = conf.getBoolean(DESCENT, true);
    List<Callable<Placed>> placing = new ArrayList<>();
    for (int i = 0; i < multilevelSeeds; i++) {
      final int seedIndex = i;
      placing.add(() -> placeSeed(k, blocks, graph, seedIndex, schedule, guard, descent, knee));
    }
    List<Placed> placed = runAll(mlThreads, placing);
    Guard g = kneeGuard(guard, knee, placed.stream().map(Placed::log).toList());
    List<Callable<Candidate>> seeds = new ArrayList<>();
    for (Placed p : placed) {
      seeds.add(() -> refineSeed(p, k, blocks, graph, schedule, rounds, g, g.room() != guard.room(),
          roundThreads(mlThreads)));
    }
    return runAll(mlThreads, seeds);
  }

  /**
   * Whether the descent's knee may set the room of a run of {@code plan} ({@link Seeds#kneeRoom}: the balanced
   * objective, no room given, the max guard on) and {@link #KNEE_ROOM} does not turn it off.
   */
  static boolean kneeRoom(Configuration conf, Seeds plan) {
    return plan.kneeRoom() && conf.getBoolean(KNEE_ROOM, true);
  }

  /**
   * {@code guard}, or where {@code enabled} and the seeds whose steps {@code logs} holds descended, the same guard with
   * their knee as its room ({@link #kneeRoom}).
   */
  static Guard kneeGuard(Guard guard, boolean enabled, List<List<Map<String, Object>>> logs) {
    long room = enabled && guard.max() && guard.room() == 0 ? kneeRoom(logs) : 0;
    if (room == 0) {
      return guard;
    }
    LOG.info("refine-u: the multilevel starts' descent is free down to M_max {} (its knee): the connectivity rounds and"
        + " capped V-cycles of every start may grow working sets up to it to lower T_sum (-D {}=false: no room)",
        room, KNEE_ROOM);
    return new Guard(guard.max(), room);
  }

  /**
   * The multilevel seeds a run of {@code plan} on these blocks refines first (short rows, or {@code --multilevel on}),
   * placed and refined before the U is known (the pipeline's {@link Preload}); null where that run would not start
   * with them.
   */
  static List<Candidate> seedsAhead(Configuration conf, FileSystem fs, Path blocksDir, Seeds plan, List<Block> blocks,
      RowKeyGraph graph) throws Exception {
    boolean weighted = blocks.stream().anyMatch(Block::weighted);
    boolean cyclesFit = !weighted || RowWeights.integral(blocks);
    long rows = blocks.stream().mapToLong(Block::numRows).sum();
    long nonZeros = blocks.stream().mapToLong(Block::numEdges).sum();
    if (!multilevelReason(plan.multilevel(), weighted && !cyclesFit, -1, -1, rows, nonZeros).startsWith("run")) {
      return null;
    }
    return multilevelStarts(conf, fs, blocksDir, plan.k(), plan.count(), blocks, graph, plan.schedule(), plan.rounds(),
        plan.guard(), kneeRoom(conf, plan));
  }

  /** Runs {@code tasks} on a pool of {@code threads} start threads; their results in the tasks' order. */
  private static <T> List<T> runAll(int threads, List<Callable<T>> tasks) throws Exception {
    ExecutorService pool = pool(threads, "refine-u-start");
    try {
      List<Future<T>> running = new ArrayList<>();
      for (Callable<T> task : tasks) {
        running.add(pool.submit(task));
      }
      List<T> done = new ArrayList<>();
      for (Future<T> f : running) {
        done.add(joined(f));
      }
      return done;
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * What the multilevel-first order refined: the other starts (in their order), then the seeds, as the tie rule expects;
   * and the starts not refined.
   */
  private record MultilevelFirst(List<Candidate> candidates, List<Map<String, Object>> notRefined, Guard guard,
      int cappedVcycles) {}

  /**
   * The multilevel-first order (short rows, or {@code --multilevel on}): the multilevel seeds (placed and descended
   * first, all of them, so that their knee can be every start's room, {@link #kneeGuard}), then those other starts of
   * {@code toRun} whose raw T_sum is not far above the best seed's ({@link #FAR_START_RATIO}, where it is known), then
   * the capped V-cycles of the leading start. Done in that order on two cores, one core idled while the slower
   * seed finished and again while the leader's capped V-cycles ran single-threaded. So once a seed is done while
   * another still runs, the other starts that this seed alone does not rule out are refined on the thread it left;
   * and once every seed is done, the leading seed's capped V-cycles run beside them. Nothing is decided on a partial
   * view: a start is dropped by the best seed only, as before (an early one is cancelled, its result unused), and the
   * early capped V-cycles are used only if their seed leads once every start is refined; else the leader is polished
   * afterwards. Every result is thread-count independent, so the U is the one of the order above (docs/quality.md §45).
   */
  private static MultilevelFirst multilevelFirst(Configuration conf, FileSystem fs, Path blocksDir, int k,
      int multilevelSeeds, List<Block> blocks, RowKeyGraph graph, double[] schedule, int rounds, Guard guard0,
      List<String> toRun, long[] rawTSum, int[][] orderStart, int[][] parts, int preCycles, int cycles,
      Objective objective, List<Candidate> ahead, boolean knee, int roomCycles) throws Exception {
    int mlThreads = startThreads(conf, fs, blocksDir, k, multilevelSeeds);
    boolean descent = conf.getBoolean(DESCENT, true);
    ExecutorService pool = pool(mlThreads, "refine-u-start");
    try {
      // the seeds placed and descended first: their knee is the room of every start's connectivity rounds
      List<Future<Placed>> placing = new ArrayList<>();
      for (int i = 0; ahead == null && i < multilevelSeeds; i++) {
        final int seedIndex = i;
        placing.add(pool.submit(() -> placeSeed(k, blocks, graph, seedIndex, schedule, guard0, descent, knee)));
      }
      List<Placed> placed = new ArrayList<>();
      for (Future<Placed> f : placing) {
        placed.add(joined(f));
      }
      Guard guard = kneeGuard(guard0, knee, ahead != null ? ahead.stream().map(c -> c.log).toList()
          : placed.stream().map(Placed::log).toList());
      // with the knee's room in use the capped V-cycles go on lowering T_sum within it
      boolean roomed = guard.room() != guard0.room();
      int postCycles = roomed ? roomCycles : cycles;
      CompletionService<Candidate> seeds = new ExecutorCompletionService<>(pool);
      List<Future<Candidate>> seedRuns = new ArrayList<>();
      for (Placed p : placed) {
        seedRuns.add(seeds.submit(() -> refineSeed(p, k, blocks, graph, schedule, rounds, guard, roomed,
            roundThreads(mlThreads))));
      }
      Candidate[] ml = ahead != null ? ahead.toArray(new Candidate[0]) : new Candidate[multilevelSeeds];
      Map<String, Future<Candidate>> early = new LinkedHashMap<>();
      if (ahead != null && mlThreads > 1) {
        // the seeds placed before the U: the other starts they do not rule out begin at once
        long bestAhead = ahead.stream().mapToLong(c -> c.ref.sumTrafficIfHome()).min().orElse(-1);
        for (String start : toRun) {
          if (!farAbove(start, rawTSum, bestAhead)) {
            early.put(start, pool.submit(() -> refineStart(start, k, blocks, graph, preCycles, parts, orderStart,
                schedule, rounds, guard, roundThreads(mlThreads))));
          }
        }
      }
      for (int done = 0; ahead == null && done < multilevelSeeds; done++) {
        Future<Candidate> f = seeds.take();
        Candidate seed = joined(f);
        ml[seedRuns.indexOf(f)] = seed;
        if (done == 0 && multilevelSeeds > 1 && mlThreads > 1) {
          for (String start : toRun) {
            if (!farAbove(start, rawTSum, seed.ref.sumTrafficIfHome())) {
              early.put(start, pool.submit(() -> refineStart(start, k, blocks, graph, preCycles, parts, orderStart,
                  schedule, rounds, guard, roundThreads(mlThreads))));
            }
          }
          if (!early.isEmpty()) {
            LOG.info("refine-u: start(s) {} refined beside the multilevel start(s) still running, on the thread '{}'"
                + " left", String.join(", ", early.keySet()), seed.start);
          }
        }
      }
      List<Candidate> multilevel = List.of(ml);
      long best = multilevel.stream().mapToLong(c -> c.ref.sumTrafficIfHome()).min().orElse(-1);
      List<Map<String, Object>> notRefined = new ArrayList<>();
      List<String> refined = new ArrayList<>();
      for (String start : toRun) {
        if (farAbove(start, rawTSum, best)) {
          long startRaw = rawTSum[start.equals(START_ORDER) ? 1 : 0];
          LOG.info("refine-u: start '{}' not refined: its T_sum {} is more than {} times the multilevel start's"
              + " refined {} (--starts given,order refines it anyway)", start, String.format("%,d", startRaw),
              FAR_START_RATIO, String.format("%,d", best));
          Map<String, Object> e = new LinkedHashMap<>();
          e.put("start", start);
          e.put("sumTraffic", startRaw);
          e.put("multilevelSumTraffic", best);
          notRefined.add(e);
          Future<Candidate> dropped = early.remove(start);
          if (dropped != null) {
            dropped.cancel(true);
          }
        } else {
          refined.add(start);
        }
      }
      // the leading seed's capped V-cycles beside the starts still refining (used if it leads them all)
      Candidate leadingSeed = multilevel.get(objective.best(multilevel.stream().map(c -> figures(c.ref)).toList()));
      Future<Candidate> earlyPolish = null;
      if (postCycles > 0 && early.values().stream().anyMatch(f -> !f.isDone())) {
        LOG.info("refine-u: capped V-cycles on the leading multilevel start ({}) beside start(s) {}; kept if it still"
            + " leads after them", leadingSeed.start, String.join(", ", early.keySet()));
        earlyPolish = pool.submit(() -> {
          try {
            return polish(leadingSeed, k, blocks, graph, rounds, guard, postCycles, objective, roundThreads(1));
          } finally {
            WORKSPACE.remove();
          }
        });
      }
      List<String> late = refined.stream().filter(s -> !early.containsKey(s)).toList();
      Map<String, Candidate> others = new LinkedHashMap<>();
      List<Candidate> lateDone = refineStarts(conf, fs, blocksDir, k, late, blocks, graph, preCycles, parts,
          orderStart, schedule, rounds, guard);
      for (int i = 0; i < late.size(); i++) {
        others.put(late.get(i), lateDone.get(i));
      }
      for (Map.Entry<String, Future<Candidate>> e : early.entrySet()) {
        others.put(e.getKey(), joined(e.getValue()));
      }
      List<Candidate> all = new ArrayList<>();
      for (String start : refined) {
        all.add(others.get(start));
      }
      all.addAll(multilevel); // after the given and the input-order start, as the tie rule expects
      if (postCycles > 0) {
        Candidate leader = all.get(objective.best(all.stream().map(c -> figures(c.ref)).toList()));
        if (earlyPolish != null && leader == leadingSeed) {
          all.set(all.indexOf(leader), joined(earlyPolish));
        } else {
          // the seeds' threads end first, so their workspaces are not held through the capped V-cycles
          pool.shutdownNow();
          if (earlyPolish != null) {
            earlyPolish.cancel(true);
            LOG.info("refine-u: start '{}' leads '{}' after its swap rounds: its capped V-cycles are not used",
                leader.start, leadingSeed.start);
          }
          try {
            polishLeader(all, k, blocks, graph, rounds, guard, postCycles, objective);
          } finally {
            WORKSPACE.remove();
          }
        }
      }
      return new MultilevelFirst(all, notRefined, guard, postCycles);
    } finally {
      pool.shutdownNow();
    }
  }

  /** Ends a start's refinement whose result is no longer wanted (its thread interrupted, {@link #multilevelFirst}). */
  private static void stopIfCancelled(String start) {
    if (Thread.currentThread().isInterrupted()) {
      throw new CancellationException("refine-u: start '" + start + "' cancelled");
    }
  }

  /** Whether {@code start}'s raw T_sum is known and more than {@link #FAR_START_RATIO} times {@code multilevel}. */
  private static boolean farAbove(String start, long[] rawTSum, long multilevel) {
    long startRaw = rawTSum[start.equals(START_ORDER) ? 1 : 0];
    return startRaw >= 0 && multilevel >= 0 && startRaw > FAR_START_RATIO * multilevel;
  }

  /** The given and the input-order starts of {@code starts}, side by side where their copies fit; in their order. */
  private static List<Candidate> refineStarts(Configuration conf, FileSystem fs, Path blocksDir, int k,
      List<String> starts, List<Block> blocks, RowKeyGraph graph, int preCycles, int[][] parts, int[][] orderStart,
      double[] schedule, int rounds, Guard guard) throws Exception {
    if (starts.isEmpty()) {
      return List.of();
    }
    int threads = startThreads(conf, fs, blocksDir, k, starts.size());
    int roundThreads = roundThreads(threads);
    LOG.info("refine-u: {} start(s) on {} thread(s), {} thread(s) per round", starts.size(), threads, roundThreads);
    List<Callable<Candidate>> tasks = new ArrayList<>();
    for (String start : starts) {
      tasks.add(() -> refineStart(start, k, blocks, graph, preCycles, parts, orderStart, schedule, rounds, guard,
          roundThreads));
    }
    return runAll(threads, tasks);
  }

  /** The given or the input-order start: its V-cycles, then its swap rounds. */
  private static Candidate refineStart(String start, int k, List<Block> blocks, RowKeyGraph graph, int preCycles,
      int[][] parts, int[][] orderStart, double[] schedule, int rounds, Guard guard, int roundThreads) {
    return refine(start, k, blocks, graph, vcycles(start, k, blocks, graph, preCycles,
        start.equals(START_ORDER) ? orderStart : parts, roundThreads), schedule, rounds, guard, true, roundThreads);
  }

  /**
   * Whether the multilevel runs over {@code graph} coarsen within the rows' communities, and its V-cycles cap every
   * level's parts one vertex above ⌈n/k⌉ ({@link MultilevelPartitioner#tightCaps}), and every run ends with FM at
   * exact balance ({@link MultilevelPartitioner#exactFm}): where rows are short ({@link #SHORT_ROWS} keys or fewer on
   * average), as graphs' are, and k is at most {@link #COMMUNITIES_MAX_K}: on cnr-2000 at k = 16 refine-u ends 8 %
   * lower in T_sum and 12 % in T_max over eight seeds with the first two, 2 % lower in T_sum with the third; on
   * ego-twitter within its spread; at k = 32, 64 and 256 cnr-2000's T_sum was 1–5 % higher with the first two, and
   * on the text sets' long rows they cost time or T_sum (the third: news20 1 % lower T_sum for 17 % more refine-u
   * time) (docs/quality.md §67–69).
   */
  static boolean communities(RowKeyGraph graph, int k) {
    int rows = graph.numRows();
    return communities(rows, rows == 0 ? 0 : graph.rowStart()[rows], k);
  }

  /** {@link #communities(RowKeyGraph, int)} from the counts: {@code rows} rows with {@code nonZeros} keys in all. */
  static boolean communities(long rows, long nonZeros, int k) {
    return k <= COMMUNITIES_MAX_K && rows > 0 && nonZeros / (double) rows <= SHORT_ROWS;
  }

  /** The largest k at which graphs' multilevel runs keep to communities and tight caps ({@link #communities}). */
  static final int COMMUNITIES_MAX_K = 16;

  /**
   * A multilevel seed placed, and descended where its working sets are uneven ({@link #descend}), before its swap
   * rounds: its parts, the steps logged so far and the time it began.
   */
  record Placed(String name, int[][] parts, List<Map<String, Object>> log, long t0,
      MultilevelPartitioner.Settings settings) {}

  /**
   * The multilevel start of seed number {@code seedIndex} (0: the defaults' seed, named 'multilevel'; then
   * 'multilevel-2', ...), placed and descended; {@link #refineSeed} refines it. Only its parts are kept between the
   * two (not its per-key counts), so the seeds placed side by side hold no more heap than one seed refined at a time.
   */
  private static Placed placeSeed(int k, List<Block> blocks, RowKeyGraph graph, int seedIndex, double[] schedule,
      Guard guard, boolean descent, boolean kneeStop) {
    String name = seedIndex == 0 ? START_MULTILEVEL : START_MULTILEVEL + "-" + (seedIndex + 1);
    long tm = System.nanoTime();
    boolean graphMode = communities(graph, k);
    MultilevelPartitioner.Settings d = MultilevelPartitioner.Settings.defaults();
    if (graphMode && seedIndex % 2 == 0) {
      d = d.withCoarsestPerPart(GRAPH_COARSEST_PER_PART);
    }
    MultilevelPartitioner mp = new MultilevelPartitioner(k, d.withSeed(d.seed() + 7919L * seedIndex),
        line -> LOG.info("refine-u: start '{}': {}", name, line)).setWorkspace(WORKSPACE.get()).growOnly(true)
        .communities(graphMode).exactFm(graphMode);
    RowWeights weights = RowWeights.of(blocks, graph, k);
    double[] window = weights == null ? null : weights.freshWindow();
    if (weights != null) {
      weights.applyTo(mp, window);
    }
    MultilevelPartitioner.Counted from = mp.counted(blocks, graph, null, Double.NaN, -1);
    LOG.info("refine-u: start '{}' placed in {} s", name, String.format("%.2f", (System.nanoTime() - tm) / 1e9));
    if (weights != null && !RowWeights.within(weights.loads(from.parts()), window)) {
      LOG.info("refine-u: start '{}': a part's weight is outside {}; it is kept only if it ends as balanced as the"
          + " given start", name, Arrays.toString(window));
    }
    List<Map<String, Object>> log = new ArrayList<>();
    long t0 = System.nanoTime();
    // on graphs (where it was measured) with a max-weighted phase to come, unit rows, the max guard on
    int[][] parts = descent && graphMode && weights == null && guard.max() && schedule.length > 0 && schedule[0] > 1
        ? descend(name, k, blocks, graph, new Start(from), guard, schedule[0], d, graphMode, kneeStop, log)
        : from.parts();
    return new Placed(name, parts, log, t0, d);
  }

  /**
   * A placed seed's swap rounds (the capped V-cycles follow on the leading start), the connectivity rounds with
   * {@code guard}'s room; {@code kneeRoom}: that room is the seeds' knee ({@link #kneeGuard}), and a seed that descended
   * to a higher knee first takes one more descent step, capped at the room.
   */
  private static Candidate refineSeed(Placed placed, int k, List<Block> blocks, RowKeyGraph graph, double[] schedule,
      int rounds, Guard guard, boolean kneeRoom, int roundThreads) {
    long knee = kneeRoom && guard.room() > 0 ? knee(placed.log()) : 0;
    URefinement ref;
    if (knee > guard.room()) {
      // a seed whose own knee is above the room comes down to it the way it descended (the max phase alone costs
      // more: ego-twitter seed 4, 198,816 instead of 194,696 after the rounds)
      boolean graphMode = communities(graph, k);
      MultilevelPartitioner.Settings settings = placed.settings();
      String name = placed.name();
      MultilevelPartitioner mp = new MultilevelPartitioner(k, settings.withSeed(settings.seed() + 499),
          line -> LOG.info("refine-u: start '{}' descent to the room: {}", name, line.replace("multilevel: ", "")))
          .setWorkspace(WORKSPACE.get()).holdCap(true).descend(true).communities(graphMode).exactFm(graphMode);
      Start next = new Start(mp.counted(blocks, graph, placed.parts(), 0.0, guard.room()));
      ref = next.refinement(k, blocks, graph, schedule[0], guard);
      LOG.info("refine-u: start '{}' descent to the room {}: M_max {} (its knee) -> {}, T_sum {}", name, guard.room(),
          knee, ref.maxWorkingSet(), ref.sumTrafficIfHome());
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("descentToRoom", guard.room());
      e.put("maxWorkingSet", ref.maxWorkingSet());
      e.put("sumTraffic", ref.sumTrafficIfHome());
      placed.log().add(e);
    } else {
      ref = new Start(placed.parts(), null).refinement(k, blocks, graph, schedule[0], guard);
    }
    return refine(placed.name(), k, blocks, graph, ref, schedule, rounds, false, roundThreads, placed.log(),
        placed.t0());
  }

  /**
   * Whether a multilevel start of unit rows on a graph ({@link #communities}) comes down to a smaller largest working
   * set by capped V-cycles before its max-weighted swap rounds ({@link #descend}); default true.
   */
  public static final String DESCENT = "parsa.refine.multilevel.descent";

  /** The cap of each descent step, as a share of the largest working set before it. */
  static final double DESCENT_FACTOR = 0.9;

  /**
   * A start descends only where its largest working set is more than this many times the mean: where a few parts hold
   * far more keys than the rest (ego-twitter's multilevel starts: 3.7 times), not where the max phase has a little to
   * take off every part (cnr-2000's: 1.4 times, where over five seeds the descent gave T_sum +2.2 %).
   */
  static final double DESCENT_UNEVEN = 1.5;

  /**
   * The first descent step's cap, in mean working sets (where it is below {@link #DESCENT_FACTOR} of M_max): on
   * ego-twitter over four seeds as good as steps of 0.9 from the start (M_max +1.6 %, T_max −0.5 %, T_sum −1.0 %
   * against them) in about half the steps.
   */
  static final double DESCENT_FIRST_CAP = 2.0;

  /** Descent steps at most (each lowers M_max by 1 % or more, so the rule below ends it first). */
  static final int DESCENT_MAX_STEPS = 30;

  /**
   * The descent of a multilevel start: capped V-cycles, each capped at {@link #DESCENT_FACTOR} of the largest working
   * set before it, that bring the parts above the cap within it level by level on the way down (whole coarse
   * vertices first, {@link MultilevelPartitioner#descend}), each step kept while its T_sum rises by a smaller share
   * than its M_max falls. The connectivity start's few huge working sets come down this way at a smaller cost in T_sum
   * than by the max-weighted swap rounds alone, which then go on from the last step kept: on ego-twitter over four
   * pipeline seeds M_max −2.8 %, T_max −1.7 %, T_sum −1.5 % (docs/quality.md §72). Only where the start's working
   * sets are uneven ({@link #DESCENT_UNEVEN}). Every step is logged into {@code log}. Returns the parts of the last step
   * kept, or of {@code start}, for the swap rounds to go on from.
   */
  private static int[][] descend(String name, int k, List<Block> blocks, RowKeyGraph graph, Start start,
      Guard guard, double exponent, MultilevelPartitioner.Settings settings, boolean graphMode, boolean kneeStop,
      List<Map<String, Object>> log) {
    URefinement cur = start.refinement(k, blocks, graph, exponent, guard);
    double mean = Arrays.stream(cur.workingSets()).sum() / (double) k;
    if (cur.maxWorkingSet() <= DESCENT_UNEVEN * mean) {
      LOG.info("refine-u: start '{}': no descent: M_max {} is within {} times the mean working set {}", name,
          cur.maxWorkingSet(), DESCENT_UNEVEN, Math.round(mean));
      return start.parts();
    }
    for (int step = 1; step <= DESCENT_MAX_STEPS; step++) {
      stopIfCancelled(name);
      long t0 = System.nanoTime();
      long mMax = cur.maxWorkingSet();
      // the first step takes the outliers down to twice the mean at once where that is lower (about half the steps)
      long cap = (long) Math.floor(mMax * DESCENT_FACTOR);
      if (step == 1) {
        cap = Math.min(cap, (long) Math.ceil(DESCENT_FIRST_CAP * mean));
      }
      final int n = step;
      MultilevelPartitioner mp = new MultilevelPartitioner(k, settings.withSeed(settings.seed() + 500 + step),
          line -> LOG.info("refine-u: start '{}' descent {}: {}", name, n, line.replace("multilevel: ", "")))
          .setWorkspace(WORKSPACE.get()).holdCap(true).descend(true).communities(graphMode).exactFm(graphMode);
      Start next = new Start(mp.counted(blocks, graph, start.parts(), 0.0, cap));
      URefinement after = next.refinement(k, blocks, graph, exponent, guard);
      double fall = 1 - after.maxWorkingSet() / (double) mMax;
      double rise = after.sumTrafficIfHome() / (double) Math.max(1, cur.sumTrafficIfHome()) - 1;
      boolean free = step == 1 || free(fall, rise);
      boolean kept = fall >= 0.01 && rise < fall && (free || !kneeStop);
      double secs = (System.nanoTime() - t0) / 1e9;
      LOG.info("refine-u: start '{}' descent {}: cap {}: M_max {} -> {} ({}), T_sum {} -> {} ({}): {} ({} s)", name,
          step, cap, mMax, after.maxWorkingSet(), String.format(Locale.ROOT, "%+.1f %%", -100 * fall),
          cur.sumTrafficIfHome(), after.sumTrafficIfHome(), String.format(Locale.ROOT, "%+.1f %%", 100 * rise),
          kept ? "kept" : fall < 0.01 ? "the descent ends (M_max fell by less than 1 %)"
              : rise >= fall ? "the descent ends (T_sum would rise by more than M_max falls)"
              : "the descent ends at its knee (T_sum would rise by more than " + KNEE_SHARE + " of M_max's fall)",
          String.format(Locale.ROOT, "%.2f", secs));
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("descentStep", step);
      e.put("cap", cap);
      e.put("kept", kept);
      e.put("maxWorkingSet", after.maxWorkingSet());
      e.put("sumTraffic", after.sumTrafficIfHome());
      e.put("seconds", secs);
      log.add(e);
      if (!kept) {
        break;
      }
      start = next;
      cur = after;
    }
    return start.parts();
  }

  /**
   * Whether the balanced objective, with no {@code --max-working-set} given, takes the descent's knee as the room
   * ({@link #kneeRoom}); default true. False keeps every start's M_max as low as the max phase leaves it.
   */
  public static final String KNEE_ROOM = "parsa.refine.multilevel.knee-room";

  /**
   * A descent step after the first is free while its T_sum rises by no more than this share of the share by which its
   * M_max falls (a step of −10 % in M_max: +2.5 % in T_sum at most): ego-twitter's steps to about 1.6 mean working
   * sets move T_sum by −2.3 % to +1.2 %, the next ones by +3.4 % to +6.3 % (docs/quality.md §80).
   */
  static final double KNEE_SHARE = 0.25;

  /** Whether a descent step whose M_max falls by the share {@code fall} and T_sum rises by {@code rise} is free. */
  static boolean free(double fall, double rise) {
    return rise <= KNEE_SHARE * fall;
  }

  /**
   * The knee of a descent from its logged steps ({@code descentStep} entries of {@code log}): the largest working set
   * of the last step before the first one that is not free ({@link #KNEE_SHARE}) or not kept. The first step (down to
   * twice the mean working set, {@link #DESCENT_FIRST_CAP}) takes a few outliers down and always costs T_sum, so the
   * rule starts after it. 0 where the start did not descend or its first step was not kept.
   */
  static long knee(List<Map<String, Object>> log) {
    long knee = 0;
    long prevM = 0;
    long prevT = 0;
    for (Map<String, Object> e : log) {
      if (!e.containsKey("descentStep")) {
        continue;
      }
      long m = ((Number) e.get("maxWorkingSet")).longValue();
      long t = ((Number) e.get("sumTraffic")).longValue();
      if (!Boolean.TRUE.equals(e.get("kept"))) {
        return knee;
      }
      if (knee > 0 && !free(1 - m / (double) prevM, t / (double) Math.max(1, prevT) - 1)) {
        return knee;
      }
      knee = m;
      prevM = m;
      prevT = t;
    }
    return knee;
  }

  /**
   * The room the balanced objective gives every start where the multilevel seeds descended ({@link #KNEE_ROOM}): the
   * smallest of their knees ({@link #knee}), 0 where none descended. Down to the knee a seed's largest working set fell
   * at almost no cost in T_sum; below it each key off M_max costs traffic. So the max phase still takes M_max as low
   * as it can, and then the connectivity rounds and the capped V-cycles may grow working sets back up to the knee
   * where that lowers T_sum, as a room given by {@code --max-working-set} does: on ego-twitter over four pipeline
   * seeds T_sum 7.4 % lower for M_max 25 % and T_max 20 % higher, both maxima still 2.4 times below METIS's
   * (docs/quality.md §80).
   */
  static long kneeRoom(List<List<Map<String, Object>>> logs) {
    return logs.stream().mapToLong(RefineUTool::knee).filter(x -> x > 0).min().orElse(0);
  }

  /**
   * Whether the multilevel start runs ("run: why") or not ("skipped: why"), from the given and the input-order start's
   * T_sum before their swap rounds (-1 where not known). {@code weighted}: rows whose weights the start cannot weigh
   * (in memory, weights that are not whole numbers; the distributed start, any).
   */
  static String multilevelReason(String when, boolean weighted, long givenTSum, long orderTSum, long rows,
      long nonZeros) {
    if (weighted) {
      return "skipped: weighted rows it cannot weigh (weights that are not whole numbers)";
    }
    if (when.equals("on")) {
      return "run: --multilevel on";
    }
    if (when.equals("off")) {
      return "skipped: --multilevel off";
    }
    double meanKeys = rows == 0 ? 0 : nonZeros / (double) rows;
    boolean shortRows = meanKeys <= SHORT_ROWS;
    if (shortRows && nonZeros <= AUTO_VCYCLE_MAX_NONZEROS) {
      return String.format(Locale.ROOT, "run: short rows (%.1f keys per row on average, at most %.0f)", meanKeys,
          SHORT_ROWS);
    }
    String keys = shortRows
        ? String.format(Locale.ROOT, "%.1f keys per row on average, but %,d non-zeros, above the %,d up to which"
            + " short rows run it", meanKeys, nonZeros, AUTO_VCYCLE_MAX_NONZEROS)
        : String.format(Locale.ROOT, "%.1f keys per row on average", meanKeys);
    if (givenTSum < 0 || orderTSum < 0) {
      return "skipped: " + (shortRows ? "large input (" : "long rows (") + keys + ") and auto needs both the 'given' and the 'order' starts to detect"
          + " locality";
    }
    String figures = String.format("input-order start T_sum %,d vs given start %,d", orderTSum, givenTSum);
    return orderTSum <= LOCALITY_RATIO * givenTSum
        ? "run: the input order shows locality (" + figures + ")"
        : "skipped: " + (shortRows ? "large input (" : "long rows (") + keys + ") and no locality in the input order (" + figures
            + "; --multilevel on to run it anyway)";
  }

  /**
   * The refined start to keep for the objective ({@link Objective#best}); by default the one with the smallest M_max /
   * (least M_max) + T_max / (least T_max) + T_sum / (least T_sum) over the candidates, T_max being the LP lower bound
   * of the start's U (which the default V placement meets); the three objectives weigh alike, a start better on all
   * of them always wins, the first on a tie.
   */
  static Candidate choose(List<Candidate> cs, Objective objective) {
    return cs.get(objective.best(cs.stream().map(c -> figures(c.ref)).toList()));
  }

  /** {M_max, T_max (bound), T_sum} of a result. */
  private static long[] figures(Result r) {
    return new long[] {r.maxWorkingSet(), r.maxTrafficBound(), r.sumTrafficIfHome()};
  }

  /** The exponents of {@code --schedule} (comma-separated, each ≥ 1); a usage error naming what was wrong. */
  public static double[] schedule(String s) {
    String[] parts = s.split(",");
    double[] p = new double[parts.length];
    for (int i = 0; i < parts.length; i++) {
      try {
        p[i] = Double.parseDouble(parts[i].trim());
      } catch (NumberFormatException e) {
        throw new UsageException("--schedule expects comma-separated numbers >= 1, got '" + s + "'");
      }
      if (!(p[i] >= 1)) {
        throw new UsageException("--schedule exponents must be >= 1, got " + parts[i]);
      }
    }
    return p;
  }

  /** The u-assignment (row id → part) and the blocks, in file order. */
  private record Loaded(Long2IntOpenHashMap partOf, List<Block> blocks) {
  }

  /**
   * Reads the u-assignment and decodes the blocks into engine blocks (renumbering each block's keys), side by side on
   * up to as many threads as cores: the driver's heap holds them all anyway, and this was a tenth of refine-u at 10^7
   * non-zeros on one thread.
   */
  private static Loaded load(FileSystem fs, Path uDir, int k, List<Path> files, BlockStats counted)
      throws IOException, InterruptedException {
    ExecutorService readers = pool(Math.max(1, Math.min(files.size() + 1, Runtime.getRuntime().availableProcessors())),
        "refine-u-read");
    try {
      Future<Long2IntOpenHashMap> assignment = readers.submit(() -> readAssignment(fs, uDir, k));
      List<Future<Block>> reading = new ArrayList<>();
      for (int b = 0; b < files.size(); b++) {
        Path f = files.get(b);
        int block = b;
        reading.add(readers.submit(() -> readBlock(fs, f, counted, block)));
      }
      Long2IntOpenHashMap partOf = joined(assignment);
      List<Block> blocks = new ArrayList<>();
      for (Future<Block> f : reading) {
        blocks.add(joined(f));
      }
      return new Loaded(partOf, blocks);
    } finally {
      readers.shutdownNow();
    }
  }

  /** Block {@code b} of the blocks, {@code f}, decoded into an engine block (ingest's counts size its arrays). */
  static Block readBlock(FileSystem fs, Path f, BlockStats counted, int b) throws IOException {
    long rowsOf = counted != null ? counted.rowsPerBlock[b] : -1;
    long nnzOf = counted != null ? counted.nonZerosPerBlock[b] : -1;
    BlockData d = BlockFiles.read(fs, f, rowsOf, nnzOf);
    return new Block(d.rowIds, d.rowStart, d.rowKeys, d.weights);
  }

  /** The value of a task run on a pool (a start, a read); its IOException, usage error or other failure as thrown. */
  private static <T> T joined(Future<T> f) throws IOException, InterruptedException {
    try {
      return f.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  /** Row id → part of every UAssignment record under {@code dir}; a usage error on a duplicate or a bad part. */
  private static Long2IntOpenHashMap readAssignment(FileSystem fs, Path dir, int k) throws java.io.IOException {
    Long2IntOpenHashMap partOf = new Long2IntOpenHashMap();
    partOf.defaultReturnValue(-1);
    for (FileStatus st : fs.listStatus(dir, p -> p.getName().endsWith(".avro") && !p.getName().startsWith(".")
        && !p.getName().startsWith("_"))) {
      try (DataFileStream<UAssignment> in = new DataFileStream<>(fs.open(st.getPath()),
          new SpecificDatumReader<>(UAssignment.class))) {
        long rec = 0;
        for (UAssignment a : in) {
          rec++;
          if (a.getPart() < 0 || a.getPart() >= k) {
            throw new UsageException(st.getPath() + ": record " + rec + " (row " + a.getId() + ") has part "
                + a.getPart() + ", expected a part in [0, " + k + ")");
          }
          if (partOf.put(a.getId(), a.getPart()) >= 0) {
            throw new UsageException(st.getPath() + ": record " + rec + " assigns row " + a.getId()
                + " a second time");
          }
        }
      }
    }
    return partOf;
  }
}
