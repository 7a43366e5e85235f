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
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;

class BaselineAssignToolTest {

  @Test
  void baselineRuleIsHashOrSeededRandom() {
    assertEquals(1, BaselineMapper.part(true, 0, 7, 3));
    assertEquals(2, BaselineMapper.part(true, 0, -1, 3));
    assertEquals(Mix.randomRowPart(9, 12345, 5), BaselineMapper.part(false, 9, 12345, 5));
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
    // aligned with the blocks as partition-u's output is: block b's rows, in order, in AssignmentFiles.fileFor(out, b)
    List<Path> blockFiles = io.parsa.yarn.io.BlockFiles.list(fs, blocks);
    assertEquals(3, blockFiles.size());
    assertEquals(3, fs.globStatus(new Path(out, "*.avro")).length, "one assignment file per block");
    for (int b = 0; b < blockFiles.size(); b++) {
      List<Long> blockIds = new ArrayList<>();
      for (GraphRow g : Jobs.readAvroDir(fs, blockFiles.get(b), GraphRow.class)) {
        blockIds.add(g.getId());
      }
      List<Long> assigned = new ArrayList<>();
      for (UAssignment a : Jobs.readAvroDir(fs, io.parsa.yarn.io.AssignmentFiles.fileFor(out, b), UAssignment.class)) {
        assigned.add(a.getId());
      }
      assertEquals(blockIds, assigned, "block " + b);
    }
    assertEquals(2, ToolRunner.run(conf, new BaselineAssignTool(), args));
    String[] again = {"--blocks", blocks.toString(), "--output", out.toString(), "--k", "4", "--overwrite"};
    assertEquals(0, ToolRunner.run(conf, new BaselineAssignTool(), again));
    for (UAssignment a : Jobs.readAvroDir(fs, out, UAssignment.class)) {
      assertEquals(Mix.randomRowPart(42, a.getId(), 4), a.getPart());
    }
  }
}
