package io.parsa.jobs.refine;

import io.parsa.engine.Block;
import io.parsa.engine.MultilevelPartitioner;
import io.parsa.engine.RowKeyGraph;
import io.parsa.jobs.common.TaskJvm;
import io.parsa.jobs.mr.MrKeys;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.output.MultipleOutputs;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Distributed multilevel start, clustering job, reduce side, one call per group of parts: the group's rows are
 * clustered as the multilevel partitioner coarsens a fresh partition ({@link MultilevelPartitioner#clusters}), across
 * the group's parts, until about 1/{@link #SHRINK} of them remain or a level barely shrinks, no cluster above
 * {@link #MAX_WEIGHT} rows. Output: every cluster ({@link ClusterRow}: weight and the union of its rows' keys) under
 * key 0, for the one reducer that places them all; and every row's cluster as the named output {@link #MEMBERS}
 * (cluster → {@link Move} of the row from its part, its target filled in by the projection). A group whose rows would
 * not fit the task's heap keeps every row as a cluster of its own (counted).
 */
public class CoarsenReducer extends Reducer<IntWritable, GroupRow, IntWritable, ClusterRow> {

  private static final Logger LOG = LoggerFactory.getLogger(CoarsenReducer.class);

  /** Rows per cluster a group's clustering aims at (it stops earlier where a level shrinks by under 1 %). */
  public static final String SHRINK = "parsa.refine.multilevel.shrink";
  /** The largest cluster, in rows. */
  public static final String MAX_WEIGHT = "parsa.refine.multilevel.max-weight";
  /** Seed of the clustering. */
  public static final String SEED = "parsa.refine.multilevel.seed";
  /**
   * Weighted rows: a cluster weighs the sum of its rows' weights in units of this much weight, each row at least one
   * unit (so that the placement balances the weights, and all clusters' weights sum to an int); unset or 0: a cluster
   * weighs its rows.
   */
  public static final String WEIGHT_UNIT = "parsa.refine.multilevel.weight-unit";
  /**
   * Whether the rows of unit weight cluster within their communities first where the in-memory multilevel runs do
   * (short rows, k ≤ 16: {@link RefineUTool#communities}) and one task clusters all of them (a group of every part, in
   * one chunk); default true. A group of some of the parts sees fragments of the communities (partition-u's parts
   * have no locality): on cnr-2000 in groups of 4 of 16 parts clustering within them ended at T_sum 15,806 against
   * 12,910 (docs/quality.md §71). Weighted rows cluster across them: clusters as heavy as the weight cap in rows left
   * the placement's weights outside the window the balance cycles could reach.
   */
  public static final String COMMUNITIES = "parsa.refine.multilevel.communities";
  /**
   * Whether a task that sees some of the rows (a chunk of a group, or a group of some of the parts) clusters them
   * within their communities too, as far as it sees them (default false; the driver sets it in the flows regime on
   * graphs, {@link MrRefinement}'s communityRegime: there a chunk is a range of row ids within one part, and on
   * cnr-2000 with 8 MiB reducers, with {@link PlaceReducer#COMMUNITIES}, the five-seed mean T_sum was 5 % lower,
   * docs/quality.md §78).
   */
  public static final String COMMUNITY_FRAGMENTS = "parsa.refine.multilevel.communities.fragments";
  /** Named output: every row's cluster. */
  public static final String MEMBERS = "members";
  /** Where a chunk's number starts in a cluster id's low half (so a chunk numbers fewer than 2^24 clusters). */
  static final int CHUNK_SHIFT = 24;
  /** Most chunks per group (a chunk's number fits the 8 bits above {@link #CHUNK_SHIFT}). */
  static final int MAX_CHUNKS = 1 << (32 - CHUNK_SHIFT);

  /**
   * What a clustering job ({@link CoarsenReducer}, {@link CoarsenClustersReducer}) asks of its reducers: about
   * 1/{@code shrink} of the vertices, none heavier than {@code maxWeight} rows, from {@code seed}.
   */
  record Clustering(int shrink, int maxWeight, long seed) {
    /** As the job's configuration gives it. */
    static Clustering of(Configuration conf) {
      return new Clustering(Math.max(1, conf.getInt(SHRINK, 16)), Math.max(1, conf.getInt(MAX_WEIGHT, 1)),
          conf.getLong(SEED, 1));
    }

    /** Into a job's configuration. */
    void setIn(Configuration conf) {
      conf.setInt(SHRINK, shrink);
      conf.setInt(MAX_WEIGHT, maxWeight);
      conf.setLong(SEED, seed);
    }
  }

  private final IntWritable zero = new IntWritable(0);
  private final ClusterRow out = new ClusterRow();
  private final LongWritable clusterKey = new LongWritable();
  private final Move move = new Move();
  private MultipleOutputs<IntWritable, ClusterRow> outputs;
  private int[] groupOf;
  private Clustering clustering;
  private int chunks;
  private double weightUnit;
  /** {@link #COMMUNITIES}. */
  private boolean communities;
  /** {@link #COMMUNITY_FRAGMENTS}. */
  private boolean fragments;

  @Override
  protected void setup(Context context) {
    Configuration conf = context.getConfiguration();
    groupOf = GroupReducer.groups(conf, MrKeys.k(conf));
    communities = conf.getBoolean(COMMUNITIES, true);
    fragments = conf.getBoolean(COMMUNITY_FRAGMENTS, false);
    clustering = Clustering.of(conf);
    chunks = Math.max(1, conf.getInt(GroupMapper.CHUNKS, 1));
    weightUnit = conf.getDouble(WEIGHT_UNIT, 0);
    outputs = new MultipleOutputs<>(context);
  }

  @Override
  protected void reduce(IntWritable groupKey, Iterable<GroupRow> values, Context context)
      throws IOException, InterruptedException {
    IntWritable group = new IntWritable(groupKey.get() / chunks);
    int chunk = groupKey.get() % chunks;
    int[] parts = GroupRows.partsOf(groupOf, group.get());
    GroupRows rows = GroupRows.collect(values, GroupRows.localNumbers(parts, groupOf.length), weightUnit > 0,
        context);
    int n = rows.n;
    context.getCounter(MrRefinement.Counters.GROUP_ROWS).increment(n);
    Block block = rows.block;
    int[] clusterOf;
    long need = RefineUTool.heapNeeded(n, block.numEdges(), block.numKeys(), 2);
    long heap = TaskJvm.configuredHeap();
    if (need > heap) {
      LOG.warn("group {}: {} rows, {} non-zeros need about {} MiB, more than the task's heap of {} MiB: every row a"
          + " cluster of its own", group.get(), n, block.numEdges(), need >> 20, heap >> 20);
      context.getCounter(MrRefinement.Counters.GROUPS_TOO_BIG).increment(1);
      clusterOf = new int[n];
      for (int i = 0; i < n; i++) {
        clusterOf[i] = i;
      }
    } else {
      List<Block> blocks = List.of(block);
      RowKeyGraph graph = RowKeyGraph.of(blocks);
      MultilevelPartitioner.Settings s = MultilevelPartitioner.Settings.defaults();
      boolean inCommunities = communities && weightUnit == 0
          && (fragments || (chunks == 1 && parts.length == groupOf.length))
          && RefineUTool.communities(graph, groupOf.length);
      if (inCommunities) {
        context.getCounter(MrRefinement.Counters.CLUSTERED_IN_COMMUNITIES).increment(1);
      }
      clusterOf = new MultilevelPartitioner(2, s.withSeed(clustering.seed() + 31L * groupKey.get()),
          line -> LOG.debug("group {}: {}", group.get(), line))
          .communities(inCommunities)
          .clusters(graph, (int) Math.max(1, n / clustering.shrink()), clustering.maxWeight());
    }
    int clusters = 0;
    for (int c : clusterOf) {
      clusters = Math.max(clusters, c + 1);
    }
    if (chunks > 1 && clusters >= 1 << CHUNK_SHIFT) {
      throw new IllegalStateException("group " + group.get() + ", chunk " + chunk + ": " + clusters + " clusters, more"
          + " than a chunk's ids hold (" + (1 << CHUNK_SHIFT) + "); use more chunks (" + MrRefinement.CHUNKS + ")");
    }
    // members of every cluster, then each cluster's distinct keys
    int[] start = new int[clusters + 1];
    int[] members = MultilevelPartitioner.groupBy(n, clusterOf, start);
    int[] rs = block.localRowStart();
    int[] ks = block.localKeys();
    long[] global = block.keys();
    int[] lastSeen = new int[block.numKeys()];
    Arrays.fill(lastSeen, -1);
    int[] holders = new int[block.numKeys()]; // clusters of the group holding the key
    long[] buf = new long[16];
    long pins = 0;
    for (int c = 0; c < clusters; c++) {
      int size = 0;
      for (int q = start[c]; q < start[c + 1]; q++) {
        int r = members[q];
        for (int t = rs[r]; t < rs[r + 1]; t++) {
          if (lastSeen[ks[t]] != c) {
            lastSeen[ks[t]] = c;
            holders[ks[t]]++;
            if (size == buf.length) {
              buf = Arrays.copyOf(buf, 2 * size);
            }
            buf[size++] = global[ks[t]];
          }
        }
      }
      Arrays.sort(buf, 0, size);
      long id = ((long) group.get() << 32) | ((long) chunk << CHUNK_SHIFT) | c; // the group stays in the high half
      context.write(zero, out.set(id, weight(block, members, start[c], start[c + 1]), buf, size));
      pins += size;
      clusterKey.set(id);
      for (int q = start[c]; q < start[c + 1]; q++) {
        int r = members[q];
        outputs.write(MEMBERS, clusterKey, move.set(rows.ids[r], rows.blockOf[r], parts[rows.part[r]], -1));
      }
      context.progress();
    }
    context.getCounter(MrRefinement.Counters.CLUSTERS).increment(clusters);
    context.getCounter(MrRefinement.Counters.CLUSTER_PINS).increment(pins);
    context.getCounter(MrRefinement.Counters.GROUP_PRIVATE_PINS)
        .increment(privateKeys(it.unimi.dsi.fastutil.ints.IntIterators.wrap(holders)));
    LOG.info("group {}{} (parts {}): {} rows, {} non-zeros -> {} clusters, {} pins", group.get(),
        chunks > 1 ? ", chunk " + chunk : "", Arrays.toString(parts), n, block.numEdges(), clusters, pins);
  }

  /**
   * A cluster's weight: its rows, or with {@link #WEIGHT_UNIT} the sum of their weights in units, each row at least
   * one (at most an int).
   */
  private int weight(Block block, int[] members, int from, int to) {
    if (weightUnit <= 0) {
      return to - from;
    }
    long w = 0;
    for (int q = from; q < to; q++) {
      w += Math.max(1, Math.round(block.weight(members[q]) / weightUnit));
    }
    return (int) Math.min(Integer.MAX_VALUE, w);
  }

  /** Keys that one cluster of the group alone holds, from every key's count of holders (both clustering jobs). */
  static long privateKeys(it.unimi.dsi.fastutil.ints.IntIterator holders) {
    long p = 0;
    while (holders.hasNext()) {
      if (holders.nextInt() == 1) {
        p++;
      }
    }
    return p;
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    outputs.close();
  }
}
