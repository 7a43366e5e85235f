package io.parsa.yarn.am;

import io.parsa.yarn.ContainerHost;
import io.parsa.yarn.ContainerMain;
import io.parsa.yarn.JobSpec;
import io.parsa.yarn.ParsaYarnConfig;
import io.parsa.yarn.rpc.Secrets;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entry point of the application master container: wires the job description, the secret, the
 * {@link PartitionMaster} and the {@link YarnLauncher} together, then reports the outcome to the ResourceManager.
 */
public final class YarnAppMaster {
  private static final Logger LOG = LoggerFactory.getLogger(YarnAppMaster.class);

  /** Staging file listing the servers' current host:port (one per line), for operators and tests. */
  public static final String SERVERS_FILE = "_servers.txt";

  private YarnAppMaster() {}

  public static void main(String[] args) {
    ContainerMain.exitWith("application master", YarnAppMaster::run);
  }

  static int run() throws Exception {
    JobSpec job = JobSpec.fromJson(Files.readString(Paths.get(YarnContainers.JOB_FILE)));
    Configuration conf = job.applyTo(new YarnConfiguration());
    String host = ContainerHost.advertised();
    String secret = Secrets.generate();
    String containerId = System.getenv(ApplicationConstants.Environment.CONTAINER_ID.name());
    int attempt = containerId == null ? 1
        : ContainerId.fromString(containerId).getApplicationAttemptId().getAttemptId();
    if (attempt > 1) {
      LOG.info("application attempt {}: taking over from the earlier attempt", attempt);
    }
    PartitionMaster master = new PartitionMaster(job, conf, secret, ContainerHost.bindAddress(conf, host), host,
        attempt);
    String address = master.start();
    YarnLauncher launcher = new YarnLauncher(conf, master, address, secret, host);
    launcher.start();
    Path staging = new Path(System.getenv(YarnContainers.ENV_STAGING));
    FileSystem fs = staging.getFileSystem(conf);
    PartitionMaster.Outcome outcome;
    try {
      // progress reaches the client through the ResourceManager (YarnLauncher's getProgress); here only the log
      String[] servers = {""};
      outcome = master.run(launcher, (p, line) -> {
        LOG.info("progress: {}", line);
        String now = String.join("\n", master.serverAddresses());
        if (!now.equals(servers[0])) {
          publish(fs, staging, SERVERS_FILE, now);
          servers[0] = now;
        }
      });
    } catch (RuntimeException e) {
      outcome = null;
      LOG.error("master failed", e);
    }
    boolean ok = outcome != null && outcome.success;
    String diag = outcome == null ? "master failed unexpectedly; see its log" : outcome.diagnostics;
    launcher.unregister(ok ? FinalApplicationStatus.SUCCEEDED : FinalApplicationStatus.FAILED, diag);
    return ok ? 0 : 1;
  }

  /** Writes a small staging file (temp file + rename, so a reader never sees half of it). */
  private static void publish(FileSystem fs, Path staging, String name, String text) {
    try {
      Path tmp = new Path(staging, "." + name + ".tmp");
      try (OutputStream out = fs.create(tmp, true)) {
        out.write(text.getBytes(StandardCharsets.UTF_8));
      }
      Path dst = new Path(staging, name);
      fs.delete(dst, false);
      fs.rename(tmp, dst);
    } catch (Exception e) {
      LOG.debug("could not publish {}: {}", name, e.toString());
    }
  }

  static int heapFor(Configuration conf, int memoryMb) {
    return ParsaYarnConfig.heapMb(conf, memoryMb);
  }
}
