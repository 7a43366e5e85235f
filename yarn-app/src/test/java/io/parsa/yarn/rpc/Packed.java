package io.parsa.yarn.rpc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;

/** The tests' short forms of {@link PackedLongs} over lists. */
public final class Packed {
  private Packed() {}

  public static ByteBuffer keys(List<Long> keys) {
    return PackedLongs.keys(Longs.toArray(keys));
  }

  public static ByteBuffer words(List<Long> words) {
    return PackedLongs.words(Longs.toArray(words));
  }

  /** The words of a pull response, as a list. */
  public static List<Long> wordList(ByteBuffer packed) {
    try {
      return Longs.wrap(PackedLongs.unpackWords(packed, Integer.MAX_VALUE - 8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
