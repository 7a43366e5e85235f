package io.parsa.jobs.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.parsa.avro.VAssignment;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Test-side, independent recomputation of a pipeline's results from its shards and V assignment: the working
 * sets and traffic per machine (paper eq. 6 and 7) computed here must equal the metrics step's report.
 */
final class PlacementCheck {

  private PlacementCheck() {}

  /** Multiset of the non-empty lines of a (possibly gzipped) local text file. */
  static Map<String, Integer> linesOf(File f) throws IOException {
    Map<String, Integer> m = new HashMap<>();
    try (InputStream raw = java.nio.file.Files.newInputStream(f.toPath());
        InputStream in = f.getName().endsWith(".gz") ? new GZIPInputStream(raw) : raw;
        BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        if (!line.isEmpty()) {
          m.merge(line, 1, Integer::sum);
        }
      }
    }
    return m;
  }

  /** Lines of each shard file part-00000 … part-(k-1), in part order. */
  static List<List<String>> shardLines(FileSystem fs, Path shards, int k) throws IOException {
    List<List<String>> out = new ArrayList<>();
    for (int i = 0; i < k; i++) {
      Path p = new Path(shards, String.format("part-%05d", i));
      List<String> lines = new ArrayList<>();
      try (BufferedReader r = new BufferedReader(new InputStreamReader(fs.open(p), StandardCharsets.UTF_8))) {
        for (String line; (line = r.readLine()) != null; ) {
          if (!line.isEmpty()) {
            lines.add(line);
          }
        }
      }
      out.add(lines);
    }
    return out;
  }

  /** Keys of a libsvm line (tokens idx:val, skipping the label, qid and a trailing comment). */
  static long[] libsvmKeys(String line) {
    String body = line.contains("#") ? line.substring(0, line.indexOf('#')) : line;
    String[] tok = body.trim().split("\\s+");
    long[] keys = new long[tok.length];
    int n = 0;
    for (int i = 1; i < tok.length; i++) {
      int c = tok[i].indexOf(':');
      if (c > 0 && !tok[i].startsWith("qid:")) {
        keys[n++] = Long.parseLong(tok[i].substring(0, c));
      }
    }
    return Arrays.copyOf(keys, n);
  }

  static Long2IntOpenHashMap readVAssignment(FileSystem fs, Path dir) throws IOException {
    Long2IntOpenHashMap m = new Long2IntOpenHashMap();
    m.defaultReturnValue(-1);
    for (FileStatus st : fs.listStatus(dir, p -> p.getName().endsWith(".avro"))) {
      try (DataFileStream<VAssignment> in =
          new DataFileStream<>(fs.open(st.getPath()), new SpecificDatumReader<>(VAssignment.class))) {
        for (VAssignment v : in) {
          assertEquals(-1, m.put(v.getKey(), v.getPart()), "key " + v.getKey() + " assigned twice");
        }
      }
    }
    return m;
  }

  /**
   * Recomputes M_i, |V_i|, T_i from shard lines and the V assignment and asserts they equal the report's
   * placed figures.
   */
  static void assertReportMatches(JsonNode report, List<List<String>> shards, Long2IntOpenHashMap vPart) {
    int k = shards.size();
    List<LongOpenHashSet> working = new ArrayList<>();
    for (List<String> lines : shards) {
      LongOpenHashSet s = new LongOpenHashSet();
      for (String line : lines) {
        for (long key : libsvmKeys(line)) {
          s.add(key);
        }
      }
      working.add(s);
    }
    long[] m = new long[k];
    long[] vSize = new long[k];
    long[] traffic = new long[k];
    for (int i = 0; i < k; i++) {
      m[i] = working.get(i).size();
      for (long key : working.get(i)) {
        int owner = vPart.get(key);
        if (owner < 0) {
          throw new AssertionError("key " + key + " used by part " + i + " has no server");
        }
        if (owner != i) {
          traffic[i]++; // worker i pulls a key it does not own
          traffic[owner]++; // server owner serves another machine
        }
      }
    }
    for (long owner : vPart.values()) {
      vSize[(int) owner]++;
    }
    JsonNode parts = report.get("placed").get("parts");
    assertEquals(k, parts.size());
    long maxM = 0;
    long maxT = 0;
    long sumT = 0;
    for (int i = 0; i < k; i++) {
      JsonNode p = parts.get(i);
      assertEquals(i, p.get("part").asInt());
      assertEquals(shards.get(i).size(), p.get("rows").asLong(), "rows of part " + i);
      assertEquals(m[i], p.get("workingSet").asLong(), "M_" + i);
      assertEquals(vSize[i], p.get("serverKeys").asLong(), "|V_" + i + "|");
      assertEquals(traffic[i], p.get("traffic").asLong(), "T_" + i);
      maxM = Math.max(maxM, m[i]);
      maxT = Math.max(maxT, traffic[i]);
      sumT += traffic[i];
    }
    assertEquals(maxM, report.get("placed").get("maxWorkingSet").asLong(), "M_max");
    assertEquals(maxT, report.get("placed").get("maxTraffic").asLong(), "T_max");
    assertEquals(sumT, report.get("placed").get("sumTraffic").asLong(), "T_sum");
  }
}
