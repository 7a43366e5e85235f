package io.parsa.jobs.mr;

import io.parsa.avro.GraphRow;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.io.IOException;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Mapper;

/**
 * The blocks ⋈ u-assignment join without a shuffle, for a u-assignment aligned with the blocks (one file per block,
 * {@code AssignmentFiles.fileFor}, as partition-u, refine-u and assign-baseline write it): a task reads one whole
 * block file and, into memory, that block's assignment file (a few bytes per row of one block), and emits for each
 * key of the block the union of the (placed part, random part) pairs of the rows using it, as one USAGE value, and
 * rows, non-zeros and weight per part of both placements as part stats ({@link RowLoads}). The union is combined in
 * the mapper: the (key, pair) of every distinct key of every row goes into a {@link KeyPairBuffer} of at most
 * {@link MrKeys#MAP_BUFFER_PAIRS} pairs, which is sorted and emitted key by key when full and at the end
 * ({@link Counters}: what was buffered and what was emitted, which the job checks), so the shuffle carries about a
 * record per key and block, not one per non-zero. The same join counters prove that every row met exactly one
 * assignment: a row of the block missing from its file, a duplicate, an assignment left over or a part outside
 * [0, k) is counted and fails the step.
 */
public class AlignedRowKeysMapper extends Mapper<AvroKey<GraphRow>, NullWritable, LongWritable, JoinValue> {

  /** Counters of the in-mapper combining. */
  public enum Counters {
    /** (row, key) pairs emitted in sorted flushes of the buffer (must equal ROW_KEY_PAIRS). */
    FLUSHED_PAIRS,
    /** Flushes of the buffer. */
    FLUSHES
  }

  private final LongWritable outKey = new LongWritable();
  private final JoinValue outValue = new JoinValue();
  private final PartStats stats = new PartStats();
  private final DistinctKeys distinct = new DistinctKeys();
  private Long2IntOpenHashMap partOf;
  private RowLoads loads;
  private KeyPairBuffer buffer;
  private PartUnion union;
  private int limit;
  private int k;
  private long seed;

  @Override
  protected void setup(Context context) throws IOException {
    k = MrKeys.k(context.getConfiguration());
    seed = MrKeys.seed(context.getConfiguration());
    limit = Math.max(1, context.getConfiguration().getInt(MrKeys.MAP_BUFFER_PAIRS, MrKeys.MAP_BUFFER_PAIRS_DEFAULT));
    loads = new RowLoads(stats, k);
    buffer = new KeyPairBuffer(Math.min(limit, 1 << 16));
    union = new PartUnion(k);
    partOf = AlignedJoin.loadAssignments(context, k);
  }

  @Override
  protected void map(AvroKey<GraphRow> key, NullWritable value, Context context)
      throws IOException, InterruptedException {
    GraphRow row = key.datum();
    int placed = AlignedJoin.join(context, partOf, row);
    if (placed < 0) {
      return;
    }
    int random = Mix.randomRowPart(seed, row.getId(), k);
    loads.add(placed, random, row.getKeys().size(), row.getWeight());
    distinct.of(row.getKeys());
    long pair = ((long) placed << 32) | random;
    for (int i = 0; i < distinct.size(); i++) {
      buffer.add(distinct.get(i), pair);
      if (buffer.size() >= limit) {
        flush(context);
      }
    }
    context.getCounter(RowKeysReducer.Counters.ROW_KEY_PAIRS).increment(distinct.size());
  }

  /** Emits the buffer's pairs as one USAGE value per key, in key order, and empties it. */
  private void flush(Context context) throws IOException, InterruptedException {
    int n = buffer.size();
    if (n == 0) {
      return;
    }
    buffer.sort();
    for (int i = 0; i < n; ) {
      int end = buffer.runEnd(i);
      union.reset();
      for (int t = i; t < end; t++) {
        long pair = buffer.value(t);
        union.addPlaced((int) (pair >>> 32));
        union.addRandom((int) pair);
      }
      union.finish();
      outKey.set(buffer.key(i));
      context.write(outKey, union.writeTo(outValue));
      i = end;
    }
    buffer.clear();
    context.getCounter(Counters.FLUSHED_PAIRS).increment(n);
    context.getCounter(Counters.FLUSHES).increment(1);
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    flush(context);
    AlignedJoin.finish(context, partOf);
    loads.finish();
    stats.write(context);
  }
}
