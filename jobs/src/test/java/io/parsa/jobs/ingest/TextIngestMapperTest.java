package io.parsa.jobs.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.common.BadRecordException;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mrunit.mapreduce.MapDriver;
import org.apache.hadoop.mrunit.types.Pair;
import org.junit.jupiter.api.Test;

/** MRUnit tests of the text mapper: valid libsvm and edge-list lines, and every kind of malformed line. */
class TextIngestMapperTest {

  private static MapDriver<LongWritable, Text, RowKey, RowPiece> driver(String format, long skip) {
    MapDriver<LongWritable, Text, RowKey, RowPiece> d = MapDriver.newMapDriver(new TextIngestMapper());
    d.getConfiguration().set(IngestConfig.FORMAT, format);
    d.getConfiguration().setLong(IngestConfig.SKIP_BAD_RECORDS, skip);
    d.withMapInputPath(new Path("file:/data/in.libsvm"));
    return d;
  }

  private static MapDriver<LongWritable, Text, RowKey, RowPiece> lines(
      MapDriver<LongWritable, Text, RowKey, RowPiece> d, String... lines) {
    for (int i = 0; i < lines.length; i++) {
      d.withInput(new LongWritable(i + 1), new Text(lines[i]));
    }
    return d;
  }

  private static long[] keys(RowPiece p) {
    long[] k = new long[p.numKeys()];
    for (int i = 0; i < k.length; i++) {
      k[i] = p.key(i);
    }
    return k;
  }

  @Test
  void libsvmRowsGetLineIdsAndKeepKeysInOrder() throws Exception {
    MapDriver<LongWritable, Text, RowKey, RowPiece> d = lines(driver("libsvm", 0),
        "# header comment",
        "+1 qid:3 7:0.5 2:1 7:1e-3 # trailing comment",
        "",
        "-1",
        "1,3 5:-.25 0:NaN");
    List<Pair<RowKey, RowPiece>> out = d.run();
    assertEquals(3, out.size());
    assertEquals(1, out.get(0).getFirst().id(), "0-based line 1 (the comment is line 0)");
    assertArrayEquals(new long[] {7, 2, 7}, keys(out.get(0).getSecond()));
    assertEquals("+1 qid:3 7:0.5 2:1 7:1e-3 # trailing comment", new String(out.get(0).getSecond().raw()));
    assertEquals(3, out.get(1).getFirst().id());
    assertEquals(0, out.get(1).getSecond().numKeys(), "a row may have no features");
    assertEquals(4, out.get(2).getFirst().id());
    assertArrayEquals(new long[] {5, 0}, keys(out.get(2).getSecond()));
    assertEquals(5, d.getCounters().findCounter(IngestCounters.LINES).getValue());
    assertEquals(3, d.getCounters().findCounter(IngestCounters.ROWS_IN).getValue());
    assertEquals(5, d.getCounters().findCounter(IngestCounters.NONZEROS_IN).getValue());
    assertEquals(1, d.getCounters().findCounter(IngestCounters.COMMENT_LINES).getValue());
    assertEquals(1, d.getCounters().findCounter(IngestCounters.BLANK_LINES).getValue());
  }

  @Test
  void fileOrdinalGoesIntoTheHighBits() throws Exception {
    MapDriver<LongWritable, Text, RowKey, RowPiece> d = MapDriver.newMapDriver(new TextIngestMapper() {
      // the ordinal normally comes from the OrdinalFileSplit; MRUnit gives a plain FileSplit, so ordinal 0
    });
    d.getConfiguration().set(IngestConfig.FORMAT, "libsvm");
    d.withInput(new LongWritable(1), new Text("1 1:1"));
    assertEquals(IngestConfig.lineId(0, 0), d.run().get(0).getFirst().id());
    assertEquals(3L << 40 | 9, IngestConfig.lineId(3, 9));
  }

  @Test
  void uedgesEmitBothDirectionsRawOnlyOnSource() throws Exception {
    MapDriver<LongWritable, Text, RowKey, RowPiece> d = lines(driver("uedges", 0), "# FromNodeId\tToNodeId",
        "1\t2", "% other comment", "2 3 0.5");
    List<Pair<RowKey, RowPiece>> out = d.run();
    // combined per row, in row order: 1 <- (1 2); 2 <- (1 2) reversed, then (2 3); 3 <- (2 3) reversed
    assertEquals(3, out.size());
    assertEquals(1, out.get(0).getFirst().id());
    assertArrayEquals(new long[] {2}, keys(out.get(0).getSecond()));
    assertEquals("1\t2", new String(out.get(0).getSecond().raw()));
    assertEquals(1, out.get(0).getSecond().rawLines());
    assertEquals(2, out.get(1).getFirst().id());
    assertArrayEquals(new long[] {1, 3}, keys(out.get(1).getSecond()), "keys in line order");
    assertEquals("2 3 0.5", new String(out.get(1).getSecond().raw()), "only the line it is the source of");
    assertEquals(out.get(0).getFirst().seq(), out.get(1).getFirst().seq(), "keyed by the row's first line");
    assertEquals(3, out.get(2).getFirst().id());
    assertArrayEquals(new long[] {2}, keys(out.get(2).getSecond()));
    assertEquals(0, out.get(2).getSecond().rawLength());
    assertEquals(4, d.getCounters().findCounter(IngestCounters.NONZEROS_IN).getValue());
    assertEquals(2, d.getCounters().findCounter(IngestCounters.RECORDS_IN).getValue());
    assertEquals(2, d.getCounters().findCounter(IngestCounters.COMMENT_LINES).getValue());
    assertEquals(3, d.getCounters().findCounter(IngestCounters.COMBINED_PIECES).getValue());
  }

  @Test
  void directedEdgesGiveTargetsAnEmptyPiece() throws Exception {
    List<Pair<RowKey, RowPiece>> out = lines(driver("edges", 0), "5 9", "5 7", "9 5").run();
    assertEquals(3, out.size());
    assertEquals(5, out.get(0).getFirst().id());
    assertArrayEquals(new long[] {9, 7}, keys(out.get(0).getSecond()), "the empty piece of line 3 adds no key");
    assertEquals("5 9\n5 7", new String(out.get(0).getSecond().raw()));
    assertEquals(2, out.get(0).getSecond().rawLines());
    assertEquals(7, out.get(1).getFirst().id(), "a vertex that is only a target is a row");
    assertEquals(0, out.get(1).getSecond().numKeys());
    assertEquals(0, out.get(1).getSecond().rawLength());
    assertEquals(9, out.get(2).getFirst().id());
    assertArrayEquals(new long[] {5}, keys(out.get(2).getSecond()));
    assertEquals("9 5", new String(out.get(2).getSecond().raw()));
  }

  /**
   * A small buffer flushes many times: the pieces of a row then come in several records, and concatenated by
   * (row, first line), as the reducer does, they give the same keys and lines as one buffer.
   */
  @Test
  void flushesKeepEveryRowsKeysAndLinesInLineOrder() throws Exception {
    java.util.Random rnd = new java.util.Random(11);
    String[] in = new String[300];
    for (int i = 0; i < in.length; i++) {
      in[i] = rnd.nextInt(12) + " " + rnd.nextInt(12);
    }
    java.util.Map<Long, String> whole = assembled(lines(driver("uedges", 0), in).run());
    MapDriver<LongWritable, Text, RowKey, RowPiece> small = lines(driver("uedges", 0), in);
    small.getConfiguration().setInt(IngestConfig.MAP_BUFFER_PIECES, 5);
    List<Pair<RowKey, RowPiece>> out = small.run();
    assertTrue(out.size() > 100, "flushed often: " + out.size());
    assertEquals(whole, assembled(out));
    // and from first principles: row r's keys are the other ends of its lines, in line order
    java.util.Map<Long, StringBuilder> direct = new java.util.TreeMap<>();
    for (String l : in) {
      String[] uv = l.split(" ");
      long u = Long.parseLong(uv[0]);
      long v = Long.parseLong(uv[1]);
      direct.computeIfAbsent(u, x -> new StringBuilder()).append(v).append(',');
      direct.computeIfAbsent(v, x -> new StringBuilder()).append(u).append(',');
    }
    for (java.util.Map.Entry<Long, StringBuilder> e : direct.entrySet()) {
      assertTrue(whole.get(e.getKey()).startsWith(e.getValue().toString() + "|"), "row " + e.getKey());
    }
  }

  /** row -> "k1,k2,...|raw lines" after sorting the pieces by (row, first line) and concatenating them. */
  private static java.util.Map<Long, String> assembled(List<Pair<RowKey, RowPiece>> out) {
    List<Pair<RowKey, RowPiece>> sorted = new java.util.ArrayList<>(out);
    sorted.sort((x, y) -> x.getFirst().id() != y.getFirst().id()
        ? Long.compare(x.getFirst().id(), y.getFirst().id()) : Long.compare(x.getFirst().seq(), y.getFirst().seq()));
    java.util.Map<Long, StringBuilder[]> rows = new java.util.TreeMap<>();
    for (Pair<RowKey, RowPiece> p : sorted) {
      StringBuilder[] r = rows.computeIfAbsent(p.getFirst().id(),
          x -> new StringBuilder[] {new StringBuilder(), new StringBuilder()});
      for (long k : keys(p.getSecond())) {
        r[0].append(k).append(',');
      }
      if (p.getSecond().rawLength() > 0) {
        r[1].append(r[1].length() > 0 ? "\n" : "").append(new String(p.getSecond().raw()));
      }
    }
    java.util.Map<Long, String> m = new java.util.TreeMap<>();
    rows.forEach((id, r) -> m.put(id, r[0] + "|" + r[1]));
    return m;
  }

  private static BadRecordException bad(String format, String line) {
    return assertThrows(BadRecordException.class, () -> lines(driver(format, 0),
        format.equals("libsvm") ? "1 1:1" : "1 2", line).run());
  }

  private static void assertBad(String format, String line, String expectedPart) {
    BadRecordException e = bad(format, line);
    assertEquals("file:/data/in.libsvm", e.file());
    assertEquals(2, e.line());
    assertTrue(e.getMessage().startsWith("file:/data/in.libsvm:2: "), e.getMessage());
    assertTrue(e.getMessage().contains(expectedPart), e.getMessage());
  }

  @Test
  void badNumberValue() {
    assertBad("libsvm", "1 3:abc", "bad value in feature '3:abc'; expected index:<number>");
    assertBad("libsvm", "1 3:", "bad value in feature '3:'");
    assertBad("libsvm", "1 3:1.5e", "bad value");
  }

  @Test
  void badLabel() {
    assertBad("libsvm", "yes 3:1", "bad label 'yes'; expected a number");
    assertBad("libsvm", "3:1 4:1", "expected a label (a number) first");
  }

  @Test
  void missingColon() {
    assertBad("libsvm", "1 3 4:1", "missing ':' in feature '3'; expected index:value");
  }

  @Test
  void negativeIndex() {
    assertBad("libsvm", "1 -3:1", "negative feature index -3; expected a non-negative integer");
  }

  @Test
  void nonIntegerIndex() {
    assertBad("libsvm", "1 2.5:1", "non-integer feature index '2.5'");
    assertBad("libsvm", "1 x:1", "non-integer feature index 'x'");
    assertBad("libsvm", "1 qid:x 1:1", "bad query id 'qid:x'");
  }

  @Test
  void indexOverflow() {
    assertBad("libsvm", "1 9223372036854775808:1", "overflows a 64-bit id");
  }

  @Test
  void rowIdOverflow() {
    BadRecordException e = assertThrows(BadRecordException.class, () -> driver("libsvm", 0)
        .withInput(new LongWritable(IngestConfig.MAX_LINE_INDEX + 2), new Text("1 1:1")).run());
    assertEquals(IngestConfig.MAX_LINE_INDEX + 2, e.line());
    assertTrue(e.getMessage().contains("overflows the row id"), e.getMessage());
  }

  @Test
  void badEdgeLines() {
    assertBad("edges", "7", "only one column '7'; expected two vertex ids");
    assertBad("uedges", "7 x", "non-integer vertex id 'x'");
    assertBad("uedges", "-7 1", "negative vertex id -7");
    assertBad("edges", "1 99999999999999999999", "vertex id 99999999999999999999 overflows a 64-bit id");
  }

  @Test
  void inputWithoutRecordsFails() {
    // (a zero-line file cannot be fed through MRUnit; IngestToolTest covers it with a real empty file)
    BadRecordException c = assertThrows(BadRecordException.class,
        () -> lines(driver("edges", 0), "# only", "# comments").run());
    assertEquals(3, c.line());
    assertTrue(c.getMessage().contains("empty input"), c.getMessage());
  }

  @Test
  void skipPolicySkipsUpToNAndCounts() throws Exception {
    MapDriver<LongWritable, Text, RowKey, RowPiece> d = lines(driver("libsvm", 2),
        "1 1:1", "1 x:1", "1 2:2", "1 3", "1 3:3");
    List<Pair<RowKey, RowPiece>> out = d.run();
    assertEquals(3, out.size());
    assertEquals(2, d.getCounters().findCounter(IngestCounters.BAD_RECORDS_SKIPPED).getValue());
    assertEquals(5, d.getCounters().findCounter(IngestCounters.LINES).getValue());

    BadRecordException e = assertThrows(BadRecordException.class, () -> lines(driver("libsvm", 2),
        "1 1:1", "1 x:1", "1 2:2", "1 3", "1 -3:3").run());
    assertEquals(5, e.line());
    assertTrue(e.getMessage().contains("more than --skip-bad-records 2"), e.getMessage());
  }
}
