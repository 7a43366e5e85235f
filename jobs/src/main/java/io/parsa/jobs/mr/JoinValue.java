package io.parsa.jobs.mr;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.io.WritableUtils;

/**
 * The one shuffle value of the suite's joins: a tagged record that is either a row (its keys, optionally its raw
 * bytes and weight), an assignment of something to a part, or a pair of parts.
 *
 * <pre>
 * wire layout, by tag (only the fields the tag uses; a PAIR, the most frequent record of the shuffles, is 3 bytes):
 *   ROW:         tag:byte | id:vlong | nLongs:vint | longs:vlong* | flags:byte [ len:vint bytes* ] [ weight:double ]
 *                (flags bit 0: raw present, bit 1: weight present)
 *   PART, PAIR:  tag:byte | a:vint | b:vint
 *   PARTS:       tag:byte | nLongs:vint | longs:vlong*
 *   USAGE:       tag:byte | a:vint | nLongs:vint | longs:vlong*
 * </pre>
 */
public final class JoinValue implements Writable {

  /** A graph row: {@link #longs()} holds its keys (one per non-zero), {@link #raw()} its bytes if carried. */
  public static final byte ROW = 1;
  /** An assignment: {@link #a()} is the part. */
  public static final byte PART = 2;
  /** A pair of parts: {@link #a()} placed part, {@link #b()} random part. */
  public static final byte PAIR = 3;
  /** A set of parts: {@link #longs()} holds distinct part indices in increasing order. */
  public static final byte PARTS = 4;
  /**
   * The usage of one key under two row placements (one record per key of the key-usage dataset): {@link #longs()}
   * holds the distinct parts whose rows use the key under the placed U, increasing, then those under the random U,
   * increasing; {@link #a()} is the number of placed parts.
   */
  public static final byte USAGE = 5;

  private byte tag;
  private long id;
  private int a;
  private int b;
  private long[] longs = new long[0];
  private int nLongs;
  private byte[] raw;
  private double weight = Double.NaN;

  public JoinValue() {}

  public static JoinValue part(int part) {
    return new JoinValue().setPart(part);
  }

  public static JoinValue pair(int placed, int random) {
    return new JoinValue().setPair(placed, random);
  }

  public JoinValue setPart(int part) {
    return setPart(part, 0);
  }

  /** A part from one of several sources ({@link #b()}), e.g. two v-assignments joined in one job. */
  public JoinValue setPart(int part, int source) {
    clear(PART);
    this.a = part;
    this.b = source;
    return this;
  }

  public JoinValue setPair(int placed, int random) {
    clear(PAIR);
    this.a = placed;
    this.b = random;
    return this;
  }

  /** Sets a row; {@code raw} may be null (not carried), {@code weight} NaN for none. */
  public JoinValue setRow(long id, long[] keys, int n, byte[] raw, double weight) {
    clear(ROW);
    this.id = id;
    setLongs(keys, n);
    this.raw = raw;
    this.weight = weight;
    return this;
  }

  public JoinValue setParts(long[] parts, int n) {
    clear(PARTS);
    setLongs(parts, n);
    return this;
  }

  /** Sets a USAGE value: {@code placed[0..np)} then {@code random[0..nr)}, each increasing and distinct. */
  public JoinValue setUsage(long[] placed, int np, long[] random, int nr) {
    clear(USAGE);
    if (longs.length < np + nr) {
      longs = new long[np + nr];
    }
    System.arraycopy(placed, 0, longs, 0, np);
    System.arraycopy(random, 0, longs, np, nr);
    nLongs = np + nr;
    a = np;
    return this;
  }

  /** Of a USAGE value: the offset in {@link #longsArray()} and the count of the placed (or random) parts. */
  public int usageOffset(boolean randomParts) {
    return randomParts ? a : 0;
  }

  public int usageCount(boolean randomParts) {
    return randomParts ? nLongs - a : a;
  }

  private void clear(byte t) {
    tag = t;
    id = 0;
    a = 0;
    b = 0;
    nLongs = 0;
    raw = null;
    weight = Double.NaN;
  }

  private void setLongs(long[] src, int n) {
    if (longs.length < n) {
      longs = new long[n];
    }
    System.arraycopy(src, 0, longs, 0, n);
    nLongs = n;
  }

  public byte tag() {
    return tag;
  }

  /** Row id of a ROW value. */
  public long id() {
    return id;
  }

  public int a() {
    return a;
  }

  public int b() {
    return b;
  }

  /** Number of valid entries in {@link #longsArray()}. */
  public int numLongs() {
    return nLongs;
  }

  /** Backing array (only the first {@link #numLongs()} entries are valid). */
  public long[] longsArray() {
    return longs;
  }

  /** A copy of the valid longs. */
  public long[] longs() {
    return Arrays.copyOf(longs, nLongs);
  }

  public byte[] raw() {
    return raw;
  }

  public double weight() {
    return weight;
  }

  @Override
  public void write(DataOutput out) throws IOException {
    out.writeByte(tag);
    switch (tag) {
      case ROW -> {
        WritableUtils.writeVLong(out, id);
        writeLongs(out);
        boolean hasWeight = !Double.isNaN(weight);
        out.writeByte((raw != null ? 1 : 0) | (hasWeight ? 2 : 0));
        if (raw != null) {
          WritableUtils.writeVInt(out, raw.length);
          out.write(raw);
        }
        if (hasWeight) {
          out.writeDouble(weight);
        }
      }
      case PART, PAIR -> {
        WritableUtils.writeVInt(out, a);
        WritableUtils.writeVInt(out, b);
      }
      case PARTS -> writeLongs(out);
      case USAGE -> {
        WritableUtils.writeVInt(out, a);
        writeLongs(out);
      }
      default -> throw new IOException("JoinValue with unknown tag " + tag);
    }
  }

  private void writeLongs(DataOutput out) throws IOException {
    WritableUtils.writeVInt(out, nLongs);
    for (int i = 0; i < nLongs; i++) {
      WritableUtils.writeVLong(out, longs[i]);
    }
  }

  private void readLongs(DataInput in) throws IOException {
    int n = WritableUtils.readVInt(in);
    if (longs.length < n) {
      longs = new long[n];
    }
    for (int i = 0; i < n; i++) {
      longs[i] = WritableUtils.readVLong(in);
    }
    nLongs = n;
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    clear(in.readByte());
    switch (tag) {
      case ROW -> {
        id = WritableUtils.readVLong(in);
        readLongs(in);
        int flags = in.readByte();
        if ((flags & 1) != 0) {
          raw = new byte[WritableUtils.readVInt(in)];
          in.readFully(raw);
        }
        if ((flags & 2) != 0) {
          weight = in.readDouble();
        }
      }
      case PART, PAIR -> {
        a = WritableUtils.readVInt(in);
        b = WritableUtils.readVInt(in);
      }
      case PARTS -> readLongs(in);
      case USAGE -> {
        a = WritableUtils.readVInt(in);
        readLongs(in);
      }
      default -> throw new IOException("JoinValue with unknown tag " + tag);
    }
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof JoinValue)) {
      return false;
    }
    JoinValue v = (JoinValue) o;
    return tag == v.tag && id == v.id && a == v.a && b == v.b
        && Arrays.equals(longs, 0, nLongs, v.longs, 0, v.nLongs)
        && Arrays.equals(raw, v.raw)
        && Double.compare(weight, v.weight) == 0;
  }

  @Override
  public int hashCode() {
    int h = (tag * 31 + Long.hashCode(id)) * 31 + a;
    h = h * 31 + b;
    for (int i = 0; i < nLongs; i++) {
      h = h * 31 + Long.hashCode(longs[i]);
    }
    return h * 31 + Arrays.hashCode(raw);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("JoinValue{tag=").append(tag).append(", id=").append(id).append(", a=").append(a).append(", b=").append(b);
    if (nLongs > 0) {
      sb.append(", longs=").append(Arrays.toString(longs()));
    }
    if (raw != null) {
      sb.append(", raw=").append(raw.length).append("B");
    }
    if (!Double.isNaN(weight)) {
      sb.append(", weight=").append(weight);
    }
    return sb.append('}').toString();
  }
}
