package io.parsa.engine;

/** Receives one key of {@link NeighborSets} with its part bit set ({@code wordsPerKey} longs at {@code offset}). */
@FunctionalInterface
public interface KeyBitsConsumer {
  /**
   * @param key    the global key
   * @param words  array holding the bit set; bit {@code i} of the set is
   *               {@code (words[offset + (i >>> 6)] >>> (i & 63)) & 1}; do not modify or keep a reference
   * @param offset start of this key's words
   */
  void accept(long key, long[] words, int offset);
}
