package io.parsa.train;

import io.parsa.avro.rpc.TrainMasterProtocol;
import io.parsa.avro.rpc.TrainProtocol;
import io.parsa.avro.rpc.TrainRegistration;
import io.parsa.avro.rpc.TrainWorkerProtocol;
import io.parsa.common.JsonFiles;
import io.parsa.yarn.ContainerHost;
import io.parsa.yarn.ContainerMain;
import io.parsa.yarn.am.ContainerEvents;
import io.parsa.yarn.am.PartitionMaster;
import io.parsa.yarn.am.YarnContainers;
import io.parsa.yarn.am.YarnLauncher;
import io.parsa.yarn.rpc.Rpc;
import io.parsa.yarn.rpc.RpcSecurity;
import io.parsa.yarn.rpc.Secrets;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.ipc.Server;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Application master of a train-bench run on YARN: launches k server and k worker containers, waits until each has
 * registered its endpoint, then drives the synchronous training ({@link TrainDriver}) once per link rate, writes the
 * figures and ends every container. It reads no data: rows, keys and byte counts come from the containers.
 *
 * <p>A container that exits before the end fails the run with its diagnostics (no recovery: the benchmark would
 * otherwise mix the traffic of a replay into its figures).
 */
public final class TrainMaster implements TrainMasterProtocol, ContainerEvents {
  private static final Logger LOG = LoggerFactory.getLogger(TrainMaster.class);

  private final TrainSpec spec;
  private final String specJson;
  private final String[] servers;
  private final String[] workers;
  private volatile String failure;
  private volatile boolean over;
  private volatile float progress;

  TrainMaster(TrainSpec spec) {
    this.spec = spec;
    this.specJson = spec.toJson();
    this.servers = new String[spec.k];
    this.workers = new String[spec.k];
  }

  public static void main(String[] args) {
    ContainerMain.exitWith("train-bench master", TrainMaster::run);
  }

  static int run() throws Exception {
    TrainSpec spec = TrainSpec.fromJson(Files.readString(Paths.get(YarnContainers.JOB_FILE)));
    Configuration conf = spec.applyTo(new YarnConfiguration());
    String host = ContainerHost.advertised();
    String secret = Secrets.generate();
    RpcSecurity security = RpcSecurity.forSecret(secret);
    TrainMaster master = new TrainMaster(spec);
    Server endpoint = Rpc.serve(TrainMasterProtocol.class, master, ContainerHost.bindAddress(conf, host), security);
    String address = host + ":" + endpoint.getPort();
    YarnLauncher launcher = new YarnLauncher(conf, master, TrainServerMain.class.getName(),
        TrainWorkerMain.class.getName(), address, secret, host);
    launcher.start();
    String diagnostics;
    boolean ok = false;
    try {
      master.drive(launcher, conf, security);
      ok = true;
      diagnostics = "trained " + spec.linkMbps.size() + " run(s) of " + spec.settings.epochs + " epochs on " + spec.k
          + " machines";
    } catch (IOException | RuntimeException e) {
      LOG.error("train-bench run failed", e);
      diagnostics = e.getMessage();
    } finally {
      Rpc.closeAsync(endpoint);
    }
    launcher.unregister(ok ? FinalApplicationStatus.SUCCEEDED : FinalApplicationStatus.FAILED, diagnostics);
    return ok ? 0 : 1;
  }

  private void drive(YarnLauncher launcher, Configuration conf, RpcSecurity security) throws Exception {
    int k = spec.k;
    for (int j = 0; j < k; j++) {
      launcher.launchServer(j);
    }
    for (int i = 0; i < k; i++) {
      launcher.launchWorker(i);
    }
    long deadline = System.nanoTime() + conf.getLong("parsa.train.register.timeout.ms", 15 * 60_000L) * 1_000_000L;
    while (!allRegistered()) {
      if (failure != null) {
        throw new IOException(failure);
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("not every container registered in time: servers " + Arrays.toString(servers)
            + ", workers " + Arrays.toString(workers));
      }
      Thread.sleep(200);
    }
    LOG.info("all {} servers and {} workers registered", k, k);
    List<Rpc.Client<?>> clients = new ArrayList<>();
    try {
      TrainProtocol[] s = new TrainProtocol[k];
      TrainWorkerProtocol[] w = new TrainWorkerProtocol[k];
      for (int j = 0; j < k; j++) {
        Rpc.Client<TrainProtocol> c = Rpc.connect(TrainProtocol.class, servers[j], 10_000, security);
        clients.add(c);
        s[j] = c.proxy();
        Rpc.Client<TrainWorkerProtocol> d = Rpc.connect(TrainWorkerProtocol.class, workers[j], 10_000, security);
        clients.add(d);
        w[j] = d.proxy();
      }
      TrainSpec.Result result = new TrainSpec.Result();
      result.placement = spec.placement;
      TrainDriver driver = null;
      int runs = spec.linkMbps.size();
      int epochs = spec.settings.epochs;
      for (int r = 0; r < runs; r++) {
        double rate = spec.linkMbps.get(r);
        spec.settings.linkMbps = rate;
        final int before = r;
        driver = new TrainDriver(w, s, spec.settings, (e, b, i) -> progress = (float) Math.min(0.99,
            (before * epochs + e - 1) / (double) (runs * epochs)), () -> failure);
        driver.resetServers();
        driver.prepare(Arrays.asList(servers));
        driver.shareLinks();
        TrainSpec.Run run = driver.figures();
        run.epochs = driver.train();
        result.runs.add(run);
        LOG.info("link rate {} Mbit/s done ({} of {})", rate, r + 1, runs);
      }
      over = true;
      if (driver != null) {
        driver.finish();
      }
      write(conf, result);
      progress = 1;
    } finally {
      for (Rpc.Client<?> c : clients) {
        c.close();
      }
    }
  }

  private void write(Configuration conf, TrainSpec.Result result) throws IOException {
    Path dst = new Path(spec.result);
    FileSystem fs = dst.getFileSystem(conf);
    Path tmp = new Path(dst.getParent(), "." + dst.getName() + ".tmp");
    try (OutputStream out = fs.create(tmp, true)) {
      out.write(JsonFiles.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(result)
          .getBytes(StandardCharsets.UTF_8));
    }
    if (!fs.rename(tmp, dst)) {
      throw new IOException("could not rename " + tmp + " to " + dst);
    }
  }

  private synchronized boolean allRegistered() {
    for (int j = 0; j < spec.k; j++) {
      if (servers[j] == null || workers[j] == null) {
        return false;
      }
    }
    return true;
  }

  @Override
  public synchronized String register(TrainRegistration r) {
    String[] table = "server".equals(r.getRole()) ? servers : workers;
    if (r.getId() < 0 || r.getId() >= spec.k) {
      throw new org.apache.avro.AvroRuntimeException("no " + r.getRole() + " " + r.getId() + " in a run of k = "
          + spec.k);
    }
    if (r.getAddress().startsWith(TrainContainers.FAILED)) {
      abort(r.getRole() + " " + r.getId() + " " + r.getAddress());
    } else if (!r.getAddress().isEmpty()) {
      table[r.getId()] = r.getAddress();
      LOG.info("{} {} at {}", r.getRole(), r.getId(), r.getAddress());
    }
    return specJson;
  }

  private void exited(String what, PartitionMaster.Exit exit, String diagnostics) {
    if (over && exit == PartitionMaster.Exit.SUCCESS) {
      return;
    }
    if (failure == null) {
      failure = what + " ended before the run was over (" + exit + "): " + diagnostics;
      LOG.error(failure);
    }
  }

  @Override
  public void serverExited(int serverId, PartitionMaster.Exit exit, String diagnostics) {
    exited("server " + serverId, exit, diagnostics);
  }

  @Override
  public void workerExited(int workerId, PartitionMaster.Exit exit, String diagnostics) {
    exited("worker " + workerId, exit, diagnostics);
  }

  @Override
  public void abort(String why) {
    if (failure == null) {
      failure = why;
    }
  }

  @Override
  public float progressFraction() {
    return progress;
  }
}
