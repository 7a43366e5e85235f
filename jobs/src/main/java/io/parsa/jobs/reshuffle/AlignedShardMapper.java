package io.parsa.jobs.reshuffle;

import io.parsa.avro.GraphRow;
import io.parsa.jobs.mr.AlignedJoin;
import io.parsa.jobs.mr.JoinCounters;
import io.parsa.jobs.mr.JoinValue;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.RowMapper;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.io.IOException;
import java.util.List;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Mapper;

/**
 * reshuffle's map side when the u-assignment is aligned with the blocks: one task per block file joins each row
 * with its part from the block's assignment file ({@link AlignedJoin#loadAssignments}) and sends ((part, id), row
 * with its raw bytes) straight to the shard reducers, so the rows cross the shuffle once instead of twice. Counts
 * what {@link RowMapper} and the reduce-side join count (rows, non-zeros, raw bytes, the two checksums, joined rows,
 * rows without assignment, assignments left over), which the driver checks against the shards.
 */
public class AlignedShardMapper extends Mapper<AvroKey<GraphRow>, NullWritable, PartRowKey, JoinValue> {

  private final PartRowKey outKey = new PartRowKey();
  private final JoinValue outValue = new JoinValue();
  private Long2IntOpenHashMap partOf;
  private long[] keys = new long[16];

  @Override
  protected void setup(Context context) throws IOException {
    partOf = AlignedJoin.loadAssignments(context, MrKeys.k(context.getConfiguration()));
  }

  @Override
  protected void map(AvroKey<GraphRow> key, NullWritable value, Context context)
      throws IOException, InterruptedException {
    GraphRow row = key.datum();
    List<Long> ks = row.getKeys();
    int n = ks.size();
    byte[] raw = RowMapper.countIn(row, context);
    int part = partOf.remove(row.getId());
    if (part < 0) {
      context.getCounter(JoinCounters.ROW_WITHOUT_ASSIGNMENT).increment(1);
      return;
    }
    context.getCounter(JoinCounters.JOINED_ROWS).increment(1);
    if (keys.length < n) {
      keys = new long[Math.max(n, 2 * keys.length)];
    }
    for (int i = 0; i < n; i++) {
      keys[i] = ks.get(i);
    }
    Double w = row.getWeight();
    outKey.set(part, row.getId());
    outValue.setRow(row.getId(), keys, n, raw, w != null ? w : Double.NaN);
    context.write(outKey, outValue);
  }

  @Override
  protected void cleanup(Context context) {
    context.getCounter(JoinCounters.ASSIGNMENT_WITHOUT_ROW).increment(partOf.size());
  }
}
