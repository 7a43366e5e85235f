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
