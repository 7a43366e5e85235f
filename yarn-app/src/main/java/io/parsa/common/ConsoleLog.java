package io.parsa.common;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.log4j.Appender;
import org.apache.log4j.ConsoleAppender;
import org.apache.log4j.FileAppender;
import org.apache.log4j.Layout;
import org.apache.log4j.LogManager;
import org.apache.log4j.PatternLayout;
import org.apache.log4j.spi.Filter;
import org.apache.log4j.spi.LoggingEvent;
import org.apache.log4j.spi.ThrowableInformation;

/**
 * What the user's console shows: messages first, stack traces only when asked. Unless verbose, every console
 * appender of the log4j configuration in force (bin/parsa's local one, or the cluster client's) prints a logged
 * exception as one line (its innermost message) instead of its stack trace, drops the stack-trace-only warnings
 * of Hadoop's LocalJobRunner (the failing step reports the cause itself), and everything, with full stack traces,
 * also goes to a log file whose path failure messages name.
 *
 * <p>Verbose: {@code --verbose} (before or after the step name) or the generic option
 * {@code -D parsa.verbose=true}; the log file: {@code -D parsa.log.file=PATH} or the system property of the same
 * name (default {@code <java.io.tmpdir>/parsa-<user>.log}, rewritten by every run).
 */
public final class ConsoleLog {

  /** Print stack traces on the console (boolean, default false). */
  public static final String VERBOSE = "parsa.verbose";

  /** The full log of a command-line run (path; default {@code <java.io.tmpdir>/parsa-<user>.log}). */
  public static final String LOG_FILE = "parsa.log.file";

  private static final String FILE_APPENDER = "parsa-full-log";

  private static volatile String logFile;

  private ConsoleLog() {}

  /** True if {@code args} ask for stack traces: {@code --verbose}, or {@code -D parsa.verbose=true}. */
  public static boolean verboseRequested(String[] args) {
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--verbose") || a.equals("-D" + VERBOSE + "=true")
          || (a.equals("-D") && i + 1 < args.length && args[i + 1].equals(VERBOSE + "=true"))) {
        return true;
      }
    }
    return Boolean.getBoolean(VERBOSE);
  }

  /**
   * Sets up the console of a command-line run (called once from the CLI's main, not from tests or library
   * callers): keeps the full log in {@link #logFile()} and, unless {@code verbose}, shortens exceptions on the
   * console to one line.
   */
  public static synchronized void setUp(boolean verbose) {
    org.apache.log4j.Logger root = LogManager.getRootLogger();
    if (root.getAppender(FILE_APPENDER) != null) {
      return;
    }
    List<Appender> consoles = new ArrayList<>();
    for (Object a : Collections.list(root.getAllAppenders())) {
      if (a instanceof ConsoleAppender c) {
        consoles.add(c);
      }
    }
    String path = System.getProperty(LOG_FILE,
        new File(System.getProperty("java.io.tmpdir"), "parsa-" + System.getProperty("user.name") + ".log")
            .getPath());
    try {
      Layout full = consoles.isEmpty() || consoles.get(0).getLayout() == null
          ? new PatternLayout("%d{ISO8601} %-5p %c: %m%n") : consoles.get(0).getLayout();
      FileAppender file = new FileAppender(full, path, false);
      file.setName(FILE_APPENDER);
      root.addAppender(file);
      logFile = path;
    } catch (IOException e) {
      // no file log: the console then keeps its stack traces, as nothing else would
      return;
    }
    if (verbose) {
      return;
    }
    for (Appender c : consoles) {
      c.setLayout(new OneLineThrowables(c.getLayout(), path));
      c.addFilter(new DropLocalRunnerTraces());
    }
  }

  /** Undoes {@link #setUp}: the console appenders get their own layouts back, the log file is closed. */
  public static synchronized void reset() {
    org.apache.log4j.Logger root = LogManager.getRootLogger();
    Appender file = root.getAppender(FILE_APPENDER);
    if (file != null) {
      root.removeAppender(file);
      file.close();
    }
    for (Object a : Collections.list(root.getAllAppenders())) {
      if (a instanceof ConsoleAppender c && c.getLayout() instanceof OneLineThrowables one) {
        c.setLayout(one.inner);
        c.clearFilters();
      }
    }
    logFile = null;
  }

  /** The full log file of this run, or null when there is none (tests, library use). */
  public static String logFile() {
    return logFile;
  }

  /** " (full log: FILE; --verbose prints stack traces)" when there is a log file, else "". */
  public static String logHint() {
    String f = logFile;
    return f == null ? "" : " (full log: " + f + "; --verbose prints stack traces)";
  }

  /** The innermost message of a cause chain, with the exception's simple name when it has no message. */
  public static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null && c.getCause() != c) {
      c = c.getCause();
    }
    return c.getMessage() == null ? c.getClass().getSimpleName() : c.getClass().getSimpleName() + ": "
        + c.getMessage();
  }

  /** A console layout that ends a logged exception's line with its innermost message instead of its trace. */
  private static final class OneLineThrowables extends Layout {
    private final Layout inner;
    private final String file;

    OneLineThrowables(Layout inner, String file) {
      this.inner = inner == null ? new PatternLayout("%m%n") : inner;
      this.file = file;
    }

    @Override
    public String format(LoggingEvent event) {
      String line = inner.format(event);
      ThrowableInformation ti = event.getThrowableInformation();
      if (ti == null || ti.getThrowable() == null) {
        return line;
      }
      String nl = line.endsWith("\n") ? "\n" : "";
      return line.substring(0, line.length() - nl.length()) + " [" + rootMessage(ti.getThrowable())
          + "; stack trace in " + file + "]" + (nl.isEmpty() ? System.lineSeparator() : nl);
    }

    @Override
    public boolean ignoresThrowable() {
      return false; // this layout renders the throwable (as one line), so the appender must not print the trace
    }

    @Override
    public String getContentType() {
      return inner.getContentType();
    }

    @Override
    public void activateOptions() {
      inner.activateOptions();
    }
  }

  /**
   * Drops LocalJobRunner's "job_local…" warnings that only carry a task's exception: the step reports the cause
   * as its own message, so on the console they are a second copy of it (the log file keeps them).
   */
  private static final class DropLocalRunnerTraces extends Filter {
    @Override
    public int decide(LoggingEvent event) {
      return event.getThrowableInformation() != null
          && event.getLoggerName().equals("org.apache.hadoop.mapred.LocalJobRunner") ? DENY : NEUTRAL;
    }
  }
}
