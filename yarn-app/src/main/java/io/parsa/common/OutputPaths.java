package io.parsa.common;

import java.io.IOException;
import java.util.UUID;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Atomic step output: every step writes into a hidden temporary sibling of its output directory and renames it
 * into place only on success, so a reader never sees a half-written output and a failed run leaves the old one.
 * Existing output is refused unless the user asked to overwrite it.
 */
public final class OutputPaths {

  /** Marker file written last inside a complete output directory. */
  public static final String SUCCESS = "_SUCCESS";

  private OutputPaths() {}

  /** Fails with a {@link UsageException} if {@code out} exists and {@code overwrite} is false. */
  public static void checkWritable(FileSystem fs, Path out, boolean overwrite) throws IOException {
    if (fs.exists(out) && !overwrite) {
      throw new UsageException("output " + out + " already exists; pass --overwrite to replace it");
    }
  }

  /** A fresh hidden temporary path beside {@code out} (same parent, so the final rename stays on one volume). */
  public static Path tempFor(Path out) {
    return new Path(out.getParent(), "." + out.getName() + ".tmp-" + UUID.randomUUID());
  }

  /**
   * Moves the finished {@code tmp} into place as {@code out}, replacing an old {@code out} only if
   * {@code overwrite}; writes {@code _SUCCESS} inside if the job did not.
   */
  public static void commit(FileSystem fs, Path tmp, Path out, boolean overwrite) throws IOException {
    Path success = new Path(tmp, SUCCESS);
    if (!fs.exists(success)) {
      fs.create(success, true).close();
    }
    if (fs.exists(out)) {
      if (!overwrite) {
        throw new UsageException("output " + out + " appeared while the step ran; refusing to replace it");
      }
      if (!fs.delete(out, true)) {
        throw new IOException("could not delete old output " + out);
      }
    }
    if (out.getParent() != null) {
      fs.mkdirs(out.getParent());
    }
    if (!fs.rename(tmp, out)) {
      throw new IOException("could not rename " + tmp + " to " + out);
    }
  }

  /**
   * Fails with a {@link UsageException} if any of {@code children} of {@code out} exists and {@code overwrite} is
   * false: for steps that add their products to a directory shared with other steps (the pipeline directory).
   */
  public static void checkWritable(FileSystem fs, Path out, boolean overwrite, String... children)
      throws IOException {
    for (String child : children) {
      checkWritable(fs, new Path(out, child), overwrite);
    }
  }

  /**
   * Moves every entry of the finished {@code tmp} into {@code out} (created if missing), each by one rename, and
   * removes {@code tmp}. Unlike {@link #commit}, entries of {@code out} that the step did not write (such as the
   * blocks in a pipeline directory) are left alone; an entry the step did write replaces an old one only if
   * {@code overwrite}.
   */
  public static void commitInto(FileSystem fs, Path tmp, Path out, boolean overwrite) throws IOException {
    fs.mkdirs(out);
    for (org.apache.hadoop.fs.FileStatus st : fs.listStatus(tmp)) {
      Path target = new Path(out, st.getPath().getName());
      if (fs.exists(target)) {
        if (!overwrite) {
          throw new UsageException("output " + target + " appeared while the step ran; refusing to replace it");
        }
        if (!fs.delete(target, true)) {
          throw new IOException("could not delete old output " + target);
        }
      }
      if (!fs.rename(st.getPath(), target)) {
        throw new IOException("could not rename " + st.getPath() + " to " + target);
      }
    }
    fs.delete(tmp, true);
  }

  /** Removes a temporary path left by a failed run; never throws. */
  public static void discard(FileSystem fs, Path tmp) {
    try {
      fs.delete(tmp, true);
    } catch (IOException ignored) {
      // best effort: a leftover hidden temp dir is harmless and named after a random UUID
    }
  }

  /** True if {@code dir} is a complete output of an earlier successful run. */
  public static boolean isComplete(FileSystem fs, Path dir) throws IOException {
    return fs.exists(new Path(dir, SUCCESS));
  }
}
