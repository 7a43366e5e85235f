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
 * An edge-list mapper combines the pieces of one row from many lines of its split into one ({@link EdgePieces}):
 * its keys in line order and its raw lines joined by newlines, {@link #rawLines()} of them.
 *
 * <pre>
 * serialised: | flags: 1 byte (1 = has weight) | n: vint | n keys: vlong each | rawLen: vint | raw bytes |
 *             | rawLines: vint, if rawLen &gt; 0 | weight: 8 bytes, if flagged |
 * </pre>
 */
public final class RowPiece implements Writable {

  private static final int HAS_WEIGHT = 1;

  private long[] keys = new long[16];
  private int numKeys;
  private byte[] raw = new byte[64];
  private int rawLength;
  private int rawLines;
  private boolean hasWeight;
  private double weight;

  public RowPiece() {}

  /** Resets to an empty piece (no keys, no raw bytes, no weight). */
  public RowPiece clear() {
    numKeys = 0;
    rawLength = 0;
    rawLines = 0;
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

  /** Sets the raw bytes: one input line (or record), or none if {@code length} is 0. */
  public RowPiece setRaw(byte[] bytes, int length) {
    ensureRaw(length);
    System.arraycopy(bytes, 0, raw, 0, length);
    rawLength = length;
    rawLines = length > 0 ? 1 : 0;
    return this;
  }

  /** Appends a key. */
  RowPiece addKey(long key) {
    ensureKeys(numKeys + 1);
    keys[numKeys++] = key;
    return this;
  }

  /** Appends one more raw line, after a newline if the piece already holds one. */
  RowPiece addRawLine(byte[] bytes, int offset, int length) {
    return joinRaw(bytes, offset, length, 1);
  }

  /**
   * Appends another piece of the same row: its keys after these, its raw lines after these (joined by a newline),
   * its line count added. The one rule by which a row's pieces become the row, in the mapper's combining and in
   * the reducer.
   */
  RowPiece append(RowPiece p) {
    ensureKeys(numKeys + p.numKeys);
    System.arraycopy(p.keys, 0, keys, numKeys, p.numKeys);
    numKeys += p.numKeys;
    return p.rawLength > 0 ? joinRaw(p.raw, 0, p.rawLength, p.rawLines) : this;
  }

  private RowPiece joinRaw(byte[] bytes, int offset, int length, int lines) {
    int sep = rawLines > 0 ? 1 : 0;
    ensureRaw(rawLength + sep + length);
    if (sep > 0) {
      raw[rawLength++] = '\n';
    }
    System.arraycopy(bytes, offset, raw, rawLength, length);
    rawLength += length;
    rawLines += lines;
    return this;
  }

  /** Input lines in {@link #raw()} (joined by newlines); 0 if none. */
  public int rawLines() {
    return rawLines;
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
      keys = Arrays.copyOf(keys, Math.max(n, keys.length * 2));
    }
  }

  private void ensureRaw(int n) {
    if (raw.length < n) {
      raw = Arrays.copyOf(raw, Math.max(n, raw.length * 2));
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
    if (rawLength > 0) {
      WritableUtils.writeVInt(out, rawLines);
    }
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
    rawLines = r > 0 ? WritableUtils.readVInt(in) : 0;
    hasWeight = (flags & HAS_WEIGHT) != 0;
    weight = hasWeight ? in.readDouble() : 0;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof RowPiece p)) {
      return false;
    }
    return p.numKeys == numKeys && Arrays.equals(keys, 0, numKeys, p.keys, 0, numKeys)
        && Arrays.equals(raw, 0, rawLength, p.raw, 0, p.rawLength) && p.rawLines == rawLines
        && p.hasWeight == hasWeight
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
