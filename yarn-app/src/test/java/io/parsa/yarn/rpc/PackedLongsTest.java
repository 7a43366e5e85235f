package io.parsa.yarn.rpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PackedLongsTest {

  @Test
  void keysAndWordsComeBackExactly() throws IOException {
    long[][] cases = {
        {},
        {0},
        {Long.MIN_VALUE, Long.MAX_VALUE, -1, 0, 1, Long.MIN_VALUE},
        {5, 3, 3, 900_000_000_000L, -7},
    };
    for (long[] a : cases) {
      assertArrayEquals(a, PackedLongs.unpackKeys(PackedLongs.keys(a), a.length), Arrays.toString(a));
      assertArrayEquals(a, PackedLongs.unpackWords(PackedLongs.words(a), a.length), Arrays.toString(a));
    }
    SplittableRandom rnd = new SplittableRandom(7);
    long[] sorted = rnd.longs(50_000, 0, 3_000_000).sorted().toArray();
    ByteBuffer packed = PackedLongs.keys(sorted);
    assertArrayEquals(sorted, PackedLongs.unpackKeys(packed, sorted.length));
    assertEquals(0, packed.position(), "unpacking leaves the buffer as it was");
    // sorted feature ids 60 apart on average: a byte or two each, not the three of their own varints
    assertTrue(packed.remaining() < 2 * sorted.length, packed.remaining() + " bytes");
    long[] random = rnd.longs(10_000).toArray();
    assertArrayEquals(random, PackedLongs.unpackKeys(PackedLongs.keys(random), random.length));
  }

  @Test
  void malformedBytesAreRefusedWithTheReason() {
    ByteBuffer three = PackedLongs.words(new long[] {1, 2, 3});
    IOException tooMany = assertThrows(IOException.class, () -> PackedLongs.unpackWords(three.duplicate(), 2));
    assertTrue(tooMany.getMessage().contains("3 values, expected 0 to 2"), tooMany.getMessage());
    ByteBuffer cut = ByteBuffer.wrap(Arrays.copyOf(three.array(), three.remaining() - 1));
    IOException shortBy = assertThrows(IOException.class, () -> PackedLongs.unpackWords(cut, 10));
    assertTrue(shortBy.getMessage().contains("3 values in 3 bytes") || shortBy.getMessage().contains("cut short"),
        shortBy.getMessage());
    ByteBuffer longer = ByteBuffer.allocate(three.remaining() + 1).put(three.duplicate()).put((byte) 2).flip();
    IOException left = assertThrows(IOException.class, () -> PackedLongs.unpackWords(longer, 10));
    assertTrue(left.getMessage().contains("left after 3 values"), left.getMessage());
    ByteBuffer garbage = ByteBuffer.wrap(new byte[] {2, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff,
        (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 1});
    assertThrows(IOException.class, () -> PackedLongs.unpackKeys(garbage, 10));
    ByteBuffer negative = ByteBuffer.wrap(new byte[] {1});
    IOException neg = assertThrows(IOException.class, () -> PackedLongs.unpackKeys(negative, 10));
    assertTrue(neg.getMessage().contains("-1 values"), neg.getMessage());
    assertThrows(IOException.class, () -> PackedLongs.unpackKeys(null, 10));
  }
}
