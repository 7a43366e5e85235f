package io.parsa.jobs.mr;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.WeakHashMap;
import io.parsa.common.ConsoleLog;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.specific.SpecificDatumReader;
import io.parsa.jobs.common.LocalJobs;
import io.parsa.jobs.common.TaskJvm;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Counter;
import org.apache.hadoop.mapreduce.CounterGroup;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormatCounter;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.security.TokenCache;
import org.apache.hadoop.mapreduce.TaskCompletionEvent;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Small helpers every MapReduce step uses: run a job, read counters, check them, read small Avro outputs. */
public final class Jobs {

  private static final Logger LOG = LoggerFactory.getLogger(Jobs.class);

  /** Client poll interval while waiting for a job (int, milliseconds). */
  public static final String POLL_MS = "parsa.mr.poll.ms";
  public static final int POLL_MS_DEFAULT = 200;

  /** Least time between two progress lines of a running job (long, milliseconds). */
  public static final String PROGRESS_MS = "parsa.mr.progress.interval.ms";
  public static final long PROGRESS_MS_DEFAULT = 3000;

  private Jobs() {}

  /** A job named "parsa &lt;step&gt;: &lt;what&gt;" with the job jar found from {@code jarClass}. */
  public static Job newJob(Configuration conf, String step, String what, Class<?> jarClass) throws IOException {
    Job job = Job.getInstance(new Configuration(conf), "parsa " + step + ": " + what);
    // the 5 s default completion poll dominates small jobs (and every local-mode run); 200 ms costs nothing
    job.getConfiguration().setInt(Job.COMPLETION_POLL_INTERVAL_KEY,
        conf.getInt(POLL_MS, POLL_MS_DEFAULT));
    applyDefaults(job.getConfiguration());
    job.setJarByClass(jarClass);
    return job;
  }

  /**
   * The defaults every step's jobs get, for a configuration jobs are built from: the local runner's
   * ({@link LocalJobs}) or, on a cluster, the tasks' collector ({@link TaskJvm}). Values the user set are kept.
   */
  public static void applyDefaults(Configuration conf) {
    LocalJobs.applyDefaults(conf);
    TaskJvm.applyDefaults(conf);
  }

  /**
   * Declares files the job's tasks open themselves (side inputs, not input splits): on a Kerberos-secured cluster
   * the tasks have no credentials of their own, so the client obtains a delegation token for each file system
   * named here, as it does for the input and output paths. A no-op without security.
   */
  public static void readsInTasks(Job job, Path... paths) throws IOException {
    TokenCache.obtainTokensForNamenodes(job.getCredentials(), paths, job.getConfiguration());
  }

  /** Runs the job to completion; throws if it failed (a failed MR job is not a consistency question). */
  public static void run(Job job) throws IOException, InterruptedException, ClassNotFoundException {
    if (!monitor(job)) {
      throw new IOException("job '" + job.getJobName() + "' failed: " + job.getStatus().getFailureInfo()
          + ConsoleLog.logHint());
    }
  }

  /**
   * Submits the job (unless it was) and waits for it as Hadoop's own job client does, but readably: the tracking
   * URL on a cluster, map/reduce progress at most every {@value #PROGRESS_MS_DEFAULT} ms
   * ({@link #PROGRESS_MS}) while it runs, each failed task attempt with the first line of its error (all of it
   * with {@code --verbose}), and one summary line at the end (time, records, bytes, the step's own counters).
   * Returns whether the job succeeded.
   */
  public static boolean monitor(Job job) throws IOException, InterruptedException, ClassNotFoundException {
    Configuration conf = job.getConfiguration();
    if (job.getJobID() == null) {
      job.submit();
    }
    long t0 = System.nanoTime();
    boolean local = LocalJobs.isLocal(conf);
    if (!local) {
      LOG.info("{}: {} submitted; tracking URL {} (task logs: yarn logs -applicationId {})", job.getJobName(),
          job.getJobID(), job.getTrackingURL(), job.getJobID().toString().replaceFirst("^job_", "application_"));
    }
    boolean verbose = conf.getBoolean(ConsoleLog.VERBOSE, false);
    Progress progress = new Progress(job.getJobName(), conf.getLong(PROGRESS_MS, PROGRESS_MS_DEFAULT));
    int poll = Math.max(10, conf.getInt(POLL_MS, POLL_MS_DEFAULT));
    int events = 0;
    while (!job.isComplete()) {
      Thread.sleep(poll);
      long elapsedMs = (System.nanoTime() - t0) / 1_000_000;
      String line = progress.update(job.mapProgress(), job.getNumReduceTasks() == 0 ? -1 : job.reduceProgress(),
          elapsedMs);
      if (line != null) {
        LOG.info(line);
        events = reportFailedAttempts(job, events, verbose);
      }
    }
    reportFailedAttempts(job, events, verbose);
    boolean ok = job.isSuccessful();
    double secs = (System.nanoTime() - t0) / 1e9;
    if (ok) {
      Counters counters = job.getCounters();
      if (counters != null) {
        FINAL_COUNTERS.put(job, counters);
      }
      LOG.info(summary(job.getJobName(), secs, counters, job.getNumReduceTasks() == 0));
    } else {
      LOG.warn("{}: FAILED after {} s ({})", job.getJobName(), String.format("%.1f", secs),
          job.getStatus().getFailureInfo());
    }
    return ok;
  }

  /** Prints the task attempts that failed since event {@code from}; returns the next event index. */
  private static int reportFailedAttempts(Job job, int from, boolean verbose) throws IOException,
      InterruptedException {
    if (LocalJobs.isLocal(job.getConfiguration())) {
      return from; // the LocalJobRunner has no attempt events; a failing local task fails the job itself
    }
    int next = from;
    TaskCompletionEvent[] ev;
    while ((ev = job.getTaskCompletionEvents(next, 100)).length > 0) {
      for (TaskCompletionEvent e : ev) {
        if (e.getStatus() == TaskCompletionEvent.Status.FAILED) {
          String[] diag = job.getTaskDiagnostics(e.getTaskAttemptId());
          String first = diag == null || diag.length == 0 ? "no diagnostics" : diag[0];
          if (!verbose) {
            int nl = first.indexOf('\n');
            first = nl < 0 ? first : first.substring(0, nl);
          }
          LOG.warn("{}: task attempt {} failed: {}{}", job.getJobName(), e.getTaskAttemptId(), first,
              memoryHint(first, e.isMapTask()));
        }
      }
      next += ev.length;
    }
    return next;
  }

  /**
   * What to do when a task ran out of memory ({@code ""} for any other failure): the task's memory settings, and
   * why a task may need more than the defaults (very long input lines: a row with millions of non-zeros is one line
   * of tens of megabytes, held whole by Hadoop's line reader).
   */
  static String memoryHint(String diagnostics, boolean map) {
    if (diagnostics == null || !(diagnostics.contains("Java heap space") || diagnostics.contains("OutOfMemoryError")
        || diagnostics.contains("GC overhead limit"))) {
      return "";
    }
    String kind = map ? "map" : "reduce";
    return " (the " + kind + " task ran out of memory: give it more with -D mapreduce." + kind + ".memory.mb=MB and"
        + " -D mapreduce." + kind + ".java.opts=-Xmx<0.8 x MB>m before the step's options; rows with millions of"
        + " non-zeros are input lines of tens of MB that a task holds whole)";
  }

  /** Throttled progress lines of one job ("name: map 45% reduce 0% (12 s)"). */
  static final class Progress {
    private final String name;
    private final long intervalMs;
    private long lastPrintMs;
    private String last = "";
    private float mapSeen;
    private static final long STILL_MS = 30_000;
    private float reduceSeen;

    Progress(String name, long intervalMs) {
      this.name = name;
      this.intervalMs = intervalMs;
    }

    /**
     * The line to print for this progress at {@code elapsedMs} since the start, or null: nothing is printed
     * before the first interval (short jobs print only their summary), nor more than once an interval, nor when
     * nothing moved. {@code reduce < 0}: a map-only job.
     */
    String update(float map, float reduce, long elapsedMs) {
      // the LocalJobRunner's reduce progress can step back (100% then 42%): show the furthest seen
      mapSeen = Math.max(mapSeen, map);
      reduceSeen = reduce < 0 ? reduce : Math.max(reduceSeen, reduce);
      map = mapSeen;
      reduce = reduceSeen;
      String now = "map " + pct(map) + (reduce < 0 ? "" : " reduce " + pct(reduce));
      // a changed figure at most once an interval; an unchanged one (a job waiting for containers) every 30 s, so
      // that a stuck job is not silent
      long wait = now.equals(last) ? Math.max(intervalMs, STILL_MS) : intervalMs;
      if (elapsedMs - lastPrintMs < wait) {
        return null;
      }
      lastPrintMs = elapsedMs;
      last = now;
      return String.format("%s: %s (%d s)", name, now, elapsedMs / 1000);
    }

    private static String pct(float f) {
      return Math.round(Math.max(0, Math.min(1, f)) * 100) + "%";
    }
  }

  /**
   * One line about a finished job: wall time, records in and out, bytes read and written on every file system,
   * and the step's own counters of rows, non-zeros, keys and skipped or bad records.
   */
  static String summary(String name, double secs, Counters c, boolean mapOnly) {
    StringBuilder sb = new StringBuilder(name).append(": done in ").append(String.format("%.1f s", secs));
    long in = c.findCounter(TaskCounter.MAP_INPUT_RECORDS).getValue();
    long out = mapOnly ? c.findCounter(TaskCounter.MAP_OUTPUT_RECORDS).getValue()
        : c.findCounter(TaskCounter.REDUCE_OUTPUT_RECORDS).getValue();
    sb.append("; records ").append(String.format("%,d", in)).append(" in, ").append(String.format("%,d", out))
        .append(" out");
    // FileInputFormat's and FileOutputFormat's own byte counts (the FileSystemCounter group also counts spills
    // and, under the LocalJobRunner, whatever else the JVM read)
    long read = c.findCounter(FileInputFormatCounter.BYTES_READ).getValue();
    long written = c.findCounter(FileOutputFormatCounter.BYTES_WRITTEN).getValue();
    if (read > 0) { // not counted for splits of MultipleInputs
      sb.append("; ").append(bytes(read)).append(" read");
    }
    sb.append("; ").append(bytes(written)).append(" written");
    List<Counter> own = new ArrayList<>();
    for (CounterGroup g : c) {
      if (!g.getName().startsWith("org.apache.hadoop.")) {
        for (Counter x : g) {
          if (rank(x.getName()) < 4 && (x.getValue() != 0 || x.getName().contains("SKIPPED"))) {
            own.add(x);
          }
        }
      }
    }
    own.sort(java.util.Comparator.comparingInt((Counter x) -> rank(x.getName())).thenComparing(Counter::getName));
    for (Counter x : own) {
      sb.append("; ").append(x.getName().toLowerCase(Locale.ROOT).replace('_', ' ')).append(' ')
          .append(String.format("%,d", x.getValue()));
    }
    return sb.toString();
  }

  /** Order of a step's own counters in the summary: rows, non-zeros, keys, skipped or bad; 4 = not shown. */
  private static int rank(String name) {
    if (name.contains("ROWS")) {
      return 0;
    } else if (name.contains("NONZEROS")) {
      return 1;
    } else if (name.equals("KEYS")) {
      return 2;
    } else if (name.contains("SKIPPED") || name.startsWith("BAD_")) {
      return 3;
    }
    return 4;
  }

  private static String bytes(long b) {
    if (b < 1024) {
      return b + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double v = b;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return String.format("%.1f %s", v, units[u]);
  }

  public static long count(Job job, Enum<?> counter) throws IOException {
    return counters(job).findCounter(counter).getValue();
  }

  /**
   * The job's counters. Those of a job {@link #monitor} saw complete are the ones it fetched then: a finished job's
   * application master exits, and each fetch after that first tries the gone master three times, a second apart,
   * before the history server answers (3 s after 7 of the 13 jobs of a distributed refine-u on the pseudo-cluster).
   */
  public static Counters counters(Job job) throws IOException {
    Counters kept = FINAL_COUNTERS.get(job);
    return kept != null ? kept : job.getCounters();
  }

  /** The counters of completed jobs, by job (a finished job's counters no longer change). */
  private static final Map<Job, Counters> FINAL_COUNTERS = Collections.synchronizedMap(new WeakHashMap<>());

  /** Fails with a {@link ConsistencyException} unless {@code cond}. */
  public static void check(boolean cond, String fmt, Object... args) {
    if (!cond) {
      throw new ConsistencyException(String.format(fmt, args));
    }
  }

  /** Fails unless every listed error counter of the job is zero. */
  public static void checkZero(Job job, Enum<?>... errors) throws IOException {
    for (Enum<?> e : errors) {
      long v = count(job, e);
      check(v == 0, "%s: counter %s = %d, expected 0", job.getJobName(), e.name(), v);
    }
  }

  /** Fails unless the two counts are equal, naming both. */
  public static void checkEqual(String what, long expected, long actual) {
    check(expected == actual, "%s: expected %d, found %d (records lost or duplicated)", what, expected, actual);
  }

  /** Visible (not starting with '_' or '.') {@code *.avro} files of a directory, by name. */
  public static List<Path> avroFiles(FileSystem fs, Path dir) throws IOException {
    List<Path> out = new ArrayList<>();
    for (FileStatus f : fs.listStatus(dir)) {
      String n = f.getPath().getName();
      if (f.isFile() && n.endsWith(".avro") && !n.startsWith("_") && !n.startsWith(".")) {
        out.add(f.getPath());
      }
    }
    out.sort(null);
    return out;
  }

  /** Reads every record of every Avro file of {@code dir} (for small outputs and tests). */
  public static <T> List<T> readAvroDir(FileSystem fs, Path dir, Class<T> type) throws IOException {
    List<T> out = new ArrayList<>();
    for (Path p : avroFiles(fs, dir)) {
      try (DataFileStream<T> in = new DataFileStream<>(fs.open(p), new SpecificDatumReader<>(type))) {
        for (T t : in) {
          out.add(t);
        }
      }
    }
    return out;
  }

  /** Fails with a usage error unless {@code dir} (on its own file system) is a complete step output (_SUCCESS). */
  public static void requireComplete(Configuration conf, Path dir, String what) throws IOException {
    FileSystem fs = dir.getFileSystem(conf);
    if (!fs.exists(dir)) {
      throw new io.parsa.common.UsageException(what + " " + dir + " does not exist");
    }
    if (!io.parsa.common.OutputPaths.isComplete(fs, dir)) {
      throw new io.parsa.common.UsageException(what + " " + dir + " is incomplete (no _SUCCESS)");
    }
  }

  /**
   * The heap of one reduce task in bytes: from {@code mapreduce.reduce.java.opts} (-Xmx) or
   * {@code mapreduce.reduce.memory.mb} × {@code mapreduce.job.heap.memory-mb.ratio}, or in the local runner this
   * JVM's heap shared by the concurrent local reducers.
   */
  public static long reducerHeapBytes(Configuration conf) {
    return taskHeapBytes(conf, "reduce", LocalJobs.LOCAL_REDUCES);
  }

  /** The heap of one map task in bytes, as {@link #reducerHeapBytes} for map tasks. */
  public static long mapperHeapBytes(Configuration conf) {
    return taskHeapBytes(conf, "map", LocalJobs.LOCAL_MAPS);
  }

  private static long taskHeapBytes(Configuration conf, String kind, String localTasks) {
    if ("local".equals(conf.get("mapreduce.framework.name", "local"))) {
      return Runtime.getRuntime().maxMemory() / Math.max(1, conf.getInt(localTasks, 1));
    }
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("-Xmx(\\d+)([kKmMgG]?)")
        .matcher(conf.get("mapreduce." + kind + ".java.opts", ""));
    long xmx = -1;
    while (m.find()) {
      long v = Long.parseLong(m.group(1));
      String unit = m.group(2).toLowerCase(Locale.ROOT);
      xmx = unit.equals("g") ? v << 30 : unit.equals("m") ? v << 20 : unit.equals("k") ? v << 10 : v;
    }
    if (xmx > 0) {
      return xmx;
    }
    return (long) (conf.getInt("mapreduce." + kind + ".memory.mb", 1024)
        * (double) conf.getFloat("mapreduce.job.heap.memory-mb.ratio", 0.8f)) << 20;
  }

  /** A work directory beside {@code out} for intermediate job outputs, deleted by the caller. */
  public static Path workDirFor(Path out) {
    return new Path(out.getParent(), "." + out.getName() + ".work-" + java.util.UUID.randomUUID());
  }
}
