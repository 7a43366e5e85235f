package io.parsa.jobs.keyusage;

import io.parsa.jobs.mr.JoinValue;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.PartStats;
import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * Groups the (key, PAIR(placed part, random part)) records of the row join by key into the key's one record of the
 * key-usage dataset: a USAGE value with the sorted set of parts whose rows use the key under the placed U (u_ij of
 * the paper) and under the seeded random U. Tallies |N(U_i)| of both placements as part stats
 * ({@link #WORKING_SET_PLACED}, {@link #WORKING_SET_RANDOM}). Work per key is O(parts using it), not O(k).
 */
public class KeyUsageReducer extends Reducer<LongWritable, JoinValue, LongWritable, JoinValue> {

  /** PartStats names of the per-part working set sizes. */
  public static final String WORKING_SET_PLACED = "workingSet.placed";
  public static final String WORKING_SET_RANDOM = "workingSet.random";

  private final JoinValue outValue = new JoinValue();
  private final PartStats stats = new PartStats();
  private long[] wsPlaced;
  private long[] wsRandom;
  private boolean[] usedPlaced;
  private boolean[] usedRandom;
  private long[] placed;
  private long[] random;

  @Override
  protected void setup(Context context) {
    int k = MrKeys.k(context.getConfiguration());
    wsPlaced = stats.array(WORKING_SET_PLACED, k);
    wsRandom = stats.array(WORKING_SET_RANDOM, k);
    usedPlaced = new boolean[k];
    usedRandom = new boolean[k];
    placed = new long[k];
    random = new long[k];
  }

  @Override
  protected void reduce(LongWritable key, Iterable<JoinValue> values, Context context)
      throws IOException, InterruptedException {
    int np = 0;
    int nr = 0;
    for (JoinValue v : values) {
      if (v.tag() != JoinValue.PAIR) {
        throw new IllegalStateException("unexpected value for key " + key + ": " + v);
      }
      if (!usedPlaced[v.a()]) {
        usedPlaced[v.a()] = true;
        placed[np++] = v.a();
      }
      if (!usedRandom[v.b()]) {
        usedRandom[v.b()] = true;
        random[nr++] = v.b();
      }
    }
    Arrays.sort(placed, 0, np);
    Arrays.sort(random, 0, nr);
    for (int t = 0; t < np; t++) {
      usedPlaced[(int) placed[t]] = false;
      wsPlaced[(int) placed[t]]++;
    }
    for (int t = 0; t < nr; t++) {
      usedRandom[(int) random[t]] = false;
      wsRandom[(int) random[t]]++;
    }
    context.getCounter(KeyUsageJob.Counters.KEYS).increment(1);
    context.getCounter(KeyUsageJob.Counters.KEY_PART_PAIRS).increment(np);
    context.getCounter(KeyUsageJob.Counters.KEY_PART_PAIRS_RANDOM).increment(nr);
    context.write(key, outValue.setUsage(placed, np, random, nr));
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    stats.write(context);
  }
}
