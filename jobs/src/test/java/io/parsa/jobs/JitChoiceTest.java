package io.parsa.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/parsa's choice of just-in-time compilers for its local JVM (bin/jit.sh): C1 alone for a small local input,
 * tiered for a large one, for one on HDFS and for none; PARSA_JIT overrides; a bad value fails with a message.
 */
class JitChoiceTest {
  private static final File SCRIPT = new File("../bin/jit.sh");
  private static final String C1 = "-XX:TieredStopAtLevel=1";

  @TempDir
  Path dir;

  private record Result(int exit, String out, String err) {}

  private static Result choose(Map<String, String> env, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("bash", "-c", "source \"$0\" && parsa_jit_opts \"$@\"",
        SCRIPT.getAbsolutePath()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().remove("PARSA_JIT");
    pb.environment().remove("PARSA_C1_MAX_MB");
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    return new Result(p.waitFor(), out, err);
  }

  private Path fileOf(String name, long bytes) throws IOException {
    Path f = dir.resolve(name);
    try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
      raf.setLength(bytes); // sparse: du -b counts the apparent size
    }
    return f;
  }

  @Test
  void smallLocalInputsRunOnC1AloneLargeOnesAndRemoteOnesTiered() throws Exception {
    Path small = fileOf("small.libsvm.gz", 5L << 20);
    Path large = fileOf("large.libsvm", 7L << 20);
    assertEquals(C1, choose(Map.of(), "pipeline", "--input", small.toString(), "--k", "16").out());
    assertEquals("", choose(Map.of(), "pipeline", "--input", large.toString(), "--k", "16").out());
    // the paths of one --input add up, globs included
    assertEquals("", choose(Map.of(), "ingest", "--input", small + "," + dir.resolve("sma*.gz")).out());
    assertEquals(C1, choose(Map.of(), "ingest", "--input=file://" + small).out());
    assertEquals("", choose(Map.of(), "pipeline", "--input", "hdfs://nn:8020/data/x.libsvm").out());
    assertEquals("", choose(Map.of(), "pipeline", "--input", dir.resolve("missing").toString()).out());
    assertEquals("", choose(Map.of(), "metrics", "--k", "4").out());
    // the threshold is the user's to move
    assertEquals(C1, choose(Map.of("PARSA_C1_MAX_MB", "8"), "pipeline", "--input", large.toString()).out());
  }

  @Test
  void blocksCountAThirdOfTheirBytes() throws Exception {
    Path blocks = Files.createDirectories(dir.resolve("blocks"));
    fileOf("blocks/block-00000.avro", 9L << 20);
    fileOf("blocks/block-00001.avro", 8L << 20);
    assertEquals(C1, choose(Map.of(), "refine-u", "--blocks", blocks.toString(), "--k", "16").out());
    fileOf("blocks/block-00002.avro", 2L << 20);
    assertEquals("", choose(Map.of(), "refine-u", "--blocks", blocks.toString(), "--k", "16").out());
  }

  @Test
  void parsaJitOverridesAndABadValueIsRefused() throws Exception {
    Path large = fileOf("large.libsvm", 64L << 20);
    assertEquals(C1, choose(Map.of("PARSA_JIT", "c1"), "pipeline", "--input", large.toString()).out());
    Path small = fileOf("small.libsvm", 1L << 20);
    assertEquals("", choose(Map.of("PARSA_JIT", "tiered"), "pipeline", "--input", small.toString()).out());
    Result bad = choose(Map.of("PARSA_JIT", "c3"), "pipeline", "--input", small.toString());
    assertEquals(2, bad.exit());
    assertTrue(bad.err().contains("PARSA_JIT must be auto, c1 or tiered, got 'c3'"), bad.err());
  }
}
