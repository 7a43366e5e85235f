package io.parsa.jobs.refine;

import io.parsa.engine.MultilevelPartitioner;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.PartStats;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.mapreduce.Reducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Distributed multilevel start, placement job, its one reducer: all clusters of the clustering job
 * ({@link ClusterRow}), placed into k parts by the multilevel partitioner as weighted vertices
 * ({@link MultilevelPartitioner#partitionWeighted}: coarsened further across the groups, placed by the best of its
 * initial tries, refined level by level on the way back). Output: every cluster's part. Keys held by one cluster
 * alone are no net (they can never be cut) and count in its working set. If the clusters would not fit the task's heap
 * it writes nothing and counts COARSE_GRAPH_TOO_BIG (the caller keeps its start). Part stats: rows and working set
 * per part as placed.
 */
public class PlaceReducer extends Reducer<IntWritable, ClusterRow, LongWritable, IntWritable> {

  private static final Logger LOG = LoggerFactory.getLogger(PlaceReducer.class);

  /** Part stats: rows per part as placed (the clusters' weights). */
  public static final String PLACED_ROWS = "placedRows";
  /** Part stats: working set per part as placed (exact: every row goes with its cluster). */
  public static final String PLACED_WORKING_SET = "placedWorkingSet";

  private final PartStats stats = new PartStats();

  @Override
  protected void reduce(IntWritable zero, Iterable<ClusterRow> values, Context context)
      throws IOException, InterruptedException {
    Configuration conf = context.getConfiguration();
    int k = MrKeys.k(conf);
    ClusterGraph g = ClusterGraph.read(values, k, Runtime.getRuntime().maxMemory(), context);
    if (g == null) {
      LOG.warn("the clusters need more than the task's heap of {} MiB: no placement",
          Runtime.getRuntime().maxMemory() >> 20);
      context.getCounter(MrRefinement.Counters.COARSE_GRAPH_TOO_BIG).increment(1);
      return;
    }
    g.dropKeys();
    int n = g.size();
    MultilevelPartitioner.Settings s = MultilevelPartitioner.Settings.defaults();
    MultilevelPartitioner.Weighted placement = new MultilevelPartitioner(k,
        s.withSeed(conf.getLong(CoarsenReducer.SEED, 1)), line -> LOG.info("placement: {}", line))
        .partitionWeighted(g.weight, g.vStart, g.vNets, g.numNets, g.internal);
    int[] part = placement.part();
    long[] placed = stats.array(PLACED_ROWS, k);
    // every row goes with its cluster, so a part's working set is its clusters' own keys and the nets it holds: the
    // engine's own count
    System.arraycopy(placement.workingSets(), 0, stats.array(PLACED_WORKING_SET, k), 0, k);
    LongWritable id = new LongWritable();
    IntWritable p = new IntWritable();
    for (int v = 0; v < n; v++) {
      placed[part[v]] += g.weight[v];
      id.set(g.ids[v]);
      p.set(part[v]);
      context.write(id, p);
    }
    context.getCounter(MrRefinement.Counters.CLUSTERS_PLACED).increment(n);
    LOG.info("placed {} clusters ({} nets) into {} parts: rows per part {}", n, g.numNets, k,
        java.util.Arrays.toString(placed));
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    stats.write(context);
  }
}
