package io.parsa.yarn.server;

import io.parsa.yarn.ContainerMain;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/** Entry point of a neighbor-set server container: {@code ServerMain --master host:port --id N}. */
public final class ServerMain {
  private ServerMain() {}

  public static void main(String[] args) {
    ContainerMain.main("server", args, (id, master, secret, job) -> {
      Configuration conf = job.applyTo(new YarnConfiguration());
      String host = System.getenv(ApplicationConstants.Environment.NM_HOST.name());
      if (host == null) {
        host = java.net.InetAddress.getLocalHost().getCanonicalHostName();
      }
      new NeighborSetServer(job, id, secret, conf, master, "0.0.0.0", host).run();
    });
  }
}
