package io.parsa.jobs.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.avro.GraphRow;
import io.parsa.avro.UAssignment;
import io.parsa.jobs.mr.Jobs;
import io.parsa.jobs.mr.Mix;
import io.parsa.jobs.mr.TestData;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mrunit.mapreduce.MapDriver;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;

class BaselineAssignToolTest {

  @Test
  void mapperAssignsHashAndRandomParts() throws Exception {
    MapDriver<AvroKey<GraphRow>, NullWritable, AvroKey<UAssignment>, NullWritable> d =
        MapDriver.newMapDriver(new BaselineMapper());
    io.parsa.jobs.mr.MrUnitAvro.configure(d.getConfiguration(), null, GraphRow.getClassSchema(), UAssignment.getClassSchema());
    d.getConfiguration().setInt("parsa.mr.k", 3);
    d.getConfiguration().set(BaselineAssignTool.ALGORITHM, "hash");
    d.withInput(new AvroKey<>(TestData.libsvmRow(7, 1, 2)), NullWritable.get())
        .withInput(new AvroKey<>(TestData.libsvmRow(-1, 3)), NullWritable.get())
        .withOutput(new AvroKey<>(new UAssignment(7L, 1)), NullWritable.get())
        .withOutput(new AvroKey<>(new UAssignment(-1L, 2)), NullWritable.get())
        .runTest();
    assertEquals(2, d.getCounters().findCounter(BaselineAssignTool.Counters.ROWS_OUT).getValue());

    MapDriver<AvroKey<GraphRow>, NullWritable, AvroKey<UAssignment>, NullWritable> r =
        MapDriver.newMapDriver(new BaselineMapper());
    io.parsa.jobs.mr.MrUnitAvro.configure(r.getConfiguration(), null, GraphRow.getClassSchema(), UAssignment.getClassSchema());
    r.getConfiguration().setInt("parsa.mr.k", 5);
    r.getConfiguration().setLong("parsa.mr.seed", 9);
    r.withInput(new AvroKey<>(TestData.libsvmRow(12345, 1)), NullWritable.get())
        .withOutput(new AvroKey<>(new UAssignment(12345L, Mix.randomRowPart(9, 12345, 5))), NullWritable.get())
        .runTest();
  }

  @Test
  void localRunWritesEveryRowOnceAndRefusesExistingOutput() throws Exception {
    Configuration conf = TestData.localConf();
    FileSystem fs = FileSystem.get(conf);
    Path dir = TestData.tempDir("baseline");
    List<GraphRow> rows = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      rows.add(TestData.libsvmRow(i, i % 7 + 1, i % 11 + 20));
    }
    Path blocks = new Path(dir, "blocks");
    TestData.writeBlocks(fs, blocks, rows, 3);
    Path out = new Path(dir, "u");
    String[] args = {"--blocks", blocks.toString(), "--output", out.toString(), "--k", "4", "--algorithm", "hash"};
    assertEquals(0, ToolRunner.run(conf, new BaselineAssignTool(), args));
    Map<Long, Integer> got = new HashMap<>();
    for (UAssignment a : Jobs.readAvroDir(fs, out, UAssignment.class)) {
      assertTrue(got.put(a.getId(), a.getPart()) == null, "row " + a.getId() + " assigned twice");
    }
    assertEquals(100, got.size());
    for (long i = 0; i < 100; i++) {
      assertEquals((int) (i % 4), got.get(i));
    }
    assertTrue(fs.exists(new Path(out, "_SUCCESS")));
    assertEquals(0, fs.globStatus(new Path(out, "_partstats*")).length);
    assertEquals(2, ToolRunner.run(conf, new BaselineAssignTool(), args));
    String[] again = {"--blocks", blocks.toString(), "--output", out.toString(), "--k", "4", "--overwrite"};
    assertEquals(0, ToolRunner.run(conf, new BaselineAssignTool(), again));
    for (UAssignment a : Jobs.readAvroDir(fs, out, UAssignment.class)) {
      assertEquals(Mix.randomRowPart(42, a.getId(), 4), a.getPart());
    }
  }
}
