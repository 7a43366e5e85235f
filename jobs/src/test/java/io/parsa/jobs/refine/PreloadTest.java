package io.parsa.jobs.refine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.parsa.common.JsonFiles;
import io.parsa.engine.Block;
import io.parsa.engine.URefinement;
import io.parsa.jobs.ParsaCli;
import io.parsa.jobs.mr.TestData;
import io.parsa.jobs.pipeline.PipelineTool;
import io.parsa.yarn.io.BlockFiles;
import io.parsa.yarn.io.BlockStats;
import java.io.File;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The blocks read for refine-u while partition-u runs: taken only for the files they were read from, and the same
 * refinement as from the blocks read afterwards.
 */
class PreloadTest {

  @TempDir
  java.nio.file.Path tmp;

  private final Configuration conf = TestData.localConf();

  private static final File SAMPLE = new File("../examples/sample.libsvm.gz");

  private FileSystem fs;

  @BeforeEach
  void localFileSystem() throws Exception {
    fs = FileSystem.getLocal(conf);
  }

  @AfterEach
  void dropLeftovers() {
    Preload.discard();
  }

  /** The sample ingested into three blocks (with ingest's statistics) under tmp/blocks. */
  private Path ingest() throws Exception {
    Path blocks = new Path(tmp.resolve("blocks").toString());
    assertEquals(0, ParsaCli.runStep(conf, "ingest", "--input", SAMPLE.getAbsolutePath(), "--format", "libsvm",
        "--output", blocks.toString(), "--blocks", "3"));
    return blocks;
  }

  /** partition-u's U of {@code blocks} at k = 4, and refine-u's arguments for it with {@code more}. */
  private String[] refineArgs(Path blocks, String... more) throws Exception {
    Path u = new Path(tmp.resolve("u").toString());
    assertEquals(0, ParsaCli.runStep(conf, "partition-u", "--blocks", blocks.toString(), "--output", u.toString(),
        "--k", "4", "--workers", "1", "--mode", "embedded"));
    return concat(new String[] {"--blocks", blocks.toString(), "--u-assignment",
        new Path(u, "u-assignment").toString(), "--k", "4"}, more);
  }

  @Test
  void takenForTheSameFilesAndKTheSameBlocksGraphAndInputOrderStart() throws Exception {
    Path blocks = ingest();
    List<Path> files = BlockFiles.list(fs, blocks);
    assertTrue(Preload.startIfRoom(conf, blocks, 4, 1L << 40, null));
    Preload.Read r = Preload.take(fs, blocks, files, 4);
    assertNotNull(r);
    assertNull(Preload.take(fs, blocks, files, 4), "taken once");
    BlockStats counted = BlockStats.read(fs, blocks, files.size()).stats;
    assertEquals(files.size(), r.blocks().size());
    long rows = 0;
    for (int b = 0; b < files.size(); b++) {
      Block fresh = RefineUTool.readBlock(fs, files.get(b), counted, b);
      Block early = r.blocks().get(b);
      assertEquals(fresh.numRows(), early.numRows());
      for (int row = 0; row < fresh.numRows(); row++) {
        assertEquals(fresh.rowId(row), early.rowId(row));
      }
      assertEquals(fresh.numEdges(), early.numEdges());
      rows += early.numRows();
    }
    assertEquals(4_000, rows);
    assertEquals(4_000, r.graph().numRows());
    assertArrayEquals(URefinement.inputOrderStart(4, r.blocks()), r.orderStart());
  }

  @Test
  void notTakenForOtherFilesAnotherKOrAFileChangedSince() throws Exception {
    Path blocks = ingest();
    List<Path> files = BlockFiles.list(fs, blocks);
    assertTrue(Preload.startIfRoom(conf, blocks, 4, 1L << 40, null));
    assertNull(Preload.take(fs, blocks, files, 8), "another k");

    assertTrue(Preload.startIfRoom(conf, blocks, 4, 1L << 40, null));
    assertNull(Preload.take(fs, blocks, files.subList(0, 2), 4), "another list of files");

    assertTrue(Preload.startIfRoom(conf, blocks, 4, 1L << 40, null));
    FileStatus st = fs.getFileStatus(files.get(1));
    fs.setTimes(files.get(1), st.getModificationTime() + 5_000, -1);
    assertNull(Preload.take(fs, blocks, files, 4), "a block rewritten since it was read");

    // data whose refinement would take more than half the heap is not read early
    assertFalse(Preload.startIfRoom(conf, blocks, 4, 1L << 10, null));
    assertNull(Preload.take(fs, blocks, files, 4));
  }

  @Test
  void refineUFromTheBlocksReadEarlyGivesTheSameU() throws Exception {
    Path blocks = ingest();
    String[] refine = refineArgs(blocks, "--rounds", "3");
    Path plain = new Path(tmp.resolve("plain").toString());
    assertEquals(0, ParsaCli.runStep(conf, "refine-u", concat(refine, "--output", plain.toString())));
    assertTrue(Preload.startIfRoom(conf, blocks, 4, 1L << 40, null));
    Path early = new Path(tmp.resolve("early").toString());
    assertEquals(0, ParsaCli.runStep(conf, "refine-u", concat(refine, "--output", early.toString())));
    JsonNode a = JsonFiles.MAPPER.readTree(new File(plain.toString(), "_refine.json"));
    JsonNode b = JsonFiles.MAPPER.readTree(new File(early.toString(), "_refine.json"));
    assertFalse(a.get("blocksReadEarly").asBoolean(), a.toString());
    assertTrue(b.get("blocksReadEarly").asBoolean(), b.toString());
    Map<Long, Integer> partsA = RefineUToolTest.readParts(fs, plain);
    assertEquals(4_000, partsA.size());
    assertEquals(partsA, RefineUToolTest.readParts(fs, early));
  }

  /**
   * The sample's rows are short (14 keys on average): refine-u starts with the multilevel seeds, which the preload
   * places and refines ahead of the U; the same U as without, and only for the same plan.
   */
  @Test
  void theMultilevelSeedsPlacedAheadGiveTheSameU() throws Exception {
    Path blocks = ingest();
    List<String> refine = List.of(refineArgs(blocks, "--rounds", "3", "--capped-vcycles", "1"));
    Path plain = new Path(tmp.resolve("plain").toString());
    assertEquals(0, ParsaCli.runStep(conf, "refine-u", concat(refine, "--output", plain.toString())));
    JsonNode a = JsonFiles.MAPPER.readTree(new File(plain.toString(), "_refine.json"));
    assertTrue(a.get("multilevel").asText().startsWith("run: short rows"), a.toString());

    RefineUTool.Seeds plan = RefineUTool.seeds(refine);
    assertTrue(Preload.startIfRoom(conf, blocks, 4, 1L << 40, plan));
    Path ahead = new Path(tmp.resolve("ahead").toString());
    assertEquals(0, ParsaCli.runStep(conf, "refine-u", concat(refine, "--output", ahead.toString())));
    JsonNode b = JsonFiles.MAPPER.readTree(new File(ahead.toString(), "_refine.json"));
    assertTrue(b.get("blocksReadEarly").asBoolean(), b.toString());
    assertTrue(b.get("multilevelSeedsAhead").asBoolean(), b.toString());
    assertEquals(a.get("start"), b.get("start"));
    assertEquals(RefineUToolTest.readParts(fs, plain), RefineUToolTest.readParts(fs, ahead));

    // seeds of another plan (one more round per phase) are not used; the blocks still are
    assertTrue(Preload.startIfRoom(conf, blocks, 4, 1L << 40,
        RefineUTool.seeds(List.of("--k", "4", "--rounds", "4", "--capped-vcycles", "1"))));
    Path other = new Path(tmp.resolve("other").toString());
    assertEquals(0, ParsaCli.runStep(conf, "refine-u", concat(refine, "--output", other.toString())));
    JsonNode c = JsonFiles.MAPPER.readTree(new File(other.toString(), "_refine.json"));
    assertTrue(c.get("blocksReadEarly").asBoolean(), c.toString());
    assertFalse(c.get("multilevelSeedsAhead").asBoolean(), c.toString());
    assertEquals(RefineUToolTest.readParts(fs, plain), RefineUToolTest.readParts(fs, other));
  }

  @Test
  void thePipelineReadsEarlyWhenAskedAndRefusesAnUnknownSetting() throws Exception {
    File out = tmp.resolve("run").toFile();
    Configuration c = TestData.localConf();
    c.set(PipelineTool.PRELOAD, "true");
    assertEquals(0, ParsaCli.runStep(c, "pipeline", "--input", SAMPLE.getAbsolutePath(), "--format", "libsvm",
        "--k", "4", "--output", out.getAbsolutePath(), "--blocks", "2", "--workers", "1", "--mode", "embedded"));
    JsonNode refine = JsonFiles.MAPPER.readTree(new File(out, "u-refined/_refine.json"));
    assertTrue(refine.get("blocksReadEarly").asBoolean(), refine.toString());
    assertTrue(refine.get("multilevelSeedsAhead").asBoolean(), refine.toString());
    // embedded by default it does not (partition-u's workers take the cores)
    File out2 = tmp.resolve("run2").toFile();
    assertEquals(0, ParsaCli.runStep(TestData.localConf(), "pipeline", "--input", SAMPLE.getAbsolutePath(), "--format",
        "libsvm", "--k", "4", "--output", out2.getAbsolutePath(), "--blocks", "2", "--workers", "1", "--mode",
        "embedded"));
    JsonNode refine2 = JsonFiles.MAPPER.readTree(new File(out2, "u-refined/_refine.json"));
    assertFalse(refine2.get("blocksReadEarly").asBoolean(), refine2.toString());
    assertEquals(refine.get("sumTraffic"), refine2.get("sumTraffic"));

    c.set(PipelineTool.PRELOAD, "sometimes");
    File bad = tmp.resolve("bad").toFile();
    assertNotEquals(0, ParsaCli.runStep(c, "pipeline", "--input", SAMPLE.getAbsolutePath(), "--format", "libsvm",
        "--k", "4", "--output", bad.getAbsolutePath()));
    assertFalse(bad.exists() && new File(bad, "blocks").exists(), "refused before any step wrote");
  }

  private static String[] concat(List<String> a, String... b) {
    return concat(a.toArray(new String[0]), b);
  }

  private static String[] concat(String[] a, String... b) {
    String[] r = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }
}
