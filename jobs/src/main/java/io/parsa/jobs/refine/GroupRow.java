package io.parsa.jobs.refine;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.io.WritableUtils;

/**
 * One row on its way to the reducer of its part's group ({@link GroupMapper} → {@link GroupReducer}): its block, its
 * id, its part and its distinct keys, ascending and written as gaps.
 */
public final class GroupRow implements Writable {

  private int block;
  private long id;
  private int part;
  private final SortedKeys keys = new SortedKeys();

  /** Sets the row, its keys copied from {@code distinct} (distinct and ascending). */
  public GroupRow set(int block, long id, int part, io.parsa.jobs.mr.DistinctKeys distinct) {
    this.block = block;
    this.id = id;
    this.part = part;
    keys.set(distinct);
    return this;
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
    keys.write(out);
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    block = WritableUtils.readVInt(in);
    id = in.readLong();
    part = WritableUtils.readVInt(in);
    keys.readFields(in);
  }

  @Override
  public String toString() {
    return id + "@" + block + " part " + part + " (" + keys.size() + " keys)";
  }
}
