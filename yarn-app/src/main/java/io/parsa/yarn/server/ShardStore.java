package io.parsa.yarn.server;

import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.util.Arrays;

/**
 * The neighbor-set bits of one shard: for every stored key, {@code wordsPerKey} 64-bit words whose bit i says
 * whether S_i holds the key. Not thread-safe; {@link NeighborSetService} guards it.
 *
 * <pre>
 *   index: key -> slot          words: | slot 0: w0 w1 .. w(wpk-1) | slot 1: ... |
 * </pre>
 */
public final class ShardStore {
  private final int k;
  private final int wpk;
  private final Long2IntOpenHashMap slots = new Long2IntOpenHashMap();
  private long[] keysBySlot = new long[1024];
  private long[] words;

  public ShardStore(int k) {
    this.k = k;
    this.wpk = (k + 63) >>> 6;
    this.words = new long[1024 * wpk];
    slots.defaultReturnValue(-1);
  }

  int k() {
    return k;
  }

  public int wordsPerKey() {
    return wpk;
  }

  public long numKeys() {
    return slots.size();
  }

  /** Copies the words of {@code keys} into {@code out} (zeros for unknown keys). */
  public void pull(long[] keys, long[] out) {
    for (int i = 0; i < keys.length; i++) {
      int s = slots.get(keys[i]);
      if (s >= 0) {
        System.arraycopy(words, s * wpk, out, i * wpk, wpk);
      } else {
        Arrays.fill(out, i * wpk, (i + 1) * wpk, 0L);
      }
    }
  }

  /** S |= bits (union) or S = bits (replace) for each key. */
  public void push(long[] keys, long[] bits, boolean replace) {
    for (int i = 0; i < keys.length; i++) {
      int s = slotFor(keys[i]);
      int base = s * wpk;
      for (int w = 0; w < wpk; w++) {
        long b = bits[i * wpk + w];
        words[base + w] = replace ? b : words[base + w] | b;
      }
    }
  }

  private int slotFor(long key) {
    int s = slots.get(key);
    if (s >= 0) {
      return s;
    }
    s = slots.size();
    if (s == keysBySlot.length) {
      keysBySlot = Arrays.copyOf(keysBySlot, s * 2);
      words = Arrays.copyOf(words, s * 2 * wpk);
    }
    keysBySlot[s] = key;
    slots.put(key, s);
    return s;
  }

  /** |S_i| within this shard for each part. */
  public long[] setSizes() {
    long[] sizes = new long[k];
    int n = slots.size();
    for (int s = 0; s < n; s++) {
      for (int w = 0; w < wpk; w++) {
        long b = words[s * wpk + w];
        while (b != 0) {
          sizes[(w << 6) + Long.numberOfTrailingZeros(b)]++;
          b &= b - 1;
        }
      }
    }
    return sizes;
  }

  /** Visits every key with a non-empty set, in insertion order. */
  public void forEach(EntryConsumer c) throws java.io.IOException {
    int n = slots.size();
    for (int s = 0; s < n; s++) {
      boolean any = false;
      for (int w = 0; w < wpk; w++) {
        any |= words[s * wpk + w] != 0;
      }
      if (any) {
        c.accept(keysBySlot[s], words, s * wpk);
      }
    }
  }

  /** Receives one key and its words {@code words[offset .. offset + wpk)}. */
  public interface EntryConsumer {
    void accept(long key, long[] words, int offset) throws java.io.IOException;
  }
}
