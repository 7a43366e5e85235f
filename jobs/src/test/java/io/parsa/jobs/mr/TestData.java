package io.parsa.jobs.mr;

import io.parsa.avro.GraphRow;
import io.parsa.avro.UAssignment;
import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** Test fixtures: local-mode configuration, blocks and u-assignments written directly as Avro files. */
public final class TestData {

  private TestData() {}

  /** LocalJobRunner on the local file system. */
  public static Configuration localConf() {
    Configuration conf = new Configuration();
    conf.set("fs.defaultFS", "file:///");
    conf.set("mapreduce.framework.name", "local");
    conf.setInt("mapreduce.local.map.tasks.maximum", 2);
    conf.setInt("mapreduce.local.reduce.tasks.maximum", 2);
    conf.set("mapreduce.task.io.sort.mb", "20");
    return conf;
  }

  public static GraphRow row(long id, String raw, long... keys) {
    List<Long> ks = new ArrayList<>();
    for (long k : keys) {
      ks.add(k);
    }
    return GraphRow.newBuilder().setId(id).setKeys(ks).setWeight(null)
        .setRaw(ByteBuffer.wrap(raw.getBytes(StandardCharsets.UTF_8))).build();
  }

  /** A libsvm row whose raw line is built from the keys: "1 k1:1 k2:1 ...". */
  public static GraphRow libsvmRow(long id, long... keys) {
    StringBuilder sb = new StringBuilder("1");
    for (long k : keys) {
      sb.append(' ').append(k).append(":1");
    }
    return row(id, sb.toString(), keys);
  }

  /** Writes {@code rows} round robin into {@code files} block files, plus _SUCCESS. */
  public static void writeBlocks(FileSystem fs, Path dir, List<GraphRow> rows, int files) throws IOException {
    List<List<GraphRow>> split = new ArrayList<>();
    for (int f = 0; f < files; f++) {
      split.add(new ArrayList<>());
    }
    for (int i = 0; i < rows.size(); i++) {
      split.get(i % files).add(rows.get(i));
    }
    for (int f = 0; f < files; f++) {
      writeAvro(fs, new Path(dir, String.format("block-%05d.avro", f)), split.get(f));
    }
    fs.create(new Path(dir, "_SUCCESS"), true).close();
  }

  public static void writeUAssignment(FileSystem fs, Path dir, Map<Long, Integer> parts) throws IOException {
    List<UAssignment> l = new ArrayList<>();
    parts.forEach((id, p) -> l.add(new UAssignment(id, p)));
    writeAvro(fs, new Path(dir, "part-00000.avro"), l);
    fs.create(new Path(dir, "_SUCCESS"), true).close();
  }

  /**
   * Writes the parts of {@code rows} as partition-u does: one file per block of {@link #writeBlocks} (same round
   * robin over {@code files}), {@code AssignmentFiles.fileFor(dir, block)}, rows in block order; plus _SUCCESS.
   */
  public static void writeAlignedUAssignment(FileSystem fs, Path dir, List<GraphRow> rows, int files,
      Map<Long, Integer> parts) throws IOException {
    for (int f = 0; f < files; f++) {
      it.unimi.dsi.fastutil.longs.LongArrayList ids = new it.unimi.dsi.fastutil.longs.LongArrayList();
      it.unimi.dsi.fastutil.ints.IntArrayList ps = new it.unimi.dsi.fastutil.ints.IntArrayList();
      for (int i = f; i < rows.size(); i += files) {
        ids.add(rows.get(i).getId());
        ps.add(parts.get(rows.get(i).getId()));
      }
      io.parsa.yarn.io.AssignmentFiles.write(fs, dir, f, 0, ids.toLongArray(), ps.toIntArray());
    }
    fs.create(new Path(dir, "_SUCCESS"), true).close();
  }

  @SuppressWarnings("unchecked")
  public static <T extends SpecificRecord> void writeAvro(FileSystem fs, Path file, List<T> records) throws IOException {
    if (records.isEmpty()) {
      throw new IllegalArgumentException("no records for " + file);
    }
    T first = records.get(0);
    try (OutputStream os = fs.create(file, true);
        DataFileWriter<T> w = new DataFileWriter<>(new SpecificDatumWriter<>((Class<T>) first.getClass()))) {
      w.create(first.getSchema(), os);
      for (T t : records) {
        w.append(t);
      }
    }
  }

  /**
   * Parses a (gzipped) libsvm file into GraphRows with the brief's id rule: (file ordinal 0 &lt;&lt; 40) | 0-based
   * line number; keys = feature indices as written (qid tokens skipped), raw = the line without newline.
   */
  public static List<GraphRow> parseLibsvm(java.io.File file) throws IOException {
    List<GraphRow> rows = new ArrayList<>();
    try (InputStream in = file.getName().endsWith(".gz")
            ? new GZIPInputStream(new FileInputStream(file), 1 << 16) : new FileInputStream(file);
        BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16)) {
      String line;
      long lineNo = 0;
      while ((line = r.readLine()) != null) {
        long id = lineNo++;
        String body = line;
        int hash = body.indexOf('#');
        if (hash >= 0) {
          body = body.substring(0, hash);
        }
        String[] toks = body.trim().split("\\s+");
        List<Long> keys = new ArrayList<>();
        for (int i = 1; i < toks.length; i++) {
          int c = toks[i].indexOf(':');
          if (c <= 0 || toks[i].startsWith("qid:")) {
            continue;
          }
          keys.add(Long.parseLong(toks[i].substring(0, c)));
        }
        rows.add(GraphRow.newBuilder().setId(id).setKeys(keys).setWeight(null)
            .setRaw(ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8))).build());
      }
    }
    return rows;
  }

  /** A fresh directory under target/test-work. */
  public static Path tempDir(String name) throws IOException {
    java.nio.file.Path base = java.nio.file.Paths.get("target", "test-work");
    Files.createDirectories(base);
    return new Path(Files.createTempDirectory(base, name).toAbsolutePath().toUri());
  }
}
