package io.parsa.yarn.server;

import io.parsa.yarn.JobSpec;
import io.parsa.yarn.rpc.SchedulerClient;
import io.parsa.yarn.rpc.Secrets;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Entry point of a neighbor-set server container: {@code ServerMain --master host:port --id N}. */
public final class ServerMain {
  private static final Logger LOG = LoggerFactory.getLogger(ServerMain.class);

  private ServerMain() {}

  public static void main(String[] args) {
    int rc;
    try {
      rc = run(args);
    } catch (Throwable t) {
      LOG.error("server failed", t);
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
      System.err.println("usage: ServerMain --master host:port --id N");
      return 2;
    }
    String secret = Secrets.fromCurrentUser();
    JobSpec job;
    try (SchedulerClient c = new SchedulerClient(master, secret, id, 10_000, 60_000)) {
      job = JobSpec.fromJson(c.job());
    }
    Configuration conf = job.applyTo(new YarnConfiguration());
    String host = System.getenv(ApplicationConstants.Environment.NM_HOST.name());
    if (host == null) {
      host = java.net.InetAddress.getLocalHost().getCanonicalHostName();
    }
    LOG.info("server {} starting (master {})", id, master);
    new NeighborSetServer(job, id, secret, conf, master, "0.0.0.0", host).run();
    return 0;
  }
}
