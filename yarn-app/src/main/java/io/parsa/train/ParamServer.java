package io.parsa.train;

import io.parsa.avro.rpc.ApplyRequest;
import io.parsa.avro.rpc.GradPush;
import io.parsa.avro.rpc.ParamPull;
import io.parsa.avro.rpc.ParamValues;
import io.parsa.avro.rpc.ServerState;
import io.parsa.avro.rpc.TrainProtocol;
import io.parsa.avro.rpc.TrainRejected;
import it.unimi.dsi.fastutil.doubles.DoubleArrayList;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.nio.ByteBuffer;
import java.util.function.LongPredicate;

/**
 * Server i of the training run: owns the parameters of the keys placed on machine i, answers pulls with their
 * current values, sums pushed gradients, and applies one synchronous step (gradient step with L2, then the
 * proximal step of L1) when the driver says so.
 *
 * <p>Gradients arrive as fixed-point longs ({@link #SCALE}); their sum is exact and so does not depend on which
 * worker pushed what or in which order. Only where rows and keys live changes between placements, never the
 * model: the same seed and data give bit-identical parameters after every step.
 */
public final class ParamServer implements TrainProtocol {
  /** Fixed-point scale of pushed gradients and summed losses: 2^32. */
  public static final double SCALE = 4294967296.0;

  /** Holds a response to another machine until that machine's emulated link has sent it (YARN mode). */
  @FunctionalInterface
  public interface ResponseLink {
    void send(int bytes) throws InterruptedException;
  }

  private final int id;
  private final Long2IntOpenHashMap index;
  private final LongPredicate admits;
  private final DoubleArrayList w = new DoubleArrayList();
  private final LongArrayList g = new LongArrayList();
  private final double learningRate;
  private final double l2;
  private final double l1;
  private volatile ResponseLink link;

  /**
   * {@code ownedKeys}: the keys V_i of this machine, each once, known up front; {@code admits} (may be null): keys
   * outside that list the server takes on at their first request (a placement that is a function of the key, whose
   * key set only the shards know). A key it neither holds nor admits is refused.
   */
  public ParamServer(int id, long[] ownedKeys, LongPredicate admits, double learningRate, double l2, double l1) {
    this.id = id;
    this.index = new Long2IntOpenHashMap(ownedKeys.length);
    index.defaultReturnValue(-1);
    for (long key : ownedKeys) {
      if (index.putIfAbsent(key, w.size()) < 0) {
        w.add(0);
        g.add(0);
      }
    }
    this.admits = admits;
    this.learningRate = learningRate;
    this.l2 = l2;
    this.l1 = l1;
  }

  /** Slots of {@code n} packed keys; the caller holds the lock. */
  private int[] slots(ByteBuffer keys, int n) throws TrainRejected {
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      long key = keys.getLong();
      int s = index.get(key);
      if (s < 0) {
        if (admits == null || !admits.test(key)) {
          throw new TrainRejected("server " + id + " does not own key " + key);
        }
        s = w.size();
        index.put(key, s);
        w.add(0);
        g.add(0);
      }
      out[i] = s;
    }
    return out;
  }

  private static void checkPacked(ByteBuffer b, String what) throws TrainRejected {
    if (b.remaining() % 8 != 0) {
      throw new TrainRejected(what + ": " + b.remaining() + " bytes is not a whole number of 8-byte entries");
    }
  }

  @Override
  public ParamValues pull(ParamPull request) throws TrainRejected {
    ByteBuffer keys = request.getKeys().duplicate();
    checkPacked(keys, "pull keys");
    int n = keys.remaining() / 8;
    ByteBuffer out = ByteBuffer.allocate(8 * n);
    synchronized (this) {
      for (int s : slots(keys, n)) {
        out.putDouble(w.getDouble(s));
      }
    }
    out.flip();
    hold(request.getWorker(), out.remaining());
    return new ParamValues(out);
  }

  private void hold(int worker, int bytes) throws TrainRejected {
    ResponseLink l = link;
    if (l != null && worker != id) {
      try {
        l.send(bytes);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new TrainRejected("server " + id + " interrupted");
      }
    }
  }

  @Override
  public int push(GradPush request) throws TrainRejected {
    ByteBuffer keys = request.getKeys().duplicate();
    ByteBuffer grads = request.getGrads().duplicate();
    checkPacked(keys, "push keys");
    if (grads.remaining() != keys.remaining()) {
      throw new TrainRejected("push from worker " + request.getWorker() + ": " + keys.remaining() / 8 + " keys but "
          + grads.remaining() / 8 + " gradients");
    }
    int n = keys.remaining() / 8;
    synchronized (this) {
      int[] slots = slots(keys, n);
      for (int i = 0; i < n; i++) {
        g.set(slots[i], g.getLong(slots[i]) + grads.getLong());
      }
    }
    hold(request.getWorker(), 8);
    return n;
  }

  @Override
  public synchronized ServerState apply(ApplyRequest request) throws TrainRejected {
    long totalRows = request.getTotalRows();
    if (totalRows <= 0) {
      throw new TrainRejected("apply: total rows " + totalRows + ", expected > 0");
    }
    long nonZeros = 0;
    double sq = 0;
    double abs = 0;
    double shrink = learningRate * l1;
    for (int s = 0; s < w.size(); s++) {
      double wv = w.getDouble(s);
      double grad = g.getLong(s) / SCALE / totalRows + l2 * wv;
      double v = wv - learningRate * grad;
      if (shrink > 0) {
        v = Math.signum(v) * Math.max(Math.abs(v) - shrink, 0);
      }
      w.set(s, v);
      g.set(s, 0);
      if (v != 0) {
        nonZeros++;
        sq += v * v;
        abs += Math.abs(v);
      }
    }
    return new ServerState(id, (long) w.size(), nonZeros, sq, abs, TrainDriver.processCpuNanos());
  }

  private io.parsa.yarn.rpc.RpcSecurity security;
  private io.parsa.yarn.rpc.Rpc.Client<io.parsa.avro.rpc.TrainWorkerProtocol> machineWorker;
  private String machineWorkerAddress;

  /** The credentials with which {@link #shareLink} connects to this machine's worker (YARN containers). */
  public void setSecurity(io.parsa.yarn.rpc.RpcSecurity security) {
    this.security = security;
  }

  /**
   * Holds every answer to another machine for the time this machine's worker (at {@code address}) reserves for
   * it on the machine's one outgoing link. One connection per worker address, kept across runs (the worker's endpoint
   * then has only the driver's connection and this one, each on its own request thread).
   */
  @Override
  public synchronized int shareLink(String address) {
    if (security == null) {
      throw new org.apache.avro.AvroRuntimeException("server " + id + ": no credentials to reach worker " + address);
    }
    if (machineWorker == null || !address.equals(machineWorkerAddress)) {
      if (machineWorker != null) {
        machineWorker.close();
      }
      try {
        machineWorker = io.parsa.yarn.rpc.Rpc.connect(io.parsa.avro.rpc.TrainWorkerProtocol.class, address, 10_000,
            security);
      } catch (java.io.IOException e) {
        throw new org.apache.avro.AvroRuntimeException("server " + id + ": cannot reach worker " + address + ": "
            + e.getMessage(), e);
      }
      machineWorkerAddress = address;
    }
    io.parsa.avro.rpc.TrainWorkerProtocol w = machineWorker.proxy();
    Object lock = new Object();
    link = Links.holding(n -> {
      synchronized (lock) {
        return w.reserveLink(n);
      }
    });
    return 0;
  }

  @Override
  public synchronized long reset(double linkMbps) {
    link = linkMbps > 0 ? Links.serialLink(linkMbps) : null;
    for (int s = 0; s < w.size(); s++) {
      w.set(s, 0);
      g.set(s, 0);
    }
    return w.size();
  }

  /** Set by {@link #finish()}: the container's main waits for it. */
  private final java.util.concurrent.CountDownLatch finished = new java.util.concurrent.CountDownLatch(1);

  @Override
  public int finish() {
    synchronized (this) {
      if (machineWorker != null) {
        machineWorker.close();
        machineWorker = null;
      }
    }
    finished.countDown();
    return 0;
  }

  /** Waits until the driver has called {@link #finish()}. */
  public void awaitFinish() throws InterruptedException {
    finished.await();
  }
}
