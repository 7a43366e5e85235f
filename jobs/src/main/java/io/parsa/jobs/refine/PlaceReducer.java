package io.parsa.jobs.refine;

import io.parsa.engine.MultilevelPartitioner;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.PartStats;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.ints.IntArrays;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongArrayList;
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
    LongArrayList ids = new LongArrayList();
    IntArrayList weights = new IntArrayList();
    IntArrayList start = new IntArrayList();
    LongArrayList keys = new LongArrayList();
    start.add(0);
    for (ClusterRow c : values) {
      ids.add(c.cluster());
      weights.add(c.weight());
      for (int i = 0; i < c.size(); i++) {
        keys.add(c.key(i));
      }
      start.add(keys.size());
      context.progress();
    }
    int n = ids.size();
    long need = RefineUTool.heapNeeded(n, keys.size(), Math.min(keys.size(), (long) n * 64), k)
        + 12L * keys.size(); // this reducer's own copy of the clusters
    if (need > Runtime.getRuntime().maxMemory()) {
      LOG.warn("{} clusters with {} pins need about {} MiB, more than the task's heap of {} MiB: no placement", n,
          keys.size(), need >> 20, Runtime.getRuntime().maxMemory() >> 20);
      context.getCounter(MrRefinement.Counters.COARSE_GRAPH_TOO_BIG).increment(1);
      return;
    }
    // clusters in id order, so the placement does not depend on the order the shuffle delivered them in
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    IntArrays.quickSort(order, (a, b) -> Long.compare(ids.getLong(a), ids.getLong(b)));
    // keys by the clusters that hold them: one holder = internal, two or more = a net
    Long2IntOpenHashMap holders = new Long2IntOpenHashMap();
    for (int i = 0; i < keys.size(); i++) {
      holders.addTo(keys.getLong(i), 1);
    }
    Long2IntOpenHashMap netOf = new Long2IntOpenHashMap();
    netOf.defaultReturnValue(-1);
    int[] weight = new int[n];
    int[] internal = new int[n];
    int[] vStart = new int[n + 1];
    IntArrayList nets = new IntArrayList();
    for (int v = 0; v < n; v++) {
      int c = order[v];
      weight[v] = weights.getInt(c);
      for (int i = start.getInt(c); i < start.getInt(c + 1); i++) {
        long key = keys.getLong(i);
        if (holders.get(key) < 2) {
          internal[v]++;
          continue;
        }
        int e = netOf.get(key);
        if (e < 0) {
          e = netOf.size();
          netOf.put(key, e);
        }
        nets.add(e);
      }
      vStart[v + 1] = nets.size();
    }
    holders = null;
    keys.clear();
    keys.trim();
    MultilevelPartitioner.Settings s = MultilevelPartitioner.Settings.defaults();
    MultilevelPartitioner.Weighted placement = new MultilevelPartitioner(k,
        s.withSeed(conf.getLong(CoarsenReducer.SEED, 1)), line -> LOG.info("placement: {}", line))
        .partitionWeighted(weight, vStart, nets.toIntArray(), netOf.size(), internal);
    int[] part = placement.part();
    long[] placed = stats.array(PLACED_ROWS, k);
    // every row goes with its cluster, so a part's working set is its clusters' own keys and the nets it holds: the
    // engine's own count
    System.arraycopy(placement.workingSets(), 0, stats.array(PLACED_WORKING_SET, k), 0, k);
    LongWritable id = new LongWritable();
    IntWritable p = new IntWritable();
    for (int v = 0; v < n; v++) {
      placed[part[v]] += weight[v];
      id.set(ids.getLong(order[v]));
      p.set(part[v]);
      context.write(id, p);
    }
    context.getCounter(MrRefinement.Counters.CLUSTERS_PLACED).increment(n);
    LOG.info("placed {} clusters ({} nets) into {} parts: rows per part {}", n, netOf.size(), k,
        java.util.Arrays.toString(placed));
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    stats.write(context);
  }
}
