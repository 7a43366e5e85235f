package io.parsa.common;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** Reads and writes the small JSON summaries ({@code _stats.json}, reports) on any Hadoop file system. */
public final class JsonFiles {

  /** Shared, thread-safe mapper with pretty printing. */
  public static final ObjectMapper MAPPER =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private JsonFiles() {}

  public static void write(FileSystem fs, Path path, Object value) throws IOException {
    try (OutputStream out = fs.create(path, true)) {
      MAPPER.writeValue(out, value);
    }
  }

  public static <T> T read(FileSystem fs, Path path, Class<T> type) throws IOException {
    try (InputStream in = fs.open(path)) {
      return MAPPER.readValue(in, type);
    }
  }
}
