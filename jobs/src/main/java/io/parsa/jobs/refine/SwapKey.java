package io.parsa.jobs.refine;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.apache.hadoop.io.WritableComparable;
import org.apache.hadoop.io.WritableComparator;
import org.apache.hadoop.mapreduce.Partitioner;

/**
 * Shuffle key of the pairing job: the part pair {lo, hi} (lo &lt; hi), the direction (0: lo → hi, 1: hi → lo), the
 * row's gain and its id. Serialised as 25 fixed bytes whose unsigned byte order is the sort order — pair, then
 * direction, then gain <em>descending</em>, then row id — so the shuffle sorts without decoding ({@link Comparator})
 * and a reducer meets, per pair ({@link PairGrouping}, {@link PairPartitioner}), first the rows that want lo → hi
 * best first, then those that want hi → lo best first.
 */
public final class SwapKey implements WritableComparable<SwapKey> {

  /** Serialised length in bytes. */
  public static final int BYTES = 4 + 4 + 1 + 8 + 8;
  /** Bytes that identify the pair (grouping). */
  private static final int PAIR_BYTES = 8;

  private int lo;
  private int hi;
  private int dir;
  private double gain;
  private long row;

  /** The key of row {@code row} that wants to move from part {@code from} to part {@code to} with gain {@code gain}. */
  public SwapKey set(int from, int to, double gain, long row) {
    if (from == to || from < 0 || to < 0) {
      throw new IllegalArgumentException("a move needs two different parts, got " + from + " -> " + to);
    }
    this.lo = Math.min(from, to);
    this.hi = Math.max(from, to);
    this.dir = from < to ? 0 : 1;
    this.gain = gain;
    this.row = row;
    return this;
  }

  public int lo() {
    return lo;
  }

  public int hi() {
    return hi;
  }

  /** 0: lo → hi; 1: hi → lo. */
  public int direction() {
    return dir;
  }

  public double gain() {
    return gain;
  }

  public long row() {
    return row;
  }

  /** Order-preserving map of a double onto unsigned 64-bit order (−0.0 before +0.0, NaN last). */
  static long sortable(double d) {
    long bits = Double.doubleToLongBits(d);
    return bits ^ ((bits >> 63) | Long.MIN_VALUE);
  }

  @Override
  public void write(DataOutput out) throws IOException {
    out.writeInt(lo);
    out.writeInt(hi);
    out.writeByte(dir);
    out.writeLong(~sortable(gain)); // descending
    out.writeLong(row ^ Long.MIN_VALUE); // signed ids in unsigned byte order
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    lo = in.readInt();
    hi = in.readInt();
    dir = in.readByte();
    long s = ~in.readLong();
    long bits = s < 0 ? s ^ Long.MIN_VALUE : ~s;
    gain = Double.longBitsToDouble(bits);
    row = in.readLong() ^ Long.MIN_VALUE;
  }

  @Override
  public int compareTo(SwapKey o) {
    int c = Integer.compare(lo, o.lo);
    if (c == 0) {
      c = Integer.compare(hi, o.hi);
    }
    if (c == 0) {
      c = Integer.compare(dir, o.dir);
    }
    if (c == 0) {
      c = Long.compareUnsigned(~sortable(gain), ~sortable(o.gain));
    }
    return c != 0 ? c : Long.compare(row, o.row);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SwapKey s && compareTo(s) == 0;
  }

  @Override
  public int hashCode() {
    return 31 * (31 * lo + hi) + Long.hashCode(row);
  }

  @Override
  public String toString() {
    return (dir == 0 ? lo + "->" + hi : hi + "->" + lo) + " gain " + gain + " row " + row;
  }

  /** Sorts serialised keys by their bytes (parts are non-negative, so their big-endian bytes sort as numbers). */
  public static final class Comparator extends WritableComparator {
    public Comparator() {
      super(SwapKey.class);
    }

    @Override
    public int compare(byte[] b1, int s1, int l1, byte[] b2, int s2, int l2) {
      return compareBytes(b1, s1, BYTES, b2, s2, BYTES);
    }
  }

  /** Groups the keys of one part pair into one reduce call. */
  public static final class PairGrouping extends WritableComparator {
    public PairGrouping() {
      super(SwapKey.class, true);
    }

    @Override
    public int compare(byte[] b1, int s1, int l1, byte[] b2, int s2, int l2) {
      return compareBytes(b1, s1, PAIR_BYTES, b2, s2, PAIR_BYTES);
    }

    @Override
    @SuppressWarnings("rawtypes")
    public int compare(WritableComparable a, WritableComparable b) {
      SwapKey x = (SwapKey) a;
      SwapKey y = (SwapKey) b;
      int c = Integer.compare(x.lo, y.lo);
      return c != 0 ? c : Integer.compare(x.hi, y.hi);
    }
  }

  /** Sends every key of a part pair to the same reducer. */
  public static final class PairPartitioner<V> extends Partitioner<SwapKey, V> {
    @Override
    public int getPartition(SwapKey key, V value, int numPartitions) {
      return Math.floorMod(31 * key.lo + key.hi, numPartitions);
    }
  }

  static {
    WritableComparator.define(SwapKey.class, new Comparator());
  }
}
