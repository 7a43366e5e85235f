package io.parsa.jobs.metrics;

import io.parsa.avro.VAssignment;
import io.parsa.jobs.mr.JoinValue;
import java.io.IOException;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Mapper;

/** Join side "v-assignment": VAssignment(key, part) becomes (key, PART(part, source 0)). */
public class VPartMapper extends Mapper<AvroKey<VAssignment>, NullWritable, LongWritable, JoinValue> {

  private final LongWritable outKey = new LongWritable();
  private final JoinValue outValue = new JoinValue();

  @Override
  protected void map(AvroKey<VAssignment> key, NullWritable value, Context context)
      throws IOException, InterruptedException {
    VAssignment v = key.datum();
    context.getCounter(source() == 0 ? MetricsTool.Counters.V_RECORDS_IN : MetricsTool.Counters.VARIANT_V_RECORDS_IN)
        .increment(1);
    outKey.set(v.getKey());
    context.write(outKey, outValue.setPart(v.getPart(), source()));
  }

  /** Source tag of the values: 0 = the v-assignment under test. */
  protected int source() {
    return 0;
  }

  /** The variant's v-assignment (Algorithm 2 on the random U): source 1. */
  public static class Variant extends VPartMapper {
    @Override
    protected int source() {
      return 1;
    }
  }
}
