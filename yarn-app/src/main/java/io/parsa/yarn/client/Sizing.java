package io.parsa.yarn.client;

import io.parsa.common.UsageException;
import io.parsa.yarn.ParsaYarnConfig;
import io.parsa.yarn.io.BlockStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;

/**
 * Container sizes and the number of servers for the input at hand, derived from ingest's statistics of the blocks
 * (distinct keys, rows and non-zeros per block) with per-unit costs measured on this code (docs/partition-u.md,
 * "Sizing"); and the refusal, before anything is submitted, of a configuration that cannot fit. Options given
 * explicitly win over the derived defaults, but are checked the same way.
 */
public final class Sizing {
  /** Server heap per key: index entry and slot (measured 28-35 bytes at k <= 64) plus ~11 bytes per bitset word. */
  static final double SERVER_BYTES_PER_KEY = 24;
  static final double SERVER_BYTES_PER_KEY_WORD = 11;
  /** Keys of one shard over the mean (the key hash spreads keys evenly; margin for the growth steps of tables). */
  static final double SERVER_SKEW = 1.10;
  /**
   * Share of a server's heap its shard may fill: the rest is room for the collector and for the table a sub-map
   * grows into while the old one is still live (measured at 3·10^8 non-zeros / 5.9·10^7 keys, k = 16: a server whose
   * heap just held the estimated 2.2 GB shard died of OutOfMemoryError four times).
   */
  static final double SERVER_LIVE_FRACTION = 0.7;
  /** Heap of a server beside its shard: JVM, Hadoop file system client, RPC and TLS buffers, push log. */
  static final long SERVER_FIXED_MB = 128;
  /**
   * Worker heap per non-zero of the largest block and per (key of that block, part): the smallest -Xmx with which
   * {@code WorkerFootprint} partitions a block while the next one is read and prepared (two blocks at most: the
   * prefetcher runs one block ahead) — 850 MB at k = 16 and 1,192 MB at k = 64 for a block of 8·10^6 non-zeros and
   * 7.0·10^6 keys, i.e. about 90 bytes per non-zero plus 1.1 bytes per key and part. A block's distinct keys are
   * estimated by its non-zeros (an upper bound).
   */
  static final double WORKER_BYTES_PER_NNZ = 90;
  static final double WORKER_BYTES_PER_KEY_PART = 1.2;
  static final long WORKER_FIXED_MB = 128;
  /** Share of a worker's heap its pushes in flight may take (the default of parsa.worker.push.buffer). */
  static final double WORKER_PUSH_SHARE = 0.2;
  /** Master heap: JVM, YARN and RPC clients; then the job description and scheduler state per block and worker. */
  static final long AM_FIXED_MB = 128;
  static final long AM_BYTES_PER_BLOCK = 2048;
  static final long AM_BYTES_PER_WORKER = 64 * 1024;
  /** Smallest container a derived default asks for, MiB. */
  static final int FLOOR_MB = 512;
  /** Largest server container the default number of servers aims at, MiB (capped by the cluster's maximum). */
  static final int SERVER_TARGET_MB = 8192;

  /** Heap needs (MiB) and chosen sizes for one run. */
  public static final class Plan {
    public int amMb;
    public int workerMb;
    public int serverMb;
    public int servers;
    /** Heap estimates, MiB; -1 when the blocks have no statistics. */
    public long amHeapNeedMb;
    public long workerHeapNeedMb = -1;
    public long serverHeapNeedMb = -1;
    /** One line per derived value, for the console. */
    public final List<String> notes = new ArrayList<>();
    boolean explicitAm;
    boolean explicitWorker;
    boolean explicitServer;
  }

  private Sizing() {}

  static long serverHeapMb(BlockStats st, int k, int servers) {
    int wpk = (k + 63) >>> 6;
    double perKey = SERVER_BYTES_PER_KEY + SERVER_BYTES_PER_KEY_WORD * wpk;
    double keys = Math.ceil(st.distinctKeys / (double) servers) * SERVER_SKEW;
    return SERVER_FIXED_MB + (long) Math.ceil(keys * perKey / SERVER_LIVE_FRACTION / (1 << 20));
  }

  static long workerHeapMb(BlockStats st, int k) {
    long nnz = Math.max(0, st.maxBlockNonZeros());
    long keys = st.distinctKeys > 0 ? Math.min(nnz, st.distinctKeys) : nnz;
    double blocksMb = WORKER_FIXED_MB + (nnz * WORKER_BYTES_PER_NNZ + keys * (double) k * WORKER_BYTES_PER_KEY_PART)
        / (1 << 20);
    return (long) Math.ceil(blocksMb / (1 - WORKER_PUSH_SHARE));
  }

  static long amHeapMb(int blocks, int workers) {
    return AM_FIXED_MB + (long) Math.ceil((blocks * (double) AM_BYTES_PER_BLOCK + workers * (double) AM_BYTES_PER_WORKER)
        / (1 << 20));
  }

  /** Container MiB whose heap (the configured fraction) holds {@code heapMb}, rounded up to 128 MiB, at least the floor. */
  static int containerFor(Configuration conf, long heapMb) {
    float f = conf.getFloat(ParsaYarnConfig.HEAP_FRACTION, ParsaYarnConfig.DEFAULT_HEAP_FRACTION);
    long mb = (long) Math.ceil(heapMb / f);
    mb = (mb + 127) / 128 * 128;
    return (int) Math.max(FLOOR_MB, Math.min(Integer.MAX_VALUE, mb));
  }

  /** {@code mb} rounded up to a multiple of the scheduler's minimum allocation, as YARN normalises requests. */
  public static long round(Configuration conf, long mb) {
    long min = Math.max(1, conf.getLong("yarn.scheduler.minimum-allocation-mb", 1024));
    return (mb + min - 1) / min * min;
  }

  /** Memory the plan holds at once: master, every server and {@code workers} workers, each rounded. */
  static long totalMb(Configuration conf, Plan p, int workers) {
    return round(conf, p.amMb) + p.servers * round(conf, p.serverMb) + workers * round(conf, p.workerMb);
  }

  /**
   * Chooses the sizes: explicit values in {@code conf} (the options) win; the others are derived from {@code st}
   * (or the fixed defaults without statistics). {@code servers} is the explicit number of servers, or -1.
   */
  public static Plan plan(Configuration conf, BlockStats st, int k, int workers, int servers, int blocks) {
    Plan p = new Plan();
    p.explicitAm = conf.get(ParsaYarnConfig.AM_MEMORY_MB) != null;
    p.explicitWorker = conf.get(ParsaYarnConfig.WORKER_MEMORY_MB) != null;
    p.explicitServer = conf.get(ParsaYarnConfig.SERVER_MEMORY_MB) != null;
    p.amHeapNeedMb = amHeapMb(blocks, workers);
    p.amMb = p.explicitAm ? ParsaYarnConfig.amMemoryMb(conf) : containerFor(conf, p.amHeapNeedMb);
    if (st == null) {
      p.servers = servers > 0 ? servers : 1;
      p.workerMb = ParsaYarnConfig.workerMemoryMb(conf);
      p.serverMb = ParsaYarnConfig.serverMemoryMb(conf);
      p.notes.add("no ingest statistics: fixed default container sizes");
      return p;
    }
    p.workerHeapNeedMb = workerHeapMb(st, k);
    p.workerMb = p.explicitWorker ? ParsaYarnConfig.workerMemoryMb(conf) : containerFor(conf, p.workerHeapNeedMb);
    if (servers > 0) {
      p.servers = servers;
    } else if (p.explicitServer) {
      // as many servers as the given server size needs
      long heap = ParsaYarnConfig.heapMb(conf, ParsaYarnConfig.serverMemoryMb(conf));
      p.servers = 1;
      while (serverHeapMb(st, k, p.servers) > heap && p.servers < 4096) {
        p.servers++;
      }
    } else {
      p.servers = 1;
      while (containerFor(conf, serverHeapMb(st, k, p.servers)) > SERVER_TARGET_MB && p.servers < 4096) {
        p.servers++;
      }
    }
    p.serverHeapNeedMb = serverHeapMb(st, k, p.servers);
    p.serverMb = p.explicitServer ? ParsaYarnConfig.serverMemoryMb(conf) : containerFor(conf, p.serverHeapNeedMb);
    p.notes.add(String.format(Locale.ROOT, "sized from the blocks' statistics (%,d distinct keys, largest block "
        + "%,d rows / %,d non-zeros, k = %d): %d server(s) of %d MB%s, workers of %d MB%s, master %d MB%s",
        st.distinctKeys, st.maxBlockRows(), st.maxBlockNonZeros(), k, p.servers, p.serverMb,
        p.explicitServer ? " (given)" : "", p.workerMb, p.explicitWorker ? " (given)" : "", p.amMb,
        p.explicitAm ? " (given)" : ""));
    return p;
  }

  /**
   * Refuses, with the numbers, a plan that cannot fit: a container above the cluster's largest allocation
   * ({@code maxAllocationMb}, -1 if unknown), or a heap below the estimated need. Skipped entirely with
   * {@code parsa.sizing.check=false}.
   */
  public static void check(Configuration conf, Plan p, BlockStats st, int k, long maxAllocationMb) {
    check(conf, p, st, k, maxAllocationMb, -1, -1);
  }

  /**
   * As {@link #check(Configuration, Plan, BlockStats, int, long)}, and also refuses a plan whose containers,
   * rounded up to {@code yarn.scheduler.minimum-allocation-mb} as the scheduler does, need more memory at once
   * (master + servers + {@code workers} workers) than the cluster's running NodeManagers offer in all
   * ({@code clusterMb}, -1 if unknown): such a run would wait for containers that never come.
   */
  public static void check(Configuration conf, Plan p, BlockStats st, int k, long maxAllocationMb, long clusterMb,
      int workers) {
    if (!conf.getBoolean(ParsaYarnConfig.SIZING_CHECK, ParsaYarnConfig.DEFAULT_SIZING_CHECK)) {
      return;
    }
    List<String> problems = new ArrayList<>();
    String skip = " (" + ParsaYarnConfig.SIZING_CHECK + "=false skips this check)";
    if (maxAllocationMb > 0) {
      for (Object[] c : new Object[][] {{"master", p.amMb, "--am-memory"}, {"worker", p.workerMb, "--worker-memory"},
          {"server", p.serverMb, "--server-memory"}}) {
        if ((int) c[1] > maxAllocationMb) {
          problems.add(String.format(Locale.ROOT, "a %s container of %d MB is larger than the cluster's largest "
              + "allocation, yarn.scheduler.maximum-allocation-mb = %d%s", c[0], c[1], maxAllocationMb,
              c[0].equals("server") ? "; use more --servers" : c[0].equals("worker")
                  ? "; ingest into more blocks (--blocks) so that one block needs less" : ""));
        }
      }
    }
    if (clusterMb > 0 && workers > 0) {
      long need = totalMb(conf, p, workers);
      if (need > clusterMb) {
        problems.add(String.format(Locale.ROOT, "the application needs %,d MB at once (master %d + %d server(s) x %d"
            + " + %d worker(s) x %d MB, rounded up to yarn.scheduler.minimum-allocation-mb) but the cluster's"
            + " NodeManagers offer %,d MB in all; use fewer --workers, a cluster with more memory, or ingest into more"
            + " blocks (--blocks) so that each worker needs less", need, round(conf, p.amMb), p.servers,
            round(conf, p.serverMb), workers, round(conf, p.workerMb), clusterMb));
      }
    }
    long amHeap = ParsaYarnConfig.heapMb(conf, p.amMb);
    if (amHeap < p.amHeapNeedMb) {
      problems.add(String.format(Locale.ROOT, "the master needs about %d MB of heap (%d MB + %d bytes per block), "
          + "--am-memory %d gives %d MB", p.amHeapNeedMb, AM_FIXED_MB, AM_BYTES_PER_BLOCK, p.amMb, amHeap));
    }
    if (st != null) {
      long wHeap = ParsaYarnConfig.heapMb(conf, p.workerMb);
      if (wHeap < p.workerHeapNeedMb) {
        problems.add(String.format(Locale.ROOT, "a worker holds two blocks (the one it partitions and the next) "
            + "and a fifth of its heap in pushes; the largest block has %,d rows and %,d non-zeros, about %d MB of heap at k = %d, but --worker-memory %d "
            + "gives %d MB", st.maxBlockRows(), st.maxBlockNonZeros(), p.workerHeapNeedMb, k, p.workerMb, wHeap));
      }
      long sHeap = ParsaYarnConfig.heapMb(conf, p.serverMb);
      if (sHeap < p.serverHeapNeedMb) {
        problems.add(String.format(Locale.ROOT, "each of %d server(s) holds about %,d of the %,d distinct keys, "
            + "about %d MB of heap at k = %d, but --server-memory %d gives %d MB; use more --servers or more memory",
            p.servers, (long) Math.ceil(st.distinctKeys / (double) p.servers), st.distinctKeys, p.serverHeapNeedMb,
            k, p.serverMb, sHeap));
      }
    }
    if (!problems.isEmpty()) {
      throw new UsageException("partition-u cannot fit: " + String.join("; ", problems) + skip);
    }
  }
}
