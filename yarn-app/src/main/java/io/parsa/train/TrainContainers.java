package io.parsa.train;

import io.parsa.avro.rpc.TrainMasterProtocol;
import io.parsa.avro.rpc.TrainProtocol;
import io.parsa.avro.rpc.TrainRegistration;
import io.parsa.avro.rpc.TrainWorkerProtocol;
import io.parsa.yarn.ContainerHost;
import io.parsa.yarn.ContainerMain;
import io.parsa.yarn.rpc.Rpc;
import io.parsa.yarn.rpc.RpcSecurity;
import io.parsa.yarn.rpc.Secrets;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import java.util.function.LongToIntFunction;
import org.apache.avro.ipc.Server;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server and worker containers of a train-bench application. Each fetches the run's description from the
 * master, loads what it holds (a server: the keys of its part; a worker: its shard and the placement of the shard's
 * keys), serves its endpoint on the container's host over TLS keyed by the application secret, registers the
 * address with the master, and exits 0 when the master says the run is over.
 */
public final class TrainContainers {
  private static final Logger LOG = LoggerFactory.getLogger(TrainContainers.class);

  /** Prefix of a registration's address that reports a container's failure to load instead. */
  static final String FAILED = "failed: ";

  private TrainContainers() {}

  /** Runs the container of {@code role} and exits the JVM with 0, 1 (failure) or 2 (usage). */
  static void exit(String role, String[] args) {
    ContainerMain.exitWith("train-bench " + role, () -> run(role, args));
  }

  static int run(String role, String[] args) throws Exception {
    ContainerMain.Args a = ContainerMain.Args.parse("train-bench " + role, args);
    if (a == null) {
      return 2;
    }
    String master = a.master;
    int id = a.id;
    RpcSecurity security = RpcSecurity.forSecret(Secrets.fromCurrentUser());
    try (Rpc.Client<TrainMasterProtocol> m = Rpc.connect(TrainMasterProtocol.class, master, 10_000, security)) {
      TrainSpec spec = TrainSpec.fromJson(m.proxy().register(new TrainRegistration(role, id, "")));
      Configuration conf = spec.applyTo(new YarnConfiguration());
      String host = ContainerHost.advertised();
      String bind = ContainerHost.bindAddress(conf, host);
      long t0 = System.nanoTime();
      Server endpoint;
      Server linkEndpoint = null;
      Runnable await;
      try {
        if ("server".equals(role)) {
          ParamServer ps = server(spec, id, conf);
          ps.setSecurity(security);
          endpoint = Rpc.serve(TrainProtocol.class, ps, bind, security);
          await = () -> uninterruptibly(ps::awaitFinish);
        } else {
          WorkerEndpoint w = worker(spec, id, conf, security);
          linkEndpoint = w.serveLink(bind, host);
          endpoint = Rpc.serve(TrainWorkerProtocol.class, w, bind, security);
          await = () -> uninterruptibly(w::awaitFinish);
        }
      } catch (Exception e) {
        // tell the master why, so that the application's diagnostics say it (not just "exit status 1")
        m.proxy().register(new TrainRegistration(role, id, FAILED + e.getMessage()));
        throw e;
      }
      String address = host + ":" + endpoint.getPort();
      LOG.info("{} {} serving on {} after {} s of loading", role, id, address,
          String.format(java.util.Locale.ROOT, "%.1f", (System.nanoTime() - t0) / 1e9));
      m.proxy().register(new TrainRegistration(role, id, address));
      await.run();
      LOG.info("{} {}: the run is over", role, id);
      Rpc.closeAsync(endpoint);
      if (linkEndpoint != null) {
        Rpc.closeAsync(linkEndpoint);
      }
    }
    return 0;
  }

  private interface Wait {
    void run() throws InterruptedException;
  }

  private static void uninterruptibly(Wait w) {
    try {
      w.run();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Server {@code id}: the keys of its part up front, or (computed placements) those it owns as they come. */
  static ParamServer server(TrainSpec spec, int id, Configuration conf) throws java.io.IOException {
    if (KeyPlacement.computed(spec.keys)) {
      LongToIntFunction owner = KeyPlacement.computed(spec.keys, spec.seed, spec.k);
      return new ParamServer(id, new long[0], key -> owner.applyAsInt(key) == id, spec.settings.learningRate,
          spec.settings.l2, spec.settings.l1);
    }
    Path dir = new Path(spec.vAssignment);
    FileSystem fs = dir.getFileSystem(conf);
    Long2IntOpenHashMap mine = KeyPlacement.read(fs, dir, spec.k, key -> true, part -> part == id);
    long[] keys = mine.keySet().toLongArray();
    java.util.Arrays.sort(keys);
    LOG.info("server {}: {} keys of {}", id, keys.length, dir);
    return new ParamServer(id, keys, null, spec.settings.learningRate, spec.settings.l2, spec.settings.l1);
  }

  /** Worker {@code id}: its shard and the servers of the shard's keys. */
  static WorkerEndpoint worker(TrainSpec spec, int id, Configuration conf, RpcSecurity security)
      throws java.io.IOException {
    Path file = new Path(spec.shards.get(id));
    FileSystem fs = file.getFileSystem(conf);
    Shard shard = Shard.read(fs, file, conf);
    LOG.info("worker {}: {} rows, {} non-zeros from {}", id, shard.rows(), shard.nonZeros(), file);
    LongToIntFunction owner;
    if (KeyPlacement.computed(spec.keys)) {
      owner = KeyPlacement.computed(spec.keys, spec.seed, spec.k);
    } else {
      LongOpenHashSet used = new LongOpenHashSet(shard.keys);
      Path dir = new Path(spec.vAssignment);
      owner = KeyPlacement.lookup(KeyPlacement.read(dir.getFileSystem(conf), dir, spec.k, used::contains,
          part -> true), dir);
    }
    return new WorkerEndpoint(id, spec.k, shard, owner, security, spec.settings.rpcTimeoutMs, null);
  }
}
