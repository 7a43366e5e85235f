package io.parsa.jobs.mr;

import io.parsa.common.UsageException;
import java.io.IOException;
import org.apache.avro.mapreduce.AvroJob;
import org.apache.avro.specific.SpecificData;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.lib.input.MultipleInputs;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.SequenceFileOutputFormat;

/**
 * Wiring and checks of the reduce-side join of the blocks (GraphRow) with a u-assignment (UAssignment) on row id,
 * shared by partition-v, metrics and reshuffle. The Avro inputs are read into the generated classes
 * (SpecificData) with their schemas as reader schemas ({@link AvroInputs}).
 */
public final class RowJoinJob {

  /**
   * Bytes of (compressed) blocks per reducer of the |E|-sized join when a step is not told its join reducers
   * (long, default {@link #BYTES_PER_REDUCER_DEFAULT}); a join never has fewer than one reducer.
   */
  public static final String BYTES_PER_REDUCER = "parsa.mr.join.bytes.per.reducer";
  /** Default of {@link #BYTES_PER_REDUCER}: 256 MiB of compressed blocks, about 10^8 non-zeros. */
  public static final long BYTES_PER_REDUCER_DEFAULT = 256L << 20;

  private RowJoinJob() {}

  /**
   * Join reducers derived from the input: one per {@link #BYTES_PER_REDUCER} bytes of {@code blocks}, at least 1
   * (1 when {@code blocks} does not exist).
   */
  public static int defaultReducers(Configuration conf, Path blocks) throws IOException {
    long per = conf.getLong(BYTES_PER_REDUCER, BYTES_PER_REDUCER_DEFAULT);
    if (per <= 0) {
      throw new UsageException(BYTES_PER_REDUCER + " must be positive, got " + per);
    }
    org.apache.hadoop.fs.FileSystem fs = blocks.getFileSystem(conf);
    // a missing input is reported by the step's own input check, with its name
    return fs.exists(blocks) ? reducersFor(fs.getContentSummary(blocks).getLength(), per) : 1;
  }

  /** ceil(bytes / per), at least 1 and at most Integer.MAX_VALUE. */
  public static int reducersFor(long bytes, long per) {
    long n = bytes / per + (bytes % per == 0 ? 0 : 1);
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, n));
  }

  /** Sets the two inputs and the map output types; the caller sets the reducer and output. */
  public static void configure(Job job, Path blocks, Path uAssignment) {
    AvroJob.setDataModelClass(job, SpecificData.class);
    MultipleInputs.addInputPath(job, blocks, AvroInputs.GraphRows.class, RowMapper.class);
    MultipleInputs.addInputPath(job, uAssignment, AvroInputs.UAssignments.class, AssignmentMapper.class);
    LongKeyComparator.mapOutputKeys(job);
    job.setMapOutputValueClass(JoinValue.class);
  }

  /**
   * A complete join job of one step: the two inputs, k, {@code reducers} reduce tasks running {@code reducer}
   * with output key {@code outKey} (value {@link JoinValue}) as a SequenceFile in {@code outDir}. The caller may
   * add settings (such as {@link MrKeys#CARRY_RAW}) before running it.
   */
  @SuppressWarnings("rawtypes")
  public static Job newJoin(Configuration conf, String step, Class<?> tool, Path blocks, Path uAssignment, int k,
      Class<? extends Reducer> reducer, Class<?> outKey, int reducers, Path outDir) throws IOException {
    Job join = Jobs.newJob(conf, step, "join rows with u-assignment", tool);
    join.getConfiguration().setInt(MrKeys.K, k);
    configure(join, blocks, uAssignment);
    join.setReducerClass(reducer);
    join.setNumReduceTasks(reducers);
    join.setOutputKeyClass(outKey);
    join.setOutputValueClass(JoinValue.class);
    join.setOutputFormatClass(SequenceFileOutputFormat.class);
    FileOutputFormat.setOutputPath(join, outDir);
    return join;
  }

  /** Fails unless every row met exactly one assignment and vice versa. Returns the number of rows. */
  public static long check(Job job) throws IOException {
    Jobs.checkZero(job, JoinCounters.ROW_WITHOUT_ASSIGNMENT, JoinCounters.ASSIGNMENT_WITHOUT_ROW,
        JoinCounters.DUPLICATE_ROW, JoinCounters.DUPLICATE_ASSIGNMENT, JoinCounters.BAD_PART);
    long rows = Jobs.count(job, JoinCounters.ROWS_IN);
    Jobs.checkEqual(job.getJobName() + ": assignments vs rows", rows, Jobs.count(job, JoinCounters.ASSIGNMENTS_IN));
    Jobs.checkEqual(job.getJobName() + ": joined rows vs rows", rows, Jobs.count(job, JoinCounters.JOINED_ROWS));
    long mapIn = Jobs.counters(job).findCounter(TaskCounter.MAP_INPUT_RECORDS).getValue();
    Jobs.checkEqual(job.getJobName() + ": map input records vs rows + assignments", 2 * rows, mapIn);
    return rows;
  }
}
