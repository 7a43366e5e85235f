package io.parsa.jobs.refine;

import io.parsa.engine.Block;
import io.parsa.engine.MultilevelPartitioner;
import io.parsa.engine.RowKeyGraph;
import io.parsa.engine.URefinement;
import io.parsa.jobs.common.TaskJvm;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.PartStats;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.ints.IntArrays;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.mapreduce.Reducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group V-cycle job, reduce side, one call per group of parts: the rows of the group's g parts get a capped V-cycle
 * of the multilevel partitioner over those parts alone, then connectivity swap rounds (p = 1), as the in-memory
 * capped V-cycles do over all k parts.
 *
 * <p>Why a group can be solved on its own: a part's working set is the set of keys of its rows, all of which are in
 * the group, so the group's M_i are exact; and T_sum = 2·(Σ_i M_i − |V|) changes by exactly twice the change of the
 * group's Σ M_i, whatever the other groups do in the same round. So the groups of a round never interact, and the
 * round's effect is the sum of theirs. A group's result is kept only if its Σ M_i fell, no working set rose above the
 * cap (the whole assignment's M_max, {@link #CAP}, plus {@link #SLACK}) and its row counts are the same multiset as
 * before (rows stay balanced within one), or with weighted rows ({@link #WEIGHT_WINDOW}) each of its parts weighs
 * within the whole assignment's window; otherwise its rows stay where they were. With {@link #ROOM} above the cap
 * (the driver sets it for a schedule of p = 1 alone), the cap is the room, held exactly.
 *
 * <p>Output: the moved rows as {@link Move}s keyed by block, for the apply job. Part stats: the working set and rows
 * of every part of the group as kept. Memory: the group's rows (about g/k of the non-zeros) as in-memory refine-u
 * needs them for g parts ({@link RefineUTool#heapNeeded}); a group that would not fit is left as it is and counted.
 */
public class GroupReducer extends Reducer<IntWritable, GroupRow, IntWritable, Move> {

  private static final Logger LOG = LoggerFactory.getLogger(GroupReducer.class);

  /** The group of every part (comma-separated, −1 for a part in no group). */
  public static final String GROUPS = "parsa.refine.groups";
  /** The largest working set a group's result may have: the assignment's M_max. */
  public static final String CAP = "parsa.refine.group.cap";
  /**
   * The keys a user allows every working set ({@code refine-u --max-working-set}; default 0: none), set by the driver
   * where it applies (above {@link #CAP}, a {@link #SCHEDULE} of p = 1 alone, no balance cycle): the group's V-cycle is
   * capped at it and its rounds may grow any working set up to it (URefinement#setRoom), and the result is kept with
   * every working set within it. A room at or below the cap is not used.
   */
  public static final String ROOM = "parsa.refine.group.room";
  /**
   * Whether a group's V-cycle brings a part its final row balancing lifted above the cap back within it
   * ({@link io.parsa.engine.MultilevelPartitioner#holdCap}): set for the V-cycles after the rounds, and where the user
   * gave a room, which every cycle after the max-weighted rounds holds exactly (default false).
   */
  public static final String HOLD_CAP = "parsa.refine.group.hold.cap";
  /** How far above {@link #CAP} a group's largest working set may end (the V-cycle's final row balancing). */
  public static final String SLACK = "parsa.refine.group.slack";
  /** Seed of the groups' V-cycles. */
  public static final String SEED = "parsa.refine.group.seed";
  /** Swap rounds per exponent of {@link #SCHEDULE}. */
  public static final String ROUNDS = "parsa.refine.group.rounds";
  /** Whether a group's rows get a capped V-cycle before the swap rounds (default true). */
  public static final String VCYCLE = "parsa.refine.group.vcycle";
  /**
   * Exponents p of the swap rounds' objective Σ M_i^p, one phase each (default 1: connectivity); the first is the
   * objective a group's result must lower to be kept.
   */
  public static final String SCHEDULE = "parsa.refine.group.schedule";
  /**
   * Balance cycle (the distributed multilevel start), a boolean: the group's rows get a V-cycle (working sets capped
   * at {@link #CAP} plus {@link #SLACK} where the balance allows), which balances its parts to within one row of each
   * other (the groups are chosen so that this is within one row of n/k for all of them), and the result is kept iff
   * it is balanced so, whatever the working sets do. With {@link #WEIGHT_WINDOW}, weighted rows: the V-cycle weighs
   * them (whole-number weights only) and the result is kept iff each part weighs within the window.
   */
  public static final String BALANCE = "parsa.refine.group.balance";
  /** Part stats: working set per part as kept. */
  public static final String WORKING_SET = "groupWorkingSet";
  /** Part stats: rows per part as kept. */
  public static final String ROWS = "groupRows";
  /**
   * Weighted rows: the weights every part keeps, "lo,hi" (the whole assignment's window, {@link
   * URefinement#weightWindow}); a group's result is then kept only if each of its parts weighs within it, whatever its
   * row counts. Unset: rows are balanced by count.
   */
  public static final String WEIGHT_WINDOW = "parsa.refine.group.weight-window";
  /** Part stats ({@link PartStats#putDoubles}, with {@link #WEIGHT_WINDOW}): weight per part as kept. */
  public static final String WEIGHTS = "groupWeights";

  private final PartStats stats = new PartStats();
  private final IntWritable blockKey = new IntWritable();
  private final Move move = new Move();
  private long[] workingSet;
  private long[] rowsOut;
  private int[] groupOf;
  private long cap;
  private long limit;
  /** {@link #ROOM} where it is above the cap, else 0. */
  private long room;
  /** {@link #HOLD_CAP}. */
  private boolean holdCap;
  private double slack;
  private long seed;
  private int rounds;
  private boolean vcycle;
  private double[] schedule;
  /** Whether this is a balance cycle. */
  private boolean balance;
  /** {@link #WEIGHT_WINDOW}, or null. */
  private double[] window;
  /** Weight per part as kept (with {@link #WEIGHT_WINDOW}). */
  private double[] weightOut;

  /** Writes the group of every part ({@code groupOf}, −1: in no group) into a job's configuration. */
  static void setGroups(Configuration conf, int[] groupOf) {
    conf.setStrings(GROUPS, Arrays.stream(groupOf).mapToObj(Integer::toString).toArray(String[]::new));
  }

  /** The group of every part from the job's configuration. */
  static int[] groups(Configuration conf, int k) {
    String[] s = conf.getStrings(GROUPS);
    if (s == null || s.length != k) {
      throw new IllegalArgumentException(GROUPS + " must list a group for each of the " + k + " parts, was "
          + conf.get(GROUPS));
    }
    return Arrays.stream(s).mapToInt(x -> Integer.parseInt(x.trim())).toArray();
  }

  @Override
  protected void setup(Context context) {
    Configuration conf = context.getConfiguration();
    int k = MrKeys.k(conf);
    groupOf = groups(conf, k);
    workingSet = stats.array(WORKING_SET, k);
    rowsOut = stats.array(ROWS, k);
    cap = conf.getLong(CAP, Long.MAX_VALUE);
    slack = conf.getDouble(SLACK, 0);
    limit = cap == Long.MAX_VALUE ? cap : (long) Math.floor(cap * (1 + slack));
    seed = conf.getLong(SEED, 1);
    rounds = conf.getInt(ROUNDS, 10);
    vcycle = conf.getBoolean(VCYCLE, true);
    String[] sch = conf.getStrings(SCHEDULE, "1");
    schedule = Arrays.stream(sch).mapToDouble(x -> Double.parseDouble(x.trim())).toArray();
    balance = conf.getBoolean(BALANCE, false);
    long r = conf.getLong(ROOM, 0);
    holdCap = conf.getBoolean(HOLD_CAP, false);
    room = r > limit ? r : 0;
    if (room > 0) {
      cap = room; // held exactly: the V-cycle's cap and the result's limit
      limit = room;
    }
    String[] w = conf.getStrings(WEIGHT_WINDOW);
    if (w != null) {
      window = Arrays.stream(w).mapToDouble(x -> Double.parseDouble(x.trim())).toArray();
      if (window.length != 2) {
        throw new IllegalArgumentException(WEIGHT_WINDOW + " must be lo,hi: " + conf.get(WEIGHT_WINDOW));
      }
      weightOut = new double[k];
    }
  }

  @Override
  protected void reduce(IntWritable group, Iterable<GroupRow> values, Context context)
      throws IOException, InterruptedException {
    int[] parts = GroupRows.partsOf(groupOf, group.get());
    int g = parts.length;
    GroupRows rows = GroupRows.collect(values, GroupRows.localNumbers(parts, groupOf.length), window != null,
        context);
    int n = rows.n;
    context.getCounter(MrRefinement.Counters.GROUP_ROWS).increment(n);
    Block block = rows.block;
    int[][] before = {rows.part};
    long nonZeros = block.numEdges();
    long[] m0 = workingSets(block, before[0], g);
    long[] size0 = sizes(before[0], g);
    int[] after = before[0];
    long[] m1 = m0;
    String outcome;
    long need = RefineUTool.heapNeeded(n, nonZeros, block.numKeys(), g);
    long heap = TaskJvm.configuredHeap();
    if (g < 2 || n < 2L * g) {
      outcome = "too few rows or parts to refine";
      context.getCounter(MrRefinement.Counters.GROUPS_UNCHANGED).increment(1);
    } else if (need > heap) {
      outcome = String.format("needs about %d MiB, more than the task's heap of %d MiB; left as it is", need >> 20,
          heap >> 20);
      LOG.warn("group {}: {} rows, {} non-zeros {}", group.get(), n, nonZeros, outcome);
      context.getCounter(MrRefinement.Counters.GROUPS_TOO_BIG).increment(1);
    } else {
      List<Block> blocks = List.of(block);
      RowKeyGraph graph = RowKeyGraph.of(blocks);
      URefinement ref = null;
      // weighted rows get a V-cycle where their weights are whole numbers (the multilevel partitioner weighs in ints)
      RefineUTool.RowWeights rowWeights = window != null && RefineUTool.RowWeights.integral(blocks)
          ? RefineUTool.RowWeights.of(blocks, graph, g) : null;
      if ((vcycle || balance) && (window == null || rowWeights != null)) {
        MultilevelPartitioner.Settings s = MultilevelPartitioner.Settings.defaults();
        MultilevelPartitioner mp = new MultilevelPartitioner(g, s.withSeed(seed + 31L * group.get()),
            line -> LOG.debug("group {}: {}", group.get(), line)).holdCap(holdCap);
        if (rowWeights != null) {
          rowWeights.applyTo(mp, window);
        }
        MultilevelPartitioner.Counted vc = mp.counted(blocks, graph, before, balance ? slack : 0.0, cap);
        if (window == null || RefineUTool.RowWeights.within(loads(block, vc.parts()[0], g), window)) {
          ref = new URefinement(g, blocks, graph, vc, schedule[0], true).setRoom(room);
        } else {
          LOG.info("group {}: the V-cycle left the weight window {}; swap rounds from the given parts", group.get(),
              Arrays.toString(window));
        }
      }
      if (ref == null && !(balance && window != null)) {
        ref = new URefinement(g, blocks, graph, before, schedule[0], true).setRoom(room);
      }
      if (ref == null) {
        // a balance cycle of weighted rows: only a V-cycle (of whole-number weights) into the window balances them
        outcome = "dropped (" + (rowWeights == null ? "weights that are not whole numbers" : "the V-cycle left the"
            + " weights outside " + Arrays.toString(window)) + ")";
        context.getCounter(MrRefinement.Counters.GROUPS_UNBALANCED).increment(1);
      } else {
        if (window != null) {
          ref.setWeightWindow(window[0], window[1]);
        }
        outcome = refined(ref, block, n, g, size0, m0, context);
        if (outcome.equals("kept") || outcome.equals("balanced")) {
          after = ref.parts()[0];
          m1 = ref.workingSets();
        }
      }
    }
    long[] size1 = sizes(after, g);
    double[] w1 = window == null ? null : loads(block, after, g);
    for (int i = 0; i < g; i++) {
      workingSet[parts[i]] += m1[i];
      rowsOut[parts[i]] += size1[i];
      if (w1 != null) {
        weightOut[parts[i]] += w1[i];
      }
    }
    long moved = 0;
    for (int i = 0; i < n; i++) {
      if (after[i] != before[0][i]) {
        blockKey.set(rows.blockOf[i]);
        context.write(blockKey, move.set(rows.ids[i], rows.blockOf[i], parts[before[0][i]], parts[after[i]]));
        moved++;
      }
    }
    context.getCounter(MrRefinement.Counters.GROUP_MOVES).increment(moved);
    LOG.info("group {} (parts {}): {} rows, {} non-zeros; working sets {} -> {} (sum {} -> {}), {} rows moved: {}",
        group.get(), Arrays.toString(parts), n, nonZeros, Arrays.toString(m0), Arrays.toString(m1),
        Arrays.stream(m0).sum(), Arrays.stream(m1).sum(), moved, outcome);
  }

  /**
   * The swap rounds of {@link #SCHEDULE} on {@code ref} (the group's n rows in g parts, from {@code size0} rows and
   * {@code m0} working sets per part), and whether their result is kept: "kept" or, in a balance cycle, "balanced";
   * else why not. Counts the outcome.
   */
  private String refined(URefinement ref, Block block, int n, int g, long[] size0, long[] m0, Context context) {
    ref.setFloorGuard(false); // T_max's floor needs every part's keys, which a group does not see
    for (double p : schedule) {
      ref.setExponent(p);
      RefineUTool.roundsUntilStalled(ref, rounds, context::progress);
    }
    int[] cand = ref.parts()[0];
    long[] mc = ref.workingSets();
    long[] sc = sizes(cand, g);
    String outcome;
    MrRefinement.Counters counter;
    double[] wc = window == null ? null : loads(block, cand, g);
    boolean weightsHeld = wc == null || RefineUTool.RowWeights.within(wc, window);
    if (balance) {
      boolean within = window != null ? weightsHeld
          : Arrays.stream(sc).allMatch(x -> x >= n / g && x <= (n + g - 1) / g);
      outcome = within ? "balanced" : window != null ? "dropped (part weights " + Arrays.toString(wc) + " outside "
          + Arrays.toString(window) + ")" : "dropped (rows per part " + Arrays.toString(size0) + " -> "
          + Arrays.toString(sc) + ", not within one of each other)";
      counter = within ? MrRefinement.Counters.GROUPS_IMPROVED : MrRefinement.Counters.GROUPS_UNBALANCED;
    } else if (!weightsHeld) {
      outcome = "dropped (part weights " + Arrays.toString(wc) + " outside " + Arrays.toString(window) + ")";
      counter = MrRefinement.Counters.GROUPS_UNBALANCED;
    } else if (window == null && !sameMultiset(size0, sc)) {
      outcome = "dropped (rows per part " + Arrays.toString(size0) + " -> " + Arrays.toString(sc) + ")";
      counter = MrRefinement.Counters.GROUPS_UNBALANCED;
    } else if (Arrays.stream(mc).max().orElse(0) > Math.max(limit, Arrays.stream(m0).max().orElse(0))) {
      outcome = "dropped (a working set rose above " + limit + ")";
      counter = MrRefinement.Counters.GROUPS_UNCHANGED;
    } else if (objective(mc, m0, schedule[0]) >= objective(m0, m0, schedule[0])) {
      outcome = schedule[0] == 1 ? "dropped (no lower sum of working sets)"
          : "dropped (no lower sum of working sets to the power " + schedule[0] + ")";
      counter = MrRefinement.Counters.GROUPS_UNCHANGED;
    } else {
      outcome = "kept";
      counter = MrRefinement.Counters.GROUPS_IMPROVED;
    }
    context.getCounter(counter).increment(1);
    return outcome;
  }

  /** The distinct keys of each of the g parts' rows. */
  static long[] workingSets(Block b, int[] part, int g) {
    int nk = b.numKeys();
    boolean[] seen = new boolean[g * nk];
    long[] m = new long[g];
    int[] rs = b.localRowStart();
    int[] ks = b.localKeys();
    for (int r = 0; r < b.numRows(); r++) {
      int base = part[r] * nk;
      for (int j = rs[r]; j < rs[r + 1]; j++) {
        if (!seen[base + ks[j]]) {
          seen[base + ks[j]] = true;
          m[part[r]]++;
        }
      }
    }
    return m;
  }

  /** The swap rounds' objective over the group's parts, the mean taken over {@code ref}'s working sets. */
  private static double objective(long[] m, long[] ref, double p) {
    return MrRefinement.objective(m, p, Math.max(1e-9, Arrays.stream(ref).average().orElse(1)));
  }

  /** Weight per part of the group's rows (with {@link #WEIGHT_WINDOW}: the block carries their weights). */
  private static double[] loads(Block b, int[] part, int g) {
    double[] w = new double[g];
    for (int r = 0; r < part.length; r++) {
      w[part[r]] += b.weight(r);
    }
    return w;
  }

  private static long[] sizes(int[] part, int g) {
    long[] s = new long[g];
    for (int p : part) {
      s[p]++;
    }
    return s;
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    if (weightOut != null) {
      stats.putDoubles(WEIGHTS, weightOut);
    }
    stats.write(context);
  }

  /** Whether {@code a} and {@code b} hold the same values, each as often (the rows per part, in any order). */
  private static boolean sameMultiset(long[] a, long[] b) {
    long[] x = a.clone();
    long[] y = b.clone();
    Arrays.sort(x);
    Arrays.sort(y);
    return Arrays.equals(x, y);
  }
}
