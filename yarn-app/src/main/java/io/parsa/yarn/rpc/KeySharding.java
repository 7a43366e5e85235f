package io.parsa.yarn.rpc;

import io.parsa.engine.Mix64;

/** Maps a key to the neighbor-set server (shard) that owns it: {@code mix(key) mod servers}. */
public final class KeySharding {

  private KeySharding() {}

  /** A 64-bit finaliser (SplitMix64) so that clustered keys spread evenly over the shards. */
  public static long mix(long key) {
    return Mix64.mix(key + 0x9E3779B97F4A7C15L);
  }

  /** Owner shard of {@code key} among {@code servers} shards. */
  public static int shard(long key, int servers) {
    return servers == 1 ? 0 : (int) Long.remainderUnsigned(mix(key), servers);
  }
}
