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
  private final SortedKeys keys = new SortedKeys();

  /** Sets the cluster, its keys copied from {@code sorted[0..n)} (distinct and ascending). */
  public ClusterRow set(long cluster, int weight, long[] sorted, int n) {
    this.cluster = cluster;
    this.weight = weight;
    keys.set(sorted, n);
    return this;
  }

  public long cluster() {
    return cluster;
  }

  public int weight() {
    return weight;
  }

  public int size() {
    return keys.size();
  }

  public long key(int i) {
    return keys.get(i);
  }

  @Override
  public void write(DataOutput out) throws IOException {
    out.writeLong(cluster);
    WritableUtils.writeVInt(out, weight);
    keys.write(out);
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    cluster = in.readLong();
    weight = WritableUtils.readVInt(in);
    keys.readFields(in);
  }

  @Override
  public String toString() {
    return "cluster " + (cluster >>> 32) + "/" + (int) cluster + " (" + weight + " rows, " + keys.size() + " keys)";
  }
}
