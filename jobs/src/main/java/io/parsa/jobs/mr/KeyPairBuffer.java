package io.parsa.jobs.mr;

import it.unimi.dsi.fastutil.longs.LongArrays;
import java.util.Arrays;

/**
 * A map task's (key, value) pairs, gathered for in-mapper combining: after {@link #sort()} the pairs are ordered by
 * key, then value (both signed), so a task emits one record per key (or per (key, value) run) instead of one per
 * pair. Grows by doubling; the caller bounds it (flushes when {@link #size()} reaches its limit).
 */
public final class KeyPairBuffer {

  private long[] keys;
  private long[] values;
  private int n;

  public KeyPairBuffer(int initialCapacity) {
    keys = new long[Math.max(16, initialCapacity)];
    values = new long[keys.length];
  }

  public void add(long key, long value) {
    if (n == keys.length) {
      int cap = (int) Math.min(Integer.MAX_VALUE - 8, 2L * n);
      if (cap == n) {
        throw new IllegalStateException("key pair buffer full at " + n + " pairs");
      }
      keys = Arrays.copyOf(keys, cap);
      values = Arrays.copyOf(values, cap);
    }
    keys[n] = key;
    values[n++] = value;
  }

  public int size() {
    return n;
  }

  /** Sorts the pairs by key, then value (radix sort, linear in the pairs). */
  public void sort() {
    LongArrays.radixSort(keys, values, 0, n);
  }

  public long key(int i) {
    return keys[i];
  }

  public long value(int i) {
    return values[i];
  }

  /** The end of the run of pairs with the key of pair {@code i}, after {@link #sort()}. */
  public int runEnd(int i) {
    long key = keys[i];
    int j = i + 1;
    while (j < n && keys[j] == key) {
      j++;
    }
    return j;
  }

  public void clear() {
    n = 0;
  }
}
