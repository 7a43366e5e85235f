package io.parsa.jobs.refine;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.io.WritableUtils;

/**
 * One row on its way to the reducer of its part's group ({@link GroupMapper} → {@link GroupReducer}): its block, its
 * id, its part, its weight and its distinct keys, ascending and written as gaps.
 */
public final class GroupRow implements Writable {

  private int block;
  private long id;
  private int part;
  /** The row's weight (1 for rows without one); written in one byte where it is 1. */
  private double weight = 1;
  private final SortedKeys keys = new SortedKeys();

  /** Sets the row, its keys copied from {@code distinct} (distinct and ascending). */
  public GroupRow set(int block, long id, int part, io.parsa.jobs.mr.DistinctKeys distinct) {
    this.block = block;
    this.id = id;
    this.part = part;
    this.weight = 1;
    keys.set(distinct);
    return this;
  }

  /** The row's weight (weighted rows; {@link #set} makes it 1). */
  public GroupRow weight(double weight) {
    this.weight = weight;
    return this;
  }

  public double weight() {
    return weight;
  }

  public int block() {
    return block;
  }

  public long id() {
    return id;
  }

  public int part() {
    return part;
  }

  public int size() {
    return keys.size();
  }

  public long key(int i) {
    return keys.get(i);
  }

  @Override
  public void write(DataOutput out) throws IOException {
    WritableUtils.writeVInt(out, block);
    out.writeLong(id);
    WritableUtils.writeVInt(out, part);
    Move.writeWeight(out, weight);
    keys.write(out);
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    block = WritableUtils.readVInt(in);
    id = in.readLong();
    part = WritableUtils.readVInt(in);
    weight = Move.readWeight(in);
    keys.readFields(in);
  }

  @Override
  public String toString() {
    return id + "@" + block + " part " + part + " (" + keys.size() + " keys)";
  }
}
