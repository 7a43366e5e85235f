package io.parsa.jobs;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Prints why a test was skipped (a failed assumption, such as a missing dataset) on the build's console. Surefire
 * keeps the tests' own output in files (redirectTestOutputToFile) and lists a skipped test without its reason, so
 * the line goes to the process's native standard error, which Surefire passes through. Registered for every test
 * by ServiceLoader (src/test/resources/META-INF/services, junit-platform.properties).
 */
public class SkipReasons implements TestWatcher {

  private static final PrintStream CONSOLE =
      new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);

  @Override
  public void testAborted(ExtensionContext context, Throwable cause) {
    CONSOLE.println("[SKIPPED] " + context.getRequiredTestClass().getSimpleName() + "."
        + context.getRequiredTestMethod().getName() + ": " + (cause == null ? "aborted" : cause.getMessage()));
  }
}
