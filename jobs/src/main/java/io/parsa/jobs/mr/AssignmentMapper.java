package io.parsa.jobs.mr;

import io.parsa.avro.UAssignment;
import java.io.IOException;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Mapper;

/** Join side "assignments": a UAssignment becomes (row id, PART value); parts outside [0, k) are counted. */
public class AssignmentMapper extends Mapper<AvroKey<UAssignment>, NullWritable, LongWritable, JoinValue> {

  private final LongWritable outKey = new LongWritable();
  private final JoinValue outValue = new JoinValue();
  private int k;

  @Override
  protected void setup(Context context) {
    k = MrKeys.k(context.getConfiguration());
  }

  @Override
  protected void map(AvroKey<UAssignment> key, NullWritable value, Context context)
      throws IOException, InterruptedException {
    UAssignment a = key.datum();
    context.getCounter(JoinCounters.ASSIGNMENTS_IN).increment(1);
    if (a.getPart() < 0 || a.getPart() >= k) {
      context.getCounter(JoinCounters.BAD_PART).increment(1);
      return;
    }
    outKey.set(a.getId());
    context.write(outKey, outValue.setPart(a.getPart()));
  }
}
