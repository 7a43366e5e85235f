package io.parsa.jobs.baseline;

import io.parsa.avro.GraphRow;
import io.parsa.avro.UAssignment;
import io.parsa.common.OutputPaths;
import io.parsa.common.ParsaTool;
import io.parsa.jobs.mr.ConsistencyException;
import io.parsa.jobs.mr.Jobs;
import io.parsa.yarn.io.PartCounts;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.PartStats;
import io.parsa.jobs.mr.WholeFileAvroKeyInputFormat;
import org.apache.avro.mapreduce.AvroJob;
import org.apache.avro.mapreduce.AvroKeyOutputFormat;
import org.apache.avro.specific.SpecificData;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.LazyOutputFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Baseline U placement (map-only): blocks to a u-assignment without Parsa, so the pipeline can run and be compared
 * with {@code --algorithm random|hash}. random: part = mix(seed, id) mod k (SplitMix64, see
 * {@link io.parsa.jobs.mr.Mix}); hash: part = id mod k (non-negative remainder; for libsvm ids
 * (file &lt;&lt; 40 | line) this is the line number mod k for k dividing 2^40, i.e. round robin per file).
 *
 * <p>Output: one Avro UAssignment file per block, {@code block-NNNNNN.avro} for the block at position NNNNNN in
 * name order (aligned with the blocks as partition-u's output is), plus {@code _SUCCESS}.
 */
public class BaselineAssignTool extends ParsaTool {

  private static final Logger LOG = LoggerFactory.getLogger(BaselineAssignTool.class);

  /** Configuration key of the algorithm ("random" or "hash"). */
  public static final String ALGORITHM = "parsa.baseline.algorithm";

  /** Counters of the baseline job. */
  public enum Counters {
    /** Rows read from the blocks. */
    ROWS_IN,
    /** UAssignment records written. */
    ROWS_OUT
  }

  @Override
  protected String name() {
    return "assign-baseline";
  }

  @Override
  protected String description() {
    return "assign rows U to k parts by a baseline (random: seeded mix of the row id; hash: id mod k), map-only";
  }

  @Override
  protected java.util.Set<String> requiredOptions() {
    return java.util.Set.of("blocks", "output", "k");
  }

  @Override
  protected Options options() {
    return new Options()
        .addOption(opt("blocks", "DIR", "graph blocks (Avro GraphRow) from ingest"))
        .addOption(opt("output", "DIR", "u-assignment output directory (Avro UAssignment)"))
        .addOption(opt("k", "K", "number of parts"))
        .addOption(opt("algorithm", "NAME", "random (default) or hash"))
        .addOption(opt("seed", "N", "seed of the random placement (default " + MrKeys.SEED_DEFAULT + ")"))
        .addOption(flag("overwrite", "replace an existing output"));
  }

  @Override
  protected int run(CommandLine cl) throws Exception {
    Path blocks = new Path(required(cl, "blocks"));
    Path out = new Path(required(cl, "output"));
    if (!cl.hasOption("k")) {
      required(cl, "k");
    }
    int k = intOpt(cl, "k", 0, 1);
    String algorithm = choiceOpt(cl, "algorithm", "random", "random", "hash");
    long seed = longOpt(cl, "seed", MrKeys.SEED_DEFAULT, Long.MIN_VALUE);
    boolean overwrite = cl.hasOption("overwrite");

    FileSystem fs = out.getFileSystem(getConf());
    Jobs.requireComplete(getConf(), blocks, "blocks");
    PartCounts.requireRowsForEveryPart(blocks.getFileSystem(getConf()), blocks, k);
    OutputPaths.checkWritable(fs, out, overwrite);
    Path tmp = OutputPaths.tempFor(out);
    try {
      Job job = Jobs.newJob(getConf(), name(), algorithm + " u-assignment", BaselineAssignTool.class);
      job.getConfiguration().setInt(MrKeys.K, k);
      job.getConfiguration().setLong(MrKeys.SEED, seed);
      job.getConfiguration().set(ALGORITHM, algorithm);
      AvroJob.setDataModelClass(job, SpecificData.class);
      job.setInputFormatClass(WholeFileAvroKeyInputFormat.class);
      AvroJob.setInputKeySchema(job, GraphRow.getClassSchema());
      FileInputFormat.addInputPath(job, blocks);
      job.setMapperClass(BaselineMapper.class);
      job.setNumReduceTasks(0);
      LazyOutputFormat.setOutputFormatClass(job, AvroKeyOutputFormat.class); // the mapper writes its own files
      AvroJob.setOutputKeySchema(job, UAssignment.getClassSchema());
      FileOutputFormat.setOutputPath(job, tmp);
      Jobs.run(job);

      long in = Jobs.count(job, Counters.ROWS_IN);
      long written = Jobs.count(job, Counters.ROWS_OUT);
      long mapIn = Jobs.counters(job).findCounter(TaskCounter.MAP_INPUT_RECORDS).getValue();
      Jobs.checkEqual("baseline: rows written vs rows read", in, written);
      Jobs.checkEqual("baseline: rows read vs map input records", mapIn, in);
      long[] perPart = PartStats.sum(PartStats.readPerTask(fs, tmp), BaselineMapper.ROWS, k);
      long total = 0;
      for (long c : perPart) {
        total += c;
      }
      Jobs.checkEqual("baseline: rows over all parts", in, total);
      PartStats.delete(fs, tmp);
      OutputPaths.commit(fs, tmp, out, overwrite);
      String empty = PartCounts.emptyPartsWarning(perPart);
      if (empty != null) {
        LOG.warn("baseline {}: {}", algorithm, empty);
        System.err.println(name() + ": WARNING: " + empty);
      }
      LOG.info("baseline {}: {} rows over {} parts, |U_i| min {} max {}", algorithm, in, k,
          java.util.Arrays.stream(perPart).min().orElse(0), java.util.Arrays.stream(perPart).max().orElse(0));
      return 0;
    } catch (ConsistencyException e) {
      System.err.println(name() + ": " + e.getMessage());
      return 1;
    } finally {
      OutputPaths.discard(fs, tmp);
    }
  }

  /** Standalone entry point (the step is not in the CLI dispatcher; the pipeline calls it directly). */
  public static void main(String[] args) throws Exception {
    System.exit(org.apache.hadoop.util.ToolRunner.run(new org.apache.hadoop.conf.Configuration(),
        new BaselineAssignTool(), args));
  }
}
