package io.parsa.jobs.keyusage;

import io.parsa.common.JsonFiles;
import io.parsa.jobs.mr.AlignedJoin;
import io.parsa.jobs.mr.AlignedRowKeysMapper;
import io.parsa.jobs.mr.BufferedSequenceFileInputFormat;
import io.parsa.jobs.mr.Jobs;
import io.parsa.jobs.mr.JoinCounters;
import io.parsa.jobs.mr.JoinValue;
import io.parsa.jobs.mr.LongKeyComparator;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.PartStats;
import io.parsa.jobs.mr.RowJoinJob;
import io.parsa.jobs.mr.RowKeysReducer;
import io.parsa.jobs.partitionv.SharePartitioner;
import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.SequenceFileOutputFormat;

/**
 * Builds the key-usage dataset: the one join of the blocks with a u-assignment that partition-v and metrics share.
 * For every distinct key of the blocks one record (key, USAGE(placed parts, random parts)): the sorted parts whose
 * rows use the key under the u-assignment and under the seeded random U (row id → mix(seed, id) mod k). Its size is
 * Σ_j (|P_j| + |Q_j|) small integers, against |E| for the blocks, and it is what Algorithm 2 and the traffic
 * figures need: nothing of it depends on rows.
 *
 * <p>When the u-assignment is aligned with the blocks (one assignment file per block, as partition-u, refine-u and
 * assign-baseline write it) it is ONE job: each map task reads one block and its assignment file, emits per key of
 * the block the part sets of the rows using it (combined in the mapper, {@link AlignedRowKeysMapper}), a combiner
 * merges what several flushes repeat, and {@code reducers} reducers (keys hashed by SplitMix64) merge them per
 * key. Otherwise a reduce-side join ({@code joinReducers}) runs first. Either way the join counters prove every row
 * met exactly one assignment, and {@code _usage.json} ({@link Summary}) records rows and working sets per part of
 * both placements.
 */
public final class KeyUsageJob {

  /** The summary file of a key-usage directory. */
  public static final String SUMMARY = "_usage.json";

  /** Counters of the key-usage job. */
  public enum Counters {
    /** Distinct keys (records written). */
    KEYS,
    /** Σ_j |P_j| = Σ_i |N(U_i)| for the placed U. */
    KEY_PART_PAIRS,
    /** Σ_j |Q_j| for the random U. */
    KEY_PART_PAIRS_RANDOM
  }

  /** What a key-usage directory holds, beside its records; written as {@link #SUMMARY}. */
  public static final class Summary {
    public int k;
    public long seed;
    public long rows;
    public long nonZeros;
    /** Σ over rows of |N(u)| (distinct keys per row). */
    public long rowKeyPairs;
    public long keys;
    public long keyPartPairs;
    public long keyPartPairsRandom;
    /** Record files (one per reducer). */
    public int files;
    /** Whether the join ran map-side (aligned u-assignment). */
    public boolean mapSideJoin;
    public long[] rowsPlaced;
    public long[] rowsRandom;
    /** Non-zeros per part. */
    public long[] nonZerosPlaced;
    public long[] nonZerosRandom;
    /** Rows that carry a weight. */
    public long weightedRows;
    /** Weight per part (a row without a weight weighs 1); null where no row carries one. */
    public double[] weightsPlaced;
    public double[] weightsRandom;
    public long[] workingSetPlaced;
    public long[] workingSetRandom;

    public long[] rows(boolean random) {
      return random ? rowsRandom : rowsPlaced;
    }

    public long[] workingSets(boolean random) {
      return random ? workingSetRandom : workingSetPlaced;
    }
  }

  private KeyUsageJob() {}

  /**
   * Reducers (output files) when not given: one per {@link RowJoinJob#BYTES_PER_REDUCER} bytes of blocks, and at
   * least one per {@link io.parsa.jobs.partitionv.PartitionVTool#KEYS_PER_SHARE} distinct keys of ingest's
   * {@code _stats.json} (so a V placement share never has to hold more than that), at least 1.
   */
  public static int defaultReducers(Configuration conf, Path blocks) throws IOException {
    int r = RowJoinJob.defaultReducers(conf, blocks);
    FileSystem fs = blocks.getFileSystem(conf);
    if (fs.exists(blocks)) {
      io.parsa.yarn.io.BlockStats.Found f =
          io.parsa.yarn.io.BlockStats.read(fs, blocks, io.parsa.yarn.io.BlockFiles.list(fs, blocks).size());
      if (f.stats != null && f.stats.distinctKeys > 0) {
        long per = Math.max(1, conf.getLong(io.parsa.jobs.partitionv.PartitionVTool.KEYS_PER_SHARE,
            io.parsa.jobs.partitionv.PartitionVTool.KEYS_PER_SHARE_DEFAULT));
        r = (int) Math.max(r, Math.min(Integer.MAX_VALUE, (f.stats.distinctKeys + per - 1) / per));
      }
    }
    return r;
  }

  /** Reads the summary of a complete key-usage directory. */
  public static Summary read(FileSystem fs, Path dir) throws IOException {
    Path file = new Path(dir, SUMMARY);
    if (!fs.exists(file)) {
      throw new io.parsa.common.UsageException(dir + " is not a key-usage output (no " + SUMMARY + ")");
    }
    return JsonFiles.read(fs, file, Summary.class);
  }

  /**
   * Runs the job(s) writing the dataset into {@code outDir} (a fresh directory; the caller commits it), with
   * {@code work} for an intermediate join, checks every counter and writes the summary. Throws
   * {@link io.parsa.jobs.mr.ConsistencyException} if anything was lost, duplicated or invalid.
   */
  public static Summary run(Configuration conf, String step, Class<?> tool, Path blocks, Path uAssignment, int k,
      long seed, int reducers, int joinReducers, Path outDir, Path work) throws Exception {
    Configuration c = new Configuration(conf);
    c.setLong(MrKeys.SEED, seed);
    FileSystem fs = outDir.getFileSystem(c);
    boolean aligned = AlignedJoin.aligned(c, blocks, uAssignment);
    Job usage = Jobs.newJob(c, step, aligned ? "key usage (map-side join of blocks and u-assignment)"
        : "key usage u_ij and |N(U_i)|", tool);
    Configuration uc = usage.getConfiguration();
    uc.setInt(MrKeys.K, k);
    long rows;
    long nonZeros;
    long pairs;
    long[] rowsPlaced;
    long[] rowsRandom;
    Job join = null;
    if (aligned) {
      AlignedJoin.configureMapSide(usage, blocks, uAssignment);
    } else {
      Path joinDir = new Path(work, "join");
      join = RowJoinJob.newJoin(c, step, tool, blocks, uAssignment, k, RowKeysReducer.class, LongWritable.class,
          joinReducers, joinDir);
      Jobs.run(join);
      RowJoinJob.check(join);
      usage.setInputFormatClass(BufferedSequenceFileInputFormat.class);
      FileInputFormat.addInputPath(usage, joinDir);
      usage.setMapperClass(Mapper.class);
    }
    LongKeyComparator.mapOutputKeys(usage);
    usage.setMapOutputValueClass(JoinValue.class);
    usage.setCombinerClass(UsageCombiner.class);
    usage.setReducerClass(KeyUsageReducer.class);
    usage.setPartitionerClass(SharePartitioner.class);
    usage.setNumReduceTasks(reducers);
    usage.setOutputKeyClass(LongWritable.class);
    usage.setOutputValueClass(JoinValue.class);
    usage.setOutputFormatClass(SequenceFileOutputFormat.class);
    FileOutputFormat.setOutputPath(usage, outDir);
    Jobs.run(usage);

    Job rowJob = aligned ? usage : join;
    if (aligned) {
      AlignedJoin.check(usage);
    }
    rows = Jobs.count(rowJob, JoinCounters.ROWS_IN);
    nonZeros = Jobs.count(rowJob, JoinCounters.NONZEROS_IN);
    pairs = Jobs.count(rowJob, RowKeysReducer.Counters.ROW_KEY_PAIRS);
    // rows per part: the map tasks' side files (map-side join) or the join reducers' (reduce-side)
    Path rowStatsDir = aligned ? outDir : new Path(work, "join");
    java.util.Map<String, java.util.Map<String, long[]>> rowStats = PartStats.readPerTask(fs, rowStatsDir);
    rowsPlaced = PartStats.sum(rowStats, RowKeysReducer.ROWS_PLACED, k);
    rowsRandom = PartStats.sum(rowStats, RowKeysReducer.ROWS_RANDOM, k);
    Jobs.checkEqual(step + " key usage: rows over placed parts", rows, Arrays.stream(rowsPlaced).sum());
    Jobs.checkEqual(step + " key usage: rows over random parts", rows, Arrays.stream(rowsRandom).sum());
    long[] nonZerosPlaced = PartStats.sum(rowStats, io.parsa.jobs.mr.RowLoads.NONZEROS_PLACED, k);
    long[] nonZerosRandom = PartStats.sum(rowStats, io.parsa.jobs.mr.RowLoads.NONZEROS_RANDOM, k);
    Jobs.checkEqual(step + " key usage: non-zeros over placed parts", nonZeros, Arrays.stream(nonZerosPlaced).sum());
    Jobs.checkEqual(step + " key usage: non-zeros over random parts", nonZeros, Arrays.stream(nonZerosRandom).sum());
    long weightedRows = PartStats.sum(rowStats, io.parsa.jobs.mr.RowLoads.WEIGHTED_ROWS, 1)[0];
    if (aligned) {
      Jobs.checkEqual(step + " key usage: (row, key) pairs combined in the map tasks vs (row, key) pairs", pairs,
          Jobs.count(usage, AlignedRowKeysMapper.Counters.FLUSHED_PAIRS));
    } else {
      Jobs.checkEqual(step + " key usage: map input records vs (row, key) pairs", pairs,
          Jobs.counters(usage).findCounter(TaskCounter.MAP_INPUT_RECORDS).getValue());
    }
    long keys = Jobs.count(usage, Counters.KEYS);
    Jobs.checkEqual(step + " key usage: keys written", keys,
        Jobs.counters(usage).findCounter(TaskCounter.REDUCE_OUTPUT_RECORDS).getValue());
    java.util.Map<String, java.util.Map<String, long[]>> keyStats = PartStats.readPerTask(fs, outDir);
    Summary s = new Summary();
    s.k = k;
    s.seed = seed;
    s.rows = rows;
    s.nonZeros = nonZeros;
    s.rowKeyPairs = pairs;
    s.keys = keys;
    s.keyPartPairs = Jobs.count(usage, Counters.KEY_PART_PAIRS);
    s.keyPartPairsRandom = Jobs.count(usage, Counters.KEY_PART_PAIRS_RANDOM);
    s.files = reducers;
    s.mapSideJoin = aligned;
    s.rowsPlaced = rowsPlaced;
    s.rowsRandom = rowsRandom;
    s.nonZerosPlaced = nonZerosPlaced;
    s.nonZerosRandom = nonZerosRandom;
    s.weightedRows = weightedRows;
    if (weightedRows > 0) {
      s.weightsPlaced = PartStats.sumOfDoubles(rowStats, io.parsa.jobs.mr.RowLoads.WEIGHTS_PLACED, k);
      s.weightsRandom = PartStats.sumOfDoubles(rowStats, io.parsa.jobs.mr.RowLoads.WEIGHTS_RANDOM, k);
    }
    s.workingSetPlaced = PartStats.sum(keyStats, KeyUsageReducer.WORKING_SET_PLACED, k);
    s.workingSetRandom = PartStats.sum(keyStats, KeyUsageReducer.WORKING_SET_RANDOM, k);
    Jobs.checkEqual(step + " key usage: sum_i |N(U_i)| vs key-part pairs", s.keyPartPairs,
        Arrays.stream(s.workingSetPlaced).sum());
    Jobs.checkEqual(step + " key usage: sum_i |N(U_i)| (random U) vs key-part pairs", s.keyPartPairsRandom,
        Arrays.stream(s.workingSetRandom).sum());
    PartStats.delete(fs, outDir);
    JsonFiles.write(fs, new Path(outDir, SUMMARY), s);
    return s;
  }
}
