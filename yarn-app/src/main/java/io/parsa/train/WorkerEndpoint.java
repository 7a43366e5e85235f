package io.parsa.train;

import io.parsa.avro.rpc.IterateRequest;
import io.parsa.avro.rpc.IterateResult;
import io.parsa.avro.rpc.PrepareRequest;
import io.parsa.avro.rpc.TrainProtocol;
import io.parsa.avro.rpc.TrainWorkerProtocol;
import io.parsa.avro.rpc.WorkerInfo;
import io.parsa.yarn.rpc.Rpc;
import io.parsa.yarn.rpc.RpcSecurity;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.LongToIntFunction;
import org.apache.avro.AvroRuntimeException;

/**
 * Worker i of a training run as the driver sees it ({@link TrainWorkerProtocol}): the same object is called
 * directly by the embedded run and served over RPC by a worker container on YARN. It holds the shard and the key
 * placement; {@code prepare} connects it to the servers through counted (and rate-limited) sockets.
 */
public final class WorkerEndpoint implements TrainWorkerProtocol {
  private final int id;
  private final int k;
  private final Shard shard;
  private final LongToIntFunction owner;
  private final RpcSecurity security;
  private final long rpcTimeoutMs;
  private final Links shared;
  private final List<Rpc.Client<?>> clients = new ArrayList<>();
  private final CountDownLatch finished = new CountDownLatch(1);
  private volatile Links links;
  private volatile String linkAddress = "";
  private TrainWorker worker;

  /**
   * @param shared the links of an embedded run (all machines in one JVM: responses delayed here too), or null on
   *     YARN, where {@code prepare} makes this machine's own links at the requested rate
   */
  public WorkerEndpoint(int id, int k, Shard shard, LongToIntFunction owner, RpcSecurity security, long rpcTimeoutMs,
      Links shared) {
    this.id = id;
    this.k = k;
    this.shard = shard;
    this.owner = owner;
    this.security = security;
    this.rpcTimeoutMs = rpcTimeoutMs;
    this.shared = shared;
  }

  @Override
  public synchronized WorkerInfo prepare(PrepareRequest request) {
    if (request.getServers().size() != k) {
      throw new AvroRuntimeException("worker " + id + ": " + request.getServers().size() + " servers, expected " + k);
    }
    closeConnections();
    links = shared != null ? shared : new Links(k, request.getLinkMbps(), false);
    TrainProtocol.Callback[] proxies = new TrainProtocol.Callback[k];
    try {
      for (int j = 0; j < k; j++) {
        Rpc.Client<TrainProtocol.Callback> c = Rpc.connect(TrainProtocol.Callback.class,
            request.getServers().get(j).toString(), 10_000, security, links.forConnection(id, j));
        clients.add(c);
        proxies[j] = c.proxy();
      }
    } catch (IOException e) {
      closeConnections();
      throw new UncheckedIOException("worker " + id + ": cannot connect to the servers: " + e.getMessage(), e);
    }
    worker = new TrainWorker(id, shard, request.getBatches(), owner, proxies, rpcTimeoutMs);
    List<Long> keys = new ArrayList<>();
    List<Integer> requests = new ArrayList<>();
    for (int j = 0; j < k; j++) {
      long n = 0;
      int r = 0;
      for (int b = 0; b < request.getBatches(); b++) {
        int m = worker.keysOn(b, j);
        n += m;
        r += m > 0 ? 2 : 0;
      }
      keys.add(n);
      requests.add(r);
    }
    return new WorkerInfo(id, (long) shard.rows(), shard.nonZeros(), keys, requests, linkAddress);
  }

  @Override
  public IterateResult iterate(IterateRequest request) {
    TrainWorker w;
    synchronized (this) {
      w = worker;
    }
    if (w == null) {
      throw new AvroRuntimeException("worker " + id + ": iterate before prepare");
    }
    TrainWorker.Result r;
    try {
      r = w.iterate(request.getBatch());
    } catch (IOException e) {
      throw new UncheckedIOException(e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AvroRuntimeException("worker " + id + " interrupted");
    }
    IterateResult out = counters();
    out.setLossFixed(r.lossFixed);
    out.setCorrect(r.correct);
    out.setRows(r.rows);
    return out;
  }

  @Override
  public synchronized IterateResult counters() {
    long[][] c = links == null ? new long[4][k] : links.workerCounters(id);
    return new IterateResult(id, 0L, 0L, 0L, list(c[0]), list(c[1]), list(c[2]), list(c[3]),
        TrainDriver.processCpuNanos());
  }

  private static List<Long> list(long[] a) {
    List<Long> l = new ArrayList<>(a.length);
    for (long v : a) {
      l.add(v);
    }
    return l;
  }

  /**
   * YARN: serves this worker's link endpoint, where its machine's server reserves the machine's link
   * ({@link #reserveLink}), apart from the main endpoint: there the driver's {@code iterate} waits for the servers'
   * answers on a request thread that a server's reservation would otherwise queue behind (a deadlock seen on the
   * pseudo-cluster with four machines). {@code prepare} reports its address as {@code host:port}.
   */
  public org.apache.avro.ipc.Server serveLink(String bindHost, String advertisedHost) throws IOException {
    org.apache.avro.ipc.Server s = Rpc.serve(TrainWorkerProtocol.class, this, bindHost, security);
    linkAddress = advertisedHost + ":" + s.getPort();
    return s;
  }

  /** Not synchronized: server i calls it (on the link endpoint) while {@code iterate} runs. */
  @Override
  public long reserveLink(int bytes) {
    Links l = links != null ? links : shared;
    return l == null ? 0 : l.reserveNanos(id, bytes);
  }

  @Override
  public int finish() {
    synchronized (this) {
      closeConnections();
    }
    finished.countDown();
    return 0;
  }

  /** Waits until the driver has called {@link #finish()}. */
  public void awaitFinish() throws InterruptedException {
    finished.await();
  }

  private void closeConnections() {
    for (Rpc.Client<?> c : clients) {
      c.close();
    }
    clients.clear();
    worker = null;
  }
}
