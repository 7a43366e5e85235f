package io.parsa.jobs.ingest;

import static io.parsa.jobs.ingest.IngestTestSupport.assertExit;
import static io.parsa.jobs.ingest.IngestTestSupport.ingest;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.common.JsonFiles;
import io.parsa.jobs.testing.SharedMiniCluster;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Counters;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Ingest as a real MapReduce-on-YARN job (tasks in NodeManager containers) on the shared mini cluster: the path
 * {@code hadoop jar} takes on a cluster, including bad-record reports travelling from a container to the client.
 */
class IngestYarnIT {

  private static Configuration conf;
  private static FileSystem fs;

  @BeforeAll
  static void cluster() throws Exception {
    conf = SharedMiniCluster.get().conf();
    fs = SharedMiniCluster.get().dfs().getFileSystem();
  }

  @Test
  void edgeListOnYarn() throws Exception {
    StringBuilder sb = new StringBuilder("# a ring of 2000 vertices with chords\n");
    for (int v = 0; v < 2000; v++) {
      sb.append(v).append('\t').append((v + 1) % 2000).append('\n');
      sb.append(v).append('\t').append((v * 7 + 3) % 2000).append('\n');
    }
    try (var o = fs.create(new Path("/ingest-yarn/in/ring.edges.gz"))) {
      var codec = new org.apache.hadoop.io.compress.GzipCodec();
      codec.setConf(conf);
      try (var z = codec.createOutputStream(o)) {
        z.write(sb.toString().getBytes(StandardCharsets.UTF_8));
      }
    }
    String out = "/ingest-yarn/blocks";
    IngestTestSupport.Run r = ingest(conf, "--input", "/ingest-yarn/in", "--format", "uedges", "--output", out,
        "--blocks", "3");
    assertExit(0, r);
    Counters counters = r.tool().lastCounters();
    IngestCountersCheck.assertBalanced(counters);
    assertEquals(2000, counters.findCounter(IngestCounters.ROWS_OUT).getValue());
    assertEquals(8000, counters.findCounter(IngestCounters.NONZEROS_OUT).getValue());
    IngestStats s = JsonFiles.read(fs, new Path(out, "_stats.json"), IngestStats.class);
    assertEquals(2000, s.rows);
    assertEquals(2000, s.distinctKeys);
    assertEquals(3, s.rowsPerBlock.size());
    assertEquals(4.0, s.rowDegree.mean, 1e-9);
  }

  /** A plain HDFS file cut into byte ranges: a line-count job, then the ranges keep whole-file line ids. */
  @Test
  void plainFileReadInRangesOnYarn() throws Exception {
    StringBuilder sb = new StringBuilder("# 6000 rows\n");
    for (int i = 0; i < 6000; i++) {
      sb.append(i % 3 == 0 ? "-1" : "1").append(' ').append(1 + i % 50).append(":1 ").append(100 + i % 7)
          .append(":0.5").append(i % 11 == 0 ? "\r\n" : "\n");
    }
    byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
    try (var o = fs.create(new Path("/ingest-yarn/plain/rows.libsvm"))) {
      o.write(bytes);
    }
    Configuration c = new Configuration(conf);
    c.setLong(org.apache.hadoop.mapreduce.lib.input.FileInputFormat.SPLIT_MAXSIZE, bytes.length / 4 + 1);
    String out = "/ingest-yarn/plain-blocks";
    IngestTestSupport.Run r = ingest(c, "--input", "/ingest-yarn/plain", "--output", out, "--blocks", "2");
    assertExit(0, r);
    IngestCountersCheck.assertBalanced(r.tool().lastCounters());
    IngestStats s = JsonFiles.read(fs, new Path(out, "_stats.json"), IngestStats.class);
    assertEquals(4, s.inputSplits);
    assertEquals(6000, s.rows);
    String[] lines = sb.toString().split("\r?\n");
    java.util.Set<Long> seen = new java.util.HashSet<>();
    for (org.apache.hadoop.fs.FileStatus st : fs.listStatus(new Path(out), p -> p.getName().endsWith(".avro"))) {
      try (var in = new org.apache.avro.file.DataFileStream<>(fs.open(st.getPath()),
          new org.apache.avro.specific.SpecificDatumReader<>(io.parsa.avro.GraphRow.class))) {
        for (io.parsa.avro.GraphRow row : in) {
          assertTrue(seen.add(row.getId()), "duplicate id " + row.getId());
          // id = 0-based line number in the file (one file: ordinal 0); the raw bytes are that line
          assertEquals(lines[(int) row.getId()], IngestTestSupport.raw(row));
        }
      }
    }
    assertEquals(6000, seen.size());
  }

  @Test
  void badLineInAContainerReachesTheClientAsFileAndLine() throws Exception {
    Path in = new Path("/ingest-yarn/bad/g.edges");
    try (var o = fs.create(in)) {
      o.write("1 2\n# c\n2 x3\n".getBytes(StandardCharsets.UTF_8));
    }
    Configuration c = new Configuration(conf);
    c.setInt("mapreduce.map.maxattempts", 1);   // a malformed line fails every attempt alike
    IngestTestSupport.Run r = ingest(c, "--input", "/ingest-yarn/bad", "--format", "uedges", "--output",
        "/ingest-yarn/bad-out");
    assertExit(2, r);
    assertTrue(r.err().contains("ingest: " + fs.getUri() + "/ingest-yarn/bad/g.edges:3: non-integer vertex id "
        + "'x3'; expected a non-negative integer"), r.err());
  }
}
