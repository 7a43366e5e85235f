package io.parsa.jobs.mr;

import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * Combiner for key-grouped PART / PAIR values: forwards each distinct (tag, a, b) once per key and every other
 * value unchanged. Sound because the reducers only look at the set of parts per key.
 */
public class DedupCombiner extends Reducer<LongWritable, JoinValue, LongWritable, JoinValue> {

  private final Set<Long> seen = new HashSet<>();

  @Override
  protected void reduce(LongWritable key, Iterable<JoinValue> values, Context context)
      throws IOException, InterruptedException {
    seen.clear();
    for (JoinValue v : values) {
      if (v.tag() == JoinValue.PAIR || v.tag() == JoinValue.PART) {
        long code = ((long) v.tag() << 56) ^ ((long) v.a() << 28) ^ v.b();
        if (!seen.add(code)) {
          continue;
        }
      }
      context.write(key, v);
    }
  }
}
