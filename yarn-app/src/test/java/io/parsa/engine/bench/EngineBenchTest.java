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
      assertTrue(r.get("edgesProcessed").asLong() > 0);
      assertTrue(r.get("parsa").get("mMax").asLong() > 0);
      assertTrue(r.get("random").get("tSum").asLong() > 0);
    }
    // a = 2 processes two extra blocks
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
