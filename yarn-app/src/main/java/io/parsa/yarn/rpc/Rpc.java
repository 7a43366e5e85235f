package io.parsa.yarn.rpc;

import java.io.IOException;
import java.net.InetSocketAddress;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.apache.avro.ipc.Server;
import org.apache.avro.ipc.netty.NettyServer;
import org.apache.avro.ipc.netty.NettyTransceiver;
import org.apache.avro.ipc.specific.SpecificRequestor;
import org.apache.avro.ipc.specific.SpecificResponder;

/** Starts Avro IPC (Netty) endpoints and opens typed clients to them. */
public final class Rpc {

  private Rpc() {}

  /**
   * Serves {@code impl} of {@code iface} on {@code bindHost} and an ephemeral port; started on return. The Netty
   * threads are daemons and all three event-loop groups are shut down on close (Avro's own NettyServer leaves
   * its request-executor group running, which keeps a JVM from exiting).
   */
  public static <T> Server serve(Class<T> iface, T impl, String bindHost) throws IOException {
    EventLoopGroup boss = new NioEventLoopGroup(1, new DefaultThreadFactory("parsa-rpc-boss", true));
    EventLoopGroup io = new NioEventLoopGroup(2, new DefaultThreadFactory("parsa-rpc-io", true));
    EventLoopGroup exec = new DefaultEventLoopGroup(4, new DefaultThreadFactory("parsa-rpc-exec", true));
    try {
      NettyServer server = new NettyServer(new SpecificResponder(iface, impl), new InetSocketAddress(bindHost, 0),
          ch -> { }, b -> { }, boss, io, exec);
      server.start();
      return new Endpoint(server, exec);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      boss.shutdownGracefully();
      io.shutdownGracefully();
      exec.shutdownGracefully();
      throw new IOException("interrupted while starting the RPC server", e);
    }
  }

  /** A started server that also stops the request-executor group on close. */
  private static final class Endpoint implements Server {
    private final NettyServer server;
    private final EventLoopGroup exec;

    Endpoint(NettyServer server, EventLoopGroup exec) {
      this.server = server;
      this.exec = exec;
    }

    @Override
    public int getPort() {
      return server.getPort();
    }

    @Override
    public void start() {
      server.start();
    }

    @Override
    public void close() {
      server.close();
      exec.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
    }

    @Override
    public void join() throws InterruptedException {
      server.join();
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
    return connect(iface, hostPort, connectTimeoutMs, null);
  }

  /**
   * Connects to {@code host:port}; {@code channelInitializer} (may be null) sees the client channel before Avro adds
   * its framing handlers, so a handler added first sees the bytes exactly as they cross the socket.
   */
  public static <T> Client<T> connect(Class<T> iface, String hostPort, int connectTimeoutMs,
      java.util.function.Consumer<io.netty.channel.socket.SocketChannel> channelInitializer) throws IOException {
    InetSocketAddress addr = parse(hostPort);
    NettyTransceiver t = channelInitializer == null ? new NettyTransceiver(addr, connectTimeoutMs)
        : new NettyTransceiver(addr, connectTimeoutMs, channelInitializer);
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
