package io.parsa.jobs.reshuffle;

import io.parsa.avro.GraphRow;
import io.parsa.avro.VAssignment;
import io.parsa.jobs.mr.JoinValue;
import io.parsa.jobs.mr.Jobs;
import io.parsa.jobs.mr.Mix;
import io.parsa.jobs.mr.RowMapper;
import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * Reducer i writes shard i: every row of U_i, in row id order, as its raw bytes plus '\n' (text; a row with empty
 * raw writes nothing), or as an Avro GraphRow; with renumbering, keys are replaced by their new keys (the map is
 * loaded from the v-assignment into memory, sized once: 16 bytes per slot, 21–43 bytes per key; the tool checks
 * before the job that it fits, see {@link ReshuffleTool#renumberMapBytes}). Counts the "after" side of the checksum on
 * the original raw bytes of each row that reaches the writer.
 */
public class ShardReducer extends Reducer<PartRowKey, JoinValue, Object, NullWritable> {

  private final Text line = new Text();
  private final AvroKey<GraphRow> avroKey = new AvroKey<>();
  private boolean avro;
  private boolean renumber;
  private RowRewriter.Format format;
  private Long2LongOpenHashMap newKeys;

  @Override
  protected void setup(Context context) throws IOException {
    Configuration conf = context.getConfiguration();
    avro = "avro".equals(conf.get(ReshuffleTool.OUTPUT_FORMAT, "text"));
    format = RowRewriter.Format.valueOf(conf.get(ReshuffleTool.INPUT_FORMAT, "AUTO"));
    String v = conf.get(ReshuffleTool.V_ASSIGNMENT);
    renumber = v != null;
    if (renumber) {
      newKeys = loadNewKeys(FileSystem.get(new Path(v).toUri(), conf), new Path(v),
          conf.getLong(ReshuffleTool.V_ASSIGNMENT_KEYS, 0));
    }
  }

  /**
   * key to newKey of every VAssignment under {@code dir}; fails if one has no newKey.
   *
   * @param expected number of keys (sizes the table once; 0 if unknown)
   */
  static Long2LongOpenHashMap loadNewKeys(FileSystem fs, Path dir, long expected) throws IOException {
    Long2LongOpenHashMap m = expected > 0 && expected < Integer.MAX_VALUE / 2
        ? new Long2LongOpenHashMap((int) expected) : new Long2LongOpenHashMap();
    for (Path p : Jobs.avroFiles(fs, dir)) {
      try (org.apache.avro.file.DataFileStream<VAssignment> in = new org.apache.avro.file.DataFileStream<>(
          fs.open(p), new org.apache.avro.specific.SpecificDatumReader<>(VAssignment.class))) {
        VAssignment rec = null;
        while (in.hasNext()) {
          rec = in.next(rec);
          if (rec.getNewKey() == null) {
            throw new IOException(p + ": key " + rec.getKey() + " has no newKey; run partition-v with --renumber");
          }
          m.put(rec.getKey(), (long) rec.getNewKey());
        }
      }
    }
    return m;
  }

  @Override
  protected void reduce(PartRowKey key, Iterable<JoinValue> values, Context context)
      throws IOException, InterruptedException {
    for (JoinValue v : values) {
      byte[] raw = v.raw() == null ? new byte[0] : v.raw();
      int n = v.numLongs();
      long[] keys = v.longsArray();
      context.getCounter(ReshuffleTool.Counters.ROWS_OUT).increment(1);
      context.getCounter(ReshuffleTool.Counters.NONZEROS_OUT).increment(n);
      context.getCounter(ReshuffleTool.Counters.RAW_BYTES_OUT).increment(raw.length);
      context.getCounter(ReshuffleTool.Counters.ROW_HASH_SUM_OUT)
          .increment(Mix.hashBytes(RowMapper.HASH_SEED_1, raw, 0, raw.length));
      context.getCounter(ReshuffleTool.Counters.ROW_HASH2_SUM_OUT)
          .increment(Mix.hashBytes(RowMapper.HASH_SEED_2, raw, 0, raw.length));

      byte[] outRaw = raw;
      long[] outKeys = keys;
      if (renumber) {
        outKeys = new long[n];
        int missing = 0;
        for (int i = 0; i < n; i++) {
          if (!newKeys.containsKey(keys[i])) {
            missing++;
          }
          outKeys[i] = newKeys.get(keys[i]);
        }
        if (missing > 0) {
          context.getCounter(ReshuffleTool.Counters.KEYS_WITHOUT_NEW_KEY).increment(missing);
          continue;
        }
        RowRewriter.Result rewritten = n == 0 ? null : RowRewriter.rewrite(raw, keys, n, format, newKeys::get);
        if (n > 0 && rewritten == null) {
          context.getCounter(ReshuffleTool.Counters.REWRITE_MISMATCH).increment(1);
          continue;
        }
        int done = n == 0 ? 0 : rewritten.keysRewritten;
        outRaw = n == 0 ? raw : rewritten.bytes;
        context.getCounter(ReshuffleTool.Counters.KEYS_REWRITTEN).increment(done);
        context.getCounter(ReshuffleTool.Counters.KEYS_NOT_IN_RAW).increment(n - done);
      }
      if (avro) {
        List<Long> ks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          ks.add(outKeys[i]);
        }
        GraphRow row = new GraphRow(v.id(), ks, Double.isNaN(v.weight()) ? null : v.weight(), ByteBuffer.wrap(outRaw));
        avroKey.datum(row);
        context.write(avroKey, NullWritable.get());
        context.getCounter(ReshuffleTool.Counters.RECORDS_WRITTEN).increment(1);
      } else if (outRaw.length > 0) {
        line.set(outRaw);
        context.write(line, NullWritable.get());
        context.getCounter(ReshuffleTool.Counters.RECORDS_WRITTEN).increment(1);
        context.getCounter(ReshuffleTool.Counters.TEXT_BYTES_WRITTEN).increment(outRaw.length + 1);
      } else {
        context.getCounter(ReshuffleTool.Counters.EMPTY_ROWS).increment(1);
      }
    }
  }
}
