package io.parsa.jobs.keyusage;

import io.parsa.jobs.mr.JoinValue;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.PartStats;
import io.parsa.jobs.mr.PartUnion;
import java.io.IOException;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * Groups a key's values (PAIR(placed part, random part) from the reduce-side join, or USAGE part sets from the
 * map-side join's in-mapper combining and {@link UsageCombiner}) into the key's one record of the key-usage
 * dataset: a USAGE value with the sorted set of parts whose rows use the key under the placed U (u_ij of the paper)
 * and under the seeded random U. Tallies |N(U_i)| of both placements as part stats ({@link #WORKING_SET_PLACED},
 * {@link #WORKING_SET_RANDOM}). Work per key is O(parts using it), not O(k).
 */
public class KeyUsageReducer extends Reducer<LongWritable, JoinValue, LongWritable, JoinValue> {

  /** PartStats names of the per-part working set sizes. */
  public static final String WORKING_SET_PLACED = "workingSet.placed";
  public static final String WORKING_SET_RANDOM = "workingSet.random";

  private final JoinValue outValue = new JoinValue();
  private final PartStats stats = new PartStats();
  private long[] wsPlaced;
  private long[] wsRandom;
  private PartUnion union;

  @Override
  protected void setup(Context context) {
    int k = MrKeys.k(context.getConfiguration());
    wsPlaced = stats.array(WORKING_SET_PLACED, k);
    wsRandom = stats.array(WORKING_SET_RANDOM, k);
    union = new PartUnion(k);
  }

  @Override
  protected void reduce(LongWritable key, Iterable<JoinValue> values, Context context)
      throws IOException, InterruptedException {
    union.of(values);
    int np = union.placedCount();
    int nr = union.randomCount();
    for (int t = 0; t < np; t++) {
      wsPlaced[union.placed(t)]++;
    }
    for (int t = 0; t < nr; t++) {
      wsRandom[union.random(t)]++;
    }
    context.getCounter(KeyUsageJob.Counters.KEYS).increment(1);
    context.getCounter(KeyUsageJob.Counters.KEY_PART_PAIRS).increment(np);
    context.getCounter(KeyUsageJob.Counters.KEY_PART_PAIRS_RANDOM).increment(nr);
    context.write(key, union.writeTo(outValue));
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    stats.write(context);
  }
}
