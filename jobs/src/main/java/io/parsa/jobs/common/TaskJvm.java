package io.parsa.jobs.common;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.parsa.yarn.ParsaYarnConfig;
import java.lang.management.ManagementFactory;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;

/**
 * The garbage collector of the steps' MapReduce task JVMs on a cluster: the parallel collector, as partition-u's
 * containers run, unless the job's or the cluster's task options already name one.
 *
 * <p>Why: the tasks hold large primitive arrays (a block's keys, its keys' part counts). G1 places every array above
 * half a region (512 KiB in a 410 MiB heap) in contiguous regions of its own and, in JDK 17, never moves them, not
 * even in a full collection; a task that frees one block's arrays and reads the next can then fail with half of its
 * heap free. That is how refine-u's chunk task at 3·10^7 non-zeros ran out of heap: "Pause Full (G1 Compaction Pause)
 * 201M->200M(410M)", then {@code OutOfMemoryError} allocating a 60 MB array (docs/quality.md §49). The parallel
 * collector compacts the whole heap.
 *
 * <p>Options the user or the site set are kept: the flag is appended to {@code mapreduce.map.java.opts} and
 * {@code mapreduce.reduce.java.opts} as Hadoop resolves them (so an {@code -Xmx} there stays, and without one Hadoop
 * still derives the heap from the container size), and nothing is added where those or the administrator's task
 * options ({@code mapreduce.admin.*.child.java.opts}) choose a collector (two collectors would stop every task's
 * JVM). A user picks another collector with {@code -D mapreduce.reduce.java.opts=-XX:+UseG1GC}. The local runner's
 * tasks run in the client's JVM and are not touched.
 *
 * <p>And the heap a task decides by ({@link #configuredHeap}): what it may plan in, and whether its data fit.
 */
public final class TaskJvm {

  /** The collector the task JVMs get: the one partition-u's containers run. */
  public static final String COLLECTOR = ParsaYarnConfig.COLLECTOR;

  private static final Pattern ANY_COLLECTOR = Pattern.compile("-XX:\\+Use\\w*GC\\b");

  private TaskJvm() {}

  /** Adds {@link #COLLECTOR} to the map and reduce tasks' JVM options of a cluster job built from {@code conf}. */
  public static void applyDefaults(Configuration conf) {
    if (LocalJobs.isLocal(conf)) {
      return;
    }
    for (String kind : new String[] {"map", "reduce"}) {
      String key = "mapreduce." + kind + ".java.opts";
      // Hadoop's own resolution (JobConf): the kind's options, else the generic child options
      String opts = conf.get(key, conf.get("mapred.child.java.opts", "")).trim();
      String admin = conf.get("mapreduce.admin." + kind + ".child.java.opts", "");
      if (ANY_COLLECTOR.matcher(opts).find() || ANY_COLLECTOR.matcher(admin).find()) {
        continue;
      }
      conf.set(key, opts.isEmpty() ? COLLECTOR : opts + " " + COLLECTOR);
    }
  }

  /**
   * This JVM's configured heap (-Xmx, HotSpot's MaxHeapSize), or {@link Runtime#maxMemory} where the JVM does not say.
   * A task decides by it whether its data fit and how to cut them, so that every attempt decides alike. Not
   * {@code maxMemory} itself: under the parallel collector that is the heap less a survivor space, which the collector
   * resizes as it runs (a 410 MiB task's read 388, 389 and 395 MiB in one job, docs/quality.md §50).
   */
  public static long configuredHeap() {
    try {
      return Long.parseLong(ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
          .getVMOption("MaxHeapSize").getValue());
    } catch (RuntimeException e) {
      return Runtime.getRuntime().maxMemory();
    }
  }

  /**
   * The heap a task decides by: the bytes {@code conf} sets under {@code key} where above 0 (for tasks that share a
   * JVM, as in the local runner, and for tests), else {@link #configuredHeap}.
   */
  public static long heap(Configuration conf, String key) {
    long set = conf.getLong(key, 0);
    return set > 0 ? set : configuredHeap();
  }
}
