package io.parsa.jobs.refine;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.io.WritableUtils;

/**
 * One cluster of rows on its way from the clustering of its group ({@link CoarsenReducer}) to the reducer that
 * places all clusters ({@link PlaceReducer}): its id (group · 2^32 + number in the group), its weight (rows), the
 * distinct keys of its rows, ascending and written as gaps, and how many more keys its rows hold that no other
 * cluster holds ({@code unlisted}: left out by {@link SharedKeys}, since no placement can cut them; where only a sample
 * of the shared keys is listed, a count in units of the sample that also covers those left out). Where the listed
 * "keys" are holder sets ({@link SharedKeys}: each stands for all shared keys with the same holders), each carries its
 * weight ({@link #keyWeight}; without weights every key weighs 1).
 */
public final class ClusterRow implements Writable {

  private long cluster;
  private int weight;
  private int unlisted;
  private final SortedKeys keys = new SortedKeys();
  /** The listed keys' weights, or none ({@code weighted} false: every key weighs 1). */
  private int[] keyWeights = new int[0];
  private boolean weighted;

  /** Sets the cluster, its keys copied from {@code sorted[0..n)} (distinct and ascending), none unlisted. */
  public ClusterRow set(long cluster, int weight, long[] sorted, int n) {
    return set(cluster, weight, sorted, n, 0);
  }

  /** Sets the cluster, its listed keys copied from {@code sorted[0..n)}, and {@code unlisted} keys of its own. */
  public ClusterRow set(long cluster, int weight, long[] sorted, int n, int unlisted) {
    this.cluster = cluster;
    this.weight = weight;
    this.unlisted = unlisted;
    keys.set(sorted, n);
    weighted = false;
    return this;
  }

  /** As above, the listed key {@code sorted[i]} weighing {@code weights[i]}. */
  public ClusterRow set(long cluster, int weight, long[] sorted, int n, int unlisted, int[] weights) {
    set(cluster, weight, sorted, n, unlisted);
    if (keyWeights.length < n) {
      keyWeights = new int[Math.max(n, 2 * keyWeights.length)];
    }
    System.arraycopy(weights, 0, keyWeights, 0, n);
    weighted = true;
    return this;
  }

  /** The weight of listed key i (1 unless the keys are weighted). */
  public int keyWeight(int i) {
    return weighted ? keyWeights[i] : 1;
  }

  /** Whether the listed keys carry weights of their own. */
  public boolean weighted() {
    return weighted;
  }

  /** Keys of the cluster's rows that no other cluster holds and that are not listed. */
  public int unlisted() {
    return unlisted;
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
    WritableUtils.writeVInt(out, unlisted);
    keys.write(out);
    out.writeBoolean(weighted);
    if (weighted) {
      for (int i = 0; i < keys.size(); i++) {
        WritableUtils.writeVInt(out, keyWeights[i]);
      }
    }
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    cluster = in.readLong();
    weight = WritableUtils.readVInt(in);
    unlisted = WritableUtils.readVInt(in);
    keys.readFields(in);
    weighted = in.readBoolean();
    if (weighted) {
      int n = keys.size();
      if (keyWeights.length < n) {
        keyWeights = new int[Math.max(n, 2 * keyWeights.length)];
      }
      for (int i = 0; i < n; i++) {
        keyWeights[i] = WritableUtils.readVInt(in);
      }
    }
  }

  @Override
  public String toString() {
    return "cluster " + (cluster >>> 32) + "/" + (int) cluster + " (" + weight + " rows, " + keys.size()
        + " keys listed, " + unlisted + " unlisted)";
  }
}
