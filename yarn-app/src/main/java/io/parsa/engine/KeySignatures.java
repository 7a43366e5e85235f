package io.parsa.engine;

import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import it.unimi.dsi.fastutil.objects.Object2IntOpenHashMap;
import java.util.Arrays;

/**
 * Keys grouped by their signature, the set of parts whose working set N(U_i) holds the key. Two keys with one
 * signature are interchangeable for placing V (eq. 8 of the paper only sees u_ij), so the V placement problem is
 * over (signature, count) pairs, usually far fewer than keys.
 *
 * <p>Keys are added in the caller's order and numbered 0, 1, ...; {@link #signatureOfKey(int)} maps them back.
 * Signatures are numbered in order of first appearance.
 */
public final class KeySignatures {
  private final int k;
  private final int wpk;
  private final Object2IntOpenHashMap<Words> ids = new Object2IntOpenHashMap<>();
  private final LongArrayList sigWords = new LongArrayList();
  private final IntArrayList sigStart = new IntArrayList();
  private final IntArrayList sigParts = new IntArrayList();
  private final LongArrayList sigCount = new LongArrayList();
  private final IntArrayList keySig = new IntArrayList();
  private final Words probe;

  /** An empty table for k parts. */
  public KeySignatures(int k) {
    if (k < 1) {
      throw new IllegalArgumentException("k must be >= 1, was " + k);
    }
    this.k = k;
    this.wpk = NeighborSets.wordsPerKey(k);
    this.probe = new Words(new long[wpk]);
    ids.defaultReturnValue(-1);
    sigStart.add(0);
  }

  public int k() {
    return k;
  }

  /** Adds one key used by the parts {@code parts[0..n)} (distinct, each in [0, k)); returns its signature. */
  public int add(long[] parts, int n) {
    Arrays.fill(probe.w, 0L);
    for (int t = 0; t < n; t++) {
      long p = parts[t];
      if (p < 0 || p >= k) {
        throw new IllegalArgumentException("part " + p + " outside [0, " + k + ")");
      }
      probe.w[(int) (p >>> 6)] |= 1L << p;
    }
    return intern();
  }

  /** Adds one key whose usage bit set is {@code words[off .. off + wordsPerKey(k))}; returns its signature. */
  public int addBits(long[] words, int off) {
    System.arraycopy(words, off, probe.w, 0, wpk);
    int rest = k & 63;
    if (rest != 0) {
      probe.w[wpk - 1] &= (1L << rest) - 1;
    }
    return intern();
  }

  private int intern() {
    probe.rehash();
    int id = ids.getInt(probe);
    if (id < 0) {
      id = sigCount.size();
      Words copy = new Words(probe.w.clone());
      copy.rehash();
      ids.put(copy, id);
      for (long x : copy.w) {
        sigWords.add(x);
      }
      for (int w = 0; w < wpk; w++) {
        long bits = copy.w[w];
        while (bits != 0) {
          sigParts.add((w << 6) + Long.numberOfTrailingZeros(bits));
          bits &= bits - 1;
        }
      }
      sigStart.add(sigParts.size());
      sigCount.add(0);
    }
    sigCount.set(id, sigCount.getLong(id) + 1);
    keySig.add(id);
    return id;
  }

  /** Number of keys added. */
  public int numKeys() {
    return keySig.size();
  }

  /** Number of distinct signatures. */
  public int numSignatures() {
    return sigCount.size();
  }

  /** Signature of the key added {@code key}-th. */
  public int signatureOfKey(int key) {
    return keySig.getInt(key);
  }

  /** Keys with signature {@code s}. */
  public long count(int s) {
    return sigCount.getLong(s);
  }

  /** Number of parts in signature {@code s}. */
  public int size(int s) {
    return sigStart.getInt(s + 1) - sigStart.getInt(s);
  }

  /** The {@code t}-th part (ascending) of signature {@code s}. */
  public int part(int s, int t) {
    return sigParts.getInt(sigStart.getInt(s) + t);
  }

  /** Bit set of signature {@code s} restricted to the first 64 parts (the whole set when k ≤ 64). */
  public long lowWord(int s) {
    return sigWords.getLong((long) s * wpk > Integer.MAX_VALUE ? 0 : s * wpk);
  }

  /** |N(U_i)| per part: the number of keys whose signature holds i. */
  public long[] workingSets() {
    long[] m = new long[k];
    for (int s = 0; s < numSignatures(); s++) {
      for (int t = 0; t < size(s); t++) {
        m[part(s, t)] += count(s);
      }
    }
    return m;
  }

  /** A long[] of bits with a cached hash, usable as a hash-map key. */
  private static final class Words {
    final long[] w;
    int hash;

    Words(long[] w) {
      this.w = w;
    }

    void rehash() {
      long h = 0x9E3779B97F4A7C15L;
      for (long x : w) {
        h = Mix64.mix(h ^ x);
      }
      hash = (int) (h ^ (h >>> 32));
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Words other && Arrays.equals(w, other.w);
    }
  }
}
