package io.parsa.jobs.mr;

import java.io.IOException;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * Joins one row with its assignment and emits, for every DISTINCT key of the row, (key, PAIR(placed part, random
 * part)), where the random part is the seeded random-U part of the row id. Per-part row counts of both placements
 * go to the {@link PartStats} side file as {@code rows.placed} and {@code rows.random}, with their non-zeros and
 * weights ({@link RowLoads}).
 */
public class RowKeysReducer extends Reducer<LongWritable, JoinValue, LongWritable, JoinValue> {

  /** PartStats names. */
  public static final String ROWS_PLACED = "rows.placed";
  public static final String ROWS_RANDOM = "rows.random";

  /** Counter group/name for the (row, distinct key) pairs emitted. */
  public enum Counters {
    /** (row, distinct key) pairs emitted: sum over rows of |N(u)|. */
    ROW_KEY_PAIRS
  }

  private final RowJoin join = new RowJoin();
  private final LongWritable outKey = new LongWritable();
  private final JoinValue outValue = new JoinValue();
  private PartStats stats;
  private RowLoads loads;
  private int k;
  private long seed;

  @Override
  protected void setup(Context context) {
    k = MrKeys.k(context.getConfiguration());
    seed = MrKeys.seed(context.getConfiguration());
    stats = new PartStats();
    loads = new RowLoads(stats, k);
  }

  @Override
  protected void reduce(LongWritable id, Iterable<JoinValue> values, Context context)
      throws IOException, InterruptedException {
    if (!join.join(values, context)) {
      return;
    }
    int placed = join.part();
    int random = Mix.randomRowPart(seed, id.get(), k);
    loads.add(placed, random, join.numKeys(), join.weight());
    int d = join.distinctKeys();
    long[] keys = join.keys();
    outValue.setPair(placed, random);
    for (int i = 0; i < d; i++) {
      outKey.set(keys[i]);
      context.write(outKey, outValue);
    }
    context.getCounter(Counters.ROW_KEY_PAIRS).increment(d);
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    loads.finish();
    stats.write(context);
  }
}
