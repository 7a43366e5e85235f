package io.parsa.yarn.rpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.avro.rpc.NeighborSetProtocol;
import io.parsa.avro.rpc.SchedulerProtocol;
import io.parsa.yarn.JobSpec;
import io.parsa.yarn.am.BlockScheduler;
import io.parsa.yarn.am.SchedulerService;
import io.parsa.yarn.am.ServerRegistry;
import io.parsa.yarn.server.NeighborSetService;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.avro.ipc.Server;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;

/** The worker's neighbor-set client: clock-free sequences, and waiting out a server restart longer than retries. */
class NeighborSetClientTest {
  private static final String SECRET = "secret";

  @Test
  void sequencesOfALaterAttemptAreAboveEveryEarlierOneWithoutAClock() {
    assertEquals(1L << 40, NeighborSetClient.firstSequence(1));
    assertTrue(NeighborSetClient.firstSequence(2) > NeighborSetClient.firstSequence(1) + 1_000_000_000_000L);
    assertTrue(NeighborSetClient.firstSequence((1 << 23) - 1) > 0, "no overflow at the largest attempt");
    assertThrows(IllegalArgumentException.class, () -> NeighborSetClient.firstSequence(0));
    assertThrows(IllegalArgumentException.class, () -> NeighborSetClient.firstSequence(1 << 23));
  }

  private static NeighborSetService startService(FileSystem fs, Path ckpt, boolean restore) throws Exception {
    NeighborSetService s = new NeighborSetService(0, 1, 3, SECRET, 1000, fs, ckpt);
    assertEquals(restore, s.restore());
    s.startLog();
    return s;
  }

  @Test
  void aPushWaitsForARestartedServerAndNothingAcknowledgedIsLost() throws Exception {
    FileSystem fs = FileSystem.getLocal(new Configuration());
    Path ckpt = io.parsa.yarn.TestDirs.fresh("client");
    JobSpec job = new JobSpec();
    job.k = 3;
    job.blockPaths = List.of("b0");
    ServerRegistry registry = new ServerRegistry(1);
    BlockScheduler scheduler = new BlockScheduler(3, 1, List.of(), List.of(), false, System::currentTimeMillis);
    Server master = Rpc.serve(SchedulerProtocol.class,
        new SchedulerService(job, SECRET, scheduler, registry, 10), "127.0.0.1", RpcSecurity.forSecret(SECRET));
    Server first = Rpc.serve(NeighborSetProtocol.class, startService(fs, ckpt, false), "127.0.0.1",
        RpcSecurity.forSecret(SECRET));
    registry.register(0, "127.0.0.1:" + first.getPort());
    AtomicReference<Server> second = new AtomicReference<>();
    // master retries give up after 300 ms; the server wait is what must carry the worker through the restart
    try (SchedulerClient sc = new SchedulerClient("127.0.0.1:" + master.getPort(), SECRET, 7, 2000, 300);
        NeighborSetClient c = new NeighborSetClient(sc, SECRET, 7, 1, 1, 3, 100, 2000, 120_000)) {
      c.push(new long[] {10, 11}, new long[] {1, 2}, false, -1);
      // the server dies (no snapshot: the acknowledged push is only in its log) and comes back much later
      registry.markDown(0);
      first.close();
      Thread restarter = new Thread(() -> {
        try {
          Thread.sleep(1500);
          Server s = Rpc.serve(NeighborSetProtocol.class, startService(fs, ckpt, true), "127.0.0.1",
              RpcSecurity.forSecret(SECRET));
          second.set(s);
          registry.register(0, "127.0.0.1:" + s.getPort());
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      restarter.start();
      c.push(new long[] {11, 12}, new long[] {4, 4}, false, -1);
      restarter.join();
      assertArrayEquals(new long[] {1, 6, 4}, c.pull(new long[] {10, 11, 12}, -1));
    } finally {
      Rpc.closeAsync(master);
      if (second.get() != null) {
        Rpc.closeAsync(second.get());
      }
    }
  }
}
