package io.parsa.jobs.ingest;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.apache.hadoop.io.WritableComparable;
import org.apache.hadoop.io.WritableComparator;

/**
 * Map output key of ingest: the row id, and a sequence number that orders the pieces of one row as in the
 * input ((file ordinal << 40) | 0-based line of the line the piece came from). Sorted by (id, seq), grouped by
 * id, partitioned by the id's block, so that a reducer sees each row's pieces together and in input order.
 *
 * <pre>
 * serialised: | id ^ 2^63: 8 bytes big-endian | seq ^ 2^63: 8 bytes big-endian |
 * </pre>
 * Flipping the sign bit makes unsigned byte order equal signed numeric order, so the raw comparators are plain
 * (word-at-a-time) byte comparisons; the map-side sort spends most of its time in them.
 */
public final class RowKey implements WritableComparable<RowKey> {

  /** Serialised size in bytes. */
  static final int SIZE = 16;

  private long id;
  private long seq;

  public RowKey() {}

  public RowKey(long id, long seq) {
    this.id = id;
    this.seq = seq;
  }

  public RowKey set(long id, long seq) {
    this.id = id;
    this.seq = seq;
    return this;
  }

  public long id() {
    return id;
  }

  public long seq() {
    return seq;
  }

  @Override
  public void write(DataOutput out) throws IOException {
    out.writeLong(id ^ Long.MIN_VALUE);
    out.writeLong(seq ^ Long.MIN_VALUE);
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    id = in.readLong() ^ Long.MIN_VALUE;
    seq = in.readLong() ^ Long.MIN_VALUE;
  }

  @Override
  public int compareTo(RowKey o) {
    int c = Long.compare(id, o.id);
    return c != 0 ? c : Long.compare(seq, o.seq);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RowKey k && k.id == id && k.seq == seq;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(id) * 31 + Long.hashCode(seq);
  }

  @Override
  public String toString() {
    return id + "@" + seq;
  }

  /** Sorts serialised keys by (id, seq) without deserialising them. */
  public static final class SortComparator extends WritableComparator {
    public SortComparator() {
      super(RowKey.class);
    }

    @Override
    public int compare(byte[] b1, int s1, int l1, byte[] b2, int s2, int l2) {
      return compareBytes(b1, s1, SIZE, b2, s2, SIZE);
    }
  }

  /** Groups serialised keys by id only. */
  public static final class GroupComparator extends WritableComparator {
    public GroupComparator() {
      super(RowKey.class);
    }

    @Override
    public int compare(byte[] b1, int s1, int l1, byte[] b2, int s2, int l2) {
      return compareBytes(b1, s1, 8, b2, s2, 8);
    }

    @Override
    @SuppressWarnings("rawtypes")
    public int compare(WritableComparable a, WritableComparable b) {
      return Long.compare(((RowKey) a).id, ((RowKey) b).id);
    }
  }

  static {
    WritableComparator.define(RowKey.class, new SortComparator());
  }
}
