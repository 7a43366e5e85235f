package io.parsa.jobs.mr;

import io.parsa.engine.Mix64;

/**
 * Seeded 64-bit mixing for the random baselines and row checksums: a SplitMix64 finaliser, so that
 * {@code part(seed, x, k)} is a fixed, well spread function of (seed, x) that every task computes alike.
 */
public final class Mix {

  /** Constant xored into the seed for the random V placement, so random U and random V are independent. */
  public static final long V_SALT = 0x5f3759df9e3779b9L;

  private Mix() {}

  /** SplitMix64 finaliser of {@code x}. */
  public static long mix64(long x) {
    return Mix64.mix(x + 0x9e3779b97f4a7c15L);
  }

  /** A seeded mix of {@code x}: {@code mix64(mix64(seed) ^ x)}. */
  public static long mix(long seed, long x) {
    return mix64(mix64(seed) ^ x);
  }

  /** Seeded pseudo-random part of {@code x} in {@code [0, k)}. */
  public static int part(long seed, long x, int k) {
    return (int) Long.remainderUnsigned(mix(seed, x), k);
  }

  /** Random-U part of row {@code id}: {@code mix(seed, id) mod k}. */
  public static int randomRowPart(long seed, long id, int k) {
    return part(seed, id, k);
  }

  /** Random-V part of key {@code key}: {@code mix(seed ^ V_SALT, key) mod k}. */
  public static int randomKeyPart(long seed, long key, int k) {
    return part(seed ^ V_SALT, key, k);
  }

  /** 64-bit hash of {@code len} bytes from {@code off}, seeded (FNV-1a over the bytes, then a SplitMix64 finish). */
  public static long hashBytes(long seed, byte[] b, int off, int len) {
    long h = 0xcbf29ce484222325L ^ mix64(seed);
    for (int i = off; i < off + len; i++) {
      h ^= (b[i] & 0xff);
      h *= 0x100000001b3L;
    }
    return mix64(h ^ len);
  }
}
