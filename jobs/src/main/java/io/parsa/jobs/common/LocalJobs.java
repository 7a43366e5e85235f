package io.parsa.jobs.common;

import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Defaults for MapReduce jobs run by Hadoop's LocalJobRunner (the embedded mode): use the machine's cores for
 * parallel map and reduce tasks, and share the heap between concurrent reducers. Values the user set with
 * {@code -D} are never changed; on a cluster nothing is touched.
 */
public final class LocalJobs {

  private static final Logger LOG = LoggerFactory.getLogger(LocalJobs.class);

  public static final String FRAMEWORK = "mapreduce.framework.name";
  public static final String LOCAL_MAPS = "mapreduce.local.map.tasks.maximum";
  public static final String LOCAL_REDUCES = "mapreduce.local.reduce.tasks.maximum";
  public static final String SHUFFLE_BUFFER = "mapreduce.reduce.shuffle.input.buffer.percent";
  /** Per-map sort buffer: Hadoop's 100 MiB, allocated by every concurrent local map, is made for clusters. */
  public static final String SORT_MB = "mapreduce.task.io.sort.mb";
  public static final int LOCAL_SORT_MB = 32;
  /** How often Job.waitForCompletion checks for the end (Hadoop's default, 5 s, is most of a small local job). */
  public static final String COMPLETION_POLL = "mapreduce.client.completion.pollinterval";
  public static final int LOCAL_COMPLETION_POLL_MS = 50;
  /** Most parallel local tasks used by default (each map holds a sort buffer of mapreduce.task.io.sort.mb). */
  public static final int MAX_DEFAULT_PARALLELISM = 4;

  private LocalJobs() {}

  /** True if jobs built from {@code conf} run in the LocalJobRunner. */
  public static boolean isLocal(Configuration conf) {
    return "local".equals(conf.get(FRAMEWORK, "local"));
  }

  /**
   * True if {@code key} was set by the user or a site file, not only by Hadoop's bundled
   * {@code *-default.xml} (whose values {@code conf.get} also returns).
   */
  public static boolean isUserSet(Configuration conf, String key) {
    if (conf.get(key) == null) {
      return false;
    }
    String[] sources = conf.getPropertySources(key);
    if (sources == null) {
      return true;
    }
    for (String s : sources) {
      if (!s.endsWith("-default.xml")) {
        return true;
      }
    }
    return false;
  }

  /** Applies the local-mode defaults to {@code conf} if it describes a local run. */
  public static void applyDefaults(Configuration conf) {
    if (!isLocal(conf)) {
      return;
    }
    int cores = Math.max(1, Math.min(MAX_DEFAULT_PARALLELISM, Runtime.getRuntime().availableProcessors()));
    if (!isUserSet(conf, SORT_MB)) {
      conf.setInt(SORT_MB, LOCAL_SORT_MB);
    }
    if (!isUserSet(conf, LOCAL_MAPS)) {
      conf.setInt(LOCAL_MAPS, cores);
    }
    if (!isUserSet(conf, LOCAL_REDUCES)) {
      conf.setInt(LOCAL_REDUCES, cores);
    }
    if (!isUserSet(conf, SHUFFLE_BUFFER)) {
      // every local reducer sizes its in-memory merge as a share of the same JVM heap
      conf.setFloat(SHUFFLE_BUFFER, 0.6f / conf.getInt(LOCAL_REDUCES, 1));
    }
    if (!isUserSet(conf, COMPLETION_POLL)) {
      conf.setInt(COMPLETION_POLL, LOCAL_COMPLETION_POLL_MS);
    }
    LOG.debug("local mode: {} parallel maps, {} parallel reduces", conf.get(LOCAL_MAPS), conf.get(LOCAL_REDUCES));
  }
}
