package io.parsa.yarn.am;

import io.parsa.avro.rpc.Gate;
import io.parsa.avro.rpc.GateAnswer;
import io.parsa.avro.rpc.GateRequest;
import io.parsa.avro.rpc.JobRequest;
import io.parsa.avro.rpc.Reservation;
import io.parsa.avro.rpc.ReserveRequest;
import io.parsa.avro.rpc.SchedulerProtocol;
import io.parsa.avro.rpc.SchedulerRejected;
import io.parsa.avro.rpc.ServerList;
import io.parsa.avro.rpc.ServerListRequest;
import io.parsa.avro.rpc.ServerRegistration;
import io.parsa.avro.rpc.Task;
import io.parsa.avro.rpc.TaskKind;
import io.parsa.avro.rpc.TaskReport;
import io.parsa.avro.rpc.TaskRequest;
import io.parsa.yarn.JobSpec;
import io.parsa.yarn.rpc.Longs;
import io.parsa.yarn.rpc.Rejections;
import io.parsa.yarn.rpc.Tokens;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The master's RPC face: authenticates every request and forwards it to the scheduler or the server registry. */
public final class SchedulerService implements SchedulerProtocol {
  private static final Logger LOG = LoggerFactory.getLogger(SchedulerService.class);

  private final JobSpec job;
  private final String jobJson;
  private final String secret;
  private final BlockScheduler scheduler;
  private final ServerRegistry registry;
  private final int waitMs;
  private final LivenessMonitor liveness;
  private final AtomicLong rejected = new AtomicLong();
  /** Run after a done report that ended a stage or the run (the master's loop then goes on at once). */
  private volatile Runnable onStageEnd = () -> { };

  public SchedulerService(JobSpec job, String secret, BlockScheduler scheduler, ServerRegistry registry,
      int waitMs) {
    this(job, secret, scheduler, registry, waitMs, new LivenessMonitor(System::currentTimeMillis, 0));
  }

  /** @param liveness told of every worker's progress (block hand-outs, reserves, done reports, server lookups) */
  public SchedulerService(JobSpec job, String secret, BlockScheduler scheduler, ServerRegistry registry,
      int waitMs, LivenessMonitor liveness) {
    this.liveness = liveness;
    this.job = job;
    this.jobJson = job.toJson();
    this.secret = secret;
    this.scheduler = scheduler;
    this.registry = registry;
    this.waitMs = waitMs;
  }

  /** {@code r} runs after a done report that ends stage 0 or the run, outside the scheduler's lock. */
  public void onStageEnd(Runnable r) {
    onStageEnd = r;
  }

  /** Worker requests: the token must be the one of the worker id the request names. */
  private void check(int workerId, CharSequence presented) throws SchedulerRejected {
    if (!Tokens.verify(secret, Tokens.Role.WORKER, workerId, presented)) {
      throw reject("token does not match worker id " + workerId + " (bad, missing or another caller's token)");
    }
  }

  private void checkServer(int serverId, CharSequence presented) throws SchedulerRejected {
    if (!Tokens.verify(secret, Tokens.Role.SERVER, serverId, presented)) {
      throw reject("token does not match server id " + serverId + " (bad, missing or another caller's token)");
    }
  }

  private SchedulerRejected reject(String why) {
    rejected.incrementAndGet();
    LOG.warn("rejected a scheduler request: {}", why);
    return Rejections.master(why);
  }

  public long rejected() {
    return rejected.get();
  }

  @Override
  public String job(JobRequest request) throws SchedulerRejected {
    // workers and servers both read the job; the id is either, so either identity's token is accepted
    int id = request.getWorkerId();
    if (!Tokens.verify(secret, Tokens.Role.WORKER, id, request.getToken())) {
      checkServer(id, request.getToken());
    }
    return jobJson;
  }

  @Override
  public Task nextTask(TaskRequest request) throws SchedulerRejected {
    check(request.getWorkerId(), request.getToken());
    BlockScheduler.Assignment a = scheduler.next(request.getWorkerId());
    switch (a.kind) {
      case RUN:
        liveness.blockStarted(request.getWorkerId());
        LOG.debug("block {} (stage {}) -> worker {} as task {}", a.blockIndex, a.stage, request.getWorkerId(),
            a.taskId);
        return new Task(TaskKind.RUN, a.taskId, a.blockIndex, job.blockPaths.get(a.blockIndex), a.stage,
            a.stage0Position, 0);
      case WAIT:
        return new Task(TaskKind.WAIT, -1L, -1, "", -1, -1, waitMs);
      default:
        return new Task(TaskKind.STOP, -1L, -1, "", -1, -1, 0);
    }
  }

  @Override
  public Reservation reserve(ReserveRequest request) throws SchedulerRejected {
    check(request.getWorkerId(), request.getToken());
    try {
      liveness.progress(request.getWorkerId());
      double[] base = scheduler.reserve(request.getWorkerId(), request.getTaskId(), request.getRows(),
          request.getWeight());
      return new Reservation(Longs.wrap(base));
    } catch (IllegalArgumentException e) {
      throw Rejections.master(e.getMessage());
    }
  }

  @Override
  public GateAnswer passGate(GateRequest request) throws SchedulerRejected {
    check(request.getWorkerId(), request.getToken());
    try {
      boolean push = request.getGate() == Gate.PUSH;
      BlockScheduler.GateAnswer a = scheduler.gate(request.getWorkerId(), request.getTaskId(), push);
      // a worker waiting at a gate waits for other blocks: it is waiting, not stuck; but a push that waits for a
      // block the same worker holds unpulled waits for that worker's own main thread, which may be the stuck one
      if (!(push && a == BlockScheduler.GateAnswer.WAIT
          && scheduler.waitsOnOwnBlock(request.getWorkerId(), request.getTaskId()))) {
        liveness.progress(request.getWorkerId());
      }
      if (a == BlockScheduler.GateAnswer.RELEASE) {
        LOG.info("task {} of worker {} released at its pull gate: an earlier wave waits for a queued block",
            request.getTaskId(), request.getWorkerId());
      }
      return GateAnswer.valueOf(a.name());
    } catch (IllegalArgumentException e) {
      throw Rejections.master(e.getMessage());
    }
  }

  @Override
  public boolean taskDone(TaskReport r) throws SchedulerRejected {
    check(r.getWorkerId(), r.getToken());
    try {
      int stage = scheduler.stage();
      boolean counted = scheduler.done(r.getWorkerId(), r.getTaskId(), Longs.toDoubleArray(r.getPartLoads()),
          Longs.toArray(r.getPartRows()), r.getRows(), r.getEdges());
      if (counted) {
        liveness.blockDone(r.getWorkerId());
        if (scheduler.stage() != stage || scheduler.finished()) {
          onStageEnd.run();
        }
      }
      return counted;
    } catch (IllegalArgumentException e) {
      throw Rejections.master(e.getMessage());
    }
  }

  @Override
  public boolean registerServer(ServerRegistration r) throws SchedulerRejected {
    checkServer(r.getServerId(), r.getToken());
    try {
      registry.register(r.getServerId(), r.getHost() + ":" + r.getPort());
    } catch (IllegalArgumentException e) {
      throw Rejections.master(e.getMessage());
    }
    LOG.info("server {} registered at {}:{}", r.getServerId(), r.getHost(), r.getPort());
    return true;
  }

  @Override
  public ServerList servers(ServerListRequest request) throws SchedulerRejected {
    check(request.getWorkerId(), request.getToken());
    // a worker waiting for a restarting server asks for addresses: it is waiting, not stuck
    liveness.progress(request.getWorkerId());
    synchronized (registry) {
      return new ServerList(registry.epoch(), registry.addresses());
    }
  }
}
