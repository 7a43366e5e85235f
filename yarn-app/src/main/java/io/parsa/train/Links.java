package io.parsa.train;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.SocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;

/**
 * Counts the bytes crossing every link machine i &rarr; machine j on the sockets of the training run, and emulates
 * each machine's outgoing network link.
 *
 * <p>All k "machines" share one host, so a loopback socket is far faster than a cluster network. With a link rate
 * set, every machine has one outgoing link of that rate: a frame that leaves machine i for another machine is held
 * until machine i's link has had time to send it after everything it sent before (a token bucket refilled at the
 * link rate with a depth of one frame, i.e. a serialised link). Traffic between worker i and server i stays inside
 * machine i: counted as inner, never delayed.
 *
 * <p>Both directions of a worker-to-server connection are handled on the worker's end: requests worker i &rarr;
 * server j are delayed by machine i's link, responses server j &rarr; worker i by machine j's link (as if held on j's
 * outgoing link before they arrived). The server side needs no change.
 *
 * <p>On YARN, worker i and server i are separate containers: the worker's {@code Links} delays only its own requests
 * ({@code delayResponses} false) and keeps machine i's link; server i holds each answer to another machine's worker
 * for the time worker i reserves on that same link for it ({@link #reserveNanos}, over the worker's link endpoint), so
 * the machine's two processes share one link as they do embedded.
 */
public final class Links {
  private final int k;
  /** Per connection (worker w, server s) at index w * k + s: bytes on the wire w -> s and s -> w. */
  private final AtomicLongArray up;
  private final AtomicLongArray down;
  /** The same for Avro frames inside TLS. */
  private final AtomicLongArray frameUp;
  private final AtomicLongArray frameDown;
  private final long[] linkFreeAtNanos;
  private final AtomicLongArray heldForOthers;
  private final double nanosPerByte;
  private final boolean delayResponses;

  /** {@code linkMbps} &le; 0: no emulation (loopback speed). Responses are delayed on the worker's end. */
  public Links(int k, double linkMbps) {
    this(k, linkMbps, true);
  }

  /**
   * {@code delayResponses}: whether answers server j &rarr; worker i are held on machine j's link here, on the
   * worker's end (all machines in one JVM), or left to the server ({@link #serialLink(double)}).
   */
  public Links(int k, double linkMbps, boolean delayResponses) {
    this.k = k;
    this.delayResponses = delayResponses;
    this.up = new AtomicLongArray(k * k);
    this.down = new AtomicLongArray(k * k);
    this.frameUp = new AtomicLongArray(k * k);
    this.frameDown = new AtomicLongArray(k * k);
    this.linkFreeAtNanos = new long[k];
    this.heldForOthers = new AtomicLongArray(k);
    this.nanosPerByte = linkMbps > 0 ? 8_000.0 / linkMbps : 0;
  }

  public int k() {
    return k;
  }

  /** Bytes sent from machine {@code from} to machine {@code to} so far (from == to: inner-machine). */
  public long bytes(int from, int to) {
    return up.get(from * k + to) + down.get(to * k + from);
  }

  /**
   * One machine's outgoing link of {@code mbps} on its own (a server container on YARN): sending n bytes returns once
   * the link has had time to send them after everything sent before.
   */
  public static ParamServer.ResponseLink serialLink(double mbps) {
    Links one = new Links(1, mbps, false);
    return holding(n -> one.reserve(0, n));
  }

  /**
   * A link on which sending n bytes returns after the wait, in nanoseconds, that {@code reserve} gives for them: this
   * process's own link ({@link #serialLink}) or one another process keeps (YARN: server i's answers on the link worker
   * i keeps, {@link #reserveNanos}).
   */
  public static ParamServer.ResponseLink holding(java.util.function.IntToLongFunction reserve) {
    return n -> {
      long wait = reserve.applyAsLong(n);
      if (wait > 0) {
        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
      }
    };
  }

  /** Worker {@code worker}'s counters: per server j, bytes i&rarr;j and j&rarr;i, on the wire and in Avro frames. */
  public long[][] workerCounters(int worker) {
    long[][] c = new long[4][k];
    for (int j = 0; j < k; j++) {
      c[0][j] = up.get(worker * k + j);
      c[1][j] = down.get(worker * k + j);
      c[2][j] = frameUp.get(worker * k + j);
      c[3][j] = frameDown.get(worker * k + j);
    }
    return c;
  }

  /** A snapshot of every link's byte count on the wire (TLS records included), [from][to]. */
  public long[][] snapshot() {
    return copy(up, down);
  }

  /** A snapshot of every link's Avro frame bytes (inside TLS), [from][to]. */
  public long[][] frameSnapshot() {
    return copy(frameUp, frameDown);
  }

  /** Machine matrix [from][to]: worker from's requests to server to, plus server from's answers to worker to. */
  private long[][] copy(AtomicLongArray requests, AtomicLongArray answers) {
    long[][] m = new long[k][k];
    for (int i = 0; i < k; i++) {
      for (int j = 0; j < k; j++) {
        m[i][j] = requests.get(i * k + j) + answers.get(j * k + i);
      }
    }
    return m;
  }

  /**
   * Handlers for worker {@code worker}'s connection to server {@code server}, given the channel once its TLS handler
   * is in place: one at the socket end counts (and delays) the bytes on the wire, one after TLS counts Avro frames.
   */
  public Consumer<SocketChannel> forConnection(int worker, int server) {
    return ch -> {
      ch.pipeline().addFirst("parsa-link", new LinkHandler(worker, server));
      ch.pipeline().addLast("parsa-frames", new FrameCounter(worker, server));
    };
  }

  /** Counts the clear-text Avro frame bytes of one connection. */
  private final class FrameCounter extends ChannelDuplexHandler {
    private final int worker;
    private final int server;

    FrameCounter(int worker, int server) {
      this.worker = worker;
      this.server = server;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      frameUp.addAndGet(worker * k + server, size(msg));
      ctx.write(msg, promise);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      frameDown.addAndGet(worker * k + server, size(msg));
      ctx.fireChannelRead(msg);
    }
  }

  /**
   * Reserves machine {@code machine}'s outgoing link for {@code n} bytes that another process of the machine sends (on
   * YARN: server i's answers, reserved on the link worker i keeps); how long to hold them, in nanoseconds.
   */
  public long reserveNanos(int machine, int n) {
    heldForOthers.addAndGet(machine, n);
    return reserve(machine, n);
  }

  /** Bytes reserved on machine {@code machine}'s link through {@link #reserveNanos} so far. */
  public long reservedForOthers(int machine) {
    return heldForOthers.get(machine);
  }

  /** Reserves machine {@code from}'s link for {@code n} bytes; returns how long to hold them, in nanoseconds. */
  private long reserve(int from, int n) {
    if (nanosPerByte == 0) {
      return 0;
    }
    long now = System.nanoTime();
    long done;
    synchronized (linkFreeAtNanos) {
      long begin = Math.max(now, linkFreeAtNanos[from]);
      done = begin + (long) Math.ceil(n * nanosPerByte);
      linkFreeAtNanos[from] = done;
    }
    return done - now;
  }

  private static int size(Object msg) {
    if (msg instanceof ByteBuf) {
      return ((ByteBuf) msg).readableBytes();
    }
    if (msg instanceof ByteBufHolder) {
      return ((ByteBufHolder) msg).content().readableBytes();
    }
    return 0;
  }

  /** Counts and (between machines) delays the frames of one connection, keeping their order. */
  private final class LinkHandler extends ChannelDuplexHandler {
    private final int worker;
    private final int server;
    private final boolean emulated;
    private final Held out = new Held();
    private final Held in = new Held();

    LinkHandler(int worker, int server) {
      this.worker = worker;
      this.server = server;
      this.emulated = worker != server && nanosPerByte > 0;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      int n = size(msg);
      up.addAndGet(worker * k + server, n);
      if (!emulated) {
        ctx.write(msg, promise);
        return;
      }
      out.hold(ctx, System.nanoTime() + reserve(worker, n), () -> ctx.writeAndFlush(msg, promise));
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      int n = size(msg);
      down.addAndGet(worker * k + server, n);
      if (!emulated || !delayResponses) {
        ctx.fireChannelRead(msg);
        return;
      }
      in.hold(ctx, System.nanoTime() + reserve(server, n), () -> ctx.fireChannelRead(msg));
    }
  }

  /** Frames of one direction of one connection waiting for their link time, released in arrival order. */
  private static final class Held {
    private final java.util.ArrayDeque<long[]> due = new java.util.ArrayDeque<>();
    private final java.util.ArrayDeque<Runnable> actions = new java.util.ArrayDeque<>();
    private boolean scheduled;

    /** Called on the channel's event loop only. */
    void hold(ChannelHandlerContext ctx, long dueNanos, Runnable action) {
      due.add(new long[] {dueNanos});
      actions.add(action);
      if (!scheduled) {
        schedule(ctx);
      }
    }

    private void schedule(ChannelHandlerContext ctx) {
      scheduled = true;
      long wait = Math.max(0, due.peek()[0] - System.nanoTime());
      ctx.executor().schedule(() -> drain(ctx), wait, TimeUnit.NANOSECONDS);
    }

    private void drain(ChannelHandlerContext ctx) {
      scheduled = false;
      long now = System.nanoTime();
      while (!due.isEmpty() && due.peek()[0] <= now) {
        due.poll();
        actions.poll().run();
      }
      if (!due.isEmpty()) {
        schedule(ctx);
      }
    }
  }
}
