package io.parsa.yarn.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.yarn.rpc.KeySharding;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** ShardStore: the large-index arithmetic (without allocating it) and the sub-map store against a plain map. */
class ShardStoreTest {

  @Test
  void subMapCapacityIsBoundedByTheIndexOrTheWordArrayNeverByAnInt() {
    // k <= 64: one word per key, the fastutil index is the limit (2^30 table slots filled to 0.75)
    assertEquals(805_306_368L, ShardStore.maxSlotsPerSubMap(1));
    // k = 65..128: two words; the old single array overflowed an int at 2^29 keys (2^30 words, doubled)
    assertEquals(805_306_368L, ShardStore.maxSlotsPerSubMap(2));
    // k = 1024: 16 words; the word array is the limit: (2^31 - 9) / 16
    assertEquals((Integer.MAX_VALUE - 8L) / 16, ShardStore.maxSlotsPerSubMap(16));
    for (int wpk = 1; wpk <= 16; wpk++) {
      long max = ShardStore.maxSlotsPerSubMap(wpk);
      long lastWordEnd = ShardStore.wordOffset(max - 1, wpk) + wpk;
      assertTrue(lastWordEnd <= ShardStore.MAX_ARRAY, "wpk " + wpk + ": " + lastWordEnd);
      assertTrue(ShardStore.wordOffset(max, wpk) > 0, "no wrap at wpk " + wpk);
    }
    assertEquals(1L << 31, ShardStore.wordOffset(1L << 30, 2), "long arithmetic past 2^31");
  }

  @Test
  void aShardHoldsFarMoreKeysThanAnyHeapForEveryKUpTo1024() {
    for (int k : new int[] {1, 16, 64, 65, 128, 129, 1024}) {
      // default 256 sub-maps: at least 3.4e10 keys per shard, 10x the paper's largest data set (3e9 keys)
      assertTrue(ShardStore.capacity(k, ShardStore.DEFAULT_SUBMAP_BITS) >= 34_000_000_000L, "k = " + k);
    }
    assertEquals(256L * 805_306_368L, ShardStore.capacity(16, 8));
    assertEquals(805_306_368L, ShardStore.capacity(16, 0), "one sub-map: the old per-shard cap");
  }

  @Test
  void growthIsGeometricClampedAndRefusesPastTheCap() {
    assertEquals(16, ShardStore.grownCapacity(0, 1, 1000));
    assertEquals(150, ShardStore.grownCapacity(100, 101, 1000));
    assertEquals(1000, ShardStore.grownCapacity(900, 901, 1000), "clamped to the cap");
    long max = ShardStore.maxSlotsPerSubMap(16);
    assertEquals(max, ShardStore.grownCapacity(max - 1, max, max));
    // a grown capacity times words per key still fits a Java array
    long g = ShardStore.grownCapacity(100_000_000L, 100_000_001L, max);
    assertTrue(ShardStore.wordOffset(g, 16) <= ShardStore.MAX_ARRAY);
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> ShardStore.grownCapacity(max, max + 1, max));
    assertTrue(e.getMessage().contains("full"));
  }

  @Test
  void subMapsSpreadKeysEvenlyAndIndependentlyOfTheShard() {
    int bits = 4;
    int[] counts = new int[1 << bits];
    int n = 0;
    for (long key = 0; n < 160_000; key++) {
      if (KeySharding.shard(key, 3) == 1) { // the keys one of three servers owns
        counts[ShardStore.subMapOf(key, bits)]++;
        n++;
      }
    }
    for (int c : counts) {
      assertTrue(Math.abs(c - 10_000) < 600, Arrays.toString(counts));
    }
    assertEquals(0, ShardStore.subMapOf(12345L, 0));
  }

  @Test
  void matchesAPlainMapForUnionReplaceSizesAndCopies() throws Exception {
    for (int k : new int[] {5, 70, 1024}) {
      int wpk = (k + 63) >>> 6;
      ShardStore store = new ShardStore(k, 3);
      Map<Long, long[]> ref = new HashMap<>();
      Random rnd = new Random(k);
      for (int round = 0; round < 30; round++) {
        int n = 1 + rnd.nextInt(400);
        long[] keys = rnd.longs(n, 0, 3000).distinct().toArray();
        long[] bits = new long[keys.length * wpk];
        for (int i = 0; i < keys.length; i++) {
          int part = rnd.nextInt(k);
          bits[i * wpk + (part >>> 6)] |= 1L << part;
        }
        boolean replace = round % 7 == 0;
        store.push(keys, bits, replace);
        for (int i = 0; i < keys.length; i++) {
          long[] w = ref.computeIfAbsent(keys[i], x -> new long[wpk]);
          for (int j = 0; j < wpk; j++) {
            w[j] = replace ? bits[i * wpk + j] : w[j] | bits[i * wpk + j];
          }
        }
      }
      assertEquals(ref.size(), store.numKeys());
      long[] probe = ref.keySet().stream().mapToLong(Long::longValue).toArray();
      long[] withUnknown = Arrays.copyOf(probe, probe.length + 1);
      withUnknown[probe.length] = -42L;
      long[] out = new long[withUnknown.length * wpk];
      Arrays.fill(out, -1L);
      store.pull(withUnknown, out);
      long[] sizes = new long[k];
      for (int i = 0; i < probe.length; i++) {
        long[] want = ref.get(probe[i]);
        assertArrayEquals(want, Arrays.copyOfRange(out, i * wpk, (i + 1) * wpk), "key " + probe[i]);
        for (int j = 0; j < wpk; j++) {
          long b = want[j];
          while (b != 0) {
            sizes[(j << 6) + Long.numberOfTrailingZeros(b)]++;
            b &= b - 1;
          }
        }
      }
      assertArrayEquals(new long[wpk], Arrays.copyOfRange(out, probe.length * wpk, out.length), "unknown key");
      assertArrayEquals(sizes, store.setSizes());

      Map<Long, long[]> seen = new HashMap<>();
      store.forEach((key, words, off) -> seen.put(key, Arrays.copyOfRange(words, off, off + wpk)));
      Map<Long, long[]> copied = new HashMap<>();
      for (int j = 0; j < store.subMapCount(); j++) {
        ShardStore.Copy c = store.copySubMap(j);
        for (int i = 0; i < c.keys.length; i++) {
          assertEquals(j, ShardStore.subMapOf(c.keys[i], 3));
          copied.put(c.keys[i], Arrays.copyOfRange(c.words, i * wpk, (i + 1) * wpk));
        }
      }
      assertEquals(ref.size(), copied.size());
      for (Map.Entry<Long, long[]> e : ref.entrySet()) {
        assertArrayEquals(e.getValue(), copied.get(e.getKey()));
        if (ShardStore.nonEmpty(e.getValue(), 0, wpk)) {
          assertArrayEquals(e.getValue(), seen.get(e.getKey()));
        } else {
          assertTrue(!seen.containsKey(e.getKey()), "empty sets are skipped");
        }
      }
    }
  }
}
