package io.parsa.jobs.generate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.jobs.ingest.IngestTestSupport;
import java.io.File;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The generator tool writes valid, reproducible libsvm with the requested shape, and ingest reads it back. */
class GenerateToolTest {

  @TempDir
  File tmp;

  private final Configuration conf = IngestTestSupport.localConf();

  private int generate(String... args) throws Exception {
    return ToolRunner.run(new Configuration(conf), new GenerateTool(), args);
  }

  private List<String> lines(File f) throws Exception {
    CompressionCodecFactory codecs = new CompressionCodecFactory(conf);
    var codec = codecs.getCodec(new Path(f.getPath()));
    try (InputStream raw = Files.newInputStream(f.toPath());
         InputStream in = codec == null ? raw : codec.createInputStream(raw)) {
      return new ArrayList<>(List.of(new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")));
    }
  }

  @Test
  void writesRequestedRowsAndNonZerosReproducibly() throws Exception {
    File a = new File(tmp, "a.libsvm");
    File b = new File(tmp, "b.libsvm.gz");
    String[] common = {"--rows", "2000", "--columns", "100000", "--nonzeros", "30000", "--seed", "3"};
    assertEquals(0, generate(concat(common, "--output", a.getPath())));
    assertEquals(0, generate(concat(common, "--output", b.getPath())));
    List<String> la = lines(a);
    assertEquals(la, lines(b), "same seed, same data (gzip only changes the bytes on disk)");
    assertEquals(2000, la.size());
    long nnz = 0;
    for (String l : la) {
      String[] t = l.split(" ");
      assertTrue(t[0].equals("+1") || t[0].equals("-1"), l);
      long prev = 0;
      for (int i = 1; i < t.length; i++) {
        long k = Long.parseLong(t[i].substring(0, t[i].indexOf(':')));
        assertTrue(k > prev && k <= 100_000, "keys ascending, distinct, in 1..columns: " + l);
        prev = k;
      }
      nnz += t.length - 1;
    }
    assertEquals(30_000, nnz);
  }

  @Test
  void refusesToOverwriteAndValidatesOptions() throws Exception {
    File a = new File(tmp, "a.libsvm");
    assertEquals(0, generate("--rows", "10", "--columns", "10", "--nonzeros", "20", "--output", a.getPath()));
    assertEquals(2, generate("--rows", "10", "--columns", "10", "--nonzeros", "20", "--output", a.getPath()));
    assertEquals(0, generate("--rows", "10", "--columns", "10", "--nonzeros", "20", "--output", a.getPath(),
        "--overwrite"));
    assertEquals(2, generate("--rows", "10", "--columns", "10", "--nonzeros", "20", "--row-exponent", "1",
        "--output", new File(tmp, "x").getPath()));
    assertEquals(2, generate("--rows", "10", "--output", new File(tmp, "y").getPath()));
    assertEquals(List.of("a.libsvm"), List.of(tmp.list((d, n) -> !n.startsWith("."))));
  }

  @Test
  void ingestReadsGeneratedData() throws Exception {
    File a = new File(tmp, "g.libsvm.gz");
    assertEquals(0, generate("--rows", "3000", "--columns", "100000", "--nonzeros", "40000", "--output",
        a.getPath()));
    IngestTestSupport.Run r = IngestTestSupport.ingest(conf, "--input", a.getPath(), "--output",
        new File(tmp, "blocks").getPath(), "--blocks", "2");
    IngestTestSupport.assertExit(0, r);
    assertEquals(40_000, r.tool().lastCounters().findCounter(io.parsa.jobs.ingest.IngestCounters.NONZEROS_OUT)
        .getValue());
  }

  @Test
  void filesModeSplitsTheSameRowsIntoContiguousRanges() throws Exception {
    File one = new File(tmp, "one.libsvm");
    File dir = new File(tmp, "split");
    String[] common = {"--rows", "1000", "--columns", "100000", "--nonzeros", "9000", "--seed", "5"};
    assertEquals(0, generate(concat(common, "--output", one.getPath())));
    assertEquals(0, generate(concat(common, "--output", dir.getPath(), "--files", "3", "--compress", "gz")));
    String[] names = dir.list((d, n) -> !n.startsWith("."));
    java.util.Arrays.sort(names);
    assertEquals(List.of("_SUCCESS", "part-00000.libsvm.gz", "part-00001.libsvm.gz", "part-00002.libsvm.gz"),
        List.of(names));
    List<String> joined = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      List<String> part = lines(new File(dir, names[i + 1]));
      assertTrue(part.size() >= 333 && part.size() <= 334, "rows in part " + i + ": " + part.size());
      joined.addAll(part);
    }
    assertEquals(lines(one), joined, "same rows, same order, split into files");
    assertEquals(2, generate(concat(common, "--output", one.getPath() + "2", "--compress", "gz")));
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
