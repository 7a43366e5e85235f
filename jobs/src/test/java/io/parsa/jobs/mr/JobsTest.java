package io.parsa.jobs.mr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.jobs.ingest.IngestCounters;
import java.nio.file.Files;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.NullOutputFormat;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormatCounter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The job client's progress lines and end-of-job summary (no cluster needed). */
class JobsTest {

  @Test
  void progressIsThrottledAndSilentForShortJobs() {
    Jobs.Progress p = new Jobs.Progress("parsa metrics: keys", 3000);
    assertNull(p.update(0.5f, 0f, 1000), "nothing in the first interval");
    assertEquals("parsa metrics: keys: map 50% reduce 0% (3 s)", p.update(0.5f, 0f, 3000));
    assertNull(p.update(0.9f, 0f, 4000), "at most one line an interval");
    assertEquals("parsa metrics: keys: map 100% reduce 33% (6 s)", p.update(1f, 0.333f, 6500));
    assertNull(p.update(1f, 0.333f, 20000), "nothing moved");
    assertNull(p.update(1f, 0.2f, 30000), "progress never steps back");
    assertEquals("parsa metrics: keys: map 100% reduce 50% (40 s)", p.update(1f, 0.5f, 40000));
    assertNull(p.update(1f, 0.5f, 60000), "unchanged: not before 30 s");
    assertEquals("parsa metrics: keys: map 100% reduce 50% (70 s)", p.update(1f, 0.5f, 70000),
        "a job that does not move is not silent");
    assertEquals("parsa metrics: keys: map 100% (30 s)", new Jobs.Progress("parsa metrics: keys", 3000)
        .update(1f, -1f, 30000), "map-only job");
  }

  @Test
  void summaryNamesRecordsBytesAndTheStepsOwnCounters() {
    Counters c = new Counters();
    c.findCounter(TaskCounter.MAP_INPUT_RECORDS).setValue(4000);
    c.findCounter(TaskCounter.REDUCE_OUTPUT_RECORDS).setValue(3998);
    c.findCounter(FileInputFormatCounter.BYTES_READ).setValue(3 << 20);
    c.findCounter(FileOutputFormatCounter.BYTES_WRITTEN).setValue(1536);
    c.findCounter(IngestCounters.ROWS_IN).setValue(4000);
    c.findCounter(IngestCounters.NONZEROS_IN).setValue(56870);
    c.findCounter(IngestCounters.BAD_RECORDS_SKIPPED).setValue(2);
    c.findCounter(JoinCounters.ROW_HASH_SUM_IN).setValue(123456789);
    String s = Jobs.summary("parsa ingest: libsvm -> 4 blocks", 2.04, c, false);
    assertEquals("parsa ingest: libsvm -> 4 blocks: done in 2.0 s; records 4,000 in, 3,998 out; 3.0 MiB read; "
        + "1.5 KiB written; rows in 4,000; nonzeros in 56,870; bad records skipped 2", s);
    assertFalse(s.contains("hash"), "checksums are not for the console");

    Counters mapOnly = new Counters();
    mapOnly.findCounter(TaskCounter.MAP_INPUT_RECORDS).setValue(10);
    mapOnly.findCounter(TaskCounter.MAP_OUTPUT_RECORDS).setValue(10);
    assertTrue(Jobs.summary("x", 0.1, mapOnly, true).startsWith("x: done in 0.1 s; records 10 in, 10 out; 0 B written"));
  }

  @Test
  void anOutOfMemoryTaskGetsTheSettingsThatGiveItMore() {
    String hint = Jobs.memoryHint("Error: Java heap space", true);
    assertTrue(hint.contains("-D mapreduce.map.memory.mb="), hint);
    assertTrue(hint.contains("mapreduce.map.java.opts"), hint);
    assertTrue(Jobs.memoryHint("Error: GC overhead limit exceeded", false).contains("mapreduce.reduce.memory.mb"));
    assertEquals("", Jobs.memoryHint("file.libsvm:3: expected index:value", true));
  }

  @Test
  void aCompletedJobsCountersAreFetchedOnce(@TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path in = dir.resolve("in.txt");
    Files.writeString(in, "a\nb\nc\n");
    Configuration conf = new Configuration();
    conf.set("mapreduce.framework.name", "local");
    conf.set("fs.defaultFS", "file:///");
    Job job = Jobs.newJob(conf, "test", "three lines", JobsTest.class);
    job.setMapperClass(Mapper.class);
    job.setNumReduceTasks(0);
    job.setOutputKeyClass(NullWritable.class);
    job.setOutputFormatClass(NullOutputFormat.class);
    FileInputFormat.setInputPaths(job, new Path(in.toUri()));
    Jobs.run(job);
    // the counters monitor() fetched at the end are the ones every later read gets: no call to the finished job
    Counters kept = Jobs.counters(job);
    assertSame(kept, Jobs.counters(job));
    assertEquals(3, Jobs.count(job, TaskCounter.MAP_INPUT_RECORDS));
    assertEquals(3, kept.findCounter(TaskCounter.MAP_INPUT_RECORDS).getValue());
  }
}
