package io.parsa.jobs.mr;

import java.util.Arrays;
import java.util.List;

/** A row's distinct keys, ascending, in a buffer reused from row to row (a row may list a key more than once). */
public final class DistinctKeys {

  private long[] buf = new long[64];
  private int n;

  /** Loads the distinct keys of {@code keys}. */
  public DistinctKeys of(List<Long> keys) {
    int m = keys.size();
    grow(m);
    for (int i = 0; i < m; i++) {
      buf[i] = keys.get(i);
    }
    return dedup(m);
  }

  /** Loads the distinct keys of {@code keys[from, to)}. */
  public DistinctKeys of(long[] keys, int from, int to) {
    int m = to - from;
    grow(m);
    System.arraycopy(keys, from, buf, 0, m);
    return dedup(m);
  }

  public int size() {
    return n;
  }

  public long get(int i) {
    return buf[i];
  }

  private void grow(int m) {
    if (buf.length < m) {
      buf = new long[Math.max(m, 2 * buf.length)];
    }
  }

  private DistinctKeys dedup(int m) {
    Arrays.sort(buf, 0, m);
    n = 0;
    for (int i = 0; i < m; i++) {
      if (i == 0 || buf[i] != buf[i - 1]) {
        buf[n++] = buf[i];
      }
    }
    return this;
  }
}
