package io.parsa.yarn.io;

import com.fasterxml.jackson.databind.JsonNode;
import io.parsa.common.JsonFiles;
import java.io.IOException;
import java.io.InputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * What ingest's {@code _stats.json} beside the blocks says about them (rows, non-zeros and distinct keys in total
 * and rows and non-zeros per block), read as a small JSON tree so this module does not depend on the jobs module.
 * partition-u takes the rows per block from it instead of opening the blocks, and sizes its containers from it.
 */
public final class BlockStats {
  /** Name of ingest's summary in the blocks directory. */
  public static final String FILE = "_stats.json";

  public final long rows;
  public final long nonZeros;
  public final long distinctKeys;
  /** Largest row degree (non-zeros of one row). */
  public final long maxRowDegree;
  public final long[] rowsPerBlock;
  public final long[] nonZerosPerBlock;
  /** Σ of the row weights per block, or null where ingest wrote none (no row had a weight). */
  public final double[] weightPerBlock;

  private BlockStats(long rows, long nonZeros, long distinctKeys, long maxRowDegree, long[] rowsPerBlock,
      long[] nonZerosPerBlock, double[] weightPerBlock) {
    this.rows = rows;
    this.nonZeros = nonZeros;
    this.distinctKeys = distinctKeys;
    this.maxRowDegree = maxRowDegree;
    this.rowsPerBlock = rowsPerBlock;
    this.nonZerosPerBlock = nonZerosPerBlock;
    this.weightPerBlock = weightPerBlock;
  }

  /** Outcome of {@link #read}: the statistics, or why there are none. */
  public static final class Found {
    public final BlockStats stats;
    public final String reason;

    Found(BlockStats stats, String reason) {
      this.stats = stats;
      this.reason = reason;
    }
  }

  /**
   * Reads {@code <blocksDir>/_stats.json} and checks it against the {@code numBlocks} block files found there.
   * Never throws for a missing or foreign file: the caller falls back and reports {@link Found#reason}.
   */
  public static Found read(FileSystem fs, Path blocksDir, int numBlocks) throws IOException {
    Path p = new Path(blocksDir, FILE);
    if (!fs.exists(p)) {
      return new Found(null, p + " does not exist (blocks not written by ingest)");
    }
    JsonNode n;
    try (InputStream in = fs.open(p)) {
      n = JsonFiles.MAPPER.readTree(in);
    } catch (IOException e) {
      return new Found(null, p + " is not readable JSON: " + e.getMessage());
    }
    JsonNode rpb = n.path("rowsPerBlock");
    JsonNode npb = n.path("nonZerosPerBlock");
    if (!rpb.isArray() || rpb.size() != numBlocks) {
      return new Found(null, p + " lists rows for " + (rpb.isArray() ? rpb.size() : 0) + " blocks, the directory "
          + "holds " + numBlocks + " block files");
    }
    long[] rows = new long[numBlocks];
    long[] nnz = new long[numBlocks];
    long sumRows = 0;
    long sumNnz = 0;
    for (int b = 0; b < numBlocks; b++) {
      rows[b] = rpb.get(b).asLong(-1);
      nnz[b] = npb.isArray() && npb.size() == numBlocks ? npb.get(b).asLong(-1) : -1;
      if (rows[b] < 0) {
        return new Found(null, p + ": rowsPerBlock[" + b + "] is not a count");
      }
      sumRows += rows[b];
      sumNnz += Math.max(0, nnz[b]);
    }
    long total = n.path("rows").asLong(sumRows);
    if (total != sumRows) {
      return new Found(null, p + ": rows " + total + " != the sum of rowsPerBlock " + sumRows);
    }
    JsonNode wpb = n.path("weightPerBlock");
    double[] weights = null;
    if (wpb.isArray() && wpb.size() == numBlocks) {
      weights = new double[numBlocks];
      for (int b = 0; b < numBlocks && weights != null; b++) {
        weights[b] = wpb.get(b).isNumber() ? wpb.get(b).asDouble() : -1;
        if (!(weights[b] >= 0) || Double.isInfinite(weights[b])) {
          weights = null; // not a weight: the blocks start from the loads at their reservation, as without
        }
      }
    }
    return new Found(new BlockStats(sumRows, n.path("nonZeros").asLong(sumNnz), n.path("distinctKeys").asLong(-1),
        n.path("rowDegree").path("max").asLong(-1), rows, nnz, weights), null);
  }

  /** Most non-zeros of one block (-1 if unknown). */
  public long maxBlockNonZeros() {
    long m = -1;
    for (long v : nonZerosPerBlock) {
      m = Math.max(m, v);
    }
    return m;
  }

  /** Most rows of one block. */
  public long maxBlockRows() {
    long m = 0;
    for (long v : rowsPerBlock) {
      m = Math.max(m, v);
    }
    return m;
  }
}
