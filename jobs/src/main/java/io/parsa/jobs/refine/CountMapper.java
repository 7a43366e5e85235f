package io.parsa.jobs.refine;

import io.parsa.avro.GraphRow;
import io.parsa.jobs.mr.AlignedJoin;
import io.parsa.jobs.mr.DistinctKeys;
import io.parsa.jobs.mr.KeyPairBuffer;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.PartStats;
import io.parsa.yarn.io.BlockFiles;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.io.IOException;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;

/**
 * Count job, map side (one task per block, joined with the block's assignment file without a shuffle, as
 * {@link AlignedJoin}): the block's rows per part for each of its keys, one {@link KeyCounts} per (block, key)
 * emitted in cleanup, so the shuffle carries the block's distinct keys, not its non-zeros. Part stats: rows per part.
 * Memory: the block's distinct (key, part) pairs.
 */
public class CountMapper extends Mapper<AvroKey<GraphRow>, NullWritable, LongWritable, KeyCounts> {

  /** Part stats: rows per part. */
  public static final String ROWS = "rows";
  /** Part stats: the least and the largest row id of the task (absent where it read no row). */
  public static final String ID_RANGE = "idRange";

  private final PartStats stats = new PartStats();
  private final KeyPairBuffer pairs = new KeyPairBuffer(1 << 16);
  private Long2IntOpenHashMap partOf;
  private long[] rows;
  private final DistinctKeys distinct = new DistinctKeys();
  private int k;
  private int block;
  private long minId = Long.MAX_VALUE;
  private long maxId = Long.MIN_VALUE;

  @Override
  protected void setup(Context context) throws IOException {
    k = MrKeys.k(context.getConfiguration());
    rows = stats.array(ROWS, k);
    partOf = AlignedJoin.loadAssignments(context, k);
    Path file = ((FileSplit) context.getInputSplit()).getPath();
    block = BlockFiles.indexOf(file.getFileSystem(context.getConfiguration()), file);
  }

  @Override
  protected void map(AvroKey<GraphRow> key, NullWritable value, Context context) {
    GraphRow row = key.datum();
    int part = AlignedJoin.join(context, partOf, row);
    if (part < 0) {
      return;
    }
    if (row.getWeight() != null) {
      context.getCounter(MrRefinement.Counters.WEIGHTED_ROWS).increment(1);
    }
    rows[part]++;
    minId = Math.min(minId, row.getId());
    maxId = Math.max(maxId, row.getId());
    distinct.of(row.getKeys());
    for (int i = 0; i < distinct.size(); i++) {
      pairs.add(distinct.get(i), part);
    }
    context.getCounter(MrRefinement.Counters.ROW_KEY_PAIRS).increment(distinct.size());
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    AlignedJoin.finish(context, partOf);
    pairs.sort(); // by key, then part
    int m = pairs.size();
    LongWritable outKey = new LongWritable();
    KeyCounts out = new KeyCounts();
    int i = 0;
    while (i < m) {
      long key = pairs.key(i);
      int end = pairs.runEnd(i);
      out.reset(key, block);
      while (i < end) {
        int p = (int) pairs.value(i);
        int c = 0;
        while (i < end && pairs.value(i) == p) {
          c++;
          i++;
        }
        out.add(p, c);
      }
      outKey.set(key);
      context.write(outKey, out);
    }
    if (minId <= maxId) {
      long[] range = stats.array(ID_RANGE, 2);
      range[0] = minId;
      range[1] = maxId;
    }
    stats.write(context);
  }
}
