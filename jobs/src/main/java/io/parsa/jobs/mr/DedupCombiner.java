package io.parsa.jobs.mr;

import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * Combiner for key-grouped PAIR values: forwards each distinct (placed, random) pair once per key and every other
 * value (e.g. a key's PART from a v-assignment, whose duplicates must reach the reducer to be detected) unchanged.
 * Sound because the reducers only look at the sets of parts per key.
 */
public class DedupCombiner extends Reducer<LongWritable, JoinValue, LongWritable, JoinValue> {

  private final Set<Long> seen = new HashSet<>();

  @Override
  protected void reduce(LongWritable key, Iterable<JoinValue> values, Context context)
      throws IOException, InterruptedException {
    seen.clear();
    for (JoinValue v : values) {
      if (v.tag() == JoinValue.PAIR) {
        long code = ((long) v.a() << 32) | (v.b() & 0xffffffffL);
        if (!seen.add(code)) {
          continue;
        }
      }
      context.write(key, v);
    }
  }
}
