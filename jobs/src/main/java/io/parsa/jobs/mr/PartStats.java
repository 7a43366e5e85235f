package io.parsa.jobs.mr;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.TaskInputOutputContext;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;

/**
 * Per-part tallies (arrays of k longs) that a task accumulates in memory and writes, once, as a small side file
 * {@code _partstats-<task id>} into its work output directory, so they are committed with the task's output.
 * Counters would do for small k, but k x (figures) can exceed the job's counter limit; side files cannot.
 * The leading underscore keeps the files out of any later job's input.
 *
 * <pre>
 * file format (text, one line per array):  name TAB v_0 SPACE v_1 SPACE ... v_(len-1)
 * </pre>
 */
public final class PartStats {

  /** File name prefix. */
  public static final String PREFIX = "_partstats-";

  private static final ThreadLocal<Map<String, long[]>> LAST_UNWRITTEN = new ThreadLocal<>();

  private final Map<String, long[]> arrays = new LinkedHashMap<>();

  /**
   * For unit tests under MRUnit (whose mock output committer has no work directory): the tallies of the last task
   * on this thread that could not write its side file.
   */
  public static Map<String, long[]> lastUnwritten() {
    return LAST_UNWRITTEN.get();
  }

  /** The array of this name, created with {@code len} zeros on first use. */
  public long[] array(String name, int len) {
    return arrays.computeIfAbsent(name, n -> new long[len]);
  }

  /** Writes the side file for this task; call from cleanup(). */
  public void write(TaskInputOutputContext<?, ?, ?, ?> context) throws IOException, InterruptedException {
    if (!(context.getOutputCommitter() instanceof org.apache.hadoop.mapreduce.lib.output.PathOutputCommitter)) {
      // MRUnit's mock context has no work directory: keep the tallies where a unit test can look at them
      LAST_UNWRITTEN.set(arrays);
      return;
    }
    Path dir = FileOutputFormat.getWorkOutputPath(context);
    Path file = new Path(dir, PREFIX + context.getTaskAttemptID().getTaskID().toString());
    FileSystem fs = file.getFileSystem(context.getConfiguration());
    try (OutputStream os = fs.create(file, true);
        PrintWriter w = new PrintWriter(new java.io.OutputStreamWriter(os, StandardCharsets.UTF_8))) {
      for (Map.Entry<String, long[]> e : arrays.entrySet()) {
        w.print(e.getKey());
        w.print('\t');
        long[] a = e.getValue();
        for (int i = 0; i < a.length; i++) {
          if (i > 0) {
            w.print(' ');
          }
          w.print(a[i]);
        }
        w.print('\n');
      }
    }
  }

  /** Reads every side file of {@code dir}: task id ("task_..._r_000003") to (name to array). */
  public static Map<String, Map<String, long[]>> readPerTask(FileSystem fs, Path dir) throws IOException {
    Map<String, Map<String, long[]>> out = new TreeMap<>();
    FileStatus[] files = fs.globStatus(new Path(dir, PREFIX + "*"));
    if (files == null) {
      return out;
    }
    for (FileStatus f : files) {
      Map<String, long[]> m = new LinkedHashMap<>();
      try (BufferedReader r = new BufferedReader(new InputStreamReader(fs.open(f.getPath()), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          if (line.isEmpty()) {
            continue;
          }
          int tab = line.indexOf('\t');
          String name = line.substring(0, tab);
          String body = line.substring(tab + 1).trim();
          String[] parts = body.isEmpty() ? new String[0] : body.split(" ");
          long[] a = new long[parts.length];
          for (int i = 0; i < parts.length; i++) {
            a[i] = Long.parseLong(parts[i]);
          }
          m.put(name, a);
        }
      }
      out.put(f.getPath().getName().substring(PREFIX.length()), m);
    }
    return out;
  }

  /** Element-wise sums over all side files of {@code dir}, by name; missing names give arrays of zeros. */
  public static long[] sum(Map<String, Map<String, long[]>> perTask, String name, int len) {
    long[] s = new long[len];
    for (long[] a : arrays(perTask, name, len)) {
      for (int i = 0; i < len; i++) {
        s[i] += a[i];
      }
    }
    return s;
  }

  /** The arrays named {@code name} of every task that wrote one, in task order, each checked to hold len entries. */
  private static java.util.List<long[]> arrays(Map<String, Map<String, long[]>> perTask, String name, int len) {
    java.util.List<long[]> out = new java.util.ArrayList<>();
    for (Map<String, long[]> m : perTask.values()) {
      long[] a = m.get(name);
      if (a == null) {
        continue;
      }
      if (a.length != len) {
        throw new IllegalStateException("part stats '" + name + "' has " + a.length + " entries, expected " + len);
      }
      out.add(a);
    }
    return out;
  }

  /**
   * Stores {@code values} under {@code name} as their IEEE 754 bits, for {@link #sumOfDoubles} and {@link
   * #maxOfDoubles} (the side file holds longs).
   */
  public void putDoubles(String name, double[] values) {
    long[] a = array(name, values.length);
    for (int i = 0; i < values.length; i++) {
      a[i] = Double.doubleToLongBits(values[i]);
    }
  }

  /** Element-wise sums over all side files of arrays written by {@link #putDoubles}, in task order. */
  public static double[] sumOfDoubles(Map<String, Map<String, long[]>> perTask, String name, int len) {
    return foldDoubles(perTask, name, len, 0, Double::sum);
  }

  /** Element-wise maxima over all side files of arrays written by {@link #putDoubles} (−∞ where none wrote). */
  public static double[] maxOfDoubles(Map<String, Map<String, long[]>> perTask, String name, int len) {
    return foldDoubles(perTask, name, len, Double.NEGATIVE_INFINITY, Math::max);
  }

  private static double[] foldDoubles(Map<String, Map<String, long[]>> perTask, String name, int len, double zero,
      java.util.function.DoubleBinaryOperator op) {
    double[] s = new double[len];
    java.util.Arrays.fill(s, zero);
    for (long[] a : arrays(perTask, name, len)) {
      for (int i = 0; i < len; i++) {
        s[i] = op.applyAsDouble(s[i], Double.longBitsToDouble(a[i]));
      }
    }
    return s;
  }

  /** Deletes the side files of {@code dir} (so a contract output holds only its records). */
  public static void delete(FileSystem fs, Path dir) throws IOException {
    FileStatus[] files = fs.globStatus(new Path(dir, PREFIX + "*"));
    if (files != null) {
      for (FileStatus f : files) {
        fs.delete(f.getPath(), false);
      }
    }
  }
}
