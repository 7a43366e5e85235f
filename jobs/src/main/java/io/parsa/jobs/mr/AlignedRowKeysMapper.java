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
 * block file and, into memory, that block's assignment file (a few bytes per row of one block), and emits what
 * {@link RowKeysReducer} emits after the reduce-side join: (key, PAIR(placed part, random part)) per distinct key
 * of each row, and rows per part of both placements as part stats. The same join counters prove that every row
 * met exactly one assignment: a row of the block missing from its file, a duplicate, an assignment left over or a
 * part outside [0, k) is counted and fails the step.
 */
public class AlignedRowKeysMapper extends Mapper<AvroKey<GraphRow>, NullWritable, LongWritable, JoinValue> {

  private final LongWritable outKey = new LongWritable();
  private final JoinValue outValue = new JoinValue();
  private final PartStats stats = new PartStats();
  private Long2IntOpenHashMap partOf;
  private long[] rowsPlaced;
  private long[] rowsRandom;
  private final DistinctKeys distinct = new DistinctKeys();
  private int k;
  private long seed;

  @Override
  protected void setup(Context context) throws IOException {
    k = MrKeys.k(context.getConfiguration());
    seed = MrKeys.seed(context.getConfiguration());
    rowsPlaced = stats.array(RowKeysReducer.ROWS_PLACED, k);
    rowsRandom = stats.array(RowKeysReducer.ROWS_RANDOM, k);
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
    rowsPlaced[placed]++;
    rowsRandom[random]++;
    distinct.of(row.getKeys());
    outValue.setPair(placed, random);
    for (int i = 0; i < distinct.size(); i++) {
      outKey.set(distinct.get(i));
      context.write(outKey, outValue);
    }
    context.getCounter(RowKeysReducer.Counters.ROW_KEY_PAIRS).increment(distinct.size());
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    AlignedJoin.finish(context, partOf);
    stats.write(context);
  }
}
