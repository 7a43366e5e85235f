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
import org.apache.hadoop.mapreduce.Counters;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Ingest in local mode on the shared real datasets (skipped, visibly, where a dataset is absent). */
class IngestDatasetsTest {

  @TempDir
  File tmp;

  static File dataset(String name) {
    File f = new File(System.getProperty("parsa.datasets.dir", "../../shared/datasets"), name);
    Assumptions.assumeTrue(f.exists(), "dataset " + name + " not found at " + f.getAbsolutePath());
    return f;
  }

  @Test
  void reutersHasExactly21578RowsAnd1628543NonZeros() throws Exception {
    File in = dataset("reuters21578.libsvm.gz");
    Configuration conf = IngestTestSupport.localConf();
    conf.setLong(KeyStatsJob.LOCAL_MAX_NONZEROS, 0);   // distinct keys by the MapReduce aggregation
    File out = new File(tmp, "reuters");
    IngestTestSupport.Run r = ingest(conf, "--input", in.getPath(), "--output", out.getPath(), "--blocks", "4",
        "--key-stats", "exact");
    assertExit(0, r);
    Counters c = r.tool().lastCounters();
    IngestCountersCheck.assertBalanced(c);
    assertEquals(21_578, c.findCounter(IngestCounters.ROWS_OUT).getValue());
    assertEquals(1_628_543, c.findCounter(IngestCounters.NONZEROS_OUT).getValue());
    assertEquals(21_578, c.findCounter(IngestCounters.LINES).getValue());
    IngestStats s = JsonFiles.read(FileSystem.getLocal(conf), new Path(out.getPath(), "_stats.json"),
        IngestStats.class);
    assertEquals(21_578, s.rows);
    assertEquals(1_628_543, s.nonZeros);
    assertTrue(s.distinctKeys > 0 && s.distinctKeys <= 50_640, "distinct keys " + s.distinctKeys);
    assertEquals(1_628_543.0 / 21_578, s.rowDegree.mean, 1e-9);
    assertEquals((double) s.nonZeros / s.distinctKeys, s.keyDegree.mean, 1e-9);
    assertEquals(4, s.rowsPerBlock.size());
    assertEquals(21_578, s.rowsPerBlock.stream().mapToLong(Long::longValue).sum());
    // rows per block ~ Binomial(21578, 1/4): sd 0.8 % of the mean; "within a few percent"
    assertTrue(s.blockImbalance < 0.04, "block imbalance " + s.blockImbalance + " " + s.rowsPerBlock);
    assertEquals(21_578, IngestTestSupport.rows(conf, out).size(), "rows read back from the block files");
  }

  @Test
  void enronAsUndirectedGivesBothDirectionsOfEveryEdge() throws Exception {
    File in = dataset("email-enron.edges.gz");
    Configuration conf = IngestTestSupport.localConf();
    File out = new File(tmp, "enron");
    IngestTestSupport.Run r = ingest(conf, "--input", in.getPath(), "--format", "uedges", "--output",
        out.getPath(), "--blocks", "4");
    assertExit(0, r);
    Counters c = r.tool().lastCounters();
    IngestCountersCheck.assertBalanced(c);
    assertEquals(183_831, c.findCounter(IngestCounters.RECORDS_IN).getValue());
    assertEquals(2 * 183_831, c.findCounter(IngestCounters.NONZEROS_OUT).getValue());
    assertEquals(183_831, c.findCounter(IngestCounters.RAW_LINES_OUT).getValue(), "each line in one row");
    IngestStats s = JsonFiles.read(FileSystem.getLocal(conf), new Path(out.getPath(), "_stats.json"),
        IngestStats.class);
    assertEquals(36_692, s.rows);
    assertEquals(36_692, s.distinctKeys, "undirected: every vertex is also a key");
    assertEquals(2 * 183_831, s.nonZeros);
    assertEquals(s.rowDegree.max, s.keyDegree.max, "symmetric graph: same degrees on both sides");
  }
}
