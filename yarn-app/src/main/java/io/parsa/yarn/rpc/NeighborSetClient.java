package io.parsa.yarn.rpc;

import io.parsa.avro.rpc.NeighborSetProtocol;
import io.parsa.avro.rpc.PullRequest;
import io.parsa.avro.rpc.PullResponse;
import io.parsa.avro.rpc.PushRequest;
import io.parsa.avro.rpc.RequestRejected;
import io.parsa.avro.rpc.ServerList;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/**
 * A worker's view of the sharded neighbor sets: splits pulls and pushes by owner shard and into batches, numbers
 * every push batch with a per-worker sequence (a retried batch keeps its number, so the server applies it once),
 * and on a transport error asks the master for fresh server addresses and retries until {@code retryMs} passed.
 */
public final class NeighborSetClient implements AutoCloseable {
  private final SchedulerClient master;
  private final String secret;
  private final int workerId;
  private final int servers;
  private final int wpk;
  private final int batchKeys;
  private final int connectTimeoutMs;
  private final long retryMs;
  @SuppressWarnings("unchecked")
  private final Rpc.Client<NeighborSetProtocol>[] conns;
  private List<String> addresses;
  private long sequence;

  @SuppressWarnings("unchecked")
  public NeighborSetClient(SchedulerClient master, String secret, int workerId, int servers, int k, int batchKeys,
      int connectTimeoutMs, long retryMs) {
    this.master = master;
    this.secret = secret;
    this.workerId = workerId;
    this.servers = servers;
    this.wpk = (k + 63) >>> 6;
    this.batchKeys = batchKeys;
    this.connectTimeoutMs = connectTimeoutMs;
    this.retryMs = retryMs;
    this.conns = new Rpc.Client[servers];
    this.sequence = System.currentTimeMillis() * 1000;
  }

  /** Splits sorted or unsorted keys by shard: indices of the keys owned by each shard. */
  private int[][] byShard(long[] keys) {
    int[] counts = new int[servers];
    int[] shard = new int[keys.length];
    for (int i = 0; i < keys.length; i++) {
      shard[i] = KeySharding.shard(keys[i], servers);
      counts[shard[i]]++;
    }
    int[][] idx = new int[servers][];
    for (int s = 0; s < servers; s++) {
      idx[s] = new int[counts[s]];
    }
    int[] fill = new int[servers];
    for (int i = 0; i < keys.length; i++) {
      idx[shard[i]][fill[shard[i]]++] = i;
    }
    return idx;
  }

  /** Membership words of {@code keys} ({@code keys.length * wpk} words, request order). */
  public synchronized long[] pull(long[] keys) throws IOException {
    long[] out = new long[keys.length * wpk];
    int[][] idx = byShard(keys);
    for (int s = 0; s < servers; s++) {
      int[] mine = idx[s];
      for (int from = 0; from < mine.length; from += batchKeys) {
        int to = Math.min(mine.length, from + batchKeys);
        long[] batch = new long[to - from];
        for (int i = from; i < to; i++) {
          batch[i - from] = keys[mine[i]];
        }
        final int shard = s;
        PullResponse r = call(shard, "pull", p -> p.pull(new PullRequest(secret, workerId, Longs.wrap(batch))));
        long[] bits = Longs.toArray(r.getBits());
        if (r.getWordsPerKey() != wpk || bits.length != batch.length * wpk) {
          throw new IOException("server " + shard + " answered a pull of " + batch.length + " keys with "
              + bits.length + " words of " + r.getWordsPerKey() + " per key; expected " + wpk);
        }
        for (int i = from; i < to; i++) {
          System.arraycopy(bits, (i - from) * wpk, out, mine[i] * wpk, wpk);
        }
      }
    }
    return out;
  }

  /** Pushes {@code bits} for {@code keys}: union, or replace (stage 0). */
  public synchronized void push(long[] keys, long[] bits, boolean replace) throws IOException {
    int[][] idx = byShard(keys);
    for (int s = 0; s < servers; s++) {
      int[] mine = idx[s];
      for (int from = 0; from < mine.length; from += batchKeys) {
        int to = Math.min(mine.length, from + batchKeys);
        long[] bk = new long[to - from];
        long[] bb = new long[(to - from) * wpk];
        for (int i = from; i < to; i++) {
          bk[i - from] = keys[mine[i]];
          System.arraycopy(bits, mine[i] * wpk, bb, (i - from) * wpk, wpk);
        }
        long seq = ++sequence;
        PushRequest req = new PushRequest(secret, workerId, seq, replace, Longs.wrap(bk), Longs.wrap(bb));
        call(s, "push", p -> p.push(req));
      }
    }
  }

  @FunctionalInterface
  private interface Call<T> {
    T apply(NeighborSetProtocol p) throws RequestRejected;
  }

  private <T> T call(int shard, String what, Call<T> call) throws IOException {
    long deadline = System.currentTimeMillis() + retryMs;
    Exception last = null;
    int attempt = 0;
    while (true) {
      try {
        return call.apply(connection(shard));
      } catch (RequestRejected e) {
        throw new IOException("server " + shard + " rejected " + what + ": " + e.getReason(), e);
      } catch (IOException | RuntimeException e) {
        last = e;
        drop(shard);
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("server " + shard + " unreachable for " + what + " after " + retryMs + " ms", last);
      }
      Sleeper.backoff(attempt++);
      refreshAddresses();
    }
  }

  private NeighborSetProtocol connection(int shard) throws IOException {
    if (addresses == null) {
      refreshAddresses();
    }
    if (conns[shard] == null) {
      String a = addresses.get(shard);
      if (a.isEmpty()) {
        throw new IOException("server " + shard + " is restarting");
      }
      conns[shard] = Rpc.connect(NeighborSetProtocol.class, a, connectTimeoutMs, RpcSecurity.forSecret(secret));
    }
    return conns[shard].proxy();
  }

  private void refreshAddresses() throws IOException {
    ServerList list = master.servers();
    List<String> fresh = list.getAddresses();
    if (fresh.size() != servers) {
      throw new IOException("master lists " + fresh.size() + " servers, expected " + servers);
    }
    for (int s = 0; s < servers; s++) {
      if (addresses != null && !addresses.get(s).equals(fresh.get(s))) {
        drop(s);
      }
    }
    addresses = List.copyOf(fresh);
  }

  private void drop(int shard) {
    if (conns[shard] != null) {
      conns[shard].close();
      conns[shard] = null;
    }
  }

  @Override
  public synchronized void close() {
    for (int s = 0; s < servers; s++) {
      drop(s);
    }
  }

  /** Words per key of this client's bitsets. */
  public int wordsPerKey() {
    return wpk;
  }

  /** For tests: the sequence number of the last push batch. */
  synchronized long lastSequence() {
    return sequence;
  }

  static long[] copy(long[] a) {
    return Arrays.copyOf(a, a.length);
  }
}
