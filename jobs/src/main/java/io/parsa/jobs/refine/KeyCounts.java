package io.parsa.jobs.refine;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.io.WritableUtils;

/**
 * One key's rows per part, sparse: {@code counts[t]} rows of part {@code parts[t]} use the key, parts ascending.
 * Between the jobs of the distributed swap rounds it carries a block's share of a key (map output of
 * {@link CountMapper}: {@link #block} = the block) or the key's totals sent to a block that uses it (output of
 * {@link CountReducer}). Variable-length encoded: a key used by λ parts costs a few bytes per part.
 */
public final class KeyCounts implements Writable {

  private long key;
  private int block;
  private int n;
  private int[] parts = new int[4];
  private int[] counts = new int[4];

  public long key() {
    return key;
  }

  public int block() {
    return block;
  }

  /** Parts that use the key. */
  public int size() {
    return n;
  }

  public int part(int t) {
    return parts[t];
  }

  public int count(int t) {
    return counts[t];
  }

  /** Empties the record and sets its key and block. */
  public KeyCounts reset(long key, int block) {
    this.key = key;
    this.block = block;
    this.n = 0;
    return this;
  }

  /** Appends {@code count} rows of {@code part}; the caller appends parts in ascending order, each once. */
  public void add(int part, int count) {
    if (n == parts.length) {
      parts = Arrays.copyOf(parts, 2 * n);
      counts = Arrays.copyOf(counts, 2 * n);
    }
    parts[n] = part;
    counts[n] = count;
    n++;
  }

  @Override
  public void write(DataOutput out) throws IOException {
    WritableUtils.writeVLong(out, key);
    WritableUtils.writeVInt(out, block);
    WritableUtils.writeVInt(out, n);
    int prev = 0;
    for (int t = 0; t < n; t++) {
      WritableUtils.writeVInt(out, parts[t] - prev); // ascending: small gaps
      WritableUtils.writeVInt(out, counts[t]);
      prev = parts[t];
    }
  }

  @Override
  public void readFields(DataInput in) throws IOException {
    key = WritableUtils.readVLong(in);
    block = WritableUtils.readVInt(in);
    int len = WritableUtils.readVInt(in);
    n = 0;
    int prev = 0;
    for (int t = 0; t < len; t++) {
      prev += WritableUtils.readVInt(in);
      add(prev, WritableUtils.readVInt(in));
    }
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder().append(key).append('@').append(block).append('{');
    for (int t = 0; t < n; t++) {
      sb.append(t == 0 ? "" : ",").append(parts[t]).append(':').append(counts[t]);
    }
    return sb.append('}').toString();
  }
}
