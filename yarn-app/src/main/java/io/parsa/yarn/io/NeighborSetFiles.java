package io.parsa.yarn.io;

import io.parsa.avro.NeighborSetEntry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** Reads and writes Avro NeighborSetEntry files (final neighbor sets, server checkpoints). */
public final class NeighborSetFiles {

  private NeighborSetFiles() {}

  /** Receives one key with its member bits ({@code wpk} words from {@code offset}). */
  public interface BitsConsumer {
    void accept(long key, long[] words, int offset) throws IOException;
  }

  /** Streams NeighborSetEntry records into an Avro file, converting member bits to part lists. */
  public static final class Writer implements AutoCloseable {
    private final DataFileWriter<NeighborSetEntry> out;
    private final NeighborSetEntry entry = new NeighborSetEntry();
    private final List<Integer> parts = new ArrayList<>();
    private final int wpk;
    private long written;

    public Writer(FileSystem fs, Path file, int k, Map<String, String> meta) throws IOException {
      this.wpk = (k + 63) >>> 6;
      FSDataOutputStream stream = fs.create(file, true);
      out = new DataFileWriter<>(new SpecificDatumWriter<>(NeighborSetEntry.class));
      out.setCodec(CodecFactory.deflateCodec(1));
      out.setMeta("parsa.k", Integer.toString(k));
      for (Map.Entry<String, String> e : meta.entrySet()) {
        out.setMeta(e.getKey(), e.getValue());
      }
      out.create(NeighborSetEntry.getClassSchema(), stream);
    }

    /** Writes one key unless its set is empty. */
    public void write(long key, long[] words, int offset) throws IOException {
      parts.clear();
      for (int w = 0; w < wpk; w++) {
        long b = words[offset + w];
        while (b != 0) {
          parts.add((w << 6) + Long.numberOfTrailingZeros(b));
          b &= b - 1;
        }
      }
      if (parts.isEmpty()) {
        return;
      }
      entry.setKey(key);
      entry.setParts(parts);
      out.append(entry);
      written++;
    }

    public long written() {
      return written;
    }

    @Override
    public void close() throws IOException {
      out.close();
    }
  }

  /** Avro files of a directory, in name order, hidden and underscore files excluded. */
  public static List<Path> list(FileSystem fs, Path dir) throws IOException {
    FileStatus[] st = fs.listStatus(dir, p -> !p.getName().startsWith("_") && !p.getName().startsWith(".")
        && p.getName().endsWith(".avro"));
    Arrays.sort(st);
    List<Path> out = new ArrayList<>();
    for (FileStatus s : st) {
      out.add(s.getPath());
    }
    return out;
  }

  /**
   * Reads one file, calling {@code sink} with each entry's bits; parts at or above {@code k} are an error.
   *
   * @return the file's metadata entries starting with {@code parsa.}
   */
  public static Map<String, String> read(FileSystem fs, Path file, int k, BitsConsumer sink) throws IOException {
    int wpk = (k + 63) >>> 6;
    long[] words = new long[wpk];
    Map<String, String> meta = new java.util.HashMap<>();
    try (DataFileStream<NeighborSetEntry> in =
        new DataFileStream<>(fs.open(file), new SpecificDatumReader<>(NeighborSetEntry.class))) {
      for (String m : in.getMetaKeys()) {
        if (m.startsWith("parsa.")) {
          meta.put(m, in.getMetaString(m));
        }
      }
      NeighborSetEntry e = null;
      long n = 0;
      while (in.hasNext()) {
        e = in.next(e);
        n++;
        Arrays.fill(words, 0L);
        for (int p : e.getParts()) {
          if (p < 0 || p >= k) {
            throw new IOException(file + ": record " + n + ": part " + p + " outside [0, " + k + ")");
          }
          words[p >>> 6] |= 1L << p;
        }
        sink.accept(e.getKey(), words, 0);
      }
    }
    return meta;
  }
}
