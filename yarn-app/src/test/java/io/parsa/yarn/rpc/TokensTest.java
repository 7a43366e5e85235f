package io.parsa.yarn.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.avro.rpc.ControlRequest;
import io.parsa.avro.rpc.JobRequest;
import io.parsa.avro.rpc.NeighborSetProtocol;
import io.parsa.avro.rpc.PullRequest;
import io.parsa.avro.rpc.PushRequest;
import io.parsa.avro.rpc.RequestRejected;
import io.parsa.avro.rpc.SchedulerProtocol;
import io.parsa.avro.rpc.SchedulerRejected;
import io.parsa.avro.rpc.ServerRegistration;
import io.parsa.avro.rpc.TaskKind;
import io.parsa.avro.rpc.TaskRequest;
import io.parsa.yarn.JobSpec;
import io.parsa.yarn.am.BlockScheduler;
import io.parsa.yarn.am.SchedulerService;
import io.parsa.yarn.am.ServerRegistry;
import io.parsa.yarn.server.NeighborSetService;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.avro.ipc.Server;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;

/** Per-identity tokens: derivation, verification, and enforcement by both RPC services over real TLS loopback. */
class TokensTest {
  private static final String SECRET = Secrets.generate();

  @Test
  void aTokenIsTheHmacOfItsIdentifierAndBindsRoleAndId() throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    String expected = HexFormat.of().formatHex(
        mac.doFinal("parsa-rpc-token-v1/worker/3".getBytes(StandardCharsets.UTF_8)));
    assertEquals(expected, Tokens.worker(SECRET, 3));
    assertEquals(Tokens.worker(SECRET, 3), Tokens.worker(SECRET, 3), "stable across calls (and attempts)");
    assertNotEquals(Tokens.worker(SECRET, 3), Tokens.worker(SECRET, 5));
    assertNotEquals(Tokens.worker(SECRET, 3), Tokens.server(SECRET, 3));
    assertNotEquals(Tokens.master(SECRET), Tokens.worker(SECRET, 0));
    assertNotEquals(Tokens.worker(SECRET, 3), Tokens.worker(Secrets.generate(), 3));
    assertEquals("worker/3", Tokens.identifier(Tokens.Role.WORKER, 3));
    assertEquals("master", Tokens.identifier(Tokens.Role.MASTER, 9));

    assertTrue(Tokens.verify(SECRET, Tokens.Role.WORKER, 3, Tokens.worker(SECRET, 3)));
    assertFalse(Tokens.verify(SECRET, Tokens.Role.WORKER, 5, Tokens.worker(SECRET, 3)));
    assertFalse(Tokens.verify(SECRET, Tokens.Role.MASTER, 0, Tokens.worker(SECRET, 3)));
    assertFalse(Tokens.verify(SECRET, Tokens.Role.WORKER, 3, SECRET), "the raw secret is not a token");
    assertFalse(Tokens.verify(SECRET, Tokens.Role.WORKER, 3, null));
    assertFalse(Tokens.verify(SECRET, Tokens.Role.WORKER, 3, ""));
    assertThrows(IllegalArgumentException.class, () -> Tokens.worker("", 1));
  }

  @Test
  void theNeighborSetServerChecksTheNamedWorkerAndKeepsControlForTheMaster() throws Exception {
    FileSystem fs = FileSystem.getLocal(new Configuration());
    Path ckpt = io.parsa.yarn.TestDirs.fresh("tokens");
    NeighborSetService service = new NeighborSetService(0, 1, 3, SECRET, 100, fs, ckpt);
    service.startLog();
    Server server = Rpc.serve(NeighborSetProtocol.class, service, "127.0.0.1", RpcSecurity.forSecret(SECRET));
    try (Rpc.Client<NeighborSetProtocol> c = Rpc.connect(NeighborSetProtocol.class,
        "127.0.0.1:" + server.getPort(), 5000, RpcSecurity.forSecret(SECRET))) {
      NeighborSetProtocol p = c.proxy();
      String w3 = Tokens.worker(SECRET, 3);
      List<Long> keys = List.of(10L);
      assertTrue(p.push(new PushRequest(w3, 3, 1L, false, Packed.keys(keys), Packed.words(List.of(2L)), -1)).getApplied());
      assertEquals(List.of(2L), Packed.wordList(p.pull(new PullRequest(w3, 3, Packed.keys(keys), -1)).getBits()));

      // worker 3's token claiming worker 5
      RequestRejected e = assertThrows(RequestRejected.class,
          () -> p.push(new PushRequest(w3, 5, 1L, false, Packed.keys(keys), Packed.words(List.of(1L)), -1)));
      assertTrue(e.getReason().contains("worker id 5"), e.getReason());
      assertThrows(RequestRejected.class, () -> p.pull(new PullRequest(w3, 5, Packed.keys(keys), -1)));
      // a wrong token, and the raw secret, for the right id
      assertThrows(RequestRejected.class, () -> p.pull(new PullRequest(Tokens.worker("other", 3), 3,
          Packed.keys(keys), -1)));
      assertThrows(RequestRejected.class, () -> p.pull(new PullRequest(SECRET, 3, Packed.keys(keys), -1)));

      // control operations: a worker's token is refused, the master's is accepted
      for (String bad : new String[] {w3, Tokens.server(SECRET, 0), SECRET, ""}) {
        e = assertThrows(RequestRejected.class, () -> p.shutdown(new ControlRequest(bad, null, -1)));
        assertTrue(e.getReason().contains("master"), e.getReason());
        assertThrows(RequestRejected.class, () -> p.checkpoint(new ControlRequest(bad, null, -1)));
        assertThrows(RequestRejected.class, () -> p.dump(new ControlRequest(bad, ckpt.toString(), -1)));
        assertThrows(RequestRejected.class, () -> p.stats(new ControlRequest(bad, null, -1)));
        assertThrows(RequestRejected.class, () -> p.ping(new ControlRequest(bad, null, -1)));
      }
      String master = Tokens.master(SECRET);
      assertEquals(1L, p.stats(new ControlRequest(master, null, -1)).getPushes(), "rejected pushes changed nothing");
      assertTrue(p.checkpoint(new ControlRequest(master, null, -1)).getCheckpointPath() != null);
      assertEquals(List.of(2L), Packed.wordList(p.pull(new PullRequest(w3, 3, Packed.keys(keys), -1)).getBits()));
      assertTrue(p.stats(new ControlRequest(master, null, -1)).getRejected() >= 23);
    } finally {
      Rpc.closeAsync(server);
    }
  }

  @Test
  void theSchedulerChecksWorkerAndServerIdentities() throws Exception {
    JobSpec job = new JobSpec();
    job.k = 3;
    job.servers = 1;
    job.blockPaths = List.of("b0");
    ServerRegistry registry = new ServerRegistry(1);
    BlockScheduler scheduler = new BlockScheduler(3, 1, List.of(), List.of(), false, System::currentTimeMillis);
    SchedulerService service = new SchedulerService(job, SECRET, scheduler, registry, 10);
    Server master = Rpc.serve(SchedulerProtocol.class, service, "127.0.0.1", RpcSecurity.forSecret(SECRET));
    try (Rpc.Client<SchedulerProtocol> c = Rpc.connect(SchedulerProtocol.class,
        "127.0.0.1:" + master.getPort(), 5000, RpcSecurity.forSecret(SECRET))) {
      SchedulerProtocol p = c.proxy();
      String w3 = Tokens.worker(SECRET, 3);
      SchedulerRejected e = assertThrows(SchedulerRejected.class, () -> p.nextTask(new TaskRequest(w3, 5)));
      assertTrue(e.getReason().contains("worker id 5"), e.getReason());
      assertThrows(SchedulerRejected.class, () -> p.nextTask(new TaskRequest(SECRET, 3)));
      // a worker cannot register itself as a neighbor-set server (it would redirect other workers' traffic)
      assertThrows(SchedulerRejected.class,
          () -> p.registerServer(new ServerRegistration(w3, 0, "127.0.0.1", 1)));
      assertTrue(p.registerServer(new ServerRegistration(Tokens.server(SECRET, 0), 0, "127.0.0.1", 1)));
      assertThrows(SchedulerRejected.class,
          () -> p.registerServer(new ServerRegistration(Tokens.server(SECRET, 0), 1, "127.0.0.1", 1)));
      // the job is readable by worker and server identities, each with its own token
      assertTrue(p.job(new JobRequest(w3, 3)).contains("b0"));
      assertTrue(p.job(new JobRequest(Tokens.server(SECRET, 0), 0)).contains("b0"));
      assertThrows(SchedulerRejected.class, () -> p.job(new JobRequest(w3, 4)));
      assertEquals(TaskKind.RUN, p.nextTask(new TaskRequest(w3, 3)).getKind());
      assertEquals(5, service.rejected());
    } finally {
      Rpc.closeAsync(master);
    }
  }
}
