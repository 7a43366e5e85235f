package io.parsa.jobs.ingest;

import static io.parsa.jobs.ingest.IngestTestSupport.assertExit;
import static io.parsa.jobs.ingest.IngestTestSupport.ingest;
import static io.parsa.jobs.ingest.IngestTestSupport.raw;
import static io.parsa.jobs.ingest.IngestTestSupport.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.avro.GraphRow;
import io.parsa.common.JsonFiles;
import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ingest tool end to end in local mode on small inputs. */
class IngestToolTest {

  @TempDir
  File tmp;

  private final Configuration conf = IngestTestSupport.localConf();

  private IngestStats stats(File out) throws Exception {
    return JsonFiles.read(FileSystem.getLocal(conf), new Path(out.getPath(), "_stats.json"), IngestStats.class);
  }

  private static String[] names(File dir) {
    String[] n = dir.list((d, name) -> !name.startsWith("."));
    java.util.Arrays.sort(n);
    return n;
  }

  @Test
  void readsDirectoriesGlobsGzipAndBzip2WithPathOrderedIds() throws Exception {
    File d1 = new File(tmp, "in1");
    write(new File(d1, "a.libsvm"), "1 1:1 2:1 1:0\n# comment\n-1 3:0.5\n");
    write(new File(d1, "b.libsvm.gz"), "1 4:1\n1 5:1 6:1\n");
    write(new File(d1, "sub/c.libsvm.bz2"), "-1 7:2\n");
    write(new File(d1, "_ignored.libsvm"), "not libsvm at all\n");
    File d2 = new File(tmp, "in2");
    write(new File(d2, "d.libsvm"), "1\n");
    write(new File(d2, "e.txt"), "junk that the glob does not match\n");
    File out = new File(tmp, "blocks");

    Configuration viaJob = new Configuration(conf);
    viaJob.setLong(KeyStatsJob.LOCAL_MAX_NONZEROS, 0);   // key statistics by the MapReduce job
    IngestTestSupport.Run r = ingest(viaJob, "--input", d1 + "," + d2 + "/*.libsvm", "--output", out.getPath(),
        "--blocks", "3", "--weights", "nnz", "--key-stats", "exact");
    assertExit(0, r);
    assertArrayEquals(new String[] {"_SUCCESS", "_stats.json", "block-00000.avro", "block-00001.avro",
        "block-00002.avro"}, names(out));

    Map<Long, GraphRow> byId = new HashMap<>();
    for (GraphRow row : IngestTestSupport.rows(conf, out)) {
      assertEquals(null, byId.put(row.getId(), row), "duplicate id " + row.getId());
    }
    // files sorted by path: in1/a, in1/b.gz, in1/sub/c.bz2, in2/d
    assertEquals(6, byId.size());
    assertEquals("1 1:1 2:1 1:0", raw(byId.get(0L)));
    assertEquals(List.of(1L, 2L, 1L), byId.get(0L).getKeys(), "every non-zero kept, in input order");
    assertEquals("-1 3:0.5", raw(byId.get(2L)), "the comment line keeps its line number");
    assertEquals(List.of(5L, 6L), byId.get(1L << 40 | 1).getKeys());
    assertEquals(2.0, byId.get(1L << 40 | 1).getWeight());
    assertEquals(List.of(7L), byId.get(2L << 40).getKeys());
    assertEquals(List.of(), byId.get(3L << 40).getKeys());

    IngestStats s = stats(out);
    assertEquals(6, s.rows);
    assertEquals(8, s.nonZeros);
    assertEquals(7, s.distinctKeys);
    assertEquals(3, s.rowDegree.max);
    assertEquals(1, s.keyDegree.max, "key 1 is listed twice by one row: degree 1 (rows using it)");
    assertEquals(1.0, s.keyDegree.mean, 1e-12);
    assertEquals(4, s.files.size());
    assertEquals(3, s.rowsPerBlock.size());
    assertEquals(6, s.rowsPerBlock.stream().mapToLong(Long::longValue).sum());
    for (int b = 0; b < 3; b++) {
      assertEquals((double) s.nonZerosPerBlock.get(b), s.weightPerBlock.get(b), "block " + b + " weighs its nnz");
    }
    assertEquals(1, s.commentLines);
    IngestCountersCheck.assertBalanced(r.tool().lastCounters());
    // each block holds exactly the rows the hash sends to it
    for (int b = 0; b < 3; b++) {
      for (GraphRow row : IngestTestSupport.block(conf, new File(out, "block-0000" + b + ".avro"))) {
        assertEquals(b, BlockPartitioner.blockOf(IngestConfig.DEFAULT_SEED, row.getId(), 3));
      }
    }
  }

  @Test
  void estimatedKeyStatisticsBracketTheExactCountAndKeepEdgesExact() throws Exception {
    // 3,000 rows over 20,000 possible keys, a key listed twice now and then
    StringBuilder sb = new StringBuilder();
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(5);
    for (int r = 0; r < 3000; r++) {
      sb.append(r % 2);
      int n = 1 + rnd.nextInt(12);
      for (int j = 0; j < n; j++) {
        sb.append(' ').append(1 + rnd.nextInt(20_000)).append(":1");
      }
      if (r % 97 == 0) {
        sb.append(" 7:1 7:1");
      }
      sb.append('\n');
    }
    File in = new File(tmp, "est.libsvm");
    write(in, sb.toString());
    File exactOut = new File(tmp, "exact");
    File estOut = new File(tmp, "estimate");
    assertExit(0, ingest(conf, "--input", in.getPath(), "--output", exactOut.getPath(), "--blocks", "3",
        "--key-stats", "exact"));
    Configuration big = new Configuration(conf);
    big.setLong(KeyStatsJob.LOCAL_MAX_NONZEROS, 0);   // auto: above the limit, estimate
    IngestTestSupport.Run r = ingest(big, "--input", in.getPath(), "--output", estOut.getPath(), "--blocks", "3");
    assertExit(0, r);
    IngestStats exact = stats(exactOut);
    IngestStats est = stats(estOut);
    assertEquals(false, exact.distinctKeysEstimated);
    assertEquals(true, est.distinctKeysEstimated);
    assertTrue(est.distinctKeysBounds.get(0) <= exact.distinctKeys && exact.distinctKeys
        <= est.distinctKeysBounds.get(1), "exact " + exact.distinctKeys + " within " + est.distinctKeysBounds);
    assertTrue(Math.abs(est.distinctKeys - exact.distinctKeys) <= 0.03 * exact.distinctKeys,
        est.distinctKeys + " vs " + exact.distinctKeys);
    assertEquals(exact.edges, est.edges, "edges are counted exactly either way");
    assertEquals(exact.nonZeros - exact.edges, est.repeatedKeys);
    assertTrue(exact.repeatedKeys >= 31, "rows listing key 7 twice: " + exact.repeatedKeys);
    assertEquals(-1, est.keyDegree.max, "no key degrees without the key shuffle");
    assertEquals(exact.rowsPerBlock, est.rowsPerBlock);
    assertTrue(r.out().contains("about ") && r.out().contains("(estimated: "), r.out());
  }

  private String libsvm(int rows) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < rows; i++) {
      sb.append(i % 2 == 0 ? "1" : "-1");
      for (int j = 0; j < 1 + i % 5; j++) {
        sb.append(' ').append(1 + (i * 7 + j * 13) % 97).append(":1");
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  private static List<List<Long>> idsPerBlock(Configuration conf, File out) throws Exception {
    List<List<Long>> ids = new ArrayList<>();
    for (String n : names(out)) {
      if (n.endsWith(".avro")) {
        List<Long> l = new ArrayList<>();
        IngestTestSupport.block(conf, new File(out, n)).forEach(r -> l.add(r.getId()));
        ids.add(l);
      }
    }
    return ids;
  }

  @Test
  void sameInputSameIdsAndBlocksOnEveryRun() throws Exception {
    File in = write(new File(tmp, "data.libsvm"), libsvm(500));
    File a = new File(tmp, "a");
    File b = new File(tmp, "b");
    File c = new File(tmp, "c");
    assertExit(0, ingest(conf, "--input", in.getPath(), "--output", a.getPath(), "--blocks", "4"));
    assertExit(0, ingest(conf, "--input", in.getPath(), "--output", b.getPath(), "--blocks", "4"));
    assertExit(0, ingest(conf, "--input", in.getPath(), "--output", c.getPath(), "--blocks", "4",
        "--seed", "7"));
    assertEquals(idsPerBlock(conf, a), idsPerBlock(conf, b));
    assertNotEquals(idsPerBlock(conf, a), idsPerBlock(conf, c), "another seed, another random split");
    assertEquals(stats(a).rowsPerBlock, stats(b).rowsPerBlock);
  }

  /** A plain file read in many byte ranges gives the rows, ids and raw lines of whole-file reading. */
  @Test
  void largePlainFilesAreReadInRangesWithWholeFileLineNumbers() throws Exception {
    File in = write(new File(tmp, "data.libsvm"), "# header comment\n\n" + libsvm(3000).replace("\n1 2", "\r\n1 2"));
    File whole = new File(tmp, "whole");
    File ranged = new File(tmp, "ranged");
    Configuration noSplit = new Configuration(conf);
    noSplit.setBoolean(io.parsa.jobs.common.LineNumberInputFormat.SPLIT_TEXT, false);
    assertExit(0, ingest(noSplit, "--input", in.getPath(), "--output", whole.getPath(), "--blocks", "3"));
    Configuration small = new Configuration(conf);
    small.setLong(org.apache.hadoop.mapreduce.lib.input.FileInputFormat.SPLIT_MAXSIZE, in.length() / 9);
    small.setBoolean(io.parsa.jobs.common.LineNumberInputFormat.SPLIT_TEXT, true); // off by default in local mode
    IngestTestSupport.Run r = ingest(small, "--input", in.getPath(), "--output", ranged.getPath(), "--blocks", "3");
    assertExit(0, r);
    assertEquals(1, stats(whole).inputSplits);
    assertEquals(9, stats(ranged).inputSplits);
    assertTrue(stats(ranged).lineCountMs > 0);
    assertEquals(1, r.tool().lastCounters().findCounter(IngestCounters.FILES).getValue());
    assertEquals(3002, r.tool().lastCounters().findCounter(IngestCounters.LINES).getValue());
    List<String> a = new ArrayList<>();
    List<String> b = new ArrayList<>();
    IngestTestSupport.rows(conf, whole).forEach(x -> a.add(x.getId() + " " + x.getKeys() + " " + raw(x)));
    IngestTestSupport.rows(conf, ranged).forEach(x -> b.add(x.getId() + " " + x.getKeys() + " " + raw(x)));
    assertEquals(3000, a.size());
    assertEquals(a, b);
    assertEquals(stats(whole).rowsPerBlock, stats(ranged).rowsPerBlock);

    // a bad line deep inside a later range is reported with its line number in the whole file
    String text = Files.readString(in.toPath());
    int at = text.indexOf("\n", text.length() * 7 / 9) + 1;
    long lineNo = text.substring(0, at).chars().filter(ch -> ch == '\n').count() + 1;
    File bad = write(new File(tmp, "bad.libsvm"), text.substring(0, at) + "1 5:x\n" + text.substring(at));
    IngestTestSupport.Run e = ingest(small, "--input", bad.getPath(), "--output", new File(tmp, "bad").getPath());
    assertExit(2, e);
    assertTrue(e.err().contains("ingest: file:" + bad.getPath() + ":" + lineNo + ": bad value in feature '5:x'"),
        "expected line " + lineNo + ": " + e.err());
  }

  @Test
  void refusesToOverwriteUnlessAsked() throws Exception {
    File in = write(new File(tmp, "data.libsvm"), libsvm(20));
    File in2 = write(new File(tmp, "more.libsvm"), libsvm(30));
    File out = new File(tmp, "out");
    assertExit(0, ingest(conf, "--input", in.getPath(), "--output", out.getPath(), "--blocks", "2"));
    IngestTestSupport.Run again = ingest(conf, "--input", in2.getPath(), "--output", out.getPath());
    assertExit(2, again);
    assertTrue(again.err().contains("already exists; pass --overwrite"), again.err());
    assertEquals(20, stats(out).rows, "old output untouched");
    assertExit(0, ingest(conf, "--input", in2.getPath(), "--output", out.getPath(), "--blocks", "2",
        "--overwrite"));
    assertEquals(30, stats(out).rows);
    assertEquals(List.of("out"), leftovers());
  }

  /** Everything in tmp except inputs: a failed or finished run leaves no hidden temporary directory. */
  private List<String> leftovers() {
    List<String> l = new ArrayList<>();
    for (String n : tmp.list()) {
      if (!n.endsWith(".libsvm") && !n.endsWith(".gz") && !n.endsWith(".edges")) {
        l.add(n);
      }
    }
    java.util.Collections.sort(l);
    return l;
  }

  @Test
  void malformedLineFailsWithFileLineAndExpectation() throws Exception {
    File in = write(new File(tmp, "bad.libsvm"), "1 1:1\n1 2:1\n1 3:x\n1 4:1\n");
    File out = new File(tmp, "out");
    IngestTestSupport.Run r = ingest(conf, "--input", in.getPath(), "--output", out.getPath());
    assertExit(2, r);
    assertTrue(r.err().contains("ingest: file:" + in.getPath() + ":3: bad value in feature '3:x'; "
        + "expected index:<number>"), r.err());
    assertFalse(r.err().contains("\tat "), "a message, not a stack trace");
    assertFalse(out.exists());
    assertEquals(List.of(), leftovers());
  }

  @Test
  void truncatedGzipAndEmptyFilesFail() throws Exception {
    File full = write(new File(tmp, "full.libsvm.gz"), libsvm(20_000));
    byte[] bytes = Files.readAllBytes(full.toPath());
    File cut = new File(tmp, "cut.libsvm.gz");
    Files.write(cut.toPath(), java.util.Arrays.copyOf(bytes, bytes.length / 2));
    IngestTestSupport.Run r = ingest(conf, "--input", cut.getPath(), "--output", new File(tmp, "o1").getPath());
    assertExit(2, r);
    assertTrue(r.err().matches("(?s).*ingest: file:" + cut.getPath() + ":\\d+: truncated or corrupt compressed "
        + "input.*"), r.err());

    File empty = write(new File(tmp, "empty.libsvm"), "");
    IngestTestSupport.Run e = ingest(conf, "--input", empty.getPath(), "--output", new File(tmp, "o2").getPath());
    assertExit(2, e);
    assertTrue(e.err().contains("ingest: file:" + empty.getPath() + ":1: empty input"), e.err());
  }

  @Test
  void skipsUpToNBadLinesInTotalAndCountsThem() throws Exception {
    write(new File(tmp, "in/a.libsvm"), "1 1:1\nbad\n1 2:1\n1 3:y\n");
    write(new File(tmp, "in/b.libsvm"), "1 1:1\n1 -1:1\n");
    File ok = new File(tmp, "ok");
    IngestTestSupport.Run r = ingest(conf, "--input", new File(tmp, "in").getPath(), "--output", ok.getPath(),
        "--skip-bad-records", "3", "--blocks", "2");
    assertExit(0, r);
    IngestStats s = stats(ok);
    assertEquals(3, s.rows);
    assertEquals(3, s.badRecordsSkipped);
    assertEquals(3, s.skippedExamples.size());
    assertTrue(s.skippedExamples.get(0).endsWith("a.libsvm:2: bad label 'bad'; expected a number (or "
        + "comma-separated numbers)"), s.skippedExamples.toString());
    assertEquals(3, r.tool().lastCounters().findCounter(IngestCounters.BAD_RECORDS_SKIPPED).getValue());
    assertTrue(r.out().contains("3 malformed lines skipped"), r.out());

    IngestTestSupport.Run tooMany = ingest(conf, "--input", new File(tmp, "in").getPath(), "--output",
        new File(tmp, "no").getPath(), "--skip-bad-records", "2");
    assertExit(2, tooMany);
    assertTrue(tooMany.err().contains("3 malformed lines, more than --skip-bad-records 2"), tooMany.err());
    assertFalse(new File(tmp, "no").exists());
  }

  @Test
  void aKeyListedTwiceInARowCountsTwiceAsANonZeroOnceAsAnEdgeAndIsWarnedAbout() throws Exception {
    write(new File(tmp, "dup/a.libsvm"), "1 1:1 2:1 2:3\n0 3:1 3:1 3:1\n1 4:1\n");
    File ok = new File(tmp, "dup-out");
    IngestTestSupport.Run r = ingest(conf, "--input", new File(tmp, "dup").getPath(), "--output", ok.getPath(),
        "--blocks", "2");
    assertExit(0, r);
    IngestStats s = stats(ok);
    assertEquals(7, s.nonZeros);
    assertEquals(4, s.edges);
    assertEquals(3, s.repeatedKeys);
    assertTrue(r.out().contains("7 non-zeros (4 distinct row-key edges)"), r.out());
    assertTrue(r.err().contains("ingest: WARNING: 3 non-zeros list a key that their row already lists"), r.err());
  }

  @Test
  void directedEdgeListsMakeEveryVertexARow() throws Exception {
    File in = write(new File(tmp, "g.edges"), "# directed\n1\t2\n1\t3\n3\t1\n1 2\n");
    File out = new File(tmp, "g");
    assertExit(0, ingest(conf, "--input", in.getPath(), "--format", "edges", "--output", out.getPath(),
        "--blocks", "2"));
    Map<Long, GraphRow> byId = new HashMap<>();
    IngestTestSupport.rows(conf, out).forEach(r -> byId.put(r.getId(), r));
    assertEquals(3, byId.size());
    assertEquals(List.of(2L, 3L, 2L), byId.get(1L).getKeys());
    assertEquals("1\t2\n1\t3\n1 2", raw(byId.get(1L)));
    assertEquals(List.of(), byId.get(2L).getKeys(), "target-only vertex: a row without keys");
    assertEquals("", raw(byId.get(2L)));
    IngestStats s = stats(out);
    assertEquals(4, s.nonZeros);
    assertEquals(1, s.emptyRows);
    assertEquals(3, s.distinctKeys);
    assertEquals(1, s.keyDegree.max, "the duplicate edge 1->2 does not make key 2's degree 2");
    assertEquals(3, s.rowDegree.max);
    assertEquals(null, s.weightPerBlock, "no row has a weight");
  }

  @Test
  void avroInputIsReblockedAsGiven() throws Exception {
    File in = write(new File(tmp, "data.libsvm"), libsvm(300));
    File first = new File(tmp, "first");
    File second = new File(tmp, "second");
    assertExit(0, ingest(conf, "--input", in.getPath(), "--output", first.getPath(), "--blocks", "3",
        "--weights", "nnz"));
    assertExit(0, ingest(conf, "--input", first.getPath(), "--format", "avro", "--output", second.getPath(),
        "--blocks", "5", "--seed", "9"));
    Map<Long, GraphRow> a = new HashMap<>();
    IngestTestSupport.rows(conf, first).forEach(r -> a.put(r.getId(), r));
    Map<Long, GraphRow> b = new HashMap<>();
    IngestTestSupport.rows(conf, second).forEach(r -> b.put(r.getId(), r));
    assertEquals(a, b, "same rows, ids, keys, weights and raw bytes");
    IngestStats s = stats(second);
    assertEquals(5, s.rowsPerBlock.size());
    for (int i = 0; i < 5; i++) {
      assertEquals((double) s.nonZerosPerBlock.get(i), s.weightPerBlock.get(i), "the given weights, summed per block");
    }
    assertEquals(s.nonZeros, stats(first).weightPerBlock.stream().mapToDouble(Double::doubleValue).sum(), 0.0);
  }

  @Test
  void usageErrors() throws Exception {
    assertExit(2, ingest(conf, "--output", new File(tmp, "x").getPath()));
    IngestTestSupport.Run r = ingest(conf, "--input", new File(tmp, "nothing*").getPath(), "--output",
        new File(tmp, "x").getPath());
    assertExit(2, r);
    assertTrue(r.err().contains("matches no file"), r.err());
    File in = write(new File(tmp, "data.libsvm"), libsvm(3));
    assertExit(2, ingest(conf, "--input", in.getPath(), "--format", "csv", "--output", tmp + "/x"));
    assertExit(0, ingest(conf, "--help"));
    IngestTestSupport.Run notAvro = ingest(conf, "--input", in.getPath(), "--format", "avro", "--output",
        tmp + "/y");
    assertExit(2, notAvro);
    assertTrue(notAvro.err().contains("ingest: file:" + in.getPath() + ":1: not an Avro container file"),
        notAvro.err());
  }
}
