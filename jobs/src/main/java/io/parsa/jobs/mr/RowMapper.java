package io.parsa.jobs.mr;

import io.parsa.avro.GraphRow;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Mapper;

/**
 * Join side "rows": a GraphRow of the blocks becomes (row id, ROW value with its keys, and with its raw bytes
 * and weight if {@link MrKeys#CARRY_RAW}). Counts rows, non-zeros and the "before" checksum of the raw bytes.
 */
public class RowMapper extends Mapper<AvroKey<GraphRow>, NullWritable, LongWritable, JoinValue> {

  /** Seeds of the two row hashes of the order-independent checksum. */
  public static final long HASH_SEED_1 = 0x1234abcdL;
  public static final long HASH_SEED_2 = 0x7766554433L;

  private final LongWritable outKey = new LongWritable();
  private final JoinValue outValue = new JoinValue();
  private long[] keys = new long[16];
  private boolean carryRaw;

  @Override
  protected void setup(Context context) {
    carryRaw = context.getConfiguration().getBoolean(MrKeys.CARRY_RAW, MrKeys.CARRY_RAW_DEFAULT);
  }

  @Override
  protected void map(AvroKey<GraphRow> key, NullWritable value, Context context)
      throws IOException, InterruptedException {
    GraphRow row = key.datum();
    List<Long> ks = row.getKeys();
    int n = ks.size();
    if (keys.length < n) {
      keys = new long[Math.max(n, keys.length * 2)];
    }
    for (int i = 0; i < n; i++) {
      keys[i] = ks.get(i);
    }
    byte[] raw = countIn(row, context);
    Double w = row.getWeight();
    outValue.setRow(row.getId(), keys, n, carryRaw ? raw : null, carryRaw && w != null ? w : Double.NaN);
    outKey.set(row.getId());
    context.write(outKey, outValue);
  }

  /**
   * Counts one row read from the blocks: rows, non-zeros, raw bytes and the two "before" checksums of its raw bytes,
   * which reshuffle compares with its shards. Returns the raw bytes.
   */
  public static byte[] countIn(GraphRow row, org.apache.hadoop.mapreduce.TaskInputOutputContext<?, ?, ?, ?> context) {
    byte[] raw = rawBytes(row);
    context.getCounter(JoinCounters.ROWS_IN).increment(1);
    context.getCounter(JoinCounters.NONZEROS_IN).increment(row.getKeys().size());
    context.getCounter(JoinCounters.RAW_BYTES_IN).increment(raw.length);
    context.getCounter(JoinCounters.ROW_HASH_SUM_IN).increment(Mix.hashBytes(HASH_SEED_1, raw, 0, raw.length));
    context.getCounter(JoinCounters.ROW_HASH2_SUM_IN).increment(Mix.hashBytes(HASH_SEED_2, raw, 0, raw.length));
    return raw;
  }

  /** A copy of GraphRow.raw (an empty array if absent). */
  public static byte[] rawBytes(GraphRow row) {
    ByteBuffer buf = row.getRaw();
    if (buf == null) {
      return new byte[0];
    }
    ByteBuffer d = buf.duplicate();
    byte[] b = new byte[d.remaining()];
    d.get(b);
    return b;
  }
}
