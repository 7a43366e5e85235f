package io.parsa.yarn;

import io.parsa.avro.GraphRow;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** Writes GraphRow block directories for tests (the real ingest step lives in the jobs module). */
public final class TestBlocks {

  private TestBlocks() {}

  /** A row: id, keys and an optional weight (null: 1). */
  public static final class Row {
    public final long id;
    public final long[] keys;
    public final Double weight;

    public Row(long id, long[] keys) {
      this(id, keys, null);
    }

    public Row(long id, long[] keys, Double weight) {
      this.id = id;
      this.keys = keys;
      this.weight = weight;
    }
  }

  /** The same rows, each weighing its number of keys (as {@code ingest --weights nnz} writes them). */
  public static List<Row> weighedByKeys(List<Row> rows) {
    List<Row> out = new ArrayList<>(rows.size());
    for (Row r : rows) {
      out.add(new Row(r.id, r.keys, (double) r.keys.length));
    }
    return out;
  }

  /** Reads a (gzipped) libsvm file: row id = line number (file ordinal 0), keys = feature indices. */
  public static List<Row> readLibsvm(java.io.File file, int maxRows) throws IOException {
    List<Row> rows = new ArrayList<>();
    try (BufferedReader in = new BufferedReader(new InputStreamReader(
        file.getName().endsWith(".gz") ? new GZIPInputStream(new java.io.FileInputStream(file), 1 << 16)
            : new java.io.FileInputStream(file), StandardCharsets.UTF_8), 1 << 16)) {
      String line;
      long n = 0;
      while ((line = in.readLine()) != null && rows.size() < maxRows) {
        String[] parts = line.trim().split("\\s+");
        long[] keys = new long[Math.max(0, parts.length - 1)];
        int c = 0;
        for (int i = 1; i < parts.length; i++) {
          int colon = parts[i].indexOf(':');
          if (colon > 0) {
            keys[c++] = Long.parseLong(parts[i].substring(0, colon));
          }
        }
        rows.add(new Row(n++, java.util.Arrays.copyOf(keys, c)));
      }
    }
    return rows;
  }

  /** Random power-law-ish rows. */
  public static List<Row> random(int n, int keys, int avgDegree, long seed) {
    Random r = new Random(seed);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int d = 1 + r.nextInt(2 * avgDegree);
      long[] ks = new long[d];
      int topic = r.nextInt(8);
      for (int j = 0; j < d; j++) {
        // a mix of topic-local keys and popular keys, so that partitioning has structure to find
        ks[j] = r.nextInt(3) == 0 ? 1 + (long) (Math.pow(r.nextDouble(), 3) * keys)
            : 1 + topic * (keys / 8) + r.nextInt(keys / 8);
      }
      rows.add(new Row(i, ks));
    }
    return rows;
  }

  /**
   * Shuffles the rows into {@code blocks} files {@code block-XXXXX.avro} under {@code dir}, with an ingest-like
   * {@code _stats.json} (rows, non-zeros and distinct keys, rows and non-zeros per block).
   */
  public static void write(FileSystem fs, Path dir, List<Row> rows, int blocks, long seed) throws IOException {
    write(fs, dir, rows, blocks, seed, true);
  }

  /** As {@link #write(FileSystem, Path, List, int, long)}; without {@code _stats.json} if {@code withStats} is false. */
  public static void write(FileSystem fs, Path dir, List<Row> rows, int blocks, long seed, boolean withStats)
      throws IOException {
    long[] rowsPer = new long[blocks];
    long[] nnzPer = new long[blocks];
    double[] weightPer = new double[blocks];
    boolean anyWeight = false;
    java.util.Set<Long> distinct = new java.util.HashSet<>();
    long maxDegree = 0;
    List<Row> shuffled = new ArrayList<>(rows);
    java.util.Collections.shuffle(shuffled, new Random(seed));
    fs.mkdirs(dir);
    int per = (shuffled.size() + blocks - 1) / blocks;
    for (int b = 0; b < blocks; b++) {
      try (DataFileWriter<GraphRow> w = new DataFileWriter<>(new SpecificDatumWriter<>(GraphRow.class))) {
        w.create(GraphRow.getClassSchema(), fs.create(new Path(dir, String.format("block-%05d.avro", b)), true));
        for (int i = b * per; i < Math.min(shuffled.size(), (b + 1) * per); i++) {
          Row row = shuffled.get(i);
          List<Long> ks = new ArrayList<>(row.keys.length);
          for (long k : row.keys) {
            ks.add(k);
          }
          w.append(new GraphRow(row.id, ks, row.weight, ByteBuffer.wrap(new byte[] {'x'})));
          rowsPer[b]++;
          nnzPer[b] += ks.size();
          weightPer[b] += row.weight == null ? 1 : row.weight;
          anyWeight |= row.weight != null;
          distinct.addAll(ks);
          maxDegree = Math.max(maxDegree, ks.size());
        }
      }
    }
    if (withStats) {
      java.util.Map<String, Object> st = new java.util.LinkedHashMap<>();
      st.put("blocks", blocks);
      st.put("rows", java.util.Arrays.stream(rowsPer).sum());
      st.put("nonZeros", java.util.Arrays.stream(nnzPer).sum());
      st.put("distinctKeys", distinct.size());
      st.put("rowDegree", java.util.Map.of("max", maxDegree));
      st.put("rowsPerBlock", rowsPer);
      st.put("nonZerosPerBlock", nnzPer);
      if (anyWeight) {
        st.put("weightPerBlock", weightPer);
      }
      io.parsa.common.JsonFiles.write(fs, new Path(dir, "_stats.json"), st);
    }
    fs.create(new Path(dir, "_SUCCESS"), true).close();
  }
}
