package io.parsa.jobs.refine;

import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * Distributed multilevel start: the clusters of a level with only their shared keys listed, for clusters that would
 * not fit the task that places them. A key that one cluster alone holds can never be cut, so the placement needs only
 * its count ({@link ClusterRow#unlisted}); on graphs with locality most keys are such. Two jobs:
 * <ol>
 *   <li><b>holders</b> ({@link HolderMapper}, {@link HolderReducer}): every (key, cluster) pair shuffled by key; a key
 *       held by two or more clusters goes back to each of them as a piece ({@link ClusterRow} of weight 0 with the one
 *       key and −1 unlisted);</li>
 *   <li><b>merge</b> ({@link HeaderMapper}, {@link MergeReducer}): each cluster's header (its weight, all its keys
 *       counted as unlisted) and its pieces, shuffled by cluster and summed: the weight, the shared keys listed, the
 *       unlisted keys = those it had minus the shared ones.</li>
 * </ol>
 * Counters: pairs read by the holders job = the clusters' listed keys (CLUSTER_PINS of the level); pieces written =
 * SHARED_PINS = the keys the merge job lists; clusters merged = clusters.
 *
 * <p>Where even the shared keys are too many for one placing task, {@link SampleMapper} lists a sample of them.
 */
public final class SharedKeys {

  private static final long[] NONE = new long[0];

  private SharedKeys() {}

  /** Holders job, map side: one (key, cluster) pair per listed key. */
  public static class HolderMapper extends Mapper<IntWritable, ClusterRow, LongWritable, LongWritable> {
    private final LongWritable key = new LongWritable();
    private final LongWritable cluster = new LongWritable();

    @Override
    protected void map(IntWritable zero, ClusterRow c, Context context) throws IOException, InterruptedException {
      cluster.set(c.cluster());
      for (int i = 0; i < c.size(); i++) {
        key.set(c.key(i));
        context.write(key, cluster);
      }
      context.getCounter(MrRefinement.Counters.HOLDER_PAIRS).increment(c.size());
    }
  }

  /**
   * Holders job, reduce side: a key held by two or more clusters, as a piece of each of them; streamed (only the first
   * holder is kept until a second shows up), so a key every cluster holds costs no memory.
   */
  public static class HolderReducer extends Reducer<LongWritable, LongWritable, LongWritable, ClusterRow> {
    private final LongWritable cluster = new LongWritable();
    private final ClusterRow piece = new ClusterRow();
    private final long[] one = new long[1];

    @Override
    protected void reduce(LongWritable key, Iterable<LongWritable> values, Context context)
        throws IOException, InterruptedException {
      one[0] = key.get();
      long first = 0;
      long holders = 0;
      for (LongWritable c : values) {
        if (++holders == 1) {
          first = c.get();
          continue;
        }
        if (holders == 2) {
          write(first, context);
        }
        write(c.get(), context);
      }
      if (holders >= 2) {
        context.getCounter(MrRefinement.Counters.SHARED_PINS).increment(holders);
      }
    }

    private void write(long c, Context context) throws IOException, InterruptedException {
      cluster.set(c);
      context.write(cluster, piece.set(c, 0, one, 1, -1));
    }
  }

  /**
   * The sample rate of the keys the placing task sees (a double in (0, 1]; 1 or unset: every key): see
   * {@link SampleMapper}.
   */
  public static final String SAMPLE = "parsa.refine.multilevel.place.sample";

  /**
   * Whether {@code key} is in the sample of rate {@code rate}: decided by a hash of the key alone, so that every
   * cluster holding it agrees, and the same in every run.
   */
  static boolean sampled(long key, double rate) {
    return (it.unimi.dsi.fastutil.HashCommon.mix(key) >>> 11) * 0x1.0p-53 < rate;
  }

  /**
   * Placement job, map side, where the clusters' keys are too many for the placing task: each cluster with only
   * the keys of a sample ({@link #SAMPLE}, by {@link #sampled}) listed, the others counted as unlisted. The placement
   * then cuts a sample of the nets, the same for every cluster, as an estimate of the cut of all of them; its working
   * sets count a key left out once per cluster holding it, so they are estimates too (the caller measures the result
   * exactly). Counters: SAMPLED_PINS + PINS_LEFT_OUT = the clusters' listed keys.
   */
  public static class SampleMapper extends Mapper<IntWritable, ClusterRow, IntWritable, ClusterRow> {
    private final ClusterRow out = new ClusterRow();
    private long[] keys = new long[16];
    private double rate;

    @Override
    protected void setup(Context context) {
      rate = context.getConfiguration().getDouble(SAMPLE, 1);
    }

    @Override
    protected void map(IntWritable zero, ClusterRow c, Context context) throws IOException, InterruptedException {
      if (keys.length < c.size()) {
        keys = new long[Math.max(c.size(), 2 * keys.length)];
      }
      int n = 0;
      for (int i = 0; i < c.size(); i++) {
        long key = c.key(i);
        if (sampled(key, rate)) {
          keys[n++] = key;
        }
      }
      context.write(zero, out.set(c.cluster(), c.weight(), keys, n, c.unlisted() + c.size() - n));
      context.getCounter(MrRefinement.Counters.SAMPLED_PINS).increment(n);
      context.getCounter(MrRefinement.Counters.PINS_LEFT_OUT).increment(c.size() - n);
    }
  }

  /** Merge job, first input: each cluster's header, its weight and every key it holds counted as unlisted. */
  public static class HeaderMapper extends Mapper<IntWritable, ClusterRow, LongWritable, ClusterRow> {
    private final LongWritable cluster = new LongWritable();
    private final ClusterRow header = new ClusterRow();

    @Override
    protected void map(IntWritable zero, ClusterRow c, Context context) throws IOException, InterruptedException {
      cluster.set(c.cluster());
      context.write(cluster, header.set(c.cluster(), c.weight(), NONE, 0, c.unlisted() + c.size()));
    }
  }

  /** Merge job, reduce side: a cluster's header and pieces summed into the cluster with its shared keys listed. */
  public static class MergeReducer extends Reducer<LongWritable, ClusterRow, IntWritable, ClusterRow> {
    private final IntWritable zero = new IntWritable(0);
    private final ClusterRow out = new ClusterRow();
    private long[] keys = new long[16];

    @Override
    protected void reduce(LongWritable cluster, Iterable<ClusterRow> pieces, Context context)
        throws IOException, InterruptedException {
      int headers = 0;
      int weight = 0;
      int unlisted = 0;
      int n = 0;
      for (ClusterRow p : pieces) {
        if (p.weight() > 0) {
          headers++;
        }
        weight += p.weight();
        unlisted += p.unlisted();
        for (int i = 0; i < p.size(); i++) {
          if (n == keys.length) {
            keys = Arrays.copyOf(keys, 2 * n);
          }
          keys[n++] = p.key(i);
        }
      }
      if (headers != 1) {
        context.getCounter(MrRefinement.Counters.PIECES_WITHOUT_CLUSTER).increment(1);
        return;
      }
      Arrays.sort(keys, 0, n);
      context.write(zero, out.set(cluster.get(), weight, keys, n, unlisted));
      context.getCounter(MrRefinement.Counters.CLUSTERS_MERGED).increment(1);
      context.getCounter(MrRefinement.Counters.LISTED_PINS).increment(n);
    }
  }
}
