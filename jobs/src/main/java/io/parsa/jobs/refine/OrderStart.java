package io.parsa.jobs.refine;

import io.parsa.avro.GraphRow;
import io.parsa.engine.URefinement;
import io.parsa.jobs.mr.AlignedJoin;
import io.parsa.jobs.mr.AvroInputs;
import io.parsa.jobs.mr.Jobs;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.PartStats;
import io.parsa.yarn.io.AssignmentFiles;
import io.parsa.yarn.io.BlockFiles;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.io.IOException;
import java.util.Arrays;
import java.util.Map;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.LazyOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.SequenceFileOutputFormat;

/**
 * The input-order start of refine-u as MapReduce jobs, equal to the in-memory
 * {@code URefinement.inputOrderStart}: rows by ascending id (ingest's ids follow the input: file ordinal, then line; or the edge list's vertex) cut into k
 * runs, row of rank r in part ⌊r·k/n⌋. Nothing is sorted: the k − 1 boundary ids (the ids of ranks ⌈j·n/k⌉) are
 * found by histogram passes over the ids ({@link HistogramMapper}, {@value #BUCKETS} buckets per searched range, each
 * pass narrowing every range to one bucket, until each range is a single id), then one map task per block writes the
 * block's assignment file ({@link AssignMapper}). The driver holds k ranges of {@value #BUCKETS} counts.
 *
 * <p>Weighted rows (whole-number weights) are cut by weight, as in memory: a row goes to part ⌊(c + w/2)·k / W⌋, c the
 * weight of the rows before it in id order, w its own, W the total. The histograms then sum weights, each boundary's
 * search ends on the first id whose rows up to it weigh at least j·W/k, and the boundary is that id or the next one,
 * by the same formula on its own weight.
 */
final class OrderStart {

  /** Buckets per range and pass. */
  static final int BUCKETS = 1024;
  /** Ranges searched in a histogram pass: distinct (lo, hi) pairs, comma-separated. */
  static final String RANGES = "parsa.refine-u.mr.order.ranges";
  /** The k − 1 boundary ids, comma-separated, ascending. */
  static final String BOUNDS = "parsa.refine-u.mr.order.bounds";
  /** Part stats of a histogram pass: the counts of range t are entries t·BUCKETS .. (t+1)·BUCKETS − 1. */
  static final String HISTOGRAM = "histogram";
  /**
   * Part stats of the first pass: per task its least and largest id (entries 0, 1), whether it saw one (2) and the
   * weight of its rows (3: their number unweighted).
   */
  static final String MIN_MAX = "minMax";
  /** Whether the histograms sum the rows' weights (whole numbers) instead of counting rows. */
  static final String WEIGHTED = "parsa.refine-u.mr.order.weighted";

  private OrderStart() {}

  /** Width of one bucket of [lo, hi]: ⌈(hi − lo + 1) / BUCKETS⌉, at least 1 (computed without overflow). */
  static long width(long lo, long hi) {
    // hi − lo + 1 can exceed Long.MAX_VALUE for extreme ids: divide first
    long span = hi - lo; // ≥ 0 and ≤ 2^64 − 1 as unsigned
    long w = Long.divideUnsigned(span, BUCKETS) + 1;
    return Math.max(1, w);
  }

  /** Bucket of id in [lo, hi]. */
  static int bucket(long id, long lo, long w) {
    return (int) Long.divideUnsigned(id - lo, w);
  }

  /**
   * Writes the input-order start of the {@code n} rows of {@code blocks} into {@code out} (one assignment file per
   * block) and returns its rows per part (checked against ⌊n/k⌋..⌈n/k⌉ by the caller).
   */
  static long[] build(Configuration conf, String step, Path blocks, Path work, Path out, int k, long n)
      throws Exception {
    return build(conf, step, blocks, work, out, k, n, false);
  }

  /**
   * {@link #build(Configuration, String, Path, Path, Path, int, long)}, for {@code weighted} rows (whole-number
   * weights) cut by weight: the caller checks every part's weight.
   */
  static long[] build(Configuration conf, String step, Path blocks, Path work, Path out, int k, long n,
      boolean weighted) throws Exception {
    FileSystem fs = work.getFileSystem(conf);
    Configuration c0 = new Configuration(conf);
    c0.setBoolean(WEIGHTED, weighted);
    conf = c0;
    // first pass: least and largest id, and the total weight
    long[] minMax = minMax(conf, step, blocks, new Path(work, "order-ids"), fs);
    long total = minMax[2];
    Jobs.check(total >= 0 && total <= Long.MAX_VALUE / k, "%s: input-order start: total weight %d out of range", step,
        total);
    long[] target = new long[k - 1];
    long[] lo = new long[k - 1];
    long[] hi = new long[k - 1];
    long[] below = new long[k - 1];
    // weighted: each boundary's id's own weight (the weight of the rows before it is below[])
    long[] own = new long[k - 1];
    for (int j = 1; j < k; j++) {
      target[j - 1] = (j * n + k - 1) / k; // ⌈j·n/k⌉
      lo[j - 1] = minMax[0];
      hi[j - 1] = minMax[1];
    }
    int pass = 0;
    while (true) {
      boolean open = false;
      for (int j = 0; j < k - 1; j++) {
        open |= lo[j] != hi[j];
      }
      if (!open) {
        break;
      }
      // the open targets' ranges, each distinct range searched once (ranges are equal or disjoint: every pass
      // narrows a range to one of its buckets)
      LongArrayList rangeLo = new LongArrayList();
      LongArrayList rangeHi = new LongArrayList();
      int[] range = new int[k - 1];
      for (int j = 0; j < k - 1; j++) {
        range[j] = -1;
        for (int t = 0; t < rangeLo.size() && range[j] < 0; t++) {
          if (rangeLo.getLong(t) == lo[j] && rangeHi.getLong(t) == hi[j]) {
            range[j] = t;
          }
        }
        if (range[j] < 0 && lo[j] != hi[j]) {
          range[j] = rangeLo.size();
          rangeLo.add(lo[j]);
          rangeHi.add(hi[j]);
        }
      }
      long[] h = histogram(conf, step, blocks, new Path(work, "order-hist-" + (++pass)), fs, rangeLo.toLongArray(),
          rangeHi.toLongArray());
      for (int j = 0; j < k - 1; j++) {
        if (lo[j] == hi[j]) {
          continue;
        }
        long w = width(lo[j], hi[j]);
        int base = range[j] * BUCKETS;
        long seen = below[j];
        int b = 0;
        // unit rows: skip the buckets whose rows all rank below the target; weighted rows: those whose rows up to
        // their end weigh less than (j + 1)·W/k (compared as k·weight against (j + 1)·W, exactly)
        while (weighted ? (seen + h[base + b]) * k < (j + 1) * total : seen + h[base + b] <= target[j]) {
          seen += h[base + b];
          b++;
          if (b == BUCKETS) {
            throw new io.parsa.jobs.mr.ConsistencyException(step + ": input-order start: rank " + target[j]
                + " not found in ids " + lo[j] + ".." + hi[j] + " (ids changed between passes?)");
          }
        }
        below[j] = seen;
        own[j] = h[base + b];
        long newLo = lo[j] + (long) b * w;
        long newHi = b == BUCKETS - 1 || newLo + w - 1 > hi[j] || newLo + w - 1 < newLo ? hi[j] : newLo + w - 1;
        lo[j] = newLo;
        hi[j] = newHi;
      }
    }
    if (weighted) {
      // lo[j] is the first id whose rows up to it weigh at least (j + 1)·W/k; it opens part j + 1 if its midpoint
      // does (the in-memory formula, in the same doubles), else the next id does
      for (int j = 0; j < k - 1; j++) {
        int part = total > 0 ? URefinement.weightedOrderPart(below[j], below[j] + own[j], total, k) : 0;
        // (no id follows Long.MAX_VALUE: a row of that id opens the part itself, one row off the in-memory start,
        // which the caller's check of every part's weight reports if it leaves a part outside the heaviest row)
        if (part <= j && lo[j] != Long.MAX_VALUE) {
          lo[j]++;
        }
      }
    }
    Job job = Jobs.newJob(conf, step, "write the input-order start", OrderStart.class);
    Configuration c = job.getConfiguration();
    c.setInt(MrKeys.K, k);
    c.setStrings(BOUNDS, Arrays.stream(lo).mapToObj(Long::toString).toArray(String[]::new)); // ascending
    AlignedJoin.configureBlockTasks(job, blocks, AssignMapper.class);
    job.setNumReduceTasks(0);
    job.setOutputKeyClass(NullWritable.class);
    job.setOutputValueClass(NullWritable.class);
    LazyOutputFormat.setOutputFormatClass(job, SequenceFileOutputFormat.class);
    FileOutputFormat.setOutputPath(job, out);
    Jobs.run(job);
    long[] rows = PartStats.sum(PartStats.readPerTask(fs, out), CountMapper.ROWS, k);
    Jobs.checkEqual(step + ": input-order start rows vs rows", n, Arrays.stream(rows).sum());
    return rows;
  }

  private static long[] minMax(Configuration conf, String step, Path blocks, Path dir, FileSystem fs)
      throws Exception {
    Job job = Jobs.newJob(conf, step, "input-order start: id range", OrderStart.class);
    job.getConfiguration().unset(RANGES);
    scan(job, blocks, dir);
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    long total = 0;
    for (Map<String, long[]> t : PartStats.readPerTask(fs, dir).values()) {
      long[] m = t.get(MIN_MAX);
      if (m != null && m[2] > 0) {
        min = Math.min(min, m[0]);
        max = Math.max(max, m[1]);
        total += m[3];
      }
    }
    fs.delete(dir, true);
    return new long[] {min, max, total};
  }

  private static long[] histogram(Configuration conf, String step, Path blocks, Path dir, FileSystem fs, long[] lo,
      long[] hi) throws Exception {
    Job job = Jobs.newJob(conf, step, "input-order start: id histogram", OrderStart.class);
    String[] r = new String[2 * lo.length];
    for (int t = 0; t < lo.length; t++) {
      r[2 * t] = Long.toString(lo[t]);
      r[2 * t + 1] = Long.toString(hi[t]);
    }
    job.getConfiguration().setStrings(RANGES, r);
    scan(job, blocks, dir);
    long[] h = PartStats.sum(PartStats.readPerTask(fs, dir), HISTOGRAM, lo.length * BUCKETS);
    fs.delete(dir, true);
    return h;
  }

  private static void scan(Job job, Path blocks, Path dir) throws Exception {
    job.setInputFormatClass(AvroInputs.GraphRows.class);
    FileInputFormat.addInputPath(job, blocks);
    job.setMapperClass(HistogramMapper.class);
    job.setNumReduceTasks(0);
    job.setOutputKeyClass(NullWritable.class);
    job.setOutputValueClass(NullWritable.class);
    LazyOutputFormat.setOutputFormatClass(job, SequenceFileOutputFormat.class);
    FileOutputFormat.setOutputPath(job, dir);
    Jobs.run(job);
  }

  /**
   * A histogram pass: per searched range [lo, hi] (distinct and disjoint), the ids of the split in each of its
   * {@value #BUCKETS} buckets; without ranges, the split's least and largest id.
   */
  public static class HistogramMapper extends Mapper<AvroKey<GraphRow>, NullWritable, NullWritable, NullWritable> {
    private final PartStats stats = new PartStats();
    private long[] lo;
    private long[] hi;
    private long[] w;
    private long[] h;
    private long[] minMax;
    private boolean weighted;

    @Override
    protected void setup(Context context) {
      weighted = context.getConfiguration().getBoolean(WEIGHTED, false);
      String[] r = context.getConfiguration().getStrings(RANGES);
      if (r == null) {
        minMax = stats.array(MIN_MAX, 4);
        minMax[0] = Long.MAX_VALUE;
        minMax[1] = Long.MIN_VALUE;
        return;
      }
      int m = r.length / 2;
      lo = new long[m];
      hi = new long[m];
      w = new long[m];
      for (int t = 0; t < m; t++) {
        lo[t] = Long.parseLong(r[2 * t]);
        hi[t] = Long.parseLong(r[2 * t + 1]);
        w[t] = width(lo[t], hi[t]);
      }
      h = stats.array(HISTOGRAM, m * BUCKETS);
    }

    @Override
    protected void map(AvroKey<GraphRow> key, NullWritable value, Context context) {
      long id = key.datum().getId();
      // weighted: whole-number weights (the caller checks), a row without one weighing 1
      Double weight = weighted ? key.datum().getWeight() : null;
      long x = weight == null ? 1 : Math.round(weight);
      if (minMax != null) {
        minMax[0] = Math.min(minMax[0], id);
        minMax[1] = Math.max(minMax[1], id);
        minMax[2] = 1;
        minMax[3] += x;
        return;
      }
      for (int t = 0; t < lo.length; t++) {
        if (id >= lo[t] && id <= hi[t]) {
          h[t * BUCKETS + bucket(id, lo[t], w[t])] += x;
          break; // disjoint ranges
        }
      }
    }

    @Override
    protected void cleanup(Context context) throws IOException, InterruptedException {
      stats.write(context);
    }
  }

  /**
   * The number of boundary ids at most {@code id} in the ascending {@code bounds}: its part. Weighted rows may give
   * equal boundaries (a row heavier than a part's share opens several parts' boundaries at once).
   */
  static int partOf(long[] bounds, long id) {
    int lo = 0;
    int hi = bounds.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (bounds[mid] <= id) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** One task per block: the block's rows in their input-order parts, written as the block's assignment file. */
  public static class AssignMapper extends Mapper<AvroKey<GraphRow>, NullWritable, NullWritable, NullWritable> {
    private final PartStats stats = new PartStats();
    private final LongArrayList ids = new LongArrayList();
    private final IntArrayList parts = new IntArrayList();
    private long[] bounds;
    private long[] rows;

    @Override
    protected void setup(Context context) {
      int k = MrKeys.k(context.getConfiguration());
      String[] b = context.getConfiguration().getStrings(BOUNDS);
      bounds = b == null ? new long[0] : Arrays.stream(b).mapToLong(Long::parseLong).toArray();
      rows = stats.array(CountMapper.ROWS, k);
    }

    @Override
    protected void map(AvroKey<GraphRow> key, NullWritable value, Context context) {
      long id = key.datum().getId();
      int p = partOf(bounds, id);
      ids.add(id);
      parts.add(p);
      rows[p]++;
    }

    @Override
    protected void cleanup(Context context) throws IOException, InterruptedException {
      Path file = ((FileSplit) context.getInputSplit()).getPath();
      Configuration conf = context.getConfiguration();
      int block = BlockFiles.indexOf(file.getFileSystem(conf), file);
      Path work = FileOutputFormat.getWorkOutputPath(context);
      AssignmentFiles.write(work.getFileSystem(conf), work, block, context.getTaskAttemptID().getTaskID().getId(),
          ids.toLongArray(), parts.toIntArray());
      stats.write(context);
    }
  }
}
