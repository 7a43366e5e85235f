package io.parsa.train;

import io.parsa.avro.rpc.ApplyRequest;
import io.parsa.avro.rpc.GradPush;
import io.parsa.avro.rpc.ParamPull;
import io.parsa.avro.rpc.ParamValues;
import io.parsa.avro.rpc.ServerState;
import io.parsa.avro.rpc.TrainProtocol;
import io.parsa.avro.rpc.TrainRejected;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.nio.ByteBuffer;

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

  private final int id;
  private final Long2IntOpenHashMap index;
  private final double[] w;
  private final long[] g;
  private final double learningRate;
  private final double l2;
  private final double l1;
  private final long totalRows;

  /** {@code ownedKeys}: the keys V_i of this machine, each once. */
  public ParamServer(int id, long[] ownedKeys, double learningRate, double l2, double l1, long totalRows) {
    this.id = id;
    this.index = new Long2IntOpenHashMap(ownedKeys.length);
    index.defaultReturnValue(-1);
    for (int i = 0; i < ownedKeys.length; i++) {
      index.put(ownedKeys[i], i);
    }
    this.w = new double[ownedKeys.length];
    this.g = new long[ownedKeys.length];
    this.learningRate = learningRate;
    this.l2 = l2;
    this.l1 = l1;
    this.totalRows = totalRows;
  }

  private int slot(long key) throws TrainRejected {
    int s = index.get(key);
    if (s < 0) {
      throw new TrainRejected("server " + id + " does not own key " + key);
    }
    return s;
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
    ByteBuffer out = ByteBuffer.allocate(keys.remaining());
    while (keys.hasRemaining()) {
      out.putDouble(w[slot(keys.getLong())]);
    }
    out.flip();
    return new ParamValues(out);
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
    int[] slots = new int[n];
    for (int i = 0; i < n; i++) {
      slots[i] = slot(keys.getLong());
    }
    synchronized (g) {
      for (int i = 0; i < n; i++) {
        g[slots[i]] += grads.getLong();
      }
    }
    return n;
  }

  @Override
  public ServerState apply(ApplyRequest request) {
    long nonZeros = 0;
    double sq = 0;
    double abs = 0;
    double shrink = learningRate * l1;
    synchronized (g) {
      for (int s = 0; s < w.length; s++) {
        double grad = g[s] / SCALE / totalRows + l2 * w[s];
        double v = w[s] - learningRate * grad;
        if (shrink > 0) {
          v = Math.signum(v) * Math.max(Math.abs(v) - shrink, 0);
        }
        w[s] = v;
        g[s] = 0;
        if (v != 0) {
          nonZeros++;
          sq += v * v;
          abs += Math.abs(v);
        }
      }
    }
    return new ServerState(id, (long) w.length, nonZeros, sq, abs);
  }
}
