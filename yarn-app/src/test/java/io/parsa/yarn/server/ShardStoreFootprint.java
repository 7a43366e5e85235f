package io.parsa.yarn.server;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * Measures the heap bytes per key of a {@link ShardStore} (not a test): fills a store with n random keys, one
 * random part each, and reports the used heap after a full GC minus the baseline. Usage:
 * {@code java -Xmx4g -cp ... io.parsa.yarn.server.ShardStoreFootprint K N}.
 */
public final class ShardStoreFootprint {
  private ShardStoreFootprint() {}

  public static void main(String[] args) {
    int k = Integer.parseInt(args[0]);
    long n = Long.parseLong(args[1]);
    int wpk = (k + 63) >>> 6;
    MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
    long before = used(mem);
    ShardStore store = new ShardStore(k);
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(1);
    int batch = 1 << 16;
    long[] keys = new long[batch];
    long[] bits = new long[batch * wpk];
    long t0 = System.nanoTime();
    for (long done = 0; done < n; done += batch) {
      java.util.Arrays.fill(bits, 0L);
      for (int i = 0; i < batch; i++) {
        keys[i] = rnd.nextLong();
        int p = rnd.nextInt(k);
        bits[i * wpk + (p >>> 6)] |= 1L << p;
      }
      store.push(keys, bits, false);
    }
    long pushMs = (System.nanoTime() - t0) / 1_000_000;
    keys = null;
    bits = null;
    long after = used(mem);
    long stored = store.numKeys();
    System.out.printf("k=%d keys=%d heap=%d MiB bytes/key=%.1f (estimate %.1f) push=%d ms (%.0f keys/s)%n", k, stored,
        (after - before) >> 20, (after - before) / (double) stored, store.heapBytes() / (double) stored, pushMs,
        stored * 1000.0 / Math.max(1, pushMs));
  }

  private static long used(MemoryMXBean mem) {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return mem.getHeapMemoryUsage().getUsed();
  }
}
