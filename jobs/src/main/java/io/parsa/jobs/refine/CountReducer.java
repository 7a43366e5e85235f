package io.parsa.jobs.refine;

import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.PartStats;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * Count job, reduce side: per key, its rows per part summed over the blocks, sent to every block that uses it
 * (output key: the block) for the gain job. Part stats: the working sets M_i (keys that part i's rows use).
 * Memory: k counts and the key's blocks.
 */
public class CountReducer extends Reducer<LongWritable, KeyCounts, IntWritable, KeyCounts> {

  /** Part stats: |N(U_i)|. */
  public static final String WORKING_SET = "workingSet";

  private final PartStats stats = new PartStats();
  private final IntArrayList blocks = new IntArrayList();
  private final IntWritable outKey = new IntWritable();
  private final KeyCounts out = new KeyCounts();
  private int[] count;
  private int[] touched;
  private long[] workingSet;

  @Override
  protected void setup(Context context) {
    int k = MrKeys.k(context.getConfiguration());
    count = new int[k];
    touched = new int[k];
    workingSet = stats.array(WORKING_SET, k);
  }

  @Override
  protected void reduce(LongWritable key, Iterable<KeyCounts> values, Context context)
      throws IOException, InterruptedException {
    blocks.clear();
    int n = 0;
    long pairs = 0;
    for (KeyCounts v : values) {
      blocks.add(v.block());
      for (int t = 0; t < v.size(); t++) {
        int p = v.part(t);
        if (count[p] == 0) {
          touched[n++] = p;
        }
        count[p] += v.count(t);
        pairs += v.count(t);
      }
    }
    Arrays.sort(touched, 0, n);
    out.reset(key.get(), 0);
    for (int t = 0; t < n; t++) {
      int p = touched[t];
      out.add(p, count[p]);
      workingSet[p]++;
      count[p] = 0;
    }
    context.getCounter(MrRefinement.Counters.KEYS).increment(1);
    context.getCounter(MrRefinement.Counters.COUNTED_PAIRS).increment(pairs);
    context.getCounter(MrRefinement.Counters.KEY_BLOCK_RECORDS).increment(blocks.size());
    for (int b : blocks) {
      outKey.set(b);
      context.write(outKey, out);
    }
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    stats.write(context);
  }
}
