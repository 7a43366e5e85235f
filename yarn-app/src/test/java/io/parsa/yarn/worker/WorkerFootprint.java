package io.parsa.yarn.worker;

import io.parsa.yarn.io.BlockData;
import io.parsa.yarn.io.BlockFiles;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.SplittableRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Measures what a worker holds while it partitions one block (not a test): the block being partitioned (its CSR
 * arrays and the engine's renumbered copy), its membership before and after, the push it sends, the assignment
 * arrays, the engine's retained buffers, and the next block already prefetched. Reports the used heap after a full
 * GC minus the baseline, per non-zero and per row of the block. Usage:
 * {@code java -Xmx2g -cp ... io.parsa.yarn.worker.WorkerFootprint K BLOCK.avro}.
 */
public final class WorkerFootprint {
  private WorkerFootprint() {}

  public static void main(String[] args) throws Exception {
    int k = Integer.parseInt(args[0]);
    Path file = new Path(args[1]);
    int wpk = (k + 63) >>> 6;
    FileSystem fs = file.getFileSystem(new Configuration());
    MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
    EnginePartitioner engine = new EnginePartitioner(k);
    long before = used(mem);
    BlockData data = BlockFiles.read(fs, file);
    BlockPartitioner.Prepared b = engine.prepare(data);
    long[] keys = b.keys();
    long[] membership = new long[keys.length * wpk];
    SplittableRandom rnd = new SplittableRandom(1);
    for (int j = 0; j < keys.length; j++) {
      if (rnd.nextInt(2) == 0) {
        int p = rnd.nextInt(k);
        membership[j * wpk + (p >>> 6)] |= 1L << p;
      }
    }
    long[] prior = membership.clone();
    int[] parts = b.partition(membership, new double[k]);
    long[] ids = new long[b.numRows()];
    long[][] push = Worker.nonZero(keys, membership, prior, wpk);
    long one = used(mem) - before;
    BlockData next = BlockFiles.read(fs, file);
    BlockPartitioner.Prepared nextPrepared = engine.prepare(next);
    long two = used(mem) - before;
    long nnz = data.rowKeys.length;
    int rows = data.numRows();
    System.out.printf("k=%d rows=%d nnz=%d keys=%d: one block %d MiB = %.1f bytes/nnz; with the prefetched next block "
        + "%d MiB = %.1f bytes/nnz (%.1f bytes/row)%n", k, rows, nnz, keys.length, one >> 20, one / (double) nnz,
        two >> 20, two / (double) nnz, two / (double) rows);
    // keep everything reachable until measured
    if (parts.length + ids.length + push.length + nextPrepared.numRows() + next.numRows() < 0) {
      System.out.println();
    }
  }

  private static long used(MemoryMXBean mem) {
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return mem.getHeapMemoryUsage().getUsed();
  }
}
