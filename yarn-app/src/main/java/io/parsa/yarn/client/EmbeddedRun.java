package io.parsa.yarn.client;

import io.parsa.yarn.JobSpec;
import io.parsa.yarn.ParsaYarnConfig;
import io.parsa.yarn.am.PartitionMaster;
import io.parsa.yarn.embedded.EmbeddedLauncher;
import io.parsa.yarn.rpc.Secrets;
import io.parsa.yarn.worker.Worker;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs partition-u inside this JVM: the master, its servers and its workers as threads over loopback RPC. The
 * entry point for laptops, tests and the pipeline when no cluster is configured.
 */
public final class EmbeddedRun {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedRun.class);

  private final Configuration conf;
  private final JobSpec job;

  public EmbeddedRun(Configuration conf, JobSpec job) {
    this.conf = job.applyTo(conf);
    this.job = job;
  }

  /** Returns 0 on success, 1 on failure (diagnostics on stderr). */
  public int run() throws Exception {
    String secret = Secrets.generate();
    PartitionMaster master = new PartitionMaster(job, conf, secret, "127.0.0.1", "127.0.0.1");
    String address = master.start();
    LOG.info("partition-u (embedded): k={}, {} workers, {} servers, {} blocks", job.k, job.workers, job.servers,
        job.blockPaths.size());
    EmbeddedLauncher launcher = new EmbeddedLauncher(job, conf, secret, address, master, crashHook(conf));
    PartitionMaster.Outcome outcome = master.run(launcher,
        (p, line) -> System.err.println("partition-u: " + line));
    if (!outcome.success) {
      System.err.println("partition-u failed: " + outcome.diagnostics);
      return 1;
    }
    System.err.println("partition-u: output in " + job.output);
    return 0;
  }

  /** The test fault hook of {@link ParsaYarnConfig#TEST_CRASH_WORKER_ID}, or null. */
  static Worker.BlockHook crashHook(Configuration conf) {
    int id = conf.getInt(ParsaYarnConfig.TEST_CRASH_WORKER_ID, -1);
    int after = conf.getInt(ParsaYarnConfig.TEST_CRASH_AFTER_BLOCKS, -1);
    if (id < 0 || after < 0) {
      return null;
    }
    return (workerId, done) -> {
      if (workerId == id && done == after) {
        throw new EmbeddedLauncher.SimulatedCrash("test hook: worker " + workerId + " crashes after " + done
            + " blocks");
      }
    };
  }
}
