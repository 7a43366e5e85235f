package io.parsa.yarn.server;

import io.parsa.avro.rpc.ControlRequest;
import io.parsa.avro.rpc.NeighborSetProtocol;
import io.parsa.avro.rpc.PullRequest;
import io.parsa.avro.rpc.PullResponse;
import io.parsa.avro.rpc.PushRequest;
import io.parsa.avro.rpc.PushResponse;
import io.parsa.avro.rpc.RequestRejected;
import io.parsa.avro.rpc.ServerStats;
import io.parsa.yarn.io.NeighborSetFiles;
import io.parsa.yarn.rpc.KeySharding;
import io.parsa.yarn.rpc.Longs;
import io.parsa.yarn.rpc.Rejections;
import io.parsa.yarn.rpc.Secrets;
import it.unimi.dsi.fastutil.ints.Int2LongOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One neighbor-set shard behind the {@link NeighborSetProtocol}: validates every request (secret, ownership,
 * sizes) before touching state, applies pushes once per (worker, sequence), and checkpoints / dumps the shard.
 *
 * <p>Checkpoint file: {@code <checkpointDir>/server-<id>-<generation>.avro}, NeighborSetEntry records with the
 * per-worker applied sequence numbers in the file metadata; written to a hidden temp file and renamed, so the
 * newest complete generation is always readable.
 */
public final class NeighborSetService implements NeighborSetProtocol {
  private static final Logger LOG = LoggerFactory.getLogger(NeighborSetService.class);
  private static final String META_SEQ = "parsa.sequences";

  private final int serverId;
  private final int servers;
  private final String secret;
  private final int maxKeys;
  private final ShardStore store;
  private final Int2LongOpenHashMap lastSequence = new Int2LongOpenHashMap();
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final FileSystem fs;
  private final Path checkpointDir;
  private final long lastWordMask;
  private final AtomicLong pulls = new AtomicLong();
  private final AtomicLong pushes = new AtomicLong();
  private final AtomicLong rejected = new AtomicLong();
  private final CountDownLatch shutdown = new CountDownLatch(1);
  private long generation;
  private volatile String lastCheckpoint;

  /**
   * @param checkpointDir where checkpoints go (may be null: checkpoints disabled)
   */
  public NeighborSetService(int serverId, int servers, int k, String secret, int maxKeys, FileSystem fs,
      Path checkpointDir) {
    this.serverId = serverId;
    this.servers = servers;
    this.secret = secret;
    this.maxKeys = maxKeys;
    this.store = new ShardStore(k);
    this.fs = fs;
    this.checkpointDir = checkpointDir;
    this.lastWordMask = (k & 63) == 0 ? -1L : (1L << (k & 63)) - 1;
    lastSequence.defaultReturnValue(Long.MIN_VALUE);
  }

  // ---- validation ------------------------------------------------------------------------------

  private RequestRejected reject(String why) {
    rejected.incrementAndGet();
    LOG.warn("server {}: rejected request: {}", serverId, why);
    return Rejections.server(why);
  }

  private void checkSecret(CharSequence presented) throws RequestRejected {
    if (!Secrets.matches(secret, presented)) {
      throw reject("bad or missing secret");
    }
  }

  private long[] checkKeys(List<Long> keys) throws RequestRejected {
    if (keys == null) {
      throw reject("no keys");
    }
    if (keys.size() > maxKeys) {
      throw reject("too many keys: " + keys.size() + " > " + maxKeys);
    }
    long[] out;
    try {
      out = Longs.toArray(keys);
    } catch (IllegalArgumentException e) {
      throw reject("malformed keys: " + e.getMessage());
    }
    for (int i = 0; i < out.length; i++) {
      long kk = out[i];
      if (KeySharding.shard(kk, servers) != serverId) {
        throw reject("key " + kk + " is not owned by server " + serverId);
      }
      out[i] = kk;
    }
    return out;
  }

  // ---- data plane ------------------------------------------------------------------------------

  @Override
  public PullResponse pull(PullRequest request) throws RequestRejected {
    if (request == null) {
      throw reject("null request");
    }
    checkSecret(request.getSecret());
    long[] keys = checkKeys(request.getKeys());
    int wpk = store.wordsPerKey();
    long[] out = new long[keys.length * wpk];
    lock.readLock().lock();
    try {
      store.pull(keys, out);
    } finally {
      lock.readLock().unlock();
    }
    pulls.incrementAndGet();
    return new PullResponse(wpk, LongArrayList.wrap(out));
  }

  @Override
  public PushResponse push(PushRequest request) throws RequestRejected {
    if (request == null) {
      throw reject("null request");
    }
    checkSecret(request.getSecret());
    long[] keys = checkKeys(request.getKeys());
    int wpk = store.wordsPerKey();
    List<Long> bitList = request.getBits();
    if (bitList == null || (long) bitList.size() != (long) keys.length * wpk) {
      throw reject("bits length " + (bitList == null ? "null" : bitList.size()) + " != keys " + keys.length
          + " x words per key " + wpk);
    }
    long[] bits;
    try {
      bits = Longs.toArray(bitList);
    } catch (IllegalArgumentException e) {
      throw reject("malformed bits: " + e.getMessage());
    }
    for (int i = 0; i < bits.length; i++) {
      if (i % wpk == wpk - 1 && (bits[i] & ~lastWordMask) != 0) {
        throw reject("bits set at or beyond part k for key index " + (i / wpk));
      }
    }
    lock.writeLock().lock();
    try {
      int worker = request.getWorkerId();
      long seq = request.getSequence();
      if (seq <= lastSequence.get(worker)) {
        return new PushResponse(seq, false);
      }
      store.push(keys, bits, request.getReplace());
      lastSequence.put(worker, seq);
    } finally {
      lock.writeLock().unlock();
    }
    pushes.incrementAndGet();
    return new PushResponse(request.getSequence(), true);
  }

  // ---- control plane ---------------------------------------------------------------------------

  @Override
  public ServerStats stats(ControlRequest request) throws RequestRejected {
    checkSecret(request == null ? null : request.getSecret());
    return stats();
  }

  /** Current counters (local call). */
  public ServerStats stats() {
    long[] sizes;
    long n;
    lock.readLock().lock();
    try {
      sizes = store.setSizes();
      n = store.numKeys();
    } finally {
      lock.readLock().unlock();
    }
    return new ServerStats(serverId, n, LongArrayList.wrap(sizes), pulls.get(), pushes.get(), rejected.get(),
        lastCheckpoint);
  }

  @Override
  public ServerStats checkpoint(ControlRequest request) throws RequestRejected {
    checkSecret(request == null ? null : request.getSecret());
    try {
      checkpoint();
    } catch (IOException e) {
      throw Rejections.server("checkpoint failed: " + e);
    }
    return stats();
  }

  @Override
  public ServerStats dump(ControlRequest request) throws RequestRejected {
    checkSecret(request == null ? null : request.getSecret());
    if (request.getPath() == null) {
      throw reject("dump needs a path");
    }
    Path dir = new Path(request.getPath());
    Path file = new Path(dir, String.format("part-s-%05d.avro", serverId));
    try {
      writeShard(file, Map.of());
    } catch (IOException e) {
      throw Rejections.server("dump to " + file + " failed: " + e);
    }
    LOG.info("server {}: wrote final neighbor sets to {}", serverId, file);
    return stats();
  }

  @Override
  public boolean shutdown(ControlRequest request) throws RequestRejected {
    checkSecret(request == null ? null : request.getSecret());
    shutdown.countDown();
    return true;
  }

  /** Blocks until a shutdown request arrives. */
  public void awaitShutdown() throws InterruptedException {
    shutdown.await();
  }

  public boolean isShutdown() {
    return shutdown.getCount() == 0;
  }

  /** Writes a new checkpoint generation and removes older ones. */
  public synchronized void checkpoint() throws IOException {
    if (checkpointDir == null) {
      return;
    }
    long gen = ++generation;
    Path target = new Path(checkpointDir, String.format("server-%d-%09d.avro", serverId, gen));
    Path tmp = new Path(checkpointDir, "." + target.getName() + ".tmp");
    String seqs;
    lock.readLock().lock();
    try {
      StringBuilder sb = new StringBuilder();
      for (Int2LongOpenHashMap.Entry e : lastSequence.int2LongEntrySet()) {
        sb.append(e.getIntKey()).append(':').append(e.getLongValue()).append(',');
      }
      seqs = sb.toString();
      writeShardLocked(tmp, Map.of(META_SEQ, seqs));
    } finally {
      lock.readLock().unlock();
    }
    if (!fs.rename(tmp, target)) {
      throw new IOException("could not rename checkpoint " + tmp + " to " + target);
    }
    lastCheckpoint = target.toString();
    for (FileStatus st : listCheckpoints(fs, checkpointDir, serverId)) {
      if (!st.getPath().getName().equals(target.getName())) {
        fs.delete(st.getPath(), false);
      }
    }
    LOG.debug("server {}: checkpoint {}", serverId, target);
  }

  private void writeShard(Path file, Map<String, String> meta) throws IOException {
    lock.readLock().lock();
    try {
      writeShardLocked(file, meta);
    } finally {
      lock.readLock().unlock();
    }
  }

  private void writeShardLocked(Path file, Map<String, String> meta) throws IOException {
    Map<String, String> m = new HashMap<>(meta);
    m.put("parsa.server.id", Integer.toString(serverId));
    try (NeighborSetFiles.Writer w = new NeighborSetFiles.Writer(fs, file, store.k(), m)) {
      store.forEach(w::write);
    }
  }

  /** Loads the newest checkpoint of this server; returns false if there is none. */
  public boolean restore() throws IOException {
    if (checkpointDir == null || !fs.exists(checkpointDir)) {
      return false;
    }
    List<FileStatus> cps = listCheckpoints(fs, checkpointDir, serverId);
    if (cps.isEmpty()) {
      return false;
    }
    FileStatus newest = cps.get(cps.size() - 1);
    lock.writeLock().lock();
    try {
      long[] one = new long[1];
      Map<String, String> meta = NeighborSetFiles.read(fs, newest.getPath(), store.k(), (key, words, off) -> {
        one[0] = key;
        store.push(one, Arrays.copyOfRange(words, off, off + store.wordsPerKey()), true);
      });
      String seqs = meta.getOrDefault(META_SEQ, "");
      for (String part : seqs.split(",")) {
        if (!part.isEmpty()) {
          int c = part.indexOf(':');
          lastSequence.put(Integer.parseInt(part.substring(0, c)), Long.parseLong(part.substring(c + 1)));
        }
      }
      String name = newest.getPath().getName();
      generation = Long.parseLong(name.substring(name.lastIndexOf('-') + 1, name.length() - ".avro".length()));
    } finally {
      lock.writeLock().unlock();
    }
    lastCheckpoint = newest.getPath().toString();
    LOG.info("server {}: restored {} keys from checkpoint {}", serverId, store.numKeys(), newest.getPath());
    return true;
  }

  /** Loads this shard's keys from an earlier run's neighbor-sets directory (incremental partitioning). */
  public void loadInitial(Path dir) throws IOException {
    long[] one = new long[1];
    long[] count = new long[1];
    lock.writeLock().lock();
    try {
      for (Path f : NeighborSetFiles.list(fs, dir)) {
        NeighborSetFiles.read(fs, f, store.k(), (key, words, off) -> {
          if (KeySharding.shard(key, servers) == serverId) {
            one[0] = key;
            store.push(one, Arrays.copyOfRange(words, off, off + store.wordsPerKey()), false);
            count[0]++;
          }
        });
      }
    } finally {
      lock.writeLock().unlock();
    }
    LOG.info("server {}: loaded {} initial keys from {}", serverId, count[0], dir);
  }

  private static List<FileStatus> listCheckpoints(FileSystem fs, Path dir, int serverId) throws IOException {
    String prefix = "server-" + serverId + "-";
    FileStatus[] st = fs.listStatus(dir, p -> p.getName().startsWith(prefix) && p.getName().endsWith(".avro"));
    Arrays.sort(st);
    return new ArrayList<>(Arrays.asList(st));
  }
}
