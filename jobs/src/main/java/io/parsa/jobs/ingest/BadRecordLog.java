package io.parsa.jobs.ingest;

import io.parsa.common.BadRecordException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.TaskAttemptContext;

/**
 * Carries bad-record reports from tasks to the client. A task that fails on a malformed line, or skips some,
 * writes a small text file into {@code <report dir>/bad-records/}; the client reads it to print the exact
 * file:line message (the job's own failure diagnostics are not available in every runner, and hold a stack
 * trace where the user needs one line).
 *
 * <pre>
 * file format, one report a line: FATAL|SKIPPED &lt;TAB&gt; file &lt;TAB&gt; line &lt;TAB&gt; problem
 * </pre>
 */
final class BadRecordLog {

  static final String DIR = "bad-records";

  /** One reported bad record. */
  record Entry(boolean fatal, String file, long line, String problem) {
    BadRecordException toException() {
      return new BadRecordException(file, line, problem);
    }

    @Override
    public String toString() {
      return file + ":" + line + ": " + problem;
    }
  }

  private final List<Entry> entries = new ArrayList<>();
  private final Path dir;
  private final Configuration conf;
  private final String name;

  BadRecordLog(TaskAttemptContext context) {
    this.conf = context.getConfiguration();
    String report = conf.get(IngestConfig.REPORT_DIR);
    this.dir = report == null ? null : new Path(report, DIR);
    this.name = String.valueOf(context.getTaskAttemptID());
  }

  void add(boolean fatal, BadRecordException e) {
    entries.add(new Entry(fatal, e.file(), e.line(), problemOf(e)));
  }

  /** Writes the collected entries, if any and if a report dir is configured. Never throws. */
  void flush() {
    if (dir == null || entries.isEmpty()) {
      return;
    }
    try {
      FileSystem fs = dir.getFileSystem(conf);
      try (OutputStream out = fs.create(new Path(dir, name + ".txt"), true)) {
        StringBuilder sb = new StringBuilder();
        for (Entry e : entries) {
          sb.append(e.fatal ? "FATAL" : "SKIPPED").append('\t').append(clean(e.file)).append('\t')
              .append(e.line).append('\t').append(clean(e.problem)).append('\n');
        }
        out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException ignored) {
      // the report is a courtesy: the task's own failure and counters still tell the client what happened
    }
  }

  /** All reports under {@code reportDir}, fatal ones first, each group ordered by file and line. */
  static List<Entry> read(FileSystem fs, Path reportDir) throws IOException {
    Path d = new Path(reportDir, DIR);
    List<Entry> out = new ArrayList<>();
    if (!fs.exists(d)) {
      return out;
    }
    for (FileStatus st : fs.listStatus(d)) {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(fs.open(st.getPath()),
          StandardCharsets.UTF_8))) {
        String l;
        while ((l = r.readLine()) != null) {
          String[] f = l.split("\t", 4);
          if (f.length == 4) {
            out.add(new Entry(f[0].equals("FATAL"), f[1], Long.parseLong(f[2]), f[3]));
          }
        }
      }
    }
    out.sort((a, b) -> a.fatal != b.fatal ? (a.fatal ? -1 : 1)
        : a.file.equals(b.file) ? Long.compare(a.line, b.line) : a.file.compareTo(b.file));
    return out;
  }

  private static String problemOf(BadRecordException e) {
    String prefix = e.file() + ":" + e.line() + ": ";
    String m = e.getMessage();
    return m.startsWith(prefix) ? m.substring(prefix.length()) : m;
  }

  private static String clean(String s) {
    return s.replace('\t', ' ').replace('\n', ' ');
  }
}
