package io.parsa.yarn.server;

import io.parsa.yarn.rpc.Packed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.avro.rpc.ControlRequest;
import io.parsa.avro.rpc.NeighborSetProtocol;
import io.parsa.avro.rpc.PullRequest;
import io.parsa.avro.rpc.PushRequest;
import io.parsa.avro.rpc.RequestRejected;
import io.parsa.yarn.rpc.KeySharding;
import io.parsa.yarn.rpc.Longs;
import io.parsa.yarn.rpc.NeighborSetClient;
import io.parsa.yarn.rpc.Rpc;
import io.parsa.yarn.rpc.RpcSecurity;
import io.parsa.yarn.rpc.Tokens;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.ipc.Server;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The neighbor-set server over real loopback Avro RPC: security, validation, idempotence, checkpoints. */
class NeighborSetServiceTest {
  private static final String SECRET = "s3cret";
  private static final int K = 70; // two words per key, so the last-word mask matters

  private FileSystem fs;
  private Path ckpt;
  private NeighborSetService service;
  private Server server;
  private Rpc.Client<NeighborSetProtocol> client;
  @TempDir
  java.nio.file.Path tmp;

  @BeforeEach
  void start() throws Exception {
    fs = FileSystem.getLocal(new Configuration());
    ckpt = new Path(tmp.toUri());
    service = new NeighborSetService(1, 2, K, SECRET, 100, fs, ckpt);
    service.startLog();
    server = Rpc.serve(NeighborSetProtocol.class, service, "127.0.0.1", RpcSecurity.forSecret(SECRET));
    client = Rpc.connect(NeighborSetProtocol.class, "127.0.0.1:" + server.getPort(), 5000,
        RpcSecurity.forSecret(SECRET));
  }

  @AfterEach
  void stop() {
    client.close();
    Rpc.closeAsync(server);
  }

  /** Keys owned by shard 1 of 2. */
  static List<Long> ownedKeys(int n) {
    List<Long> keys = new ArrayList<>();
    for (long key = 1; keys.size() < n; key++) {
      if (KeySharding.shard(key, 2) == 1) {
        keys.add(key);
      }
    }
    return keys;
  }

  private long[] pull(List<Long> keys) throws Exception {
    return Longs.toArray(Packed.wordList(client.proxy().pull(new PullRequest(Tokens.worker(SECRET, 0), 0,
        Packed.keys(keys), -1)).getBits()));
  }

  private long[] pull(List<Long> keys, int wave) throws Exception {
    return Longs.toArray(Packed.wordList(client.proxy().pull(new PullRequest(Tokens.worker(SECRET, 0), 0,
        Packed.keys(keys), wave)).getBits()));
  }

  private void push(long seq, boolean replace, List<Long> keys, List<Long> words, int wave) throws Exception {
    assertTrue(client.proxy().push(new PushRequest(Tokens.worker(SECRET, 0), 0, seq, replace, Packed.keys(keys),
        Packed.words(words), wave)).getApplied());
  }

  @Test
  void aPullOfAWaveLeavesOutWhatThatWaveAndLaterOnesAdded() throws Exception {
    List<Long> keys = ownedKeys(2);
    // the initialisation (replace, no wave): key 0 in part 0
    push(1, true, keys, List.of(1L, 0L, 0L, 0L), -1);
    // wave 0 adds part 1 to key 0 and part 0 to key 1 (a block pushes only members it did not pull)
    push(2, false, keys, List.of(2L, 0L, 1L, 0L), 0);
    assertArrayEquals(new long[] {1, 0, 0, 0}, pull(keys, 0), "a block of wave 0 run again");
    assertArrayEquals(new long[] {3, 0, 1, 0}, pull(keys, -1), "every push");
    // a pull of wave 1 (wave 0 done) sees wave 0; wave 1 then adds part 2 to key 1
    assertArrayEquals(new long[] {3, 0, 1, 0}, pull(keys, 1));
    push(3, false, keys, List.of(0L, 0L, 4L, 0L), 1);
    assertArrayEquals(new long[] {3, 0, 1, 0}, pull(keys, 1), "a block of wave 1 run again");
    assertArrayEquals(new long[] {3, 0, 5, 0}, pull(keys, 2));
    assertArrayEquals(new long[] {3, 0, 5, 0}, pull(keys, -1));
  }

  /**
   * Stage-0 blocks of a wave run name their place in stage 0 ({@link NeighborSetClient#stage0Wave}): a block run again
   * after its push pulls the sets of the blocks before it only, the waves of stage 1 see every stage-0 push, a
   * restarted server rebuilds the records from its snapshot and log, and the first wave's end forgets them.
   */
  @Test
  void aStage0BlockRunAgainPullsTheSetsOfTheBlocksBeforeIt() throws Exception {
    List<Long> keys = ownedKeys(2);
    int first = NeighborSetClient.stage0Wave(0);
    int second = NeighborSetClient.stage0Wave(1);
    assertArrayEquals(new long[] {0, 0, 0, 0}, pull(keys, first));
    // the initialisation block: key 0 in parts 0 and 1
    push(1, false, keys, List.of(3L, 0L, 0L, 0L), first);
    assertArrayEquals(new long[] {0, 0, 0, 0}, pull(keys, first), "the initialisation block run again");
    assertArrayEquals(new long[] {3, 0, 0, 0}, pull(keys, second));
    // a warm-up block after it: part 2 of key 0, part 0 of key 1 (only what it did not pull)
    push(2, false, keys, List.of(4L, 0L, 1L, 0L), second);
    service.checkpoint();
    NeighborSetService again = restart();
    assertArrayEquals(new long[] {3, 0, 0, 0}, pullLocal(again, keys, second), "the warm-up block run again");
    assertArrayEquals(new long[] {0, 0, 0, 0}, pullLocal(again, keys, first));
    assertArrayEquals(new long[] {7, 0, 1, 0}, pullLocal(again, keys, 0), "wave 0 of stage 1");
    assertArrayEquals(new long[] {7, 0, 1, 0}, pullLocal(again, keys, -1));
    // the master's ping after the first wave: no stage-0 block runs again
    again.ping(new ControlRequest(Tokens.master(SECRET), null, 1));
    assertArrayEquals(new long[] {7, 0, 1, 0}, pullLocal(again, keys, first), "forgotten");
  }

  @Test
  void rejectsBadSecretsAndMalformedRequestsWithoutHarm() throws Exception {
    List<Long> keys = ownedKeys(2);
    NeighborSetProtocol p = client.proxy();
    assertTrue(p.push(new PushRequest(Tokens.worker(SECRET, 0), 0, 1L, false, Packed.keys(keys),
        Packed.words(List.of(1L, 0L, 2L, 0L)), -1)).getApplied());

    RequestRejected e = assertThrows(RequestRejected.class,
        () -> p.push(new PushRequest("wrong", 0, 2L, true, Packed.keys(keys), Packed.words(List.of(0L, 0L, 0L, 0L)), -1)));
    assertTrue(e.getReason().contains("worker id 0"), e.getReason());
    assertThrows(RequestRejected.class, () -> p.pull(new PullRequest("", 0, Packed.keys(keys), -1)));
    // bits length != keys x words per key
    e = assertThrows(RequestRejected.class, () -> p.push(new PushRequest(Tokens.worker(SECRET, 0), 0, 3L, true,
        Packed.keys(keys), Packed.words(List.of(7L)), -1)));
    assertTrue(e.getReason().contains("bits length"), e.getReason());
    // too many keys
    assertThrows(RequestRejected.class, () -> p.pull(new PullRequest(Tokens.worker(SECRET, 0), 0,
        Packed.keys(ownedKeys(101)), -1)));
    // keys that are not packed longs: two announced, one there
    e = assertThrows(RequestRejected.class, () -> p.pull(new PullRequest(Tokens.worker(SECRET, 0), 0,
        java.nio.ByteBuffer.wrap(new byte[] {4, 2}), -1)));
    assertTrue(e.getReason().contains("malformed keys"), e.getReason());
    // a key of another shard
    long foreign = 1;
    while (KeySharding.shard(foreign, 2) == 1) {
      foreign++;
    }
    final long f = foreign;
    assertThrows(RequestRejected.class, () -> p.pull(new PullRequest(Tokens.worker(SECRET, 0), 0,
        Packed.keys(List.of(f)), -1)));
    // a bit at or beyond part k
    assertThrows(RequestRejected.class,
        () -> p.push(new PushRequest(Tokens.worker(SECRET, 0), 0, 4L, true,
            Packed.keys(keys.subList(0, 1)), Packed.words(List.of(0L, 1L << 6)), -1)));

    assertArrayEquals(new long[] {1, 0, 2, 0}, pull(keys), "state survived the rejected requests");
    assertEquals(7, service.stats().getRejected());
  }

  @Test
  void retriedPushIsAppliedOnceAndReplaceReplaces() throws Exception {
    List<Long> keys = ownedKeys(1);
    NeighborSetProtocol p = client.proxy();
    assertTrue(p.push(new PushRequest(Tokens.worker(SECRET, 3), 3, 10L, false, Packed.keys(keys),
        Packed.words(List.of(1L, 0L)), -1)).getApplied());
    assertFalse(p.push(new PushRequest(Tokens.worker(SECRET, 3), 3, 10L, false, Packed.keys(keys),
        Packed.words(List.of(1L, 0L)), -1)).getApplied());
    assertTrue(p.push(new PushRequest(Tokens.worker(SECRET, 3), 3, 11L, false, Packed.keys(keys),
        Packed.words(List.of(4L, 1L)), -1)).getApplied());
    assertArrayEquals(new long[] {5, 1}, pull(keys));
    // a retry of an old push after a replace must not resurrect anything
    assertTrue(p.push(new PushRequest(Tokens.worker(SECRET, 4), 4, 1L, true, Packed.keys(keys),
        Packed.words(List.of(8L, 0L)), -1)).getApplied());
    assertFalse(p.push(new PushRequest(Tokens.worker(SECRET, 3), 3, 11L, false, Packed.keys(keys),
        Packed.words(List.of(4L, 1L)), -1)).getApplied());
    assertArrayEquals(new long[] {8, 0}, pull(keys));
  }

  @Test
  void checkpointRestoresSetsAndSequences() throws Exception {
    List<Long> keys = ownedKeys(3);
    NeighborSetProtocol p = client.proxy();
    p.push(new PushRequest(Tokens.worker(SECRET, 0), 0, 5L, false, Packed.keys(keys),
        Packed.words(List.of(1L, 0L, 2L, 0L, 3L, 32L)), -1));
    assertTrue(p.checkpoint(new ControlRequest(Tokens.master(SECRET), null, -1)).getCheckpointPath() != null);
    p.push(new PushRequest(Tokens.worker(SECRET, 0), 0, 6L, false, Packed.keys(keys),
        Packed.words(List.of(16L, 0L, 0L, 0L, 0L, 0L)), -1));
    service.checkpoint();
    service.checkpoint(); // older generations are removed

    NeighborSetService restored = new NeighborSetService(1, 2, K, SECRET, 100, fs, ckpt);
    assertTrue(restored.restore());
    long[] out = new long[6];
    Server s2 = Rpc.serve(NeighborSetProtocol.class, restored, "127.0.0.1", RpcSecurity.forSecret(SECRET));
    try (Rpc.Client<NeighborSetProtocol> c2 = Rpc.connect(NeighborSetProtocol.class,
        "127.0.0.1:" + s2.getPort(), 5000, RpcSecurity.forSecret(SECRET))) {
      out = Longs.toArray(Packed.wordList(c2.proxy().pull(new PullRequest(Tokens.worker(SECRET, 0), 0,
          Packed.keys(keys), -1)).getBits()));
      assertFalse(c2.proxy().push(new PushRequest(Tokens.worker(SECRET, 0), 0, 6L, false,
          Packed.keys(keys), Packed.words(List.of(0L, 0L, 0L, 0L, 0L, 1L)), -1))
          .getApplied(), "sequence numbers survive a restart");
    } finally {
      Rpc.closeAsync(s2);
    }
    assertArrayEquals(new long[] {17, 0, 2, 0, 3, 32}, out);
    assertEquals(1, fs.listStatus(ckpt, f -> f.getName().startsWith("server-1-") && f.getName().endsWith(".avro"))
        .length, "older snapshots are removed");
    assertEquals(1, PushLog.segments(fs, ckpt, 1).size(), "covered log segments are removed");
  }

  /** A restarted service: snapshot + log replay, as after a crash (the old one is abandoned, nothing closed). */
  private NeighborSetService restart() throws Exception {
    NeighborSetService again = new NeighborSetService(1, 2, K, SECRET, 100, fs, ckpt, 2);
    assertTrue(again.restore());
    again.startLog();
    return again;
  }

  private static long[] pullLocal(NeighborSetService s, List<Long> keys) throws Exception {
    return Longs.toArray(Packed.wordList(s.pull(new PullRequest(Tokens.worker(SECRET, 0), 0,
        Packed.keys(keys), -1)).getBits()));
  }

  private static long[] pullLocal(NeighborSetService s, List<Long> keys, int wave) throws Exception {
    return Longs.toArray(Packed.wordList(s.pull(new PullRequest(Tokens.worker(SECRET, 0), 0,
        Packed.keys(keys), wave)).getBits()));
  }

  @Test
  void aRestartedServerStillAnswersAPullAsItsWaveBegan() throws Exception {
    List<Long> keys = ownedKeys(2);
    push(1, true, keys, List.of(1L, 0L, 0L, 0L), -1);
    // wave 3 pushes part 1 of key 0 before the snapshot and part 0 of key 1 after it (only in the log)
    push(2, false, keys.subList(0, 1), List.of(2L, 0L), 3);
    service.checkpoint();
    push(3, false, keys.subList(1, 2), List.of(1L, 0L), 3);
    // a crash: the restarted server rebuilds the wave's record from its snapshot and its log
    NeighborSetService again = restart();
    assertEquals(1, fs.listStatus(ckpt, f -> f.getName().contains(".wave-")).length, "one record beside the snapshot");
    assertArrayEquals(new long[] {1, 0, 0, 0}, pullLocal(again, keys, 3), "a block of wave 3 run again");
    assertArrayEquals(new long[] {3, 0, 1, 0}, pullLocal(again, keys, 4));
    again.checkpoint();
    assertEquals(1, fs.listStatus(ckpt, f -> f.getName().contains(".wave-")).length,
        "kept until the master's ledger holds wave 3");
    // the master's ping: waves below 4 are in its written ledger
    again.ping(new ControlRequest(Tokens.master(SECRET), null, 4));
    assertArrayEquals(new long[] {3, 0, 1, 0}, pullLocal(again, keys, 3), "forgotten (no block of wave 3 pulls again)");
    again.checkpoint();
    assertEquals(0, fs.listStatus(ckpt, f -> f.getName().contains(".wave-")).length, "wave 3 forgotten");
  }

  @Test
  void acknowledgedPushesSurviveACrashAfterTheLastSnapshot() throws Exception {
    List<Long> keys = ownedKeys(3);
    NeighborSetProtocol p = client.proxy();
    assertTrue(p.push(new PushRequest(Tokens.worker(SECRET, 0), 0, 1L, false, Packed.keys(keys),
        Packed.words(List.of(1L, 0L, 2L, 0L, 3L, 0L)), -1)).getApplied());
    service.checkpoint();
    assertTrue(p.push(new PushRequest(Tokens.worker(SECRET, 0), 0, 2L, false, Packed.keys(keys),
        Packed.words(List.of(4L, 0L, 0L, 0L, 0L, 32L)), -1)).getApplied());
    assertTrue(p.push(new PushRequest(Tokens.worker(SECRET, 7), 7, 1L, true,
        Packed.keys(keys.subList(1, 2)), Packed.words(List.of(64L, 0L)), -1)).getApplied());
    // crash: no snapshot, no close; the acknowledged pushes are only in the log (and a snapshot was half written)
    Path torn = new Path(ckpt, ".server-1-000000099.avro.tmp");
    fs.create(torn).close();
    NeighborSetService again = restart();
    assertFalse(fs.exists(torn), "a half-written snapshot is removed");
    assertArrayEquals(new long[] {5, 0, 64, 0, 3, 32}, pullLocal(again, keys));
    assertFalse(again.push(new PushRequest(Tokens.worker(SECRET, 0), 0, 2L, false, Packed.keys(keys),
        Packed.words(List.of(0L, 1L, 0L, 0L, 0L, 0L)), -1))
        .getApplied(), "a re-sent push that the crashed server had acknowledged is a duplicate");
    assertTrue(again.push(new PushRequest(Tokens.worker(SECRET, 0), 0, 3L, false, Packed.keys(keys),
        Packed.words(List.of(0L, 1L, 0L, 0L, 0L, 0L)), -1))
        .getApplied());
    // a second crash of the restarted server: its own new segment is replayed after the first one
    NeighborSetService third = restart();
    assertArrayEquals(new long[] {5, 1, 64, 0, 3, 32}, pullLocal(third, keys));
  }

  @Test
  void aTornLogTailWasNeverAcknowledgedAndIsSkipped() throws Exception {
    List<Long> keys = ownedKeys(2);
    service.push(new PushRequest(Tokens.worker(SECRET, 0), 0, 1L, false, Packed.keys(keys),
        Packed.words(List.of(1L, 0L, 2L, 0L)), -1));
    service.push(new PushRequest(Tokens.worker(SECRET, 0), 0, 2L, false, Packed.keys(keys),
        Packed.words(List.of(4L, 0L, 8L, 0L)), -1));
    // the process died in the middle of writing a third record
    long seg = PushLog.segments(fs, ckpt, 1).get(0);
    Path file = PushLog.segmentPath(ckpt, 1, seg);
    try (java.io.OutputStream out = new java.io.FileOutputStream(new java.io.File(file.toUri()), true)) {
      out.write(new byte[] {0, 0, 0, 57, 1, 2, 3, 4, 5, 6});
    }
    NeighborSetService again = restart();
    assertArrayEquals(new long[] {5, 0, 10, 0}, pullLocal(again, keys));
  }

  @Test
  void snapshotsTakenWhilePushesRunLoseNothing() throws Exception {
    List<Long> keys = ownedKeys(60);
    int wpk = 2;
    long[] expected = new long[keys.size() * wpk];
    java.util.concurrent.atomic.AtomicReference<Throwable> error = new java.util.concurrent.atomic.AtomicReference<>();
    Thread pusher = new Thread(() -> {
      try {
        java.util.Random rnd = new java.util.Random(3);
        for (long seq = 1; seq <= 400; seq++) {
          int i = rnd.nextInt(keys.size());
          int part = rnd.nextInt(K);
          List<Long> bits = new ArrayList<>(List.of(0L, 0L));
          bits.set(part >>> 6, 1L << part);
          service.push(new PushRequest(Tokens.worker(SECRET, 2), 2, seq, false,
              Packed.keys(keys.subList(i, i + 1)), Packed.words(bits), -1));
          expected[i * wpk + (part >>> 6)] |= 1L << part;
        }
      } catch (Throwable t) {
        error.set(t);
      }
    });
    pusher.start();
    for (int i = 0; i < 8 && pusher.isAlive(); i++) {
      service.checkpoint();
    }
    pusher.join();
    assertEquals(null, error.get());
    assertArrayEquals(expected, pullLocal(service, keys));
    assertArrayEquals(expected, pullLocal(restart(), keys), "snapshot + log replay = the live state");
  }

  @Test
  void dumpsOnlyInsideTheApplicationsOutput() throws Exception {
    Path root = new Path(ckpt, "output.tmp");
    service.restrictDumpsTo(root);
    RequestRejected e = assertThrows(RequestRejected.class,
        () -> client.proxy().dump(new ControlRequest(Tokens.master(SECRET), new Path(ckpt, "elsewhere").toString(), -1)));
    assertTrue(e.getReason().contains("outside"), e.getReason());
    assertFalse(fs.exists(new Path(ckpt, "elsewhere")), "nothing written outside");
    RequestRejected up = assertThrows(RequestRejected.class,
        () -> client.proxy().dump(new ControlRequest(Tokens.master(SECRET), root + "/../escape", -1)));
    assertTrue(up.getReason().contains("outside"), up.getReason());
    client.proxy().dump(new ControlRequest(Tokens.master(SECRET), new Path(root, "neighbor-sets").toString(), -1));
    assertTrue(fs.exists(new Path(root, "neighbor-sets/part-s-00001.avro")));
  }
}
