package io.parsa.yarn.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.common.JsonFiles;
import io.parsa.common.UsageException;
import io.parsa.yarn.ParsaYarnConfig;
import io.parsa.yarn.io.BlockStats;
import java.io.File;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;

class SizingTest {

  /** Ingest-like statistics of {@code blocks} blocks of {@code rows} rows and {@code nnz} non-zeros each. */
  private static BlockStats stats(int blocks, long rows, long nnz, long distinctKeys) throws Exception {
    File dir = new File(io.parsa.yarn.TestDirs.fresh("sizing").toUri());
    long[] r = new long[blocks];
    long[] n = new long[blocks];
    Arrays.fill(r, rows);
    Arrays.fill(n, nnz);
    Map<String, Object> st = new LinkedHashMap<>();
    st.put("rows", rows * blocks);
    st.put("nonZeros", nnz * blocks);
    st.put("distinctKeys", distinctKeys);
    st.put("rowsPerBlock", r);
    st.put("nonZerosPerBlock", n);
    FileSystem fs = FileSystem.getLocal(new Configuration());
    JsonFiles.write(fs, new Path(dir.getPath(), BlockStats.FILE), st);
    BlockStats.Found f = BlockStats.read(fs, new Path(dir.getPath()), blocks);
    assertTrue(f.stats != null, f.reason);
    return f.stats;
  }

  @Test
  void manyKeysGetSeveralServersEachWithinTheTargetAndEnoughHeap() throws Exception {
    Configuration conf = new Configuration(false);
    // 3e9 keys (the paper's CTRb): ~35 bytes a key at k = 16 is ~100 GB of server state
    BlockStats st = stats(1000, 100_000, 10_000_000, 3_000_000_000L);
    Sizing.Plan p = Sizing.plan(conf, st, 16, 16, -1, 1000);
    assertTrue(p.servers >= 12, "servers " + p.servers);
    assertTrue(p.serverMb <= Sizing.SERVER_TARGET_MB, "server " + p.serverMb);
    assertTrue(ParsaYarnConfig.heapMb(conf, p.serverMb) >= p.serverHeapNeedMb);
    assertTrue(ParsaYarnConfig.heapMb(conf, p.workerMb) >= p.workerHeapNeedMb);
    assertTrue(ParsaYarnConfig.heapMb(conf, p.amMb) >= p.amHeapNeedMb);
    Sizing.check(conf, p, st, 16, 16_384);
  }

  /**
   * The 3·10^8 run's data (5.9·10^7 keys, blocks of 8·10^6 non-zeros) on the 8 GB pseudo-cluster: the server's
   * shard is given room beyond its live size, and a plan that needs more memory at once than the NodeManagers offer
   * is refused with the numbers before submission; a cluster with room passes.
   */
  @Test
  void aPlanLargerThanTheWholeClusterIsRefusedWithTheNumbers() throws Exception {
    Configuration conf = new Configuration(false);
    conf.setLong("yarn.scheduler.minimum-allocation-mb", 256);
    BlockStats st = stats(50, 601_765, 7_984_780, 58_866_691L);
    Sizing.Plan p = Sizing.plan(conf, st, 16, 2, -1, 50);
    // the live shard (~35 bytes a key) fills at most SERVER_LIVE_FRACTION of the server heap
    double live = 58_866_691L * 1.1 * 35 / (1 << 20) / p.servers;
    assertTrue(ParsaYarnConfig.heapMb(conf, p.serverMb) >= live / Sizing.SERVER_LIVE_FRACTION,
        "server heap " + ParsaYarnConfig.heapMb(conf, p.serverMb) + " MB for a " + live + " MB shard");
    long total = Sizing.totalMb(conf, p, 2);
    assertEquals(0, total % 256);
    UsageException e = assertThrows(UsageException.class, () -> Sizing.check(conf, p, st, 16, 8192, 8192, 2));
    assertTrue(e.getMessage().contains("needs " + String.format(java.util.Locale.ROOT, "%,d", total) + " MB at once"),
        e.getMessage());
    assertTrue(e.getMessage().contains("offer 8,192 MB in all"), e.getMessage());
    Sizing.check(conf, p, st, 16, 8192, 12_288, 2);
    Sizing.check(conf, p, st, 16, 8192, -1, 2); // cluster size unknown: not checked
  }

  @Test
  void theWorkerHeapCoversTheMeasuredNeedOfTheLargestBlockOfThe3e8Run() throws Exception {
    Configuration conf = new Configuration(false);
    // the 3e8-non-zero run's largest block: 601,765 rows, 7,984,780 non-zeros; a block of that shape needs an
    // -Xmx of 850 MB at k = 16 to be partitioned while the next is prepared (WorkerFootprint, bisected), plus the
    // fifth of the heap that pushes in flight may take
    BlockStats st = stats(50, 601_765, 7_984_780, 58_049_217);
    Sizing.Plan p = Sizing.plan(conf, st, 16, 16, -1, 50);
    assertTrue(p.workerHeapNeedMb >= 850 / (1 - Sizing.WORKER_PUSH_SHARE), "need " + p.workerHeapNeedMb);
    assertTrue(ParsaYarnConfig.heapMb(conf, p.workerMb) >= p.workerHeapNeedMb, "worker container " + p.workerMb);
    // the container the failed run had (1,024 MB) is refused with the numbers
    conf.setInt(ParsaYarnConfig.WORKER_MEMORY_MB, 1024);
    Sizing.Plan given = Sizing.plan(conf, st, 16, 16, -1, 50);
    UsageException e = assertThrows(UsageException.class, () -> Sizing.check(conf, given, st, 16, 8192));
    assertTrue(e.getMessage().contains("7,984,780 non-zeros"), e.getMessage());
  }

  @Test
  void smallInputGetsTheFloorAndOneServer() throws Exception {
    Configuration conf = new Configuration(false);
    BlockStats st = stats(4, 1000, 10_000, 5_000);
    Sizing.Plan p = Sizing.plan(conf, st, 16, 2, -1, 4);
    assertEquals(1, p.servers);
    assertEquals(Sizing.FLOOR_MB, p.serverMb);
    assertEquals(Sizing.FLOOR_MB, p.workerMb);
    assertEquals(Sizing.FLOOR_MB, p.amMb);
  }

  @Test
  void explicitOptionsWinButAreRefusedWithTheNumbersWhenTheyCannotFit() throws Exception {
    Configuration conf = new Configuration(false);
    conf.setInt(ParsaYarnConfig.WORKER_MEMORY_MB, 256);
    conf.setInt(ParsaYarnConfig.SERVER_MEMORY_MB, 1024);
    BlockStats st = stats(10, 100_000, 5_000_000, 50_000_000);
    Sizing.Plan p = Sizing.plan(conf, st, 16, 2, 1, 10);
    assertEquals(256, p.workerMb);
    assertEquals(1024, p.serverMb);
    UsageException e = assertThrows(UsageException.class, () -> Sizing.check(conf, p, st, 16, 8192));
    assertTrue(e.getMessage().contains("5,000,000 non-zeros"), e.getMessage());
    assertTrue(e.getMessage().contains("--worker-memory 256 gives 192 MB"), e.getMessage());
    assertTrue(e.getMessage().contains("50,000,000 distinct keys"), e.getMessage());
    assertTrue(e.getMessage().contains("--server-memory 1024 gives 768 MB"), e.getMessage());
    conf.setBoolean(ParsaYarnConfig.SIZING_CHECK, false);
    Sizing.check(conf, p, st, 16, 8192);
  }

  @Test
  void aContainerLargerThanTheClustersLargestAllocationIsRefused() throws Exception {
    Configuration conf = new Configuration(false);
    // one block of 10^8 non-zeros at k = 64: the worker alone needs ~17 GB
    BlockStats st = stats(1, 1_000_000, 100_000_000, 100_000_000);
    Sizing.Plan p = Sizing.plan(conf, st, 64, 1, -1, 1);
    UsageException e = assertThrows(UsageException.class, () -> Sizing.check(conf, p, st, 64, 8192));
    assertTrue(e.getMessage().contains("yarn.scheduler.maximum-allocation-mb = 8192"), e.getMessage());
    assertTrue(e.getMessage().contains("worker container of " + p.workerMb + " MB"), e.getMessage());
  }

  @Test
  void withoutStatisticsTheFixedDefaultsStay() {
    Configuration conf = new Configuration(false);
    Sizing.Plan p = Sizing.plan(conf, null, 16, 2, -1, 8);
    assertEquals(1, p.servers);
    assertEquals(ParsaYarnConfig.DEFAULT_WORKER_MEMORY_MB, p.workerMb);
    assertEquals(ParsaYarnConfig.DEFAULT_SERVER_MEMORY_MB, p.serverMb);
    Sizing.check(conf, p, null, 16, 8192);
  }
}
