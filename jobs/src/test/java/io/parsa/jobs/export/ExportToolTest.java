package io.parsa.jobs.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.parsa.avro.UAssignment;
import io.parsa.jobs.ingest.IngestTestSupport;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Export of ingest blocks and other Avro outputs as TSV and JSON lines. */
class ExportToolTest {

  @TempDir
  File tmp;

  private final Configuration conf = IngestTestSupport.localConf();
  private File blocks;

  @BeforeEach
  void ingestSmallGraph() throws Exception {
    File in = IngestTestSupport.write(new File(tmp, "g.edges"), "1\t2\n1\t3\n2\t3\n");
    blocks = new File(tmp, "blocks");
    IngestTestSupport.assertExit(0, IngestTestSupport.ingest(conf, "--input", in.getPath(), "--format",
        "uedges", "--output", blocks.getPath(), "--blocks", "2", "--weights", "nnz"));
  }

  private String stdout(String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream old = System.out;
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      assertEquals(0, ToolRunner.run(new Configuration(conf), new ExportTool(), args));
    } finally {
      System.setOut(old);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void blocksAsTsvWithHeaderAndEscapedRawLines() throws Exception {
    String[] lines = stdout("--input", blocks.getPath()).split("\n");
    assertEquals("id\tkeys\tweight\traw", lines[0]);
    assertEquals(4, lines.length);
    boolean seen = false;
    for (int i = 1; i < lines.length; i++) {
      String[] cells = lines[i].split("\t", -1);
      assertEquals(4, cells.length, lines[i]);
      if (cells[0].equals("1")) {
        assertEquals("2,3", cells[1]);
        assertEquals("2.0", cells[2]);
        assertEquals("1\\t2\\n1\\t3", cells[3], "tab and newline of the raw lines escaped");
        seen = true;
      }
    }
    assertTrue(seen);
  }

  @Test
  void blocksAsJsonLinesToAFile() throws Exception {
    File out = new File(tmp, "rows.jsonl");
    assertEquals(0, ToolRunner.run(new Configuration(conf), new ExportTool(),
        new String[] {"--input", blocks + "/*.avro", "--format", "json", "--output", out.getPath()}));
    List<String> lines = Files.readAllLines(out.toPath());
    assertEquals(3, lines.size());
    ObjectMapper m = new ObjectMapper();
    for (String l : lines) {
      JsonNode n = m.readTree(l);
      if (n.get("id").asLong() == 3) {
        assertEquals("[1,2]", n.get("keys").toString());
        assertEquals("", n.get("raw").asText(), "vertex 3 is never a source");
      }
    }
    assertEquals(2, ToolRunner.run(new Configuration(conf), new ExportTool(),
        new String[] {"--input", blocks.getPath(), "--output", out.getPath()}), "refuses to overwrite");
  }

  @Test
  void anyRecordTypeAndLimit() throws Exception {
    File f = new File(tmp, "u.avro");
    try (DataFileWriter<UAssignment> w = new DataFileWriter<>(new SpecificDatumWriter<>(UAssignment.class))) {
      w.create(UAssignment.getClassSchema(), f);
      for (int i = 0; i < 5; i++) {
        w.append(new UAssignment((long) i, i % 2));
      }
    }
    String tsv = stdout("--input", f.getPath(), "--limit", "2");
    assertEquals("id\tpart\n0\t0\n1\t1\n", tsv);
  }
}
