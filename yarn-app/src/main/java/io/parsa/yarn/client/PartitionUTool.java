package io.parsa.yarn.client;

import io.parsa.common.OutputPaths;
import io.parsa.common.ParsaTool;
import io.parsa.common.UsageException;
import io.parsa.yarn.JobSpec;
import io.parsa.yarn.ParsaYarnConfig;
import io.parsa.yarn.io.BlockFiles;
import io.parsa.yarn.io.BlockStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * {@code parsa partition-u}: partitions the rows U of a blocks directory over k parts with parallel Parsa
 * (Algorithm 4), as a YARN application or, without a cluster, embedded in this JVM (same master, worker and
 * server code over loopback RPC).
 *
 * <p>Output: {@code <output>/u-assignment/} (Avro UAssignment, one file per block, every row exactly once),
 * {@code <output>/neighbor-sets/} (Avro NeighborSetEntry, one file per server shard, final S_i ⊇ N(U_i)),
 * {@code <output>/_stats.json}; written to a hidden temporary sibling of {@code <output>} and moved into it entry
 * by entry on success (other entries of {@code <output>}, such as a pipeline's blocks, are left alone).
 */
public final class PartitionUTool extends ParsaTool {

  @Override
  protected String name() {
    return "partition-u";
  }

  @Override
  protected String description() {
    return "Partition the rows of a blocks directory over k parts with parallel Parsa (YARN application, or "
        + "embedded in this JVM when no cluster is configured). Writes <output>/u-assignment/, "
        + "<output>/neighbor-sets/ and <output>/_stats.json.";
  }

  @Override
  protected java.util.Set<String> requiredOptions() {
    return java.util.Set.of("blocks", "output", "k");
  }

  @Override
  protected Options options() {
    Options o = new Options();
    o.addOption(opt("blocks", "DIR", "blocks directory written by ingest (each *.avro file is one block, taken in name order)"));
    o.addOption(opt("output", "DIR", "output directory: u-assignment/, neighbor-sets/, _stats.json"));
    o.addOption(opt("k", "N", "number of parts (worker machines of the later training job)"));
    o.addOption(opt("workers", "N", "number of partitioning workers (default 2)"));
    o.addOption(opt("servers", "N", "number of neighbor-set servers (default on YARN: as many as the blocks' "
        + "distinct keys need at up to 8 GB a server, from ingest's _stats.json; else 1)"));
    o.addOption(opt("max-delay", "TAU", "maximal delay tau in blocks: a worker waits for its own pushes of blocks "
        + "older than tau before pulling; 0 = synchronous; default unbounded; only with --waves async"));
    o.addOption(opt("waves", "W|async", "stage 1 in waves of W consecutive blocks: a block starts from the "
        + "neighbor sets of exactly the waves before its own, so the same blocks and seed give the same "
        + "u-assignment whatever the timing and the number of workers; async: the paper's asynchronous scheme, a "
        + "block starts from whatever the servers hold (bounded by --max-delay), not reproducible with several "
        + "workers (default: W = --workers; async when --max-delay is given)"));
    o.addOption(opt("init-blocks", "N", "global initialisation (stage 0): one worker first partitions N sampled "
        + "blocks and the servers start from its neighbor sets; results dropped (default 1 where the first blocks "
        + "start together: waves of two or more blocks, or several asynchronous workers; else 0)"));
    o.addOption(opt("init-fraction", "F", "as --init-blocks, given as a fraction of the blocks (rounded up)"));
    o.addOption(opt("warmup-blocks", "A", "individual initialisation: A warm-up blocks per worker (per block of "
        + "a wave with --waves W) in stage 0, whose results are dropped; in waves they run one at a time, each "
        + "from the sets of the one before it (default 0)"));
    o.addOption(opt("initial-neighbor-sets", "DIR", "incremental partitioning: start from the neighbor-sets "
        + "directory of an earlier run"));
    o.addOption(opt("seed", "N", "random seed for the initialisation sample (default 1)"));
    o.addOption(flag("weighted", "balance the total row weight (GraphRow.weight) instead of row counts"));
    o.addOption(opt("mode", "MODE", "embedded | yarn | auto (default auto: yarn when yarn.resourcemanager.address "
        + "is set and mapreduce.framework.name=yarn)"));
    o.addOption(flag("overwrite", "replace an existing output directory"));
    o.addOption(opt("max-worker-failures", "N", "fail the application when more than N worker containers fail "
        + "within parsa.am.failures.window.ms (1 h; aborted, preempted or lost ones do not count, hung ones do; "
        + "default 3)"));
    o.addOption(opt("am-memory", "MB", "application master memory (default: from the number of blocks, at least "
        + Sizing.FLOOR_MB + ")"));
    o.addOption(opt("worker-memory", "MB", "worker container memory (default: from the largest block's non-zeros "
        + "and k in ingest's _stats.json, at least " + Sizing.FLOOR_MB + "; " + ParsaYarnConfig.DEFAULT_WORKER_MEMORY_MB
        + " without it). A size that cannot fit is refused before submitting"));
    o.addOption(opt("server-memory", "MB", "server container memory (default: from the distinct keys per server "
        + "and k in ingest's _stats.json, at least " + Sizing.FLOOR_MB + "; " + ParsaYarnConfig.DEFAULT_SERVER_MEMORY_MB
        + " without it). A size that cannot fit is refused before submitting"));
    o.addOption(opt("worker-vcores", "N", "worker container virtual cores (default 1)"));
    o.addOption(opt("server-vcores", "N", "server container virtual cores (default 1)"));
    o.addOption(opt("queue", "NAME", "YARN queue (default " + ParsaYarnConfig.DEFAULT_QUEUE + ")"));
    return o;
  }

  @Override
  protected int run(CommandLine cl) throws Exception {
    Configuration conf = new Configuration(getConf());
    JobSpec job = new JobSpec();
    job.k = intOpt(cl, "k", -1, 1);
    if (job.k < 1) {
      throw new UsageException("missing required option --k");
    }
    job.workers = intOpt(cl, "workers", 2, 1);
    job.servers = intOpt(cl, "servers", 1, 1);
    String tau = cl.getOptionValue("max-delay", "unbounded");
    job.maxDelay = tau.equals("unbounded") || tau.equals("inf") ? -1 : intOpt(cl, "max-delay", -1, 0);
    String waves = cl.getOptionValue("waves", cl.hasOption("max-delay") ? "async" : "");
    if (waves.equals("async")) {
      job.waveWidth = 0;
    } else if (cl.hasOption("max-delay")) {
      throw new UsageException("--max-delay bounds the asynchronous scheme only: give --waves async with it, not "
          + "--waves " + waves);
    } else if (waves.isEmpty()) {
      job.waveWidth = job.workers;
    } else if (!waves.trim().matches("-?\\d+")) {
      throw new UsageException("--waves expects a number of blocks or async, got '" + waves + "'");
    } else {
      job.waveWidth = intOpt(cl, "waves", job.workers, 1);
    }
    job.warmupBlocks = intOpt(cl, "warmup-blocks", 0, 0);
    job.seed = longOpt(cl, "seed", 1, Long.MIN_VALUE);
    job.weighted = cl.hasOption("weighted");
    job.overwrite = cl.hasOption("overwrite");
    job.maxWorkerFailures = intOpt(cl, "max-worker-failures", 3, 0);
    String mode = choiceOpt(cl, "mode", "auto", "embedded", "yarn", "auto");
    setInt(conf, cl, "am-memory", ParsaYarnConfig.AM_MEMORY_MB, 64);
    setInt(conf, cl, "worker-memory", ParsaYarnConfig.WORKER_MEMORY_MB, 64);
    setInt(conf, cl, "server-memory", ParsaYarnConfig.SERVER_MEMORY_MB, 64);
    setInt(conf, cl, "worker-vcores", ParsaYarnConfig.WORKER_VCORES, 1);
    setInt(conf, cl, "server-vcores", ParsaYarnConfig.SERVER_VCORES, 1);
    if (cl.hasOption("queue")) {
      conf.set(ParsaYarnConfig.QUEUE, cl.getOptionValue("queue"));
    }

    Path blocksDir = new Path(required(cl, "blocks"));
    FileSystem inFs = blocksDir.getFileSystem(conf);
    List<Path> blocks = BlockFiles.list(inFs, blocksDir);
    if (job.k >= 1) {
      // more parts than rows leaves parts empty whatever the balance; with k <= rows, balancing row counts to
      // within one row keeps every part non-empty
      io.parsa.yarn.io.PartCounts.requireRowsForEveryPart(inFs, blocksDir, job.k);
    }
    for (Path b : blocks) {
      job.blockPaths.add(inFs.makeQualified(b).toString());
    }
    // Rows per block from ingest's summary: the master never opens a block to count them.
    BlockStats.Found found = BlockStats.read(inFs, blocksDir, blocks.size());
    BlockStats blockStats = found.stats;
    if (blockStats != null) {
      job.rowsPerBlock = new ArrayList<>(blocks.size());
      for (long r : blockStats.rowsPerBlock) {
        job.rowsPerBlock.add(r);
      }
      job.nonZeros = blockStats.nonZeros;
      job.nonZerosPerBlock = new ArrayList<>(blocks.size());
      for (long z : blockStats.nonZerosPerBlock) {
        job.nonZerosPerBlock.add(z);
      }
      if (blockStats.weightPerBlock != null) {
        job.weightPerBlock = new ArrayList<>(blocks.size());
        for (double w : blockStats.weightPerBlock) {
          job.weightPerBlock.add(w);
        }
      }
      job.rowCountsSource = "rows per block from " + new Path(blocksDir, BlockStats.FILE);
    } else {
      job.rowCountsSource = "rows per block unknown: " + found.reason;
      if (!cl.hasOption("weighted")) {
        System.err.println("partition-u: " + found.reason + "; blocks start from the loads at their reservation "
            + "(balance holds; placement may vary slightly with timing)");
      }
    }
    if (cl.hasOption("init-blocks") && cl.hasOption("init-fraction")) {
      throw new UsageException("give either --init-blocks or --init-fraction, not both");
    }
    if (cl.hasOption("init-fraction")) {
      double f = doubleOpt(cl, "init-fraction", 0);
      if (!(f >= 0 && f <= 1)) {
        throw new UsageException("--init-fraction must be in [0, 1], got " + f);
      }
      job.initBlocks = (int) Math.ceil(f * blocks.size());
    } else {
      // Runs whose first blocks start together, from the same empty sets (waves of two or more, or several
      // asynchronous workers), start from a consistent labelling of the parts (paper §4.4, global initialisation);
      // without it, those blocks would each number the parts differently.
      boolean together = job.waveWidth > 1 || job.waveWidth == 0 && job.workers > 1;
      job.initBlocks = intOpt(cl, "init-blocks", together ? 1 : 0, 0);
    }
    if (cl.hasOption("initial-neighbor-sets")) {
      Path ins = new Path(cl.getOptionValue("initial-neighbor-sets"));
      FileSystem insFs = ins.getFileSystem(conf);
      if (!insFs.exists(ins)) {
        throw new UsageException("--initial-neighbor-sets " + ins + " does not exist");
      }
      job.initialNeighborSets = insFs.makeQualified(ins).toString();
    }
    Path out = new Path(required(cl, "output"));
    FileSystem outFs = out.getFileSystem(conf);
    out = outFs.makeQualified(out);
    // partition-u adds its products to --output (in the pipeline, a directory that also holds the blocks), so it
    // checks and replaces only its own entries.
    OutputPaths.checkWritable(outFs, out, job.overwrite, "u-assignment", "neighbor-sets", "_stats.json");
    Path tmp = OutputPaths.tempFor(out);
    job.output = out.toString();
    job.outputTmp = tmp.toString();
    job.checkpointDir = new Path(tmp.getParent(), tmp.getName() + ".ckpt").toString();
    boolean yarn = !runsEmbedded(mode, conf);
    Sizing.Plan plan = null;
    if (yarn) {
      // container sizes and servers for this input; explicit options win (checked before submitting)
      plan = Sizing.plan(conf, blockStats, job.k, job.workers, cl.hasOption("servers") ? job.servers : -1,
          blocks.size());
      job.servers = plan.servers;
      conf.setInt(ParsaYarnConfig.AM_MEMORY_MB, plan.amMb);
      conf.setInt(ParsaYarnConfig.WORKER_MEMORY_MB, plan.workerMb);
      conf.setInt(ParsaYarnConfig.SERVER_MEMORY_MB, plan.serverMb);
      for (String note : plan.notes) {
        System.err.println("partition-u: " + note);
      }
      long blockBytes = inFs.getContentSummary(blocksDir).getLength();
      if (ContainerJit.apply(conf, blockBytes)) {
        System.err.printf(Locale.ROOT, "partition-u: blocks of %.1f MiB: the containers run the C1 compiler alone"
            + " (%s; %s=tiered keeps both tiers)%n", blockBytes / 1048576.0, ContainerJit.C1_ONLY, ContainerJit.KEY);
      }
    }
    job.captureParsaConf(conf);

    outFs.mkdirs(new Path(tmp, "u-assignment"));
    boolean ok = false;
    try {
      int rc = yarn ? new YarnSubmitter(conf, job, plan, blockStats).run() : new EmbeddedRun(conf, job).run();
      ok = rc == 0;
      return rc;
    } finally {
      if (!ok) {
        OutputPaths.discard(outFs, tmp);
      }
      OutputPaths.discard(outFs, new Path(job.checkpointDir));
    }
  }

  /** Whether partition-u with {@code --mode mode} (embedded | yarn | auto) runs in this JVM rather than on YARN. */
  public static boolean runsEmbedded(String mode, Configuration conf) {
    return mode.equals("embedded") || (mode.equals("auto") && !clusterConfigured(conf));
  }

  /** True if the configuration names a real ResourceManager (and MapReduce runs on YARN). */
  static boolean clusterConfigured(Configuration conf) {
    return conf.get(YarnConfiguration.RM_ADDRESS) != null
        && conf.getTrimmed(YarnConfiguration.RM_ADDRESS).length() > 0
        && !YarnConfiguration.DEFAULT_RM_ADDRESS.equals(conf.getTrimmed(YarnConfiguration.RM_ADDRESS))
        && "yarn".equals(conf.getTrimmed("mapreduce.framework.name"));
  }

  private static void setInt(Configuration conf, CommandLine cl, String opt, String key, int min) {
    if (cl.hasOption(opt)) {
      conf.setInt(key, intOpt(cl, opt, 0, min));
    }
  }
}
