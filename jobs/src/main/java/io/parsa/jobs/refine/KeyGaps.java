package io.parsa.jobs.refine;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.apache.hadoop.io.WritableUtils;

/**
 * Distinct keys in ascending order on the wire of the group jobs ({@link GroupRow}, {@link ClusterRow}): their count,
 * then the first key and the gaps between neighbours as variable-length longs (small, as the keys ascend).
 */
final class KeyGaps {

  private KeyGaps() {}

  static void write(DataOutput out, long[] keys, int n) throws IOException {
    WritableUtils.writeVInt(out, n);
    long prev = 0;
    for (int i = 0; i < n; i++) {
      WritableUtils.writeVLong(out, keys[i] - prev); // only the first may be negative
      prev = keys[i];
    }
  }

  /** The number of keys that follow ({@link #readKeys} reads them). */
  static int readCount(DataInput in) throws IOException {
    return WritableUtils.readVInt(in);
  }

  /** The {@code n} keys into {@code keys[0..n)}. */
  static void readKeys(DataInput in, long[] keys, int n) throws IOException {
    long prev = 0;
    for (int i = 0; i < n; i++) {
      prev += WritableUtils.readVLong(in);
      keys[i] = prev;
    }
  }
}
