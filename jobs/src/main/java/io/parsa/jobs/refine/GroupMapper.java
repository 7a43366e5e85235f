package io.parsa.jobs.refine;

import io.parsa.avro.GraphRow;
import io.parsa.jobs.mr.AlignedJoin;
import io.parsa.jobs.mr.DistinctKeys;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.yarn.io.BlockFiles;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.io.IOException;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;

/**
 * Group V-cycle job, map side (one task per block, joined with the block's assignment file as {@link AlignedJoin}):
 * every row to the group of its part ({@link GroupReducer#GROUPS}), with its distinct keys. Rows of a part in no
 * group (k not a multiple of the group size) stay where they are and are counted as ROWS_OUTSIDE_GROUPS.
 */
public class GroupMapper extends Mapper<AvroKey<GraphRow>, NullWritable, IntWritable, GroupRow> {

  private final DistinctKeys distinct = new DistinctKeys();
  private final IntWritable outKey = new IntWritable();
  private final GroupRow out = new GroupRow();
  private Long2IntOpenHashMap partOf;
  private int[] groupOf;
  private int block;

  @Override
  protected void setup(Context context) throws IOException {
    int k = MrKeys.k(context.getConfiguration());
    groupOf = GroupReducer.groups(context.getConfiguration(), k);
    partOf = AlignedJoin.loadAssignments(context, k);
    Path file = ((FileSplit) context.getInputSplit()).getPath();
    block = BlockFiles.indexOf(file.getFileSystem(context.getConfiguration()), file);
  }

  @Override
  protected void map(AvroKey<GraphRow> key, NullWritable value, Context context)
      throws IOException, InterruptedException {
    GraphRow row = key.datum();
    int part = AlignedJoin.join(context, partOf, row);
    if (part < 0) {
      return;
    }
    int group = groupOf[part];
    if (group < 0) {
      context.getCounter(MrRefinement.Counters.ROWS_OUTSIDE_GROUPS).increment(1);
      return;
    }
    outKey.set(group);
    context.write(outKey, out.set(block, row.getId(), part, distinct.of(row.getKeys())));
  }

  @Override
  protected void cleanup(Context context) {
    AlignedJoin.finish(context, partOf);
  }
}
