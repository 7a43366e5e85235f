package io.parsa.yarn.io;

import io.parsa.avro.UAssignment;
import java.io.IOException;
import java.util.Arrays;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.Decoder;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The u-assignment file of one block: {@code block-<index>.avro} (UAssignment records), written to a hidden
 * temporary file and renamed into place, so a block that runs again replaces its file and never duplicates rows.
 */
public final class AssignmentFiles {

  private AssignmentFiles() {}

  public static Path fileFor(Path dir, int blockIndex) {
    return new Path(dir, String.format("block-%06d.avro", blockIndex));
  }

  /** Writes {@code parts[r]} for row {@code rowIds[r]} atomically. */
  public static void write(FileSystem fs, Path dir, int blockIndex, long taskId, long[] rowIds, int[] parts)
      throws IOException {
    Path target = fileFor(dir, blockIndex);
    Path tmp = new Path(dir, "." + target.getName() + ".tmp-" + taskId);
    UAssignment rec = new UAssignment();
    try (DataFileWriter<UAssignment> out = new DataFileWriter<>(new SpecificDatumWriter<>(UAssignment.class))) {
      out.setCodec(CodecFactory.deflateCodec(1));
      out.create(UAssignment.getClassSchema(), fs.create(tmp, true));
      for (int r = 0; r < rowIds.length; r++) {
        rec.setId(rowIds[r]);
        rec.setPart(parts[r]);
        out.append(rec);
      }
    }
    if (fs.exists(target)) {
      fs.delete(target, false);
    }
    if (!fs.rename(tmp, target)) {
      throw new IOException("could not rename " + tmp + " to " + target);
    }
  }

  /** Row ids and parts of one assignment file. */
  public static final class Rows {
    public long[] ids = new long[1024];
    public int[] parts = new int[1024];
    public int n;
  }

  public static Rows read(FileSystem fs, Path file) throws IOException {
    Rows rows = new Rows();
    DatumReader<Object> reader = new DatumReader<Object>() {
      @Override
      public void setSchema(org.apache.avro.Schema schema) {
        if (schema.getField("id") == null || schema.getField("part") == null || schema.getFields().size() != 2) {
          throw new IllegalStateException(file + ": not a UAssignment file (schema " + schema + ")");
        }
      }

      @Override
      public Object read(Object reuse, Decoder in) throws IOException {
        if (rows.n == rows.ids.length) {
          rows.ids = Arrays.copyOf(rows.ids, rows.n * 2);
          rows.parts = Arrays.copyOf(rows.parts, rows.n * 2);
        }
        rows.ids[rows.n] = in.readLong();
        rows.parts[rows.n] = in.readInt();
        rows.n++;
        return null;
      }
    };
    try (DataFileStream<Object> in = new DataFileStream<>(fs.open(file), reader)) {
      while (in.hasNext()) {
        in.next(null);
      }
    }
    return rows;
  }
}
