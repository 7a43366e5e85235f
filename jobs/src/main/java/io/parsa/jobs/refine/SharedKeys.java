package io.parsa.jobs.refine;

import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.reduce.LongSumReducer;

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
 * <p>Where even the shared keys are too many for one placing task, the same two jobs list a sample of them
 * ({@link #LIST_RATE} = r, by {@link #sampled}), and every cluster's working set is counted in units of 1/r keys, so
 * that the sampled nets, each one key, weigh what the keys they stand for do. A shared key held by h clusters goes
 * back to each of them as a piece naming h (listed where sampled; with no key and −h unlisted where not), and the
 * merge job sets a cluster's unlisted count to, rounded,
 * <pre>  r · (keys of its own + Σ over its shared keys left out 1/h) − (1 − r) · Σ over its sampled keys 1/h</pre>
 * Summed over a part together with the sampled nets it holds (one each), that is r times the part's working set where
 * no shared key is cut (a key shared within the part counts r over its holders, sampled or not), and each cut key adds
 * its cut once per part beyond the first, in expectation: r · (λ − 1) over a sampled key's λ parts. The placement then
 * holds working sets and cuts nets on one scale, with no sampling error from the keys it does not cut (before, a key
 * left out counted whole in each of its holders, and its cut not at all). Counters, sampled: SHARED_PINS = the keys
 * listed, PINS_LEFT_OUT = the pieces with no key, SHARES_MERGED = all pieces merged = SHARED_PINS + PINS_LEFT_OUT.
 *
 * <p>That sample is, by default, one of <b>holder sets</b> instead of keys: keys held by the same clusters are
 * interchangeable to any placement of them, so they become one net weighing their count. Three jobs: the holders job
 * sends each shared key's holders as one set ({@link HolderSetReducer}), the sets job sums the keys per set and counts
 * the pins each candidate rate would list ({@link SetReducer}), and the merge job lists each set with probability
 * min(1, r · w) ({@link SetPieceMapper}) under the rule above with weights ({@link MergeReducer}). Counters:
 * SET_KEYS = SHARED_KEYS, SET_KEY_PINS = SHARED_KEY_PINS = KEY_PINS_MERGED.
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
   * holder is kept until a second shows up), so a key every cluster holds costs no memory. Listing a sample, each piece
   * names its key's holders, so they are kept first (a key's holders are clusters of one level, at most the clusters
   * the placing task holds).
   */
  public static class HolderReducer extends Reducer<LongWritable, LongWritable, LongWritable, ClusterRow> {
    private final LongWritable cluster = new LongWritable();
    private final ClusterRow piece = new ClusterRow();
    private final long[] one = new long[1];
    private final LongArrayList holders = new LongArrayList();
    private Sample sample;

    @Override
    protected void setup(Context context) {
      sample = Sample.of(context.getConfiguration());
    }

    @Override
    protected void reduce(LongWritable key, Iterable<LongWritable> values, Context context)
        throws IOException, InterruptedException {
      one[0] = key.get();
      if (sample.rate() < 1) {
        int h = gather(values, holders);
        if (h < 2) {
          return;
        }
        boolean listed = sampled(key.get(), sample.rate(), sample.number());
        for (int i = 0; i < h; i++) {
          cluster.set(holders.getLong(i));
          context.write(cluster, piece.set(holders.getLong(i), 0, one, listed ? 1 : 0, -h));
        }
        context.getCounter(listed ? MrRefinement.Counters.SHARED_PINS : MrRefinement.Counters.PINS_LEFT_OUT)
            .increment(h);
        return;
      }
      long first = 0;
      long count = 0;
      for (LongWritable c : values) {
        if (++count == 1) {
          first = c.get();
          continue;
        }
        if (count == 2) {
          write(first, context);
        }
        write(c.get(), context);
      }
      if (count >= 2) {
        context.getCounter(MrRefinement.Counters.SHARED_PINS).increment(count);
      }
    }

    private void write(long c, Context context) throws IOException, InterruptedException {
      cluster.set(c);
      context.write(cluster, piece.set(c, 0, one, 1, -1));
    }
  }

  /**
   * The sample rate of the keys the placing task sees (a double in (0, 1]; unset: as many as fit the task), which the
   * driver passes to the two jobs as {@link #LIST_RATE}.
   */
  public static final String SAMPLE = "parsa.refine.multilevel.place.sample";

  /**
   * The share of the shared keys the two jobs list (a double in (0, 1]; 1: every one), set by the driver on those two
   * jobs and on the placing job that reads their output ({@link PlaceReducer}: its working sets are in units of
   * 1/rate keys), and on no other (a user's {@link #SAMPLE} must not reach the rewrites of the levels below).
   */
  static final String LIST_RATE = "parsa.refine.shared-keys.list-rate";

  /**
   * Which sample of each rate the two jobs list (a long, default 0; set by the driver with {@link #LIST_RATE}): each
   * placement from a sample draws a sample of its own, so that a V-cycle does not refine against the very keys the
   * placement before it was chosen on, whose cut looks better than the cut of the keys it did not see.
   */
  static final String LIST_SAMPLE = "parsa.refine.shared-keys.list-sample";

  /** The sample a job lists: its rate ({@link #LIST_RATE}) and number ({@link #LIST_SAMPLE}). */
  record Sample(double rate, long number) {
    static Sample of(org.apache.hadoop.conf.Configuration conf) {
      return new Sample(conf.getDouble(LIST_RATE, 1), conf.getLong(LIST_SAMPLE, 0));
    }
  }

  /**
   * Whether {@code key} is in the sample of rate {@code rate}: decided by a hash of the key alone, so that every
   * cluster holding it agrees, and the same in every run.
   */
  static boolean sampled(long key, double rate) {
    return sampled(key, rate, 0);
  }

  /** The same in sample number {@code sample} of that rate (samples of one number are nested across rates). */
  static boolean sampled(long key, double rate, long sample) {
    long salted = sample == 0 ? key : key ^ it.unimi.dsi.fastutil.HashCommon.mix(sample * 0x9E3779B97F4A7C15L);
    return (it.unimi.dsi.fastutil.HashCommon.mix(salted) >>> 11) * 0x1.0p-53 < rate;
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

  /**
   * Merge job, reduce side: a cluster's header and pieces summed into the cluster with its shared keys listed; listing
   * a sample ({@link #LIST_RATE} &lt; 1), its unlisted count in units of 1/r keys (see the class comment). A piece of
   * weight −w ({@link SetPieceMapper}) stands for the w keys of a holder set, listed as one net of the weight it carries
   * ({@link ClusterRow#keyWeight}) or left out; a piece of weight 0 for one key.
   */
  public static class MergeReducer extends Reducer<LongWritable, ClusterRow, IntWritable, ClusterRow> {
    private final IntWritable zero = new IntWritable(0);
    private final ClusterRow out = new ClusterRow();
    private long[] keys = new long[16];
    private int[] weights = new int[16];
    private long[] sortedKeys = new long[16];
    private int[] sortedWeights = new int[16];
    private int[] order = new int[16];
    private double rate;

    @Override
    protected void setup(Context context) {
      rate = context.getConfiguration().getDouble(LIST_RATE, 1);
    }

    @Override
    protected void reduce(LongWritable cluster, Iterable<ClusterRow> pieces, Context context)
        throws IOException, InterruptedException {
      int headers = 0;
      int weight = 0;
      long unlisted = 0;
      // in units of the sample: Σ r·w/h over the sets (keys) left out, Σ (r·w − W)/h over those listed with weight W
      double correction = 0;
      long merged = 0;
      long keyPins = 0;
      boolean sets = false; // pieces of holder sets: listed with weights
      int n = 0;
      for (ClusterRow p : pieces) {
        if (p.weight() > 0) {
          headers++;
          weight += p.weight();
          unlisted += p.unlisted();
          continue;
        }
        sets |= p.weight() < 0;
        int w = p.weight() < 0 ? -p.weight() : 1; // a holder set's keys, or one key
        int h = -p.unlisted();
        unlisted -= w; // shared keys: the header counted them as the cluster's own
        merged++;
        keyPins += w;
        if (p.size() == 0) {
          correction += rate * w / h;
          continue;
        }
        correction += (rate * w - p.keyWeight(0)) / h;
        if (n == keys.length) {
          keys = Arrays.copyOf(keys, 2 * n);
          weights = Arrays.copyOf(weights, 2 * n);
        }
        keys[n] = p.key(0);
        weights[n++] = p.keyWeight(0);
      }
      if (headers != 1) {
        context.getCounter(MrRefinement.Counters.PIECES_WITHOUT_CLUSTER).increment(1);
        return;
      }
      // exact where nothing is sampled and every listed net weighs its keys (the correction is then 0)
      int own = (int) Math.max(0, Math.round(rate * unlisted + correction));
      if (rate < 1) {
        context.getCounter(MrRefinement.Counters.SHARES_MERGED).increment(merged);
      }
      if (sets) {
        context.getCounter(MrRefinement.Counters.KEY_PINS_MERGED).increment(keyPins);
        sortByKey(n);
        context.write(zero, out.set(cluster.get(), weight, sortedKeys, n, own, sortedWeights));
      } else {
        Arrays.sort(keys, 0, n);
        context.write(zero, out.set(cluster.get(), weight, keys, n, own));
      }
      context.getCounter(MrRefinement.Counters.CLUSTERS_MERGED).increment(1);
      context.getCounter(MrRefinement.Counters.LISTED_PINS).increment(n);
    }

    /** keys[0..n) ascending into sortedKeys, their weights alongside into sortedWeights. */
    private void sortByKey(int n) {
      if (order.length < n) {
        order = new int[keys.length];
        sortedKeys = new long[keys.length];
        sortedWeights = new int[keys.length];
      }
      for (int i = 0; i < n; i++) {
        order[i] = i;
      }
      long[] k = keys;
      it.unimi.dsi.fastutil.ints.IntArrays.quickSort(order, 0, n, (a, b) -> Long.compare(k[a], k[b]));
      for (int i = 0; i < n; i++) {
        sortedKeys[i] = keys[order[i]];
        sortedWeights[i] = weights[order[i]];
      }
    }
  }

  /**
   * Holder sets, holders job (after {@link HolderMapper}), reduce side: a key held by two or more clusters as its set of
   * holders (ascending cluster ids, {@link #holderSet}) with a count of one key.
   */
  public static class HolderSetReducer extends Reducer<LongWritable, LongWritable, BytesWritable, LongWritable> {
    private final LongArrayList holders = new LongArrayList();
    private final BytesWritable set = new BytesWritable();
    private final LongWritable one = new LongWritable(1);

    @Override
    protected void reduce(LongWritable key, Iterable<LongWritable> values, Context context)
        throws IOException, InterruptedException {
      int h = gather(values, holders);
      if (h < 2) {
        return;
      }
      Arrays.sort(holders.elements(), 0, h);
      holderSet(holders, set);
      context.write(set, one);
      context.getCounter(MrRefinement.Counters.SHARED_KEYS).increment(1);
      context.getCounter(MrRefinement.Counters.SHARED_KEY_PINS).increment(h);
    }
  }

  /** A key's holders into {@code holders} (cleared first); returns their number. */
  static int gather(Iterable<LongWritable> values, LongArrayList holders) {
    holders.clear();
    for (LongWritable c : values) {
      holders.add(c.get());
    }
    return holders.size();
  }

  /**
   * The ascending cluster ids {@code holders} as the bytes of a set (8 big-endian bytes each: sorts as it groups), into
   * {@code out}'s own buffer.
   */
  static void holderSet(LongArrayList holders, BytesWritable out) {
    int h = holders.size();
    out.setSize(8 * h);
    java.nio.ByteBuffer bytes = java.nio.ByteBuffer.wrap(out.getBytes());
    for (int i = 0; i < h; i++) {
      bytes.putLong(holders.getLong(i));
    }
  }

  /** The cluster ids of a set's bytes ({@link #holderSet}) into {@code out} (its length: the holders). */
  static int holders(BytesWritable set, long[] out) {
    int h = set.getLength() / 8;
    for (int i = 0; i < h; i++) {
      out[i] = org.apache.hadoop.io.WritableComparator.readLong(set.getBytes(), 8 * i);
    }
    return h;
  }

  /**
   * The candidate rates the sets job counts listed pins at ({@link #CANDIDATES} + 1 of them): {@code base}, the rate
   * of a key sample that fits the placing task, up to 1, evenly on a log scale.
   */
  static double candidateRate(double base, int j) {
    return j >= CANDIDATES ? 1 : Math.pow(base, 1 - j / (double) CANDIDATES);
  }

  /** Candidate rates above the base one ({@link #candidateRate}). */
  static final int CANDIDATES = 12;

  /** Counter group of the sets job: the pins listed at candidate rate j (counter "j", {@link #candidateRate}). */
  static final String PINS_AT_RATE = "parsa.holder-sets.pins-at-rate";

  /** Whether a holder set of {@code w} keys is listed at rate {@code rate}: with probability min(1, rate · w). */
  static double inclusion(double rate, long w) {
    return Math.min(1, rate * w);
  }

  /**
   * Holder sets, sets job, reduce side (a {@link LongSumReducer} combines before it): a set of holders with the keys it
   * stands for, numbered (task · 2^40 + its number in the task), written as a {@link ClusterRow} of that id whose
   * weight is its keys and whose keys are its holders; counts for each candidate rate the pins a sample at that rate
   * would list ({@link #PINS_AT_RATE}), so that the driver can take the highest rate that fits the placing task.
   */
  public static class SetReducer extends Reducer<BytesWritable, LongWritable, LongWritable, ClusterRow> {
    private final LongWritable id = new LongWritable();
    private final ClusterRow out = new ClusterRow();
    private long[] holders = new long[16];
    private long task;
    private long next;
    private double base;
    private final double[] pinsAt = new double[CANDIDATES + 1];

    @Override
    protected void setup(Context context) {
      task = context.getTaskAttemptID().getTaskID().getId();
      base = context.getConfiguration().getDouble(LIST_RATE, 1);
    }

    @Override
    protected void reduce(BytesWritable set, Iterable<LongWritable> counts, Context context)
        throws IOException, InterruptedException {
      long w = 0;
      for (LongWritable c : counts) {
        w += c.get();
      }
      if (holders.length < set.getLength() / 8) {
        holders = new long[set.getLength() / 8];
      }
      int h = holders(set, holders);
      if (w > Integer.MAX_VALUE) {
        throw new IllegalStateException(w + " keys with the same " + h + " holders, more than a net's weight holds");
      }
      id.set((task << 40) | next++);
      context.write(id, out.set(id.get(), (int) w, holders, h, 0));
      for (int j = 0; j <= CANDIDATES; j++) {
        pinsAt[j] += inclusion(candidateRate(base, j), w) * h;
      }
      context.getCounter(MrRefinement.Counters.HOLDER_SETS).increment(1);
      context.getCounter(MrRefinement.Counters.SET_PINS).increment(h);
      context.getCounter(MrRefinement.Counters.SET_KEYS).increment(w);
      context.getCounter(MrRefinement.Counters.SET_KEY_PINS).increment(w * h);
    }

    @Override
    protected void cleanup(Context context) {
      for (int j = 0; j <= CANDIDATES; j++) {
        context.getCounter(PINS_AT_RATE, Integer.toString(j)).increment(Math.round(pinsAt[j]));
      }
    }
  }

  /**
   * Holder sets, merge job, second input: each set ({@link SetReducer}) as a piece of each of its h holders, of weight
   * −w (its keys) and −h unlisted; listed with probability p = min(1, r · w) (r: {@link #LIST_RATE}; decided by a hash
   * of its holders and {@link #LIST_SAMPLE}, so every holder agrees) as one net weighing W = max(1, round(r · w / p))
   * in units of the sample: 1 where p &lt; 1, r · w where the set is always listed. A sample at rate r lists at most the
   * pins a sample of keys at r does, and none of a set whose keys are many: those are listed whole, exactly. Counters:
   * SHARED_PINS (pieces listed), PINS_LEFT_OUT (the others).
   */
  public static class SetPieceMapper extends Mapper<LongWritable, ClusterRow, LongWritable, ClusterRow> {
    private final LongWritable cluster = new LongWritable();
    private final ClusterRow piece = new ClusterRow();
    private final long[] one = new long[1];
    private final int[] weightOfOne = new int[1];
    private Sample sample;

    @Override
    protected void setup(Context context) {
      sample = Sample.of(context.getConfiguration());
    }

    @Override
    protected void map(LongWritable id, ClusterRow set, Context context) throws IOException, InterruptedException {
      int h = set.size();
      int w = set.weight();
      double rate = sample.rate();
      double p = inclusion(rate, w);
      long hash = h;
      for (int i = 0; i < h; i++) {
        hash = it.unimi.dsi.fastutil.HashCommon.mix(hash * 31 + set.key(i));
      }
      boolean listed = p >= 1 || sampled(hash, p, sample.number());
      one[0] = id.get();
      weightOfOne[0] = (int) Math.max(1, Math.round(rate * w / p));
      for (int i = 0; i < h; i++) {
        cluster.set(set.key(i));
        if (listed) {
          piece.set(set.key(i), -w, one, 1, -h, weightOfOne);
        } else {
          piece.set(set.key(i), -w, one, 0, -h);
        }
        context.write(cluster, piece);
      }
      context.getCounter(listed ? MrRefinement.Counters.SHARED_PINS : MrRefinement.Counters.PINS_LEFT_OUT)
          .increment(h);
    }
  }
}
