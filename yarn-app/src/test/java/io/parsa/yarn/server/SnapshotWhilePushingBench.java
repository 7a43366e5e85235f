package io.parsa.yarn.server;

import io.parsa.yarn.rpc.Packed;

import io.parsa.avro.rpc.PushRequest;
import io.parsa.yarn.rpc.Longs;
import java.nio.file.Files;
import java.util.SplittableRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Measures (not a test) what a snapshot costs the pushes that arrive meanwhile, and what the push log costs a
 * push: fills one server shard with N keys through logged pushes, then keeps pushing 65,536-key batches while a
 * snapshot runs and reports the push latencies. Usage: {@code SnapshotWhilePushingBench K N [dir]} (dir: where
 * the log and snapshot go; default a new temporary directory on the local file system).
 */
public final class SnapshotWhilePushingBench {
  private SnapshotWhilePushingBench() {}

  public static void main(String[] args) throws Exception {
    int k = Integer.parseInt(args[0]);
    long n = Long.parseLong(args[1]);
    Configuration conf = new Configuration();
    Path dir = args.length > 2 ? new Path(args[2])
        : new Path(Files.createTempDirectory("parsa-snapshot-bench").toUri());
    FileSystem fs = dir.getFileSystem(conf);
    fs.mkdirs(dir);
    int wpk = (k + 63) >>> 6;
    int batch = 1 << 16;
    NeighborSetService s = new NeighborSetService(0, 1, k, "s", batch, fs, dir);
    s.restore();
    s.startLog();
    SplittableRandom rnd = new SplittableRandom(7);
    long seq = 0;
    long t0 = System.nanoTime();
    for (long done = 0; done < n; done += batch) {
      push(s, ++seq, rnd, batch, k, wpk);
    }
    double fillSec = (System.nanoTime() - t0) / 1e9;
    System.out.printf("fill: %d keys (k=%d) in %d logged pushes of %d keys: %.1f s, %.2f ms per push%n",
        s.stats().getNumKeys(), k, seq, batch, fillSec, fillSec * 1000 / seq);
    double[] idle = pushFor(s, seq, rnd, batch, k, wpk, 20, null);
    seq += 20;
    System.out.printf("no snapshot: 20 pushes, mean %.1f ms, max %.1f ms%n", idle[0], idle[1]);
    Thread snap = new Thread(() -> {
      try {
        s.checkpoint();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    long s0 = System.nanoTime();
    snap.start();
    double[] during = pushFor(s, seq, rnd, batch, k, wpk, Integer.MAX_VALUE, snap);
    snap.join();
    System.out.printf("during a %.1f s snapshot: %d pushes, mean %.1f ms, max %.1f ms%n",
        (System.nanoTime() - s0) / 1e9, (long) during[2], during[0], during[1]);
  }

  private static void push(NeighborSetService s, long seq, SplittableRandom rnd, int batch, int k, int wpk)
      throws Exception {
    long[] keys = new long[batch];
    long[] bits = new long[batch * wpk];
    for (int i = 0; i < batch; i++) {
      keys[i] = rnd.nextLong();
      int p = rnd.nextInt(k);
      bits[i * wpk + (p >>> 6)] |= 1L << p;
    }
    s.push(new PushRequest(io.parsa.yarn.rpc.Tokens.worker("s", 0), 0, seq, false,
        Packed.keys(Longs.wrap(keys)), Packed.words(Longs.wrap(bits)), -1));
  }

  /** Pushes until {@code max} pushes or until {@code until} ends; returns mean ms, max ms, count. */
  private static double[] pushFor(NeighborSetService s, long seq, SplittableRandom rnd, int batch, int k, int wpk,
      int max, Thread until) throws Exception {
    double sum = 0;
    double worst = 0;
    int count = 0;
    while (count < max && (until == null || until.isAlive())) {
      long a = System.nanoTime();
      push(s, ++seq, rnd, batch, k, wpk);
      double ms = (System.nanoTime() - a) / 1e6;
      sum += ms;
      worst = Math.max(worst, ms);
      count++;
    }
    return new double[] {count == 0 ? 0 : sum / count, worst, count};
  }
}
