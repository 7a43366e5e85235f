package io.parsa.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class TrainRunTest {

  private static final String R0 = "+1 1:1 2:1";
  private static final String R1 = "-1 2:0.5 3:1";
  private static final String R2 = "+1 3:1 4:1";
  private static final String R3 = "-1 1:1 4:1";

  /** Placement A: rows {0,1} | {2,3}, keys 1,2 on machine 0 and 3,4 on machine 1. */
  private static TrainRun placed(TrainRun.Settings s, TrainRun.Hook hook) throws IOException {
    return new TrainRun(List.of(Shard.ofLines("a0", List.of(R0, R1)), Shard.ofLines("a1", List.of(R2, R3))),
        key -> key <= 2 ? 0 : 1, s, hook);
  }

  /** Placement B: rows {0,2} | {1,3}, odd keys on machine 0, even keys on machine 1. */
  private static TrainRun other(TrainRun.Settings s) throws IOException {
    return new TrainRun(List.of(Shard.ofLines("b0", List.of(R0, R2)), Shard.ofLines("b1", List.of(R1, R3))),
        key -> (int) ((key + 1) % 2), s, null);
  }

  private static TrainRun.Settings settings(int epochs) {
    TrainRun.Settings s = new TrainRun.Settings();
    s.epochs = epochs;
    s.learningRate = 0.5;
    s.l2 = 0.01;
    s.rpcTimeoutMs = 20_000;
    return s;
  }

  /**
   * Worker 0 uses keys {1,2,3}: 1 and 2 on its own machine, 3 on machine 1; worker 1 uses {1,3,4}: 1 on machine 0.
   * After the first epoch (whose first requests carry Avro's handshake) every epoch sends, on each link i -> j:
   * worker i's pull and push requests for one key, and server i's answers to worker j's pull and push for one key.
   *
   * <p>Avro IPC over Netty frames a message as serial (4) + buffer count (4) + each buffer as length (4) + bytes. A
   * request is two buffers: [metadata map (1, empty) + message name (1 + 4)] and [the request record]; a response
   * is three: [handshake (0 bytes once connected)], [metadata map (1)] and [error flag (1) + the response]. Inside
   * the records: worker id (1-byte varint), each packed array as a varint length (1) + 8 bytes per entry.
   */
  /**
   * The YARN wiring in one JVM: servers and workers each behind their own RPC endpoint (as containers), the driver
   * over proxies, the workers keeping their machine's link and the servers sharing it; four machines, so every
   * server has more connections than request threads. Trains to the same losses and bytes as the embedded run.
   */
  @Test
  void yarnWiringWithOneLinkPerMachineTrainsLikeTheEmbeddedRun() throws Exception {
    List<List<String>> rows = List.of(List.of(R0, R1), List.of(R2), List.of(R3), List.of(R0, R2));
    java.util.function.LongToIntFunction owner = key -> (int) (key % 4);
    TrainRun.Settings s = settings(3);
    s.linkMbps = 1000;
    List<TrainRun.Epoch> embedded;
    List<Shard> shards = new java.util.ArrayList<>();
    for (int i = 0; i < 4; i++) {
      shards.add(Shard.ofLines("m" + i, rows.get(i)));
    }
    try (TrainRun run = new TrainRun(shards, owner, s, null)) {
      embedded = run.train();
    }
    io.parsa.yarn.rpc.RpcSecurity security = io.parsa.yarn.rpc.RpcSecurity.forSecret("wiring-test");
    List<org.apache.avro.ipc.Server> endpoints = new java.util.ArrayList<>();
    List<io.parsa.yarn.rpc.Rpc.Client<?>> clients = new java.util.ArrayList<>();
    try {
      io.parsa.avro.rpc.TrainProtocol[] servers = new io.parsa.avro.rpc.TrainProtocol[4];
      io.parsa.avro.rpc.TrainWorkerProtocol[] workers = new io.parsa.avro.rpc.TrainWorkerProtocol[4];
      List<String> serverAddresses = new java.util.ArrayList<>();
      List<String> workerAddresses = new java.util.ArrayList<>();
      for (int j = 0; j < 4; j++) {
        final int id = j;
        ParamServer ps = new ParamServer(j, new long[0], key -> owner.applyAsInt(key) == id, s.learningRate, s.l2,
            s.l1);
        ps.setSecurity(security);
        endpoints.add(io.parsa.yarn.rpc.Rpc.serve(io.parsa.avro.rpc.TrainProtocol.class, ps, "127.0.0.1", security));
        serverAddresses.add("127.0.0.1:" + endpoints.get(endpoints.size() - 1).getPort());
        WorkerEndpoint w = new WorkerEndpoint(j, 4, shards.get(j), owner, security, s.rpcTimeoutMs, null);
        endpoints.add(w.serveLink("127.0.0.1", "127.0.0.1"));
        endpoints.add(io.parsa.yarn.rpc.Rpc.serve(io.parsa.avro.rpc.TrainWorkerProtocol.class, w, "127.0.0.1",
            security));
        workerAddresses.add("127.0.0.1:" + endpoints.get(endpoints.size() - 1).getPort());
      }
      for (int j = 0; j < 4; j++) {
        io.parsa.yarn.rpc.Rpc.Client<io.parsa.avro.rpc.TrainProtocol> c = io.parsa.yarn.rpc.Rpc.connect(
            io.parsa.avro.rpc.TrainProtocol.class, serverAddresses.get(j), 10_000, security);
        clients.add(c);
        servers[j] = c.proxy();
        io.parsa.yarn.rpc.Rpc.Client<io.parsa.avro.rpc.TrainWorkerProtocol> d = io.parsa.yarn.rpc.Rpc.connect(
            io.parsa.avro.rpc.TrainWorkerProtocol.class, workerAddresses.get(j), 10_000, security);
        clients.add(d);
        workers[j] = d.proxy();
      }
      TrainRun.Settings y = s.copy();
      y.iterationTimeoutMs = 60_000;
      y.rpcTimeoutMs = 20_000;
      TrainDriver driver = new TrainDriver(workers, servers, y, null, null);
      driver.resetServers();
      driver.prepare(serverAddresses);
      driver.shareLinks();
      List<TrainRun.Epoch> onContainers = driver.train();
      driver.finish();
      for (int e = 0; e < 3; e++) {
        assertEquals(embedded.get(e).loss, onContainers.get(e).loss, 0.0, "loss of epoch " + (e + 1));
        if (e > 0) {
          assertEquals(embedded.get(e).interFrameBytes, onContainers.get(e).interFrameBytes, "epoch " + (e + 1));
        }
      }
    } finally {
      for (io.parsa.yarn.rpc.Rpc.Client<?> c : clients) {
        c.close();
      }
      for (org.apache.avro.ipc.Server ep : endpoints) {
        io.parsa.yarn.rpc.Rpc.closeAsync(ep);
      }
    }
  }

  /**
   * YARN: server 0 holds its answers to machine 1's worker on the one link machine 0's worker keeps (the worker's
   * endpoint reserves it), and never holds an answer to its own machine's worker.
   */
  @Test
  void aServerHoldsItsAnswersToOtherMachinesOnTheLinkItsWorkerKeeps() throws Exception {
    io.parsa.yarn.rpc.RpcSecurity security = io.parsa.yarn.rpc.RpcSecurity.forSecret("link-test");
    Links machine0 = new Links(2, 1000, false);
    WorkerEndpoint worker0 = new WorkerEndpoint(0, 2, Shard.ofLines("w0", List.of(R0)), key -> 0, security, 10_000,
        machine0);
    org.apache.avro.ipc.Server endpoint = io.parsa.yarn.rpc.Rpc.serve(io.parsa.avro.rpc.TrainWorkerProtocol.class,
        worker0, "127.0.0.1", security);
    ParamServer server0 = new ParamServer(0, new long[] {1, 2, 3}, null, 0.5, 0, 0);
    try {
      // without credentials it cannot reach its worker, and says so
      assertThrows(org.apache.avro.AvroRuntimeException.class, () -> server0.shareLink("127.0.0.1:1"));
      server0.setSecurity(security);
      server0.shareLink("127.0.0.1:" + endpoint.getPort());
      java.nio.ByteBuffer two = java.nio.ByteBuffer.allocate(16).putLong(1).putLong(2).flip();
      assertEquals(16, server0.pull(new io.parsa.avro.rpc.ParamPull(1, two)).getValues().remaining());
      assertEquals(16, machine0.reservedForOthers(0), "two values to machine 1 pass machine 0's link");
      java.nio.ByteBuffer one = java.nio.ByteBuffer.allocate(8).putLong(3).flip();
      server0.pull(new io.parsa.avro.rpc.ParamPull(0, one));
      assertEquals(16, machine0.reservedForOthers(0), "an answer to its own machine's worker is inner");
      assertEquals(0, machine0.reservedForOthers(1));
    } finally {
      server0.finish();
      endpoint.close();
    }
  }

  @Test
  void bytesPerLinkMatchTheHandCount() throws Exception {
    int request = 8 + (4 + 1 + 5) + 4;
    int response = 8 + 4 + (4 + 1) + (4 + 1);
    int pullReq1 = request + 1 + (1 + 8);            // worker id, one packed key
    int pullResp1 = response + (1 + 8);              // one packed value
    int pushReq1 = request + 1 + (1 + 8) + (1 + 8);  // one key, one gradient
    int pushResp = response + 1;                     // the int count (1 -> varint 1 byte)
    int pullReq2 = request + 1 + (1 + 16);
    int pullResp2 = response + (1 + 16);
    int pushReq2 = request + 1 + (1 + 16) + (1 + 16);
    long interPerLink = pullReq1 + pushReq1 + pullResp1 + pushResp;
    long innerPerMachine = pullReq2 + pullResp2 + pushReq2 + pushResp;
    try (TrainRun run = placed(settings(3), null)) {
      assertEquals(2, run.interKeyAccessesPerEpoch());
      assertEquals(4, run.innerKeyAccessesPerEpoch());
      run.train();
      long[][] first = run.links().frameSnapshot();
      List<TrainRun.Epoch> more = run.train();
      long[][] after = run.links().frameSnapshot();
      for (TrainRun.Epoch e : more) {
        assertEquals(2 * interPerLink, e.interFrameBytes, "inter frame bytes of epoch " + e.epoch);
        assertEquals(2 * innerPerMachine, e.innerFrameBytes, "inner frame bytes of epoch " + e.epoch);
        // on the wire each of the 8 inter-machine frames also pays at least a TLS record header
        assertTrue(e.interBytes >= e.interFrameBytes + 8 * 5, "wire " + e.interBytes + " frames " + e.interFrameBytes);
      }
      long epochs = more.size();
      assertEquals(interPerLink * epochs, after[0][1] - first[0][1]);
      assertEquals(interPerLink * epochs, after[1][0] - first[1][0]);
      assertEquals(innerPerMachine * epochs, after[0][0] - first[0][0]);
      assertEquals(innerPerMachine * epochs, after[1][1] - first[1][1]);
    }
  }

  @Test
  void samePlacementIndependentLossEveryEpoch() throws Exception {
    List<TrainRun.Epoch> a;
    List<TrainRun.Epoch> b;
    try (TrainRun run = placed(settings(6), null)) {
      a = run.train();
    }
    try (TrainRun run = other(settings(6))) {
      b = run.train();
    }
    assertArrayEquals(a.stream().mapToLong(e -> e.lossFixed).toArray(), b.stream().mapToLong(e -> e.lossFixed).toArray());
    assertArrayEquals(a.stream().mapToDouble(e -> e.accuracy).toArray(), b.stream().mapToDouble(e -> e.accuracy).toArray());
    assertTrue(a.get(5).loss < a.get(0).loss, "the loss goes down: " + a.get(0).loss + " -> " + a.get(5).loss);
    assertEquals(Math.log(2), a.get(0).loss, 1e-9);
  }

  @Test
  void emulatedLinkSlowsInterMachineTraffic() throws Exception {
    TrainRun.Settings s = settings(2);
    s.linkMbps = 0.01; // 10 kbit/s: ~100 inter bytes per link per epoch take ~80 ms
    try (TrainRun run = placed(s, null)) {
      List<TrainRun.Epoch> e = run.train();
      double floor = e.get(1).maxMachineOutBytes * 8 / (s.linkMbps * 1e6);
      assertTrue(e.get(1).wallSeconds >= floor, "epoch took " + e.get(1).wallSeconds + " s, link floor " + floor);
    }
  }

  @Test
  void aWorkerDyingFailsTheRunNamingIt() throws Exception {
    TrainRun.Hook crash = (run, epoch, batch, worker) -> {
      if (epoch == 2 && worker == 1) {
        throw new IllegalStateException("simulated worker crash");
      }
    };
    try (TrainRun run = placed(settings(3), crash)) {
      IOException e = assertThrows(IOException.class, run::train);
      assertTrue(e.getMessage().startsWith("epoch 2: worker 1 failed"), e.getMessage());
      assertTrue(e.getMessage().contains("simulated worker crash"), e.getMessage());
    }
  }

  @Test
  void aServerDyingFailsTheRunNamingIt() throws Exception {
    TrainRun.Settings s = settings(3);
    s.rpcTimeoutMs = 5_000;
    TrainRun.Hook kill = (run, epoch, batch, worker) -> {
      if (epoch == 2 && worker == 0) {
        run.killServer(1);
      }
    };
    try (TrainRun run = placed(s, (r, e, b, w) -> {
      kill.beforeIteration(r, e, b, w);
      if (e == 2 && w == 1) {
        Thread.sleep(200); // let worker 0 stop server 1 first
      }
    })) {
      IOException e = assertThrows(IOException.class, run::train);
      assertTrue(e.getMessage().startsWith("epoch 2: "), e.getMessage());
      assertTrue(e.getMessage().contains("server 1"), e.getMessage());
    }
  }
}
