package io.parsa.jobs.refine;

import io.parsa.engine.Block;
import io.parsa.engine.MultilevelPartitioner;
import io.parsa.engine.RowKeyGraph;
import io.parsa.engine.URefinement;
import io.parsa.jobs.common.TaskJvm;
import io.parsa.jobs.mr.DistinctKeys;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.yarn.io.BlockData;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.mapreduce.Reducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chunk rounds, reduce side, one call per block: the block's rows refined among all k parts by the in-memory swap
 * rounds while every other row stays where it is ({@link URefinement#ofChunk}). The count job's part counts of the
 * block's keys (over all blocks) less the block's own are the fixed pins, and the working sets M_i of the whole
 * assignment ({@link #WORKING_SETS}) are the refinement's. So every gain is the whole assignment's, exact while
 * the other blocks stay. A task's blocks are refined in turn, each seeing the moves of those before it (their rows'
 * keys are kept for it), so they cannot meet; the blocks of different tasks are refined at once against the same
 * counts, so their moves can meet on a key, and the driver keeps a job's moves only where the count job measures them
 * better.
 *
 * <p>At p = 1 each slice is first V-cycled among all k parts with the other rows as fixed vertices
 * ({@link MultilevelPartitioner#chunkVCycle}, under the block's share of the headroom where it has one; kept where it
 * lowers Σ M_i without raising M_max), and the swap rounds go on from there ({@link #VCYCLES}).
 *
 * <p>Every part keeps its rows of the block, so rows stay balanced exactly as they were. Weighted rows
 * ({@link #PART_WEIGHTS}) instead move singly, in swaps and in exchanges within the task's share of every part's room in
 * the weight window ({@link URefinement#ofWeightedChunk}): each of the {@link #WEIGHT_SHARES} tasks may take part i's
 * weight W_i down by at most (W_i − lo) / tasks and up by at most (hi − W_i) / tasks, for all its blocks and slices
 * together, so the tasks' moves together, or any of them, leave every part in [lo, hi]; their slices' V-cycles keep
 * every part's weight in that share at every level (whole-number weights; CHUNK_VCYCLES_NOT_WHOLE counts the slices
 * not V-cycled for want of them). A block too large
 * for the task's heap is refined in slices of its rows, one after the other, each seeing the moves of those before it:
 * {@link #SLICES} equal ones, or each the most rows whose keys fit ({@link #cut}); a row whose keys alone do not fit
 * stays in its part (CHUNK_ROWS_TOO_LARGE).
 *
 * <p>Output: the moved rows as {@link Move}s keyed by block (block b's in reducer b mod the reducers,
 * {@link BlockPartitioner}), which the next count job applies ({@link CountMapper#MOVES}). Counters: CHUNK_ROWS
 * (= rows), CHUNK_MOVES (= the moves that count job applies), CHUNK_SLICES, CHUNK_VCYCLES, CHUNK_VCYCLES_KEPT and
 * CHUNK_SUM_WORKING_SET_CHANGE (each task's count of its moves' change of Σ M_i).
 * Memory: one block, its keys' counts, one slice's refinement ({@link #sliceBytes}), and the keys of the rows the
 * task's earlier blocks moved up to a {@link #MOVES_HEAP_SHARE}th of the heap (the rest in a local file,
 * {@link TaskMoves}).
 */
public class ChunkReducer extends Reducer<IntWritable, KeyCounts, IntWritable, Move> {

  private static final Logger LOG = LoggerFactory.getLogger(ChunkReducer.class);

  /** The whole assignment's working sets M_i (k comma-separated counts) as the count job measured them. */
  public static final String WORKING_SETS = "parsa.refine.chunk.working-sets";
  /** The distinct keys of all rows (for T_sum in the log). */
  public static final String KEYS = "parsa.refine.chunk.keys";
  /** Exponent p of the objective Σ M_i^p the rounds lower. */
  public static final String EXPONENT = "parsa.refine.chunk.exponent";
  /** Swap rounds per block (each stops early as the in-memory rounds do). */
  public static final String ROUNDS = "parsa.refine.chunk.rounds";
  /**
   * Slices per block (default 0: the fewest that fit the heap the block's own data leaves, see
   * {@link #FREE_HEAP_PER_SLICE}).
   */
  public static final String SLICES = "parsa.refine.chunk.slices";
  /**
   * Bytes one slice's refinement may take ({@link #sliceBytes}; default 0: a {@link #FREE_HEAP_PER_SLICE}th of the
   * heap the block leaves, measured). Rows cut into slices by it as by the measured budget; for tests and for tasks
   * whose heap is shared.
   */
  public static final String SLICE_BYTES = "parsa.refine.chunk.slice-bytes";
  /**
   * The heap a task plans its slices in ({@link #planned}; default 0: its JVM's). For reduce tasks that share a
   * JVM, as in the local runner, and for tests.
   */
  public static final String HEAP_BYTES = "parsa.refine.chunk.heap-bytes";
  /**
   * Tasks refining blocks at once (the job's tasks, times a damping factor; 0: uncapped): each task's moves may lift
   * part i's working set by at most (M_max − M_i) / this, so that all tasks together cannot lift M_max (at p = 8 on
   * cnr-2000 the four blocks, each driving the largest working sets down alone, had together raised F by 263 %).
   */
  public static final String TASKS_AT_ONCE = "parsa.refine.chunk.tasks-at-once";
  /**
   * Whether the rounds at p = 1 start each slice with a capped V-cycle among all k parts, the other rows fixed
   * ({@link MultilevelPartitioner#chunkVCycle}): clusters of rows move where the rounds swap single rows (default
   * true).
   */
  public static final String VCYCLES = "parsa.refine.chunk.vcycles";
  /**
   * Keys every part's working set stays below the largest one (default 0: none): caps at M_max − margin, so a part at
   * M_max may only shrink. The driver sets it where a try of the job's blocks together lifted M_max by meeting on
   * keys, which each block's share of the headroom cannot prevent on the largest part (it has none).
   */
  public static final String MAX_MARGIN = "parsa.refine.chunk.max-margin";
  /**
   * The keys a user allows every working set ({@code refine-u --max-working-set}; default 0: none), set by the driver
   * for p = 1 jobs where it is above M_max: the headroom is under it instead of under M_max, the chunk V-cycles are
   * capped at it and the rounds may grow a working set up to it (URefinement#setRoom, which uses it at p = 1 only). A
   * room at or below M_max is not used.
   */
  public static final String ROOM = "parsa.refine.chunk.room";
  /**
   * The block that may change each part's rows, k comma-separated blocks (−1: any; default: every part any block's).
   * Every other block keeps its rows in the part where they are and moves none in, so a part owned by one block
   * changes by that block's moves alone and its working set, as that block counts it, is exact: blocks given disjoint
   * parts cannot meet on a key. The driver's frozen parts
   * ({@link MrRefinement#FREEZE_MAX}) are parts owned so while every other part is any block's: blocks that each kept
   * a part under M_max, one moving out a row whose keys another's incoming rows relied on, had together lifted M_max
   * in every p = 1 job at 3·10^7 non-zeros (docs/quality.md §39).
   */
  public static final String PART_OWNERS = "parsa.refine.chunk.part-owners";
  /**
   * Weighted rows: every part's weight W_i in the whole assignment as the count job measured it (k comma-separated
   * numbers; unset for unit rows).
   */
  public static final String PART_WEIGHTS = "parsa.refine.chunk.part-weights";
  /** Weighted rows: the window {lo, hi} every part's weight stays in (two comma-separated numbers). */
  public static final String WEIGHT_WINDOW = "parsa.refine.chunk.weight-window";
  /** Weighted rows: the tasks that share every part's room in the weight window (the job's reduce tasks). */
  public static final String WEIGHT_SHARES = "parsa.refine.chunk.weight-shares";

  private BlockCounts blockCounts;
  private Long2IntOpenHashMap partOf;
  private final DistinctKeys distinct = new DistinctKeys();
  private final IntWritable outKey = new IntWritable();
  private final Move out = new Move();
  private int k;
  /** The whole assignment's working sets as the job measured them (each block starts from them). */
  private long[] workingSets;
  private long keysInAll;
  private double exponent;
  private int rounds;
  private int forcedSlices;
  private long fixedBudget;
  /** The heap the slices are planned in. */
  private long heapBytes;
  private int tasksAtOnce;
  private boolean vcycles;
  private long maxMargin;
  /** The block that may change each part's rows (−1: any). */
  private int[] owner;
  /**
   * The working sets with this task's moves so far applied: a task's blocks are refined in turn, each from where the
   * one before it left them (another task's moves are not seen here).
   */
  private long[] seen;
  /** Every part's cap for this task's moves (null: none), the same for all its blocks. */
  private long[] caps;
  /** {@link #ROOM} where it is above M_max, else 0. */
  private long room;
  /**
   * The rows this task's earlier blocks moved: every slice of a later block corrects the count job's counts by them, so
   * the task's blocks cannot meet on a key. In memory up to a {@link #MOVES_HEAP_SHARE}th of the heap, the rest in a
   * local file.
   */
  private TaskMoves earlier;
  /**
   * Weighted rows ({@link #PART_WEIGHTS}; null for unit rows): how far this task may take each part's weight below
   * where the job started it, and its moves' change of every part's weight so far (all its blocks and slices); each
   * part's room is {@link #shareWidth} wide.
   */
  private double[] roomDown;
  private double[] weightChange;
  private double shareWidth;
  /**
   * Room for rounding at the ends of a task's window (a slice's weights summed in another order than its start's differ
   * in the last bits): a quarter of the whole window's own ({@link URefinement#weightWindow}) over the tasks.
   */
  private double slack;

  @Override
  protected void setup(Context context) throws IOException {
    Configuration conf = context.getConfiguration();
    k = MrKeys.k(conf);
    String[] ws = conf.getStrings(WORKING_SETS);
    if (ws == null || ws.length != k) {
      throw new IllegalStateException(WORKING_SETS + " must hold " + k + " working sets, was " + conf.get(WORKING_SETS));
    }
    workingSets = Arrays.stream(ws).mapToLong(x -> Long.parseLong(x.trim())).toArray();
    keysInAll = conf.getLong(KEYS, 0);
    exponent = conf.getDouble(EXPONENT, 1);
    rounds = conf.getInt(ROUNDS, 10);
    forcedSlices = conf.getInt(SLICES, 0);
    fixedBudget = conf.getLong(SLICE_BYTES, 0);
    heapBytes = TaskJvm.heap(conf, HEAP_BYTES);
    tasksAtOnce = conf.getInt(TASKS_AT_ONCE, 0);
    String[] pw = conf.getStrings(PART_WEIGHTS);
    if (pw != null) {
      double[] window = conf.getStrings(WEIGHT_WINDOW) == null ? new double[0]
          : Arrays.stream(conf.getStrings(WEIGHT_WINDOW)).mapToDouble(x -> Double.parseDouble(x.trim())).toArray();
      int shares = conf.getInt(WEIGHT_SHARES, 0);
      if (pw.length != k || window.length != 2 || shares < 1) {
        throw new IllegalStateException(PART_WEIGHTS + ", " + WEIGHT_WINDOW + " and " + WEIGHT_SHARES + " must hold " + k
            + " weights, a window and the tasks, were " + conf.get(PART_WEIGHTS) + "; " + conf.get(WEIGHT_WINDOW) + "; "
            + conf.get(WEIGHT_SHARES));
      }
      double[] weights = Arrays.stream(pw).mapToDouble(x -> Double.parseDouble(x.trim())).toArray();
      shareWidth = (window[1] - window[0]) / shares;
      roomDown = new double[k];
      for (int p = 0; p < k; p++) {
        roomDown[p] = Math.min(shareWidth, Math.max(0, (weights[p] - window[0]) / shares));
      }
      weightChange = new double[k];
      slack = 1e-9 * Math.max(1, Math.abs(window[1])) / shares / 4;
    }
    vcycles = conf.getBoolean(VCYCLES, true) && exponent <= 1;
    maxMargin = conf.getLong(MAX_MARGIN, 0);
    owner = new int[k];
    Arrays.fill(owner, -1);
    int[] owners = conf.getInts(PART_OWNERS);
    if (owners.length > 0) {
      if (owners.length != k) {
        throw new IllegalStateException(PART_OWNERS + " must hold " + k + " blocks, was " + conf.get(PART_OWNERS));
      }
      System.arraycopy(owners, 0, owner, 0, k);
    }
    blockCounts = new BlockCounts(conf);
    partOf = blockCounts.partOf;
    seen = workingSets.clone();
    earlier = new TaskMoves(heapBytes / MOVES_HEAP_SHARE / Long.BYTES);
    long max = Arrays.stream(workingSets).max().orElse(0);
    room = conf.getLong(ROOM, 0) > max ? conf.getLong(ROOM, 0) : 0;
    if (tasksAtOnce >= 1 || maxMargin > 0 || room > 0) {
      // the task's share of every part's headroom, for all its blocks and slices together, under M_max (or the room)
      // less the margin
      max = Math.max(max, room);
      caps = new long[k];
      for (int p = 0; p < k; p++) {
        caps[p] = Math.min(workingSets[p] + (max - workingSets[p]) / Math.max(1, tasksAtOnce), max - maxMargin);
      }
    }
  }

  @Override
  protected void reduce(IntWritable blockKey, Iterable<KeyCounts> values, Context context)
      throws IOException, InterruptedException {
    int b = blockKey.get();
    blockCounts.read(b, values, context);
    BlockData d = blockCounts.data;
    // the block's rows with a part, each with its distinct keys
    // (its rows in a part another block owns stay fixed: as no row leaves such a part, the rounds move none in)
    IntArrayList rows = new IntArrayList();
    long pairs = 0;
    long held = 0;
    for (int r = 0; r < d.numRows(); r++) {
      int part = partOf.get(d.rowIds[r]);
      if (part < 0) {
        context.getCounter(MrRefinement.Counters.ROW_WITHOUT_PART).increment(1);
        continue;
      }
      if (owner[part] != -1 && owner[part] != b) {
        held++;
        continue;
      }
      rows.add(r);
      pairs += d.rowStart[r + 1] - d.rowStart[r];
    }
    context.getCounter(MrRefinement.Counters.CHUNK_ROWS).increment(rows.size() + held);
    context.getCounter(MrRefinement.Counters.CHUNK_ROWS_FROZEN).increment(held);
    if (rows.isEmpty()) {
      return;
    }
    // the block's (row, key) pairs before each of its rows: slices are cut by them, for a row's keys, not the
    // row itself, take the heap (the generated 3·10^7-non-zero set has rows of 1.3·10^6 keys among rows of 10)
    long[] cum = new long[rows.size() + 1];
    for (int i = 0; i < rows.size(); i++) {
      int r = rows.getInt(i);
      cum[i + 1] = cum[i] + d.rowStart[r + 1] - d.rowStart[r];
    }
    // the rows that earlier slices of this block moved (their index in the block) and the parts they left: every
    // slice corrects the count job's counts by them. Keeping the changed counts themselves (an int[k] per key, then a
    // map entry per key and part) had grown past the heap the slices were sized for where half the rows moved.
    IntArrayList movedRows = new IntArrayList();
    IntArrayList movedFrom = new IntArrayList();
    long budget = Long.MAX_VALUE;
    if (forcedSlices <= 0) {
      // the block's rows, its keys' counts and its rows' parts stay live throughout: the slices are sized against what
      // they leave (a 600,000-row block of 7·10^6 non-zeros and its 2·10^6 keys' counts took about 230 of a 410 MiB
      // heap, and slices sized to half the whole heap ran out of it). The plan counts what the task holds, so a task
      // cuts the same slices in every attempt; the free heap measured after a collection only overrules it where a
      // planned slice would leave too little margin (two attempts of one task, sized by the measure alone, had cut a
      // block into 22 and 15 slices).
      long planned = fixedBudget > 0 ? fixedBudget * FREE_HEAP_PER_SLICE : planned(movedRows, movedFrom);
      HeapMeasure read = fixedBudget > 0 ? null : measureFreeHeap();
      long measured = read == null || read.collections() == 0 ? planned : read.free();
      budget = budgetOrFail(b, cum, 0, planned, measured, context);
      LOG.info("block {}: {} rows, {} non-zeros; of the {} MiB heap {} MiB free as planned, measured once it is read:"
          + " {}; {} slice(s)", b, rows.size(), pairs, heapBytes >> 20, planned >> 20,
          read == null ? "not measured (a fixed slice size)" : read, plan(cum, 0, k, vcycles, budget));
    }
    long moved = 0;
    long tooLarge = 0;
    long[] before = seen.clone();
    int ran = 0;
    int left = Math.max(1, Math.min(forcedSlices, rows.size()));
    for (int from = 0; from < rows.size(); ) {
      int to;
      if (forcedSlices > 0) {
        to = from + (rows.size() - from) / left--;
      } else {
        boolean replan = fixedBudget <= 0 && ran > 0;
        long planned = replan ? planned(movedRows, movedFrom) : 0;
        if (replan) {
          // the earlier slices' moves live on: the plan counts them
          budget = Math.min(budget, planned / FREE_HEAP_PER_SLICE);
        }
        to = cut(cum, from, k, vcycles, budget);
        long need = sliceBytes(to - from, cum[to] - cum[from], k, vcycles);
        if (replan && need > freeHeap() / MEASURED_HEAP_PER_SLICE) {
          // the measure stops at the first collection that leaves this slice its margin; only less free cuts it
          HeapMeasure read = measureFreeHeap((long) Math.ceil(need * MEASURED_HEAP_PER_SLICE));
          if (read.collections() == 0) {
            LOG.warn("block {}: after {} slice(s) {}: no measure, the plan stands", b, ran, read);
          } else if (need > read.free() / MEASURED_HEAP_PER_SLICE) {
            // the heap holds more than the plan counts: the rest is cut by the measure
            budget = budgetOrFail(b, cum, from, planned, read.free(), context);
            to = cut(cum, from, k, vcycles, budget);
            LOG.info("block {}: after {} slice(s) {}; the slice of {} MiB planned next leaves too little: the other {}"
                + " rows in {} slice(s); what the heap holds:\n{}", b, ran, read, need >> 20, rows.size() - from,
                plan(cum, from, k, vcycles, budget), largestClasses(12));
          }
        }
        if (to == from) {
          // this row's keys alone outgrow a slice: it stays in its part (alone in a slice it could not move either,
          // every part keeping its rows of the block), fixed with the other blocks' rows
          LOG.info("block {}: row {} ({} keys) stays in its part: alone it would need {} MiB of the {} MiB a slice"
              + " may take", b, d.rowIds[rows.getInt(from)], cum[from + 1] - cum[from],
              sliceBytes(1, cum[from + 1] - cum[from], k, vcycles) >> 20, budget >> 20);
          tooLarge++;
          from++;
          continue;
        }
      }
      moved += refineSlice(b, d, rows, from, to, movedRows, movedFrom, context);
      ran++;
      from = to;
      context.progress();
    }
    context.getCounter(MrRefinement.Counters.CHUNK_SLICES).increment(ran);
    context.getCounter(MrRefinement.Counters.CHUNK_ROWS_TOO_LARGE).increment(tooLarge);
    context.getCounter(MrRefinement.Counters.CHUNK_MOVES).increment(moved);
    LOG.info("block {}: {} rows in {} slice(s), {} moved, {} too large to refine; working sets as this task sees"
        + " them {} -> {} (sum {} -> {})", b, rows.size(), ran, moved, tooLarge, Arrays.toString(before),
        Arrays.toString(seen), Arrays.stream(before).sum(), Arrays.stream(seen).sum());
    for (int m = 0; m < movedRows.size(); m++) {
      int r = movedRows.getInt(m);
      earlier.add(distinct.of(d.rowKeys, d.rowStart[r], d.rowStart[r + 1]), movedFrom.getInt(m),
          partOf.get(d.rowIds[r]));
    }
  }

  /** The share of the heap ({@code 1/this}) a task keeps its earlier blocks' moves in; the rest go to a local file. */
  static final int MOVES_HEAP_SHARE = 32;

  @Override
  protected void cleanup(Context context) throws IOException {
    context.getCounter(MrRefinement.Counters.CHUNK_SUM_WORKING_SET_CHANGE)
        .increment(Arrays.stream(seen).sum() - Arrays.stream(workingSets).sum());
    if (earlier.spilledKeys() > 0) {
      LOG.info("{} moves of earlier blocks kept, {} of their keys in a local file", earlier.size(),
          earlier.spilledKeys());
    }
    earlier.close();
  }

  /** Fewest rows of a slice: a block whose rows cannot be refined in slices of this many fails with a message. */
  static final int MIN_SLICE_ROWS = 1000;

  /**
   * The end of the slice that starts at row {@code from}: the most rows from there whose refinement
   * ({@link #sliceBytes}) fits {@code budget} bytes, where {@code cum[i]} is the (row, key) pairs of the rows before
   * row i; {@code from} itself if that row alone does not fit.
   */
  static int cut(long[] cum, int from, int k, boolean vcycle, long budget) {
    int lo = from; // a slice's bytes grow with its rows: the last end that fits, by bisection
    int hi = cum.length - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (sliceBytes(mid - from, cum[mid] - cum[from], k, vcycle) <= budget) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /** How many slices {@link #cut} makes of the rows from {@code from} on under {@code budget}. */
  static int plan(long[] cum, int from, int k, boolean vcycle, long budget) {
    int slices = 0;
    for (int i = from; i < cum.length - 1; ) {
      int to = cut(cum, i, k, vcycle, budget);
      if (to > i) {
        slices++;
      }
      i = Math.max(to, i + 1);
    }
    return slices;
  }

  /**
   * Whether slices of {@link #MIN_SLICE_ROWS} rows (all of them, for fewer) of the rows from {@code from} on fit
   * {@code budget}, the rows being as large as they are on average (a row too large to fit alone left out: it stays
   * where it is).
   */
  static boolean leastSliceFits(long[] cum, int from, int k, boolean vcycle, long budget) {
    int fit = 0;
    long fitPairs = 0;
    for (int i = from; i < cum.length - 1; i++) {
      long p = cum[i + 1] - cum[i];
      if (sliceBytes(1, p, k, vcycle) <= budget) {
        fit++;
        fitPairs += p;
      }
    }
    int least = Math.min(MIN_SLICE_ROWS, fit);
    return fit > 0 && sliceBytes(least, fitPairs * least / fit, k, vcycle) <= budget;
  }

  /**
   * How many times a slice's estimate ({@link #sliceBytes}) the heap left after its block must be: a margin for
   * what the estimate does not see (the collector's own room, the log).
   */
  static final int FREE_HEAP_PER_SLICE = 2;

  /**
   * The share of the heap ({@code 1/this}) a task's plan holds back for what {@link #planned} does not count:
   * Hadoop's own objects, the reads' and the output's buffers, the collector's survivor space. At 3·10^7 non-zeros a
   * 410 MiB task held 24–35 MiB more than its blocks' structures as a block was read, and 17 MiB more after its slices;
   * the parallel collector kept about 21 MiB as a survivor space.
   */
  static final int RESERVE_SHARE = 8;

  /**
   * The heap the slices may take as planned: the task's heap ({@link #HEAP_BYTES}) less its reserve
   * ({@link #RESERVE_SHARE}) and less what it holds by its structures' sizes, the block read and its keys' counts
   * ({@link BlockCounts#heldBytes}), the earlier blocks' moves ({@link TaskMoves#heldBytes}) and this block's moved
   * rows so far. A function of the task's blocks, not of when the collector ran, so every attempt of a task cuts the
   * same slices.
   */
  private long planned(IntArrayList movedRows, IntArrayList movedFrom) {
    long max = heapBytes;
    long held = blockCounts.heldBytes() + earlier.heldBytes()
        + (long) Integer.BYTES * (movedRows.elements().length + movedFrom.elements().length);
    return Math.max(0, max - max / RESERVE_SHARE - held);
  }

  /**
   * How many times a planned slice's estimate the heap measured after a collection must at least be (below
   * {@link #FREE_HEAP_PER_SLICE}, the plan's margin): the measure overrules the plan only where the task holds so much
   * the plan did not count that the slice would have less than this margin. At 3·10^7 non-zeros a 410 MiB task's
   * measured free heap sank 17 MiB below its plan over a block's slices (the output's buffers, the reads' leftovers),
   * and cutting by the measure whenever it was below the plan cut most blocks of a job by the measure.
   */
  static final double MEASURED_HEAP_PER_SLICE = 1.5;

  /**
   * A slice's budget for the rows of block {@code b} from {@code from} on: a {@link #FREE_HEAP_PER_SLICE}th of the
   * {@code planned} free heap, or of the {@code measured} one where the planned budget would take more than a
   * {@link #MEASURED_HEAP_PER_SLICE}th of that (the plan missed what the task holds) or where only the measure fits
   * slices of {@link #MIN_SLICE_ROWS} rows. Either cut by the measure is counted as CHUNK_CUTS_BY_MEASURE: it is not
   * reproducible. A failure naming the fix where neither fits them.
   */
  private long budgetOrFail(int b, long[] cum, int from, long planned, long measured, Context context) {
    long budget = planned / FREE_HEAP_PER_SLICE;
    long byMeasure = measured / FREE_HEAP_PER_SLICE;
    if (budget > measured / MEASURED_HEAP_PER_SLICE
        || (byMeasure > budget && !leastSliceFits(cum, from, k, vcycles, budget))) {
      budget = byMeasure;
      context.getCounter(MrRefinement.Counters.CHUNK_CUTS_BY_MEASURE).increment(1);
      LOG.info("block {}: slices from row {} on cut by the {} MiB measured free, not the {} MiB planned", b, from,
          measured >> 20, planned >> 20);
    }
    if (!leastSliceFits(cum, from, k, vcycles, budget)) {
      int rest = cum.length - 1 - from;
      throw new IllegalStateException(String.format(java.util.Locale.ROOT, "block %d: %,d of its rows (%,d"
          + " non-zeros) are to be refined, and its rows and keys' part counts leave %,d MiB of the reduce task's %,d"
          + " MiB heap, too little to refine slices of %,d rows: give the reduce tasks more memory (-D"
          + " mapreduce.reduce.memory.mb=MB -D mapreduce.reduce.java.opts=-Xmx<0.8 x MB>m) or ingest into more,"
          + " smaller blocks (ingest --blocks)", b, rest, cum[cum.length - 1] - cum[from],
          Math.max(planned, measured) >> 20, heapBytes >> 20, Math.min(MIN_SLICE_ROWS, rest)));
    }
    return budget;
  }

  /**
   * The heap this task can still take: its limit less what is in use, which counts garbage too (a lower bound, free to
   * read).
   */
  private static long freeHeap() {
    Runtime rt = Runtime.getRuntime();
    return Math.max(0, rt.maxMemory() - (rt.totalMemory() - rt.freeMemory()));
  }

  /** Full collections a measure of the free heap runs ({@link #measureFreeHeap}). */
  static final int MEASURE_COLLECTIONS = 2;
  /** Requests for a collection a measure makes at most, {@link #MEASURE_RETRY_MS} apart after one the JVM skipped. */
  static final int MEASURE_REQUESTS = 10;
  static final long MEASURE_RETRY_MS = 20;

  /**
   * The free heap measured after full collections: what is in use before them, the most free after any of them, and
   * how many ran. The JVM may skip a requested collection: on the pseudo-cluster a chunk task's two requests in a row
   * did nothing (the collectors counted none), and the heap it then read as in use, garbage and all, cut a block by
   * the measure in one run and not in the next (docs/quality.md §51; JDK 17 ignores an explicit collection while a
   * thread is in a JNI critical region, JDK-8057586). So a request is made again, a little later, until the collectors
   * count {@link #MEASURE_COLLECTIONS} collections or {@link #MEASURE_REQUESTS} requests were made; a measure after
   * which none ran is not one ({@link #collections} 0, {@link #free} what was read without).
   */
  record HeapMeasure(long freeBefore, long free, int collections, int requests) {
    @Override
    public String toString() {
      return String.format(java.util.Locale.ROOT,
          "%d MiB free before the collections, %d MiB after (%d of %d run, %d requested)", freeBefore >> 20,
          free >> 20, collections, MEASURE_COLLECTIONS, requests);
    }
  }

  static HeapMeasure measureFreeHeap() throws InterruptedException {
    return measureFreeHeap(Long.MAX_VALUE);
  }

  /** As {@link #measureFreeHeap()}, done once a collection ran and left {@code enough} bytes free. */
  static HeapMeasure measureFreeHeap(long enough) throws InterruptedException {
    long before = freeHeap();
    long free = 0;
    int ran = 0;
    int requests = 0;
    while (ran < MEASURE_COLLECTIONS && requests < MEASURE_REQUESTS && !(ran > 0 && free >= enough)) {
      long counted = collectionsCounted();
      System.gc();
      requests++;
      if (collectionsCounted() > counted) {
        ran++;
        free = Math.max(free, freeHeap());
      } else {
        Thread.sleep(MEASURE_RETRY_MS);
      }
    }
    return new HeapMeasure(before, ran > 0 ? free : before, ran, requests);
  }

  /**
   * The classes whose instances take most of the heap, the first {@code lines} lines of HotSpot's class histogram (what
   * {@code jcmd <pid> GC.class_histogram} prints), for the log where the heap holds more than the plan counted; a line
   * saying why where the JVM cannot tell.
   */
  static String largestClasses(int lines) {
    try {
      Object text = ManagementFactory.getPlatformMBeanServer().invoke(
          new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
          new Object[] {new String[0]}, new String[] {String[].class.getName()});
      return String.valueOf(text).lines().limit(lines + 2L).collect(java.util.stream.Collectors.joining("\n"));
    } catch (javax.management.JMException | RuntimeException e) {
      return "(no class histogram: " + e + ")";
    }
  }

  /** The collections this JVM's collectors have counted (a collector that counts none adds nothing). */
  private static long collectionsCounted() {
    long n = 0;
    for (java.lang.management.GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      n += Math.max(0, gc.getCollectionCount());
    }
    return n;
  }

  /**
   * The heap a slice of {@code rows} rows and {@code pairs} (row, key) pairs takes, every pair a key of its own at
   * worst: the in-memory rounds' ({@link RefineUTool#heapNeeded}) and the slice's fixed counts, with a V-cycle the
   * fixed vertices' keys too (each key in every part at worst, and their pins by key).
   */
  static long sliceBytes(long rows, long pairs, int k, boolean vcycle) {
    return RefineUTool.heapNeeded(rows, pairs, pairs, k) + (vcycle ? 12L : 4L) * k * pairs;
  }

  /**
   * Refines rows {@code rows[from..to)} of block {@code b} with every other row fixed, from the working sets
   * {@link #seen} (updated to the slice's result) under {@link #caps} (or none); returns the rows moved.
   */
  private long refineSlice(int b, BlockData d, IntArrayList rows, int from, int to, IntArrayList movedRows,
      IntArrayList movedFrom, Context context) throws IOException, InterruptedException {
    int n = to - from;
    long[] ids = new long[n];
    int[] rowStart = new int[n + 1];
    LongArrayList keys = new LongArrayList();
    int[] given = new int[n];
    for (int i = 0; i < n; i++) {
      int r = rows.getInt(from + i);
      ids[i] = d.rowIds[r];
      given[i] = partOf.get(ids[i]);
      distinct.of(d.rowKeys, d.rowStart[r], d.rowStart[r + 1]);
      for (int j = 0; j < distinct.size(); j++) {
        keys.add(distinct.get(j));
      }
      rowStart[i + 1] = keys.size();
    }
    double[] rowWeights = null;
    if ((d.weights != null) != (roomDown != null)) {
      throw new IllegalStateException("block " + b + (d.weights != null ? " has weighted rows, but the job has no "
          + PART_WEIGHTS : " has unit rows, but the job refines weighted rows"));
    }
    if (d.weights != null) {
      rowWeights = new double[n];
      for (int i = 0; i < n; i++) {
        rowWeights[i] = d.weights[rows.getInt(from + i)];
      }
    }
    Block block = new Block(ids, rowStart, keys.toLongArray(), rowWeights);
    List<Block> blocks = List.of(block);
    RowKeyGraph graph = RowKeyGraph.of(blocks);
    int nk = graph.numKeys();
    // the global key of each of the graph's key ids (the graph numbers them in order of first use)
    long[] keyOf = new long[nk];
    int[] lk = block.localKeys();
    int[] gk = graph.rowKeys();
    for (int t = 0; t < lk.length; t++) {
      keyOf[gk[t]] = block.keys()[lk[t]];
    }
    int[] fixed = new int[Math.multiplyExact(nk, k)];
    int[] start = blockCounts.start();
    int[] parts = blockCounts.parts();
    int[] counts = blockCounts.counts();
    for (int v = 0; v < nk; v++) {
      int j = blockCounts.indexOf(keyOf[v]);
      if (j < 0) {
        context.getCounter(MrRefinement.Counters.KEY_WITHOUT_COUNTS).increment(1);
        return 0;
      }
      for (int t = start[j]; t < start[j + 1]; t++) {
        fixed[parts[t] * nk + v] += counts[t];
      }
    }
    if (!movedRows.isEmpty() || !earlier.isEmpty()) {
      // the rows earlier slices and blocks moved are counted in the parts they left: each of their keys this slice has
      // moves
      Long2IntOpenHashMap local = new Long2IntOpenHashMap(nk);
      local.defaultReturnValue(-1);
      for (int v = 0; v < nk; v++) {
        local.put(keyOf[v], v);
      }
      TaskMoves.KeyMove correct = (key, left, entered) -> {
        int v = local.get(key);
        if (v >= 0) {
          fixed[left * nk + v]--;
          fixed[entered * nk + v]++;
        }
      };
      earlier.forEachKey(correct);
      for (int m = 0; m < movedRows.size(); m++) {
        int r = movedRows.getInt(m);
        int left = movedFrom.getInt(m);
        int now = partOf.get(d.rowIds[r]);
        distinct.of(d.rowKeys, d.rowStart[r], d.rowStart[r + 1]);
        for (int t = 0; t < distinct.size(); t++) {
          correct.apply(distinct.get(t), left, now);
        }
      }
    }
    int[] rs = graph.rowStart();
    for (int i = 0; i < n; i++) {
      for (int t = rs[i]; t < rs[i + 1]; t++) {
        fixed[given[i] * nk + gk[t]]--; // the slice's own rows are not fixed
      }
    }
    for (int c = 0; c < fixed.length; c++) {
      if (fixed[c] < 0) {
        context.getCounter(MrRefinement.Counters.STALE_KEY_COUNTS).increment(1);
        return 0;
      }
    }
    double[] startLoads = null;
    double[] offsets = null;
    int[] wholeWeights = null;
    long[] low = null;
    long[] high = null;
    if (rowWeights != null) {
      // each part's weight as the rounds count it: where this task's room for it is, in a window [0, shareWidth]
      // common to all parts (a part another block owns at the window's top: no row enters it); the slice's rows
      // are counted from where they start, the rest of the part is a fixed offset
      startLoads = new double[k];
      double[] sliceLoads = new double[k];
      for (int i = 0; i < n; i++) {
        sliceLoads[given[i]] += rowWeights[i];
      }
      offsets = new double[k];
      for (int p = 0; p < k; p++) {
        startLoads[p] = owner[p] != -1 && owner[p] != b ? shareWidth
            : Math.min(shareWidth, Math.max(0, roomDown[p] + weightChange[p]));
        offsets[p] = startLoads[p] - sliceLoads[p];
      }
      // (whole numbers whose sum and window keep the partitioner's part weights, 4·(sum + window) + 4, within an int)
      wholeWeights = shareWidth < Integer.MAX_VALUE / 8 ? RefineUTool.RowWeights.whole(rowWeights,
          Integer.MAX_VALUE / 8) : null;
      if (wholeWeights != null) {
        // the slice's rows in part p may weigh what keeps the part in the task's window, in whole numbers
        low = new long[k];
        high = new long[k];
        for (int p = 0; p < k; p++) {
          low[p] = (long) Math.ceil(-slack - offsets[p]);
          high[p] = (long) Math.floor(shareWidth + slack - offsets[p]);
        }
      } else {
        context.getCounter(MrRefinement.Counters.CHUNK_VCYCLES_NOT_WHOLE).increment(1);
      }
    }
    int[] cycledParts = given;
    long[] startSets = seen;
    if (vcycles && (rowWeights == null || wholeWeights != null)) {
      MultilevelPartitioner.Weighted cycled = new MultilevelPartitioner(k,
          MultilevelPartitioner.Settings.defaults().withSeed(31L * b + from), LOG::debug)
          .chunkVCycle(graph, given, fixed, seen, caps, wholeWeights, low, high);
      context.getCounter(MrRefinement.Counters.CHUNK_VCYCLES).increment(1);
      if (cycled != null) {
        context.getCounter(MrRefinement.Counters.CHUNK_VCYCLES_KEPT).increment(1);
        cycledParts = cycled.part();
        startSets = cycled.workingSets();
      }
      context.progress();
    }
    URefinement ref;
    if (rowWeights == null) {
      ref = URefinement.ofChunk(k, blocks, graph, new int[][] {cycledParts}, fixed, startSets, keysInAll, exponent);
    } else {
      ref = URefinement.ofWeightedChunk(k, blocks, graph, new int[][] {cycledParts}, fixed, startSets, keysInAll,
          exponent, offsets, -slack, shareWidth + slack);
    }
    if (caps != null) {
      ref.capWorkingSets(caps);
    }
    ref.setRoom(room);
    double f0 = ref.objective();
    RefineUTool.roundsUntilStalled(ref, rounds, context::progress);
    int[] after = ref.parts()[0];
    long moved = 0;
    for (int i = 0; i < n; i++) {
      if (after[i] == given[i]) {
        continue;
      }
      outKey.set(b);
      context.write(outKey, out.set(ids[i], b, given[i], after[i]));
      partOf.put(ids[i], after[i]);
      moved++;
      movedRows.add(rows.getInt(from + i));
      movedFrom.add(given[i]);
    }
    LOG.debug("block {}: slice of {} rows, {} keys: F {} -> {}, {} moved", b, n, nk, f0, ref.objective(), moved);
    System.arraycopy(ref.workingSets(), 0, seen, 0, k);
    if (startLoads != null) {
      double[] loads = ref.loads();
      for (int p = 0; p < k; p++) {
        weightChange[p] += loads[p] - startLoads[p];
      }
    }
    return moved;
  }
}
