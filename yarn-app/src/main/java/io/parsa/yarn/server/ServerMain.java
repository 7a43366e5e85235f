package io.parsa.yarn.server;

import io.parsa.yarn.ContainerHost;
import io.parsa.yarn.ContainerMain;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/** Entry point of a neighbor-set server container: {@code ServerMain --master host:port --id N}. */
public final class ServerMain {
  private ServerMain() {}

  public static void main(String[] args) {
    ContainerMain.main("server", args, (id, master, secret, job) -> {
      Configuration conf = job.applyTo(new YarnConfiguration());
      String host = ContainerHost.advertised();
      new NeighborSetServer(job, id, secret, conf, master, ContainerHost.bindAddress(conf, host), host).run();
    });
  }
}
