package io.parsa.jobs.refine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.parsa.avro.GraphRow;
import io.parsa.common.JsonFiles;
import io.parsa.jobs.mr.TestData;
import io.parsa.jobs.testing.SharedMiniCluster;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;

/**
 * refine-u's distributed rounds on real HDFS and YARN (MiniDFSCluster + MiniYARNCluster): the count, gain, pair and
 * apply jobs as YARN applications, their tasks reading the blocks and assignment files from HDFS, the shuffle sorting
 * {@link SwapKey}s by their raw comparator in the task JVMs; before them the distributed multilevel start (its
 * clustering, further clustering, placement from a sample of holder sets, projection and balance jobs: the multilevel
 * engine running in the reduce containers). Each job is a YARN application of about 20 s on the 2-core CI machine, so the coarse group cycles that
 * end the default run (the same clustering, placement and projection jobs again, then the streaming balance's count,
 * gain and flow jobs: eight more applications) are left to {@code MrRefinementTest}'s local runs.
 */
class MrRefinementIT {

  @Test
  void oneRoundOnYarnKeepsEveryRowAndLowersTheTotal() throws Exception {
    Configuration conf = SharedMiniCluster.get().conf();
    FileSystem fs = FileSystem.get(conf);
    Random rnd = new Random(21);
    int k = 4;
    List<GraphRow> rows = new ArrayList<>();
    Map<Long, long[]> keysOf = new HashMap<>();
    Map<Long, Integer> start = new HashMap<>();
    int n = 1200;
    for (int i = 0; i < n; i++) {
      long id = 7L * i + 3;
      int community = rnd.nextInt(k);
      long[] keys = new long[3 + rnd.nextInt(4)];
      for (int j = 0; j < keys.length; j++) {
        keys[j] = community * 50L + rnd.nextInt(50);
      }
      rows.add(TestData.libsvmRow(id, keys));
      keysOf.put(id, keys);
      start.put(id, i % k);
    }
    Path dir = new Path("/it/refine-mr");
    TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, 3);
    TestData.writeAlignedUAssignment(fs, new Path(dir, "u"), rows, 3, start);
    Path out = new Path(dir, "refined");
    // the task that places the clusters may take less than the first level's clusters need (about 190 KB here) and
    // more than the second level's (about 160 KB): a further clustering level runs, with the job that takes its parts
    // down a level, in the cluster's containers
    Configuration small = new Configuration(conf);
    small.setLong(MrRefinement.PLACE_BYTES, 180_000);
    small.setInt(MrRefinement.COARSE_GROUP_CYCLES, 0);
    // and the top level placed from a sample of half its holder sets: the holders, sets and merge jobs (holder sets as
    // byte keys summed by a combiner) in the cluster's containers
    small.setDouble(SharedKeys.SAMPLE, 0.5);
    int rc = ToolRunner.run(small, new RefineUTool(), new String[] {"--blocks", new Path(dir, "blocks").toString(),
        "--u-assignment", new Path(dir, "u").toString(), "--output", out.toString(), "--k", String.valueOf(k),
        "--mode", "mapreduce", "--rounds", "1", "--schedule", "1", "--starts", "given", "--reducers", "2",
        "--vcycles", "0", "--capped-vcycles", "0", "--group-size", "4", "--distributed-rounds", "chunks",
        "--multilevel", "on"});
    assertEquals(0, rc);
    Map<Long, Integer> refined = RefineUToolTest.readParts(fs, out);
    assertEquals(start.keySet(), refined.keySet());
    long[] before = new long[k];
    long[] after = new long[k];
    start.values().forEach(p -> before[p]++);
    refined.values().forEach(p -> after[p]++);
    assertArrayEquals(before, after, "rows per part unchanged");
    long[] m0 = MrRefinementTest.workingSetsPerPart(keysOf, start, k);
    long[] m1 = MrRefinementTest.workingSetsPerPart(keysOf, refined, k);
    JsonNode report = JsonFiles.MAPPER.readTree(fs.open(new Path(out, "_refine.json")));
    for (int i = 0; i < k; i++) {
      assertEquals(m1[i], report.get("workingSets").get(i).asLong(), "exact working set of part " + i);
    }
    assertTrue(Arrays.stream(m1).sum() < Arrays.stream(m0).sum(), report.toString());
    assertTrue(Arrays.stream(m1).max().getAsLong() <= report.get("startMaxWorkingSet").asLong(), report.toString());
    // the distributed multilevel start (clustering, placement and balance jobs) ran in the cluster's containers
    JsonNode first = report.get("rounds").get(0);
    assertEquals("multilevel start", first.get("phase").asText(), report.toString());
    assertTrue(first.get("clusters").asLong() > 0 && first.get("clusters").asLong() < n, report.toString());
    assertTrue(first.get("levels").asInt() >= 2, report.toString());
    assertTrue(first.get("placedClusters").asLong() < first.get("clusters").asLong(), report.toString());
    assertEquals(0.5, first.get("placeSample").asDouble(), report.toString());
    assertTrue(first.get("placedHolderSets").asLong() > 0, report.toString());
    // (the rows per part above are exact after it: its balance cycles, if any, ran the engine's V-cycles inside the
    // job jar, in the reduce containers); then a chunk round: each block's rows refined among all parts in a reduce
    // container, the other rows fixed
    JsonNode second = report.get("rounds").get(1);
    assertEquals("chunk round", second.get("phase").asText(), report.toString());
    assertEquals(1, second.get("round").asInt(), report.toString());
    assertEquals("chunks", report.get("distributedRounds").asText());
    for (JsonNode r : report.get("rounds")) {
      assertTrue(!r.path("phase").asText().startsWith("coarse group cycle"), report.toString());
    }
  }
}
