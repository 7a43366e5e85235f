package io.parsa.yarn;

import io.parsa.yarn.rpc.Packed;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.avro.rpc.PullRequest;
import io.parsa.avro.rpc.PushRequest;
import io.parsa.yarn.rpc.Longs;
import io.parsa.yarn.rpc.Tokens;
import io.parsa.yarn.server.NeighborSetService;
import java.util.List;
import org.apache.avro.AvroRuntimeException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The push log on HDFS (the shared MiniDFSCluster): a push acknowledged by a server whose process then stops
 * without closing anything is replayed by its successor, which first recovers the log's lease, so the old
 * incarnation cannot acknowledge anything more.
 */
class PushLogHdfsIT {
  private static final String SECRET = "s";

  @Test
  @Timeout(180)
  void anAcknowledgedPushSurvivesTheWriterAndTheOldWriterIsFencedOff() throws Exception {
    MiniClusters mc = MiniClusters.get();
    Path ckpt = new Path("/push-log-it/ckpt");
    // two FileSystem instances = two DFS clients with their own leases, like two server processes
    FileSystem first = FileSystem.newInstance(mc.conf);
    FileSystem second = FileSystem.newInstance(mc.conf);
    try {
      first.mkdirs(ckpt);
      NeighborSetService old = new NeighborSetService(0, 1, 8, SECRET, 100, first, ckpt);
      assertFalse(old.restore());
      old.startLog();
      List<Long> keys = List.of(1L, 2L, 3L);
      old.push(new PushRequest(Tokens.worker(SECRET, 0), 0, 1L, false, Packed.keys(keys),
          Packed.words(List.of(1L, 2L, 4L)), -1));
      old.checkpoint();
      old.push(new PushRequest(Tokens.worker(SECRET, 0), 0, 2L, false, Packed.keys(keys.subList(0, 1)),
          Packed.words(List.of(128L)), -1));
      old.push(new PushRequest(Tokens.worker(SECRET, 5), 5, 1L, true, Packed.keys(keys.subList(2, 3)),
          Packed.words(List.of(16L)), -1));

      // the old process is gone (nothing closed); its successor restores snapshot + log
      NeighborSetService next = new NeighborSetService(0, 1, 8, SECRET, 100, second, ckpt);
      assertTrue(next.restore());
      next.startLog();
      assertArrayEquals(new long[] {129, 2, 16},
          Longs.toArray(Packed.wordList(next.pull(new PullRequest(Tokens.worker(SECRET, 0), 0,
              Packed.keys(keys), -1)).getBits())));

      // ... but it was only stuck, and tries to acknowledge one more push: its log is fenced off
      assertThrows(AvroRuntimeException.class,
          () -> old.push(new PushRequest(Tokens.worker(SECRET, 0), 0, 3L, false,
              Packed.keys(keys.subList(1, 2)), Packed.words(List.of(64L)), -1)));
      assertTrue(old.failure() != null && old.failure().contains("push log"), old.failure());
    } finally {
      first.close();
      second.close();
    }
  }
}
