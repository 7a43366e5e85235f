package io.parsa.engine;

/**
 * Seeded 64-bit mixing (the SplitMix64 finaliser): turns (seed, value) into a well-spread hash, so that
 * "hash mod b" is a random-looking, reproducible and balanced choice among b buckets.
 */
public final class Mix64 {

  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private Mix64() {}

  /** The SplitMix64 finaliser: a bijection on 64-bit values with full avalanche. */
  public static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Hash of {@code value} under {@code seed}; different seeds give independent-looking hashes. */
  public static long hash(long seed, long value) {
    return mix(mix(seed + GOLDEN) ^ (value * GOLDEN));
  }

  /** Bucket in {@code [0, buckets)} of {@code value} under {@code seed}. */
  public static int bucket(long seed, long value, int buckets) {
    if (buckets <= 0) {
      throw new IllegalArgumentException("buckets must be positive, got " + buckets);
    }
    return (int) Long.remainderUnsigned(hash(seed, value), buckets);
  }
}
