package io.parsa.jobs.reshuffle;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.apache.hadoop.io.WritableComparable;

/** Shuffle key of the shard writer: (part, row id), sorted by part then id, so each shard lists rows by id. */
public final class PartRowKey implements WritableComparable<PartRowKey> {

  private int part;
  private long id;

  public PartRowKey() {}

  public PartRowKey(int part, long id) {
    set(part, id);
  }

  public PartRowKey set(int part, long id) {
    this.part = part;
    this.id = id;
    return this;
  }

  public int part() {
    return part;
  }

  public long id() {
    return id;
  }

  @Override
  public void write(DataOutput out) throws IOException {
    out.writeInt(part);
    out.writeLong(id);
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    part = in.readInt();
    id = in.readLong();
  }

  @Override
  public int compareTo(PartRowKey o) {
    int c = Integer.compare(part, o.part);
    return c != 0 ? c : Long.compare(id, o.id);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PartRowKey && ((PartRowKey) o).part == part && ((PartRowKey) o).id == id;
  }

  @Override
  public int hashCode() {
    return part * 31 + Long.hashCode(id);
  }

  @Override
  public String toString() {
    return part + "/" + id;
  }
}
