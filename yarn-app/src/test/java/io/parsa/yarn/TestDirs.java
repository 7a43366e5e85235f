package io.parsa.yarn;

import java.nio.file.Files;
import org.apache.hadoop.fs.Path;

/** Fresh directories for tests under the module's target/test-work: removed by {@code mvn clean}, not left in /tmp. */
public final class TestDirs {
  private TestDirs() {}

  /** A new empty directory whose name starts with parsa-{@code name}. */
  public static Path fresh(String name) throws Exception {
    java.nio.file.Path base = java.nio.file.Paths.get("target", "test-work");
    Files.createDirectories(base);
    return new Path(Files.createTempDirectory(base, "parsa-" + name).toAbsolutePath().toUri());
  }
}
