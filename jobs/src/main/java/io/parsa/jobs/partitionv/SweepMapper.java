package io.parsa.jobs.partitionv;

import io.parsa.avro.VAssignment;
import io.parsa.jobs.mr.JoinValue;
import io.parsa.jobs.mr.PartStats;
import java.io.IOException;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Mapper;

/**
 * One Algorithm 2 sweeper: reads one whole, key-sorted share of the key usage (one KeyUsageReducer output file)
 * and assigns its keys in ascending key order against its own copy of the costs, started at |N(U_i)| / R.
 * Writes VAssignment(key, part, null); part stats {@code keys} (|V_i| of this share) and {@code delta}.
 */
public class SweepMapper extends Mapper<LongWritable, JoinValue, AvroKey<VAssignment>, NullWritable> {

  public static final String KEYS = "keys";
  public static final String DELTA = "delta";

  private final AvroKey<VAssignment> outKey = new AvroKey<>();
  private final VAssignment record = new VAssignment();
  private Algorithm2 sweep;
  private long lastKey;
  private boolean first = true;

  @Override
  protected void setup(Context context) {
    Configuration conf = context.getConfiguration();
    long[] ws = PartitionVTool.workingSets(conf);
    int shares = conf.getInt(PartitionVTool.SHARES, 1);
    sweep = new Algorithm2(ws, shares);
  }

  @Override
  protected void map(LongWritable key, JoinValue value, Context context) throws IOException, InterruptedException {
    if (!first && key.get() <= lastKey) {
      throw new IllegalStateException("sweep input not sorted or not unique at key " + key.get());
    }
    first = false;
    lastKey = key.get();
    int n = value.numLongs();
    if (n == 0) {
      context.getCounter(PartitionVTool.Counters.KEYS_WITHOUT_PART).increment(1);
    }
    int part = sweep.assign(value.longsArray(), n);
    record.setKey(key.get());
    record.setPart(part);
    record.setNewKey(null);
    outKey.datum(record);
    context.write(outKey, NullWritable.get());
    context.getCounter(PartitionVTool.Counters.KEYS_ASSIGNED).increment(1);
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    PartStats stats = new PartStats();
    int k = sweep.keysPerPart().length;
    System.arraycopy(sweep.keysPerPart(), 0, stats.array(KEYS, k), 0, k);
    System.arraycopy(sweep.delta(), 0, stats.array(DELTA, k), 0, k);
    stats.write(context);
  }
}
