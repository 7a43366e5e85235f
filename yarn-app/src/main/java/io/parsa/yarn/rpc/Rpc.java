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

/**
 * Starts Avro IPC (Netty) endpoints and opens typed clients to them, always over mutual TLS keyed by the
 * application's secret ({@link RpcSecurity}).
 */
public final class Rpc {

  private Rpc() {}

  /**
   * Serves {@code impl} of {@code iface} on {@code bindHost} and an ephemeral port over TLS; started on return. The Netty
   * threads are daemons and all three event-loop groups are shut down on close (Avro's own NettyServer leaves
   * its request-executor group running, which keeps a JVM from exiting).
   */
  public static <T> Server serve(Class<T> iface, T impl, String bindHost, RpcSecurity security) throws IOException {
    EventLoopGroup boss = new NioEventLoopGroup(1, new DefaultThreadFactory("parsa-rpc-boss", true));
    EventLoopGroup io = new NioEventLoopGroup(2, new DefaultThreadFactory("parsa-rpc-io", true));
    EventLoopGroup exec = new DefaultEventLoopGroup(4, new DefaultThreadFactory("parsa-rpc-exec", true));
    try {
      NettyServer server = new NettyServer(new SpecificResponder(iface, impl), new InetSocketAddress(bindHost, 0),
          security::secureServerChannel, b -> { }, boss, io, exec);
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

  /** Connects to {@code host:port} over TLS; the handshake fails unless the server holds the same secret. */
  public static <T> Client<T> connect(Class<T> iface, String hostPort, int connectTimeoutMs, RpcSecurity security)
      throws IOException {
    return connect(iface, hostPort, connectTimeoutMs, security, null);
  }

  /**
   * As {@link #connect(Class, String, int, RpcSecurity)}; {@code extraHandlers} (may be null) is then given the
   * client channel after the TLS handler is in place and before Avro adds its framing, so a handler it adds first
   * sees the bytes as they cross the socket, and one it adds last sees Avro's frames in clear.
   */
  public static <T> Client<T> connect(Class<T> iface, String hostPort, int connectTimeoutMs, RpcSecurity security,
      java.util.function.Consumer<io.netty.channel.socket.SocketChannel> extraHandlers) throws IOException {
    InetSocketAddress addr = parse(hostPort);
    NettyTransceiver t = new NettyTransceiver(addr, connectTimeoutMs, ch -> {
      security.secureClientChannel(ch, addr.getHostString(), addr.getPort());
      if (extraHandlers != null) {
        extraHandlers.accept(ch);
      }
    });
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
