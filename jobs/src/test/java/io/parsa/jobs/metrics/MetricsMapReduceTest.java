package io.parsa.jobs.metrics;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.parsa.avro.VAssignment;
import io.parsa.jobs.mr.JoinValue;
import io.parsa.jobs.mr.Mix;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.MrUnitAvro;
import io.parsa.jobs.mr.PartStats;
import java.util.List;
import java.util.Map;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mrunit.mapreduce.MapDriver;
import org.apache.hadoop.mrunit.mapreduce.ReduceDriver;
import org.junit.jupiter.api.Test;

/** MRUnit tests of the metrics mapper and reducer. */
class MetricsMapReduceTest {

  @Test
  void vPartMapperKeysByParameter() throws Exception {
    MapDriver<AvroKey<VAssignment>, NullWritable, LongWritable, JoinValue> d = MapDriver.newMapDriver(new VPartMapper());
    MrUnitAvro.configure(d.getConfiguration(), null, VAssignment.getClassSchema());
    d.withInput(new AvroKey<>(new VAssignment(42L, 3, 7L)), NullWritable.get())
        .withOutput(new LongWritable(42), JoinValue.part(3)).runTest();
    assertEquals(1, d.getCounters().findCounter(MetricsTool.Counters.V_RECORDS_IN).getValue());
  }

  /** Figure 4's key v2: used by workers 0 and 1, stored on server 2: inter +1 for 0 and 1, served +2 for 2. */
  @Test
  void keyMetricsReducerAddsOneKeysContribution() throws Exception {
    ReduceDriver<LongWritable, JoinValue, NullWritable, NullWritable> d =
        ReduceDriver.newReduceDriver(new KeyMetricsReducer());
    d.getConfiguration().setInt(MrKeys.K, 3);
    d.getConfiguration().setLong(MrKeys.SEED, 5);
    d.withInput(new LongWritable(2), List.of(JoinValue.pair(0, 1), JoinValue.part(2), JoinValue.pair(1, 1),
        JoinValue.pair(0, 1))).runTest();
    Map<String, long[]> s = PartStats.lastUnwritten();
    assertArrayEquals(new long[] {1, 1, 0}, s.get("placed.workingSet"));
    assertArrayEquals(new long[] {0, 0, 1}, s.get("placed.serverKeys"));
    assertArrayEquals(new long[] {0, 0, 0}, s.get("placed.inner"));
    assertArrayEquals(new long[] {0, 0, 2}, s.get("placed.served"));
    int rv = Mix.randomKeyPart(5, 2, 3);
    long[] expectedInner = new long[3];
    long[] expectedServed = new long[3];
    if (rv == 1) {
      expectedInner[1] = 1;
    } else {
      expectedServed[rv] = 1;
    }
    assertArrayEquals(new long[] {0, 1, 0}, s.get("random.workingSet"));
    assertArrayEquals(expectedInner, s.get("random.inner"));
    assertArrayEquals(expectedServed, s.get("random.served"));
    assertEquals(1, d.getCounters().findCounter(MetricsTool.Counters.KEYS).getValue());
  }

  @Test
  void keyMetricsReducerCountsContractViolations() throws Exception {
    ReduceDriver<LongWritable, JoinValue, NullWritable, NullWritable> d =
        ReduceDriver.newReduceDriver(new KeyMetricsReducer());
    d.getConfiguration().setInt(MrKeys.K, 2);
    d.withInput(new LongWritable(1), List.of(JoinValue.pair(0, 0)))
        .withInput(new LongWritable(2), List.of(JoinValue.part(1)))
        .withInput(new LongWritable(3), List.of(JoinValue.pair(0, 0), JoinValue.part(1), JoinValue.part(1)))
        .withInput(new LongWritable(4), List.of(JoinValue.pair(0, 0), JoinValue.part(5))).runTest();
    assertEquals(1, d.getCounters().findCounter(MetricsTool.Counters.KEYS_WITHOUT_V).getValue());
    assertEquals(1, d.getCounters().findCounter(MetricsTool.Counters.V_WITHOUT_USE).getValue());
    assertEquals(1, d.getCounters().findCounter(MetricsTool.Counters.DUPLICATE_V).getValue());
    assertEquals(1, d.getCounters().findCounter(MetricsTool.Counters.BAD_V_PART).getValue());
  }
}
