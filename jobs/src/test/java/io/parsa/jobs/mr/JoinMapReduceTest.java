package io.parsa.jobs.mr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.avro.GraphRow;
import io.parsa.avro.UAssignment;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mrunit.mapreduce.MapDriver;
import org.apache.hadoop.mrunit.mapreduce.ReduceDriver;
import org.junit.jupiter.api.Test;

/** MRUnit tests of the shared join mappers, reducer and combiner, and of the JoinValue wire format. */
class JoinMapReduceTest {

  private static JoinValue row(long id, long... keys) {
    return new JoinValue().setRow(id, keys, keys.length, null, Double.NaN);
  }

  @Test
  void rowMapperEmitsKeysAndCountsChecksum() throws Exception {
    MapDriver<AvroKey<GraphRow>, NullWritable, LongWritable, JoinValue> d = MapDriver.newMapDriver(new RowMapper());
    MrUnitAvro.configure(d.getConfiguration(), null, GraphRow.getClassSchema());
    GraphRow g = TestData.row(9, "1 4:1 2:1 4:1", 4, 2, 4);
    d.withInput(new AvroKey<>(g), NullWritable.get()).withOutput(new LongWritable(9), row(9, 4, 2, 4)).runTest();
    assertEquals(1, d.getCounters().findCounter(JoinCounters.ROWS_IN).getValue());
    assertEquals(3, d.getCounters().findCounter(JoinCounters.NONZEROS_IN).getValue());
    assertEquals(13, d.getCounters().findCounter(JoinCounters.RAW_BYTES_IN).getValue());
    byte[] raw = "1 4:1 2:1 4:1".getBytes(StandardCharsets.UTF_8);
    assertEquals(Mix.hashBytes(RowMapper.HASH_SEED_1, raw, 0, raw.length),
        d.getCounters().findCounter(JoinCounters.ROW_HASH_SUM_IN).getValue());

    MapDriver<AvroKey<GraphRow>, NullWritable, LongWritable, JoinValue> c = MapDriver.newMapDriver(new RowMapper());
    MrUnitAvro.configure(c.getConfiguration(), null, GraphRow.getClassSchema());
    c.getConfiguration().setBoolean(MrKeys.CARRY_RAW, true);
    c.withInput(new AvroKey<>(g), NullWritable.get())
        .withOutput(new LongWritable(9), new JoinValue().setRow(9, new long[] {4, 2, 4}, 3, raw, Double.NaN))
        .runTest();
  }

  @Test
  void assignmentMapperRejectsPartsOutsideK() throws Exception {
    MapDriver<AvroKey<UAssignment>, NullWritable, LongWritable, JoinValue> d =
        MapDriver.newMapDriver(new AssignmentMapper());
    MrUnitAvro.configure(d.getConfiguration(), null, UAssignment.getClassSchema());
    d.getConfiguration().setInt(MrKeys.K, 2);
    d.withInput(new AvroKey<>(new UAssignment(5L, 1)), NullWritable.get())
        .withInput(new AvroKey<>(new UAssignment(6L, 2)), NullWritable.get())
        .withOutput(new LongWritable(5), JoinValue.part(1)).runTest();
    assertEquals(2, d.getCounters().findCounter(JoinCounters.ASSIGNMENTS_IN).getValue());
    assertEquals(1, d.getCounters().findCounter(JoinCounters.BAD_PART).getValue());
  }

  @Test
  void rowKeysReducerEmitsDistinctKeysWithPlacedAndRandomPart() throws Exception {
    ReduceDriver<LongWritable, JoinValue, LongWritable, JoinValue> d = ReduceDriver.newReduceDriver(new RowKeysReducer());
    d.getConfiguration().setInt(MrKeys.K, 4);
    d.getConfiguration().setLong(MrKeys.SEED, 1);
    int rnd = Mix.randomRowPart(1, 9, 4);
    d.withInput(new LongWritable(9), List.of(JoinValue.part(3), row(9, 4, 2, 4)))
        .withOutput(new LongWritable(2), JoinValue.pair(3, rnd))
        .withOutput(new LongWritable(4), JoinValue.pair(3, rnd)).runTest();
    assertEquals(2, d.getCounters().findCounter(RowKeysReducer.Counters.ROW_KEY_PAIRS).getValue());
    Map<String, long[]> stats = PartStats.lastUnwritten();
    assertArrayEquals(new long[] {0, 0, 0, 1}, stats.get(RowKeysReducer.ROWS_PLACED));
    assertEquals(1, java.util.Arrays.stream(stats.get(RowKeysReducer.ROWS_RANDOM)).sum());
  }

  @Test
  void rowKeysReducerCountsBrokenJoins() throws Exception {
    ReduceDriver<LongWritable, JoinValue, LongWritable, JoinValue> d = ReduceDriver.newReduceDriver(new RowKeysReducer());
    d.getConfiguration().setInt(MrKeys.K, 2);
    d.withInput(new LongWritable(1), List.of(row(1, 7)))
        .withInput(new LongWritable(2), List.of(JoinValue.part(0)))
        .withInput(new LongWritable(3), List.of(row(3, 7), row(3, 7), JoinValue.part(0)))
        .withInput(new LongWritable(4), List.of(row(4, 7), JoinValue.part(0), JoinValue.part(1)))
        .runTest();
    assertEquals(1, d.getCounters().findCounter(JoinCounters.ROW_WITHOUT_ASSIGNMENT).getValue());
    assertEquals(1, d.getCounters().findCounter(JoinCounters.ASSIGNMENT_WITHOUT_ROW).getValue());
    assertEquals(1, d.getCounters().findCounter(JoinCounters.DUPLICATE_ROW).getValue());
    assertEquals(1, d.getCounters().findCounter(JoinCounters.DUPLICATE_ASSIGNMENT).getValue());
    assertEquals(0, d.getCounters().findCounter(JoinCounters.JOINED_ROWS).getValue());
  }

  @Test
  void keyPairBufferSortsByKeyThenValueAndFindsRuns() {
    KeyPairBuffer b = new KeyPairBuffer(2);
    Random rnd = new Random(5);
    List<long[]> want = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      long key = rnd.nextInt(40) - 20 + (i % 3 == 0 ? Long.MIN_VALUE / 2 : 0);
      long value = rnd.nextInt(6) - 3;
      b.add(key, value);
      want.add(new long[] {key, value});
    }
    want.sort((x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
    b.sort();
    assertEquals(want.size(), b.size());
    for (int i = 0; i < b.size(); i++) {
      assertEquals(want.get(i)[0], b.key(i), "key " + i);
      assertEquals(want.get(i)[1], b.value(i), "value " + i);
    }
    int runs = 0;
    for (int i = 0; i < b.size(); i = b.runEnd(i)) {
      int end = b.runEnd(i);
      assertTrue(end > i);
      assertTrue(end == b.size() || b.key(end) != b.key(i));
      runs++;
    }
    assertEquals(want.stream().map(x -> x[0]).distinct().count(), runs);
    b.clear();
    assertEquals(0, b.size());
  }

  @Test
  void joinValueRoundTrips() throws Exception {
    JoinValue v = new JoinValue().setRow(-5, new long[] {1, Long.MAX_VALUE, -3}, 3, new byte[] {1, 2, 10}, 2.5);
    ByteArrayOutputStream bos = new ByteArrayOutputStream();
    v.write(new DataOutputStream(bos));
    JoinValue back = new JoinValue().setParts(new long[] {9, 9, 9, 9, 9}, 5);
    back.readFields(new DataInputStream(new ByteArrayInputStream(bos.toByteArray())));
    assertEquals(v, back);
    assertArrayEquals(new long[] {1, Long.MAX_VALUE, -3}, back.longs());
  }

  @Test
  void mixIsDeterministicAndSpreads() {
    assertEquals(Mix.randomRowPart(3, 77, 16), Mix.randomRowPart(3, 77, 16));
    assertNotEquals(Mix.mix(1, 5), Mix.mix(2, 5));
    int[] counts = new int[8];
    for (long id = 0; id < 80_000; id++) {
      counts[Mix.randomRowPart(42, id << 40 | id, 8)]++;
    }
    for (int c : counts) {
      assertEquals(10_000, c, 400);
    }
  }
}
