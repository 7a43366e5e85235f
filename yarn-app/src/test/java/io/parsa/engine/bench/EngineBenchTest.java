package io.parsa.engine.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bench command runs end to end on tiny inputs (a functional test, not a timing). */
class EngineBenchTest {
  @TempDir
  Path dir;

  @Test
  void generatedGraphWithJson() throws Exception {
    Path json = dir.resolve("r.json");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int rc = EngineBench.run(new String[] {"--generate", "2000", "--non-zeros", "16000", "-k", "4,8", "-b", "4",
        "-a", "0,2", "--seed", "3", "--json", json.toString()}, new PrintStream(out, true), System.err);
    assertEquals(0, rc);
    JsonNode results = new ObjectMapper().readTree(json.toFile());
    assertEquals(4, results.size());
    for (JsonNode r : results) {
      assertEquals(2000, r.get("rows").asInt());
      assertEquals(16000, r.get("nonZeros").asLong());
      int k = r.get("k").asInt();
      long edges = r.get("edgesProcessed").asLong();
      // a = 0: every edge exactly once; a = 2: plus the warm-up blocks, at most all edges again
      if (r.get("a").asInt() == 0) {
        assertEquals(16000, edges, "every edge processed once");
      } else {
        assertTrue(edges > 16000 && edges <= 2 * 16000, "warm-up blocks processed in addition: " + edges);
      }
      for (String placement : new String[] {"parsa", "random"}) {
        JsonNode p = r.get(placement);
        long tSum = p.get("tSum").asLong();
        long tMax = p.get("tMax").asLong();
        long mMax = p.get("mMax").asLong();
        // every remote access is counted twice, sent by one machine and received by another
        assertEquals(0, tSum % 2, placement + " tSum " + tSum + " is twice the inter-machine accesses");
        assertTrue(tMax <= tSum && tMax * k >= tSum, placement + ": tMax " + tMax + " vs tSum " + tSum);
        assertTrue(mMax >= 1 && mMax <= 2000, placement + " mMax " + mMax + " is at most the 2000 columns");
      }
      // the placement beats random traffic on this graph (seeded, so the same numbers every run)
      assertTrue(r.get("parsa").get("tSum").asLong() < r.get("random").get("tSum").asLong(), r.toString());
    }
    assertTrue(results.get(1).get("edgesProcessed").asLong() > results.get(0).get("edgesProcessed").asLong());
  }

  @Test
  void readsGzippedLibsvmAndEdgeLists() throws Exception {
    Path svm = dir.resolve("t.libsvm.gz");
    try (PrintStream p = new PrintStream(new GZIPOutputStream(Files.newOutputStream(svm)), true,
        StandardCharsets.UTF_8)) {
      p.println("1 1:0.5 3:1 7:2");
      p.println("0");
      p.println("1 3:1 4:1");
    }
    InMemoryGraph g = GraphReader.readLibsvm(svm);
    assertEquals(3, g.numRows());
    assertEquals(5, g.numNonZeros());
    Path edges = dir.resolve("t.edges");
    Files.writeString(edges, "# comment\n1\t2\n1\t3\n2\t3\n");
    InMemoryGraph e = GraphReader.readEdges(edges, true);
    assertEquals(3, e.numRows());
    assertEquals(6, e.numNonZeros());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertEquals(0, EngineBench.run(new String[] {"--input", svm.toString(), "-k", "2", "-b", "1"},
        new PrintStream(out, true), System.err));
  }

  @Test
  void usageErrorsExitWith2() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertEquals(2, EngineBench.run(new String[] {"-k", "4"}, System.out, new PrintStream(err, true)));
    assertEquals(2, EngineBench.run(new String[] {"--generate", "10", "-k", "0"}, System.out,
        new PrintStream(err, true)));
  }
}
