package io.parsa.yarn.worker;

import io.parsa.yarn.ContainerMain;
import io.parsa.yarn.ParsaYarnConfig;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Entry point of a worker container: {@code WorkerMain --master host:port --id N}; the secret comes from the credentials. */
public final class WorkerMain {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerMain.class);

  private WorkerMain() {}

  /** The application attempt of the master that launched this container, from the container id YARN gave it. */
  static int launchingAttempt() {
    String cid = System.getenv(ApplicationConstants.Environment.CONTAINER_ID.name());
    return cid == null ? 1 : ContainerId.fromString(cid).getApplicationAttemptId().getAttemptId();
  }

  public static void main(String[] args) {
    ContainerMain.main("worker", args, (id, master, secret, job) -> {
      Configuration conf = job.applyTo(new YarnConfiguration());
      int crashId = conf.getInt(ParsaYarnConfig.TEST_CRASH_WORKER_ID, -1);
      int crashAfter = conf.getInt(ParsaYarnConfig.TEST_CRASH_AFTER_BLOCKS, -1);
      Worker.BlockHook hook = crashId < 0 ? null : (w, done) -> {
        if (w == crashId && done == crashAfter) {
          LOG.warn("test hook: worker {} halts after {} blocks", w, done);
          Runtime.getRuntime().halt(137);
        }
      };
      new Worker(job, id, launchingAttempt(), secret, conf, master, new EnginePartitioner(job.k), hook).run();
    });
  }
}
