package io.parsa.jobs.refine;

import io.parsa.jobs.mr.PartStats;
import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * Pairing job, reduce side, one call per part pair {lo, hi}: the rows that want lo → hi arrive best first, then
 * those that want hi → lo best first ({@link SwapKey}); the i-th of each direction are swapped while their gains
 * sum to more than zero, so both parts keep their row counts. Emits both moves of every swap keyed by block.
 * With weighted rows ({@link #WEIGHT_DOWN}, {@link #WEIGHT_UP}) the weight a pair's swaps shift from one part to the
 * other stays within both parts' shares of their room in the weight window: where the next lo → hi row would take it
 * out, a partner further down that list (up to {@link #PARTNER_LOOK} of them) that keeps it is taken, else the
 * hi → lo row is passed over. Memory: the first direction's candidates up to {@link #BUFFER} (rows beyond it have
 * smaller gains and wait for a later round), and at most {@link #MAX_PAIRS} swaps per pair (the driver lowers it
 * after a rejected round).
 */
public class PairReducer extends Reducer<SwapKey, Move, IntWritable, Move> {

  /** Most lo → hi candidates a pair holds in memory (default {@value #BUFFER_DEFAULT}: 37 bytes each). */
  public static final String BUFFER = "parsa.refine-u.mr.pair.buffer";
  public static final int BUFFER_DEFAULT = 1 << 21;
  /** Most swaps per part pair in this round (default unlimited). */
  public static final String MAX_PAIRS = "parsa.refine-u.mr.pair.max";
  /**
   * Per part (k comma-separated numbers): how much its working set may grow through one pair's swaps, by the swaps'
   * effects ({@link Move#effect}); default unlimited. The driver gives each part an equal share of its headroom
   * under the round's largest working set. With {@link #SAFE} the arriving keys are counted by their bound, which
   * sums to at least a part's real growth, so the pairs, decided apart, cannot together lift a part above it;
   * without, by what each move alone adds (more swaps, but rows that share keys can overshoot).
   */
  public static final String BUDGET = "parsa.refine-u.mr.pair.budget";
  /**
   * Per part (k comma-separated doubles): how much weight one pair's swaps may take out of it, and {@link #WEIGHT_UP}
   * bring into it; unset: unlimited (rows without weights, whose swaps shift no weight). The driver gives each part
   * an equal share of its room in the weight window, so the pairs, decided apart, keep every part within it.
   */
  public static final String WEIGHT_DOWN = "parsa.refine-u.mr.pair.weight-down";
  /** See {@link #WEIGHT_DOWN}. */
  public static final String WEIGHT_UP = "parsa.refine-u.mr.pair.weight-up";
  /** lo → hi rows tried, from the best unpaired one, for a hi → lo row whose swap must keep the weights. */
  static final int PARTNER_LOOK = 32;
  /** Count arriving keys by their bound (boolean, default false). */
  public static final String SAFE = "parsa.refine-u.mr.pair.safe";
  /** Part stats: the most swaps of one pair in this task (entry 0). */
  public static final String MOST_PAIRS = "mostPairs";

  private final PartStats stats = new PartStats();
  private final IntWritable outKey = new IntWritable();
  private final Move out = new Move();
  private long[] rows = new long[1024];
  private int[] blocks = new int[1024];
  private double[] gain = new double[1024];
  private int[] leaving = new int[1024];
  private int[] arriving = new int[1024];
  private double[] weight = new double[1024];
  private boolean[] used = new boolean[1024];
  private long[] budget;
  private double[] weightDown;
  private double[] weightUp;
  private boolean safe;
  private int buffer;
  private long maxPairs;
  private long[] mostPairs;

  @Override
  protected void setup(Context context) {
    Configuration conf = context.getConfiguration();
    buffer = conf.getInt(BUFFER, BUFFER_DEFAULT);
    maxPairs = conf.getLong(MAX_PAIRS, Long.MAX_VALUE);
    mostPairs = stats.array(MOST_PAIRS, 1);
    safe = conf.getBoolean(SAFE, false);
    String[] b = conf.getStrings(BUDGET);
    if (b != null) {
      budget = java.util.Arrays.stream(b).mapToLong(Long::parseLong).toArray();
    }
    weightDown = doubles(conf, WEIGHT_DOWN);
    weightUp = doubles(conf, WEIGHT_UP);
  }

  private static double[] doubles(Configuration conf, String name) {
    String[] v = conf.getStrings(name);
    return v == null ? null : Arrays.stream(v).mapToDouble(Double::parseDouble).toArray();
  }

  @Override
  protected void reduce(SwapKey key, Iterable<Move> values, Context context)
      throws IOException, InterruptedException {
    int held = 0;
    long limit = Math.min(buffer, maxPairs);
    long pairs = 0;
    boolean pairing = true;
    long growLo = 0; // estimated change of the working sets of lo and hi by this pair's swaps so far
    long growHi = 0;
    long budgetLo = budget == null ? Long.MAX_VALUE : budget[key.lo()];
    long budgetHi = budget == null ? Long.MAX_VALUE : budget[key.hi()];
    // the weight this pair's swaps have shifted from lo to hi, and how far it may go either way
    double shift = 0;
    double maxToHi = weightDown == null ? Double.POSITIVE_INFINITY : Math.min(weightDown[key.lo()], weightUp[key.hi()]);
    double maxToLo = weightDown == null ? Double.POSITIVE_INFINITY : Math.min(weightDown[key.hi()], weightUp[key.lo()]);
    int first = 0; // the best lo -> hi row not yet swapped
    // the key object changes with every value: direction, gain and row are those of the current value
    for (Move m : values) {
      if (key.direction() == 0) {
        if (held < limit) {
          if (held == rows.length) {
            rows = Arrays.copyOf(rows, 2 * held);
            blocks = Arrays.copyOf(blocks, 2 * held);
            gain = Arrays.copyOf(gain, 2 * held);
            leaving = Arrays.copyOf(leaving, 2 * held);
            arriving = Arrays.copyOf(arriving, 2 * held);
            weight = Arrays.copyOf(weight, 2 * held);
            used = Arrays.copyOf(used, 2 * held);
          }
          leaving[held] = m.leaving();
          arriving[held] = safe ? m.arrivingBound() : m.arriving();
          rows[held] = m.row();
          blocks[held] = m.block();
          gain[held] = key.gain();
          weight[held] = m.weight();
          used[held] = false;
          held++;
        }
        continue;
      }
      if (!pairing) {
        continue;
      }
      while (first < held && used[first]) {
        first++;
      }
      if (first >= held || gain[first] + key.gain() <= 0) {
        pairing = false;
        continue;
      }
      // the best unswapped lo -> hi row whose swap with this hi -> lo row keeps the weights (rows without weights:
      // always the first)
      int i = -1;
      for (int j = first, tried = 0; j < held && tried < PARTNER_LOOK && gain[j] + key.gain() > 0; j++) {
        if (!used[j]) {
          tried++;
          double s = shift + weight[j] - m.weight();
          if (s <= maxToHi && -s <= maxToLo) {
            i = j;
            break;
          }
        }
      }
      if (i < 0) {
        continue; // no partner keeps the weights: a later hi -> lo row may find one
      }
      // the swap of lo -> hi row i with this hi -> lo row, within both parts' budgets
      long lo = growLo - leaving[i] + (safe ? m.arrivingBound() : m.arriving());
      long hi = growHi - m.leaving() + arriving[i];
      if (lo > budgetLo || hi > budgetHi) {
        pairing = false;
        continue;
      }
      growLo = lo;
      growHi = hi;
      shift += weight[i] - m.weight();
      used[i] = true;
      emit(context, m.row(), m.block(), key.hi(), key.lo());
      emit(context, rows[i], blocks[i], key.lo(), key.hi());
      pairs++;
    }
    if (held == limit && limit == buffer) {
      context.getCounter(MrRefinement.Counters.PAIR_BUFFER_FULL).increment(1);
    }
    context.getCounter(MrRefinement.Counters.SWAPS).increment(pairs);
    mostPairs[0] = Math.max(mostPairs[0], pairs);
  }

  private void emit(Context context, long row, int block, int from, int to) throws IOException, InterruptedException {
    outKey.set(block);
    context.write(outKey, out.set(row, block, from, to));
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    stats.write(context);
  }
}
