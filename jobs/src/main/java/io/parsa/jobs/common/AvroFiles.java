package io.parsa.jobs.common;

import io.parsa.common.UsageException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.DatumReader;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** Lists and streams Avro container files on any Hadoop file system (a single file, or a directory of *.avro). */
public final class AvroFiles {

  private AvroFiles() {}

  /**
   * The Avro files of {@code path}: the file itself, or the {@code *.avro} files of a directory (not hidden),
   * sorted by name, which for a blocks directory is block order. Globs are expanded.
   */
  public static List<Path> list(Configuration conf, Path path) throws IOException {
    FileSystem fs = path.getFileSystem(conf);
    FileStatus[] matches = fs.globStatus(path);
    if (matches == null || matches.length == 0) {
      throw new UsageException("input " + path + " does not exist");
    }
    List<Path> out = new ArrayList<>();
    for (FileStatus m : matches) {
      if (m.isDirectory()) {
        for (FileStatus st : fs.listStatus(m.getPath())) {
          String n = st.getPath().getName();
          if (st.isFile() && n.endsWith(".avro") && !n.startsWith("_") && !n.startsWith(".")) {
            out.add(st.getPath());
          }
        }
      } else {
        out.add(m.getPath());
      }
    }
    out.sort(Comparator.comparing(Path::toString));
    return out;
  }

  /** Reads every record of {@code files} in order with a specific (generated-class) reader. */
  public static <T> void forEach(Configuration conf, List<Path> files, Class<T> type, Consumer<T> action)
      throws IOException {
    for (Path p : files) {
      try (InputStream in = p.getFileSystem(conf).open(p);
           DataFileStream<T> stream = new DataFileStream<>(in, new SpecificDatumReader<>(type))) {
        for (T t : stream) {
          action.accept(t);
        }
      }
    }
  }

  /** All records of {@code files} as generated-class objects. */
  public static <T> List<T> readAll(Configuration conf, List<Path> files, Class<T> type) throws IOException {
    List<T> out = new ArrayList<>();
    forEach(conf, files, type, out::add);
    return out;
  }

  /** Records in {@code files}, from the container's block headers (data decompressed, records not decoded). */
  public static long countRecords(Configuration conf, List<Path> files) throws IOException {
    long n = 0;
    for (Path p : files) {
      n += io.parsa.yarn.io.BlockFiles.countRows(p.getFileSystem(conf), p);
    }
    return n;
  }

  /** Opens one file for generic reading (schema from the file). */
  public static DataFileStream<Object> openGeneric(Configuration conf, Path p) throws IOException {
    InputStream in = p.getFileSystem(conf).open(p);
    DatumReader<Object> reader = new GenericDatumReader<>();
    try {
      return new DataFileStream<>(in, reader);
    } catch (IOException e) {
      in.close();
      throw new IOException(p + " is not an Avro container file: " + e.getMessage(), e);
    }
  }
}
