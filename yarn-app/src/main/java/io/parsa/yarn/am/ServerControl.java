package io.parsa.yarn.am;

import io.parsa.yarn.rpc.Tokens;
import io.parsa.avro.rpc.ControlRequest;
import io.parsa.avro.rpc.NeighborSetProtocol;
import io.parsa.avro.rpc.RequestRejected;
import io.parsa.yarn.rpc.Rpc;
import io.parsa.yarn.rpc.RpcSecurity;
import io.parsa.yarn.rpc.Sleeper;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's calls to the neighbor-set servers: administrative calls (snapshots, dumps) on one thread per
 * server, so the time is that of the largest shard, not the sum, waiting for a server that is down or restarting
 * (its new address comes from the registry) for up to the server wait, like the workers do; and liveness pings.
 */
final class ServerControl {
  private static final Logger LOG = LoggerFactory.getLogger(ServerControl.class);
  private static final int MAX_THREADS = 64;

  /** One call on one server. */
  interface Call<T> {
    T apply(NeighborSetProtocol p) throws RequestRejected;
  }

  private final ServerRegistry registry;
  private final String secret;
  private final int connectMs;
  private final long waitMs;
  private final Supplier<String> fatal;

  /**
   * @param fatal why the run has failed, or null (a call stops waiting once it is set)
   */
  ServerControl(ServerRegistry registry, String secret, int connectMs, long waitMs, Supplier<String> fatal) {
    this.registry = registry;
    this.secret = secret;
    this.connectMs = connectMs;
    this.waitMs = waitMs;
    this.fatal = fatal;
  }

  /** Runs {@code call} on every server in parallel; results in server order. */
  <T> List<T> onAll(String what, Call<T> call) throws IOException, InterruptedException {
    int n = registry.size();
    return PerBlock.map(PerBlock.all(n), Math.min(n, MAX_THREADS), "parsa-server-" + what,
        s -> onOne(s, what, call));
  }

  private <T> T onOne(int s, String what, Call<T> call) throws IOException {
    long deadline = System.currentTimeMillis() + waitMs;
    while (true) {
      String addr = registry.address(s);
      if (!addr.isEmpty()) {
        try (Rpc.Client<NeighborSetProtocol> c = Rpc.connect(NeighborSetProtocol.class, addr, connectMs,
            RpcSecurity.forSecret(secret))) {
          return call.apply(c.proxy());
        } catch (RequestRejected e) {
          throw new IOException("server " + s + " refused " + what + ": " + e.getReason(), e);
        } catch (IOException | RuntimeException e) {
          LOG.warn("{} on server {} failed, waiting for it: {}", what, s, e.toString());
        }
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IOException(what + ": server " + s + " unreachable for " + waitMs + " ms");
      }
      String why = fatal.get();
      if (why != null) {
        throw new IOException(why);
      }
      Sleeper.sleep(200);
    }
  }

  /** Periodic pings of every registered server; closing stops them. */
  final class Probes implements AutoCloseable {
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "parsa-server-probe");
      t.setDaemon(true);
      return t;
    });
    private final ExecutorService calls = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "parsa-server-ping");
      t.setDaemon(true);
      return t;
    });
    private final AtomicBoolean[] inFlight;
    private final ServerLiveness live;

    /** Waves whose blocks are all in the master's written ledger (sent with every ping). */
    private final java.util.function.IntSupplier durableWaves;

    Probes(ServerLiveness live, long periodMs, java.util.function.IntSupplier durableWaves) {
      this.live = live;
      this.durableWaves = durableWaves;
      this.inFlight = new AtomicBoolean[registry.size()];
      for (int s = 0; s < inFlight.length; s++) {
        inFlight[s] = new AtomicBoolean();
      }
      timer.scheduleWithFixedDelay(this::round, 0, periodMs, TimeUnit.MILLISECONDS);
    }

    /**
     * One ping per registered server. A ping that does not come back leaves the server's last healthy answer
     * where it was; at most one is in flight per server (a hung call ends when the server's container is killed
     * and its connection drops).
     */
    private void round() {
      List<String> addrs = registry.addresses();
      for (int s = 0; s < inFlight.length; s++) {
        String a = addrs.get(s);
        live.address(s, a);
        if (a.isEmpty() || !inFlight[s].compareAndSet(false, true)) {
          continue;
        }
        final int id = s;
        calls.execute(() -> {
          try (Rpc.Client<NeighborSetProtocol> c = Rpc.connect(NeighborSetProtocol.class, a, connectMs,
              RpcSecurity.forSecret(secret))) {
            live.answered(id, c.proxy().ping(new ControlRequest(Tokens.master(secret), null, durableWaves.getAsInt())));
          } catch (IOException | RuntimeException | RequestRejected e) {
            LOG.debug("ping of server {} failed: {}", id, e.toString());
          } finally {
            inFlight[id].set(false);
          }
        });
      }
    }

    @Override
    public void close() {
      timer.shutdownNow();
      calls.shutdownNow();
    }
  }

  /** Starts pinging every registered server each {@code periodMs}, feeding {@code live}. */
  Probes startProbes(ServerLiveness live, long periodMs, java.util.function.IntSupplier durableWaves) {
    return new Probes(live, periodMs, durableWaves);
  }
}
