package io.parsa.jobs.refine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.hadoop.io.BytesWritable;
import org.junit.jupiter.api.Test;

/** The records and the sampling rule of the holder sets ({@link SharedKeys}). */
class SharedKeysTest {

  @Test
  void clusterRowsCarryKeyWeightsOnlyWhereGiven() throws IOException {
    ClusterRow row = new ClusterRow();
    row.set(7L << 32 | 3, 12, new long[] {5, 9, 1L << 40}, 3, 4, new int[] {1, 17, 250});
    ClusterRow back = roundTrip(row, new ClusterRow());
    assertTrue(back.weighted());
    assertEquals(row.cluster(), back.cluster());
    assertEquals(12, back.weight());
    assertEquals(4, back.unlisted());
    assertEquals(3, back.size());
    assertEquals(1L << 40, back.key(2));
    assertEquals(17, back.keyWeight(1));
    assertEquals(250, back.keyWeight(2));
    // the same instance reused for a row without weights (as a reducer reuses its value): every key weighs 1
    row.set(8, 0, new long[] {2, 3}, 2, -2);
    ClusterRow plain = roundTrip(row, back);
    assertFalse(plain.weighted());
    assertEquals(1, plain.keyWeight(0));
    assertEquals(1, plain.keyWeight(1));
    assertEquals(-2, plain.unlisted());
  }

  @Test
  void holderSetsAreTheirClustersAndSortAsTheyGroup() {
    LongArrayList holders = LongArrayList.of(3L, 1L << 33 | 5, 1L << 40);
    BytesWritable set = new BytesWritable();
    SharedKeys.holderSet(holders, set);
    long[] back = new long[4];
    assertEquals(3, SharedKeys.holders(set, back));
    assertArrayEquals(holders.toLongArray(), java.util.Arrays.copyOf(back, 3));
    BytesWritable same = new BytesWritable();
    SharedKeys.holderSet(LongArrayList.of(3L, 1L << 33 | 5, 1L << 40), same);
    assertEquals(set, same);
    BytesWritable other = new BytesWritable();
    SharedKeys.holderSet(LongArrayList.of(3L, 1L << 33 | 6), other);
    assertTrue(set.compareTo(other) != 0);
  }

  /**
   * A set is listed with probability min(1, r · keys): a set of many keys always, whole; the candidate rates run from
   * the base up to 1, increasing.
   */
  @Test
  void setsAreListedInProportionToTheirKeys() {
    assertEquals(0.1, SharedKeys.inclusion(0.1, 1), 1e-12);
    assertEquals(0.5, SharedKeys.inclusion(0.1, 5), 1e-12);
    assertEquals(1, SharedKeys.inclusion(0.1, 10), 1e-12);
    assertEquals(1, SharedKeys.inclusion(0.1, 400), 1e-12);
    double base = 0.08;
    assertEquals(base, SharedKeys.candidateRate(base, 0), 1e-12);
    assertEquals(1, SharedKeys.candidateRate(base, SharedKeys.CANDIDATES), 1e-12);
    for (int j = 1; j <= SharedKeys.CANDIDATES; j++) {
      assertTrue(SharedKeys.candidateRate(base, j) > SharedKeys.candidateRate(base, j - 1), "candidate " + j);
    }
  }

  private static ClusterRow roundTrip(ClusterRow row, ClusterRow into) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    row.write(new DataOutputStream(bytes));
    into.readFields(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
    return into;
  }
}
