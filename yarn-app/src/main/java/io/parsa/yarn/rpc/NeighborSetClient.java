package io.parsa.yarn.rpc;

import io.parsa.avro.rpc.NeighborSetProtocol;
import io.parsa.avro.rpc.PullRequest;
import io.parsa.avro.rpc.PullResponse;
import io.parsa.avro.rpc.PushRequest;
import io.parsa.avro.rpc.RequestRejected;
import io.parsa.avro.rpc.ServerList;
import io.parsa.yarn.ParsaYarnConfig;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's view of the sharded neighbor sets: splits pulls and pushes by owner shard and into batches, numbers
 * every push batch with a per-worker sequence (a retried batch keeps its number, so the server applies it once),
 * and on a transport error waits for the server: it polls the master's registry for the server's (new) address
 * and re-sends the unacknowledged batch, for up to {@code serverWaitMs} — far longer than any RPC timeout, so a
 * slow server restart delays workers instead of failing them.
 *
 * <p>Sequences need no clock: worker ids are unique within an application attempt (the master never reuses
 * one), and the sequence starts at {@code attempt << 40}, so a worker of a later attempt that reuses an id of an
 * earlier attempt still numbers its pushes above every push the servers saw from that id.
 */
public final class NeighborSetClient implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NeighborSetClient.class);
  /** Bits of the sequence left for pushes within one attempt (2^40, about 10^12 batches). */
  static final int SEQUENCE_BITS = 40;

  private final SchedulerClient master;
  private final String secret;
  private final String token;
  private final int workerId;
  private final int servers;
  private final int wpk;
  private final int batchKeys;
  private final int connectTimeoutMs;
  private final long serverWaitMs;
  @SuppressWarnings("unchecked")
  private final Rpc.Client<NeighborSetProtocol>[] conns;
  private List<String> addresses;
  private long sequence;

  @SuppressWarnings("unchecked")
  /**
   * @param workerId the worker's explicit id (unique within the attempt)
   * @param attempt the application attempt whose master launched this worker, from 1
   * @param serverWaitMs how long to wait for an unreachable or restarting server before giving up
   */
  public NeighborSetClient(SchedulerClient master, String secret, int workerId, int attempt, int servers, int k,
      int batchKeys, int connectTimeoutMs, long serverWaitMs) {
    this.master = master;
    this.secret = secret;
    this.token = Tokens.worker(secret, workerId);
    this.workerId = workerId;
    this.servers = servers;
    this.wpk = (k + 63) >>> 6;
    this.batchKeys = batchKeys;
    this.connectTimeoutMs = connectTimeoutMs;
    this.serverWaitMs = serverWaitMs;
    this.conns = new Rpc.Client[servers];
    this.sequence = firstSequence(attempt);
  }

  /** The sequence before the first push of a worker of {@code attempt}: above every sequence of earlier attempts. */
  static long firstSequence(int attempt) {
    if (attempt < 1 || attempt >= 1 << (63 - SEQUENCE_BITS)) {
      throw new IllegalArgumentException("application attempt " + attempt + " outside [1, 2^23)");
    }
    return (long) attempt << SEQUENCE_BITS;
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

  /** The wave of a pull or push that names none: every push applied, nothing recorded. */
  public static final int NO_WAVE = -1;

  /**
   * The wave that the pulls and pushes of the stage-0 block at {@code position} of a wave run name: stage-0 blocks
   * run one at a time, before every wave, so their places count up from the smallest int, below every wave (and
   * below {@link #NO_WAVE}).
   */
  public static int stage0Wave(int position) {
    if (position < 0) {
      throw new IllegalArgumentException("a stage-0 block's place is >= 0, was " + position);
    }
    return Integer.MIN_VALUE + position;
  }

  /**
   * Membership words of {@code keys} ({@code keys.length * wpk} words, request order) as the servers held them when
   * wave {@code wave} began: without the members pushed by blocks of that wave or later ({@link #NO_WAVE}: every push
   * applied).
   */
  public synchronized long[] pull(long[] keys, int wave) throws IOException {
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
        java.nio.ByteBuffer packed = PackedLongs.keys(batch);
        PullResponse r = call(shard, "pull", p -> p.pull(new PullRequest(token, workerId, packed.duplicate(), wave)));
        long[] bits;
        try {
          bits = PackedLongs.unpackWords(r.getBits(), batch.length * wpk);
        } catch (IOException e) {
          throw new IOException("server " + shard + " answered a pull of " + batch.length + " keys with malformed"
              + " membership words: " + e.getMessage(), e);
        }
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

  /**
   * Pushes {@code bits} for {@code keys}: union, or replace (stage 0), by a block of wave {@code wave}
   * ({@link #NO_WAVE}: none; see {@link #pull(long[], int)}).
   */
  public synchronized void push(long[] keys, long[] bits, boolean replace, int wave) throws IOException {
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
        java.nio.ByteBuffer pk = PackedLongs.keys(bk);
        java.nio.ByteBuffer pb = PackedLongs.words(bb);
        // a retried call sends the same bytes again: each attempt gets its own view of them
        call(s, "push", p -> p.push(new PushRequest(token, workerId, seq, replace, pk.duplicate(), pb.duplicate(), wave)));
      }
    }
  }

  @FunctionalInterface
  private interface Call<T> {
    T apply(NeighborSetProtocol p) throws RequestRejected;
  }

  private <T> T call(int shard, String what, Call<T> call) throws IOException {
    long started = System.currentTimeMillis();
    long deadline = started + serverWaitMs;
    Exception last = null;
    int attempt = 0;
    while (true) {
      try {
        T result = call.apply(connection(shard));
        if (attempt > 0) {
          LOG.info("worker {}: server {} is back after {} ms; {} re-sent", workerId, shard,
              System.currentTimeMillis() - started, what);
        }
        return result;
      } catch (RequestRejected e) {
        throw new IOException("server " + shard + " rejected " + what + ": " + e.getReason(), e);
      } catch (IOException | RuntimeException e) {
        if (e instanceof java.io.InterruptedIOException) {
          throw (java.io.InterruptedIOException) e;
        }
        last = e;
        drop(shard);
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("server " + shard + " unreachable for " + what + " for " + serverWaitMs
            + " ms (" + ParsaYarnConfig.WORKER_SERVER_WAIT_MS + ")", last);
      }
      if (attempt == 0) {
        LOG.warn("worker {}: server {} unreachable for {} ({}); waiting up to {} ms for it to come back", workerId,
            shard, what, last.toString(), serverWaitMs);
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

  /**
   * Waits until the master knows every server's address (a first attempt's workers start beside the servers), asking
   * it at most every {@code maxPollMs} and for up to {@link ParsaYarnConfig#WORKER_SERVER_WAIT_MS}, then opens the
   * connection to every server (its TLS handshake), so that the first pull or push need not; a server that cannot be
   * reached now is left to the retries of that call.
   */
  public synchronized void connectAll(long maxPollMs) throws IOException {
    long deadline = System.currentTimeMillis() + serverWaitMs;
    long sleep = 5;
    refreshAddresses();
    while (addresses.contains("")) {
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("the neighbor-set servers had not all registered with the master after "
            + serverWaitMs + " ms (" + ParsaYarnConfig.WORKER_SERVER_WAIT_MS + ")");
      }
      Sleeper.sleep(sleep);
      sleep = Math.min(maxPollMs, 2 * sleep);
      refreshAddresses();
    }
    for (int s = 0; s < servers; s++) {
      try {
        connection(s);
      } catch (IOException e) {
        drop(s);
      }
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
