package io.parsa.jobs.mr;

import org.apache.hadoop.mapreduce.TaskInputOutputContext;

/**
 * Reduce side of the row / assignment join for one row id: takes the values, keeps a copy of the one row and the
 * one part, and counts every way the pair can be broken (missing or duplicated row or assignment).
 */
public final class RowJoin {

  private long[] keys = new long[16];
  private int nKeys;
  private byte[] raw;
  private double weight;
  private int part;
  private long id;

  /** Consumes the values of one row id; returns true if there was exactly one row and exactly one part. */
  public boolean join(Iterable<JoinValue> values, TaskInputOutputContext<?, ?, ?, ?> context) {
    int rows = 0;
    int parts = 0;
    for (JoinValue v : values) {
      if (v.tag() == JoinValue.ROW) {
        rows++;
        if (rows == 1) {
          int n = v.numLongs();
          if (keys.length < n) {
            keys = new long[Math.max(n, keys.length * 2)];
          }
          System.arraycopy(v.longsArray(), 0, keys, 0, n);
          nKeys = n;
          raw = v.raw();
          id = v.id();
          weight = v.weight();
        }
      } else if (v.tag() == JoinValue.PART) {
        parts++;
        part = v.a();
      } else {
        throw new IllegalStateException("unexpected join value " + v);
      }
    }
    if (rows > 1) {
      context.getCounter(JoinCounters.DUPLICATE_ROW).increment(rows - 1);
    }
    if (parts > 1) {
      context.getCounter(JoinCounters.DUPLICATE_ASSIGNMENT).increment(parts - 1);
    }
    if (rows == 0) {
      context.getCounter(JoinCounters.ASSIGNMENT_WITHOUT_ROW).increment(1);
      return false;
    }
    if (parts == 0) {
      context.getCounter(JoinCounters.ROW_WITHOUT_ASSIGNMENT).increment(1);
      return false;
    }
    if (rows > 1 || parts > 1) {
      return false;
    }
    context.getCounter(JoinCounters.JOINED_ROWS).increment(1);
    return true;
  }

  /** Row id of the joined row. */
  public long id() {
    return id;
  }

  public int part() {
    return part;
  }

  /** Keys of the row (valid up to {@link #numKeys()}); overwritten by the next join. */
  public long[] keys() {
    return keys;
  }

  public int numKeys() {
    return nKeys;
  }

  /** Raw bytes if the mapper carried them, else null. */
  public byte[] raw() {
    return raw;
  }

  public double weight() {
    return weight;
  }

  /** Sorts the keys in place and returns the number of distinct ones (now at the front). */
  public int distinctKeys() {
    java.util.Arrays.sort(keys, 0, nKeys);
    int d = 0;
    for (int i = 0; i < nKeys; i++) {
      if (d == 0 || keys[d - 1] != keys[i]) {
        keys[d++] = keys[i];
      }
    }
    return d;
  }
}
