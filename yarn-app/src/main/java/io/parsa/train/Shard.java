package io.parsa.train;

import io.parsa.avro.GraphRow;
import io.parsa.common.UsageException;
import it.unimi.dsi.fastutil.doubles.DoubleArrayList;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;

/**
 * The training rows of one worker, in file order: a binary label and the sparse features (key, value) of each row.
 *
 * <p>Labels: -1, 0 and +1 are taken as given (positive iff &gt; 0); any other (multi-class) label is mapped to a
 * binary task, positive iff the class number is odd, so that multi-class data sets such as news20 train a
 * logistic regression of roughly balanced classes without a second pass over the data.
 */
public final class Shard {
  final int rows;
  final byte[] labels;
  final int[] start;
  final long[] keys;
  final double[] values;

  Shard(byte[] labels, int[] start, long[] keys, double[] values) {
    this.rows = labels.length;
    this.labels = labels;
    this.start = start;
    this.keys = keys;
    this.values = values;
  }

  public int rows() {
    return rows;
  }

  public long nonZeros() {
    return keys.length;
  }

  /** Builds a shard from libsvm lines (tests and tools). */
  public static Shard ofLines(String source, List<String> lines) {
    Builder b = new Builder();
    for (int i = 0; i < lines.size(); i++) {
      b.parse(lines.get(i), source, i + 1);
    }
    return b.build();
  }

  /**
   * The shard files of a {@code reshuffle} output, one per machine in name order ({@code part-*}; text libsvm,
   * optionally compressed, or Avro GraphRow whose raw bytes are libsvm lines).
   */
  public static List<Path> shardFiles(FileSystem fs, Path dir) throws IOException {
    if (!fs.isDirectory(dir)) {
      throw new UsageException(dir + ": not a directory of shards (expected part-* files from reshuffle)");
    }
    List<Path> out = new ArrayList<>();
    FileStatus[] st = fs.listStatus(dir, p -> p.getName().startsWith("part-"));
    Arrays.sort(st, (a, b) -> a.getPath().getName().compareTo(b.getPath().getName()));
    for (FileStatus s : st) {
      out.add(s.getPath());
    }
    if (out.isEmpty()) {
      throw new UsageException(dir + ": no part-* shard files (expected the shards/ directory of a reshuffle run)");
    }
    return out;
  }

  /** Reads one shard file. */
  public static Shard read(FileSystem fs, Path file, Configuration conf) throws IOException {
    Builder b = new Builder();
    if (file.getName().endsWith(".avro")) {
      try (DataFileStream<GraphRow> in = new DataFileStream<>(fs.open(file), new SpecificDatumReader<>(GraphRow.class))) {
        long n = 0;
        GraphRow row = null;
        while (in.hasNext()) {
          io.parsa.yarn.io.AvroReuse.dropArrays(row);
          row = in.next(row);
          n++;
          ByteBuffer raw = row.getRaw();
          b.parse(StandardCharsets.UTF_8.decode(raw.duplicate()).toString(), file + " record", n);
        }
      }
      return b.build();
    }
    CompressionCodec codec = new CompressionCodecFactory(conf).getCodec(file);
    try (InputStream raw = fs.open(file);
        InputStream in = codec == null ? raw : codec.createInputStream(raw);
        BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16)) {
      String line;
      long n = 0;
      while ((line = r.readLine()) != null) {
        n++;
        b.parse(line, file.toString(), n);
      }
    }
    return b.build();
  }

  /** Accumulates parsed rows. */
  static final class Builder {
    private final ByteArrayBuilder labels = new ByteArrayBuilder();
    private final IntArrayList start = IntArrayList.of(0);
    private final LongArrayList keys = new LongArrayList();
    private final DoubleArrayList values = new DoubleArrayList();

    void parse(String line, String source, long lineNo) {
      int hash = line.indexOf('#');
      String body = (hash >= 0 ? line.substring(0, hash) : line).trim();
      if (body.isEmpty()) {
        return;
      }
      String[] tok = body.split("\\s+");
      double label;
      try {
        label = Double.parseDouble(tok[0]);
      } catch (NumberFormatException e) {
        throw new UsageException(source + ":" + lineNo + ": expected a numeric label first, found '" + tok[0] + "'");
      }
      labels.add(binary(label) ? (byte) 1 : (byte) 0);
      for (int t = 1; t < tok.length; t++) {
        int colon = tok[t].indexOf(':');
        if (colon <= 0) {
          throw new UsageException(source + ":" + lineNo + ": expected index:value, found '" + tok[t] + "'");
        }
        if (tok[t].startsWith("qid:")) {
          continue;
        }
        try {
          keys.add(Long.parseLong(tok[t], 0, colon, 10));
          values.add(Double.parseDouble(tok[t].substring(colon + 1)));
        } catch (NumberFormatException e) {
          throw new UsageException(source + ":" + lineNo + ": expected index:value with an integer index and a"
              + " numeric value, found '" + tok[t] + "'");
        }
      }
      start.add(keys.size());
    }

    Shard build() {
      return new Shard(labels.toArray(), start.toIntArray(), keys.toLongArray(), values.toDoubleArray());
    }
  }

  /** The binary label of a libsvm label (see the class comment). */
  static boolean binary(double label) {
    if (label == 1 || label == -1 || label == 0) {
      return label > 0;
    }
    long c = (long) Math.floor(label);
    return (c & 1) == 1;
  }

  /** A growable byte array. */
  private static final class ByteArrayBuilder {
    private byte[] a = new byte[1024];
    private int n;

    void add(byte b) {
      if (n == a.length) {
        a = Arrays.copyOf(a, n * 2);
      }
      a[n++] = b;
    }

    byte[] toArray() {
      return Arrays.copyOf(a, n);
    }
  }
}
