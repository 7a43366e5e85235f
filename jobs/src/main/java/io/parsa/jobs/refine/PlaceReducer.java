package io.parsa.jobs.refine;

import io.parsa.engine.MultilevelPartitioner;
import io.parsa.jobs.common.TaskJvm;
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
 * Distributed multilevel start, placement job: all clusters of the clustering job ({@link ClusterRow}) in one
 * reducer, or where they are too many for one task those of a few first-level groups in a reducer of their own
 * ({@link #IN_GROUPS}), placed into k parts (in groups: the groups' own parts) by the multilevel partitioner as
 * weighted vertices ({@link MultilevelPartitioner#partitionWeighted}: coarsened further across the groups, placed by
 * the best of its initial tries, refined level by level on the way back). Output: every cluster's part. Keys held by
 * one cluster alone are no net (they can never be cut) and count in its working set, with the keys it does not list
 * ({@link ClusterRow#unlisted}). If the clusters would not fit the task's heap ({@link ClusterGraph#heapNeeded}) it
 * writes nothing and counts COARSE_GRAPH_TOO_BIG (the caller keeps its start); in a V-cycle ({@link #GIVEN}) such a
 * group keeps its parts instead, counted in PLACE_GROUPS_KEPT, and the others are refined. Part stats: rows and working
 * set per part as placed (none for a group kept).
 */
public class PlaceReducer extends Reducer<IntWritable, ClusterRow, LongWritable, IntWritable> {

  private static final Logger LOG = LoggerFactory.getLogger(PlaceReducer.class);

  /** Part stats: rows per part as placed (the clusters' weights). */
  public static final String PLACED_ROWS = "placedRows";
  /**
   * Part stats: working set per part as placed (exact, since every row goes with its cluster, unless placed from a key
   * sample, {@link SharedKeys#SAMPLE}, where they are estimates from it).
   */
  public static final String PLACED_WORKING_SET = "placedWorkingSet";

  /**
   * Place in groups (boolean): each reduce call places the clusters of {@link CoarsenClustersReducer#FAN} consecutive
   * first-level groups (its key: a group / the fan) into those groups' own parts ({@link GroupReducer#GROUPS}), for
   * clusters too many for one task.
   */
  public static final String IN_GROUPS = "parsa.refine.multilevel.place.groups";

  /**
   * Bring every part's weight within this share of the mean, both ways, as far as the clusters' weights allow (default
   * 0: only the placement's own cap from above): where the rows are then balanced one by one ({@link
   * MrRefinement#FLOW_CLUSTER_SHARE}).
   */
  public static final String WINDOW = "parsa.refine.multilevel.place.window";
  /**
   * A coarse V-cycle (boolean, default false): every cluster's id holds its part in its high half (clusters made per
   * part, {@link MrRefinement#COARSE_VCYCLES}), and the placement refines those parts instead of placing afresh; in
   * groups ({@link MrRefinement#COARSE_GROUP_CYCLES}) each task refines its group's parts among themselves.
   */
  public static final String GIVEN = "parsa.refine.multilevel.place.given";
  /**
   * Whether the placement coarsens the clusters within their communities ({@link
   * io.parsa.engine.Communities}, a listed key weighing the keys it stands for; boolean, default false; the driver sets
   * it in the flows regime on graphs, as {@link CoarsenReducer#COMMUNITY_FRAGMENTS}). Counted in PLACED_IN_COMMUNITIES.
   */
  public static final String COMMUNITIES = "parsa.refine.multilevel.place.communities";
  /**
   * The heap a placing task decides by ({@link ClusterGraph#heapNeeded}; default 0: its JVM's). For reduce tasks that
   * share a JVM, as in the local runner, and for tests.
   */
  public static final String HEAP_BYTES = "parsa.refine.multilevel.place.heap-bytes";
  /** Part stats: the heaviest cluster placed (rows), entry 0. */
  public static final String HEAVIEST = "placedHeaviest";

  private final PartStats stats = new PartStats();

  @Override
  protected void reduce(IntWritable key, Iterable<ClusterRow> values, Context context)
      throws IOException, InterruptedException {
    Configuration conf = context.getConfiguration();
    int k = MrKeys.k(conf);
    // all parts (one reduce call for all clusters), or in groups: the first-level group's own parts
    int[] parts = java.util.stream.IntStream.range(0, k).toArray();
    if (conf.getBoolean(IN_GROUPS, false)) {
      // the parts of the first-level groups this placement group joins ({@link CoarsenClustersReducer#FAN} of them)
      int[] groupOf = GroupReducer.groups(conf, k);
      int fan = Math.max(1, conf.getInt(CoarsenClustersReducer.FAN, 1));
      parts = java.util.stream.IntStream.range(0, k).filter(q -> groupOf[q] >= 0 && groupOf[q] / fan == key.get())
          .toArray();
    }
    long heap = TaskJvm.heap(conf, HEAP_BYTES);
    ClusterGraph g = ClusterGraph.read(values, parts.length, heap, context);
    boolean vcycle = conf.getBoolean(GIVEN, false);
    if (!g.placeable() && !vcycle) {
      LOG.warn("the clusters of {} need more than the task's heap of {} bytes: no placement",
          parts.length == k ? "all parts" : "group " + key.get(), String.format("%,d", heap));
      context.getCounter(MrRefinement.Counters.COARSE_GRAPH_TOO_BIG).increment(1);
      return;
    }
    g.dropKeys();
    int n = g.size();
    // a V-cycle's clusters were each made within one part, which its id's high half names
    int[] given = vcycle ? givenParts(g.ids, parts, k) : null;
    int[] local;
    long[] ws;
    if (!g.placeable()) {
      // a V-cycle's group that does not fit its task keeps its parts (the rest of the cycle goes on; the driver then
      // measures the working sets, which this task cannot count)
      LOG.warn("the clusters of group {} need more than the task's heap of {} bytes: they keep their parts {}",
          key.get(), String.format("%,d", heap), java.util.Arrays.toString(parts));
      context.getCounter(MrRefinement.Counters.PLACE_GROUPS_KEPT).increment(1);
      local = given;
      ws = null;
    } else if (parts.length == 1) {
      local = new int[n];
      ws = new long[] {java.util.Arrays.stream(g.internal).asLongStream().sum()
          + (g.netWeight == null ? g.numNets : java.util.Arrays.stream(g.netWeight).asLongStream().sum())};
    } else {
      MultilevelPartitioner.Settings s = MultilevelPartitioner.Settings.defaults();
      boolean communities = conf.getBoolean(COMMUNITIES, false);
      if (communities) {
        context.getCounter(MrRefinement.Counters.PLACED_IN_COMMUNITIES).increment(1);
      }
      MultilevelPartitioner.Weighted placement = new MultilevelPartitioner(parts.length,
          s.withSeed(conf.getLong(CoarsenReducer.SEED, 1) + key.get()), line -> LOG.info("placement: {}", line))
          .communities(communities)
          .partitionWeighted(g.weight, g.vStart, g.vNets, g.numNets, g.netWeight, g.internal, given,
              conf.getDouble(WINDOW, 0));
      local = placement.part();
      ws = placement.workingSets();
    }
    long[] placed = stats.array(PLACED_ROWS, k);
    long[] placedWs = stats.array(PLACED_WORKING_SET, k);
    long[] heaviest = stats.array(HEAVIEST, 1);
    // every row goes with its cluster, so a part's working set is its clusters' own keys and the nets it holds: the
    // engine's own count (in groups: parts of other groups hold none of this group's rows)
    // (from a key sample, in units of 1/rate keys: SharedKeys)
    double rate = conf.getDouble(SharedKeys.LIST_RATE, 1);
    for (int i = 0; ws != null && i < parts.length; i++) {
      placedWs[parts[i]] += Math.round(ws[i] / rate);
    }
    LongWritable id = new LongWritable();
    IntWritable p = new IntWritable();
    for (int v = 0; v < n; v++) {
      int part = parts[local[v]];
      placed[part] += g.weight[v];
      heaviest[0] = Math.max(heaviest[0], g.weight[v]);
      id.set(g.ids[v]);
      p.set(part);
      context.write(id, p);
    }
    context.getCounter(MrRefinement.Counters.CLUSTERS_PLACED).increment(n);
    LOG.info("placed {} clusters ({} nets) into parts {}: rows per part {}", n, g.numNets,
        java.util.Arrays.toString(parts), java.util.Arrays.toString(placed));
  }

  /**
   * Every cluster's part among {@code parts} (its index there) from its id's high half, where a V-cycle made each
   * cluster within one part.
   */
  private static int[] givenParts(long[] ids, int[] parts, int k) {
    int[] localOf = new int[k];
    java.util.Arrays.fill(localOf, -1);
    for (int i = 0; i < parts.length; i++) {
      localOf[parts[i]] = i;
    }
    int[] given = new int[ids.length];
    for (int v = 0; v < ids.length; v++) {
      long part = ids[v] >>> 32;
      if (part >= k || localOf[(int) part] < 0) {
        throw new IllegalStateException("coarse V-cycle: cluster " + ids[v] + " names part " + part + ", not one of "
            + java.util.Arrays.toString(parts));
      }
      given[v] = localOf[(int) part];
    }
    return given;
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    stats.write(context);
  }
}
