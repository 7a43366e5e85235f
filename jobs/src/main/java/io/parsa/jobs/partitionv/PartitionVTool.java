package io.parsa.jobs.partitionv;

import io.parsa.avro.VAssignment;
import io.parsa.common.OutputPaths;
import io.parsa.common.ParsaTool;
import io.parsa.common.UsageException;
import io.parsa.engine.VPlacement;
import io.parsa.jobs.keyusage.KeyUsageInput;
import io.parsa.jobs.keyusage.KeyUsageJob;
import io.parsa.jobs.keyusage.ShareInputFormat;
import io.parsa.jobs.mr.ConsistencyException;
import io.parsa.jobs.mr.Jobs;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.PartStats;
import io.parsa.jobs.mr.RowJoinJob;
import io.parsa.jobs.mr.WholeFileAvroKeyInputFormat;
import java.util.Arrays;
import java.util.Map;
import org.apache.avro.mapreduce.AvroJob;
import org.apache.avro.mapreduce.AvroKeyOutputFormat;
import org.apache.avro.specific.SpecificData;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * partition-v: assigns every key of V to a server part by Algorithm 2 (paper section 3.2), given the U partition.
 *
 * <p>Input: the key-usage dataset ({@code --key-usage}, one record per key with the parts that use it, written by
 * the {@code key-usage} step and shared with metrics), or blocks and a u-assignment, from which the same dataset is
 * built first in a work directory ({@link KeyUsageJob}: the blocks ⋈ u-assignment join, map-side when the
 * u-assignment is aligned with the blocks, with J reducers, {@code --join-reducers}, by default one per
 * {@link RowJoinJob#BYTES_PER_REDUCER} bytes of blocks). Then:
 * <ol>
 *   <li><b>sweep</b> (map-only, R tasks, {@link ShareInputFormat}: share s = the key-usage files whose index is s mod
 *       R, whole): the V placement of {@link SweepMapper} against the task's own costs started at |N(U_i)| / R.
 *       With R = 1 one task reads every key: exactly the paper's single sweep (method sweep); with R &gt; 1 each
 *       task sees about 1/R of every part's keys (keys are hashed to files) and balances its 1/R share of the
 *       traffic, the shares adding up to T_i.</li>
 *   <li><b>renumber</b> (only with {@code --renumber}, map-only, whole files): new keys so that part p owns the
 *       contiguous range [sum_{q&lt;p} |V_q|, sum_{q&lt;=p} |V_q|) ({@link RenumberMapper}).</li>
 * </ol>
 * The sweep reads only the key-usage dataset (Σ_j |P_j| small integers), never the rows.
 *
 * <p>V is the set of keys that occur in the blocks, so every key is used by at least one part; the least-loaded
 * fallback of {@link Algorithm2} for unused keys is never reached from this input (counter KEYS_WITHOUT_PART).
 *
 * <p>Output: Avro VAssignment files {@code part-m-NNNNN.avro} (every used key exactly once) and {@code _SUCCESS}.
 */
public class PartitionVTool extends ParsaTool {

  private static final Logger LOG = LoggerFactory.getLogger(PartitionVTool.class);

  /** |N(U_i)| for each part, comma separated (set by the driver for the sweep). */
  public static final String WORKING_SETS = "parsa.partitionv.working.sets";
  /** Number of sweeper shares R (int). */
  public static final String SHARES = "parsa.partitionv.shares";
  /** Whether the sweep places keys by the parts using them under the random U (boolean, default false). */
  public static final String USE_RANDOM_PART = "parsa.partitionv.use.random.part";
  /** V placement method: sweep, singles-first or balanced (see {@link VPlacement.Method}; default balanced). */
  public static final String METHOD = "parsa.partitionv.method";
  /** Default of {@link #METHOD}, chosen by measurement (docs/quality.md). */
  public static final VPlacement.Method DEFAULT_METHOD = VPlacement.Method.BALANCED;
  /** Most keys one task of a buffering V placement method holds when --reducers is not given (long). */
  public static final String KEYS_PER_SHARE = "parsa.partitionv.keys.per.share";
  public static final long KEYS_PER_SHARE_DEFAULT = 8_000_000L;
  /** Renumber start offsets: "task:o_0,o_1,...;task:..." (set by the driver for the renumber pass). */
  public static final String OFFSETS = "parsa.partitionv.renumber.offsets";

  /** Counters of partition-v. */
  public enum Counters {
    /** Keys given a part by the sweep. */
    KEYS_ASSIGNED,
    /** Keys no part uses (assigned to the least-cost part); zero when V comes from the rows. */
    KEYS_WITHOUT_PART,
    /** Keys given a new key (--renumber). */
    KEYS_RENUMBERED
  }

  @Override
  protected String name() {
    return "partition-v";
  }

  @Override
  protected String description() {
    return "assign every key V to one of k server parts by the paper's Algorithm 2, given the u-assignment";
  }

  @Override
  protected java.util.Set<String> requiredOptions() {
    return java.util.Set.of("output", "k");
  }

  @Override
  protected Options options() {
    return new Options()
        .addOption(opt("key-usage", "DIR", "key-usage dataset of the u-assignment (written by the key-usage step;"
            + " instead of --blocks and --u-assignment)"))
        .addOption(opt("blocks", "DIR", "graph blocks (Avro GraphRow), with --u-assignment, when no --key-usage"))
        .addOption(opt("u-assignment", "DIR", "u-assignment (Avro UAssignment), with --blocks, when no --key-usage"))
        .addOption(opt("output", "DIR", "v-assignment output directory (Avro VAssignment)"))
        .addOption(opt("k", "K", "number of parts (as in the u-assignment)"))
        .addOption(opt("reducers", "R", "number of independent V placement tasks (shares of the key usage; default:"
            + " -D mapreduce.job.reduces, else 1, which is exactly the paper's single sweep; the buffering methods"
            + " take at least one per " + KEYS_PER_SHARE_DEFAULT + " keys, -D " + KEYS_PER_SHARE + ")"))
        .addOption(opt("join-reducers", "J", "without --key-usage: reducers of the blocks-u-assignment join and key"
            + " usage (default: one per "
            + (RowJoinJob.BYTES_PER_REDUCER_DEFAULT >> 20) + " MiB of blocks, -D " + RowJoinJob.BYTES_PER_REDUCER
            + ", at least 1)"))
        .addOption(opt("method", "M", "V placement: balanced (default: greedy + local search to a fixed point over"
            + " key signatures, buffers a share in memory), singles-first (Algorithm 2 with keys used by one part"
            + " first) or sweep (the paper's single Algorithm 2 sweep in key order, streaming)"))
        .addOption(flag("renumber", "give new keys so that each part owns one contiguous key range"))
        .addOption(flag("overwrite", "replace an existing output"));
  }

  @Override
  protected int run(CommandLine cl) throws Exception {
    Path out = new Path(required(cl, "output"));
    required(cl, "k");
    int k = intOpt(cl, "k", 0, 1);
    boolean renumber = cl.hasOption("renumber");
    boolean overwrite = cl.hasOption("overwrite");
    KeyUsageInput input = KeyUsageInput.of(getConf(), cl, k);

    Configuration conf = getConf();
    if (cl.hasOption("method")) {
      try {
        conf.set(METHOD, VPlacement.Method.parse(cl.getOptionValue("method")).cliName());
      } catch (IllegalArgumentException e) {
        throw new UsageException("--method: " + e.getMessage());
      }
    }
    FileSystem fs = out.getFileSystem(conf);
    OutputPaths.checkWritable(fs, out, overwrite);
    Path tmp = OutputPaths.tempFor(out);
    Path work = Jobs.workDirFor(out);
    long t0 = System.nanoTime();
    try {
      // 1. key usage (unless given)
      input.build(conf, name(), PartitionVTool.class, work, MrKeys.SEED_DEFAULT);
      long rows = input.summary().rows;
      long keys = input.summary().keys;
      int r = cl.hasOption("reducers") ? intOpt(cl, "reducers", 1, 1)
          : defaultShares(conf, method(conf), keys);

      // 2. sweep
      Path sweepDir = renumber ? new Path(work, "sweep") : tmp;
      SweepResult sr = sweep(conf, name(), input.dir(), input.summary(), sweepDir, k, r, false);
      long[] workingSets = sr.workingSets;
      long[] vSizes = sr.vSizes;
      long[] delta = sr.delta;
      Map<String, Map<String, long[]>> perTask = sr.perTask;

      // 3. renumber
      if (renumber) {
        Job ren = Jobs.newJob(conf, name(), "renumber keys into contiguous ranges", PartitionVTool.class);
        ren.getConfiguration().setInt(MrKeys.K, k);
        ren.getConfiguration().set(OFFSETS, offsetsString(perTask, vSizes, k));
        AvroJob.setDataModelClass(ren, SpecificData.class);
        ren.setInputFormatClass(WholeFileAvroKeyInputFormat.class);
        AvroJob.setInputKeySchema(ren, VAssignment.getClassSchema());
        FileInputFormat.addInputPath(ren, sweepDir);
        ren.setMapperClass(RenumberMapper.class);
        ren.setNumReduceTasks(0);
        AvroJob.setOutputKeySchema(ren, VAssignment.getClassSchema());
        ren.setOutputFormatClass(AvroKeyOutputFormat.class);
        FileOutputFormat.setOutputPath(ren, tmp);
        Jobs.run(ren);
        Jobs.checkEqual("partition-v renumber: keys renumbered", keys, Jobs.count(ren, Counters.KEYS_RENUMBERED));
      }

      OutputPaths.commit(fs, tmp, out, overwrite);
      long[] traffic = sr.traffic();
      LOG.info("partition-v: {} rows, {} keys, k={}, R={}{} in {} ms; max |N(U_i)| = {}, max |V_i| = {}, "
              + "max T_i = {}, sum T_i = {}", rows, keys, k, sr.shares, renumber ? ", renumbered" : "",
          (System.nanoTime() - t0) / 1_000_000, max(workingSets), max(vSizes), max(traffic),
          Arrays.stream(traffic).sum());
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
   * Sweep shares when not given: {@code -D mapreduce.job.reduces} (else 1) for the streaming sweep, whose memory does
   * not grow with the keys; for the buffering methods also at least one share per {@link #KEYS_PER_SHARE} keys
   * (default {@value #KEYS_PER_SHARE_DEFAULT}, about 12 bytes a key in the task's heap), so no task holds more keys
   * than a default map container fits.
   */
  static int defaultShares(Configuration conf, VPlacement.Method method, long keys) {
    int r = Math.max(1, conf.getInt("mapreduce.job.reduces", 1));
    if (method == VPlacement.Method.SWEEP) {
      return r;
    }
    long per = Math.max(1, conf.getLong(KEYS_PER_SHARE, KEYS_PER_SHARE_DEFAULT));
    return (int) Math.max(r, Math.min(Integer.MAX_VALUE, (keys + per - 1) / per));
  }

  /** Outcome of the sweep job. */
  public static final class SweepResult {
    /** |V|. */
    public final long keys;
    /** Sweep tasks (shares) that ran. */
    public final int shares;
    /** |N(U_i)|, |V_i| and the summed Algorithm 2 cost updates per part (T_i = workingSets + delta). */
    public final long[] workingSets;
    public final long[] vSizes;
    public final long[] delta;
    /** Part stats of each sweep task (for renumbering). */
    public final Map<String, Map<String, long[]>> perTask;

    SweepResult(long keys, int shares, long[] workingSets, long[] vSizes, long[] delta,
        Map<String, Map<String, long[]>> perTask) {
      this.keys = keys;
      this.shares = shares;
      this.workingSets = workingSets;
      this.vSizes = vSizes;
      this.delta = delta;
      this.perTask = perTask;
    }

    /** T_i of the assignment written. */
    public long[] traffic() {
      long[] t = new long[workingSets.length];
      for (int i = 0; i < t.length; i++) {
        t[i] = workingSets[i] + delta[i];
      }
      return t;
    }
  }

  /**
   * Runs the V placement over a key-usage dataset in min(r, files) shares, writing VAssignment files (newKey null)
   * into {@code sweepDir}.
   *
   * @param randomPart place by the parts using each key under the random U instead of the placed U (metrics uses
   *     this for its random-U + Algorithm-2-V variant)
   */
  public static SweepResult sweep(Configuration conf, String step, Path usageDir, KeyUsageJob.Summary usage,
      Path sweepDir, int k, int r, boolean randomPart) throws Exception {
    FileSystem fs = sweepDir.getFileSystem(conf);
    long keys = usage.keys;
    long[] workingSets = usage.workingSets(randomPart);
    int shares = Math.max(1, Math.min(r, usage.files));
    Job sweep = Jobs.newJob(conf, step, "V placement over " + shares + " share(s) of the key usage",
        PartitionVTool.class);
    Configuration sc = sweep.getConfiguration();
    sc.setInt(MrKeys.K, k);
    sc.setInt(SHARES, shares);
    sc.setInt(ShareInputFormat.SHARES, shares);
    sc.setBoolean(USE_RANDOM_PART, randomPart);
    sc.set(WORKING_SETS, join(workingSets));
    sweep.setInputFormatClass(ShareInputFormat.class);
    FileInputFormat.addInputPath(sweep, usageDir);
    sweep.setMapperClass(SweepMapper.class);
    sweep.setNumReduceTasks(0);
    AvroJob.setDataModelClass(sweep, SpecificData.class);
    AvroJob.setOutputKeySchema(sweep, VAssignment.getClassSchema());
    sweep.setOutputFormatClass(AvroKeyOutputFormat.class);
    FileOutputFormat.setOutputPath(sweep, sweepDir);
    Jobs.run(sweep);
    Jobs.checkEqual("partition-v sweep: keys assigned", keys, Jobs.count(sweep, Counters.KEYS_ASSIGNED));
    Jobs.checkEqual("partition-v sweep: map input records", keys,
        Jobs.counters(sweep).findCounter(TaskCounter.MAP_INPUT_RECORDS).getValue());
    Map<String, Map<String, long[]>> perTask = PartStats.readPerTask(fs, sweepDir);
    long[] vSizes = PartStats.sum(perTask, SweepMapper.KEYS, k);
    long[] delta = PartStats.sum(perTask, SweepMapper.DELTA, k);
    Jobs.checkEqual("partition-v sweep: sum_i |V_i|", keys, Arrays.stream(vSizes).sum());
    PartStats.delete(fs, sweepDir);
    return new SweepResult(keys, shares, workingSets, vSizes, delta, perTask);
  }

  private static long max(long[] a) {
    return Arrays.stream(a).max().orElse(0);
  }

  private static String join(long[] a) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < a.length; i++) {
      sb.append(i > 0 ? "," : "").append(a[i]);
    }
    return sb.toString();
  }

  /** The V placement method of the job configuration ({@link #METHOD}). */
  static VPlacement.Method method(Configuration conf) {
    return VPlacement.Method.parse(conf.get(METHOD, DEFAULT_METHOD.cliName()));
  }

  /** |N(U_i)| from the job configuration. */
  static long[] workingSets(Configuration conf) {
    String s = conf.get(WORKING_SETS);
    if (s == null) {
      throw new IllegalStateException(WORKING_SETS + " not set");
    }
    return Arrays.stream(s.split(",")).mapToLong(Long::parseLong).toArray();
  }

  /** The task number NNNNN of {@code part-m-NNNNN[.avro]} or of a task id {@code task_..._m_NNNNNN}. */
  static int taskNumberOf(String name) {
    String base = name.endsWith(".avro") ? name.substring(0, name.length() - 5) : name;
    int cut = Math.max(base.lastIndexOf('-'), base.lastIndexOf('_'));
    return Integer.parseInt(base.substring(cut + 1));
  }

  /** Offsets of task {@code task}: start(p) + keys of part p in tasks numbered below {@code task}. */
  static long[] offsets(Configuration conf, int task, int k) {
    for (String entry : conf.get(OFFSETS, "").split(";")) {
      int colon = entry.indexOf(':');
      if (colon > 0 && Integer.parseInt(entry.substring(0, colon)) == task) {
        long[] o = Arrays.stream(entry.substring(colon + 1).split(",")).mapToLong(Long::parseLong).toArray();
        if (o.length != k) {
          throw new IllegalStateException("renumber offsets of task " + task + " have " + o.length + " parts");
        }
        return o;
      }
    }
    throw new IllegalStateException("no renumber offsets for sweep file of task " + task);
  }

  static String offsetsString(Map<String, Map<String, long[]>> perTask, long[] vSizes, int k) {
    java.util.TreeMap<Integer, long[]> byTask = new java.util.TreeMap<>();
    for (Map.Entry<String, Map<String, long[]>> e : perTask.entrySet()) {
      long[] c = e.getValue().get(SweepMapper.KEYS);
      byTask.put(taskNumberOf(e.getKey()), c == null ? new long[k] : c);
    }
    long[] next = new long[k];
    long start = 0;
    for (int p = 0; p < k; p++) {
      next[p] = start;
      start += vSizes[p];
    }
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<Integer, long[]> e : byTask.entrySet()) {
      if (sb.length() > 0) {
        sb.append(';');
      }
      sb.append(e.getKey()).append(':').append(join(next));
      for (int p = 0; p < k; p++) {
        next[p] += e.getValue()[p];
      }
    }
    return sb.toString();
  }
}
