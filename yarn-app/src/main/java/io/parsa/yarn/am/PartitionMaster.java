package io.parsa.yarn.am;

import io.parsa.yarn.rpc.Tokens;
import io.parsa.avro.rpc.ControlRequest;
import io.parsa.avro.rpc.NeighborSetProtocol;
import io.parsa.avro.rpc.RequestRejected;
import io.parsa.avro.rpc.SchedulerProtocol;
import io.parsa.avro.rpc.ServerStats;
import io.parsa.common.JsonFiles;
import io.parsa.common.OutputPaths;
import io.parsa.yarn.JobSpec;
import io.parsa.yarn.ParsaYarnConfig;
import io.parsa.yarn.io.AssignmentFiles;
import io.parsa.yarn.rpc.Rpc;
import io.parsa.yarn.rpc.RpcSecurity;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.avro.ipc.Server;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The application master's logic, independent of YARN: serves the scheduler, has servers and workers launched
 * (through a {@link Launcher}: YARN containers or embedded threads), reacts to their exits, drives the stages,
 * and finishes the run (neighbor-set dump, {@code _stats.json}, atomic commit of the output). The YARN master and
 * the embedded mode both run exactly this class.
 *
 * <p>The master only schedules: it never opens a block or an assignment file, and its memory is O(blocks + workers
 * + k) whatever the numbers of rows and keys. Rows per block come with the job (from ingest's statistics); every
 * row is assigned exactly once by construction (a block's assignment file is renamed into place in one step, and a
 * block that runs again replaces it); the per-part sums in {@code _stats.json} are those the workers reported.
 */
public final class PartitionMaster implements ContainerEvents {
  private static final Logger LOG = LoggerFactory.getLogger(PartitionMaster.class);

  /** Starts containers (or threads). Calls return once the launch is under way. */
  public interface Launcher {
    void launchServer(int serverId) throws IOException;

    void launchWorker(int workerId) throws IOException;

    /** Kills a worker the master declared stuck; its later exit is ignored by the master. */
    void killWorker(int workerId);

    /** Kills a server the master declared stuck; its exit is not reported (the master relaunches it at once). */
    void killServer(int serverId);

    /** Stops whatever is still running; called once at the end. */
    void stopAll();
  }

  /** Receives a progress snapshot and a one-line summary, every progress interval. */
  public interface ProgressSink {
    void progress(BlockScheduler.Progress p, String line);
  }

  /** How a container ended. */
  public enum Exit {
    /** Exited 0. */
    SUCCESS,
    /** Aborted, preempted, lost node: not the container's fault, not counted. */
    NOT_COUNTED,
    /** Anything else. */
    FAILED
  }

  /** Outcome of {@link #run}. */
  public static final class Outcome {
    public final boolean success;
    public final String diagnostics;

    Outcome(boolean success, String diagnostics) {
      this.success = success;
      this.diagnostics = diagnostics;
    }
  }

  private final JobSpec job;
  private final int attempt;
  private int recoveredBlocks;
  /** Finished blocks in the last ledger written (-1: none written yet). */
  private int ledgerBlocks = -1;
  /** Waves whose blocks are all in the last ledger written (the servers' pings carry it). */
  private volatile int durableWaves;
  private final Configuration conf;
  private final String secret;
  private final String bindHost;
  private final String advertisedHost;
  private final BlockScheduler scheduler;
  private final ServerRegistry registry;
  private final SchedulerService service;
  private Server rpc;
  private Launcher launcher;
  private int nextWorkerId;
  private int workerFailures;
  private int hungWorkers;
  private int hungServers;
  private final ServerLiveness serverLiveness;
  private ServerControl.Probes probes;
  private final FailureTracker failures;
  private final LivenessMonitor liveness;
  /** Workers declared stuck and killed: their exit, when it comes, is not a new event. */
  private final Set<Integer> abandoned = new HashSet<>();
  private int workerReplacements;
  private int serverRestarts;
  private String fatal;
  private boolean finishing;
  private final long startedAt = System.currentTimeMillis();

  public PartitionMaster(JobSpec job, Configuration conf, String secret, String bindHost, String advertisedHost) {
    this(job, conf, secret, bindHost, advertisedHost, 1);
  }

  /**
   * @param attempt the application attempt (from 1). A later attempt keeps the blocks an earlier one finished
   *     (their assignment files), skips stage 0 if stage 1 had begun, and relies on the servers restoring
   *     their newest checkpoint.
   */
  public PartitionMaster(JobSpec job, Configuration conf, String secret, String bindHost, String advertisedHost,
      int attempt) {
    this.job = job;
    this.attempt = attempt;
    this.conf = conf;
    this.secret = secret;
    this.bindHost = bindHost;
    this.advertisedHost = advertisedHost;
    Random rnd = new Random(job.seed);
    List<Integer> order = new ArrayList<>();
    for (int b = 0; b < job.blockPaths.size(); b++) {
      order.add(b);
    }
    Collections.shuffle(order, rnd);
    boolean stage1Begun = attempt > 1 && stage1Begun(job, conf);
    int nInit = stage1Begun ? 0 : Math.min(job.initBlocks, order.size());
    List<Integer> init = new ArrayList<>(order.subList(0, nInit));
    List<Integer> warm = new ArrayList<>();
    // warm-up blocks per worker, or per slot of a wave in a wave run, so that its placement does not depend on the
    // number of workers
    int nWarm = stage1Begun ? 0 : job.warmupBlocks * (job.waveWidth > 0 ? job.waveWidth : job.workers);
    for (int i = 0; i < nWarm; i++) {
      warm.add(order.get((nInit + i) % order.size()));
    }
    this.scheduler = new BlockScheduler(job.k, job.blockPaths.size(), init, warm, job.weighted,
        System::currentTimeMillis);
    scheduler.useWaves(job.waveWidth);
    this.registry = new ServerRegistry(job.servers);
    this.failures = new FailureTracker(System::currentTimeMillis,
        conf.getLong(ParsaYarnConfig.AM_FAILURES_WINDOW_MS, ParsaYarnConfig.DEFAULT_AM_FAILURES_WINDOW_MS));
    this.liveness = new LivenessMonitor(System::currentTimeMillis,
        conf.getLong(ParsaYarnConfig.AM_LIVENESS_TIMEOUT_MS, ParsaYarnConfig.DEFAULT_AM_LIVENESS_TIMEOUT_MS));
    this.serverLiveness = new ServerLiveness(job.servers, System::currentTimeMillis, conf.getLong(
        ParsaYarnConfig.AM_SERVER_LIVENESS_TIMEOUT_MS, ParsaYarnConfig.DEFAULT_AM_SERVER_LIVENESS_TIMEOUT_MS));
    this.service = new SchedulerService(job, secret, scheduler, registry, ParsaYarnConfig.amWaitMs(conf, job.workers),
        liveness);
    // the end of stage 0 (checkpoint, marker) and of the run (the final dump) need not wait for the loop's next turn
    service.onStageEnd(this::wake);
  }

  /** Starts the scheduler endpoint; returns its host:port. */
  public String start() throws IOException {
    rpc = Rpc.serve(SchedulerProtocol.class, service, bindHost, RpcSecurity.forSecret(secret));
    String addr = advertisedHost + ":" + rpc.getPort();
    LOG.info("scheduler serving on {}", addr);
    return addr;
  }

  public String address() {
    return advertisedHost + ":" + rpc.getPort();
  }

  /** Current server addresses (empty strings for servers that are restarting). */
  public List<String> serverAddresses() {
    return registry.addresses();
  }

  /** The application attempt this master runs as (from 1). */
  public int attempt() {
    return attempt;
  }

  private long serverWaitMs() {
    return conf.getLong(ParsaYarnConfig.WORKER_SERVER_WAIT_MS, ParsaYarnConfig.DEFAULT_WORKER_SERVER_WAIT_MS);
  }

  public BlockScheduler scheduler() {
    return scheduler;
  }

  /** Written (in the checkpoint directory) once stage 1 begins; tells a later attempt to skip stage 0. */
  static Path stage1Marker(JobSpec job) {
    return new Path(job.checkpointDir, "_stage1");
  }

  private static boolean stage1Begun(JobSpec job, Configuration conf) {
    try {
      Path marker = stage1Marker(job);
      FileSystem fs = marker.getFileSystem(conf);
      return fs.exists(marker) || !finishedBlocks(job, conf).isEmpty();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the state of the previous attempt", e);
    }
  }

  /** Blocks whose assignment file exists (written atomically, so complete). */
  private static List<Integer> finishedBlocks(JobSpec job, Configuration conf) throws IOException {
    Path uDir = new Path(job.outputTmp, "u-assignment");
    FileSystem fs = uDir.getFileSystem(conf);
    List<Integer> done = new ArrayList<>();
    if (!fs.exists(uDir)) {
      return done;
    }
    Set<String> names = new HashSet<>();
    for (FileStatus st : fs.listStatus(uDir)) {
      names.add(st.getPath().getName());
    }
    for (int b = 0; b < job.blockPaths.size(); b++) {
      if (names.contains(AssignmentFiles.fileFor(uDir, b).getName())) {
        done.add(b);
      }
    }
    return done;
  }

  /**
   * A later attempt: takes over the blocks of the earlier attempts' ledger whose assignment files are listed in the
   * u-assignment directory (names only; nothing is read). Other blocks run again.
   */
  private void recoverFinishedBlocks() throws IOException {
    FileSystem fs = new Path(job.checkpointDir).getFileSystem(conf);
    DoneLedger ledger = DoneLedger.read(fs, job.checkpointDir);
    List<Integer> listed = finishedBlocks(job, conf);
    if (ledger == null || ledger.blocks.isEmpty()) {
      LOG.info("attempt {}: no finished block recorded by earlier attempts; {} assignment file(s) will be "
          + "replaced", attempt, listed.size());
      return;
    }
    Set<Integer> present = new HashSet<>(listed);
    for (int b : ledger.blocks) {
      if (!present.contains(b)) {
        LOG.warn("attempt {}: the ledger names block {} but its assignment file is missing; every block runs again",
            attempt, b);
        return;
      }
    }
    scheduler.recovered(ledger);
    recoveredBlocks = ledger.blocks.size();
    LOG.info("attempt {}: kept {} blocks ({} rows) finished by earlier attempts; {} listed file(s) run again",
        attempt, recoveredBlocks, ledger.rows, listed.size() - recoveredBlocks);
  }

  /**
   * Writes the ledger of finished blocks if it changed since the last write (a later attempt resumes from it). A
   * failed write only costs a later attempt some re-runs, so it is logged, not fatal.
   */
  private void writeLedger() {
    int doneNow = scheduler.progress().blocksDone;
    if (doneNow == ledgerBlocks) {
      return;
    }
    DoneLedger l = scheduler.ledger();
    try {
      l.write(new Path(job.checkpointDir).getFileSystem(conf), job.checkpointDir);
      ledgerBlocks = l.blocks.size();
      if (job.waveWidth > 0) {
        // the waves below the first block missing from the written ledger: the servers may forget their records
        java.util.Set<Integer> written = new HashSet<>(l.blocks);
        int first = 0;
        while (written.contains(first)) {
          first++;
        }
        durableWaves = first / job.waveWidth;
      }
    } catch (IOException e) {
      LOG.warn("could not write the ledger of finished blocks ({} blocks); retrying later: {}", l.blocks.size(),
          e.toString());
    }
  }

  /** Runs the whole application; never throws for a failed run (see the outcome's diagnostics). */
  public Outcome run(Launcher launcher, ProgressSink sink) throws InterruptedException {
    this.launcher = launcher;
    long interval = conf.getLong(ParsaYarnConfig.PROGRESS_INTERVAL_MS, ParsaYarnConfig.DEFAULT_PROGRESS_INTERVAL_MS);
    try {
      for (int s = 0; s < job.servers; s++) {
        launcher.launchServer(s);
      }
      fixBlockSizes();
      // a first attempt's workers start beside the servers (a worker waits for every server's address before its
      // first pull); a later attempt's only once the servers are up and the finished blocks recovered
      boolean workersFirst = attempt == 1;
      if (workersFirst) {
        launchWorkers();
      }
      long timeout = conf.getLong(ParsaYarnConfig.AM_SERVER_START_TIMEOUT_MS,
          ParsaYarnConfig.DEFAULT_AM_SERVER_START_TIMEOUT_MS);
      long deadline = System.currentTimeMillis() + timeout;
      while (!registry.awaitAllUp(200)) {
        if (fatal() != null) {
          return fail(fatal());
        }
        if (System.currentTimeMillis() > deadline) {
          return fail("neighbor-set servers did not register within " + timeout + " ms");
        }
      }
      LOG.info("all {} neighbor-set servers registered", job.servers);
      probes = startServerProbes();
      if (attempt > 1) {
        recoverFinishedBlocks();
      }
      if (!workersFirst) {
        launchWorkers();
      }
      int lastStage = scheduler.stage();
      long nextReport = 0;
      long nextLedger = 0;
      long ledgerInterval = conf.getLong(ParsaYarnConfig.AM_LEDGER_INTERVAL_MS,
          ParsaYarnConfig.DEFAULT_AM_LEDGER_INTERVAL_MS);
      while (!scheduler.finished()) {
        if (fatal() != null) {
          return fail(fatal());
        }
        int stage = scheduler.stage();
        if (stage != lastStage) {
          LOG.info("stage 0 (initialisation) finished in {} ms; stage 1 starts",
              scheduler.progress().stage0Millis);
          checkpointServers();
          Path marker = stage1Marker(job);
          marker.getFileSystem(conf).create(marker, true).close();
          lastStage = stage;
        }
        for (int w : liveness.stuck()) {
          workerStuck(w);
        }
        for (int s : serverLiveness.stuck()) {
          serverStuck(s);
        }
        long now = System.currentTimeMillis();
        if (now >= nextReport) {
          report(sink);
          nextReport = now + interval;
        }
        if (now >= nextLedger) {
          writeLedger();
          nextLedger = now + ledgerInterval;
        }
        synchronized (this) {
          wait(100);
        }
      }
      synchronized (this) {
        finishing = true;
      }
      report(sink);
      LOG.info("stage 1 finished: {} blocks", job.blockPaths.size());
      // no snapshot here: the dump that follows writes the same state, and a server that fails during it restores
      // the stage-0 snapshot and replays its log as at any other time (a snapshot only shortens that replay)
      finish();
      report(sink);
      return new Outcome(true, "partition-u finished: " + job.output);
    } catch (IOException | RuntimeException e) {
      LOG.error("partition-u failed", e);
      return fail(e.toString());
    } finally {
      synchronized (this) {
        finishing = true;
      }
      scheduler.abort();
      if (probes != null) {
        probes.close();
      }
      shutdownServers();
      launcher.stopAll();
      if (rpc != null) {
        Rpc.closeAsync(rpc);
      }
    }
  }

  private void report(ProgressSink sink) {
    BlockScheduler.Progress p = scheduler.progress();
    if (sink == null) {
      return;
    }
    double secs = Math.max(1e-3, (p.stage1Millis) / 1000.0);
    String line;
    if (p.stage == 0) {
      line = String.format("stage 0 (init): %d/%d blocks", p.stage0Done, p.stage0Total);
    } else {
      line = String.format("stage %d: %d/%d blocks, %d rows, %.0f rows/s", Math.min(p.stage, 1), p.blocksDone,
          p.blocksTotal, p.rowsDone, p.rowsDone / secs);
    }
    sink.progress(p, line);
  }

  private synchronized String fatal() {
    return fatal;
  }

  private Outcome fail(String why) {
    LOG.error("partition-u failed: {}", why);
    return new Outcome(false, why);
  }

  /** A worker container or thread ended. Thread-safe. */
  @Override
  public synchronized void workerExited(int workerId, Exit exit, String diagnostics) {
    if (finishing || fatal != null || abandoned.contains(workerId)) {
      return;
    }
    liveness.forget(workerId);
    int requeued = scheduler.workerLost(workerId);
    if (exit == Exit.SUCCESS && scheduler.finished()) {
      return;
    }
    if (exit == Exit.FAILED) {
      workerFailures++;
      int recent = failures.record();
      LOG.warn("worker {} failed ({} within the failure window, at most {}): {}; {} block(s) handed out again",
          workerId, recent, job.maxWorkerFailures, diagnostics, requeued);
      if (recent > job.maxWorkerFailures) {
        fatal = "too many worker failures (" + recent + " > " + job.maxWorkerFailures + " within "
            + ParsaYarnConfig.AM_FAILURES_WINDOW_MS + "); last: " + diagnostics;
        notifyAll();
        return;
      }
    } else {
      LOG.warn("worker {} ended ({}): {}; {} block(s) handed out again; not counted as a failure", workerId, exit,
          diagnostics, requeued);
    }
    try {
      workerReplacements++;
      launcher.launchWorker(nextWorkerId++);
    } catch (IOException | RuntimeException e) {
      fatal = "could not replace worker " + workerId + ": " + e;
    }
    notifyAll();
  }

  /** A worker holds a block but showed no progress for the liveness timeout: kill it and treat it as failed. */
  private synchronized void workerStuck(int workerId) {
    if (finishing || fatal != null || abandoned.contains(workerId)) {
      return;
    }
    hungWorkers++;
    String why = "no progress for " + liveness.timeoutMs() + " ms (" + ParsaYarnConfig.AM_LIVENESS_TIMEOUT_MS
        + "); killed";
    LOG.warn("worker {} holds a block but made no progress: declared hung, killing it", workerId);
    workerExited(workerId, Exit.FAILED, why);
    abandoned.add(workerId);
    launcher.killWorker(workerId);
  }

  /** A server answers no ping (or one push runs) for the server liveness timeout: kill it and restart it. */
  private synchronized void serverStuck(int serverId) {
    if (finishing || fatal != null) {
      return;
    }
    hungServers++;
    serverLiveness.down(serverId);
    LOG.warn("server {} made no progress for {} ms: declared hung, killing and restarting it", serverId,
        serverLiveness.timeoutMs());
    launcher.killServer(serverId);
    serverExited(serverId, Exit.FAILED, "no answer or a stuck push for " + serverLiveness.timeoutMs() + " ms ("
        + ParsaYarnConfig.AM_SERVER_LIVENESS_TIMEOUT_MS + "); killed");
  }

  /** A server container or thread ended. Thread-safe. */
  @Override
  public synchronized void serverExited(int serverId, Exit exit, String diagnostics) {
    if (finishing || fatal != null) {
      return;
    }
    registry.markDown(serverId);
    if (exit == Exit.FAILED || exit == Exit.SUCCESS) {
      serverRestarts++;
    }
    LOG.warn("server {} ended ({}): {}; restarting it from its last checkpoint", serverId, exit, diagnostics);
    if (serverRestarts > job.maxServerRestarts) {
      fatal = "server " + serverId + " failed too often (" + serverRestarts + " restarts): " + diagnostics;
      notifyAll();
      return;
    }
    try {
      launcher.launchServer(serverId);
    } catch (IOException | RuntimeException e) {
      fatal = "could not restart server " + serverId + ": " + e;
    }
    notifyAll();
  }

  /** Fails the run (e.g. the ResourceManager asked the master to shut down). Thread-safe. */
  @Override
  public synchronized void abort(String why) {
    if (fatal == null) {
      fatal = why;
    }
    notifyAll();
  }

  /** Gives the scheduler ingest's rows (or weights) per block, so that every block's starting loads are fixed. */
  private void fixBlockSizes() {
    if (!job.weighted && job.rowsPerBlock != null) {
      scheduler.fixRowCounts(job.rowsPerBlock.stream().mapToLong(Long::longValue).toArray());
    }
    if (job.weighted && job.weightPerBlock != null) {
      scheduler.fixBlockWeights(job.weightPerBlock.stream().mapToDouble(Double::doubleValue).toArray());
    }
  }

  private synchronized void launchWorkers() throws IOException {
    for (int w = 0; w < job.workers; w++) {
      launcher.launchWorker(nextWorkerId++);
    }
  }

  /** Fraction of the work done, for the ResourceManager. */
  @Override
  public float progressFraction() {
    BlockScheduler.Progress p = scheduler.progress();
    float total = p.stage0Total + p.blocksTotal + 1;
    return Math.min(1f, (p.stage0Done + p.blocksDone) / total);
  }

  /** Wakes {@link #run} early (e.g. after an event). */
  public synchronized void wake() {
    notifyAll();
  }

  // ---- server control --------------------------------------------------------------------------

  private interface ServerCall<T> {
    T apply(NeighborSetProtocol p) throws RequestRejected;
  }

  private ServerControl serverControl() {
    int connectMs = conf.getInt(ParsaYarnConfig.RPC_CONNECT_TIMEOUT_MS, ParsaYarnConfig.DEFAULT_RPC_CONNECT_TIMEOUT_MS);
    return new ServerControl(registry, secret, connectMs, serverWaitMs(), this::fatal);
  }

  private <T> List<T> onAllServers(String what, ServerCall<T> call) throws IOException, InterruptedException {
    return serverControl().onAll(what, call::apply);
  }

  /** Pings the servers a few times per liveness timeout (none when server liveness is off). */
  private ServerControl.Probes startServerProbes() {
    long timeout = serverLiveness.timeoutMs();
    if (timeout <= 0) {
      return null;
    }
    return serverControl().startProbes(serverLiveness, Math.max(200, Math.min(30_000, timeout / 5)),
        () -> durableWaves);
  }

  private void checkpointServers() throws IOException, InterruptedException {
    onAllServers("checkpoint", p -> p.checkpoint(new ControlRequest(Tokens.master(secret), null, -1)));
  }

  private void shutdownServers() {
    if (rpc == null) {
      return;
    }
    try {
      int connectMs = 2000;
      for (int s = 0; s < job.servers; s++) {
        String addr = registry.address(s);
        if (addr.isEmpty()) {
          continue;
        }
        try (Rpc.Client<NeighborSetProtocol> c = Rpc.connect(NeighborSetProtocol.class, addr, connectMs,
            RpcSecurity.forSecret(secret))) {
          c.proxy().shutdown(new ControlRequest(Tokens.master(secret), null, -1));
        } catch (IOException | RuntimeException | RequestRejected e) {
          LOG.debug("shutdown of server {} failed: {}", s, e.toString());
        }
      }
    } catch (RuntimeException e) {
      LOG.debug("shutting servers down: {}", e.toString());
    }
  }

  // ---- the end ---------------------------------------------------------------------------------

  private void finish() throws IOException, InterruptedException {
    Path tmp = new Path(job.outputTmp);
    FileSystem fs = tmp.getFileSystem(conf);
    Path nsDir = new Path(tmp, "neighbor-sets");
    fs.mkdirs(nsDir);
    long t0 = System.currentTimeMillis();
    List<ServerStats> stats = onAllServers("dump", p -> p.dump(new ControlRequest(Tokens.master(secret), nsDir.toString(), -1)));
    long dumpMs = System.currentTimeMillis() - t0;
    fs.create(new Path(nsDir, OutputPaths.SUCCESS), true).close();
    Path uDir = new Path(tmp, "u-assignment");
    fs.create(new Path(uDir, OutputPaths.SUCCESS), true).close();

    long[] setSizes = new long[job.k];
    long nsKeys = 0;
    for (ServerStats st : stats) {
      nsKeys += st.getNumKeys();
      for (int i = 0; i < job.k; i++) {
        setSizes[i] += st.getSetSizes().get(i);
      }
    }
    BlockScheduler.Progress p = scheduler.progress();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("k", job.k);
    out.put("workers", job.workers);
    out.put("servers", job.servers);
    out.put("blocks", job.blockPaths.size());
    out.put("rows", p.rowsDone);
    if (job.nonZeros >= 0) {
      out.put("nonZeros", job.nonZeros);
    }
    out.put("edges", p.edgesDone);
    Map<String, Object> timings = new LinkedHashMap<>();
    timings.put("stage0Ms", p.stage0Millis);
    timings.put("stage1Ms", p.stage1Millis);
    timings.put("dumpMs", dumpMs);
    timings.put("totalMs", System.currentTimeMillis() - startedAt);
    out.put("timings", timings);
    out.put("rowsPerPart", p.partRows);
    out.put("loadPerPart", p.partLoads);
    out.put("rowsNote", "rows, edges, rowsPerPart and loadPerPart are the sums of what the workers reported per "
        + "block; every row is assigned exactly once by construction (one atomically renamed assignment file per "
        + "block, replaced if the block runs again); the master reads no block and no assignment file");
    out.put("neighborSetSizes", setSizes);
    out.put("neighborSetMax", max(setSizes));
    out.put("neighborSetKeys", nsKeys);
    out.put("neighborSetNote", "|S_i| of the dumped neighbor sets: S_i is the union of every push for part i "
        + "(including those of initialisation blocks and of blocks that ran twice), so S_i ⊇ N(U_i) and |S_i| is an "
        + "upper bound on M_i = |N(U_i)|, not M_i itself; the exact M_i and M_max come from the metrics step");
    out.put("maxDelay", job.maxDelay);
    out.put("waveWidth", job.waveWidth);
    out.put("gateReleases", scheduler.releases());
    out.put("initBlocks", job.initBlocks);
    out.put("warmupBlocks", job.warmupBlocks);
    out.put("stage0Blocks", p.stage0Total);
    out.put("amAttempt", attempt);
    out.put("recoveredBlocks", recoveredBlocks);
    String mismatch = scheduler.rowCountMismatch();
    out.put("startingLoads", mismatch != null ? "reservation order after a mismatch: " + mismatch
        : job.weighted ? (scheduler.blockWeightsFixed() ? "block order in each wave (weighted rows; the blocks'"
            + " weights from ingest's _stats.json)" : "reservation order (weighted rows; " + (job.waveWidth == 0
            ? "asynchronous)" : "no weightPerBlock in ingest's _stats.json)"))
        : job.rowsPerBlock == null ? "reservation order: " + job.rowCountsSource : "sequential (block order)");
    out.put("rowCounts", job.rowCountsSource);
    out.put("weighted", job.weighted);
    out.put("seed", job.seed);
    synchronized (this) {
      out.put("workerFailures", workerFailures);
      out.put("workerReplacements", workerReplacements);
      out.put("hungWorkers", hungWorkers);
      out.put("hungServers", hungServers);
      out.put("serverRestarts", serverRestarts);
    }
    out.put("rejectedRequests", service.rejected());
    JsonFiles.write(fs, new Path(tmp, "_stats.json"), out);
    OutputPaths.commitInto(fs, tmp, new Path(job.output), job.overwrite);
    LOG.info("committed {}: {} rows in {} blocks, max |S_i| = {}", job.output, p.rowsDone, job.blockPaths.size(),
        max(setSizes));
  }

  private static long max(long[] a) {
    long m = 0;
    for (long v : a) {
      m = Math.max(m, v);
    }
    return m;
  }
}
