package io.parsa.jobs.reshuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.parsa.avro.VAssignment;
import io.parsa.jobs.mr.JoinValue;
import io.parsa.jobs.mr.Mix;
import io.parsa.jobs.mr.RowMapper;
import io.parsa.jobs.mr.TestData;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mrunit.mapreduce.ReduceDriver;
import org.junit.jupiter.api.Test;

/** MRUnit tests of reshuffle's reducers, and unit tests of the key rewriting. */
class ReshuffleMapReduceTest {

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static JoinValue row(long id, String raw, long... keys) {
    return new JoinValue().setRow(id, keys, keys.length, b(raw), Double.NaN);
  }

  @Test
  void assignReducerKeysRowsByPartAndId() throws Exception {
    ReduceDriver<LongWritable, JoinValue, PartRowKey, JoinValue> d = ReduceDriver.newReduceDriver(new AssignReducer());
    d.withInput(new LongWritable(8), List.of(row(8, "1 2:1", 2), JoinValue.part(1)))
        .withInput(new LongWritable(9), List.of(row(9, "1 3:1", 3)))
        .withOutput(new PartRowKey(1, 8), row(8, "1 2:1", 2)).runTest();
    assertEquals(1, d.getCounters().findCounter(io.parsa.jobs.mr.JoinCounters.ROW_WITHOUT_ASSIGNMENT).getValue());
  }

  @Test
  void shardReducerWritesRawLinesAndCountsTheAfterChecksum() throws Exception {
    ReduceDriver<PartRowKey, JoinValue, Object, NullWritable> d = ReduceDriver.newReduceDriver(new ShardReducer());
    d.withInput(new PartRowKey(0, 1), List.of(row(1, "1 2:1 5:1", 2, 5)))
        .withInput(new PartRowKey(0, 2), List.of(row(2, "")))
        .withInput(new PartRowKey(0, 3), List.of(row(3, "3\t4\n3\t6", 4, 6)))
        .withOutput(new Text("1 2:1 5:1"), NullWritable.get())
        .withOutput(new Text("3\t4\n3\t6"), NullWritable.get()).runTest();
    assertEquals(3, d.getCounters().findCounter(ReshuffleTool.Counters.ROWS_OUT).getValue());
    assertEquals(4, d.getCounters().findCounter(ReshuffleTool.Counters.NONZEROS_OUT).getValue());
    assertEquals(1, d.getCounters().findCounter(ReshuffleTool.Counters.EMPTY_ROWS).getValue());
    assertEquals(10 + 8, d.getCounters().findCounter(ReshuffleTool.Counters.TEXT_BYTES_WRITTEN).getValue());
    long h = 0;
    for (String s : new String[] {"1 2:1 5:1", "", "3\t4\n3\t6"}) {
      h += Mix.hashBytes(RowMapper.HASH_SEED_1, b(s), 0, b(s).length);
    }
    assertEquals(h, d.getCounters().findCounter(ReshuffleTool.Counters.ROW_HASH_SUM_OUT).getValue());
  }

  @Test
  void shardReducerRenumbersFromTheVAssignment() throws Exception {
    FileSystem fs = FileSystem.get(TestData.localConf());
    Path v = new Path(TestData.tempDir("shard-v"), "v");
    TestData.writeAvro(fs, new Path(v, "part-m-00000.avro"),
        List.of(new VAssignment(2L, 0, 0L), new VAssignment(5L, 1, 1L)));
    ReduceDriver<PartRowKey, JoinValue, Object, NullWritable> d = ReduceDriver.newReduceDriver(new ShardReducer());
    d.getConfiguration().set(ReshuffleTool.V_ASSIGNMENT, v.toString());
    d.withInput(new PartRowKey(0, 1), List.of(row(1, "1 2:1 5:1", 2, 5)))
        .withInput(new PartRowKey(0, 2), List.of(row(2, "1 7:1", 7)))
        .withOutput(new Text("1 1:1 2:1"), NullWritable.get()).runTest();
    assertEquals(2, d.getCounters().findCounter(ReshuffleTool.Counters.KEYS_REWRITTEN).getValue());
    assertEquals(1, d.getCounters().findCounter(ReshuffleTool.Counters.KEYS_WITHOUT_NEW_KEY).getValue());
  }

  private static String rewrite(String raw, RowRewriter.Format f, Map<Long, Long> m, long... keys) {
    RowRewriter.Result out = RowRewriter.rewrite(b(raw), keys, keys.length, f, m::get);
    return out == null ? null : new String(out.bytes, StandardCharsets.UTF_8);
  }

  @Test
  void rewriterKeepsEverythingButTheKeys() {
    Map<Long, Long> m = Map.of(3L, 10L, 5L, 0L, 7L, 99L);
    assertEquals("2 qid:7 11:0.5\t1:-1  # 3:1 kept", rewrite("2 qid:7 3:0.5\t5:-1  # 3:1 kept",
        RowRewriter.Format.AUTO, m, 3, 5));
    assertEquals("+1 100:1 11:2 ", rewrite("+1 7:1 3:2 ", RowRewriter.Format.LIBSVM, m, 7, 3));
    assertEquals("1\t10\n1 0 w=3\n1\t99", rewrite("1\t3\n1 5 w=3\n1\t7", RowRewriter.Format.AUTO, m, 3, 5, 7));
    assertEquals(RowRewriter.Format.EDGES, RowRewriter.detect(b("4 5")));
    assertEquals(RowRewriter.Format.LIBSVM, RowRewriter.detect(b("4 5:1")));
    assertNull(rewrite("1 3:1 5:1", RowRewriter.Format.LIBSVM, m, 5, 3), "keys out of order");
    assertNull(rewrite("1 3:1", RowRewriter.Format.LIBSVM, m, 3, 5), "a key missing from the line");
    assertNull(rewrite("1\t3", RowRewriter.Format.EDGES, m, 5), "wrong target");
    assertNull(rewrite("1\t3\n1\t3", RowRewriter.Format.EDGES, m, 3, 5), "target listed more often than a key");
    // undirected input: row 1 also has key 7 from the line "7 1" of vertex 7, which is not in its raw bytes
    RowRewriter.Result u = RowRewriter.rewrite(b("1\t5\n1\t3"), new long[] {3, 7, 5}, 3, RowRewriter.Format.EDGES,
        m::get);
    assertEquals("1\t0\n1\t10", new String(u.bytes, StandardCharsets.UTF_8));
    assertEquals(2, u.keysRewritten);
  }
}
