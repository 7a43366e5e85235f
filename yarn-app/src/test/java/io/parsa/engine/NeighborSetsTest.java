package io.parsa.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class NeighborSetsTest {
  @Test
  void wordsPerKey() {
    assertEquals(1, NeighborSets.wordsPerKey(1));
    assertEquals(1, NeighborSets.wordsPerKey(64));
    assertEquals(2, NeighborSets.wordsPerKey(65));
    assertEquals(16, NeighborSets.wordsPerKey(1024));
    assertEquals(33, NeighborSets.wordsPerKey(2050));
  }

  @Test
  void matchesAMapOfBitSetsUnderRandomOperations() {
    for (int k : new int[] {1, 3, 64, 65, 130, 1024}) {
      SplittableRandom rnd = new SplittableRandom(k);
      int wpk = NeighborSets.wordsPerKey(k);
      NeighborSets s = new NeighborSets(k);
      Map<Long, BitSet> ref = new HashMap<>();
      for (int op = 0; op < 300; op++) {
        int len = rnd.nextInt(20);
        long[] keys = new long[len];
        long[] bits = new long[len * wpk];
        for (int j = 0; j < len; j++) {
          keys[j] = rnd.nextInt(200) * 0x9E3779B97F4A7C15L; // sparse, some negative
          for (int w = 0; w < wpk; w++) {
            bits[j * wpk + w] = rnd.nextInt(3) == 0 ? 0 : rnd.nextLong() & rnd.nextLong() & rnd.nextLong();
          }
        }
        // distinct keys per call, as blocks have
        keys = java.util.Arrays.stream(keys).distinct().toArray();
        int choice = rnd.nextInt(3);
        for (int j = 0; j < keys.length; j++) {
          BitSet given = BitSet.valueOf(java.util.Arrays.copyOfRange(bits, j * wpk, (j + 1) * wpk));
          if (given.length() > k) {
            given.clear(k, given.length()); // bits of parts >= k are ignored
          }
          if (choice == 0) {
            ref.computeIfAbsent(keys[j], x -> new BitSet()).or(given);
          } else if (choice == 1) {
            ref.put(keys[j], given);
          }
        }
        if (choice == 0) {
          s.union(keys, bits);
        } else if (choice == 1) {
          s.replace(keys, bits);
        } else {
          long[] out = new long[keys.length * wpk];
          java.util.Arrays.fill(out, -1L);
          s.pull(keys, out);
          for (int j = 0; j < keys.length; j++) {
            long[] exp = java.util.Arrays.copyOf(ref.getOrDefault(keys[j], new BitSet()).toLongArray(), wpk);
            assertArrayEquals(exp, java.util.Arrays.copyOfRange(out, j * wpk, (j + 1) * wpk));
          }
        }
      }
      long[] sizes = new long[k];
      long nonEmpty = 0;
      for (BitSet b : ref.values()) {
        b.stream().forEach(i -> sizes[i]++);
        nonEmpty += b.isEmpty() ? 0 : 1;
      }
      assertArrayEquals(sizes, s.setSizes(), "k=" + k);
      assertEquals(nonEmpty, s.numKeys(), "k=" + k);
      long[] seen = {0};
      s.forEach((key, words, off) -> {
        seen[0]++;
        long[] exp = java.util.Arrays.copyOf(ref.get(key).toLongArray(), wpk);
        assertArrayEquals(exp, java.util.Arrays.copyOfRange(words, off, off + wpk));
      });
      assertEquals(nonEmpty, seen[0]);
      NeighborSets c = s.copy();
      c.add(123456789L, k - 1);
      assertTrue(c.contains(123456789L, k - 1));
      assertFalse(s.contains(123456789L, k - 1));
      s.clear();
      assertEquals(0, s.numKeys());
      assertArrayEquals(new long[k], s.setSizes());
    }
  }
}
