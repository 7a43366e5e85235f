package io.parsa.jobs.partitionv;

import io.parsa.avro.VAssignment;
import io.parsa.engine.KeySignatures;
import io.parsa.engine.VPlacement;
import io.parsa.jobs.mr.JoinValue;
import io.parsa.jobs.mr.PartStats;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.io.IOException;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Mapper;

/**
 * One V placer: reads one whole, key-sorted share of the key usage (one KeyUsageReducer output file) and places its
 * keys against its own copy of the costs, started at |N(U_i)| / R, by the method of {@link PartitionVTool#METHOD}:
 * {@code sweep} streams Algorithm 2 in ascending key order (constant memory); {@code singles-first} and
 * {@code balanced} buffer the share (8 bytes per key plus one entry per distinct key signature) and place it in
 * cleanup with {@link VPlacement} (balanced: greedy + local search to a fixed point over key signatures).
 * Writes VAssignment(key, part, null) in key order; part stats {@code keys} (|V_i| of this share) and
 * {@code delta}.
 */
public class SweepMapper extends Mapper<LongWritable, JoinValue, AvroKey<VAssignment>, NullWritable> {

  public static final String KEYS = "keys";
  public static final String DELTA = "delta";

  private final AvroKey<VAssignment> outKey = new AvroKey<>();
  private final VAssignment record = new VAssignment();
  private Algorithm2 sweep;
  private VPlacement.Method method;
  private double[] start;
  private KeySignatures buffered;
  private LongArrayList bufferedKeys;
  private long lastKey;
  private boolean first = true;

  @Override
  protected void setup(Context context) {
    Configuration conf = context.getConfiguration();
    long[] ws = PartitionVTool.workingSets(conf);
    int shares = conf.getInt(PartitionVTool.SHARES, 1);
    method = PartitionVTool.method(conf);
    if (method == VPlacement.Method.SWEEP) {
      sweep = new Algorithm2(ws, shares);
    } else {
      start = new double[ws.length];
      for (int i = 0; i < ws.length; i++) {
        start[i] = ws[i] / (double) shares;
      }
      buffered = new KeySignatures(ws.length);
      bufferedKeys = new LongArrayList();
    }
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
    if (sweep == null) {
      buffered.add(value.longsArray(), n);
      bufferedKeys.add(key.get());
      return;
    }
    write(key.get(), sweep.assign(value.longsArray(), n), context);
  }

  private void write(long key, int part, Context context) throws IOException, InterruptedException {
    record.setKey(key);
    record.setPart(part);
    record.setNewKey(null);
    outKey.datum(record);
    context.write(outKey, NullWritable.get());
    context.getCounter(PartitionVTool.Counters.KEYS_ASSIGNED).increment(1);
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    PartStats stats = new PartStats();
    long[] keysPerPart;
    long[] delta;
    if (sweep != null) {
      keysPerPart = sweep.keysPerPart();
      delta = sweep.delta();
    } else {
      VPlacement.Result r = VPlacement.place(buffered, start, method);
      int[] parts = r.parts();
      for (int j = 0; j < parts.length; j++) {
        write(bufferedKeys.getLong(j), parts[j], context);
      }
      keysPerPart = r.keysPerPart();
      delta = r.delta();
    }
    int k = keysPerPart.length;
    System.arraycopy(keysPerPart, 0, stats.array(KEYS, k), 0, k);
    System.arraycopy(delta, 0, stats.array(DELTA, k), 0, k);
    stats.write(context);
  }
}
