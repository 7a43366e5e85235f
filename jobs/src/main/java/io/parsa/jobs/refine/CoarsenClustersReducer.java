package io.parsa.jobs.refine;

import io.parsa.engine.MultilevelPartitioner;
import io.parsa.jobs.common.TaskJvm;
import io.parsa.jobs.mr.MrKeys;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.output.MultipleOutputs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Distributed multilevel start, a further clustering level, used where the clusters of the level below would not fit
 * the one task that places them: the clusters of {@link #FAN} consecutive groups of that level, as weighted vertices
 * ({@link ClusterGraph}), clustered again as the first level clusters rows ({@link MultilevelPartitioner#clustersWeighted})
 * to about 1/{@link CoarsenReducer#SHRINK} of them, none above {@link CoarsenReducer#MAX_WEIGHT} rows. Output as the
 * first level's: every new cluster ({@link ClusterRow}: its id, group · 2^32 + number, its rows, the union of its
 * members' listed keys and the sum of their unlisted ones) under key 0, and the named output
 * {@link CoarsenReducer#MEMBERS} (new cluster → member cluster). A group too big for the task's heap is counted as
 * GROUPS_TOO_BIG and gives nothing: the driver then gives the level up.
 */
public class CoarsenClustersReducer extends Reducer<IntWritable, ClusterRow, IntWritable, ClusterRow> {

  private static final Logger LOG = LoggerFactory.getLogger(CoarsenClustersReducer.class);

  /** Groups of the level below that form one group of this level. */
  public static final String FAN = "parsa.refine.multilevel.fan";
  /**
   * {@link GroupOfClusterMapper} (boolean): clusters made per part (their id's high half the part) go to their part's
   * group of {@link GroupReducer#GROUPS} (a coarse group cycle's placement), not by {@link #FAN}.
   */
  public static final String GROUP_BY_PART = "parsa.refine.multilevel.group-by-part";

  /** Map side: every cluster to its group of this level (its own group / {@link #FAN}). */
  public static class GroupOfClusterMapper extends Mapper<IntWritable, ClusterRow, IntWritable, ClusterRow> {
    private final IntWritable group = new IntWritable();
    private int fan;

    private int chunks;

    private int[] groupOfPart;

    @Override
    protected void setup(Context context) {
      fan = Math.max(1, context.getConfiguration().getInt(FAN, 2));
      chunks = Math.max(1, context.getConfiguration().getInt(GroupMapper.CHUNKS, 1));
      if (context.getConfiguration().getBoolean(GROUP_BY_PART, false)) {
        groupOfPart = GroupReducer.groups(context.getConfiguration(), MrKeys.k(context.getConfiguration()));
      }
    }

    @Override
    protected void map(IntWritable zero, ClusterRow c, Context context) throws IOException, InterruptedException {
      if (groupOfPart != null) {
        group.set(groupOfPart[(int) (c.cluster() >>> 32)]); // clusters made per part: the part's group
        context.write(group, c);
        return;
      }
      long unit = c.cluster() >>> 32; // the group that made the cluster, or with chunks its group's chunk
      if (chunks > 1) {
        unit = unit * chunks + ((c.cluster() >>> CoarsenReducer.CHUNK_SHIFT) & (CoarsenReducer.MAX_CHUNKS - 1));
      }
      group.set((int) (unit / fan));
      context.write(group, c);
    }
  }

  private final IntWritable zero = new IntWritable(0);
  private final ClusterRow out = new ClusterRow();
  private final LongWritable clusterKey = new LongWritable();
  private final LongWritable memberKey = new LongWritable();
  private MultipleOutputs<IntWritable, ClusterRow> outputs;
  private CoarsenReducer.Clustering clustering;
  private int k;

  @Override
  protected void setup(Context context) {
    Configuration conf = context.getConfiguration();
    k = MrKeys.k(conf);
    clustering = CoarsenReducer.Clustering.of(conf);
    outputs = new MultipleOutputs<>(context);
  }

  @Override
  protected void reduce(IntWritable group, Iterable<ClusterRow> values, Context context)
      throws IOException, InterruptedException {
    long heap = TaskJvm.configuredHeap();
    ClusterGraph g = ClusterGraph.read(values, k, heap, context);
    if (!g.placeable()) {
      // the driver sizes the groups from the level below, so this is a safety net: the level is given up (counted)
      LOG.warn("group {}: its clusters need more than the task's heap of {} MiB: this level is given up", group.get(),
          heap >> 20);
      context.getCounter(MrRefinement.Counters.GROUPS_TOO_BIG).increment(1);
      return;
    }
    int n = g.size();
    context.getCounter(MrRefinement.Counters.CLUSTERS_COARSENED).increment(n);
    MultilevelPartitioner.Settings s = MultilevelPartitioner.Settings.defaults();
    int[] clusterOf = new MultilevelPartitioner(2, s.withSeed(clustering.seed() + 31L * group.get() + 7),
        line -> LOG.debug("group {}: {}", group.get(), line))
        .clustersWeighted(g.weight, g.vStart, g.vNets, g.numNets, g.internal, Math.max(1, n / clustering.shrink()),
            clustering.maxWeight());
    int clusters = 0;
    for (int c : clusterOf) {
      clusters = Math.max(clusters, c + 1);
    }
    int[] start = new int[clusters + 1];
    int[] members = MultilevelPartitioner.groupBy(n, clusterOf, start);
    long[] buf = new long[16];
    int[] size = new int[1];
    long pins = 0;
    it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap holders = new it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap();
    for (int c = 0; c < clusters; c++) {
      int weight = 0;
      int unlisted = 0;
      for (int q = start[c]; q < start[c + 1]; q++) {
        weight += g.weight[members[q]];
        unlisted += g.unlisted[members[q]];
      }
      buf = g.union(members, start[c], start[c + 1], buf, size);
      long id = ((long) group.get() << 32) | c;
      context.write(zero, out.set(id, weight, buf, size[0], unlisted));
      pins += size[0];
      for (int i = 0; i < size[0]; i++) {
        holders.addTo(buf[i], 1);
      }
      clusterKey.set(id);
      for (int q = start[c]; q < start[c + 1]; q++) {
        memberKey.set(g.ids[members[q]]);
        outputs.write(CoarsenReducer.MEMBERS, clusterKey, memberKey);
      }
      context.progress();
    }
    context.getCounter(MrRefinement.Counters.CLUSTERS).increment(clusters);
    context.getCounter(MrRefinement.Counters.CLUSTER_PINS).increment(pins);
    context.getCounter(MrRefinement.Counters.GROUP_PRIVATE_PINS)
        .increment(CoarsenReducer.privateKeys(holders.values().iterator()));
    LOG.info("group {}: {} clusters, {} keys -> {} clusters, {} keys", group.get(), n, g.pins(), clusters, pins);
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    outputs.close();
  }
}
