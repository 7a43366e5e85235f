package io.parsa.jobs.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.parsa.common.JsonFiles;
import io.parsa.engine.gen.PowerLawGenerator;
import io.parsa.jobs.ParsaCli;
import io.parsa.jobs.testing.SharedMiniCluster;
import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;

/**
 * The whole pipeline on real HDFS and YARN (MiniDFSCluster + MiniYARNCluster): MapReduce steps as YARN jobs and
 * partition-u as a YARN application with worker and server containers.
 */
class PipelineIT {

  @Test
  void pipelineOnMiniClusterPlacesEveryRowOnce() throws Exception {
    SharedMiniCluster cluster = SharedMiniCluster.get();
    Configuration conf = cluster.conf();
    FileSystem fs = FileSystem.get(conf);
    Path input = new Path("/it/pipeline/input.libsvm");
    Map<String, Integer> inLines = new HashMap<>();
    try (BufferedWriter w = new BufferedWriter(new OutputStreamWriter(fs.create(input), StandardCharsets.UTF_8))) {
      new PowerLawGenerator(3_000, 4_000, 40_000, 2.2, 1.0, 9).generate((row, keys, n) -> {
        StringBuilder sb = new StringBuilder(row % 2 == 0 ? "+1" : "-1");
        for (int i = 0; i < n; i++) {
          sb.append(' ').append(keys[i]).append(":1");
        }
        String line = sb.toString();
        inLines.merge(line, 1, Integer::sum);
        w.write(line);
        w.write('\n');
      });
    }
    int k = 4;
    Path out = new Path("/it/pipeline/run");
    int rc = ParsaCli.runStep(conf, "pipeline", "--input", input.toString(), "--format", "libsvm", "--k",
        String.valueOf(k), "--output", out.toString(), "--blocks", "3", "--workers", "2", "--servers", "1",
        "--mode", "yarn");
    assertEquals(0, rc);

    List<List<String>> shards = PlacementCheck.shardLines(fs, new Path(out, "shards"), k);
    Map<String, Integer> outLines = new HashMap<>();
    int min = Integer.MAX_VALUE;
    int max = 0;
    for (List<String> s : shards) {
      min = Math.min(min, s.size());
      max = Math.max(max, s.size());
      for (String line : s) {
        outLines.merge(line, 1, Integer::sum);
      }
    }
    assertEquals(inLines, outLines, "shards hold exactly the input rows");
    assertTrue(max - min <= 1, "part sizes " + min + ".." + max);
    JsonNode report;
    try (var in = fs.open(new Path(out, "metrics/report.json"))) {
      report = JsonFiles.MAPPER.readTree(in);
    }
    PlacementCheck.assertReportMatches(report, shards,
        PlacementCheck.readVAssignment(fs, new Path(out, "v-assignment")));
    // while partition-u ran on YARN, this JVM read the blocks from HDFS for refine-u
    JsonNode refine;
    try (var in = fs.open(new Path(out, "u-refined/_refine.json"))) {
      refine = JsonFiles.MAPPER.readTree(in);
    }
    assertTrue(refine.get("blocksReadEarly").asBoolean(), refine.toString());
  }
}
