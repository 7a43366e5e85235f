package io.parsa.train;

import io.parsa.avro.rpc.GradPush;
import io.parsa.avro.rpc.ParamPull;
import io.parsa.avro.rpc.ParamValues;
import io.parsa.avro.rpc.TrainProtocol;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongArrays;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongToIntFunction;
import org.apache.avro.ipc.CallFuture;

/**
 * Worker i of the training run: holds the rows of shard i; each iteration it pulls the current values of the keys
 * its batch uses (one request per server, all in flight at once), computes the logistic-loss gradient of the batch
 * and pushes it back (one request per server). Gradients and losses are summed as fixed-point longs so that the
 * result does not depend on how the rows are split over workers.
 */
final class TrainWorker {

  /** What one iteration of one worker produced. */
  static final class Result {
    long lossFixed;
    long correct;
    long rows;
  }

  private final int id;
  private final Shard shard;
  private final TrainProtocol.Callback[] servers;
  private final long timeoutMs;
  private final Batch[] batches;

  /** One batch: rows [from, to) of the shard, its distinct keys and how they split over servers. */
  private static final class Batch {
    int from;
    int to;
    long[] keys;
    int[] slotOfNonZero;
    int[][] slotsOfServer;
    ByteBuffer[] keyBytesOfServer;
  }

  TrainWorker(int id, Shard shard, int batchesPerEpoch, LongToIntFunction owner, TrainProtocol.Callback[] servers,
      long timeoutMs) {
    this.id = id;
    this.shard = shard;
    this.servers = servers;
    this.timeoutMs = timeoutMs;
    this.batches = new Batch[batchesPerEpoch];
    int k = servers.length;
    for (int b = 0; b < batchesPerEpoch; b++) {
      Batch batch = new Batch();
      batch.from = (int) ((long) shard.rows * b / batchesPerEpoch);
      batch.to = (int) ((long) shard.rows * (b + 1) / batchesPerEpoch);
      int nzFrom = shard.start[batch.from];
      int nzTo = shard.start[batch.to];
      long[] distinct = java.util.Arrays.copyOfRange(shard.keys, nzFrom, nzTo);
      LongArrays.radixSort(distinct);
      int n = 0;
      for (int i = 0; i < distinct.length; i++) {
        if (i == 0 || distinct[i] != distinct[i - 1]) {
          distinct[n++] = distinct[i];
        }
      }
      batch.keys = java.util.Arrays.copyOf(distinct, n);
      Long2IntOpenHashMap slot = new Long2IntOpenHashMap(n);
      for (int i = 0; i < n; i++) {
        slot.put(batch.keys[i], i);
      }
      batch.slotOfNonZero = new int[nzTo - nzFrom];
      for (int e = nzFrom; e < nzTo; e++) {
        batch.slotOfNonZero[e - nzFrom] = slot.get(shard.keys[e]);
      }
      int[] count = new int[k];
      int[] ownerOf = new int[n];
      for (int i = 0; i < n; i++) {
        ownerOf[i] = owner.applyAsInt(batch.keys[i]);
        count[ownerOf[i]]++;
      }
      batch.slotsOfServer = new int[k][];
      batch.keyBytesOfServer = new ByteBuffer[k];
      for (int s = 0; s < k; s++) {
        batch.slotsOfServer[s] = new int[count[s]];
        batch.keyBytesOfServer[s] = ByteBuffer.allocate(8 * count[s]);
      }
      int[] fill = new int[k];
      for (int i = 0; i < n; i++) {
        int s = ownerOf[i];
        batch.slotsOfServer[s][fill[s]++] = i;
        batch.keyBytesOfServer[s].putLong(batch.keys[i]);
      }
      for (int s = 0; s < k; s++) {
        batch.keyBytesOfServer[s].flip();
      }
      batches[b] = batch;
    }
  }

  /** Distinct keys of batch {@code b} owned by server {@code s} (for the traffic prediction). */
  int keysOn(int b, int s) {
    return batches[b].slotsOfServer[s].length;
  }

  /** Runs one iteration on batch {@code b}: pull, gradient, push. */
  Result iterate(int b) throws IOException, InterruptedException {
    Batch batch = batches[b];
    int k = servers.length;
    double[] w = new double[batch.keys.length];
    @SuppressWarnings("unchecked")
    CallFuture<ParamValues>[] pulls = new CallFuture[k];
    for (int s = 0; s < k; s++) {
      if (batch.slotsOfServer[s].length > 0) {
        pulls[s] = new CallFuture<>();
        try {
          servers[s].pull(new ParamPull(id, batch.keyBytesOfServer[s].duplicate()), pulls[s]);
        } catch (IOException | org.apache.avro.AvroRuntimeException e) {
          throw new IOException("worker " + id + ": pull from server " + s + " failed: " + e.getMessage(), e);
        }
      }
    }
    for (int s = 0; s < k; s++) {
      if (pulls[s] != null) {
        ByteBuffer v = await(pulls[s], "pull from server " + s).getValues();
        int[] slots = batch.slotsOfServer[s];
        if (v.remaining() != 8 * slots.length) {
          throw new IOException("worker " + id + ": server " + s + " answered " + v.remaining() / 8 + " values for "
              + slots.length + " keys");
        }
        for (int slot : slots) {
          w[slot] = v.getDouble();
        }
      }
    }
    long[] grad = new long[batch.keys.length];
    Result r = new Result();
    int base = shard.start[batch.from];
    for (int row = batch.from; row < batch.to; row++) {
      double margin = 0;
      for (int e = shard.start[row]; e < shard.start[row + 1]; e++) {
        margin += w[batch.slotOfNonZero[e - base]] * shard.values[e];
      }
      boolean positive = shard.labels[row] == 1;
      double z = positive ? margin : -margin;
      double loss = z > 0 ? Math.log1p(Math.exp(-z)) : -z + Math.log1p(Math.exp(z));
      r.lossFixed += Math.round(loss * ParamServer.SCALE);
      if ((margin > 0) == positive) {
        r.correct++;
      }
      double p = 1 / (1 + Math.exp(-margin));
      double d = p - (positive ? 1 : 0);
      for (int e = shard.start[row]; e < shard.start[row + 1]; e++) {
        grad[batch.slotOfNonZero[e - base]] += Math.round(d * shard.values[e] * ParamServer.SCALE);
      }
    }
    r.rows = batch.to - batch.from;
    @SuppressWarnings("unchecked")
    CallFuture<Integer>[] pushes = new CallFuture[k];
    for (int s = 0; s < k; s++) {
      int[] slots = batch.slotsOfServer[s];
      if (slots.length > 0) {
        ByteBuffer g = ByteBuffer.allocate(8 * slots.length);
        for (int slot : slots) {
          g.putLong(grad[slot]);
        }
        g.flip();
        pushes[s] = new CallFuture<>();
        try {
          servers[s].push(new GradPush(id, batch.keyBytesOfServer[s].duplicate(), g), pushes[s]);
        } catch (IOException | org.apache.avro.AvroRuntimeException e) {
          throw new IOException("worker " + id + ": push to server " + s + " failed: " + e.getMessage(), e);
        }
      }
    }
    for (int s = 0; s < k; s++) {
      if (pushes[s] != null) {
        await(pushes[s], "push to server " + s);
      }
    }
    return r;
  }

  private <T> T await(CallFuture<T> f, String what) throws IOException, InterruptedException {
    try {
      return f.get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable c = e.getCause() == null ? e : e.getCause();
      throw new IOException("worker " + id + ": " + what + " failed: " + c, c);
    } catch (TimeoutException e) {
      throw new IOException("worker " + id + ": " + what + " got no answer within " + timeoutMs + " ms");
    }
  }
}
