package io.parsa.jobs.ingest;

import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.io.WritableUtils;

/**
 * Map output value of ingest: a piece of a row — some of its keys, possibly its raw input bytes, possibly its
 * weight. A libsvm line or an Avro record is one whole row; an edge-list line gives its source vertex a piece
 * with one key and the line, and (uedges) its target a piece with one key and no raw bytes.
 *
 * <pre>
 * serialised: | flags: 1 byte (1 = has weight) | n: vint | n keys: vlong each | rawLen: vint | raw bytes |
 *             | weight: 8 bytes, if flagged |
 * </pre>
 */
public final class RowPiece implements Writable {

  private static final int HAS_WEIGHT = 1;

  private long[] keys = new long[16];
  private int numKeys;
  private byte[] raw = new byte[64];
  private int rawLength;
  private boolean hasWeight;
  private double weight;

  public RowPiece() {}

  /** Resets to an empty piece (no keys, no raw bytes, no weight). */
  public RowPiece clear() {
    numKeys = 0;
    rawLength = 0;
    hasWeight = false;
    return this;
  }

  public RowPiece setKeys(LongArrayList ks) {
    numKeys = 0;
    ensureKeys(ks.size());
    ks.getElements(0, keys, 0, ks.size());
    numKeys = ks.size();
    return this;
  }

  public RowPiece setKeys(long... ks) {
    ensureKeys(ks.length);
    System.arraycopy(ks, 0, keys, 0, ks.length);
    numKeys = ks.length;
    return this;
  }

  public RowPiece setRaw(byte[] bytes, int length) {
    ensureRaw(length);
    System.arraycopy(bytes, 0, raw, 0, length);
    rawLength = length;
    return this;
  }

  public RowPiece setWeight(Double w) {
    hasWeight = w != null;
    weight = w == null ? 0 : w;
    return this;
  }

  public int numKeys() {
    return numKeys;
  }

  public long key(int i) {
    return keys[i];
  }

  /** The keys array (valid up to {@link #numKeys()}). */
  long[] keyArray() {
    return keys;
  }

  public int rawLength() {
    return rawLength;
  }

  /** The raw bytes array (valid up to {@link #rawLength()}). */
  byte[] rawArray() {
    return raw;
  }

  public byte[] raw() {
    return Arrays.copyOf(raw, rawLength);
  }

  public boolean hasWeight() {
    return hasWeight;
  }

  public double weight() {
    return weight;
  }

  private void ensureKeys(int n) {
    if (keys.length < n) {
      keys = new long[Math.max(n, keys.length * 2)];
    }
  }

  private void ensureRaw(int n) {
    if (raw.length < n) {
      raw = new byte[Math.max(n, raw.length * 2)];
    }
  }

  @Override
  public void write(DataOutput out) throws IOException {
    out.writeByte(hasWeight ? HAS_WEIGHT : 0);
    WritableUtils.writeVInt(out, numKeys);
    for (int i = 0; i < numKeys; i++) {
      WritableUtils.writeVLong(out, keys[i]);
    }
    WritableUtils.writeVInt(out, rawLength);
    out.write(raw, 0, rawLength);
    if (hasWeight) {
      out.writeDouble(weight);
    }
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    int flags = in.readByte();
    int n = WritableUtils.readVInt(in);
    ensureKeys(n);
    for (int i = 0; i < n; i++) {
      keys[i] = WritableUtils.readVLong(in);
    }
    numKeys = n;
    int r = WritableUtils.readVInt(in);
    ensureRaw(r);
    in.readFully(raw, 0, r);
    rawLength = r;
    hasWeight = (flags & HAS_WEIGHT) != 0;
    weight = hasWeight ? in.readDouble() : 0;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof RowPiece p)) {
      return false;
    }
    return p.numKeys == numKeys && Arrays.equals(keys, 0, numKeys, p.keys, 0, numKeys)
        && Arrays.equals(raw, 0, rawLength, p.raw, 0, p.rawLength) && p.hasWeight == hasWeight
        && Double.compare(p.weight, weight) == 0;
  }

  @Override
  public int hashCode() {
    int h = 1;
    for (int i = 0; i < numKeys; i++) {
      h = h * 31 + Long.hashCode(keys[i]);
    }
    return h;
  }

  @Override
  public String toString() {
    return "RowPiece" + Arrays.toString(Arrays.copyOf(keys, numKeys)) + " raw="
        + new String(raw, 0, rawLength, java.nio.charset.StandardCharsets.UTF_8)
        + (hasWeight ? " w=" + weight : "");
  }
}
