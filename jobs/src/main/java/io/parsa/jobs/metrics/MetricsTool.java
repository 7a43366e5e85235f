package io.parsa.jobs.metrics;

import io.parsa.avro.MetricsReport;
import io.parsa.avro.PlacementMetrics;
import io.parsa.common.OutputPaths;
import io.parsa.common.ParsaTool;
import io.parsa.common.UsageException;
import io.parsa.engine.TrafficBound;
import io.parsa.engine.VPlacement;
import io.parsa.jobs.keyusage.KeyUsageInput;
import io.parsa.jobs.keyusage.KeyUsageJob;
import io.parsa.jobs.mr.AvroInputs;
import io.parsa.jobs.mr.BufferedSequenceFileInputFormat;
import io.parsa.jobs.mr.ConsistencyException;
import io.parsa.jobs.mr.Jobs;
import io.parsa.jobs.mr.JoinValue;
import io.parsa.jobs.mr.LongKeyComparator;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.PartStats;
import io.parsa.jobs.partitionv.PartitionVTool;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import org.apache.avro.mapreduce.AvroJob;
import org.apache.avro.specific.SpecificData;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.lib.input.MultipleInputs;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.SequenceFileOutputFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * metrics: the traffic figures of a placement (u-assignment + v-assignment) and of a seeded random placement of
 * both U (part = mix(seed, row id) mod k) and V (part = mix(seed ^ salt, key) mod k), computed in the same run.
 *
 * <p>Input: the key-usage dataset ({@code --key-usage}: per key the parts that use it under the placed U and under
 * the random U of the same seed; rows per part in its summary), shared with partition-v, or blocks and the
 * u-assignment, from which it is built first in a work directory ({@link KeyUsageJob}). Jobs: <b>keys</b>: per key,
 * join its usage with the v-assignment and add the key's contribution to every per-part figure
 * ({@link KeyMetricsReducer}); the driver sums the part stats into a {@link MetricsReport}. Unless
 * {@code --no-variant}, partition-v's sweep also runs on the random U of the same dataset, and the report's
 * {@code randomUAlgorithm2V} holds that placement's figures: random U, V by Algorithm 2. No job reads the rows
 * when the key usage is given.
 *
 * <p>Output: {@code report.json} (Avro JSON encoding of MetricsReport), {@code report.txt} (the table also
 * printed on stdout), {@code report.html} (self-contained: inline SVG charts), {@code _SUCCESS}.
 */
public class MetricsTool extends ParsaTool {

  /** Whether the step prints its table on the console (the pipeline prints it once, at its end). */
  public static final String PRINT_TABLE = "parsa.metrics.print.table";

  private static final Logger LOG = LoggerFactory.getLogger(MetricsTool.class);

  /** Counters of metrics. */
  public enum Counters {
    /** VAssignment records read. */
    V_RECORDS_IN,
    /** Distinct keys used by some row (|V|). */
    KEYS,
    /** Error: a used key with no v-assignment. */
    KEYS_WITHOUT_V,
    /** Error: a v-assignment for a key no row uses. */
    V_WITHOUT_USE,
    /** Error: extra v-assignments of one key. */
    DUPLICATE_V,
    /** Error: a v-assignment part outside [0, k). */
    BAD_V_PART,
    /** VAssignment records of the variant (Algorithm 2 on the random U) read. */
    VARIANT_V_RECORDS_IN,
    /** Error: a used key without exactly one valid variant v-assignment. */
    VARIANT_V_INVALID
  }

  @Override
  protected String name() {
    return "metrics";
  }

  @Override
  protected String description() {
    return "per-part working sets M_i, traffic T_i, inner/inter accesses of a placement, against a seeded random"
        + " placement; writes report.json, report.txt and report.html";
  }

  @Override
  protected java.util.Set<String> requiredOptions() {
    return java.util.Set.of("v-assignment", "output", "k");
  }

  @Override
  protected Options options() {
    return new Options()
        .addOption(opt("key-usage", "DIR", "key-usage dataset of the u-assignment (written by the key-usage step;"
            + " instead of --blocks and --u-assignment)"))
        .addOption(opt("blocks", "DIR", "graph blocks (Avro GraphRow), with --u-assignment, when no --key-usage"))
        .addOption(opt("u-assignment", "DIR", "u-assignment (Avro UAssignment), with --blocks, when no --key-usage"))
        .addOption(opt("v-assignment", "DIR", "v-assignment (Avro VAssignment)"))
        .addOption(opt("output", "DIR", "metrics output directory"))
        .addOption(opt("k", "K", "number of parts"))
        .addOption(opt("seed", "N", "seed of the random baseline placement (default " + MrKeys.SEED_DEFAULT
            + ", or the key usage's own; a --key-usage made with another seed is refused)"))
        .addOption(opt("algorithm", "LABEL", "label of the placement in the report (default parsa)"))
        .addOption(opt("reducers", "R", "reducers of the per-key job (default: -D mapreduce.job.reduces, else one per"
            + " file of the key usage, which has one per 256 MiB of blocks); the variant's Algorithm 2 stays one"
            + " exact sweep"))
        .addOption(opt("join-reducers", "J", "without --key-usage: reducers of the blocks-u-assignment join and key"
            + " usage (default: from the blocks' size)"))
        .addOption(flag("no-variant", "skip the random-U + Algorithm-2-V figures (two jobs fewer)"))
        .addOption(flag("overwrite", "replace an existing output"));
  }

  @Override
  protected int run(CommandLine cl) throws Exception {
    Path vAssign = new Path(required(cl, "v-assignment"));
    Path out = new Path(required(cl, "output"));
    required(cl, "k");
    int k = intOpt(cl, "k", 0, 1);
    String algorithm = cl.getOptionValue("algorithm", "parsa");
    int givenReducers = cl.hasOption("reducers") ? intOpt(cl, "reducers", 1, 1)
        : getConf().getInt("mapreduce.job.reduces", -1);
    boolean withVariant = !cl.hasOption("no-variant");
    boolean overwrite = cl.hasOption("overwrite");

    Configuration conf = getConf();
    KeyUsageInput input = KeyUsageInput.of(conf, cl, k);
    long seed = longOpt(cl, "seed", input.given() ? input.summary().seed : MrKeys.SEED_DEFAULT, Long.MIN_VALUE);
    if (input.given() && seed != input.summary().seed) {
      throw new UsageException("--seed " + seed + " but the key usage " + input.dir() + " holds the random U of seed "
          + input.summary().seed + "; run key-usage with --seed " + seed + " or leave --seed out");
    }
    FileSystem fs = out.getFileSystem(conf);
    Jobs.requireComplete(conf, vAssign, "v-assignment");
    OutputPaths.checkWritable(fs, out, overwrite);
    Path tmp = OutputPaths.tempFor(out);
    Path work = Jobs.workDirFor(out);
    long t0 = System.nanoTime();
    try {
      input.build(conf, name(), MetricsTool.class, work, seed);
      KeyUsageJob.Summary usage = input.summary();
      Path usageDir = input.dir();
      long rows = usage.rows;
      long nonZeros = usage.nonZeros;
      long[] rowsPlaced = usage.rowsPlaced;
      long[] rowsRandom = usage.rowsRandom;

      Path variantDir = new Path(work, "v-random-u");
      if (withVariant) {
        // the variant is the paper's Algorithm 2 (one sweep), whatever partition-v's default method is
        Configuration vc = new Configuration(conf);
        vc.set(PartitionVTool.METHOD, VPlacement.Method.SWEEP.cliName());
        PartitionVTool.sweep(vc, name(), usageDir, usage, variantDir, k, 1, true);
      }

      Job keys = Jobs.newJob(conf, name(), "per-key traffic against the v-assignment", MetricsTool.class);
      Configuration kc = keys.getConfiguration();
      kc.setInt(MrKeys.K, k);
      kc.setLong(MrKeys.SEED, seed);
      AvroJob.setDataModelClass(keys, SpecificData.class);
      MultipleInputs.addInputPath(keys, usageDir, BufferedSequenceFileInputFormat.class, Mapper.class);
      MultipleInputs.addInputPath(keys, vAssign, AvroInputs.VAssignments.class, VPartMapper.class);
      if (withVariant) {
        MultipleInputs.addInputPath(keys, variantDir, AvroInputs.VAssignments.class, VPartMapper.Variant.class);
        kc.setBoolean(KeyMetricsReducer.WITH_VARIANT, true);
      }
      LongKeyComparator.mapOutputKeys(keys);
      keys.setMapOutputValueClass(JoinValue.class);
      keys.setReducerClass(KeyMetricsReducer.class);
      // the per-key job reads |V| usage records and two v-assignments: as many reducers as the key usage has files
      keys.setNumReduceTasks(givenReducers > 0 ? givenReducers : Math.max(1, usage.files));
      keys.setOutputKeyClass(NullWritable.class);
      keys.setOutputValueClass(NullWritable.class);
      keys.setOutputFormatClass(SequenceFileOutputFormat.class);
      Path keysDir = new Path(work, "keys");
      FileOutputFormat.setOutputPath(keys, keysDir);
      Jobs.run(keys);
      Jobs.checkZero(keys, Counters.KEYS_WITHOUT_V, Counters.V_WITHOUT_USE, Counters.DUPLICATE_V, Counters.BAD_V_PART,
          Counters.VARIANT_V_INVALID);
      long nKeys = Jobs.count(keys, Counters.KEYS);
      Jobs.checkEqual("metrics: keys vs the key usage's", usage.keys, nKeys);
      Jobs.checkEqual("metrics: v-assignment records vs used keys", nKeys, Jobs.count(keys, Counters.V_RECORDS_IN));
      Map<String, Map<String, long[]>> keyStats = PartStats.readPerTask(fs, keysDir);

      PlacementMetrics placed = placement(keyStats, KeyMetricsReducer.PLACED, rowsPlaced, usage.nonZerosPlaced,
          usage.weightsPlaced, k);
      PlacementMetrics random = placement(keyStats, KeyMetricsReducer.RANDOM, rowsRandom, usage.nonZerosRandom,
          usage.weightsRandom, k);
      PlacementMetrics variant = null;
      if (withVariant) {
        Jobs.checkEqual("metrics: variant v-assignment records vs used keys", nKeys,
            Jobs.count(keys, Counters.VARIANT_V_RECORDS_IN));
        variant = placement(keyStats, KeyMetricsReducer.VARIANT, rowsRandom, usage.nonZerosRandom,
            usage.weightsRandom, k);
      }
      long sumV = placed.getParts().stream().mapToLong(p -> p.getServerKeys()).sum();
      Jobs.checkEqual("metrics: sum_i |V_i| vs keys", nKeys, sumV);
      Jobs.checkEqual("metrics: sum_i |V_i| (random) vs keys", nKeys,
          random.getParts().stream().mapToLong(p -> p.getServerKeys()).sum());

      MetricsReport report = MetricsReport.newBuilder().setK(k).setAlgorithm(algorithm).setRows(rows).setKeys(nKeys)
          .setNonZeros(nonZeros).setRandomSeed(seed).setPlaced(placed).setRandom(random)
          .setImprovementMaxWorkingSet(Reports.improvement(random.getMaxWorkingSet(), placed.getMaxWorkingSet()))
          .setImprovementMaxTraffic(Reports.improvement(random.getMaxTraffic(), placed.getMaxTraffic()))
          .setImprovementSumTraffic(Reports.improvement(random.getSumTraffic(), placed.getSumTraffic()))
          .setRandomUAlgorithm2V(variant)
          .setMaxTrafficLowerBound(maxTrafficLowerBound(keyStats, placed, k))
          .setMaxTrafficLowerBoundExact(k <= TrafficBound.EXACT_MAX_K)
          .build();
      fs.mkdirs(tmp);
      String text = Reports.text(report);
      write(fs, new Path(tmp, "report.json"), Reports.json(report));
      write(fs, new Path(tmp, "report.txt"), text);
      write(fs, new Path(tmp, "report.html"), Reports.html(report));
      OutputPaths.commit(fs, tmp, out, overwrite);
      if (conf.getBoolean(PRINT_TABLE, true)) {
        System.out.print(text);
      }
      LOG.info("metrics: {} rows, {} keys, k={} in {} ms -> {}", rows, nKeys, k,
          (System.nanoTime() - t0) / 1_000_000, out);
      return 0;
    } catch (ConsistencyException e) {
      System.err.println(name() + ": consistency check failed: " + e.getMessage());
      return 1;
    } finally {
      OutputPaths.discard(fs, tmp);
      OutputPaths.discard(fs, work);
    }
  }

  /**
   * Lower bound on T_max for the placed U over V placements that put each key on a user (see {@link TrafficBound}),
   * from the reducers' tallies: base_i = M_i − (keys used by part i alone), plus the weights of keys used by three
   * or more parts, per exact part set when k ≤ {@link TrafficBound#EXACT_MAX_K}.
   */
  static long maxTrafficLowerBound(Map<String, Map<String, long[]>> keyStats, PlacementMetrics placed, int k) {
    long[] singles = PartStats.sum(keyStats, KeyMetricsReducer.BOUND_SINGLES, k);
    double[] base = new double[k];
    for (int i = 0; i < k; i++) {
      base[i] = placed.getParts().get(i).getWorkingSet() - singles[i];
    }
    double lb = k <= TrafficBound.EXACT_MAX_K
        ? TrafficBound.exact(base, PartStats.sum(keyStats, KeyMetricsReducer.BOUND_MASK_WEIGHT, 1 << k))
        : TrafficBound.simple(base, PartStats.sum(keyStats, KeyMetricsReducer.BOUND_WEIGHT, 1)[0]);
    return (long) Math.ceil(lb - 1e-9);
  }

  private static PlacementMetrics placement(Map<String, Map<String, long[]>> stats, String p, long[] rows,
      long[] nonZeros, double[] weights, int k) {
    return Reports.placement(rows,
        PartStats.sum(stats, p + KeyMetricsReducer.WORKING_SET, k),
        PartStats.sum(stats, p + KeyMetricsReducer.SERVER_KEYS, k),
        PartStats.sum(stats, p + KeyMetricsReducer.INNER, k),
        PartStats.sum(stats, p + KeyMetricsReducer.SERVED, k), nonZeros, weights);
  }

  private static void write(FileSystem fs, Path file, String content) throws IOException {
    try (OutputStream os = fs.create(file, false)) {
      os.write(content.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** Reads a report.json written by this step. */
  public static MetricsReport readReport(FileSystem fs, Path metricsDir) throws IOException {
    try (java.io.InputStream in = fs.open(new Path(metricsDir, "report.json"))) {
      org.apache.avro.io.JsonDecoder dec =
          org.apache.avro.io.DecoderFactory.get().jsonDecoder(MetricsReport.getClassSchema(), in);
      return new org.apache.avro.specific.SpecificDatumReader<>(MetricsReport.class).read(null, dec);
    }
  }
}
