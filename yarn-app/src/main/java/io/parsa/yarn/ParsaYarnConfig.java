package io.parsa.yarn;

import org.apache.hadoop.conf.Configuration;

/**
 * Every configuration key of partition-u, declared once beside its default, unit and meaning. Keys follow
 * {@code parsa.<component>.<name>[.<unit>]}; command-line options of {@code partition-u} override them.
 */
public final class ParsaYarnConfig {

  private ParsaYarnConfig() {}

  /** Memory of the application master container, MiB. */
  public static final String AM_MEMORY_MB = "parsa.am.memory.mb";
  public static final int DEFAULT_AM_MEMORY_MB = 1024;
  /** Virtual cores of the application master container. */
  public static final String AM_VCORES = "parsa.am.vcores";
  public static final int DEFAULT_AM_VCORES = 1;
  /** Memory of each worker container, MiB. */
  public static final String WORKER_MEMORY_MB = "parsa.worker.memory.mb";
  public static final int DEFAULT_WORKER_MEMORY_MB = 1024;
  /** Virtual cores of each worker container. */
  public static final String WORKER_VCORES = "parsa.worker.vcores";
  public static final int DEFAULT_WORKER_VCORES = 1;
  /** Memory of each neighbor-set server container, MiB. */
  public static final String SERVER_MEMORY_MB = "parsa.server.memory.mb";
  public static final int DEFAULT_SERVER_MEMORY_MB = 1024;
  /** Virtual cores of each neighbor-set server container. */
  public static final String SERVER_VCORES = "parsa.server.vcores";
  public static final int DEFAULT_SERVER_VCORES = 1;
  /** Fraction of a container's memory given to the JVM heap. */
  public static final String HEAP_FRACTION = "parsa.container.heap.fraction";
  public static final float DEFAULT_HEAP_FRACTION = 0.75f;
  /** YARN queue of the application. */
  public static final String QUEUE = "parsa.yarn.queue";
  public static final String DEFAULT_QUEUE = "default";

  /** Largest number of keys a server accepts in one pull or push; larger requests are rejected. */
  public static final String SERVER_MAX_KEYS = "parsa.server.max.keys";
  public static final int DEFAULT_SERVER_MAX_KEYS = 1 << 20;
  /** Period between automatic server checkpoints, ms (0 = only at stage ends). */
  public static final String SERVER_CHECKPOINT_INTERVAL_MS = "parsa.server.checkpoint.interval.ms";
  public static final long DEFAULT_SERVER_CHECKPOINT_INTERVAL_MS = 30_000L;
  /**
   * log2 of the number of hash sub-maps per server shard (each with its own index, word array and lock; a
   * snapshot copies one at a time). 8 = 256 sub-maps: no per-shard key limit below 3.4·10^10 keys for k <= 1024.
   */
  public static final String SERVER_SUBMAP_BITS = "parsa.server.submap.bits";
  public static final int DEFAULT_SERVER_SUBMAP_BITS = 8;
  /**
   * How long a worker (or the master) waits for a neighbor-set server that is unreachable or restarting, ms:
   * it polls the master's registry for the server's new address and re-sends the unacknowledged request. Much
   * longer than any RPC timeout on purpose: a slow server restart must not fail workers.
   */
  public static final String WORKER_SERVER_WAIT_MS = "parsa.worker.server.wait.ms";
  public static final long DEFAULT_WORKER_SERVER_WAIT_MS = 1_800_000L;
  /**
   * A worker that holds a block and has shown no progress (block hand-out, reserve, done report or server
   * lookup) for this long is declared hung: its container is killed, its blocks go back to the queue and a
   * replacement is launched (counted as a failure), ms. 0 = never.
   */
  public static final String AM_LIVENESS_TIMEOUT_MS = "parsa.am.liveness.timeout.ms";
  public static final long DEFAULT_AM_LIVENESS_TIMEOUT_MS = 600_000L;
  /**
   * A registered server that does not answer the master's ping, or answers that one push has been running for
   * longer than this, is declared hung: its container is killed and it restarts from its snapshot and log, ms.
   * Shorter than {@link #AM_LIVENESS_TIMEOUT_MS} on purpose, so that a worker blocked on a stuck server is
   * rescued by the server's restart before it could be taken for hung itself. 0 = never.
   */
  public static final String AM_SERVER_LIVENESS_TIMEOUT_MS = "parsa.am.server.liveness.timeout.ms";
  public static final long DEFAULT_AM_SERVER_LIVENESS_TIMEOUT_MS = 300_000L;
  /**
   * Worker failures are counted over a sliding window of this length; the run fails when more than
   * {@code --max-worker-failures} fall into one window, ms. 0 = count every failure of the run.
   */
  public static final String AM_FAILURES_WINDOW_MS = "parsa.am.failures.window.ms";
  public static final long DEFAULT_AM_FAILURES_WINDOW_MS = 3_600_000L;
  /**
   * Bytes of pushes a worker keeps in flight (not yet acknowledged by the servers) before it waits, with Hadoop's
   * size suffixes ("256m"); unset or &lt;= 0: a fifth of the worker's heap. Bounds a worker's memory when τ is
   * unbounded and the servers fall behind.
   */
  public static final String WORKER_PUSH_BUFFER = "parsa.worker.push.buffer";
  /**
   * The collector of the product's JVMs on a cluster (partition-u's containers; the steps' MapReduce tasks, through
   * {@code TaskJvm}): the parallel one, which compacts the whole heap. G1 never moves the large arrays they hold, and
   * has failed with half its heap free (docs/benchmarks-yarn.md; docs/quality.md §49).
   */
  public static final String COLLECTOR = "-XX:+UseParallelGC";
  /** Extra JVM options of worker and server containers (default: the parallel collector the sizes were measured with). */
  public static final String CONTAINER_JAVA_OPTS = "parsa.container.java.opts";
  public static final String DEFAULT_CONTAINER_JAVA_OPTS = COLLECTOR;
  /** Keys per pull/push request sent by a worker (batches stay below the server's limit). */
  public static final String WORKER_RPC_BATCH_KEYS = "parsa.worker.rpc.batch.keys";
  public static final int DEFAULT_WORKER_RPC_BATCH_KEYS = 1 << 16;
  /** How long a container keeps retrying an unreachable master before giving up, ms (servers: see below). */
  public static final String WORKER_RPC_RETRY_MS = "parsa.worker.rpc.retry.ms";
  public static final long DEFAULT_WORKER_RPC_RETRY_MS = 120_000L;
  /** Connect timeout of every RPC client, ms. */
  public static final String RPC_CONNECT_TIMEOUT_MS = "parsa.rpc.connect.timeout.ms";
  public static final int DEFAULT_RPC_CONNECT_TIMEOUT_MS = 10_000;
  /** How long the master waits for all servers to register, ms. */
  public static final String AM_SERVER_START_TIMEOUT_MS = "parsa.am.server.start.timeout.ms";
  public static final long DEFAULT_AM_SERVER_START_TIMEOUT_MS = 300_000L;
  /**
   * Wait suggested to a worker when no block is available yet, ms (default {@link #amWaitMs}: 1 ms per worker, at
   * least 20, so that all workers waiting at once ask about a thousand times a second at most).
   */
  public static final String AM_WAIT_MS = "parsa.am.wait.ms";

  /** {@link #AM_WAIT_MS}, or by default 1 ms per worker and at least 20 ms. */
  public static int amWaitMs(Configuration conf, int workers) {
    return conf.getInt(AM_WAIT_MS, Math.max(20, workers));
  }
  /** Period of the client's progress line and of the master's progress file, ms. */
  public static final String PROGRESS_INTERVAL_MS = "parsa.progress.interval.ms";
  public static final long DEFAULT_PROGRESS_INTERVAL_MS = 2_000L;
  /**
   * Application attempts: a master container that dies is started again by the ResourceManager (capped by
   * {@code yarn.resourcemanager.am.max-attempts}); the new master keeps every finished block.
   */
  public static final String AM_MAX_ATTEMPTS = "parsa.am.max.attempts";
  public static final int DEFAULT_AM_MAX_ATTEMPTS = 2;
  /**
   * Least time between two writes of the master's ledger of finished blocks (in the checkpoint directory), ms; a
   * restarted master keeps the blocks of the last ledger written and runs the others again.
   */
  public static final String AM_LEDGER_INTERVAL_MS = "parsa.am.ledger.interval.ms";
  public static final long DEFAULT_AM_LEDGER_INTERVAL_MS = 1_000L;
  /**
   * Refuse, before submitting, a run whose containers cannot fit: larger than the cluster's largest allocation, or
   * a heap below the estimate from the blocks' statistics (see client.Sizing). false = submit anyway.
   */
  public static final String SIZING_CHECK = "parsa.sizing.check";
  public static final boolean DEFAULT_SIZING_CHECK = true;
  /** Staging directory root on the cluster file system (default: home directory /.parsa-staging). */
  public static final String STAGING_DIR = "parsa.yarn.staging.dir";

  /** Test hook: a worker with this id exits abruptly (status 137) after finishing this many blocks; -1 = never. */
  public static final String TEST_CRASH_WORKER_ID = "parsa.test.crash.worker.id";
  public static final String TEST_CRASH_AFTER_BLOCKS = "parsa.test.crash.after.blocks";

  /** Test hook: each worker sleeps this long after every block (to make a run long enough to kill parts of it). */
  public static final String TEST_WORKER_BLOCK_DELAY_MS = "parsa.test.worker.block.delay.ms";

  /** Test hook (embedded mode): a worker launched to replace another waits this long before it starts, ms. */
  public static final String TEST_WORKER_REPLACEMENT_DELAY_MS = "parsa.test.worker.replacement.delay.ms";

  /** Test hook: the server with this id fails as if it crashed once it has applied this many pushes. */
  public static final String TEST_CRASH_SERVER_ID = "parsa.test.crash.server.id";
  public static final String TEST_CRASH_SERVER_AFTER_PUSHES = "parsa.test.crash.server.after.pushes";
  /** Test hook: a server that restored state (a restart) waits this long before serving and registering, ms. */
  public static final String TEST_SERVER_RESTART_DELAY_MS = "parsa.test.server.restart.delay.ms";
  /** Test hook: the worker with this id stops making progress (holding its block) after this many blocks. */
  public static final String TEST_HANG_WORKER_ID = "parsa.test.hang.worker.id";
  public static final String TEST_HANG_AFTER_BLOCKS = "parsa.test.hang.after.blocks";
  /** Test hook: the hung worker first partitions its next block and pushes it, then hangs before reporting it done. */
  public static final String TEST_HANG_AFTER_PUSH = "parsa.test.hang.after.push";
  /** Test hook: the server with this id hangs inside a push (holding its push lock) after this many pushes. */
  public static final String TEST_HANG_SERVER_ID = "parsa.test.hang.server.id";
  public static final String TEST_HANG_SERVER_AFTER_PUSHES = "parsa.test.hang.server.after.pushes";

  public static int amMemoryMb(Configuration c) {
    return c.getInt(AM_MEMORY_MB, DEFAULT_AM_MEMORY_MB);
  }

  public static int workerMemoryMb(Configuration c) {
    return c.getInt(WORKER_MEMORY_MB, DEFAULT_WORKER_MEMORY_MB);
  }

  public static int serverMemoryMb(Configuration c) {
    return c.getInt(SERVER_MEMORY_MB, DEFAULT_SERVER_MEMORY_MB);
  }

  /** JVM heap for a container of {@code memoryMb}, MiB. */
  public static int heapMb(Configuration c, int memoryMb) {
    return Math.max(64, (int) (memoryMb * c.getFloat(HEAP_FRACTION, DEFAULT_HEAP_FRACTION)));
  }
}
