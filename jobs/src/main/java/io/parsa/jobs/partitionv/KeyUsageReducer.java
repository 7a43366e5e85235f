package io.parsa.jobs.partitionv;

import io.parsa.jobs.mr.JoinValue;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.PartStats;
import java.io.IOException;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * Groups the (key, PAIR(placed part, _)) records of the row join by key into the set of parts that use the key
 * (u_ij of the paper, as a sorted PARTS value), and tallies |N(U_i)| per part ({@code workingSet} part stats).
 */
public class KeyUsageReducer extends Reducer<LongWritable, JoinValue, LongWritable, JoinValue> {

  /** PartStats name of the per-part working set sizes. */
  public static final String WORKING_SET = "workingSet";

  private final JoinValue outValue = new JoinValue();
  private final PartStats stats = new PartStats();
  private long[] workingSet;
  private boolean[] used;
  private long[] parts;
  private boolean randomPart;

  @Override
  protected void setup(Context context) {
    int k = MrKeys.k(context.getConfiguration());
    randomPart = context.getConfiguration().getBoolean(PartitionVTool.USE_RANDOM_PART, false);
    workingSet = stats.array(WORKING_SET, k);
    used = new boolean[k];
    parts = new long[k];
  }

  @Override
  protected void reduce(LongWritable key, Iterable<JoinValue> values, Context context)
      throws IOException, InterruptedException {
    // O(parts using the key), not O(k): collect the touched parts, sort them, reset only those
    int n = 0;
    for (JoinValue v : values) {
      if (v.tag() != JoinValue.PAIR) {
        throw new IllegalStateException("unexpected value for key " + key + ": " + v);
      }
      int p = randomPart ? v.b() : v.a();
      if (!used[p]) {
        used[p] = true;
        parts[n++] = p;
      }
    }
    java.util.Arrays.sort(parts, 0, n);
    for (int t = 0; t < n; t++) {
      int i = (int) parts[t];
      used[i] = false;
      workingSet[i]++;
    }
    context.getCounter(PartitionVTool.Counters.KEYS).increment(1);
    context.getCounter(PartitionVTool.Counters.KEY_PART_PAIRS).increment(n);
    context.write(key, outValue.setParts(parts, n));
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    stats.write(context);
  }
}
