package io.parsa.yarn.worker;

import io.parsa.yarn.JobSpec;
import io.parsa.yarn.ParsaYarnConfig;
import io.parsa.yarn.rpc.SchedulerClient;
import io.parsa.yarn.rpc.Secrets;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Entry point of a worker container: {@code WorkerMain --master host:port --id N}; the secret comes from the credentials. */
public final class WorkerMain {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerMain.class);

  private WorkerMain() {}

  public static void main(String[] args) {
    int rc;
    try {
      rc = run(args);
    } catch (Throwable t) {
      LOG.error("worker failed", t);
      rc = 1;
    }
    System.exit(rc);
  }

  static int run(String[] args) throws Exception {
    String master = null;
    int id = -1;
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (args[i].equals("--master")) {
        master = args[i + 1];
      } else if (args[i].equals("--id")) {
        id = Integer.parseInt(args[i + 1]);
      }
    }
    if (master == null || id < 0) {
      System.err.println("usage: WorkerMain --master host:port --id N");
      return 2;
    }
    String secret = Secrets.fromCurrentUser();
    Configuration base = new YarnConfiguration();
    JobSpec job;
    try (SchedulerClient c = new SchedulerClient(master, secret, id, 10_000, 60_000)) {
      job = JobSpec.fromJson(c.job());
    }
    Configuration conf = job.applyTo(base);
    int crashId = conf.getInt(ParsaYarnConfig.TEST_CRASH_WORKER_ID, -1);
    int crashAfter = conf.getInt(ParsaYarnConfig.TEST_CRASH_AFTER_BLOCKS, -1);
    Worker.BlockHook hook = crashId < 0 ? null : (w, done) -> {
      if (w == crashId && done == crashAfter) {
        LOG.warn("test hook: worker {} halts after {} blocks", w, done);
        Runtime.getRuntime().halt(137);
      }
    };
    LOG.info("worker {} starting (master {})", id, master);
    new Worker(job, id, secret, conf, master, new EnginePartitioner(job.k), hook).run();
    return 0;
  }
}
