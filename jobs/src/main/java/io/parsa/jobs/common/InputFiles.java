package io.parsa.jobs.common;

import io.parsa.common.UsageException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.io.compress.CompressionCodecFactory;

/**
 * Resolves a user's {@code --input} (comma-separated paths, globs and directories, on any Hadoop file system)
 * into the list of input files, sorted by full path. Directories are listed recursively; names starting with
 * {@code _} or {@code .} (job markers, temporary files) are skipped, as Hadoop's own input formats do.
 */
public final class InputFiles {

  /** Assumed expansion of compressed text when estimating its size (gzip/bzip2 on text: typically 3-6x). */
  public static final double COMPRESSED_TEXT_RATIO = 4.0;

  private InputFiles() {}

  /** Splits a comma-separated {@code --input} value, ignoring empty entries. */
  public static List<String> split(String inputs) {
    List<String> out = new ArrayList<>();
    for (String s : inputs.split(",")) {
      if (!s.isBlank()) {
        out.add(s.trim());
      }
    }
    if (out.isEmpty()) {
      throw new UsageException("--input names no path");
    }
    return out;
  }

  /**
   * All files named by {@code inputs}, qualified, without duplicates, sorted by path string. Fails with a
   * {@link UsageException} if an entry matches nothing or the whole input holds no file.
   */
  public static List<FileStatus> resolve(Configuration conf, List<String> inputs) throws IOException {
    Map<String, FileStatus> files = new LinkedHashMap<>();
    for (String input : inputs) {
      Path p = new Path(input);
      FileSystem fs = p.getFileSystem(conf);
      FileStatus[] matches = fs.globStatus(p);
      if (matches == null || matches.length == 0) {
        throw new UsageException("input " + input + " matches no file or directory");
      }
      for (FileStatus m : matches) {
        if (m.isDirectory()) {
          RemoteIterator<LocatedFileStatus> it = fs.listFiles(m.getPath(), true);
          while (it.hasNext()) {
            LocatedFileStatus f = it.next();
            if (!isHidden(m.getPath(), f.getPath())) {
              files.putIfAbsent(f.getPath().toString(), f);
            }
          }
        } else if (!isHidden(m.getPath().getParent(), m.getPath())) {
          FileStatus q = fs.getFileStatus(fs.makeQualified(m.getPath()));
          files.putIfAbsent(q.getPath().toString(), q);
        }
      }
    }
    if (files.isEmpty()) {
      throw new UsageException("input " + String.join(",", inputs)
          + " holds no files (names starting with '_' or '.' are skipped)");
    }
    List<FileStatus> sorted = new ArrayList<>(files.values());
    sorted.sort(Comparator.comparing(s -> s.getPath().toString()));
    return sorted;
  }

  /** True if any path component below {@code root} starts with '_' or '.'. */
  private static boolean isHidden(Path root, Path file) {
    String rootStr = root == null ? "" : root.toUri().getPath();
    for (Path p = file; p != null && !p.toUri().getPath().equals(rootStr); p = p.getParent()) {
      String n = p.getName();
      if (n.startsWith("_") || n.startsWith(".")) {
        return true;
      }
      if (p.getParent() == null) {
        break;
      }
    }
    return false;
  }

  /**
   * Estimated uncompressed bytes of the files: plain files count their length, files a Hadoop codec recognises
   * by extension count {@link #COMPRESSED_TEXT_RATIO} times their length.
   */
  public static long estimatedBytes(Configuration conf, List<FileStatus> files) {
    CompressionCodecFactory codecs = new CompressionCodecFactory(conf);
    double total = 0;
    for (FileStatus f : files) {
      total += codecs.getCodec(f.getPath()) == null ? f.getLen() : f.getLen() * COMPRESSED_TEXT_RATIO;
    }
    return (long) total;
  }

  /** The paths of {@code files}, in order. */
  public static Path[] paths(List<FileStatus> files) {
    Path[] out = new Path[files.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = files.get(i).getPath();
    }
    return out;
  }
}
