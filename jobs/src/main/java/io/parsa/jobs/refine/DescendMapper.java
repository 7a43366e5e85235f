package io.parsa.jobs.refine;

import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.io.IOException;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.TaskInputOutputContext;

/**
 * Distributed multilevel start, one level down (a map-only job per further clustering level): every member cluster
 * of a level's cluster ({@link CoarsenClustersReducer}'s {@link CoarsenReducer#MEMBERS}) gets its cluster's part
 * from that level's placement ({@link ProjectMapper#PLACEMENT}, read whole: one entry per cluster of the level, a
 * fraction of the level below). The output is the placement of the level below, in the placement job's format. A
 * member whose cluster has no part is counted as CLUSTER_WITHOUT_PART (an error).
 */
public class DescendMapper extends Mapper<LongWritable, LongWritable, LongWritable, IntWritable> {

  private final IntWritable part = new IntWritable();
  private final LongWritable id = new LongWritable();
  private Long2IntOpenHashMap partOf;

  @Override
  protected void setup(Context context) throws IOException {
    partOf = ProjectMapper.readPlacement(context.getConfiguration());
  }

  @Override
  protected void map(LongWritable cluster, LongWritable member, Context context)
      throws IOException, InterruptedException {
    descend(member.get(), partOf.get(cluster.get()), context, id, part);
  }

  /**
   * The member cluster with its cluster's part {@code p} (−1: none, an error), in the placement's format (both
   * joins).
   */
  static void descend(long member, int p, TaskInputOutputContext<?, ?, LongWritable, IntWritable> context,
      LongWritable id, IntWritable part) throws IOException, InterruptedException {
    if (p < 0) {
      context.getCounter(MrRefinement.Counters.CLUSTER_WITHOUT_PART).increment(1);
      return;
    }
    context.getCounter(MrRefinement.Counters.CLUSTERS_DESCENDED).increment(1);
    id.set(member);
    part.set(p);
    context.write(id, part);
  }
}
