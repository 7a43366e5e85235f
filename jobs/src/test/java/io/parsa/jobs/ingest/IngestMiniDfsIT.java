package io.parsa.jobs.ingest;

import static io.parsa.jobs.ingest.IngestTestSupport.assertExit;
import static io.parsa.jobs.ingest.IngestTestSupport.ingest;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.common.JsonFiles;
import java.io.File;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import io.parsa.jobs.testing.SharedMiniCluster;
import org.apache.hadoop.mapreduce.Counters;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Ingest reading from and writing to a real (in-process) HDFS: the jobs module's shared mini cluster. */
class IngestMiniDfsIT {

  private static Configuration conf;
  private static FileSystem fs;

  @BeforeAll
  static void startCluster() throws Exception {
    SharedMiniCluster cluster = SharedMiniCluster.get();
    conf = cluster.conf();
    conf.set("mapreduce.framework.name", "local");   // the job itself in the LocalJobRunner
    fs = cluster.dfs().getFileSystem();
  }

  @Test
  void reutersFromHdfsToHdfs() throws Exception {
    File local = IngestDatasetsTest.dataset("reuters21578.libsvm.gz");
    Path in = new Path("/data/reuters/reuters21578.libsvm.gz");
    fs.copyFromLocalFile(new Path(local.toURI()), in);
    String out = fs.getUri() + "/blocks/reuters";
    IngestTestSupport.Run r = ingest(conf, "--input", fs.getUri() + "/data/reuters", "--output", out,
        "--blocks", "3");
    assertExit(0, r);
    Counters c = r.tool().lastCounters();
    IngestCountersCheck.assertBalanced(c);
    assertEquals(21_578, c.findCounter(IngestCounters.ROWS_OUT).getValue());
    assertEquals(1_628_543, c.findCounter(IngestCounters.NONZEROS_OUT).getValue());
    IngestStats s = JsonFiles.read(fs, new Path(out, "_stats.json"), IngestStats.class);
    assertEquals(21_578, s.rows);
    assertEquals(1_628_543, s.nonZeros);
    assertTrue(s.files.get(0).startsWith("hdfs://"), s.files.toString());
    for (int b = 0; b < 3; b++) {
      assertTrue(fs.exists(new Path(out, IngestTool.blockFileName(b, 5))));
    }
    assertTrue(fs.exists(new Path(out, "_SUCCESS")));
    assertEquals(5, fs.listStatus(new Path(out)).length, "3 blocks, _stats.json, _SUCCESS; nothing else");

    IngestTestSupport.Run again = ingest(conf, "--input", fs.getUri() + "/data/reuters", "--output", out);
    assertExit(2, again);
    assertEquals(1, fs.listStatus(new Path("/blocks")).length, "no temporary directory left behind");
  }

  @Test
  void badLineOnHdfsNamesTheHdfsFile() throws Exception {
    Path in = new Path("/data/bad/x.edges");
    try (var o = fs.create(in)) {
      o.write("1 2\n2 3\n3 q\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    IngestTestSupport.Run r = ingest(conf, "--input", "/data/bad", "--format", "edges", "--output", "/blocks/bad");
    assertExit(2, r);
    assertTrue(r.err().contains("ingest: " + fs.getUri() + "/data/bad/x.edges:3: non-integer vertex id 'q'"),
        r.err());
  }
}
