package io.parsa.yarn.embedded;

import io.parsa.yarn.JobSpec;
import io.parsa.yarn.ParsaYarnConfig;
import io.parsa.yarn.am.PartitionMaster;
import io.parsa.yarn.server.NeighborSetServer;
import io.parsa.yarn.worker.EnginePartitioner;
import io.parsa.yarn.worker.Worker;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Embedded mode: runs the master's servers and workers as threads of this JVM, talking to the master and to each
 * other over loopback RPC exactly as containers do; a thread's end is reported to the master like a container's.
 */
public final class EmbeddedLauncher implements PartitionMaster.Launcher {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedLauncher.class);

  /** Thrown by a test hook to end a worker thread as if its container had died. */
  public static final class SimulatedCrash extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SimulatedCrash(String message) {
      super(message);
    }
  }

  private final JobSpec job;
  private final Configuration conf;
  private final String secret;
  private final String masterAddress;
  private final PartitionMaster master;
  private final Worker.BlockHook hook;
  private final List<Thread> threads = new ArrayList<>();
  private final java.util.Map<Integer, Thread> workers = new java.util.HashMap<>();
  private final java.util.Map<Integer, Thread> servers = new java.util.HashMap<>();
  private final java.util.Set<Thread> killed = new java.util.HashSet<>();

  public EmbeddedLauncher(JobSpec job, Configuration conf, String secret, String masterAddress,
      PartitionMaster master, Worker.BlockHook hook) {
    this.job = job;
    this.conf = conf;
    this.secret = secret;
    this.masterAddress = masterAddress;
    this.master = master;
    this.hook = hook;
  }

  @Override
  public synchronized void launchServer(int serverId) {
    Thread t = new Thread(() -> {
      try {
        new NeighborSetServer(job, serverId, secret, conf, masterAddress, "127.0.0.1", "127.0.0.1").run();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (Exception | Error e) {
        if (wasKilled()) {
          return;
        }
        LOG.error("embedded server {} died", serverId, e);
        master.serverExited(serverId, PartitionMaster.Exit.FAILED, e.toString());
      }
    }, "parsa-server-" + serverId);
    t.setDaemon(true);
    threads.add(t);
    servers.put(serverId, t);
    t.start();
  }

  @Override
  public synchronized void launchWorker(int workerId) {
    long delayMs = workerId >= job.workers ? conf.getLong(ParsaYarnConfig.TEST_WORKER_REPLACEMENT_DELAY_MS, 0) : 0;
    Thread t = new Thread(() -> {
      try {
        if (delayMs > 0) {
          LOG.warn("test hook: replacement worker {} starts in {} ms", workerId, delayMs);
          Thread.sleep(delayMs);
        }
        new Worker(job, workerId, master.attempt(), secret, conf, masterAddress, new EnginePartitioner(job.k),
            hook).run();
        master.workerExited(workerId, PartitionMaster.Exit.SUCCESS, "exited");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (Exception | Error e) {
        LOG.error("embedded worker {} died: {}", workerId, e.toString());
        master.workerExited(workerId, PartitionMaster.Exit.FAILED, e.toString());
      }
    }, "parsa-worker-" + workerId);
    t.setDaemon(true);
    threads.add(t);
    workers.put(workerId, t);
    t.start();
  }

  private synchronized boolean wasKilled() {
    return killed.contains(Thread.currentThread());
  }

  /** Interrupts the server's thread (it closes its endpoint on the way out); its end is not reported. */
  @Override
  public synchronized void killServer(int serverId) {
    Thread t = servers.get(serverId);
    if (t != null) {
      LOG.warn("killing embedded server {} (interrupting its thread)", serverId);
      killed.add(t);
      t.interrupt();
      try {
        // the old server must stop acknowledging pushes before its replacement replays its log
        t.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Interrupts the worker's thread (a thread cannot be killed; the master ignores whatever it does next). */
  @Override
  public synchronized void killWorker(int workerId) {
    Thread t = workers.get(workerId);
    if (t != null) {
      LOG.warn("killing embedded worker {} (interrupting its thread)", workerId);
      t.interrupt();
    }
  }

  @Override
  public void stopAll() {
    List<Thread> copy;
    synchronized (this) {
      copy = new ArrayList<>(threads);
    }
    long deadline = System.currentTimeMillis() + 10_000;
    for (Thread t : copy) {
      try {
        t.join(Math.max(1, deadline - System.currentTimeMillis()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      if (t.isAlive()) {
        t.interrupt();
      }
    }
  }
}
