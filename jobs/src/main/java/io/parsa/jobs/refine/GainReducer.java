package io.parsa.jobs.refine;

import io.parsa.jobs.mr.DistinctKeys;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.yarn.io.BlockData;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * Gain job, reduce side, one call per block: with the per-key part counts of the block's keys (from
 * {@link CountReducer}), it reads the block and its assignment file and emits, for every row, its best single move
 * ({@link SwapGains}) keyed for the pairing job ({@link SwapKey}). Memory: one block, its keys' counts.
 */
public class GainReducer extends Reducer<IntWritable, KeyCounts, SwapKey, Move> {

  /** Per-part weights of the round's objective (comma-separated doubles, k of them). */
  public static final String WEIGHTS = "parsa.refine-u.mr.weights";
  /** The blocks directory. */
  public static final String BLOCKS = "parsa.refine-u.mr.blocks";
  /** The u-assignment (aligned with the blocks) the counts were made from. */
  public static final String U = "parsa.refine-u.mr.u";
  /**
   * The streaming balance's plan pass (boolean, default false): every row counts, per target it may take
   * ({@link #TARGETS}), the keys it would bring there into {@link #HISTOGRAM} (bin 1 + keys; weighted rows by the keys
   * per unit of weight, {@link #perWeight}), and proposes nothing. The balance plans its flows from these histograms
   * ({@link FlowPlan}), then lets each row propose among the targets the plan gives its part ({@link #SHARES}): where
   * every row proposed its best target only, a part whose rows mostly preferred a target others filled first had to
   * send its surplus through the few rows that proposed a target still short, however many keys they carried.
   */
  public static final String HISTOGRAM_OF_EVERY_TARGET = "parsa.refine-u.mr.gain-histogram-every-target";
  /**
   * With {@link #HISTOGRAM_OF_EVERY_TARGET}: count each row as its weight instead of 1 (weighted rows, whole-number
   * weights: the streaming balance of weighted rows moves weight).
   */
  public static final String HISTOGRAM_OF_WEIGHTS = "parsa.refine-u.mr.gain-histogram-weights";
  /**
   * The streaming balance's proposals: the planned flows, as "from:to:rows" entries ({@link FlowReducer#QUOTAS}). A
   * row proposes, among the parts its part's flows go to, the one it brings the fewest keys to, ties drawn in
   * proportion to the flows ({@link SwapGains#fewestArriving(boolean[], long[], long)}), rated by minus those keys
   * (per unit of weight for weighted rows, {@link #perWeight}) instead of its gain. Overrides {@link #TARGETS}.
   */
  public static final String SHARES = "parsa.refine-u.mr.target-shares";
  /** Part stats prefix: {@link #HISTOGRAM} + part → k × {@link #GAIN_BINS} rows (target, then bin). */
  public static final String HISTOGRAM = "gains-";
  /** Gain bins: gains of 1 or more in bin 0, then one bin per integer gain down to {@code 2 - GAIN_BINS} and below. */
  static final int GAIN_BINS = 34;

  /** The histogram bin of {@code gain}: 0 for the best (1 or more), {@link #GAIN_BINS} − 1 for the worst. */
  static int gainBin(double gain) {
    long g = Math.round(gain);
    return (int) Math.max(0, Math.min(GAIN_BINS - 1, 1 - g));
  }

  /**
   * The moves a row may propose, as "from:to" part pairs (default: any): a row of a part that no pair leaves is rated
   * but proposes nothing, and the others propose their best allowed target (the streaming balance's flows).
   */
  public static final String TARGETS = "parsa.refine-u.mr.targets";

  private final SwapKey outKey = new SwapKey();
  private final Move out = new Move();
  private SwapGains gains;
  private BlockCounts block;
  private final DistinctKeys distinct = new DistinctKeys();
  /** Per part, the targets its rows may move to; null entries: none (all null: any, {@link #TARGETS} unset). */
  private boolean[][] allowed;
  private final io.parsa.jobs.mr.PartStats stats = new io.parsa.jobs.mr.PartStats();
  /** Per part whose rows rate moves, its {@link #HISTOGRAM} part stats (created on its first row; null: no plan pass). */
  private long[][] hist;
  private boolean histogramOfWeights;
  /** Per part, the shares of its targets ({@link #SHARES}; null where unset). */
  private long[][] shares;
  private int k;

  @Override
  protected void setup(Context context) throws IOException {
    Configuration conf = context.getConfiguration();
    int k = MrKeys.k(conf);
    double[] w = conf.getStrings(WEIGHTS) == null ? null
        : Arrays.stream(conf.getStrings(WEIGHTS)).mapToDouble(Double::parseDouble).toArray();
    if (w == null || w.length != k) {
      throw new IllegalStateException(WEIGHTS + " must hold " + k + " weights");
    }
    gains = new SwapGains(w);
    block = new BlockCounts(conf);
    allowed = targets(conf.getStrings(TARGETS), k);
    hist = conf.getBoolean(HISTOGRAM_OF_EVERY_TARGET, false) ? new long[k][] : null;
    histogramOfWeights = conf.getBoolean(HISTOGRAM_OF_WEIGHTS, false);
    if (conf.getStrings(SHARES) != null) {
      shares = PartPairs.parse(SHARES, conf.getStrings(SHARES), k, true);
      allowed = allowedBy(shares);
    }
    this.k = k;
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    stats.write(context);
  }

  /** The allowed moves of {@link #TARGETS}, per source part (null where none; null as a whole where unset). */
  static boolean[][] targets(String[] pairs, int k) {
    if (pairs == null) {
      return null;
    }
    return allowedBy(PartPairs.parse(TARGETS, pairs, k, false));
  }

  /** The moves with a positive entry in {@code t}, per source part (null where none). */
  private static boolean[][] allowedBy(long[][] t) {
    int k = t.length;
    boolean[][] a = new boolean[k][];
    for (int from = 0; from < k; from++) {
      for (int to = 0; to < k; to++) {
        if (t[from][to] > 0) {
          if (a[from] == null) {
            a[from] = new boolean[k];
          }
          a[from][to] = true;
        }
      }
    }
    return a;
  }

  /** "from:to" for every move from a part with {@code from[p] > 0} to another with {@code to[p] > 0}. */
  static String[] targetsOf(long[] from, long[] to) {
    long[][] t = new long[from.length][to.length];
    for (int a = 0; a < from.length; a++) {
      for (int b = 0; b < to.length; b++) {
        t[a][b] = a != b && from[a] > 0 && to[b] > 0 ? 1 : 0;
      }
    }
    return PartPairs.format(t, false);
  }

  /**
   * Keys brought per unit of weight, in units of 1/{@link #WEIGHTED_ARRIVING_SCALE} key, for weighted rows (row
   * {@code r} of {@code weights}); the keys themselves for unit rows. The streaming balance of weighted rows moves
   * weight: a row that brings 20 keys with 100 non-zeros costs less per unit moved than one that brings 5 with 5.
   */
  static double perWeight(double keys, double[] weights, int r) {
    return weights == null ? keys : WEIGHTED_ARRIVING_SCALE * keys / Math.max(weights[r], 1e-9);
  }

  /** Resolution of {@link #perWeight}: bins of 1/16 key per unit of weight (nnz weights bring at most 1 key each). */
  static final double WEIGHTED_ARRIVING_SCALE = 16;

  /** Part {@code part}'s {@link #HISTOGRAM} part stats, created on first use. */
  private long[] histogram(int part) {
    if (hist[part] == null) {
      hist[part] = stats.array(HISTOGRAM + part, k * GAIN_BINS);
    }
    return hist[part];
  }

  @Override
  protected void reduce(IntWritable blockKey, Iterable<KeyCounts> values, Context context)
      throws IOException, InterruptedException {
    int b = blockKey.get();
    block.read(b, values, context);
    BlockData d = block.data;
    Long2IntOpenHashMap partOf = block.partOf;
    int[] st = block.start();
    int[] ps = block.parts();
    int[] cs = block.counts();
    for (int r = 0; r < d.numRows(); r++) {
      long id = d.rowIds[r];
      int part = partOf.get(id);
      if (part < 0) {
        context.getCounter(MrRefinement.Counters.ROW_WITHOUT_PART).increment(1);
        continue;
      }
      if (allowed != null && allowed[part] == null) {
        context.getCounter(MrRefinement.Counters.ROWS_RATED).increment(1); // a part no move may leave
        continue;
      }
      distinct.of(d.rowKeys, d.rowStart[r], d.rowStart[r + 1]);
      gains.begin(part);
      boolean complete = true;
      for (int i = 0; i < distinct.size(); i++) {
        int j = block.indexOf(distinct.get(i));
        if (j < 0) {
          complete = false;
          continue;
        }
        gains.key(ps, cs, st[j], st[j + 1]);
      }
      context.getCounter(MrRefinement.Counters.ROWS_RATED).increment(1);
      if (!complete || gains.ownPartMissing()) {
        context.getCounter(MrRefinement.Counters.KEY_WITHOUT_COUNTS).increment(1);
        continue;
      }
      if (hist != null) {
        long counted = histogramOfWeights && d.weights != null ? Math.round(d.weights[r]) : 1;
        long[] h = histogram(part);
        for (int t = 0; t < k; t++) {
          if (t != part && (allowed == null || allowed[part][t])) {
            h[t * GAIN_BINS + gainBin(-perWeight(gains.arrivingTo(t), d.weights, r))] += counted;
          }
        }
        continue;
      }
      int to = shares == null ? gains.bestTarget(allowed == null ? null : allowed[part])
          : gains.fewestArriving(allowed[part], shares[part], io.parsa.jobs.mr.Mix.mix64(id));
      if (to < 0) {
        continue;
      }
      double gain = shares == null ? gains.bestGain() : -perWeight(-gains.bestGain(), d.weights, r);
      outKey.set(part, to, gain, id);
      out.set(id, b, part, to).effect(gains.soleKeys(), gains.arriving(), gains.arrivingBound())
          .weight(d.weights == null ? 1 : d.weights[r]);
      context.write(outKey, out);
      context.getCounter(MrRefinement.Counters.CANDIDATES).increment(1);
    }
  }
}
