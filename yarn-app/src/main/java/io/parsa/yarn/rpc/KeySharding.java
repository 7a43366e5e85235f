package io.parsa.yarn.rpc;

/** Maps a key to the neighbor-set server (shard) that owns it: {@code mix(key) mod servers}. */
public final class KeySharding {

  private KeySharding() {}

  /** A 64-bit finaliser (SplitMix64) so that clustered keys spread evenly over the shards. */
  public static long mix(long key) {
    long z = key + 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Owner shard of {@code key} among {@code servers} shards. */
  public static int shard(long key, int servers) {
    return servers == 1 ? 0 : (int) Long.remainderUnsigned(mix(key), servers);
  }
}
