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
 * One V placer: reads one share of the key-usage dataset ({@link io.parsa.jobs.keyusage.ShareInputFormat}: whole
 * record files, each in key order) and places its keys, by the parts that use them under the placed U (or the
 * random U with {@link PartitionVTool#USE_RANDOM_PART}), against its own copy of the costs, started at |N(U_i)| / R,
 * by the method of {@link PartitionVTool#METHOD}: {@code sweep} streams Algorithm 2 in input order (constant
 * memory); {@code singles-first} and
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
  private boolean randomPart;
  private long[] scratch = new long[16];

  @Override
  protected void setup(Context context) {
    Configuration conf = context.getConfiguration();
    long[] ws = PartitionVTool.workingSets(conf);
    int shares = conf.getInt(PartitionVTool.SHARES, 1);
    method = PartitionVTool.method(conf);
    randomPart = conf.getBoolean(PartitionVTool.USE_RANDOM_PART, false);
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
    // a share is several files, each in key order and disjoint (keys are hashed to files): a key equal to the
    // previous one is a duplicate
    if (!first && key.get() == lastKey) {
      throw new IllegalStateException("key-usage input holds key " + key.get() + " twice");
    }
    if (value.tag() != JoinValue.USAGE) {
      throw new IllegalStateException("not a key-usage record at key " + key.get() + ": " + value);
    }
    first = false;
    lastKey = key.get();
    int n = value.usageCount(randomPart);
    if (n == 0) {
      context.getCounter(PartitionVTool.Counters.KEYS_WITHOUT_PART).increment(1);
    }
    long[] parts = value.longsArray();
    int off = value.usageOffset(randomPart);
    if (off > 0) {
      if (scratch.length < n) {
        scratch = new long[Math.max(n, 2 * scratch.length)];
      }
      System.arraycopy(parts, off, scratch, 0, n);
      parts = scratch;
    }
    if (sweep == null) {
      buffered.add(parts, n);
      bufferedKeys.add(key.get());
      return;
    }
    write(key.get(), sweep.assign(parts, n), context);
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
