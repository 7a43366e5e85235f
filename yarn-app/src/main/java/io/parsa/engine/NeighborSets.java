package io.parsa.engine;

import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.util.Arrays;

/**
 * The neighbor sets S_1..S_k, stored per key as the set of parts whose S holds the key.
 *
 * <p>Layout: a {@link Long2IntOpenHashMap} from key to slot, and one growable {@code long[]} slab holding
 * {@link #wordsPerKey(int) wordsPerKey(k)} = ceil(k/64) words per slot:
 * <pre>
 *   slab: | key slot 0: w0 w1 .. w(wpk-1) | key slot 1: w0 .. | ...
 *   part i of a key  =  bit (i &amp; 63) of word (i &gt;&gt;&gt; 6)
 * </pre>
 * The same layout is used for the {@code bits} / {@code out} arrays of {@link #pull}, {@link #union} and
 * {@link #replace}: key {@code keys[j]} occupies words {@code [j*wpk, (j+1)*wpk)}. Memory per key: 8·wpk (slab)
 * + 8 (key of slot) + 12 / load factor (hash map), each array up to 2× over-allocated by doubling — roughly
 * 40–70 bytes per key for k ≤ 64 and 150–300 bytes per key for k = 1024. Not thread-safe.
 */
public final class NeighborSets {
  private final int k;
  private final int wpk;
  private final Long2IntOpenHashMap slots = new Long2IntOpenHashMap();
  private long[] slab;
  private long[] keyOfSlot;
  private int numSlots;
  private long nonEmptyKeys;
  private final long[] sizes;
  /** Mask of the valid bits of the last word (bits of parts ≥ k are ignored on input). */
  private final long lastWordMask;

  /** Empty sets for {@code k} parts, 1 ≤ k. */
  public NeighborSets(int k) {
    if (k < 1) {
      throw new IllegalArgumentException("k must be >= 1, was " + k);
    }
    this.k = k;
    this.wpk = wordsPerKey(k);
    this.slots.defaultReturnValue(-1);
    this.slab = new long[16 * wpk];
    this.keyOfSlot = new long[16];
    this.sizes = new long[k];
    this.lastWordMask = (k & 63) == 0 ? -1L : (1L << (k & 63)) - 1;
  }

  /** ceil(k / 64): the number of 64-bit words per key. */
  public static int wordsPerKey(int k) {
    if (k < 1) {
      throw new IllegalArgumentException("k must be >= 1, was " + k);
    }
    return (k + 63) >>> 6;
  }

  /** Number of parts. */
  public int k() {
    return k;
  }

  /**
   * Copies the bit sets of {@code keys} into {@code out} (length ≥ keys.length·wpk); unknown keys get zeros.
   */
  public void pull(long[] keys, long[] out) {
    checkLength(keys, out, "out");
    for (int j = 0; j < keys.length; j++) {
      int slot = slots.get(keys[j]);
      if (slot < 0) {
        Arrays.fill(out, j * wpk, (j + 1) * wpk, 0L);
      } else {
        System.arraycopy(slab, slot * wpk, out, j * wpk, wpk);
      }
    }
  }

  /** S |= bits for these keys (all-zero bit sets are ignored). */
  public void union(long[] keys, long[] bits) {
    checkLength(keys, bits, "bits");
    for (int j = 0; j < keys.length; j++) {
      int off = j * wpk;
      if (isZeroMasked(bits, off)) {
        continue;
      }
      int base = slotFor(keys[j]) * wpk;
      boolean wasEmpty = isZero(slab, base);
      for (int w = 0; w < wpk; w++) {
        long old = slab[base + w];
        long added = bits[off + w] & mask(w) & ~old;
        if (added != 0) {
          slab[base + w] = old | added;
          countBits(added, w, 1);
        }
      }
      if (wasEmpty) {
        nonEmptyKeys++;
      }
    }
  }

  /** S = bits for these keys: afterwards key {@code keys[j]} is in exactly the parts set in its words. */
  public void replace(long[] keys, long[] bits) {
    checkLength(keys, bits, "bits");
    for (int j = 0; j < keys.length; j++) {
      int off = j * wpk;
      int slot = slots.get(keys[j]);
      if (slot < 0) {
        if (isZeroMasked(bits, off)) {
          continue;
        }
        slot = slotFor(keys[j]);
      }
      int base = slot * wpk;
      boolean wasEmpty = isZero(slab, base);
      for (int w = 0; w < wpk; w++) {
        long old = slab[base + w];
        long now = bits[off + w] & mask(w);
        if (old != now) {
          countBits(now & ~old, w, 1);
          countBits(old & ~now, w, -1);
          slab[base + w] = now;
        }
      }
      boolean isEmpty = isZero(slab, base);
      if (wasEmpty && !isEmpty) {
        nonEmptyKeys++;
      } else if (!wasEmpty && isEmpty) {
        nonEmptyKeys--;
      }
    }
  }

  /** Slot of each key, creating empty entries for unknown keys (fast path for a pull followed by a union). */
  int[] resolve(long[] keys, int[] slotsOut) {
    int[] out = slotsOut != null && slotsOut.length >= keys.length ? slotsOut : new int[keys.length];
    for (int j = 0; j < keys.length; j++) {
      out[j] = slotFor(keys[j]);
    }
    return out;
  }

  /** {@link #pull} by resolved slots. */
  void pullSlots(int[] slotsOf, int count, long[] out) {
    if (wpk == 1) {
      for (int j = 0; j < count; j++) {
        out[j] = slab[slotsOf[j]];
      }
      return;
    }
    for (int j = 0; j < count; j++) {
      System.arraycopy(slab, slotsOf[j] * wpk, out, j * wpk, wpk);
    }
  }

  /** {@link #union} by resolved slots. */
  void unionSlots(int[] slotsOf, int count, long[] bits) {
    for (int j = 0; j < count; j++) {
      int base = slotsOf[j] * wpk;
      int off = j * wpk;
      boolean wasEmpty = true;
      boolean isEmpty = true;
      for (int w = 0; w < wpk; w++) {
        long old = slab[base + w];
        long now = old | (bits[off + w] & mask(w));
        wasEmpty &= old == 0;
        isEmpty &= now == 0;
        if (now != old) {
          slab[base + w] = now;
          countBits(now & ~old, w, 1);
        }
      }
      if (wasEmpty && !isEmpty) {
        nonEmptyKeys++;
      }
    }
  }

  /** Adds one key to S_part. */
  public void add(long key, int part) {
    checkPart(part);
    int base = slotFor(key) * wpk;
    int w = part >>> 6;
    long bit = 1L << part;
    if ((slab[base + w] & bit) == 0) {
      if (isZero(slab, base)) {
        nonEmptyKeys++;
      }
      slab[base + w] |= bit;
      sizes[part]++;
    }
  }

  /** Whether {@code key} ∈ S_part. */
  public boolean contains(long key, int part) {
    checkPart(part);
    int slot = slots.get(key);
    return slot >= 0 && ((slab[slot * wpk + (part >>> 6)] >>> part) & 1L) != 0;
  }

  /** |S_i| for each part i (a fresh array). */
  public long[] setSizes() {
    return sizes.clone();
  }

  /** Calls {@code c} for every key whose set is not empty, in insertion order of the keys. */
  public void forEach(KeyBitsConsumer c) {
    for (int s = 0; s < numSlots; s++) {
      int base = s * wpk;
      if (!isZero(slab, base)) {
        c.accept(keyOfSlot[s], slab, base);
      }
    }
  }

  /** Number of keys that are in at least one S_i. */
  public long numKeys() {
    return nonEmptyKeys;
  }

  /** Removes every key from every set. */
  public void clear() {
    slots.clear();
    numSlots = 0;
    nonEmptyKeys = 0;
    Arrays.fill(sizes, 0L);
    Arrays.fill(slab, 0L);
  }

  /** A deep copy. */
  public NeighborSets copy() {
    NeighborSets c = new NeighborSets(k);
    c.slots.putAll(slots);
    c.slab = Arrays.copyOf(slab, slab.length);
    c.keyOfSlot = Arrays.copyOf(keyOfSlot, keyOfSlot.length);
    c.numSlots = numSlots;
    c.nonEmptyKeys = nonEmptyKeys;
    System.arraycopy(sizes, 0, c.sizes, 0, k);
    return c;
  }

  private int slotFor(long key) {
    int slot = slots.putIfAbsent(key, numSlots);
    if (slot >= 0) {
      return slot;
    }
    slot = numSlots++;
    if (slot == keyOfSlot.length) {
      int cap = (int) Math.min(Integer.MAX_VALUE / (long) wpk - 8, 2L * keyOfSlot.length);
      if (cap <= slot) {
        throw new IllegalStateException("too many keys for k = " + k + ": " + slot);
      }
      keyOfSlot = Arrays.copyOf(keyOfSlot, cap);
      slab = Arrays.copyOf(slab, cap * wpk);
    }
    keyOfSlot[slot] = key;
    return slot;
  }

  private void countBits(long bits, int word, int delta) {
    while (bits != 0) {
      int i = (word << 6) + Long.numberOfTrailingZeros(bits);
      sizes[i] += delta;
      bits &= bits - 1;
    }
  }

  private long mask(int word) {
    return word == wpk - 1 ? lastWordMask : -1L;
  }

  private boolean isZeroMasked(long[] a, int off) {
    for (int w = 0; w < wpk; w++) {
      if ((a[off + w] & mask(w)) != 0) {
        return false;
      }
    }
    return true;
  }

  private boolean isZero(long[] a, int off) {
    for (int w = 0; w < wpk; w++) {
      if (a[off + w] != 0) {
        return false;
      }
    }
    return true;
  }

  private void checkLength(long[] keys, long[] bits, String name) {
    if (bits.length < (long) keys.length * wpk) {
      throw new IllegalArgumentException(name + ".length must be >= keys.length * " + wpk + " = "
          + (long) keys.length * wpk + ", was " + bits.length);
    }
  }

  private void checkPart(int part) {
    if (part < 0 || part >= k) {
      throw new IllegalArgumentException("part must be in [0, " + k + "), was " + part);
    }
  }
}
