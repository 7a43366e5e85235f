package io.parsa.train;

import io.parsa.avro.rpc.ApplyRequest;
import io.parsa.avro.rpc.IterateRequest;
import io.parsa.avro.rpc.IterateResult;
import io.parsa.avro.rpc.PrepareRequest;
import io.parsa.avro.rpc.ServerState;
import io.parsa.avro.rpc.TrainProtocol;
import io.parsa.avro.rpc.TrainWorkerProtocol;
import io.parsa.avro.rpc.WorkerInfo;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The synchronous training loop, the same in both modes: every iteration all k workers pull, compute and push at
 * once; when all are done every server applies the step. Embedded, the workers are {@link WorkerEndpoint} objects
 * of this JVM; on YARN they are RPC proxies to worker containers and this runs in the application master. The
 * traffic of every link comes from the workers' own byte counters, so the driver never touches the data path.
 */
public final class TrainDriver {
  private static final Logger LOG = LoggerFactory.getLogger(TrainDriver.class);

  /** Called on a worker's calling thread before each of its iterations (tests). */
  @FunctionalInterface
  public interface Hook {
    void beforeIteration(int epoch, int batch, int worker) throws Exception;
  }

  private final int k;
  private final TrainWorkerProtocol[] workers;
  private final TrainProtocol[] servers;
  private final TrainRun.Settings settings;
  private final Hook hook;
  private final Supplier<String> aborted;
  /** What {@link #prepare} learned from the workers (rows, predicted accesses); epochs empty. */
  private TrainSpec.Run figures = new TrainSpec.Run();
  /** The workers' link endpoints from {@link #prepare} (empty strings embedded). */
  private List<String> linkAddresses = List.of();

  /**
   * @param aborted polled while waiting for workers: a non-null answer ends the run with that reason (a container
   *     exited); may be null
   */
  public TrainDriver(TrainWorkerProtocol[] workers, TrainProtocol[] servers, TrainRun.Settings settings, Hook hook,
      Supplier<String> aborted) {
    this.k = workers.length;
    this.workers = workers;
    this.servers = servers;
    this.settings = settings;
    this.hook = hook;
    this.aborted = aborted;
  }

  /** Connects every worker to the servers at {@code serverAddresses}, at the settings' link rate. */
  public void prepare(List<String> serverAddresses) throws IOException {
    List<String> addrs = new ArrayList<>(serverAddresses);
    List<WorkerInfo> infos;
    ExecutorService pool = newPool();
    try {
      infos = onAll(pool, "prepare", i -> workers[i].prepare(
          new PrepareRequest(addrs, settings.batchesPerEpoch, settings.linkMbps)));
    } finally {
      pool.shutdownNow();
    }
    TrainSpec.Run f = new TrainSpec.Run();
    f.linkMbps = settings.linkMbps;
    for (int i = 0; i < k; i++) {
      WorkerInfo w = infos.get(i);
      f.rows += w.getRows();
      f.nonZeros += w.getNonZeros();
      for (int j = 0; j < k; j++) {
        long n = w.getKeysPerServer().get(j);
        if (i == j) {
          f.innerKeyAccessesPerEpoch += n;
        } else {
          f.interKeyAccessesPerEpoch += n;
          f.interRequestsPerEpoch += w.getRequestsPerServer().get(j);
        }
      }
    }
    if (f.rows == 0) {
      throw new IOException("the shards hold no rows");
    }
    figures = f;
    linkAddresses = infos.stream().map(w -> w.getLinkAddress().toString()).toList();
  }

  /**
   * What {@link #prepare} learned (rows, non-zeros, the distinct (worker, key) accesses per epoch served by another
   * machine — the traffic the placement predicts — and by the worker's own, the inter-machine requests), as a fresh
   * record without epochs.
   */
  public TrainSpec.Run figures() {
    TrainSpec.Run r = new TrainSpec.Run();
    r.linkMbps = figures.linkMbps;
    r.rows = figures.rows;
    r.nonZeros = figures.nonZeros;
    r.interKeyAccessesPerEpoch = figures.interKeyAccessesPerEpoch;
    r.innerKeyAccessesPerEpoch = figures.innerKeyAccessesPerEpoch;
    r.interRequestsPerEpoch = figures.interRequestsPerEpoch;
    return r;
  }

  @FunctionalInterface
  private interface Call<T> {
    T on(int worker) throws Exception;
  }

  /** One thread per worker, for the calls of one {@link #prepare} or {@link #train}. */
  private ExecutorService newPool() {
    return Executors.newFixedThreadPool(k, r -> {
      Thread t = new Thread(r, "parsa-train-driver");
      t.setDaemon(true);
      return t;
    });
  }

  /** {@code call} on every worker at once; the answers in worker order, or the first failure. */
  private <T> List<T> onAll(ExecutorService pool, String what, Call<T> call) throws IOException {
    List<Future<T>> fs = new ArrayList<>();
    for (int i = 0; i < k; i++) {
      final int w = i;
      fs.add(pool.submit(() -> call.on(w)));
    }
    List<T> out = new ArrayList<>();
    for (int i = 0; i < k; i++) {
      out.add(await(fs, i, what));
    }
    return out;
  }

  private <T> T await(List<Future<T>> fs, int i, String what) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.iterationTimeoutMs);
    while (true) {
      String why = aborted == null ? null : aborted.get();
      if (why != null) {
        cancel(fs);
        throw new IOException(what + ": " + why);
      }
      try {
        return fs.get(i).get(200, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        if (System.nanoTime() > deadline) {
          cancel(fs);
          throw new IOException(what + ": worker " + i + " did not answer within " + settings.iterationTimeoutMs
              + " ms");
        }
      } catch (ExecutionException x) {
        cancel(fs);
        Throwable c = x.getCause();
        throw new IOException(what + ": worker " + i + " failed: " + message(c), c);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        cancel(fs);
        throw new IOException(what + ": interrupted", e);
      }
    }
  }

  private static String message(Throwable c) {
    if (c instanceof IOException || c instanceof java.io.UncheckedIOException) {
      return c.getMessage();
    }
    return String.valueOf(c);
  }

  private static void cancel(List<? extends Future<?>> fs) {
    for (Future<?> f : fs) {
      f.cancel(true);
    }
  }

  /**
   * Sets every server's parameters back to zero before another run on the same servers, at the settings' link rate
   * (YARN mode only: embedded runs hold answers on the worker's end).
   */
  public void resetServers() throws IOException {
    for (int j = 0; j < k; j++) {
      try {
        servers[j].reset(settings.linkMbps);
      } catch (org.apache.avro.AvroRuntimeException x) {
        throw new IOException("server " + j + " failed to reset: " + x.getMessage(), x);
      }
    }
  }

  /**
   * YARN, after {@link #prepare}: server j holds its answers to other machines on the link worker j keeps (reserved
   * on worker j's link endpoint, {@code WorkerInfo.linkAddress}), so that machine j's two containers share one
   * outgoing link; nothing without link emulation.
   */
  public void shareLinks() throws IOException {
    if (settings.linkMbps <= 0) {
      return;
    }
    for (int j = 0; j < k; j++) {
      if (linkAddresses.get(j).isEmpty()) {
        throw new IOException("worker " + j + " serves no link endpoint to share machine " + j + "'s link");
      }
      try {
        servers[j].shareLink(linkAddresses.get(j));
      } catch (org.apache.avro.AvroRuntimeException x) {
        throw new IOException("server " + j + " cannot share machine " + j + "'s link with its worker: "
            + x.getMessage(), x);
      }
    }
  }

  /** Runs every epoch; a failed worker or server ends the run with an {@link IOException} naming it. */
  public List<TrainRun.Epoch> train() throws IOException {
    ExecutorService pool = newPool();
    try {
      return train(pool);
    } finally {
      pool.shutdownNow();
    }
  }

  private boolean processCpu;

  /**
   * Records each epoch's CPU time of this JVM (embedded runs, whose machines are all threads of it). Without it (on
   * YARN) an epoch's CPU time is the growth of every worker's and server's own process CPU time over it, from the
   * second epoch on (the servers' figure before the first is not known).
   */
  public void measureProcessCpu() {
    processCpu = true;
  }

  /** CPU nanoseconds of this JVM so far, or -1 where the platform does not tell. */
  static long processCpuNanos() {
    if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }

  private List<TrainRun.Epoch> train(ExecutorService pool) throws IOException {
    List<TrainRun.Epoch> out = new ArrayList<>();
    long totalRows = figures.rows;
    // byte counters are cumulative: an epoch's traffic is its last answers' counters minus those before it
    List<IterateResult> before = onAll(pool, "epoch 1", i -> workers[i].counters());
    long[] lastServerCpu = null;
    for (int e = 1; e <= settings.epochs; e++) {
      final int epoch = e;
      List<IterateResult> after = before;
      long t0 = System.nanoTime();
      long cpu0 = processCpu ? processCpuNanos() : -1;
      TrainRun.Epoch ep = new TrainRun.Epoch();
      ep.epoch = e;
      long correct = 0;
      long[] serverCpu = new long[k];
      for (int b = 0; b < settings.batchesPerEpoch; b++) {
        final int batch = b;
        after = onAll(pool, "epoch " + e, i -> {
          if (hook != null) {
            hook.beforeIteration(epoch, batch, i);
          }
          return workers[i].iterate(new IterateRequest(epoch, batch));
        });
        for (IterateResult r : after) {
          ep.lossFixed += r.getLossFixed();
          correct += r.getCorrect();
        }
        long iteration = (long) (e - 1) * settings.batchesPerEpoch + b;
        double sq = 0;
        double abs = 0;
        long nz = 0;
        for (int j = 0; j < k; j++) {
          try {
            ServerState st = servers[j].apply(new ApplyRequest(iteration, totalRows));
            sq += st.getSquaredNorm();
            abs += st.getAbsNorm();
            nz += st.getNonZeros();
            serverCpu[j] = st.getCpuNanos();
          } catch (io.parsa.avro.rpc.TrainRejected | org.apache.avro.AvroRuntimeException x) {
            throw new IOException("epoch " + e + ": server " + j + " failed to apply the step: " + x.getMessage(), x);
          }
        }
        ep.nonZeroWeights = nz;
        ep.objective = 0.5 * settings.l2 * sq + settings.l1 * abs;
      }
      ep.wallSeconds = (System.nanoTime() - t0) / 1e9;
      if (cpu0 >= 0) {
        ep.processCpuSeconds = (processCpuNanos() - cpu0) / 1e9;
      } else if (!processCpu) {
        ep.processCpuSeconds = containerCpuSeconds(before, after, lastServerCpu, serverCpu);
      }
      lastServerCpu = serverCpu;
      long[] outOf = new long[k];
      for (int i = 0; i < k; i++) {
        IterateResult a = after.get(i);
        IterateResult p = before.get(i);
        for (int j = 0; j < k; j++) {
          long up = a.getWireOut().get(j) - p.getWireOut().get(j);
          long down = a.getWireIn().get(j) - p.getWireIn().get(j);
          long frames = a.getFrameOut().get(j) - p.getFrameOut().get(j) + a.getFrameIn().get(j)
              - p.getFrameIn().get(j);
          if (i == j) {
            ep.innerBytes += up + down;
            ep.innerFrameBytes += frames;
          } else {
            ep.interBytes += up + down;
            ep.interFrameBytes += frames;
            outOf[i] += up;
            outOf[j] += down;
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
          String.format(Locale.ROOT, "%.3f", ep.wallSeconds), ep.innerBytes, ep.interBytes,
          String.format(Locale.ROOT, "%.6f", ep.loss), String.format(Locale.ROOT, "%.4f", ep.accuracy));
      out.add(ep);
      before = after;
    }
    return out;
  }

  /**
   * CPU seconds of an epoch summed over the worker and server processes (each its own container on YARN): the growth
   * of every worker's figure from {@code before} to {@code after} and of every server's from {@code serversBefore} to
   * {@code serversAfter}; -1 if any figure is unknown (the first epoch has no servers' figure before it).
   */
  static double containerCpuSeconds(List<IterateResult> before, List<IterateResult> after, long[] serversBefore,
      long[] serversAfter) {
    if (serversBefore == null) {
      return -1;
    }
    long sum = 0;
    for (int i = 0; i < after.size(); i++) {
      long a = after.get(i).getCpuNanos();
      long b = before.get(i).getCpuNanos();
      if (a < 0 || b < 0) {
        return -1;
      }
      sum += a - b;
    }
    for (int j = 0; j < serversAfter.length; j++) {
      if (serversAfter[j] < 0 || serversBefore[j] < 0) {
        return -1;
      }
      sum += serversAfter[j] - serversBefore[j];
    }
    return sum / 1e9;
  }

  /** Tells every worker and server that the run is over (best effort). */
  public void finish() {
    for (TrainWorkerProtocol w : workers) {
      try {
        w.finish();
      } catch (RuntimeException e) {
        LOG.debug("worker finish: {}", e.toString());
      }
    }
    for (TrainProtocol s : servers) {
      try {
        s.finish();
      } catch (RuntimeException e) {
        LOG.debug("server finish: {}", e.toString());
      }
    }
  }
}
