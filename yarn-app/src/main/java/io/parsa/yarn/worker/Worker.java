package io.parsa.yarn.worker;

import io.parsa.avro.rpc.Gate;
import io.parsa.avro.rpc.GateAnswer;
import io.parsa.avro.rpc.Task;
import io.parsa.avro.rpc.TaskKind;
import io.parsa.yarn.JobSpec;
import io.parsa.yarn.ParsaYarnConfig;
import io.parsa.yarn.io.AssignmentFiles;
import io.parsa.yarn.io.BlockFiles;
import io.parsa.yarn.io.BlockData;
import io.parsa.yarn.rpc.NeighborSetClient;
import io.parsa.yarn.rpc.SchedulerClient;
import io.parsa.yarn.rpc.Sleeper;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition-u worker (paper Algorithm 4, worker side). A prefetch thread asks the master for the next block
 * and loads it; the main thread waits for its own pushes older than τ, pulls the block's neighbor sets, runs the
 * engine, writes the block's assignment file and hands the push of the new members to a committer thread, which
 * reports the block done once the push is acknowledged.
 *
 * <p>In a wave run ({@link JobSpec#waveWidth} &gt; 0) the master's gates replace τ: the main thread pulls a
 * stage-1 block once every block of the earlier waves is done, and the committer pushes it once every block of
 * its wave has pulled (see {@code BlockScheduler}). A worker then overlays none of its own pushes in flight, and
 * while its block waits at the pull gate it runs first a block of an earlier wave that reaches it (one handed
 * out again after another worker was lost), which the gate waits for.
 */
public final class Worker {
  private static final Logger LOG = LoggerFactory.getLogger(Worker.class);

  /** Called after each finished block with the number of blocks this worker finished (test fault hook). */
  public interface BlockHook {
    void afterBlock(int workerId, int blocksDone);
  }

  private final JobSpec job;
  private final int workerId;
  private final String secret;
  private final Configuration conf;
  private final String masterAddress;
  private final BlockPartitioner partitioner;
  private final BlockHook hook;
  private final int attempt;

  /**
   * @param attempt the application attempt whose master launched this worker (from 1): part of its push
   *     sequence numbers, so they need no clock
   */
  public Worker(JobSpec job, int workerId, int attempt, String secret, Configuration conf, String masterAddress,
      BlockPartitioner partitioner, BlockHook hook) {
    this.job = job;
    this.workerId = workerId;
    this.attempt = attempt;
    this.secret = secret;
    this.conf = conf;
    this.masterAddress = masterAddress;
    this.partitioner = partitioner;
    this.hook = hook;
  }

  /** A loaded block, or the end marker. */
  private static final class Loaded {
    final Task task;
    final BlockPartitioner.Prepared block;
    final long loadMillis;

    Loaded(Task task, BlockPartitioner.Prepared block, long loadMillis) {
      this.task = task;
      this.block = block;
      this.loadMillis = loadMillis;
    }
  }

  private static final Loaded END = new Loaded(null, null, 0);

  /**
   * Longest wait between two questions to the master at a gate: 50 ms, or 1 ms per worker where there are more, so
   * that all workers waiting at once ask the master at most about a thousand times a second.
   */
  private long gatePollMaxMs() {
    return Math.max(50, job.workers);
  }

  /** Runs until the master says STOP; throws on an unrecoverable error. */
  public void run() throws IOException, InterruptedException {
    int connectMs = conf.getInt(ParsaYarnConfig.RPC_CONNECT_TIMEOUT_MS,
        ParsaYarnConfig.DEFAULT_RPC_CONNECT_TIMEOUT_MS);
    long retryMs = conf.getLong(ParsaYarnConfig.WORKER_RPC_RETRY_MS, ParsaYarnConfig.DEFAULT_WORKER_RPC_RETRY_MS);
    long serverWaitMs = conf.getLong(ParsaYarnConfig.WORKER_SERVER_WAIT_MS,
        ParsaYarnConfig.DEFAULT_WORKER_SERVER_WAIT_MS);
    int batch = conf.getInt(ParsaYarnConfig.WORKER_RPC_BATCH_KEYS, ParsaYarnConfig.DEFAULT_WORKER_RPC_BATCH_KEYS);
    FileSystem fs = new Path(job.outputTmp).getFileSystem(conf);
    Path uDir = new Path(job.outputTmp, "u-assignment");
    int wpk = job.wordsPerKey();

    long testDelayMs = conf.getLong(ParsaYarnConfig.TEST_WORKER_BLOCK_DELAY_MS, 0);
    boolean testHang = conf.getInt(ParsaYarnConfig.TEST_HANG_WORKER_ID, -1) == workerId;
    int testHangAfter = conf.getInt(ParsaYarnConfig.TEST_HANG_AFTER_BLOCKS, 0);
    boolean testHangAfterPush = conf.getBoolean(ParsaYarnConfig.TEST_HANG_AFTER_PUSH, false);
    java.util.concurrent.CountDownLatch testPushed = new java.util.concurrent.CountDownLatch(1);
    BlockingQueue<Loaded> ready = new ArrayBlockingQueue<>(1);
    // at most one block ahead of the one being partitioned: the prefetcher asks for the next task only once the
    // main thread has taken the previous one (a worker holds two blocks, never three)
    Semaphore ahead = new Semaphore(1);
    long pushBudget = pushBufferBytes(conf);
    PendingPushes pending = new PendingPushes();
    Committer committer = new Committer();
    try (SchedulerClient master = new SchedulerClient(masterAddress, secret, workerId, connectMs, retryMs);
        SchedulerClient master2 = new SchedulerClient(masterAddress, secret, workerId, connectMs, retryMs);
        SchedulerClient master3 = new SchedulerClient(masterAddress, secret, workerId, connectMs, retryMs);
        NeighborSetClient pulls = new NeighborSetClient(master, secret, workerId, attempt, job.servers, job.k,
            batch, connectMs, serverWaitMs);
        NeighborSetClient pushes = new NeighborSetClient(master3, secret, workerId, attempt, job.servers, job.k,
            batch, connectMs, serverWaitMs)) {
      Thread prefetch = new Thread(() -> prefetchLoop(master2, fs, ready, ahead), "parsa-prefetch-" + workerId);
      prefetch.setDaemon(true);
      prefetch.start();
      // a first attempt's workers start beside the servers: the pull client waits for every server's address while
      // the first block loads, asking the master at most every 1 ms per worker (at least 100 ms), so that all workers
      // waiting at once ask about a thousand times a second at most; the push client's handshakes then run beside
      // the first block's pull and partitioning
      long serverPollMs = Math.max(100, job.workers);
      pulls.connectAll(serverPollMs);
      Thread connect = new Thread(() -> {
        try {
          pushes.connectAll(serverPollMs);
        } catch (IOException e) {
          LOG.debug("worker {}: early connection of the push client failed ({}); its first push connects", workerId,
              e.toString());
        }
      }, "parsa-connect-" + workerId);
      connect.setDaemon(true);
      connect.start();
      boolean waves = job.waveWidth > 0;
      // blocks put aside at the pull gate for a block of an earlier wave
      java.util.Deque<Loaded> deferred = new java.util.ArrayDeque<>();
      int t = 0;
      int finished = 0;
      try {
        while (true) {
          Loaded item = deferred.poll();
          if (item == null) {
            item = ready.poll(500, java.util.concurrent.TimeUnit.MILLISECONDS);
            if (item == null) {
              // nothing to do yet; a failed push must not leave us waiting for a block that never comes
              committer.checkError();
              continue;
            }
            if (item == END) {
              if (prefetchError != null) {
                throw prefetchError;
              }
              break;
            }
            ahead.release();
          }
          if (waves && item.task.getStage() == 1) {
            item = awaitPullGate(master, item, ready, ahead, deferred, committer);
            if (item == null) {
              continue; // released: the master has queued the block again
            }
          }
          t++;
          boolean hangAfterPush = testHang && testHangAfterPush && finished == testHangAfter;
          if (testHang && !testHangAfterPush && finished == testHangAfter) {
            LOG.warn("test hook: worker {} stops making progress, holding task {}", workerId, item.task.getTaskId());
            Thread.sleep(Long.MAX_VALUE);
          }
          Task task = item.task;
          boolean stage0 = task.getStage() == 0;
          // Algorithm 4 line 4: wait until all own pushes before t - τ are done (stage 0: all of them). In a wave
          // run the pull gate has waited for every block of the earlier waves.
          long mustHave = stage0 || job.maxDelay == 0 ? t - 1 : job.maxDelay < 0 || waves ? 0 : t - job.maxDelay - 1;
          committer.awaitDone(mustHave);
          long started = System.currentTimeMillis();
          BlockPartitioner.Prepared b = item.block;
          long[] keys = b.keys();
          // Snapshot before pulling: an entry is removed only after the servers applied it, so anything missing
          // from the snapshot is already in the pulled sets.
          java.util.List<PendingPushes.Entry> mineInFlight = pending.snapshot();
          boolean gated = waves && !stage0;
          // in waves the servers answer as they were when the block's wave began, whatever of it has pushed since; a
          // stage-0 block (they run one at a time) as they were when it began, even after its own push
          int wave = gated ? task.getBlockIndex() / job.waveWidth
              : waves ? NeighborSetClient.stage0Wave(task.getStage0Position()) : NeighborSetClient.NO_WAVE;
          // without waves a stage-0 push replaces its keys' sets; in waves it adds what its block did not pull
          boolean replace = stage0 && !waves;
          long[] membership = pulls.pull(keys, wave);
          PendingPushes.overlay(mineInFlight, keys, membership, wpk);
          long[] before = membership.clone();
          int known = LOG.isDebugEnabled() ? knownKeys(membership, keys.length, wpk) : -1;
          double[] loads = master.reserve(task.getTaskId(), b.numRows(), b.totalWeight());
          double[] loadsIn = loads.clone();
          int[] parts = b.partition(membership, loads);
          double[] delta = new double[job.k];
          for (int i = 0; i < job.k; i++) {
            delta[i] = loads[i] - loadsIn[i];
          }
          long[] partRows = new long[job.k];
          for (int p : parts) {
            partRows[p]++;
          }
          if (!stage0) {
            long[] ids = new long[b.numRows()];
            for (int r = 0; r < ids.length; r++) {
              ids[r] = b.rowId(r);
            }
            AssignmentFiles.write(fs, uDir, task.getBlockIndex(), task.getTaskId(), ids, parts);
          }
          long[][] push = nonZero(keys, membership, replace ? null : before, wpk);
          long millis = System.currentTimeMillis() - started;
          final int seqNo = t;
          // memory backpressure: with an unbounded τ the pushes in flight would otherwise grow without limit when
          // the servers are slower than this worker (seen at 3·10^8 non-zeros: out of memory)
          // (in a wave run a worker's pushes in flight are those of one wave, and one of them may wait at its gate
          // for a block this thread has still to pull)
          long pushBytes = 8L * (push[0].length + push[1].length);
          if (!gated) {
            committer.awaitBytesBelow(pushBudget - pushBytes);
          }
          PendingPushes.Entry mine = stage0 || gated ? null : pending.add(push[0], push[1]);
          int rows = b.numRows();
          long edges = b.edges();
          long taskId = task.getTaskId();
          committer.submit(seqNo, pushBytes, () -> {
            if (gated) {
              awaitPushGate(master3, taskId);
            }
            pushes.push(push[0], push[1], replace, wave);
            if (hangAfterPush) {
              LOG.warn("test hook: worker {} stops making progress after pushing task {}", workerId, taskId);
              testPushed.countDown();
              try {
                Thread.sleep(Long.MAX_VALUE);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("test hook: hung worker stopped");
              }
            }
            pending.remove(mine);
            master3.taskDone(taskId, rows, edges, delta, partRows, millis);
          });
          finished++;
          if (hangAfterPush) {
            testPushed.await();
            Thread.sleep(Long.MAX_VALUE);
          }
          if (LOG.isDebugEnabled()) {
            LOG.debug("worker {}: block {} (stage {}) done: {} rows, {} keys ({} already in S), pushed {} keys, "
                + "starting loads {}, {} ms (+{} ms load)", workerId, task.getBlockIndex(), task.getStage(),
                b.numRows(), keys.length, known, push[0].length, java.util.Arrays.toString(loadsIn), millis,
                item.loadMillis);
          }
          if (testDelayMs > 0) {
            Thread.sleep(testDelayMs);
          }
          if (hook != null) {
            if (!gated) {
              // (a gated push may wait for this thread's next block)
              committer.awaitDone(seqNo);
            }
            hook.afterBlock(workerId, finished);
          }
        }
        committer.awaitDone(t);
      } finally {
        prefetch.interrupt();
        committer.shutdown();
      }
      LOG.info("worker {}: finished after {} blocks", workerId, finished);
    }
  }

  private volatile IOException prefetchError;

  /**
   * Waits until {@code item}'s block may pull. A block of an earlier wave that the prefetcher loads meanwhile goes
   * first (the gate may be waiting for it), and {@code item} waits in {@code deferred}; returns the block to run,
   * or null when the master released it (the gate waits for a block no worker runs, which this worker's
   * prefetcher may now fetch).
   */
  private Loaded awaitPullGate(SchedulerClient master, Loaded item, BlockingQueue<Loaded> ready, Semaphore ahead,
      java.util.Deque<Loaded> deferred, Committer committer) throws IOException, InterruptedException {
    long sleep = 1;
    GateAnswer a;
    while ((a = master.passGate(item.task.getTaskId(), Gate.PULL)) != GateAnswer.PASS) {
      if (a == GateAnswer.RELEASE) {
        LOG.info("worker {}: block {} released at its pull gate, which waits for a block no worker runs", workerId,
            item.task.getBlockIndex());
        return null;
      }
      committer.checkError();
      Loaded other = ready.peek();
      if (other != null && other != END && other.task.getBlockIndex() < item.task.getBlockIndex()) {
        ready.take();
        ahead.release();
        LOG.info("worker {}: block {} runs before block {}, which waits for it", workerId,
            other.task.getBlockIndex(), item.task.getBlockIndex());
        deferred.push(item);
        item = other;
        sleep = 1;
        continue;
      }
      Sleeper.sleep(sleep);
      sleep = Math.min(gatePollMaxMs(), sleep * 2);
    }
    return item;
  }

  /** Asks the master until the task may push, waiting a little longer each time (see {@link #gatePollMaxMs}). */
  private void awaitPushGate(SchedulerClient master, long taskId) throws IOException {
    long sleep = 1;
    while (master.passGate(taskId, Gate.PUSH) != GateAnswer.PASS) {
      Sleeper.sleep(sleep);
      sleep = Math.min(gatePollMaxMs(), sleep * 2);
    }
  }

  /**
   * Bytes of pushes a worker keeps in flight (sent or queued, not yet acknowledged) before it waits for the servers:
   * {@link ParsaYarnConfig#WORKER_PUSH_BUFFER}, default a fifth of the heap.
   */
  static long pushBufferBytes(Configuration conf) {
    long bytes = conf.getLongBytes(ParsaYarnConfig.WORKER_PUSH_BUFFER, -1);
    return bytes > 0 ? bytes : Math.max(16L << 20, Runtime.getRuntime().maxMemory() / 5);
  }

  private void prefetchLoop(SchedulerClient master, FileSystem fs, BlockingQueue<Loaded> ready, Semaphore ahead) {
    try {
      while (true) {
        ahead.acquire();
        Task task = master.nextTask();
        while (task.getKind() == TaskKind.WAIT) {
          Sleeper.sleep(Math.max(10, task.getWaitMs()));
          task = master.nextTask();
        }
        if (task.getKind() == TaskKind.STOP) {
          ready.put(END);
          return;
        }
        long t0 = System.currentTimeMillis();
        int b = task.getBlockIndex();
        BlockData data = BlockFiles.read(fs, new Path(task.getBlockPath()), countOf(job.rowsPerBlock, b),
            countOf(job.nonZerosPerBlock, b));
        BlockPartitioner.Prepared prepared = partitioner.prepare(data);
        ready.put(new Loaded(task, prepared, System.currentTimeMillis() - t0));
      }
    } catch (InterruptedException | InterruptedIOException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      prefetchError = e instanceof IOException ? (IOException) e : new IOException(e.toString(), e);
      LOG.error("worker {}: prefetch failed", workerId, e);
      try {
        ready.put(END);
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Ingest's count for block {@code b} from the job spec, -1 where the spec has none. */
  private static long countOf(java.util.List<Long> perBlock, int b) {
    return perBlock != null && b < perBlock.size() ? perBlock.get(b) : -1;
  }

  /** How many of the block's keys some S_i already holds (for the debug log). */
  private static int knownKeys(long[] membership, int numKeys, int wpk) {
    int known = 0;
    for (int j = 0; j < numKeys; j++) {
      for (int w = 0; w < wpk; w++) {
        if (membership[j * wpk + w] != 0) {
          known++;
          break;
        }
      }
    }
    return known;
  }

  /** Keys whose words are non-zero in {@code after & ~before} (before null: in {@code after}), with those words. */
  static long[][] nonZero(long[] keys, long[] after, long[] before, int wpk) {
    int n = 0;
    long[] ks = new long[keys.length];
    long[] bits = new long[keys.length * wpk];
    for (int j = 0; j < keys.length; j++) {
      boolean any = false;
      for (int w = 0; w < wpk; w++) {
        long d = before == null ? after[j * wpk + w] : after[j * wpk + w] & ~before[j * wpk + w];
        bits[n * wpk + w] = d;
        any |= d != 0;
      }
      if (any) {
        ks[n++] = keys[j];
      }
    }
    return new long[][] {java.util.Arrays.copyOf(ks, n), java.util.Arrays.copyOf(bits, n * wpk)};
  }

  /** Runs pushes and done-reports in order on one thread; tracks the highest block number completed. */
  private final class Committer {
    private final ExecutorService exec = Executors.newSingleThreadExecutor(r -> {
      Thread th = new Thread(r, "parsa-committer-" + workerId);
      th.setDaemon(true);
      return th;
    });
    private long completed;
    private long inFlightBytes;
    private IOException error;

    interface Job {
      void run() throws IOException;
    }

    void submit(long seqNo, long bytes, Job j) {
      synchronized (this) {
        inFlightBytes += bytes;
      }
      exec.execute(() -> {
        try {
          j.run();
          synchronized (this) {
            completed = seqNo;
            inFlightBytes -= bytes;
            notifyAll();
          }
        } catch (IOException | RuntimeException e) {
          synchronized (this) {
            error = e instanceof IOException ? (IOException) e : new IOException(e.toString(), e);
            notifyAll();
          }
        }
      });
    }

    synchronized void checkError() throws IOException {
      if (error != null) {
        throw new IOException("worker " + workerId + ": push or report failed: " + error.getMessage(), error);
      }
    }

    synchronized void awaitDone(long seqNo) throws IOException, InterruptedException {
      while (completed < seqNo && error == null) {
        wait(1000);
      }
      if (error != null) {
        throw new IOException("worker " + workerId + ": push or report failed: " + error.getMessage(), error);
      }
    }

    /** Waits until the pushes in flight take at most {@code bytes} (returns at once when none is in flight). */
    synchronized void awaitBytesBelow(long bytes) throws IOException, InterruptedException {
      while (inFlightBytes > 0 && inFlightBytes > bytes && error == null) {
        wait(1000);
      }
      checkError();
    }

    void shutdown() {
      exec.shutdownNow();
    }
  }
}
