package io.parsa.jobs.mr;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.specific.SpecificDatumReader;
import io.parsa.jobs.common.LocalJobs;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Job;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Small helpers every MapReduce step uses: run a job, read counters, check them, read small Avro outputs. */
public final class Jobs {

  private static final Logger LOG = LoggerFactory.getLogger(Jobs.class);

  /** Client poll interval while waiting for a job (int, milliseconds). */
  public static final String POLL_MS = "parsa.mr.poll.ms";
  public static final int POLL_MS_DEFAULT = 200;

  private Jobs() {}

  /** A job named "parsa &lt;step&gt;: &lt;what&gt;" with the job jar found from {@code jarClass}. */
  public static Job newJob(Configuration conf, String step, String what, Class<?> jarClass) throws IOException {
    Job job = Job.getInstance(new Configuration(conf), "parsa " + step + ": " + what);
    // the 5 s default completion poll dominates small jobs (and every local-mode run); 200 ms costs nothing
    job.getConfiguration().setInt(Job.COMPLETION_POLL_INTERVAL_KEY,
        conf.getInt(POLL_MS, POLL_MS_DEFAULT));
    LocalJobs.applyDefaults(job.getConfiguration());
    job.setJarByClass(jarClass);
    return job;
  }

  /** Runs the job to completion; throws if it failed (a failed MR job is not a consistency question). */
  public static void run(Job job) throws IOException, InterruptedException, ClassNotFoundException {
    long t0 = System.nanoTime();
    boolean ok = job.waitForCompletion(LOG.isDebugEnabled());
    LOG.info("{} {} in {} ms", job.getJobName(), ok ? "succeeded" : "FAILED", (System.nanoTime() - t0) / 1_000_000);
    if (!ok) {
      throw new IOException("job '" + job.getJobName() + "' failed: " + job.getStatus().getFailureInfo());
    }
  }

  public static long count(Job job, Enum<?> counter) throws IOException {
    return job.getCounters().findCounter(counter).getValue();
  }

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

  /** A work directory beside {@code out} for intermediate job outputs, deleted by the caller. */
  public static Path workDirFor(Path out) {
    return new Path(out.getParent(), "." + out.getName() + ".work-" + java.util.UUID.randomUUID());
  }
}
