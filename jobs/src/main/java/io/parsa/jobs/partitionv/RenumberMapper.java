package io.parsa.jobs.partitionv;

import io.parsa.avro.VAssignment;
import io.parsa.jobs.mr.MrKeys;
import java.io.IOException;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;

/**
 * Gives each key its new key: reads one whole sweeper output file {@code part-m-NNNNN.avro} in order and numbers
 * the keys of part p from that file's offset for p, which the driver computed as
 * start(p) + (keys of part p in the files numbered below NNNNN), start(p) = sum of |V_q| for q &lt; p.
 * So part 0 owns new keys [0, |V_0|), part 1 the next |V_1|, and so on (0-based).
 */
public class RenumberMapper extends Mapper<AvroKey<VAssignment>, NullWritable, AvroKey<VAssignment>, NullWritable> {

  private long[] next;

  @Override
  protected void setup(Context context) {
    int k = MrKeys.k(context.getConfiguration());
    String file = ((FileSplit) context.getInputSplit()).getPath().getName();
    int task = PartitionVTool.taskNumberOf(file);
    next = PartitionVTool.offsets(context.getConfiguration(), task, k);
  }

  @Override
  protected void map(AvroKey<VAssignment> key, NullWritable value, Context context)
      throws IOException, InterruptedException {
    VAssignment v = key.datum();
    v.setNewKey(next[v.getPart()]++);
    context.write(key, NullWritable.get());
    context.getCounter(PartitionVTool.Counters.KEYS_RENUMBERED).increment(1);
  }
}
