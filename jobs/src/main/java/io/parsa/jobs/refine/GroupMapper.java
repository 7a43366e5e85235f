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
 * group (k not a multiple of the group size) stay where they are and are counted as ROWS_OUTSIDE_GROUPS. With
 * {@link #CHUNKS} c &gt; 1 (the multilevel start's clustering where a group's rows would not fit a task) each group is
 * split into c chunks by row id, keyed group · c + chunk ({@link #chunkOf}).
 */
public class GroupMapper extends Mapper<AvroKey<GraphRow>, NullWritable, IntWritable, GroupRow> {

  /**
   * Chunks per group in this job (default 1: a group is one reduce call); the driver sets it on the jobs that chunk,
   * from {@link MrRefinement#CHUNKS}.
   */
  static final String CHUNKS = "parsa.refine.multilevel.chunks.job";
  /** The rows' least and largest id ("min,max"), which the chunks' id ranges divide. */
  public static final String ID_RANGE = "parsa.refine.multilevel.id-range";

  private final DistinctKeys distinct = new DistinctKeys();
  private int chunks;
  private int slices;
  private long minId;
  private double span;
  private final IntWritable outKey = new IntWritable();
  private final GroupRow out = new GroupRow();
  private Long2IntOpenHashMap partOf;
  private int[] groupOf;
  private int block;

  @Override
  protected void setup(Context context) throws IOException {
    int k = MrKeys.k(context.getConfiguration());
    groupOf = GroupReducer.groups(context.getConfiguration(), k);
    chunks = Math.max(1, context.getConfiguration().getInt(CHUNKS, 1));
    if (chunks > 1) {
      String[] r = context.getConfiguration().getStrings(ID_RANGE, new String[0]);
      long[] range = java.util.Arrays.stream(r).mapToLong(x -> Long.parseLong(x.trim())).toArray();
      if (range.length != 2 || range[1] < range[0]) {
        throw new IllegalStateException(ID_RANGE + " must be min,max with " + CHUNKS + " = " + chunks);
      }
      minId = range[0];
      span = (double) range[1] - (double) range[0] + 1; // in doubles: ids may span more than a long
      slices = chunks * (java.util.Arrays.stream(groupOf).max().orElse(0) + 1);
    }
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
    outKey.set(chunks == 1 ? group : group * chunks + chunkOf(row.getId(), minId, span, slices, chunks));
    context.write(outKey, out.set(block, row.getId(), part, distinct.of(row.getKeys()))
        .weight(row.getWeight() == null ? 1 : row.getWeight()));
  }

  /**
   * The chunk of row {@code id}: the id range [min, min + span) cut into {@code slices} (chunks × groups) equal slices,
   * dealt to the chunks in turn. A group whose rows are an id range (an input-order start's parts) falls into about
   * {@code chunks} consecutive slices, so each chunk is a range of its ids and keeps their locality; a group spread
   * over all ids gets an equal share of every slice in each chunk.
   */
  static int chunkOf(long id, long min, double span, int slices, int chunks) {
    long slice = (long) (((double) id - (double) min) / span * slices);
    return (int) (Math.min(Math.max(slice, 0), slices - 1) % chunks);
  }

  @Override
  protected void cleanup(Context context) {
    AlignedJoin.finish(context, partOf);
  }
}
