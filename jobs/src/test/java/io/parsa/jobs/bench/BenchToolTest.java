package io.parsa.jobs.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A regenerated benchmarks page keeps the hand-run sections below its marker, byte for byte. */
class BenchToolTest {

  @TempDir
  Path tmp;

  @Test
  void handRunSectionsBelowTheMarkerAreKept() throws Exception {
    File page = tmp.resolve("benchmarks.md").toFile();
    String hand = BenchTool.HAND_RUN_MARKER + "\n\n## A hand-run section\n\n| a | b |\n|---|---|\n| 1 | 2 |\n";
    Files.writeString(page.toPath(), "# Benchmarks\n\n## Generated, old\n\nstale figures\n\n" + hand);
    assertEquals(hand, BenchTool.handRun(page));
  }

  @Test
  void aPageWithoutTheMarkerOrNoPageStartsAnEmptyHandRunPart() throws Exception {
    File page = tmp.resolve("benchmarks.md").toFile();
    assertEquals(BenchTool.HAND_RUN_MARKER + "\n\n", BenchTool.handRun(page));
    Files.writeString(page.toPath(), "# Benchmarks\n\nno marker here\n");
    String kept = BenchTool.handRun(page);
    assertTrue(kept.startsWith(BenchTool.HAND_RUN_MARKER), kept);
    assertTrue(!kept.contains("no marker here"), kept);
  }

  @Test
  void theRepositorysPageHasTheMarker() throws Exception {
    String page = Files.readString(Path.of("../docs/benchmarks.md"));
    assertTrue(page.contains(BenchTool.HAND_RUN_MARKER), "docs/benchmarks.md lost its hand-run marker");
  }
}
