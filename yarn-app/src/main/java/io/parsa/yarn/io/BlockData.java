package io.parsa.yarn.io;

/** The rows of one block in CSR form, as read from its Avro GraphRow file (keys as written, duplicates kept). */
public final class BlockData {
  public final String path;
  public final long[] rowIds;
  public final int[] rowStart;
  public final long[] rowKeys;
  /** Per-row weights, or null when no row carries one (unit weights). */
  public final double[] weights;

  public BlockData(String path, long[] rowIds, int[] rowStart, long[] rowKeys, double[] weights) {
    this.path = path;
    this.rowIds = rowIds;
    this.rowStart = rowStart;
    this.rowKeys = rowKeys;
    this.weights = weights;
  }

  public int numRows() {
    return rowIds.length;
  }

  /** Total load: the row count, or the sum of weights. */
  public double totalWeight() {
    if (weights == null) {
      return rowIds.length;
    }
    double s = 0;
    for (double w : weights) {
      s += w;
    }
    return s;
  }
}
