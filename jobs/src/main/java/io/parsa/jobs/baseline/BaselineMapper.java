package io.parsa.jobs.baseline;

import io.parsa.avro.GraphRow;
import io.parsa.avro.UAssignment;
import io.parsa.jobs.mr.Mix;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.PartStats;
import io.parsa.yarn.io.AssignmentFiles;
import io.parsa.yarn.io.BlockFiles;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.io.IOException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Mapper;

/**
 * Assigns each row of one whole block file to a part by the baseline rule and writes the block's UAssignments
 * into one file {@code AssignmentFiles.fileFor(output, b)} (b = the block's position in name order, as
 * partition-u numbers blocks); tallies rows per part.
 */
public class BaselineMapper extends Mapper<AvroKey<GraphRow>, NullWritable, AvroKey<UAssignment>, NullWritable> {

  /** PartStats name of the rows per part. */
  public static final String ROWS = "rows";

  private final PartStats stats = new PartStats();
  private long[] rows;
  private final LongArrayList ids = new LongArrayList();
  private final IntArrayList parts = new IntArrayList();
  private int blockIndex;
  private int k;
  private long seed;
  private boolean hash;

  @Override
  protected void setup(Context context) throws IOException {
    k = MrKeys.k(context.getConfiguration());
    seed = MrKeys.seed(context.getConfiguration());
    hash = "hash".equals(context.getConfiguration().get(BaselineAssignTool.ALGORITHM, "random"));
    rows = stats.array(ROWS, k);
    Path block = ((FileSplit) context.getInputSplit()).getPath();
    blockIndex = BlockFiles.indexOf(block.getFileSystem(context.getConfiguration()), block);
  }

  /** The baseline part of row {@code id}. */
  public static int part(boolean hash, long seed, long id, int k) {
    return hash ? (int) Math.floorMod(id, (long) k) : Mix.randomRowPart(seed, id, k);
  }

  @Override
  protected void map(AvroKey<GraphRow> key, NullWritable value, Context context)
      throws IOException, InterruptedException {
    long id = key.datum().getId();
    int p = part(hash, seed, id, k);
    context.getCounter(BaselineAssignTool.Counters.ROWS_IN).increment(1);
    ids.add(id);
    parts.add(p);
    rows[p]++;
    context.getCounter(BaselineAssignTool.Counters.ROWS_OUT).increment(1);
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    // one assignment file per block, named like partition-u's (AssignmentFiles.fileFor), so that block b and its
    // assignment file pair up by index; the committer moves it from the task's work directory into the output
    Path work = FileOutputFormat.getWorkOutputPath(context);
    AssignmentFiles.write(work.getFileSystem(context.getConfiguration()), work, blockIndex,
        context.getTaskAttemptID().getTaskID().getId(), ids.toLongArray(), parts.toIntArray());
    stats.write(context);
  }
}
