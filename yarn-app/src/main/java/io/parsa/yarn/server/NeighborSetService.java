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
import io.parsa.yarn.rpc.NeighborSetClient;
import io.parsa.yarn.rpc.PackedLongs;
import io.parsa.yarn.rpc.Rejections;
import io.parsa.yarn.rpc.Tokens;
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
import org.apache.avro.AvroRuntimeException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One neighbor-set shard behind the {@link NeighborSetProtocol}: validates every request (secret, ownership,
 * sizes) before touching state, applies pushes once per (worker, sequence), logs every applied push before
 * acknowledging it, and snapshots / dumps the shard without stopping pushes.
 *
 * <p>Durability (see docs/partition-u.md, "Server state"): a push is appended to the current log segment
 * ({@link PushLog}, flushed) and applied under one push lock, then acknowledged. A snapshot rolls the log to a
 * new segment (under the push lock: microseconds), then copies and writes one sub-map at a time (each sub-map's
 * lock is held only for its in-memory copy), renames {@code server-<id>-<segment>.avro} into place and deletes
 * the segments it covers. A restarted server loads the newest snapshot and replays the later segments in order;
 * replaying a push the snapshot already holds is harmless (union is idempotent; a replace sets the same value,
 * and pushes are replayed in their original order).
 */
public final class NeighborSetService implements NeighborSetProtocol {
  private static final Logger LOG = LoggerFactory.getLogger(NeighborSetService.class);
  private static final String META_SEQ = "parsa.sequences";
  private static final String META_SEGMENT = "parsa.log.segment";

  private final int serverId;
  private final int servers;
  private final String secret;
  private final int maxKeys;
  private final ShardStore store;
  /**
   * In a wave run, per open wave, the members its blocks pushed: pulls of that wave or earlier leave them out, so a
   * block run again after its worker was lost, having pushed, or after other blocks of its wave pushed, pulls what it
   * pulled the first time. A block of wave w pushes only members it did not pull (its wave-start sets), so the record
   * is exactly what the wave added; being a union of pushes, it is rebuilt by replaying the push log and may be
   * snapshotted while pushes go on. A wave's record is dropped once the master's pings say that the master's written
   * ledger holds every block of the wave: none of them runs again, even after a master restart. Stage-0 blocks of a
   * wave run are keyed below every wave ({@link NeighborSetClient#stage0Wave}) and dropped with the first wave's.
   */
  private final java.util.concurrent.ConcurrentSkipListMap<Integer, ShardStore> addedByWave =
      new java.util.concurrent.ConcurrentSkipListMap<>();
  /** Serialises push application, sequence bookkeeping and log appends (pulls never take it). */
  private final Object pushLock = new Object();
  private final Int2LongOpenHashMap lastSequence = new Int2LongOpenHashMap();
  private PushLog.Writer log;
  private long nextSegment = 1;
  private final FileSystem fs;
  private volatile Path dumpRoot;
  private final Path checkpointDir;
  private final long lastWordMask;
  private final AtomicLong pulls = new AtomicLong();
  private final AtomicLong pushes = new AtomicLong();
  private final AtomicLong rejected = new AtomicLong();
  private final CountDownLatch shutdown = new CountDownLatch(1);
  private volatile String failure;
  private volatile long crashAfterPushes = -1;
  private volatile long hangAfterPushes = -1;
  private volatile boolean stopped;
  /** When the push being applied started (ms), 0 if none: what {@link #ping} reports. */
  private volatile long pushStartedAt;
  private volatile String lastCheckpoint;

  /**
   * @param checkpointDir where snapshots and push logs go (may be null: no durability)
   */
  public NeighborSetService(int serverId, int servers, int k, String secret, int maxKeys, FileSystem fs,
      Path checkpointDir) {
    this(serverId, servers, k, secret, maxKeys, fs, checkpointDir, ShardStore.DEFAULT_SUBMAP_BITS);
  }

  /** @param subMapBits log2 of the number of sub-maps of the shard */
  public NeighborSetService(int serverId, int servers, int k, String secret, int maxKeys, FileSystem fs,
      Path checkpointDir, int subMapBits) {
    this.serverId = serverId;
    this.servers = servers;
    this.secret = secret;
    this.maxKeys = maxKeys;
    this.store = new ShardStore(k, subMapBits);
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

  /** Data-plane requests: the token must be the one of the worker the request names. */
  private void checkWorker(int workerId, CharSequence presented) throws RequestRejected {
    if (!Tokens.verify(secret, Tokens.Role.WORKER, workerId, presented)) {
      throw reject("token does not match worker id " + workerId + " (bad, missing or another worker's token)");
    }
  }

  /** Control requests (stats, ping, checkpoint, dump, shutdown) are the master's alone. */
  private void checkMaster(CharSequence presented) throws RequestRejected {
    if (!Tokens.verify(secret, Tokens.Role.MASTER, 0, presented)) {
      throw reject("control requests need the master's token");
    }
  }

  private long[] checkKeys(java.nio.ByteBuffer keys) throws RequestRejected {
    if (keys == null) {
      throw reject("no keys");
    }
    long[] out;
    try {
      out = PackedLongs.unpackKeys(keys, maxKeys);
    } catch (java.io.IOException e) {
      throw reject("malformed keys (packed longs, at most " + maxKeys + " a request): " + e.getMessage());
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
    checkWorker(request.getWorkerId(), request.getToken());
    long[] keys = checkKeys(request.getKeys());
    int wpk = store.wordsPerKey();
    long[] out = new long[keys.length * wpk];
    int wave = request.getWave();
    store.pull(keys, out);
    if (wave != NeighborSetClient.NO_WAVE && !addedByWave.isEmpty()) {
      // a push records its additions before it applies them, so a member read from the store is found here too
      long[] later = new long[out.length];
      for (ShardStore added : addedByWave.tailMap(wave, true).values()) {
        added.pull(keys, later);
        for (int i = 0; i < out.length; i++) {
          out[i] &= ~later[i];
        }
      }
    }
    pulls.incrementAndGet();
    return new PullResponse(wpk, PackedLongs.words(out));
  }

  @Override
  public PushResponse push(PushRequest request) throws RequestRejected {
    if (request == null) {
      throw reject("null request");
    }
    checkWorker(request.getWorkerId(), request.getToken());
    long[] keys = checkKeys(request.getKeys());
    int wpk = store.wordsPerKey();
    long[] bits;
    try {
      bits = PackedLongs.unpackWords(request.getBits(),
          (int) Math.min(Integer.MAX_VALUE - 8, (long) keys.length * wpk));
    } catch (java.io.IOException e) {
      throw reject("malformed bits: " + e.getMessage());
    }
    if ((long) bits.length != (long) keys.length * wpk) {
      throw reject("bits length " + bits.length + " != keys " + keys.length + " x words per key " + wpk);
    }
    for (int i = 0; i < bits.length; i++) {
      if (i % wpk == wpk - 1 && (bits[i] & ~lastWordMask) != 0) {
        throw reject("bits set at or beyond part k for key index " + (i / wpk));
      }
    }
    int worker = request.getWorkerId();
    long seq = request.getSequence();
    boolean replace = request.getReplace();
    synchronized (pushLock) {
      pushStartedAt = System.currentTimeMillis();
      try {
        return applyLocked(worker, seq, replace, keys, bits, request.getWave());
      } finally {
        pushStartedAt = 0;
      }
    }
  }

  /** Applies one validated push; the caller holds {@link #pushLock}. */
  private PushResponse applyLocked(int worker, long seq, boolean replace, long[] keys, long[] bits, int wave) {
    if (failure != null || stopped) {
      throw new AvroRuntimeException("server " + serverId + " is going down"
          + (failure == null ? "" : ": " + failure));
    }
    if (hangAfterPushes >= 0 && pushes.get() >= hangAfterPushes) {
      LOG.warn("test hook: server {} stops making progress in a push", serverId);
      while (!stopped) {
        try {
          Thread.sleep(50);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      throw new AvroRuntimeException("server " + serverId + " was stopped while hung (test hook)");
    }
    if (seq <= lastSequence.get(worker)) {
      return new PushResponse(seq, false);
    }
    if (crashAfterPushes >= 0 && pushes.get() >= crashAfterPushes) {
      fail("test hook: crash after " + crashAfterPushes + " acknowledged pushes");
      throw new AvroRuntimeException("server " + serverId + " crashed (test hook)");
    }
    if (log != null) {
      try {
        log.append(worker, seq, replace, wave, keys, bits);
      } catch (IOException e) {
        fail("push log append failed: " + e);
        throw new AvroRuntimeException("server " + serverId + ": push log failed: " + e);
      }
    }
    if (wave != NeighborSetClient.NO_WAVE && !replace) {
      recordAdded(wave, keys, bits);
    }
    store.push(keys, bits, replace);
    lastSequence.put(worker, seq);
    pushes.incrementAndGet();
    return new PushResponse(seq, true);
  }

  /** Adds a push of wave {@code wave} to that wave's record in {@link #addedByWave}. */
  private void recordAdded(int wave, long[] keys, long[] bits) {
    if (keys.length > 0) {
      waveRecord(wave).push(keys, bits, false);
    }
  }

  /** Wave {@code wave}'s record, made empty if it has none yet. */
  private ShardStore waveRecord(int wave) {
    return addedByWave.computeIfAbsent(wave, x -> new ShardStore(store.k(), WAVE_SUBMAP_BITS));
  }

  /** Sub-maps of a wave's record of added members (a wave's pushes, a small share of the shard). */
  private static final int WAVE_SUBMAP_BITS = 4;

  @Override
  public long ping(ControlRequest request) throws RequestRejected {
    checkMaster(request == null ? null : request.getToken());
    if (request.getWave() > 0) {
      addedByWave.headMap(request.getWave()).clear();
    }
    long started = pushStartedAt;
    return started == 0 ? 0 : Math.max(1, System.currentTimeMillis() - started);
  }

  // ---- control plane ---------------------------------------------------------------------------

  @Override
  public ServerStats stats(ControlRequest request) throws RequestRejected {
    checkMaster(request == null ? null : request.getToken());
    return stats();
  }

  /** Current counters (local call). */
  public ServerStats stats() {
    long[] sizes = store.setSizes();
    long n = store.numKeys();
    return new ServerStats(serverId, n, LongArrayList.wrap(sizes), pulls.get(), pushes.get(), rejected.get(),
        lastCheckpoint);
  }

  @Override
  public ServerStats checkpoint(ControlRequest request) throws RequestRejected {
    checkMaster(request == null ? null : request.getToken());
    try {
      checkpoint();
    } catch (IOException e) {
      throw Rejections.server("checkpoint failed: " + e);
    }
    return stats();
  }

  /**
   * Restricts {@code dump} to directories under {@code root} (the application's own temporary output), so that
   * even a holder of the secret cannot make the server write anywhere else with the container's rights.
   */
  public void restrictDumpsTo(Path root) {
    this.dumpRoot = root;
  }

  private static boolean isUnder(Path p, Path root) {
    for (Path q = p; q != null; q = q.getParent()) {
      if (q.equals(root)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public ServerStats dump(ControlRequest request) throws RequestRejected {
    checkMaster(request == null ? null : request.getToken());
    if (request.getPath() == null) {
      throw reject("dump needs a path");
    }
    Path dir = new Path(request.getPath());
    if (dumpRoot != null && !isUnder(fs.makeQualified(dir), fs.makeQualified(dumpRoot))) {
      throw reject("dump path " + dir + " is outside this application's output " + dumpRoot);
    }
    Path file = new Path(dir, String.format("part-s-%05d.avro", serverId));
    try {
      writeShard(store, file, Map.of());
    } catch (IOException e) {
      throw Rejections.server("dump to " + file + " failed: " + e);
    }
    LOG.info("server {}: wrote final neighbor sets to {}", serverId, file);
    return stats();
  }

  @Override
  public boolean shutdown(ControlRequest request) throws RequestRejected {
    checkMaster(request == null ? null : request.getToken());
    shutdown.countDown();
    return true;
  }

  /** Blocks until a shutdown request arrives or the service fails (see {@link #failure}). */
  public void awaitShutdown() throws InterruptedException {
    shutdown.await();
  }

  /** Why the service stopped accepting pushes (a log write failed, or a test crash), or null. */
  public String failure() {
    return failure;
  }

  private void fail(String why) {
    if (failure == null) {
      failure = why;
      LOG.error("server {}: {}", serverId, why);
    }
    shutdown.countDown();
  }

  /** Test hook: after {@code n} applied pushes the next push hangs (holding the push lock) until {@link #stop}. */
  public void hangAfterPushes(long n) {
    hangAfterPushes = n;
  }

  /** The server is going away (shut down or killed): releases a push held by the hang test hook. */
  public void stop() {
    stopped = true;
  }

  /** Test hook: after {@code n} applied pushes the next push makes the service fail as if it crashed. */
  public void crashAfterPushes(long n) {
    crashAfterPushes = n;
  }

  public boolean isShutdown() {
    return shutdown.getCount() == 0;
  }

  /**
   * Takes a snapshot without stopping pushes: rolls the push log to a new segment, writes the shard one sub-map
   * copy at a time, renames the snapshot into place and deletes the log segments and snapshots it supersedes.
   */
  public synchronized void checkpoint() throws IOException {
    if (checkpointDir == null) {
      return;
    }
    long covered;
    String seqs;
    synchronized (pushLock) {
      if (log == null) {
        throw new IllegalStateException("server " + serverId + ": checkpoint before the push log was started");
      }
      covered = log.segment();
      seqs = encodeSequences();
      PushLog.Writer next = new PushLog.Writer(fs, checkpointDir, serverId, covered + 1);
      PushLog.Writer old = log;
      log = next;
      old.close();
    }
    long t0 = System.currentTimeMillis();
    Path target = new Path(checkpointDir, String.format("server-%d-%09d.avro", serverId, covered));
    Path tmp = new Path(checkpointDir, "." + target.getName() + ".tmp");
    long written = writeShard(store, tmp, Map.of(META_SEQ, seqs, META_SEGMENT, Long.toString(covered)));
    // the open waves' records beside it (a union of pushes: what later pushes add, the log replays again)
    for (Map.Entry<Integer, ShardStore> e : addedByWave.entrySet()) {
      Path wf = waveRecordPath(covered, e.getKey());
      Path wtmp = new Path(checkpointDir, "." + wf.getName() + ".tmp");
      writeShard(e.getValue(), wtmp, Map.of(META_SEGMENT, Long.toString(covered)));
      if (!fs.rename(wtmp, wf)) {
        throw new IOException("could not rename wave record " + wtmp + " to " + wf);
      }
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
    for (FileStatus st : fs.listStatus(checkpointDir, p -> p.getName().startsWith("server-" + serverId + "-")
        && p.getName().contains(WAVE_RECORD) && !p.getName().startsWith(target.getName() + WAVE_RECORD))) {
      fs.delete(st.getPath(), false);
    }
    for (long seg : PushLog.segments(fs, checkpointDir, serverId)) {
      if (seg <= covered) {
        PushLog.logFs(fs).delete(PushLog.segmentPath(checkpointDir, serverId, seg), false);
      }
    }
    LOG.info("server {}: snapshot {} ({} keys, log segments <= {} dropped) in {} ms", serverId, target, written,
        covered, System.currentTimeMillis() - t0);
  }

  private String encodeSequences() {
    StringBuilder sb = new StringBuilder();
    for (Int2LongOpenHashMap.Entry e : lastSequence.int2LongEntrySet()) {
      sb.append(e.getIntKey()).append(':').append(e.getLongValue()).append(',');
    }
    return sb.toString();
  }

  /** Where the snapshot of segment {@code covered} keeps wave {@code wave}'s record. */
  private Path waveRecordPath(long covered, int wave) {
    return new Path(checkpointDir, String.format("server-%d-%09d.avro%s%d", serverId, covered, WAVE_RECORD, wave));
  }

  private static final String WAVE_RECORD = ".wave-";

  /**
   * Writes {@code from} (the shard, or a wave's record), copying one sub-map at a time (pushes continue meanwhile);
   * returns the keys written.
   */
  private long writeShard(ShardStore from, Path file, Map<String, String> meta) throws IOException {
    Map<String, String> m = new HashMap<>(meta);
    m.put("parsa.server.id", Integer.toString(serverId));
    int wpk = from.wordsPerKey();
    try (NeighborSetFiles.Writer w = new NeighborSetFiles.Writer(fs, file, from.k(), m)) {
      for (int j = 0; j < from.subMapCount(); j++) {
        ShardStore.Copy c = from.copySubMap(j);
        for (int i = 0; i < c.keys.length; i++) {
          w.write(c.keys[i], c.words, i * wpk);
        }
      }
      return w.written();
    }
  }

  /**
   * Loads the newest snapshot of this server and replays the push-log segments written after it. Call once,
   * before {@link #startLog}.
   *
   * @return whether any state was found (a snapshot or a logged push)
   */
  public boolean restore() throws IOException {
    if (checkpointDir == null || !fs.exists(checkpointDir)) {
      return false;
    }
    boolean found = false;
    long covered = 0;
    // snapshots an earlier incarnation was writing when it died (never renamed into place)
    for (FileStatus st : fs.listStatus(checkpointDir,
        p -> p.getName().startsWith(".server-" + serverId + "-") && p.getName().endsWith(".tmp"))) {
      fs.delete(st.getPath(), false);
    }
    List<FileStatus> cps = listCheckpoints(fs, checkpointDir, serverId);
    if (!cps.isEmpty()) {
      FileStatus newest = cps.get(cps.size() - 1);
      Map<String, String> meta = load(store, newest.getPath(), true);
      for (String part : meta.getOrDefault(META_SEQ, "").split(",")) {
        if (!part.isEmpty()) {
          int c = part.indexOf(':');
          lastSequence.put(Integer.parseInt(part.substring(0, c)), Long.parseLong(part.substring(c + 1)));
        }
      }
      String name = newest.getPath().getName();
      covered = Long.parseLong(meta.getOrDefault(META_SEGMENT,
          name.substring(name.lastIndexOf('-') + 1, name.length() - ".avro".length())));
      lastCheckpoint = newest.getPath().toString();
      found = true;
      String recordPrefix = name + WAVE_RECORD;
      for (FileStatus st : fs.listStatus(checkpointDir, p -> p.getName().startsWith(recordPrefix))) {
        int wave = Integer.parseInt(st.getPath().getName().substring(recordPrefix.length()));
        load(waveRecord(wave), st.getPath(), false);
      }
      LOG.info("server {}: restored {} keys from snapshot {}", serverId, store.numKeys(), newest.getPath());
    }
    long replayed = 0;
    long last = covered;
    for (long seg : PushLog.segments(fs, checkpointDir, serverId)) {
      last = Math.max(last, seg);
      if (seg <= covered) {
        continue;
      }
      PushLog.fence(fs, PushLog.segmentPath(checkpointDir, serverId, seg));
      replayed += PushLog.replay(fs, PushLog.segmentPath(checkpointDir, serverId, seg), store.wordsPerKey(),
          (worker, seq, replace, wave, keys, bits) -> {
            if (wave != NeighborSetClient.NO_WAVE && !replace) {
              recordAdded(wave, keys, bits);
            }
            store.push(keys, bits, replace);
            if (seq > lastSequence.get(worker)) {
              lastSequence.put(worker, seq);
            }
          });
    }
    nextSegment = last + 1;
    if (replayed > 0) {
      found = true;
      LOG.info("server {}: replayed {} logged pushes after snapshot segment {}; {} keys", serverId, replayed,
          covered, store.numKeys());
    }
    return found;
  }

  /** Opens a fresh push-log segment; every push from now on is logged before it is acknowledged. */
  public void startLog() throws IOException {
    if (checkpointDir == null) {
      return;
    }
    synchronized (pushLock) {
      if (log == null) {
        log = new PushLog.Writer(fs, checkpointDir, serverId, nextSegment);
      }
    }
  }

  /** Loads a neighbor-set file in batches (replace, or union), keeping only this shard's keys; returns keys read. */
  private Map<String, String> load(ShardStore into, Path file, boolean replace) throws IOException {
    int wpk = store.wordsPerKey();
    int batch = 4096;
    long[] keys = new long[batch];
    long[] words = new long[batch * wpk];
    int[] n = {0};
    Map<String, String> meta = NeighborSetFiles.read(fs, file, store.k(), (key, w, off) -> {
      if (KeySharding.shard(key, servers) != serverId) {
        return;
      }
      keys[n[0]] = key;
      System.arraycopy(w, off, words, n[0] * wpk, wpk);
      if (++n[0] == batch) {
        into.push(keys, words, replace);
        n[0] = 0;
      }
    });
    into.push(Arrays.copyOf(keys, n[0]), Arrays.copyOf(words, n[0] * wpk), replace);
    return meta;
  }

  /** Loads this shard's keys from an earlier run's neighbor-sets directory (incremental partitioning). */
  public void loadInitial(Path dir) throws IOException {
    for (Path f : NeighborSetFiles.list(fs, dir)) {
      load(store, f, false);
    }
    LOG.info("server {}: loaded {} initial keys from {}", serverId, store.numKeys(), dir);
  }

  private static List<FileStatus> listCheckpoints(FileSystem fs, Path dir, int serverId) throws IOException {
    String prefix = "server-" + serverId + "-";
    FileStatus[] st = fs.listStatus(dir, p -> p.getName().startsWith(prefix) && p.getName().endsWith(".avro"));
    Arrays.sort(st);
    return new ArrayList<>(Arrays.asList(st));
  }
}
