package io.parsa.jobs.reshuffle;

import io.parsa.jobs.mr.JoinValue;
import io.parsa.jobs.mr.RowJoin;
import java.io.IOException;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.mapreduce.Reducer;

/** Joins each row (with its raw bytes) with its part and emits ((part, id), row) for the shard writer. */
public class AssignReducer extends Reducer<LongWritable, JoinValue, PartRowKey, JoinValue> {

  private final RowJoin join = new RowJoin();
  private final PartRowKey outKey = new PartRowKey();
  private final JoinValue outValue = new JoinValue();

  @Override
  protected void reduce(LongWritable id, Iterable<JoinValue> values, Context context)
      throws IOException, InterruptedException {
    if (!join.join(values, context)) {
      return;
    }
    outKey.set(join.part(), id.get());
    outValue.setRow(id.get(), join.keys(), join.numKeys(), join.raw(), join.weight());
    context.write(outKey, outValue);
  }
}
