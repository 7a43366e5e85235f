package io.parsa.yarn.io;

import io.parsa.avro.GraphRow;
import io.parsa.common.UsageException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.Decoder;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Lists the blocks of a blocks directory (each {@code *.avro} file one block, in name order) and reads one block
 * into CSR arrays. Reading decodes id, keys and weight straight into primitive arrays and skips the raw bytes
 * when the file was written with the suite's GraphRow schema; other compatible writer schemas go through Avro's
 * schema resolution.
 */
public final class BlockFiles {

  private BlockFiles() {}

  /** The block files of {@code dir} in name order; a usage error if there are none. */
  public static List<Path> list(FileSystem fs, Path dir) throws IOException {
    if (!fs.exists(dir)) {
      throw new UsageException("blocks directory " + dir + " does not exist");
    }
    FileStatus[] st = fs.listStatus(dir, p -> p.getName().endsWith(".avro") && !p.getName().startsWith(".")
        && !p.getName().startsWith("_"));
    Arrays.sort(st, (a, b) -> a.getPath().getName().compareTo(b.getPath().getName()));
    List<Path> out = new ArrayList<>();
    for (FileStatus s : st) {
      out.add(s.getPath());
    }
    if (out.isEmpty()) {
      throw new UsageException("blocks directory " + dir + " holds no *.avro block files");
    }
    return out;
  }

  /**
   * The index of block file {@code block} among the block files of its directory (name order: the index
   * partition-u, refine-u and assign-baseline give its assignment file, {@link AssignmentFiles#fileFor}).
   */
  public static int indexOf(FileSystem fs, Path block) throws IOException {
    List<Path> blocks = list(fs, block.getParent());
    for (int b = 0; b < blocks.size(); b++) {
      if (blocks.get(b).getName().equals(block.getName())) {
        return b;
      }
    }
    throw new IOException(block + ": not a block file of " + block.getParent());
  }

  /**
   * Records of one Avro container file (rows of a block file, or any other record type), from the container's
   * block headers: the data is decompressed but no record is decoded.
   */
  public static long countRows(FileSystem fs, Path file) throws IOException {
    try (InputStream in = fs.open(file);
        DataFileStream<Object> stream = new DataFileStream<>(in, new org.apache.avro.generic.GenericDatumReader<>())) {
      long n = 0;
      while (stream.hasNext()) {
        n += stream.getBlockCount();
        stream.nextBlock();
      }
      return n;
    } catch (org.apache.avro.AvroRuntimeException e) {
      throw new IOException(file + ": not a readable Avro block file: " + e.getMessage(), e);
    }
  }

  /** Reads one block. */
  public static BlockData read(FileSystem fs, Path file) throws IOException {
    return read(fs, file, -1, -1);
  }

  /**
   * Reads one block whose rows and non-zeros ingest counted ({@code _stats.json}; -1: unknown): its arrays are
   * allocated once at their size instead of doubling from a guess and copied to size at the end (a 700,000-key
   * block allocated 2.5 times its keys' bytes that way, on every worker that reads it). A wrong count only costs
   * the growing it saves.
   */
  public static BlockData read(FileSystem fs, Path file, long rows, long nonZeros) throws IOException {
    try (InputStream in = fs.open(file)) {
      return read(in, file.toString(), rows, nonZeros);
    }
  }

  /** Reads one block from a stream (closed by the caller). */
  public static BlockData read(InputStream in, String name) throws IOException {
    return read(in, name, -1, -1);
  }

  private static BlockData read(InputStream in, String name, long rows, long nonZeros) throws IOException {
    CsrSink sink = new CsrSink(rows, nonZeros);
    FastReader fast = new FastReader(sink);
    try (DataFileStream<Object> stream = new DataFileStream<>(in, fast)) {
      if (fast.compatible) {
        while (stream.hasNext()) {
          stream.next(null);
        }
      } else {
        // the writer schema differs from ours: let Avro resolve it (slower, but correct)
        Schema writer = stream.getSchema();
        SpecificDatumReader<GraphRow> generic = new SpecificDatumReader<>(writer, GraphRow.getClassSchema());
        DatumReader<Object> bridge = new DatumReader<Object>() {
          @Override
          public void setSchema(Schema schema) {}

          @Override
          public Object read(Object reuse, Decoder decoder) throws IOException {
            GraphRow row = generic.read(null, decoder);
            sink.row(row.getId(), row.getKeys(), row.getWeight());
            return null;
          }
        };
        fast.delegate = bridge;
        while (stream.hasNext()) {
          stream.next(null);
        }
      }
    } catch (org.apache.avro.AvroRuntimeException | IllegalStateException e) {
      throw new IOException(name + ": not a readable GraphRow block: " + e.getMessage(), e);
    }
    return sink.build(name);
  }

  /** Accumulates rows into growable CSR arrays. */
  static final class CsrSink {
    long[] ids;
    int[] start;
    long[] keys;
    double[] weights;
    int n;
    int nnz;

    /** Arrays for {@code rows} rows and {@code nonZeros} keys where known (else small, growing by doubling). */
    CsrSink(long rows, long nonZeros) {
      int r = rows > 0 && rows < Integer.MAX_VALUE - 8 ? (int) rows : 1024;
      int z = nonZeros > 0 && nonZeros < Integer.MAX_VALUE - 8 ? (int) nonZeros : 16384;
      ids = new long[r];
      start = new int[r + 1];
      keys = new long[z];
    }

    void beginRow(long id) {
      if (n == ids.length) {
        ids = Arrays.copyOf(ids, n * 2);
        start = Arrays.copyOf(start, n * 2 + 1);
      }
      ids[n] = id;
    }

    void key(long key) {
      if (nnz == keys.length) {
        keys = Arrays.copyOf(keys, nnz * 2);
      }
      keys[nnz++] = key;
    }

    void endRow(Double weight) {
      if (weight != null) {
        if (weights == null) {
          weights = new double[ids.length];
          Arrays.fill(weights, 0, n, 1.0);
        }
      }
      if (weights != null) {
        if (weights.length < ids.length) {
          weights = Arrays.copyOf(weights, ids.length);
        }
        weights[n] = weight == null ? 1.0 : weight;
      }
      n++;
      start[n] = nnz;
    }

    void row(long id, List<Long> ks, Double weight) {
      beginRow(id);
      for (Long k : ks) {
        key(k);
      }
      endRow(weight);
    }

    BlockData build(String name) {
      return new BlockData(name, fit(ids, n), n + 1 == start.length ? start : Arrays.copyOf(start, n + 1),
          fit(keys, nnz), weights == null ? null : weights.length == n ? weights : Arrays.copyOf(weights, n));
    }

    private static long[] fit(long[] a, int size) {
      return a.length == size ? a : Arrays.copyOf(a, size);
    }
  }

  /** Decodes rows written with exactly the suite's GraphRow schema without materialising records. */
  static final class FastReader implements DatumReader<Object> {
    private final CsrSink sink;
    boolean compatible;
    DatumReader<Object> delegate;

    FastReader(CsrSink sink) {
      this.sink = sink;
    }

    @Override
    public void setSchema(Schema writer) {
      compatible = writer.equals(GraphRow.getClassSchema()) || sameLayout(writer);
    }

    private static boolean sameLayout(Schema w) {
      if (w.getType() != Schema.Type.RECORD || w.getFields().size() != 4) {
        return false;
      }
      Schema ours = GraphRow.getClassSchema();
      for (int i = 0; i < 4; i++) {
        Schema.Field a = w.getFields().get(i);
        Schema.Field b = ours.getFields().get(i);
        if (!a.name().equals(b.name()) || !stripProps(a.schema()).equals(stripProps(b.schema()))) {
          return false;
        }
      }
      return true;
    }

    private static String stripProps(Schema s) {
      return s.toString().replace(",\"avro.java.string\":\"String\"", "");
    }

    @Override
    public Object read(Object reuse, Decoder in) throws IOException {
      if (delegate != null) {
        return delegate.read(reuse, in);
      }
      sink.beginRow(in.readLong());
      for (long c = in.readArrayStart(); c != 0; c = in.arrayNext()) {
        for (long i = 0; i < c; i++) {
          sink.key(in.readLong());
        }
      }
      Double weight = null;
      int branch = in.readIndex();
      if (branch == 1) {
        weight = in.readDouble();
      }
      in.skipBytes();
      sink.endRow(weight);
      return null;
    }
  }
}
