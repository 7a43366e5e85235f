package io.parsa.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.log4j.ConsoleAppender;
import org.apache.log4j.LogManager;
import org.apache.log4j.PatternLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** The console shows a failure's message in one line; the trace goes to the log file unless verbose. */
class ConsoleLogTest {

  @TempDir
  Path tmp;

  private ConsoleAppender console;

  private ByteArrayOutputStream captureConsole() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    console = new ConsoleAppender(new PatternLayout("%-5p %c{1}: %m%n"), ConsoleAppender.SYSTEM_ERR);
    console.setWriter(new OutputStreamWriter(bytes, StandardCharsets.UTF_8));
    console.setImmediateFlush(true);
    LogManager.getRootLogger().addAppender(console);
    return bytes;
  }

  @AfterEach
  void restore() {
    ConsoleLog.reset();
    LogManager.getRootLogger().removeAppender(console);
    System.clearProperty(ConsoleLog.LOG_FILE);
  }

  private static Exception badRecord() {
    return new Exception("task failed", new BadRecordException("in.libsvm", 2, "bad value in feature '2:x'"));
  }

  @Test
  void quietConsolePrintsTheMessageInOneLineAndTheLogFileKeepsTheTrace() throws Exception {
    Path log = tmp.resolve("parsa.log");
    System.setProperty(ConsoleLog.LOG_FILE, log.toString());
    ByteArrayOutputStream out = captureConsole();
    ConsoleLog.setUp(false);
    assertEquals(log.toString(), ConsoleLog.logFile());

    LoggerFactory.getLogger("io.parsa.Something").error("step failed", badRecord());
    LoggerFactory.getLogger("org.apache.hadoop.mapred.LocalJobRunner").warn("job_local_1", badRecord());

    String console = out.toString(StandardCharsets.UTF_8);
    assertTrue(console.contains("step failed [BadRecordException: in.libsvm:2: bad value in feature '2:x'; "
        + "stack trace in " + log + "]"), console);
    assertFalse(console.contains("\tat "), "no stack trace on the console: " + console);
    assertFalse(console.contains("job_local_1"), "LocalJobRunner's copy of the task failure is dropped: " + console);
    assertEquals(1, console.lines().filter(l -> l.contains("Something") || l.contains("LocalJobRunner")).count(),
        console);

    String file = Files.readString(log);
    assertTrue(file.contains("\tat "), "the log file keeps the stack trace: " + file);
    assertTrue(file.contains("job_local_1"), file);
    assertTrue(ConsoleLog.logHint().contains(log.toString()));
  }

  @Test
  void verboseConsoleKeepsStackTraces() throws Exception {
    System.setProperty(ConsoleLog.LOG_FILE, tmp.resolve("v.log").toString());
    ByteArrayOutputStream out = captureConsole();
    ConsoleLog.setUp(true);
    LoggerFactory.getLogger("io.parsa.Something").error("step failed", badRecord());
    String console = out.toString(StandardCharsets.UTF_8);
    assertTrue(console.contains("\tat "), console);
    assertTrue(console.contains("Caused by: io.parsa.common.BadRecordException: in.libsvm:2:"), console);
  }

  @Test
  void verboseIsAskedByTheFlagOrTheGenericOption() {
    assertTrue(ConsoleLog.verboseRequested(new String[] {"--verbose", "ingest"}));
    assertTrue(ConsoleLog.verboseRequested(new String[] {"ingest", "-D", "parsa.verbose=true", "--k", "2"}));
    assertTrue(ConsoleLog.verboseRequested(new String[] {"ingest", "-Dparsa.verbose=true"}));
    assertFalse(ConsoleLog.verboseRequested(new String[] {"ingest", "-D", "parsa.verbose=false"}));
  }
}
