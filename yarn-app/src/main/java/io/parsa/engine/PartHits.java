package io.parsa.engine;

import java.util.Arrays;

/**
 * For one row, how many of its keys each part holds, read from per-key presence bits ({@code present[key·wpk + p/64]}
 * has bit p % 64 set iff part p holds the key, wpk = ⌈k/64⌉), and of how many keys the row is its own part's only
 * user (from the part counts {@code cnt[p·numKeys + key]}): the two terms of every move gain of the U refinement and of
 * the multilevel partitioner. The parts are counted 64 at a time (one pass over the keys per 64 parts), 64 counters
 * bit-sliced over planes with the four low planes in registers (a carry out of them, at most once per 16 keys of a
 * part, ripples on in memory); counting part by part cost a step per part and key and was the refinement's hottest
 * loop. Not thread-safe: one per thread.
 */
final class PartHits {
  /** Planes of a counter: a count is at most a row's degree, an int. */
  private static final int PLANES = 32;

  private final int k;
  private final int wpk;
  private final long[] planes = new long[PLANES];

  PartHits(int k) {
    this.k = k;
    this.wpk = (k + 63) >>> 6;
  }

  /**
   * Sets {@code hits[p]} (p &lt; k) to the number of keys {@code keys[from, to)} that part p holds and returns the
   * number of them whose count in the row's own part is 1, read from {@code cnt[own + key]}: the counts are stored
   * part by part ({@code cnt[p·numKeys + key]}, {@code own} = a·numKeys for part a), so one row's look-ups stay in one
   * part's slice instead of a cache line per key (at k = 256 a key-major table outgrew the caches and these
   * look-ups took most of the multilevel start's time). A negative {@code own} (a row not placed yet) returns 0
   * and {@code cnt} may be null.
   */
  int count(int[] keys, int from, int to, long[] present, int[] cnt, int own, int[] hits) {
    int lose = 0;
    int wpk = this.wpk; // fields in locals: C1 (small inputs) reloads a field at every use
    long[] planes = this.planes;
    for (int w = 0; w < wpk; w++) { // parts 64·w .. 64·w + 63, one pass over the keys each
      long p0 = 0;
      long p1 = 0;
      long p2 = 0;
      long p3 = 0;
      int depth = 4;
      for (int t = from; t < to; t++) {
        int e = keys[t];
        if (w == 0 && own >= 0 && cnt[own + e] == 1) {
          lose++;
        }
        long x = present[e * wpk + w];
        if (x == 0) {
          continue; // no part of this word holds the key (k > 64)
        }
        long c = p0 & x;
        p0 ^= x;
        x = p1 & c;
        p1 ^= c;
        c = p2 & x;
        p2 ^= x;
        x = p3 & c;
        p3 ^= c;
        for (int i = 4; x != 0; i++) {
          c = planes[i] & x;
          planes[i] ^= x;
          x = c;
          depth = Math.max(depth, i + 1);
        }
      }
      planes[0] = p0;
      planes[1] = p1;
      planes[2] = p2;
      planes[3] = p3;
      spill(w, depth, hits);
    }
    return lose;
  }

  /** The counts of parts 64·w .. 64·w + 63 from planes 0..depth−1 into {@code hits}; the planes are cleared. */
  private void spill(int w, int depth, int[] hits) {
    long[] planes = this.planes;
    long held = 0;
    for (int i = 0; i < depth; i++) {
      held |= planes[i];
    }
    int base = w << 6;
    Arrays.fill(hits, base, Math.min(k, base + 64), 0);
    while (held != 0) {
      int b = Long.numberOfTrailingZeros(held);
      held &= held - 1;
      int hb = 0;
      for (int i = 0; i < depth; i++) {
        hb |= (int) ((planes[i] >>> b) & 1L) << i;
      }
      hits[base + b] = hb;
    }
    Arrays.fill(planes, 0, depth, 0L);
  }

  /**
   * As {@link #count(int[], int, int, long[], int[], int, int[])} for keys that weigh {@code weight[key]} each (a level
   * whose identical keys were merged into one; null: every key weighs 1): every count is a sum of weights. The same
   * bit-sliced counters, a key's presence word added at the planes of its weight's set bits.
   */
  int count(int[] keys, int from, int to, long[] present, int[] cnt, int own, int[] hits, int[] weight) {
    if (weight == null) {
      return count(keys, from, to, present, cnt, own, hits);
    }
    int lose = 0;
    int wpk = this.wpk;
    long[] planes = this.planes;
    for (int w = 0; w < wpk; w++) {
      int depth = 0;
      for (int t = from; t < to; t++) {
        int e = keys[t];
        int we = weight[e];
        if (w == 0 && own >= 0 && cnt[own + e] == 1) {
          lose += we;
        }
        long x = present[e * wpk + w];
        if (x == 0) {
          continue;
        }
        for (int rest = we; rest != 0; rest &= rest - 1) {
          long c = x;
          for (int i = Integer.numberOfTrailingZeros(rest); c != 0; i++) {
            long carry = planes[i] & c;
            planes[i] ^= c;
            c = carry;
            depth = Math.max(depth, i + 1);
          }
        }
      }
      spill(w, depth, hits);
    }
    return lose;
  }
}
