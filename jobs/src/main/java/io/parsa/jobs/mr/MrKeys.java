package io.parsa.jobs.mr;

import org.apache.hadoop.conf.Configuration;

/** Configuration keys shared by the MapReduce steps, each declared once with its default. */
public final class MrKeys {

  /** Number of parts k (int, required by every job that checks or draws parts). */
  public static final String K = "parsa.mr.k";

  /** Seed of the random baseline placement (long). */
  public static final String SEED = "parsa.mr.seed";
  public static final long SEED_DEFAULT = 42L;

  /** Whether the row mapper carries GraphRow.raw and weight through the shuffle (boolean; reshuffle only). */
  public static final String CARRY_RAW = "parsa.mr.join.carry.raw";
  public static final boolean CARRY_RAW_DEFAULT = false;

  /**
   * (key, value) pairs a map task gathers for in-mapper combining before it sorts and emits them (int; 16 bytes a
   * pair, so the default holds 32 MiB; key-usage's map-side join). A block with more row-key pairs flushes
   * several times and the combiner merges what the flushes repeat.
   */
  public static final String MAP_BUFFER_PAIRS = "parsa.mr.map.buffer.pairs";
  public static final int MAP_BUFFER_PAIRS_DEFAULT = 1 << 21;

  private MrKeys() {}

  /** k from the job configuration; fails if absent or not positive. */
  public static int k(Configuration conf) {
    int k = conf.getInt(K, -1);
    if (k < 1) {
      throw new IllegalStateException(K + " is not set in the job configuration");
    }
    return k;
  }

  public static long seed(Configuration conf) {
    return conf.getLong(SEED, SEED_DEFAULT);
  }
}
