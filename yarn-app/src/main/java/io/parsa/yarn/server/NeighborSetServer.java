package io.parsa.yarn.server;

import io.parsa.yarn.rpc.Tokens;
import io.parsa.avro.rpc.NeighborSetProtocol;
import io.parsa.yarn.JobSpec;
import io.parsa.yarn.ParsaYarnConfig;
import io.parsa.yarn.rpc.Rpc;
import io.parsa.yarn.rpc.RpcSecurity;
import io.parsa.yarn.rpc.SchedulerClient;
import java.io.IOException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.avro.ipc.Server;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Life of one neighbor-set server (container or embedded thread): restore the newest snapshot and replay the push
 * log after it (or load the initial neighbor sets), start a new log segment, serve, register with the master,
 * snapshot periodically, stop on request (or fail when the log cannot be written, so the master restarts it).
 */
public final class NeighborSetServer {
  private static final Logger LOG = LoggerFactory.getLogger(NeighborSetServer.class);

  private final JobSpec job;
  private final int serverId;
  private final String secret;
  private final Configuration conf;
  private final String masterAddress;
  private final String bindHost;
  private final String advertisedHost;

  public NeighborSetServer(JobSpec job, int serverId, String secret, Configuration conf, String masterAddress,
      String bindHost, String advertisedHost) {
    this.job = job;
    this.serverId = serverId;
    this.secret = secret;
    this.conf = conf;
    this.masterAddress = masterAddress;
    this.bindHost = bindHost;
    this.advertisedHost = advertisedHost;
  }

  /** Runs until the master sends shutdown. */
  public void run() throws IOException, InterruptedException {
    Path ckpt = new Path(job.checkpointDir);
    FileSystem fs = ckpt.getFileSystem(conf);
    fs.mkdirs(ckpt);
    int maxKeys = conf.getInt(ParsaYarnConfig.SERVER_MAX_KEYS, ParsaYarnConfig.DEFAULT_SERVER_MAX_KEYS);
    int subMapBits = conf.getInt(ParsaYarnConfig.SERVER_SUBMAP_BITS, ParsaYarnConfig.DEFAULT_SERVER_SUBMAP_BITS);
    NeighborSetService service = new NeighborSetService(serverId, job.servers, job.k, secret, maxKeys, fs, ckpt,
        subMapBits);
    boolean restored = service.restore();
    if (!restored && job.initialNeighborSets != null) {
      service.loadInitial(new Path(job.initialNeighborSets));
    }
    service.startLog();
    service.restrictDumpsTo(new Path(job.outputTmp));
    if (!restored && job.initialNeighborSets != null) {
      service.checkpoint();
    }
    if (!restored && conf.getInt(ParsaYarnConfig.TEST_CRASH_SERVER_ID, -1) == serverId) {
      service.crashAfterPushes(conf.getLong(ParsaYarnConfig.TEST_CRASH_SERVER_AFTER_PUSHES, 0));
    }
    if (!restored && conf.getInt(ParsaYarnConfig.TEST_HANG_SERVER_ID, -1) == serverId) {
      service.hangAfterPushes(conf.getLong(ParsaYarnConfig.TEST_HANG_SERVER_AFTER_PUSHES, 0));
    }
    long restartDelay = conf.getLong(ParsaYarnConfig.TEST_SERVER_RESTART_DELAY_MS, 0);
    if (restored && restartDelay > 0) {
      LOG.warn("test hook: restarted server {} waits {} ms before serving", serverId, restartDelay);
      Thread.sleep(restartDelay);
    }
    Server rpc = Rpc.serve(NeighborSetProtocol.class, service, bindHost, RpcSecurity.forSecret(secret));
    long interval = conf.getLong(ParsaYarnConfig.SERVER_CHECKPOINT_INTERVAL_MS,
        ParsaYarnConfig.DEFAULT_SERVER_CHECKPOINT_INTERVAL_MS);
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "parsa-checkpoint-" + serverId);
      t.setDaemon(true);
      return t;
    });
    try (SchedulerClient master = new SchedulerClient(masterAddress, secret, Tokens.Role.SERVER, serverId,
        conf.getInt(ParsaYarnConfig.RPC_CONNECT_TIMEOUT_MS, ParsaYarnConfig.DEFAULT_RPC_CONNECT_TIMEOUT_MS),
        conf.getLong(ParsaYarnConfig.WORKER_RPC_RETRY_MS, ParsaYarnConfig.DEFAULT_WORKER_RPC_RETRY_MS))) {
      if (interval > 0) {
        timer.scheduleWithFixedDelay(() -> {
          try {
            service.checkpoint();
          } catch (IOException | RuntimeException e) {
            LOG.warn("server {}: periodic checkpoint failed: {}", serverId, e.toString());
          }
        }, interval, interval, TimeUnit.MILLISECONDS);
      }
      master.registerServer(advertisedHost, rpc.getPort());
      LOG.info("server {} serving on {}:{}", serverId, advertisedHost, rpc.getPort());
      service.awaitShutdown();
      if (service.failure() != null) {
        throw new IOException("server " + serverId + " failed: " + service.failure());
      }
    } finally {
      service.stop();
      timer.shutdownNow();
      Rpc.closeAsync(rpc);
    }
    LOG.info("server {} stopped", serverId);
  }
}
