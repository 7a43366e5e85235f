package io.parsa.train;

import io.parsa.avro.rpc.TrainProtocol;
import io.parsa.avro.rpc.TrainWorkerProtocol;
import io.parsa.yarn.rpc.Rpc;
import io.parsa.yarn.rpc.RpcSecurity;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongToIntFunction;
import org.apache.avro.ipc.Server;

/**
 * One embedded training run: k machines in this JVM, each a {@link ParamServer} served over loopback Avro RPC and
 * a {@link WorkerEndpoint} connected to every server through counted (and optionally rate-limited) sockets, driven
 * by the same {@link TrainDriver} as the YARN application: synchronous iterations, a barrier, then every server
 * applies the step.
 */
public final class TrainRun implements AutoCloseable {
  /** Model and run settings. */
  public static final class Settings {
    public int epochs = 5;
    public int batchesPerEpoch = 1;
    public double learningRate = 0.3;
    public double l2 = 1e-4;
    public double l1 = 0;
    public double linkMbps = 0;
    public long rpcTimeoutMs = 120_000;
    /** How long the driver waits for one worker's iteration before it fails the run. */
    public long iterationTimeoutMs = 30 * 60_000L;

    /** A copy to vary (epochs, link rate) without touching the original. */
    public Settings copy() {
      Settings c = new Settings();
      c.epochs = epochs;
      c.batchesPerEpoch = batchesPerEpoch;
      c.learningRate = learningRate;
      c.l2 = l2;
      c.l1 = l1;
      c.linkMbps = linkMbps;
      c.rpcTimeoutMs = rpcTimeoutMs;
      c.iterationTimeoutMs = iterationTimeoutMs;
      return c;
    }
  }

  /** Test hook, called on a worker's thread before each of its iterations. */
  public interface Hook {
    void beforeIteration(TrainRun run, int epoch, int batch, int worker) throws Exception;
  }

  /** Figures of one epoch. */
  public static final class Epoch {
    public int epoch;
    public double wallSeconds;
    public long innerBytes;
    public long interBytes;
    public long maxMachineOutBytes;
    public long innerFrameBytes;
    public long interFrameBytes;
    public double loss;
    public long lossFixed;
    public double objective;
    public double accuracy;
    public long nonZeroWeights;
    /**
     * CPU seconds of the epoch, or -1: embedded, what this JVM spent (every worker and server of the run is a thread
     * of it); on YARN, the growth of every worker and server container's own process CPU time, summed (from the
     * second epoch on).
     */
    public double processCpuSeconds = -1;
  }

  private final int k;
  private final Links links;
  private final Server[] endpoints;
  private final List<Rpc.Client<?>> clients = new ArrayList<>();
  private final TrainDriver driver;

  /**
   * Starts the servers and connects the workers. {@code owner} maps a key to its server; every key of every shard
   * must have one.
   */
  public TrainRun(List<Shard> shards, LongToIntFunction owner, Settings settings, Hook hook) throws IOException {
    this.k = shards.size();
    this.links = new Links(k, settings.linkMbps);
    LongOpenHashSet all = new LongOpenHashSet();
    for (Shard s : shards) {
      for (long key : s.keys) {
        all.add(key);
      }
    }
    LongArrayList[] owned = new LongArrayList[k];
    for (int j = 0; j < k; j++) {
      owned[j] = new LongArrayList();
    }
    for (long key : all) {
      int j = owner.applyAsInt(key);
      if (j < 0 || j >= k) {
        throw new IllegalArgumentException("key " + key + " is placed on server " + j + ", outside [0, " + k + ")");
      }
      owned[j].add(key);
    }
    RpcSecurity security = RpcSecurity.forSecret(java.util.UUID.randomUUID().toString());
    endpoints = new Server[k];
    TrainProtocol[] control = new TrainProtocol[k];
    TrainWorkerProtocol[] workers = new TrainWorkerProtocol[k];
    List<String> addresses = new ArrayList<>();
    try {
      for (int j = 0; j < k; j++) {
        long[] keys = owned[j].toLongArray();
        java.util.Arrays.sort(keys);
        endpoints[j] = Rpc.serve(TrainProtocol.class,
            new ParamServer(j, keys, null, settings.learningRate, settings.l2, settings.l1), "127.0.0.1", security);
        addresses.add(address(j));
        Rpc.Client<TrainProtocol> c = Rpc.connect(TrainProtocol.class, address(j), 10_000, security);
        clients.add(c);
        control[j] = c.proxy();
      }
      for (int i = 0; i < k; i++) {
        workers[i] = new WorkerEndpoint(i, k, shards.get(i), owner, security, settings.rpcTimeoutMs, links);
      }
      driver = new TrainDriver(workers, control, settings,
          hook == null ? null : (e, b, w) -> hook.beforeIteration(this, e, b, w), null);
      driver.measureProcessCpu();
      driver.prepare(addresses);
    } catch (IOException | RuntimeException e) {
      close(workers);
      throw e;
    }
    this.workers = workers;
  }

  private final TrainWorkerProtocol[] workers;

  private String address(int j) {
    return "127.0.0.1:" + endpoints[j].getPort();
  }

  public int k() {
    return k;
  }

  /** Rows and the accesses the placement predicts, as {@link TrainDriver#figures()} (no epochs). */
  public TrainSpec.Run figures() {
    return driver.figures();
  }

  public long totalRows() {
    return figures().rows;
  }

  /** Distinct (worker, key) accesses per epoch served by another machine: the traffic the placement predicts. */
  public long interKeyAccessesPerEpoch() {
    return figures().interKeyAccessesPerEpoch;
  }

  /** Distinct (worker, key) accesses per epoch served by the worker's own machine. */
  public long innerKeyAccessesPerEpoch() {
    return figures().innerKeyAccessesPerEpoch;
  }

  public Links links() {
    return links;
  }

  /** Stops server {@code j} as if its container died (tests). */
  public void killServer(int j) {
    endpoints[j].close();
  }

  /** Runs every epoch; a failed worker or server ends the run with an {@link IOException} naming it. */
  public List<Epoch> train() throws IOException {
    return driver.train();
  }

  private void close(TrainWorkerProtocol[] ws) {
    for (TrainWorkerProtocol w : ws) {
      if (w != null) {
        w.finish();
      }
    }
    for (Rpc.Client<?> c : clients) {
      c.close();
    }
    for (Server s : endpoints) {
      if (s != null) {
        Rpc.closeAsync(s);
      }
    }
  }

  @Override
  public void close() {
    close(workers);
  }
}
