package io.parsa.jobs.mr;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every kind of JoinValue survives the wire, written with only the fields its tag uses. */
class JoinValueTest {

  private static byte[] bytes(JoinValue v) throws Exception {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    v.write(new DataOutputStream(b));
    return b.toByteArray();
  }

  @Test
  void everyTagRoundTripsThroughOneReusedInstance() throws Exception {
    List<JoinValue> values = List.of(
        new JoinValue().setRow(1L << 41 | 7, new long[] {3, 1L << 40, 9}, 3, "1 3:1 9:2".getBytes(), Double.NaN),
        new JoinValue().setRow(5, new long[0], 0, null, 2.5),
        new JoinValue().setRow(6, new long[] {4}, 1, new byte[0], 0.0),
        JoinValue.part(15), new JoinValue().setPart(3, 1), JoinValue.pair(1023, 0),
        new JoinValue().setParts(new long[] {0, 5, 63}, 3),
        new JoinValue().setUsage(new long[] {1, 2}, 2, new long[] {0, 3, 7}, 3),
        new JoinValue().setUsage(new long[0], 0, new long[] {4}, 1));
    JoinValue reused = new JoinValue();
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(all);
    for (JoinValue v : values) {
      v.write(out);
    }
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(all.toByteArray()));
    for (JoinValue v : values) {
      reused.readFields(in);
      assertEquals(v, reused);
      assertEquals(v.a(), reused.a());
    }
    assertEquals(-1, in.read(), "nothing left over");
  }

  @Test
  void theShufflesSmallRecordsAreSmall() throws Exception {
    assertEquals(3, bytes(JoinValue.pair(5, 9)).length);
    assertEquals(3, bytes(JoinValue.part(2)).length);
    // tag, id, nLongs, 2 keys, flags: no weight and no raw
    assertEquals(6, bytes(new JoinValue().setRow(1, new long[] {2, 3}, 2, null, Double.NaN)).length);
  }
}
