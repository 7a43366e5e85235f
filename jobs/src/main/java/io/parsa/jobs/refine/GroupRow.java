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
  private long[] keys = new long[16];
  private int size;

  /** Sets the row, its keys copied from {@code distinct} (distinct and ascending). */
  public GroupRow set(int block, long id, int part, io.parsa.jobs.mr.DistinctKeys distinct) {
    this.block = block;
    this.id = id;
    this.part = part;
    size = distinct.size();
    grow(size);
    for (int i = 0; i < size; i++) {
      keys[i] = distinct.get(i);
    }
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
    WritableUtils.writeVInt(out, block);
    out.writeLong(id);
    WritableUtils.writeVInt(out, part);
    KeyGaps.write(out, keys, size);
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    block = WritableUtils.readVInt(in);
    id = in.readLong();
    part = WritableUtils.readVInt(in);
    size = KeyGaps.readCount(in);
    grow(size);
    KeyGaps.readKeys(in, keys, size);
  }

  @Override
  public String toString() {
    return id + "@" + block + " part " + part + " (" + size + " keys)";
  }
}
