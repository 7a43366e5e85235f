package io.parsa.yarn.io;

import com.fasterxml.jackson.databind.JsonNode;
import io.parsa.common.JsonFiles;
import io.parsa.common.UsageException;
import java.io.IOException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Guards against empty parts: a training job given k shards breaks on an empty one, so a step that places rows
 * on k parts refuses, before any work, a k larger than the number of rows, and says loudly when a placement (a
 * random one) left a part empty anyway.
 */
public final class PartCounts {

  private PartCounts() {}

  /** Rows of a blocks directory: from ingest's {@code _stats.json} when there is one, else counted. */
  public static long rows(FileSystem fs, Path blocksDir) throws IOException {
    Path stats = new Path(blocksDir, "_stats.json");
    if (fs.exists(stats)) {
      JsonNode rows = JsonFiles.MAPPER.readTree(fs.open(stats)).get("rows");
      if (rows != null && rows.canConvertToLong()) {
        return rows.asLong();
      }
    }
    long n = 0;
    for (Path p : BlockFiles.list(fs, blocksDir)) {
      n += BlockFiles.countRows(fs, p);
    }
    return n;
  }

  /** Fails with a usage error if {@code k} parts of the rows of {@code blocksDir} would leave a part empty. */
  public static void requireRowsForEveryPart(FileSystem fs, Path blocksDir, int k) throws IOException {
    long rows = rows(fs, blocksDir);
    if (k > rows) {
      throw new UsageException("--k " + k + " is more than the " + rows + " rows of " + blocksDir + ": "
          + (k - rows) + " of the " + k + " parts would be empty, and a training job breaks on an empty shard;"
          + " use --k " + Math.max(1, rows) + " or less");
    }
  }

  /** A warning naming the empty parts of a placement with these part sizes, or null if none is empty. */
  public static String emptyPartsWarning(long[] rowsPerPart) {
    StringBuilder empty = new StringBuilder();
    int n = 0;
    for (int i = 0; i < rowsPerPart.length; i++) {
      if (rowsPerPart[i] == 0) {
        if (n++ < 10) {
          empty.append(n > 1 ? ", " : "").append(i);
        }
      }
    }
    if (n == 0) {
      return null;
    }
    return n + " of the " + rowsPerPart.length + " parts are EMPTY (part " + empty + (n > 10 ? ", ..." : "")
        + "): their shards will hold no rows, which breaks most training jobs; use a smaller k or a balanced"
        + " placement (parsa)";
  }
}
