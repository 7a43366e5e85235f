package io.parsa.yarn.am;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.parsa.common.JsonFiles;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * The stage-1 blocks the master has seen finish, with their summed per-part loads and rows: one int per block plus
 * O(k) numbers (weighted rows in waves: O(k) per done block of the open wave too, so that a later attempt starts the
 * rest of that wave from the same loads), written by the master (temporary file + rename) in the checkpoint
 * directory while it runs. A later application attempt keeps the blocks that are both in the ledger and in the
 * u-assignment directory listing (names only); a block reported done was pushed (the worker reports after its pushes
 * are acknowledged) and committed (its file was renamed into place first), so neither its rows nor its neighbor-set
 * contribution need to be looked at again. A block whose file exists but is not in the ledger runs again and
 * replaces its file.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public final class DoneLedger {
  /** Finished stage-1 block indices, ascending. */
  public List<Integer> blocks = new ArrayList<>();
  public long rows;
  public long edges;
  public double[] partLoads = new double[0];
  public long[] partRows = new long[0];
  /**
   * Weighted rows in waves ({@link BlockScheduler#fixBlockWeights}): the loads of the waves whose blocks were all done,
   * summed in block order, and how many such waves; null and −1 otherwise (and in ledgers of older versions).
   */
  public double[] closedLoads;
  public int closedWaves = -1;
  /** With {@link #closedLoads}: the loads of each done block of a wave not yet closed, by block (at most a wave's). */
  public java.util.SortedMap<Integer, double[]> openLoads;

  static Path path(String checkpointDir) {
    return new Path(checkpointDir, "_done.json");
  }

  /** Writes the ledger atomically. */
  void write(FileSystem fs, String checkpointDir) throws IOException {
    Path dst = path(checkpointDir);
    Path tmp = new Path(dst.getParent(), "." + dst.getName() + ".tmp");
    JsonFiles.write(fs, tmp, this);
    fs.delete(dst, false);
    if (!fs.rename(tmp, dst)) {
      throw new IOException("could not rename " + tmp + " to " + dst);
    }
  }

  /** The ledger of an earlier attempt, or null if none was written. */
  static DoneLedger read(FileSystem fs, String checkpointDir) throws IOException {
    Path p = path(checkpointDir);
    if (!fs.exists(p)) {
      return null;
    }
    return JsonFiles.read(fs, p, DoneLedger.class);
  }
}
