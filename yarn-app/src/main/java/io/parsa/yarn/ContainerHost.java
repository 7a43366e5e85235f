package io.parsa.yarn;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.ApplicationConstants;

/**
 * Where a container's RPC endpoint listens and what address it advertises: the NodeManager's host name for the
 * container, and the address that name resolves to, as Hadoop's own daemons bind to their configured address rather
 * than every interface. {@value #BIND_HOST} overrides the listening address (e.g. 0.0.0.0 on a multi-homed host).
 */
public final class ContainerHost {
  /** Address the application's RPC endpoints listen on (default: the address of the container's host name). */
  public static final String BIND_HOST = "parsa.rpc.bind.host";

  private ContainerHost() {}

  /** The host name other containers reach this one by: NM_HOST, else this machine's canonical name. */
  public static String advertised() throws UnknownHostException {
    String host = System.getenv(ApplicationConstants.Environment.NM_HOST.name());
    return host != null && !host.isEmpty() ? host : InetAddress.getLocalHost().getCanonicalHostName();
  }

  /** The address to listen on: {@value #BIND_HOST} if set, else the address {@code advertisedHost} resolves to. */
  public static String bindAddress(Configuration conf, String advertisedHost) throws UnknownHostException {
    String configured = conf.getTrimmed(BIND_HOST);
    if (configured != null && !configured.isEmpty()) {
      return configured;
    }
    return InetAddress.getByName(advertisedHost).getHostAddress();
  }
}
