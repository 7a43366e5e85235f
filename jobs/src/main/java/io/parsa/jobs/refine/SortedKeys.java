package io.parsa.jobs.refine;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.apache.hadoop.io.WritableUtils;

/**
 * Distinct keys in ascending order, as the group jobs' records carry them ({@link GroupRow}, {@link ClusterRow}): a
 * reusable buffer, written as the count, then the first key and the gaps between neighbours as variable-length longs
 * (small, as the keys ascend).
 */
final class SortedKeys {

  private long[] keys = new long[16];
  private int size;

  /** Copies {@code sorted[0..n)} (distinct and ascending). */
  void set(long[] sorted, int n) {
    grow(n);
    System.arraycopy(sorted, 0, keys, 0, n);
    size = n;
  }

  /** Copies the distinct keys of a row. */
  void set(io.parsa.jobs.mr.DistinctKeys distinct) {
    int n = distinct.size();
    grow(n);
    for (int i = 0; i < n; i++) {
      keys[i] = distinct.get(i);
    }
    size = n;
  }

  int size() {
    return size;
  }

  long get(int i) {
    return keys[i];
  }

  private void grow(int n) {
    if (keys.length < n) {
      keys = new long[Math.max(n, 2 * keys.length)];
    }
  }

  void write(DataOutput out) throws IOException {
    WritableUtils.writeVInt(out, size);
    long prev = 0;
    for (int i = 0; i < size; i++) {
      WritableUtils.writeVLong(out, keys[i] - prev); // only the first may be negative
      prev = keys[i];
    }
  }

  void readFields(DataInput in) throws IOException {
    int n = WritableUtils.readVInt(in);
    grow(n);
    long prev = 0;
    for (int i = 0; i < n; i++) {
      prev += WritableUtils.readVLong(in);
      keys[i] = prev;
    }
    size = n;
  }
}
