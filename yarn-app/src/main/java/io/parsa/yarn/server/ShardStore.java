package io.parsa.yarn.server;

import io.parsa.yarn.rpc.KeySharding;
import it.unimi.dsi.fastutil.longs.Long2IntMap;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.objects.ObjectIterator;
import java.io.IOException;
import java.util.Arrays;

/**
 * The neighbor-set bits of one shard: for every stored key, {@code wordsPerKey} 64-bit words whose bit i says
 * whether S_i holds the key. The shard is split by key hash into {@code 2^b} independent sub-maps, each with its
 * own index, word array and lock, so no single Java array or hash table has to hold the whole shard (a fastutil
 * table stops near 8·10^8 keys, a {@code long[]} at 2^31 words) and a snapshot can copy one sub-map at a time
 * while pushes continue on the others.
 *
 * <pre>
 *   key --mix64--> top b bits --> sub-map j
 *
 *   sub-map j:  index (Long2IntOpenHashMap)  key -> slot
 *               words (long[])              | slot 0: w0 .. w(wpk-1) | slot 1: w0 .. | ... |  (slot * wpk + w)
 *               lock  (ReentrantReadWriteLock)
 * </pre>
 *
 * Slot offsets are computed in {@code long} and a sub-map never grows past {@link #maxSlotsPerSubMap}, so no
 * index overflows for any k; the whole shard holds up to {@code 2^b · maxSlotsPerSubMap(wpk)} keys (see
 * {@link #capacity}), far beyond any heap. Thread-safe: every method locks the sub-maps it touches.
 */
public final class ShardStore {
  /** Largest Java array length that every JVM accepts. */
  static final long MAX_ARRAY = Integer.MAX_VALUE - 8;
  /** Most keys one fastutil open hash map holds: its table stops at 2^30 entries, filled to 0.75. */
  static final long MAX_INDEX_KEYS = (long) ((1L << 30) * 0.75f);
  /** Default log2 of the number of sub-maps. */
  public static final int DEFAULT_SUBMAP_BITS = 8;
  private static final int INITIAL_SLOTS = 16;

  private final int k;
  private final int wpk;
  private final int bits;
  private final SubMap[] subMaps;

  public ShardStore(int k) {
    this(k, DEFAULT_SUBMAP_BITS);
  }

  /** @param subMapBits log2 of the number of sub-maps, in [0, 16] */
  public ShardStore(int k, int subMapBits) {
    if (k < 1) {
      throw new IllegalArgumentException("k must be at least 1, got " + k);
    }
    if (subMapBits < 0 || subMapBits > 16) {
      throw new IllegalArgumentException("sub-map bits must be in [0, 16], got " + subMapBits);
    }
    this.k = k;
    this.wpk = (k + 63) >>> 6;
    this.bits = subMapBits;
    this.subMaps = new SubMap[1 << subMapBits];
    long max = maxSlotsPerSubMap(wpk);
    for (int j = 0; j < subMaps.length; j++) {
      subMaps[j] = new SubMap(wpk, max);
    }
  }

  // ---- capacity arithmetic (static, so it can be tested without allocating) --------------------------------

  /** Most keys one sub-map can hold with {@code wpk} words per key: bounded by its index and its word array. */
  static long maxSlotsPerSubMap(int wpk) {
    if (wpk < 1) {
      throw new IllegalArgumentException("words per key must be positive, got " + wpk);
    }
    return Math.min(MAX_INDEX_KEYS, MAX_ARRAY / wpk);
  }

  /** Most keys a shard of {@code 2^subMapBits} sub-maps can hold for {@code k} parts. */
  public static long capacity(int k, int subMapBits) {
    return (1L << subMapBits) * maxSlotsPerSubMap((k + 63) >>> 6);
  }

  /** Offset of word 0 of {@code slot}; a long, so it cannot wrap whatever the slot and k. */
  static long wordOffset(long slot, int wpk) {
    return slot * wpk;
  }

  /**
   * Slot capacity after growing a sub-map of {@code current} slots that needs {@code needed}: 1.5x (at least
   * 16 and {@code needed}), at most {@code max}.
   *
   * @throws IllegalStateException if {@code needed > max}
   */
  static long grownCapacity(long current, long needed, long max) {
    if (needed > max) {
      throw new IllegalStateException("a neighbor-set sub-map is full (" + max + " keys); use more servers");
    }
    long grown = Math.max(needed, Math.max(INITIAL_SLOTS, current + (current >>> 1)));
    return Math.min(max, grown);
  }

  /** Sub-map of {@code key} among {@code 2^bits}: the top bits of its mix (the shard uses its residue). */
  static int subMapOf(long key, int bits) {
    return bits == 0 ? 0 : (int) (KeySharding.mix(key) >>> (64 - bits));
  }

  // ---- data ----------------------------------------------------------------------------------------------

  int k() {
    return k;
  }

  public int wordsPerKey() {
    return wpk;
  }

  public int subMapCount() {
    return subMaps.length;
  }

  public long numKeys() {
    long n = 0;
    for (SubMap m : subMaps) {
      n += m.size();
    }
    return n;
  }

  /** Heap held by the sub-maps' word arrays and indexes (estimate from their capacities), bytes. */
  public long heapBytes() {
    long b = 0;
    for (SubMap m : subMaps) {
      b += m.heapBytes();
    }
    return b;
  }

  /** Key indices of {@code keys} grouped by sub-map: {@code order[start[j] .. start[j+1])} belong to sub-map j. */
  private int[][] group(long[] keys) {
    int n = subMaps.length;
    int[] sub = new int[keys.length];
    int[] start = new int[n + 1];
    for (int i = 0; i < keys.length; i++) {
      sub[i] = subMapOf(keys[i], bits);
      start[sub[i] + 1]++;
    }
    for (int j = 0; j < n; j++) {
      start[j + 1] += start[j];
    }
    int[] fill = Arrays.copyOf(start, n);
    int[] order = new int[keys.length];
    for (int i = 0; i < keys.length; i++) {
      order[fill[sub[i]]++] = i;
    }
    return new int[][] {order, start};
  }

  /** Copies the words of {@code keys} into {@code out} (zeros for unknown keys). */
  public void pull(long[] keys, long[] out) {
    int[][] g = group(keys);
    int[] order = g[0];
    int[] start = g[1];
    for (int j = 0; j < subMaps.length; j++) {
      if (start[j] < start[j + 1]) {
        subMaps[j].pull(keys, order, start[j], start[j + 1], out);
      }
    }
  }

  /** S |= bits (union) or S = bits (replace) for each key. */
  public void push(long[] keys, long[] bits, boolean replace) {
    int[][] g = group(keys);
    int[] order = g[0];
    int[] start = g[1];
    for (int j = 0; j < subMaps.length; j++) {
      if (start[j] < start[j + 1]) {
        subMaps[j].push(keys, bits, order, start[j], start[j + 1], replace);
      }
    }
  }

  /** |S_i| within this shard for each part. */
  public long[] setSizes() {
    long[] sizes = new long[k];
    for (SubMap m : subMaps) {
      m.addSetSizes(sizes);
    }
    return sizes;
  }

  /** Visits every key with a non-empty set, one sub-map at a time, each under its read lock. */
  public void forEach(EntryConsumer c) throws IOException {
    for (SubMap m : subMaps) {
      m.forEach(c);
    }
  }

  /**
   * Copies sub-map {@code j} (its lock held only for the copy) into a sorted-by-nothing pair of arrays: keys and
   * their {@code wpk} words each. Snapshots write the copy without holding any lock.
   */
  public Copy copySubMap(int j) {
    return subMaps[j].copy();
  }

  /** A consistent copy of one sub-map. */
  public static final class Copy {
    public final long[] keys;
    public final long[] words;

    Copy(long[] keys, long[] words) {
      this.keys = keys;
      this.words = words;
    }
  }

  /** Receives one key and its words {@code words[offset .. offset + wpk)}. */
  public interface EntryConsumer {
    void accept(long key, long[] words, int offset) throws IOException;
  }

  /** One hash partition of the shard: index, words and lock. */
  private static final class SubMap {
    private final int wpk;
    private final long maxSlots;
    private final Long2IntOpenHashMap index = new Long2IntOpenHashMap(INITIAL_SLOTS);
    private final java.util.concurrent.locks.ReentrantReadWriteLock lock =
        new java.util.concurrent.locks.ReentrantReadWriteLock();
    private long[] words;

    SubMap(int wpk, long maxSlots) {
      this.wpk = wpk;
      this.maxSlots = maxSlots;
      this.words = new long[0];
      index.defaultReturnValue(-1);
    }

    long size() {
      lock.readLock().lock();
      try {
        return index.size();
      } finally {
        lock.readLock().unlock();
      }
    }

    long heapBytes() {
      lock.readLock().lock();
      try {
        // fastutil keeps a long[] and an int[] of the same power-of-two table size (about size / 0.75 rounded up)
        long table = Math.max(INITIAL_SLOTS, Long.highestOneBit((long) (index.size() / 0.75f)) << 1);
        return 8L * words.length + 12L * table;
      } finally {
        lock.readLock().unlock();
      }
    }

    void pull(long[] keys, int[] order, int from, int to, long[] out) {
      lock.readLock().lock();
      try {
        for (int p = from; p < to; p++) {
          int i = order[p];
          int s = index.get(keys[i]);
          int dst = (int) wordOffset(i, wpk);
          if (s >= 0) {
            System.arraycopy(words, (int) wordOffset(s, wpk), out, dst, wpk);
          } else {
            Arrays.fill(out, dst, dst + wpk, 0L);
          }
        }
      } finally {
        lock.readLock().unlock();
      }
    }

    void push(long[] keys, long[] bits, int[] order, int from, int to, boolean replace) {
      lock.writeLock().lock();
      try {
        for (int p = from; p < to; p++) {
          int i = order[p];
          int base = (int) wordOffset(slotFor(keys[i]), wpk);
          int src = (int) wordOffset(i, wpk);
          for (int w = 0; w < wpk; w++) {
            long b = bits[src + w];
            words[base + w] = replace ? b : words[base + w] | b;
          }
        }
      } finally {
        lock.writeLock().unlock();
      }
    }

    private int slotFor(long key) {
      int s = index.get(key);
      if (s >= 0) {
        return s;
      }
      int n = index.size();
      long capacity = words.length / wpk;
      if (n == capacity) {
        long grown = grownCapacity(capacity, n + 1L, maxSlots);
        words = Arrays.copyOf(words, (int) wordOffset(grown, wpk));
      }
      index.put(key, n);
      return n;
    }

    void addSetSizes(long[] sizes) {
      lock.readLock().lock();
      try {
        long used = wordOffset(index.size(), wpk);
        for (int i = 0; i < used; i++) {
          long b = words[i];
          int base = (i % wpk) << 6;
          while (b != 0) {
            sizes[base + Long.numberOfTrailingZeros(b)]++;
            b &= b - 1;
          }
        }
      } finally {
        lock.readLock().unlock();
      }
    }

    void forEach(EntryConsumer c) throws IOException {
      lock.readLock().lock();
      try {
        ObjectIterator<Long2IntMap.Entry> it = index.long2IntEntrySet().fastIterator();
        while (it.hasNext()) {
          Long2IntMap.Entry e = it.next();
          int off = (int) wordOffset(e.getIntValue(), wpk);
          if (nonEmpty(words, off, wpk)) {
            c.accept(e.getLongKey(), words, off);
          }
        }
      } finally {
        lock.readLock().unlock();
      }
    }

    Copy copy() {
      lock.readLock().lock();
      try {
        int n = index.size();
        long[] keys = new long[n];
        ObjectIterator<Long2IntMap.Entry> it = index.long2IntEntrySet().fastIterator();
        while (it.hasNext()) {
          Long2IntMap.Entry e = it.next();
          keys[e.getIntValue()] = e.getLongKey();
        }
        return new Copy(keys, Arrays.copyOf(words, (int) wordOffset(n, wpk)));
      } finally {
        lock.readLock().unlock();
      }
    }
  }

  static boolean nonEmpty(long[] words, int off, int wpk) {
    for (int w = 0; w < wpk; w++) {
      if (words[off + w] != 0) {
        return true;
      }
    }
    return false;
  }
}
