package io.parsa.jobs.keyusage;

import io.parsa.jobs.mr.JoinValue;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.PartUnion;
import java.io.IOException;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * Combiner of the key-usage job: merges a key's PAIR and USAGE values of one map task's spill into one USAGE value
 * (the union of both part sets). Sound because {@link KeyUsageReducer} only looks at the sets of parts per key.
 */
public class UsageCombiner extends Reducer<LongWritable, JoinValue, LongWritable, JoinValue> {

  private final JoinValue out = new JoinValue();
  private PartUnion union;

  @Override
  protected void setup(Context context) {
    union = new PartUnion(MrKeys.k(context.getConfiguration()));
  }

  @Override
  protected void reduce(LongWritable key, Iterable<JoinValue> values, Context context)
      throws IOException, InterruptedException {
    context.write(key, union.of(values).writeTo(out));
  }
}
