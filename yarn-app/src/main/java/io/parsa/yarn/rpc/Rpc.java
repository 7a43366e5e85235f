package io.parsa.yarn.rpc;

import java.io.IOException;
import java.net.InetSocketAddress;
import org.apache.avro.ipc.Server;
import org.apache.avro.ipc.netty.NettyServer;
import org.apache.avro.ipc.netty.NettyTransceiver;
import org.apache.avro.ipc.specific.SpecificRequestor;
import org.apache.avro.ipc.specific.SpecificResponder;

/** Starts Avro IPC (Netty) endpoints and opens typed clients to them. */
public final class Rpc {

  private Rpc() {}

  /** Serves {@code impl} of {@code iface} on {@code bindHost} and an ephemeral port; started on return. */
  public static <T> Server serve(Class<T> iface, T impl, String bindHost) throws IOException {
    try {
      NettyServer server = new NettyServer(new SpecificResponder(iface, impl), new InetSocketAddress(bindHost, 0));
      server.start();
      return server;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while starting the RPC server", e);
    }
  }

  /**
   * Closes a server without waiting: Netty's graceful shutdown blocks for its 2 s quiet period, which would stall
   * every stop of a master or server (the port stops accepting at once either way).
   */
  public static void closeAsync(Server server) {
    Thread t = new Thread(server::close, "parsa-rpc-close");
    t.setDaemon(true);
    t.start();
  }

  /** An open client connection; closing it closes the transport. */
  public static final class Client<T> implements AutoCloseable {
    private final NettyTransceiver transceiver;
    private final T proxy;
    private final String address;

    private Client(NettyTransceiver transceiver, T proxy, String address) {
      this.transceiver = transceiver;
      this.proxy = proxy;
      this.address = address;
    }

    public T proxy() {
      return proxy;
    }

    public String address() {
      return address;
    }

    public boolean isConnected() {
      return transceiver.isConnected();
    }

    @Override
    public void close() {
      transceiver.close();
    }
  }

  /** Connects to {@code host:port}. */
  public static <T> Client<T> connect(Class<T> iface, String hostPort, int connectTimeoutMs) throws IOException {
    InetSocketAddress addr = parse(hostPort);
    NettyTransceiver t = new NettyTransceiver(addr, connectTimeoutMs);
    try {
      return new Client<>(t, SpecificRequestor.getClient(iface, t), hostPort);
    } catch (IOException | RuntimeException e) {
      t.close();
      throw e;
    }
  }

  /** Parses {@code host:port}. */
  public static InetSocketAddress parse(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("expected host:port, got '" + hostPort + "'");
    }
    return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
  }
}
