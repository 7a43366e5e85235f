package io.parsa.jobs.ingest;

import io.parsa.avro.GraphRow;
import io.parsa.jobs.mr.LongKeyComparator;
import it.unimi.dsi.fastutil.longs.Long2LongMap;
import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.avro.mapred.AvroKey;
import org.apache.avro.mapreduce.AvroJob;
import io.parsa.jobs.mr.FreshArraysAvroKeyInputFormat;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.TextOutputFormat;

/**
 * The second, small aggregation of ingest: reads the blocks just written and computes the key side of the
 * statistics — distinct keys, largest and mean key degree (rows per key). Mappers pre-aggregate
 * per-key row counts in a bounded in-memory map (and a combiner sums what is left), each reducer counts its keys
 * and writes one summary line {@code distinct<TAB>maxDegree<TAB>sumDegree}; the client adds them up. A key's
 * degree is the number of rows using it (a row listing a key twice counts once).
 */
public final class KeyStatsJob {

  /** Entries a mapper aggregates in memory before emitting them. */
  public static final String MAP_BUFFER_ENTRIES = "parsa.ingest.keystats.map.buffer.entries";
  public static final int DEFAULT_MAP_BUFFER_ENTRIES = 1 << 20;

  /**
   * Largest number of non-zeros for which the client computes the key statistics itself, streaming the blocks
   * through a hash map, instead of starting a job (whose start-up and sort dominate unless the data is large).
   * 0 = always a job. Default: {@link #DEFAULT_LOCAL_MAX_NONZEROS} when the jobs run on a cluster (the client may
   * be a small gateway), {@link #DEFAULT_LOCAL_MAX_NONZEROS_LOCAL_MODE} in local mode, where the tasks would run
   * in the client's JVM anyway and the single pass is several times faster than the job.
   */
  public static final String LOCAL_MAX_NONZEROS = "parsa.ingest.keystats.local.max.nonzeros";
  public static final long DEFAULT_LOCAL_MAX_NONZEROS = 4_000_000L;
  public static final long DEFAULT_LOCAL_MAX_NONZEROS_LOCAL_MODE = 30_000_000L;

  /** The configured client-side limit, with the default that fits the runner. */
  public static long localMaxNonZeros(Configuration conf) {
    return conf.getLong(LOCAL_MAX_NONZEROS, io.parsa.jobs.common.LocalJobs.isLocal(conf)
        ? DEFAULT_LOCAL_MAX_NONZEROS_LOCAL_MODE : DEFAULT_LOCAL_MAX_NONZEROS);
  }

  private KeyStatsJob() {}

  /** The same statistics computed in this JVM by streaming {@code blocks}; memory grows with distinct keys. */
  public static Result computeLocally(Configuration conf, List<Path> blocks) throws IOException {
    it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap rowsPerKey = new it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap();
    long[] occ = new long[1];
    RowKeys rk = new RowKeys();
    io.parsa.jobs.common.AvroFiles.forEach(conf, blocks, GraphRow.class, row -> {
      occ[0] += row.getKeys().size();
      int n = rk.distinct(row.getKeys());
      for (int i = 0; i < n; i++) {
        rowsPerKey.addTo(rk.keys[i], 1);
      }
    });
    long max = 0;
    long sum = 0;
    for (int c : rowsPerKey.values()) {
      max = Math.max(max, c);
      sum += c;
    }
    return new Result(rowsPerKey.size(), max, sum, occ[0]);
  }

  /** The distinct keys of one row (a row may list a key twice; a key's degree counts rows, not listings). */
  static final class RowKeys {
    long[] keys = new long[64];

    /** Puts the row's distinct keys, ascending, into {@link #keys}; returns how many. */
    int distinct(List<Long> ks) {
      int n = ks.size();
      if (keys.length < n) {
        keys = new long[Math.max(n, keys.length * 2)];
      }
      for (int i = 0; i < n; i++) {
        keys[i] = ks.get(i);
      }
      java.util.Arrays.sort(keys, 0, n);
      int m = 0;
      for (int i = 0; i < n; i++) {
        if (m == 0 || keys[i] != keys[m - 1]) {
          keys[m++] = keys[i];
        }
      }
      return m;
    }
  }

  /**
   * Key statistics: distinct keys; largest and total key degree (rows using a key); key occurrences (non-zeros,
   * counting a key a row lists twice twice).
   */
  public record Result(long distinctKeys, long maxDegree, long sumDegree, long occurrences) {}

  /** Builds the job reading {@code blocks} (Avro GraphRow files) and writing summaries to {@code out}. */
  public static Job create(Configuration conf, List<Path> blocks, Path out, int reducers) throws IOException {
    Job job = Job.getInstance(conf, "parsa ingest: key statistics");
    job.setJarByClass(KeyStatsJob.class);
    job.setInputFormatClass(FreshArraysAvroKeyInputFormat.class);
    AvroJob.setInputKeySchema(job, GraphRow.getClassSchema());
    AvroJob.setDataModelClass(job, org.apache.avro.specific.SpecificData.class);
    FileInputFormat.setInputPaths(job, blocks.toArray(new Path[0]));
    job.setMapperClass(KeyCountMapper.class);
    job.setCombinerClass(SumCombiner.class);
    job.setReducerClass(KeyStatsReducer.class);
    LongKeyComparator.mapOutputKeys(job);
    job.setMapOutputValueClass(LongWritable.class);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(NullWritable.class);
    job.setOutputFormatClass(TextOutputFormat.class);
    FileOutputFormat.setOutputPath(job, out);
    job.setNumReduceTasks(reducers);
    return job;
  }

  /** Sums the summary lines the reducers wrote under {@code out}; occurrences come from the job's counter. */
  public static Result read(FileSystem fs, Path out, long occurrences) throws IOException {
    long distinct = 0;
    long max = 0;
    long sum = 0;
    for (FileStatus st : fs.listStatus(out, p -> p.getName().startsWith("part-"))) {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(fs.open(st.getPath()),
          StandardCharsets.UTF_8))) {
        String l;
        while ((l = r.readLine()) != null) {
          String[] f = l.trim().split("\t");
          distinct += Long.parseLong(f[0]);
          max = Math.max(max, Long.parseLong(f[1]));
          sum += Long.parseLong(f[2]);
        }
      }
    }
    return new Result(distinct, max, sum, occurrences);
  }

  /** Emits (key, rows using it), pre-aggregated in a bounded map. */
  public static class KeyCountMapper extends Mapper<AvroKey<GraphRow>, NullWritable, LongWritable, LongWritable> {
    private final Long2LongOpenHashMap counts = new Long2LongOpenHashMap();
    private final LongWritable k = new LongWritable();
    private final LongWritable v = new LongWritable();
    private int limit;

    @Override
    protected void setup(Context context) {
      limit = context.getConfiguration().getInt(MAP_BUFFER_ENTRIES, DEFAULT_MAP_BUFFER_ENTRIES);
    }

    private final RowKeys rowKeys = new RowKeys();

    @Override
    protected void map(AvroKey<GraphRow> key, NullWritable value, Context context)
        throws IOException, InterruptedException {
      List<Long> ks = key.datum().getKeys();
      context.getCounter(KeyStatsCounters.ROWS_READ).increment(1);
      context.getCounter(KeyStatsCounters.KEY_OCCURRENCES).increment(ks.size());
      int n = rowKeys.distinct(ks);
      for (int i = 0; i < n; i++) {
        counts.addTo(rowKeys.keys[i], 1L);
      }
      if (counts.size() >= limit) {
        flush(context);
      }
    }

    private void flush(Context context) throws IOException, InterruptedException {
      for (Long2LongMap.Entry e : counts.long2LongEntrySet()) {
        k.set(e.getLongKey());
        v.set(e.getLongValue());
        context.write(k, v);
      }
      counts.clear();
    }

    @Override
    protected void cleanup(Context context) throws IOException, InterruptedException {
      flush(context);
    }
  }

  /** Sums partial counts of one key. */
  public static class SumCombiner extends Reducer<LongWritable, LongWritable, LongWritable, LongWritable> {
    private final LongWritable sum = new LongWritable();

    @Override
    protected void reduce(LongWritable key, Iterable<LongWritable> values, Context context)
        throws IOException, InterruptedException {
      long s = 0;
      for (LongWritable v : values) {
        s += v.get();
      }
      sum.set(s);
      context.write(key, sum);
    }
  }

  /** Counts its share of distinct keys, their largest and total degree; one output line. */
  public static class KeyStatsReducer extends Reducer<LongWritable, LongWritable, Text, NullWritable> {
    private long distinct;
    private long max;
    private long sum;

    @Override
    protected void reduce(LongWritable key, Iterable<LongWritable> values, Context context) {
      long s = 0;
      for (LongWritable v : values) {
        s += v.get();
      }
      distinct++;
      sum += s;
      max = Math.max(max, s);
    }

    @Override
    protected void cleanup(Context context) throws IOException, InterruptedException {
      context.getCounter(KeyStatsCounters.DISTINCT_KEYS).increment(distinct);
      context.getCounter(KeyStatsCounters.KEY_ROWS).increment(sum);
      context.write(new Text(distinct + "\t" + max + "\t" + sum), NullWritable.get());
    }
  }
}
