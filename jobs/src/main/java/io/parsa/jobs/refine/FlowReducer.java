package io.parsa.jobs.refine;

import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.PartStats;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * Streaming balance, flow job, reduce side, one call per part pair {lo, hi} ({@link SwapKey}'s grouping): the rows that
 * want to move between the two parts arrive best first per direction, and the first {@code quota[from][to]} of each
 * direction move ({@link #QUOTAS}); the rest wait for the next balance cycle. With {@link #BY_WEIGHT} a quota is
 * weight (whole-number row weights): each row moves whose weight the direction's quota still holds, the others wait.
 * One pass over the stream and no buffer: a task holds nothing of the data, however many rows a part has. Emits the
 * moves keyed by block, for the apply job.
 */
public class FlowReducer extends Reducer<SwapKey, Move, IntWritable, Move> {

  /** Rows to move per ordered part pair, as "from:to:rows" entries (pairs not listed move nothing). */
  public static final String QUOTAS = "parsa.refine-u.mr.flow.quotas";
  /** Part stats: rows (weight, {@link #BY_WEIGHT}) moved out of each part. */
  public static final String OUT = "flowOut";
  /** Part stats: rows (weight, {@link #BY_WEIGHT}) moved into each part. */
  public static final String IN = "flowIn";
  /**
   * Part stats: keys new to each part that the rows moved into it bring, each counted as if it moved alone (what the
   * gain job rated; rows moving together may share them).
   */
  public static final String ARRIVING = "flowArriving";
  /** Whether the quotas and the part stats are the rows' weight (whole numbers) instead of rows (default false). */
  public static final String BY_WEIGHT = "parsa.refine-u.mr.flow.by-weight";

  private final PartStats stats = new PartStats();
  private final IntWritable outKey = new IntWritable();
  private final Move out = new Move();
  private long[][] quota;
  private long[] movedOut;
  private long[] movedIn;
  private long[] arriving;
  private boolean byWeight;

  @Override
  protected void setup(Context context) {
    Configuration conf = context.getConfiguration();
    int k = MrKeys.k(conf);
    quota = quotas(conf.getStrings(QUOTAS), k);
    movedOut = stats.array(OUT, k);
    movedIn = stats.array(IN, k);
    arriving = stats.array(ARRIVING, k);
    byWeight = conf.getBoolean(BY_WEIGHT, false);
  }

  /** The quotas of {@link #QUOTAS} as a k × k matrix. */
  static long[][] quotas(String[] entries, int k) {
    return PartPairs.parse(QUOTAS, entries, k, true);
  }

  /** {@code q} as {@link #QUOTAS} entries (its positive ones). */
  static String[] entries(long[][] q) {
    return PartPairs.format(q, true);
  }

  @Override
  protected void reduce(SwapKey key, Iterable<Move> values, Context context)
      throws IOException, InterruptedException {
    long[] taken = new long[2];
    // the key object changes with every value: direction and gain are those of the current value
    for (Move m : values) {
      int dir = key.direction();
      int from = dir == 0 ? key.lo() : key.hi();
      int to = dir == 0 ? key.hi() : key.lo();
      if (m.from() != from || m.to() != to) {
        throw new IllegalStateException("flow job: a move " + m + " under the key " + key);
      }
      long w = byWeight ? Math.round(m.weight()) : 1;
      if (taken[dir] + w > quota[from][to]) {
        continue;
      }
      taken[dir] += w;
      movedOut[from] += w;
      movedIn[to] += w;
      arriving[to] += m.arriving();
      outKey.set(m.block());
      context.write(outKey, out.set(m.row(), m.block(), from, to));
      context.getCounter(MrRefinement.Counters.FLOW_MOVES).increment(1);
    }
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    stats.write(context);
  }
}
