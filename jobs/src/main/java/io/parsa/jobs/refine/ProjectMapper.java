package io.parsa.jobs.refine;

import io.parsa.jobs.mr.BufferedSequenceFileInputFormat;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.SequenceFile;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.TaskInputOutputContext;

/**
 * Distributed multilevel start, projection job, map side: every row's cluster ({@link CoarsenReducer#MEMBERS}) joined
 * with the clusters' parts ({@link PlaceReducer}, read whole in every task: one entry per cluster) into the move of the
 * row from its start part to its cluster's part, keyed by block for the apply reducer of the same job
 * ({@link ApplyReducer}); rows already there are not moved. A row whose cluster has no part is counted as
 * CLUSTER_WITHOUT_PART (an error).
 */
public class ProjectMapper extends Mapper<LongWritable, Move, IntWritable, Move> {

  /** Directory of the placement job's output. */
  public static final String PLACEMENT = "parsa.refine.multilevel.placement";

  private Long2IntOpenHashMap partOf;
  private final IntWritable blockKey = new IntWritable();
  private final Move out = new Move();

  @Override
  protected void setup(Context context) throws IOException {
    partOf = readPlacement(context.getConfiguration());
  }

  /** The placement job's output ({@link #PLACEMENT}) whole: cluster → part, −1 for a cluster it does not hold. */
  static Long2IntOpenHashMap readPlacement(Configuration conf) throws IOException {
    Path dir = new Path(conf.get(PLACEMENT));
    FileSystem fs = dir.getFileSystem(conf);
    Long2IntOpenHashMap partOf = new Long2IntOpenHashMap();
    partOf.defaultReturnValue(-1);
    LongWritable cluster = new LongWritable();
    IntWritable part = new IntWritable();
    for (FileStatus f : fs.listStatus(dir, p -> p.getName().startsWith("part-"))) {
      try (SequenceFile.Reader r = BufferedSequenceFileInputFormat.open(f.getPath(), conf)) {
        while (r.next(cluster, part)) {
          partOf.put(cluster.get(), part.get());
        }
      }
    }
    return partOf;
  }

  @Override
  protected void map(LongWritable cluster, Move row, Context context) throws IOException, InterruptedException {
    project(row, partOf.get(cluster.get()), context, blockKey, out);
  }

  /**
   * The row's move to its cluster's {@code part} (−1: none, an error), keyed by block, unless it is there already
   * (both joins).
   */
  static void project(Move row, int part, TaskInputOutputContext<?, ?, IntWritable, Move> context,
      IntWritable blockKey, Move out) throws IOException, InterruptedException {
    context.getCounter(MrRefinement.Counters.ROWS_PROJECTED).increment(1);
    if (part < 0) {
      context.getCounter(MrRefinement.Counters.CLUSTER_WITHOUT_PART).increment(1);
    } else if (part != row.from()) {
      blockKey.set(row.block());
      context.write(blockKey, out.set(row.row(), row.block(), row.from(), part));
      context.getCounter(MrRefinement.Counters.PROJECTED_MOVES).increment(1);
    }
  }
}
