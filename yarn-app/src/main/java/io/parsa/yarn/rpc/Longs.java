package io.parsa.yarn.rpc;

import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.util.List;

/** Conversions between Avro's {@code List<Long>} and primitive arrays. */
public final class Longs {

  private Longs() {}

  /** Unboxes {@code list}; a null element is an {@link IllegalArgumentException}. */
  public static long[] toArray(List<Long> list) {
    if (list instanceof LongArrayList) {
      return ((LongArrayList) list).toLongArray();
    }
    long[] out = new long[list.size()];
    int i = 0;
    for (Long v : list) {
      if (v == null) {
        throw new IllegalArgumentException("null element at index " + i);
      }
      out[i++] = v;
    }
    return out;
  }

  /** A list view over {@code a} (no copy). */
  public static List<Long> wrap(long[] a) {
    return LongArrayList.wrap(a);
  }

  /** A list view over {@code a[from, to)} (copy). */
  public static List<Long> wrap(long[] a, int from, int to) {
    return LongArrayList.wrap(java.util.Arrays.copyOfRange(a, from, to));
  }

  public static double[] toDoubleArray(List<Double> list) {
    double[] out = new double[list.size()];
    int i = 0;
    for (Double v : list) {
      out[i++] = v == null ? 0 : v;
    }
    return out;
  }

  public static List<Double> wrap(double[] a) {
    return it.unimi.dsi.fastutil.doubles.DoubleArrayList.wrap(a);
  }
}
