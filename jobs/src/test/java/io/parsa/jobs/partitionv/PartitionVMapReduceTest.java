package io.parsa.jobs.partitionv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.avro.VAssignment;
import io.parsa.jobs.keyusage.KeyUsageJob;
import io.parsa.jobs.keyusage.KeyUsageReducer;
import io.parsa.jobs.keyusage.UsageCombiner;
import io.parsa.jobs.mr.JoinValue;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.MrUnitAvro;
import io.parsa.jobs.mr.PartStats;
import java.util.List;
import java.util.Map;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mrunit.mapreduce.MapDriver;
import org.apache.hadoop.mrunit.mapreduce.ReduceDriver;
import org.junit.jupiter.api.Test;

/** MRUnit tests of partition-v's reducer and mappers, and of Algorithm 2 itself. */
class PartitionVMapReduceTest {

  /** A key-usage record whose placed parts are {@code p} and whose random parts are {@code p} reversed. */
  private static JoinValue parts(long... p) {
    long[] r = new long[p.length];
    for (int i = 0; i < p.length; i++) {
      r[i] = 9 - p[p.length - 1 - i];
    }
    return new JoinValue().setUsage(p, p.length, r, r.length);
  }

  @Test
  void keyUsageReducerBuildsSortedPartSetsOfBothPlacementsAndWorkingSets() throws Exception {
    ReduceDriver<LongWritable, JoinValue, LongWritable, JoinValue> d =
        ReduceDriver.newReduceDriver(new KeyUsageReducer());
    d.getConfiguration().setInt(MrKeys.K, 3);
    d.withInput(new LongWritable(10), List.of(JoinValue.pair(2, 0), JoinValue.pair(0, 1), JoinValue.pair(2, 0)))
        .withInput(new LongWritable(11), List.of(JoinValue.pair(1, 2), JoinValue.pair(1, 0)))
        .withOutput(new LongWritable(10), new JoinValue().setUsage(new long[] {0, 2}, 2, new long[] {0, 1}, 2))
        .withOutput(new LongWritable(11), new JoinValue().setUsage(new long[] {1}, 1, new long[] {0, 2}, 2))
        .runTest();
    assertEquals(2, d.getCounters().findCounter(KeyUsageJob.Counters.KEYS).getValue());
    assertEquals(3, d.getCounters().findCounter(KeyUsageJob.Counters.KEY_PART_PAIRS).getValue());
    assertEquals(4, d.getCounters().findCounter(KeyUsageJob.Counters.KEY_PART_PAIRS_RANDOM).getValue());
    assertArrayEquals(new long[] {1, 1, 1}, PartStats.lastUnwritten().get(KeyUsageReducer.WORKING_SET_PLACED));
    assertArrayEquals(new long[] {2, 1, 1}, PartStats.lastUnwritten().get(KeyUsageReducer.WORKING_SET_RANDOM));
  }

  /** Values of both kinds: PAIRs of the reduce-side join and USAGE sets of the map-side join's flushes. */
  @Test
  void keyUsageCombinerAndReducerMergePairsAndPartSets() throws Exception {
    ReduceDriver<LongWritable, JoinValue, LongWritable, JoinValue> c =
        ReduceDriver.newReduceDriver(new UsageCombiner());
    c.getConfiguration().setInt(MrKeys.K, 4);
    c.withInput(new LongWritable(-3), List.of(JoinValue.pair(3, 0), new JoinValue().setUsage(new long[] {1, 3}, 2,
            new long[] {2}, 1), JoinValue.pair(1, 2)))
        .withOutput(new LongWritable(-3), new JoinValue().setUsage(new long[] {1, 3}, 2, new long[] {0, 2}, 2))
        .runTest();
    ReduceDriver<LongWritable, JoinValue, LongWritable, JoinValue> r =
        ReduceDriver.newReduceDriver(new KeyUsageReducer());
    r.getConfiguration().setInt(MrKeys.K, 4);
    r.withInput(new LongWritable(8), List.of(new JoinValue().setUsage(new long[] {0, 2}, 2, new long[] {1}, 1),
            new JoinValue().setUsage(new long[] {2, 3}, 2, new long[] {1, 3}, 2)))
        .withOutput(new LongWritable(8), new JoinValue().setUsage(new long[] {0, 2, 3}, 3, new long[] {1, 3}, 2))
        .runTest();
    assertEquals(3, r.getCounters().findCounter(KeyUsageJob.Counters.KEY_PART_PAIRS).getValue());
    assertArrayEquals(new long[] {1, 0, 1, 1}, PartStats.lastUnwritten().get(KeyUsageReducer.WORKING_SET_PLACED));
    assertArrayEquals(new long[] {0, 1, 0, 1}, PartStats.lastUnwritten().get(KeyUsageReducer.WORKING_SET_RANDOM));
    // anything else is a bug upstream, not data to skip
    ReduceDriver<LongWritable, JoinValue, LongWritable, JoinValue> bad =
        ReduceDriver.newReduceDriver(new UsageCombiner());
    bad.getConfiguration().setInt(MrKeys.K, 4);
    bad.withInput(new LongWritable(1), List.of(JoinValue.part(0)));
    IllegalStateException e = assertThrows(IllegalStateException.class, bad::run);
    assertTrue(e.getMessage().contains("expected a PAIR or USAGE value"), e.getMessage());
  }

  /** The sweep on the random U reads the second half of each usage record. */
  @Test
  void sweepMapperReadsTheRandomPartsWhenAsked() throws Exception {
    MapDriver<LongWritable, JoinValue, AvroKey<VAssignment>, NullWritable> d = MapDriver.newMapDriver(new SweepMapper());
    MrUnitAvro.configure(d.getConfiguration(), null, VAssignment.getClassSchema());
    d.getConfiguration().setInt(MrKeys.K, 10);
    d.getConfiguration().set(PartitionVTool.WORKING_SETS, "0,0,0,0,0,0,0,0,0,0");
    d.getConfiguration().set(PartitionVTool.METHOD, "sweep");
    d.getConfiguration().setBoolean(PartitionVTool.USE_RANDOM_PART, true);
    d.withInput(new LongWritable(1), parts(0, 1)) // random parts {8, 9}: the first of the tie
        .withInput(new LongWritable(2), parts(4)) // random part {5}
        .withOutput(new AvroKey<>(new VAssignment(1L, 8, null)), NullWritable.get())
        .withOutput(new AvroKey<>(new VAssignment(2L, 5, null)), NullWritable.get()).runTest();
  }

  /** The hand-worked example of PartitionVToolTest, one share: cost [3, 4] -> V_0 = {1,2,3}, V_1 = {4,5}. */
  @Test
  void sweepMapperRunsAlgorithm2InKeyOrder() throws Exception {
    MapDriver<LongWritable, JoinValue, AvroKey<VAssignment>, NullWritable> d = MapDriver.newMapDriver(new SweepMapper());
    MrUnitAvro.configure(d.getConfiguration(), null, VAssignment.getClassSchema());
    d.getConfiguration().setInt(MrKeys.K, 2);
    d.getConfiguration().set(PartitionVTool.WORKING_SETS, "3,4");
    d.getConfiguration().setInt(PartitionVTool.SHARES, 1);
    d.getConfiguration().set(PartitionVTool.METHOD, "sweep");
    long[][] usage = {{0, 1}, {0}, {0, 1}, {1}, {1}};
    int[] expected = {0, 0, 0, 1, 1};
    for (int key = 1; key <= 5; key++) {
      d.withInput(new LongWritable(key), parts(usage[key - 1]));
      d.withOutput(new AvroKey<>(new VAssignment((long) key, expected[key - 1], null)), NullWritable.get());
    }
    d.runTest();
    assertEquals(5, d.getCounters().findCounter(PartitionVTool.Counters.KEYS_ASSIGNED).getValue());
    Map<String, long[]> stats = PartStats.lastUnwritten();
    assertArrayEquals(new long[] {3, 2}, stats.get(SweepMapper.KEYS));
    // T_i = |N(U_i)| + delta_i = [3 - 1, 4 - 2] = [2, 2]
    assertArrayEquals(new long[] {-1, -2}, stats.get(SweepMapper.DELTA));
  }

  @Test
  void renumberMapperNumbersFromTheFilesOffsets() throws Exception {
    MapDriver<AvroKey<VAssignment>, NullWritable, AvroKey<VAssignment>, NullWritable> d =
        MapDriver.newMapDriver(new RenumberMapper());
    MrUnitAvro.configure(d.getConfiguration(), null, VAssignment.getClassSchema());
    d.getConfiguration().setInt(MrKeys.K, 2);
    d.getConfiguration().set(PartitionVTool.OFFSETS, "0:0,10;1:4,12");
    d.setMapInputPath(new Path("file:///x/part-m-00001.avro"));
    d.withInput(new AvroKey<>(new VAssignment(7L, 1, null)), NullWritable.get())
        .withInput(new AvroKey<>(new VAssignment(8L, 0, null)), NullWritable.get())
        .withInput(new AvroKey<>(new VAssignment(9L, 1, null)), NullWritable.get())
        .withOutput(new AvroKey<>(new VAssignment(7L, 1, 12L)), NullWritable.get())
        .withOutput(new AvroKey<>(new VAssignment(8L, 0, 4L)), NullWritable.get())
        .withOutput(new AvroKey<>(new VAssignment(9L, 1, 13L)), NullWritable.get()).runTest();
  }

  @Test
  void offsetsStartEachPartAfterThePreviousOnes() {
    Map<String, Map<String, long[]>> perTask = new java.util.TreeMap<>();
    perTask.put("task_local1_0001_m_000000", Map.of(SweepMapper.KEYS, new long[] {4, 2}));
    perTask.put("task_local1_0001_m_000001", Map.of(SweepMapper.KEYS, new long[] {1, 3}));
    assertEquals("0:0,5;1:4,7", PartitionVTool.offsetsString(perTask, new long[] {5, 5}, 2));
  }

  @Test
  void algorithm2TiesGoToTheLowestPartAndSharesStartProportionally() {
    Algorithm2 a = new Algorithm2(new long[] {4, 4, 2}, 2); // costs 2, 2, 1
    assertEquals(0, a.assign(new long[] {0, 1}, 2)); // tie -> 0; cost0 = 2 - 1 + 1 = 2
    assertEquals(2, a.assign(new long[] {0, 1, 2}, 3)); // cost2 = 1 - 1 + 2 = 2
    assertEquals(1, a.assign(new long[] {1}, 1)); // cost1 = 1
    assertArrayEquals(new double[] {2, 1, 2}, a.cost(), 1e-12);
    assertArrayEquals(new long[] {0, -1, 1}, a.delta());
    assertEquals(1, a.assign(new long[0], 0)); // unused key: least cost over all parts, costs unchanged
    assertArrayEquals(new long[] {1, 2, 1}, a.keysPerPart());
  }
}
