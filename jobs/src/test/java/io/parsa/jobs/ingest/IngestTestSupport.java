package io.parsa.jobs.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.parsa.avro.GraphRow;
import io.parsa.jobs.common.AvroFiles;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.hadoop.util.ToolRunner;

/** Shared helpers for the ingest tests: a fast local-mode configuration, running the tool, reading blocks. */
public final class IngestTestSupport {

  private IngestTestSupport() {}

  /** LocalJobRunner on the local file system, with small buffers so that tests start quickly. */
  public static Configuration localConf() {
    Configuration conf = new Configuration();
    conf.set("mapreduce.framework.name", "local");
    conf.set("fs.defaultFS", "file:///");
    conf.setInt("mapreduce.task.io.sort.mb", 16);
    conf.setInt("mapreduce.local.map.tasks.maximum", 2);
    conf.setInt("mapreduce.local.reduce.tasks.maximum", 2);
    return conf;
  }

  /** The outcome of one tool run: exit code, captured stdout and stderr, and the tool (for its counters). */
  public record Run(int exit, String out, String err, IngestTool tool) {}

  /** Runs {@code parsa ingest args} through ToolRunner, capturing System.out and System.err. */
  public static Run ingest(Configuration conf, String... args) throws Exception {
    IngestTool tool = new IngestTool();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    int rc;
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      rc = ToolRunner.run(new Configuration(conf), tool, args);
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
    Run r = new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8), tool);
    oldErr.println("ingest " + String.join(" ", args) + " -> " + rc + "\n" + r.out + r.err);
    return r;
  }

  /** Writes {@code text} to {@code file}, compressed by the Hadoop codec its extension names (if any). */
  public static File write(File file, String text) throws IOException {
    file.getParentFile().mkdirs();
    CompressionCodec codec = new CompressionCodecFactory(new Configuration()).getCodec(new Path(file.getPath()));
    try (OutputStream raw = Files.newOutputStream(file.toPath());
         OutputStream out = codec == null ? raw : codec.createOutputStream(raw)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
    return file;
  }

  /** All rows of a blocks directory, block by block. */
  public static List<GraphRow> rows(Configuration conf, File dir) throws IOException {
    return AvroFiles.readAll(conf, AvroFiles.list(conf, new Path(dir.toURI())), GraphRow.class);
  }

  /** The rows of one block file. */
  public static List<GraphRow> block(Configuration conf, File file) throws IOException {
    return AvroFiles.readAll(conf, List.of(new Path(file.toURI())), GraphRow.class);
  }

  public static String raw(GraphRow r) {
    return StandardCharsets.UTF_8.decode(r.getRaw().duplicate()).toString();
  }

  public static void assertExit(int expected, Run r) {
    assertEquals(expected, r.exit(), () -> "exit code; stderr:\n" + r.err());
  }
}
