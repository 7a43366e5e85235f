package io.parsa.yarn.am;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DoneLedgerTest {
  @TempDir
  java.nio.file.Path tmp;

  @Test
  void aLaterAttemptReadsBackWhatTheSchedulerRecordedAndResumesFromIt() throws Exception {
    String ckpt = tmp.toString();
    FileSystem fs = FileSystem.getLocal(new Configuration());
    assertNull(DoneLedger.read(fs, ckpt), "no ledger before the first write");

    BlockScheduler first = new BlockScheduler(2, 3, List.of(), List.of(), false, () -> 0L);
    first.fixRowCounts(new long[] {3, 2, 3});
    BlockScheduler.Assignment a = first.next(0);
    first.reserve(0, a.taskId, 3, 3);
    first.done(0, a.taskId, new double[] {2, 1}, new long[] {2, 1}, 3, 7);
    first.ledger().write(fs, ckpt);
    first.ledger().write(fs, ckpt);

    DoneLedger back = DoneLedger.read(fs, ckpt);
    assertEquals(List.of(0), back.blocks);
    assertEquals(3, back.rows);
    assertEquals(7, back.edges);
    assertArrayEquals(new double[] {2, 1}, back.partLoads);
    assertArrayEquals(new long[] {2, 1}, back.partRows);
    assertTrue(!fs.exists(new org.apache.hadoop.fs.Path(ckpt, "._done.json.tmp")), "no temporary file left");

    BlockScheduler second = new BlockScheduler(2, 3, List.of(), List.of(), false, () -> 0L);
    second.fixRowCounts(new long[] {3, 2, 3});
    second.recovered(back);
    BlockScheduler.Assignment b = second.next(1);
    assertEquals(1, b.blockIndex, "block 0 is kept, block 1 comes next");
    assertArrayEquals(new double[] {2, 1}, second.reserve(1, b.taskId, 2, 2), "starts after block 0's 3 rows");
  }
}
