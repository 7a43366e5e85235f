package io.parsa.train;

import io.parsa.avro.rpc.ApplyRequest;
import io.parsa.avro.rpc.TrainProtocol;
import io.parsa.yarn.rpc.Rpc;
import io.parsa.yarn.rpc.RpcSecurity;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongToIntFunction;
import org.apache.avro.ipc.Server;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One embedded training run: k machines in this JVM, each a {@link ParamServer} served over loopback Avro RPC and
 * a {@link TrainWorker} thread connected to every server through counted (and optionally rate-limited) sockets;
 * synchronous iterations, a barrier, then every server applies the step.
 */
public final class TrainRun implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TrainRun.class);

  /** Model and run settings. */
  public static final class Settings {
    public int epochs = 5;
    public int batchesPerEpoch = 1;
    public double learningRate = 0.3;
    public double l2 = 1e-4;
    public double l1 = 0;
    public double linkMbps = 0;
    public long rpcTimeoutMs = 120_000;
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
  }

  private final int k;
  private final Settings settings;
  private final List<Shard> shards;
  private final Links links;
  private final Hook hook;
  private final Server[] endpoints;
  private final List<Rpc.Client<?>> clients = new ArrayList<>();
  private final TrainProtocol[] control;
  private final TrainWorker[] workers;
  private final long totalRows;
  private final long[] interKeysPerEpoch = new long[1];
  private final long[] innerKeysPerEpoch = new long[1];
  private final int[] requestsPerEpoch = new int[2];

  /**
   * Starts the servers and connects the workers. {@code owner} maps a key to its server; every key of every shard
   * must have one.
   */
  public TrainRun(List<Shard> shards, LongToIntFunction owner, Settings settings, Hook hook) throws IOException {
    this.k = shards.size();
    this.settings = settings;
    this.shards = shards;
    this.hook = hook;
    this.links = new Links(k, settings.linkMbps);
    long rows = 0;
    LongOpenHashSet all = new LongOpenHashSet();
    for (Shard s : shards) {
      rows += s.rows;
      for (long key : s.keys) {
        all.add(key);
      }
    }
    this.totalRows = rows;
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
    control = new TrainProtocol[k];
    workers = new TrainWorker[k];
    try {
      for (int j = 0; j < k; j++) {
        long[] keys = owned[j].toLongArray();
        java.util.Arrays.sort(keys);
        endpoints[j] = Rpc.serve(TrainProtocol.class,
            new ParamServer(j, keys, settings.learningRate, settings.l2, settings.l1, totalRows), "127.0.0.1", security);
        Rpc.Client<TrainProtocol> c = Rpc.connect(TrainProtocol.class, address(j), 10_000, security);
        clients.add(c);
        control[j] = c.proxy();
      }
      for (int i = 0; i < k; i++) {
        TrainProtocol.Callback[] proxies = new TrainProtocol.Callback[k];
        for (int j = 0; j < k; j++) {
          Rpc.Client<TrainProtocol.Callback> c = Rpc.connect(TrainProtocol.Callback.class, address(j), 10_000,
              security, links.forConnection(i, j));
          clients.add(c);
          proxies[j] = c.proxy();
        }
        workers[i] = new TrainWorker(i, shards.get(i), settings.batchesPerEpoch, owner, proxies,
            settings.rpcTimeoutMs);
        for (int b = 0; b < settings.batchesPerEpoch; b++) {
          for (int j = 0; j < k; j++) {
            int n = workers[i].keysOn(b, j);
            if (i == j) {
              innerKeysPerEpoch[0] += n;
            } else {
              interKeysPerEpoch[0] += n;
              if (n > 0) {
                requestsPerEpoch[0] += 2;
              }
            }
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  private String address(int j) {
    return "127.0.0.1:" + endpoints[j].getPort();
  }

  public int k() {
    return k;
  }

  public long totalRows() {
    return totalRows;
  }

  /** Distinct (worker, key) accesses per epoch served by another machine: the traffic the placement predicts. */
  public long interKeyAccessesPerEpoch() {
    return interKeysPerEpoch[0];
  }

  /** Distinct (worker, key) accesses per epoch served by the worker's own machine. */
  public long innerKeyAccessesPerEpoch() {
    return innerKeysPerEpoch[0];
  }

  /** Inter-machine requests (pulls plus pushes) per epoch; each also has a response. */
  public int interRequestsPerEpoch() {
    return requestsPerEpoch[0];
  }

  public Links links() {
    return links;
  }

  /** Stops server {@code j} as if its container died (tests). */
  public void killServer(int j) {
    endpoints[j].close();
  }

  /** Runs every epoch; a failed worker or server ends the run with an {@link IOException} naming it. */
  public List<Epoch> train() throws IOException, InterruptedException {
    List<Epoch> out = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(k, r -> {
      Thread t = new Thread(r, "parsa-train-worker");
      t.setDaemon(true);
      return t;
    });
    try {
      for (int e = 1; e <= settings.epochs; e++) {
        long[][] before = links.snapshot();
        long[][] framesBefore = links.frameSnapshot();
        long t0 = System.nanoTime();
        Epoch ep = new Epoch();
        ep.epoch = e;
        long correct = 0;
        for (int b = 0; b < settings.batchesPerEpoch; b++) {
          List<Future<TrainWorker.Result>> fs = new ArrayList<>();
          for (int i = 0; i < k; i++) {
            final int worker = i;
            final int epoch = e;
            final int batch = b;
            fs.add(pool.submit(() -> {
              if (hook != null) {
                hook.beforeIteration(this, epoch, batch, worker);
              }
              return workers[worker].iterate(batch);
            }));
          }
          for (int i = 0; i < k; i++) {
            TrainWorker.Result r;
            try {
              r = fs.get(i).get();
            } catch (ExecutionException x) {
              for (Future<?> f : fs) {
                f.cancel(true);
              }
              Throwable c = x.getCause();
              throw new IOException("epoch " + e + ": worker " + i + " failed: "
                  + (c instanceof IOException ? c.getMessage() : String.valueOf(c)), c);
            }
            ep.lossFixed += r.lossFixed;
            correct += r.correct;
          }
          long iteration = (long) (e - 1) * settings.batchesPerEpoch + b;
          double sq = 0;
          double abs = 0;
          long nz = 0;
          for (int j = 0; j < k; j++) {
            try {
              io.parsa.avro.rpc.ServerState st = control[j].apply(new ApplyRequest(iteration));
              sq += st.getSquaredNorm();
              abs += st.getAbsNorm();
              nz += st.getNonZeros();
            } catch (io.parsa.avro.rpc.TrainRejected | org.apache.avro.AvroRuntimeException x) {
              throw new IOException("epoch " + e + ": server " + j + " failed to apply the step: " + x.getMessage(), x);
            }
          }
          ep.nonZeroWeights = nz;
          ep.objective = 0.5 * settings.l2 * sq + settings.l1 * abs;
        }
        ep.wallSeconds = (System.nanoTime() - t0) / 1e9;
        long[][] after = links.snapshot();
        long[][] framesAfter = links.frameSnapshot();
        long[] outOf = new long[k];
        for (int i = 0; i < k; i++) {
          for (int j = 0; j < k; j++) {
            long d = after[i][j] - before[i][j];
            long f = framesAfter[i][j] - framesBefore[i][j];
            if (i == j) {
              ep.innerBytes += d;
              ep.innerFrameBytes += f;
            } else {
              ep.interBytes += d;
              ep.interFrameBytes += f;
              outOf[i] += d;
            }
          }
        }
        for (long o : outOf) {
          ep.maxMachineOutBytes = Math.max(ep.maxMachineOutBytes, o);
        }
        ep.loss = ep.lossFixed / ParamServer.SCALE / totalRows;
        ep.objective += ep.loss;
        ep.accuracy = (double) correct / totalRows;
        LOG.info("epoch {}: {} s, inner {} B, inter {} B, loss {}, accuracy {}", e,
            String.format("%.3f", ep.wallSeconds), ep.innerBytes, ep.interBytes, String.format("%.6f", ep.loss),
            String.format("%.4f", ep.accuracy));
        out.add(ep);
      }
    } finally {
      pool.shutdownNow();
    }
    return out;
  }

  @Override
  public void close() {
    for (Rpc.Client<?> c : clients) {
      c.close();
    }
    for (Server s : endpoints) {
      if (s != null) {
        Rpc.closeAsync(s);
      }
    }
  }
}
