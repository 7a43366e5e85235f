package io.parsa.jobs.refine;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.io.WritableUtils;

/**
 * One cluster of rows on its way from the clustering of its group ({@link CoarsenReducer}) to the reducer that
 * places all clusters ({@link PlaceReducer}): its id (group · 2^32 + number in the group), its weight (rows) and the
 * distinct keys of its rows, ascending and written as gaps.
 */
public final class ClusterRow implements Writable {

  private long cluster;
  private int weight;
  private long[] keys = new long[16];
  private int size;

  /** Sets the cluster, its keys copied from {@code sorted[0..n)} (distinct and ascending). */
  public ClusterRow set(long cluster, int weight, long[] sorted, int n) {
    this.cluster = cluster;
    this.weight = weight;
    size = n;
    grow(n);
    System.arraycopy(sorted, 0, keys, 0, n);
    return this;
  }

  public long cluster() {
    return cluster;
  }

  public int weight() {
    return weight;
  }

  public int size() {
    return size;
  }

  public long key(int i) {
    return keys[i];
  }

  private void grow(int n) {
    if (keys.length < n) {
      keys = new long[Math.max(n, 2 * keys.length)];
    }
  }

  @Override
  public void write(DataOutput out) throws IOException {
    out.writeLong(cluster);
    WritableUtils.writeVInt(out, weight);
    KeyGaps.write(out, keys, size);
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    cluster = in.readLong();
    weight = WritableUtils.readVInt(in);
    size = KeyGaps.readCount(in);
    grow(size);
    KeyGaps.readKeys(in, keys, size);
  }

  @Override
  public String toString() {
    return "cluster " + (cluster >>> 32) + "/" + (int) cluster + " (" + weight + " rows, " + size + " keys)";
  }
}
