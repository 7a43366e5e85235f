package io.parsa.yarn.am;

import static io.parsa.yarn.am.BlockScheduler.GateAnswer.PASS;
import static io.parsa.yarn.am.BlockScheduler.GateAnswer.RELEASE;
import static io.parsa.yarn.am.BlockScheduler.GateAnswer.WAIT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.engine.Block;
import io.parsa.engine.ParsaEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Scheduling logic without a cluster: stages, exclusivity of global init, re-queueing, exact balance. */
class BlockSchedulerTest {

  @Test
  void stageZeroRunsOnOneWorkerThenBarrierThenStageOne() {
    BlockScheduler s = new BlockScheduler(2, 4, List.of(2, 3), List.of(1), false, () -> 0L);
    BlockScheduler.Assignment a = s.next(7);
    assertEquals(BlockScheduler.Kind.RUN, a.kind);
    assertEquals(2, a.blockIndex);
    assertEquals(0, a.stage);
    assertEquals(BlockScheduler.Kind.WAIT, s.next(8).kind, "global init belongs to the first worker");
    assertEquals(BlockScheduler.Kind.WAIT, s.next(7).kind, "init blocks run one at a time");
    assertArrayEquals(new double[2], s.reserve(7, a.taskId, 10, 10));
    assertTrue(s.done(7, a.taskId, new double[] {5, 5}, new long[] {5, 5}, 10, 20));
    BlockScheduler.Assignment b = s.next(7);
    assertEquals(3, b.blockIndex);
    assertTrue(s.done(7, b.taskId, new double[2], new long[2], 10, 20));
    BlockScheduler.Assignment w = s.next(8);
    assertEquals(1, w.blockIndex, "warm-up blocks go to any worker");
    assertEquals(BlockScheduler.Kind.WAIT, s.next(7).kind, "stage 1 waits for every stage-0 block");
    s.done(8, w.taskId, new double[2], new long[2], 10, 20);
    assertEquals(1, s.stage());
    assertArrayEquals(new double[2], s.committedLoads(), "stage-0 loads are dropped");
    List<Integer> seen = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      BlockScheduler.Assignment x = s.next(i % 2);
      assertEquals(1, x.stage);
      seen.add(x.blockIndex);
      s.reserve(i % 2, x.taskId, 3, 3);
      s.done(i % 2, x.taskId, new double[] {2, 1}, new long[] {2, 1}, 3, 9);
    }
    assertEquals(List.of(0, 1, 2, 3), seen);
    assertTrue(s.finished());
    assertEquals(BlockScheduler.Kind.STOP, s.next(0).kind);
  }

  /**
   * In waves the warm-up blocks run one at a time on any worker, each with its place in stage 0 (init blocks first),
   * which a block handed out again keeps, and which tells apart a block that comes twice (more warm-up blocks than
   * blocks wrap around); stage 1's blocks have none.
   */
  @Test
  void inWavesWarmUpBlocksRunOneAtATimeOnAnyWorker() {
    BlockScheduler waves = new BlockScheduler(2, 4, List.of(0), List.of(1, 2, 3, 0), false, () -> 0L);
    waves.useWaves(2);
    BlockScheduler.Assignment init = waves.next(7);
    assertEquals(0, init.stage0Position);
    assertTrue(waves.done(7, init.taskId, new double[2], new long[2], 10, 20));
    BlockScheduler.Assignment w1 = waves.next(8);
    assertEquals(1, w1.blockIndex);
    assertEquals(1, w1.stage0Position);
    assertEquals(BlockScheduler.Kind.WAIT, waves.next(7).kind, "the next warm-up block waits for this one's push");
    assertTrue(waves.done(8, w1.taskId, new double[2], new long[2], 10, 20));
    BlockScheduler.Assignment w2 = waves.next(7);
    assertEquals(2, w2.blockIndex, "then goes to whichever worker asks");
    // a lost warm-up block runs again before the next one, at the same place
    waves.workerLost(7);
    BlockScheduler.Assignment again = waves.next(8);
    assertEquals(2, again.blockIndex);
    assertEquals(2, again.stage0Position);
    assertEquals(BlockScheduler.Kind.WAIT, waves.next(9).kind);
    assertTrue(waves.done(8, again.taskId, new double[2], new long[2], 10, 20));
    BlockScheduler.Assignment w3 = waves.next(8);
    assertTrue(waves.done(8, w3.taskId, new double[2], new long[2], 10, 20));
    BlockScheduler.Assignment twice = waves.next(8);
    assertEquals(0, twice.blockIndex, "block 0 again, as the last warm-up block");
    assertEquals(4, twice.stage0Position);
    assertTrue(waves.done(8, twice.taskId, new double[2], new long[2], 10, 20));
    assertEquals(-1, waves.next(8).stage0Position, "stage 1");

    // without waves they run side by side (the paper's asynchronous individual initialisation)
    BlockScheduler async = new BlockScheduler(2, 4, List.of(), List.of(1, 2), false, () -> 0L);
    assertEquals(1, async.next(7).blockIndex);
    assertEquals(2, async.next(8).blockIndex);
  }

  /** A scheduler of k = 2 for {@code blocks} stage-1 blocks in waves of two. */
  private static BlockScheduler inWavesOfTwo(int blocks) {
    BlockScheduler s = new BlockScheduler(2, blocks, List.of(), List.of(), false, () -> 0L);
    s.useWaves(2);
    return s;
  }

  @Test
  void wavesGateThePullOnEarlierWavesAndThePushOnTheWavesPulls() {
    BlockScheduler s = new BlockScheduler(2, 5, List.of(4), List.of(), false, () -> 0L);
    s.useWaves(2);
    BlockScheduler.Assignment init = s.next(0);
    assertEquals(PASS, s.gate(0, init.taskId, false), "stage 0 is not gated");
    assertEquals(PASS, s.gate(0, init.taskId, true));
    s.reserve(0, init.taskId, 4, 4);
    s.done(0, init.taskId, new double[] {2, 2}, new long[] {2, 2}, 4, 8);
    // waves {0, 1}, {2, 3}, {4}
    BlockScheduler.Assignment b0 = s.next(0);
    BlockScheduler.Assignment b1 = s.next(1);
    BlockScheduler.Assignment b2 = s.next(2);
    assertEquals(List.of(0, 1, 2), List.of(b0.blockIndex, b1.blockIndex, b2.blockIndex));
    assertEquals(PASS, s.gate(0, b0.taskId, false));
    assertEquals(PASS, s.gate(1, b1.taskId, false));
    assertEquals(WAIT, s.gate(2, b2.taskId, false), "wave 1 pulls after every block of wave 0 is done");
    s.reserve(0, b0.taskId, 4, 4);
    assertEquals(WAIT, s.gate(0, b0.taskId, true), "block 1 has not pulled yet");
    s.reserve(1, b1.taskId, 4, 4);
    assertEquals(PASS, s.gate(0, b0.taskId, true));
    assertEquals(PASS, s.gate(1, b1.taskId, true));
    s.done(1, b1.taskId, new double[] {2, 2}, new long[] {2, 2}, 4, 8);
    assertEquals(WAIT, s.gate(2, b2.taskId, false), "block 0 is not done");
    s.done(0, b0.taskId, new double[] {2, 2}, new long[] {2, 2}, 4, 8);
    assertEquals(PASS, s.gate(2, b2.taskId, false));
    s.reserve(2, b2.taskId, 4, 4);
    // block 3's worker is lost before it pulls: block 2 pushes only once the block runs again and pulls
    BlockScheduler.Assignment b3 = s.next(3);
    assertEquals(1, s.workerLost(3));
    assertEquals(WAIT, s.gate(2, b2.taskId, true));
    BlockScheduler.Assignment again = s.next(1);
    assertEquals(3, again.blockIndex);
    assertEquals(PASS, s.gate(1, again.taskId, false));
    assertEquals(WAIT, s.gate(2, b2.taskId, true));
    s.reserve(1, again.taskId, 4, 4);
    assertEquals(PASS, s.gate(2, b2.taskId, true));
    assertThrows(IllegalArgumentException.class, () -> s.gate(3, b3.taskId, true), "a lost task is unknown");
    BlockScheduler.Assignment b4 = s.next(0);
    assertEquals(WAIT, s.gate(0, b4.taskId, false));
    s.done(2, b2.taskId, new double[] {2, 2}, new long[] {2, 2}, 4, 8);
    s.done(1, again.taskId, new double[] {2, 2}, new long[] {2, 2}, 4, 8);
    assertEquals(PASS, s.gate(0, b4.taskId, false));
    s.reserve(0, b4.taskId, 4, 4);
    assertEquals(PASS, s.gate(0, b4.taskId, true), "the last wave holds one block");
  }

  @Test
  void aPullGateWaitingForAQueuedBlockReleasesItsOwn() {
    BlockScheduler s = inWavesOfTwo(6);
    BlockScheduler.Assignment b0 = s.next(0);
    BlockScheduler.Assignment b1 = s.next(1);
    BlockScheduler.Assignment b2 = s.next(0);
    assertEquals(WAIT, s.gate(0, b2.taskId, false), "block 1 runs: wait for it");
    // block 1's worker is lost and no other worker comes: the only worker left must run it
    assertEquals(1, s.workerLost(1));
    assertEquals(RELEASE, s.gate(0, b2.taskId, false));
    assertEquals(1, s.releases());
    assertThrows(IllegalArgumentException.class, () -> s.gate(0, b2.taskId, false), "a released task is gone");
    BlockScheduler.Assignment again = s.next(0);
    assertEquals(1, again.blockIndex, "the lowest block queued goes out first");
    assertEquals(2, s.next(0).blockIndex, "then the released one, in its place");
    assertEquals(PASS, s.gate(0, again.taskId, false));
    s.reserve(0, b0.taskId, 4, 4);
    s.reserve(0, again.taskId, 4, 4);
    assertEquals(PASS, s.gate(0, b0.taskId, true));
    assertEquals(PASS, s.gate(0, again.taskId, true));
  }

  @Test
  void aPushWaitingForItsOwnWorkersUnpulledBlockIsTold() {
    BlockScheduler s = inWavesOfTwo(4);
    BlockScheduler.Assignment b0 = s.next(0);
    BlockScheduler.Assignment b1 = s.next(0);
    s.reserve(0, b0.taskId, 4, 4);
    assertEquals(WAIT, s.gate(0, b0.taskId, true));
    assertTrue(s.waitsOnOwnBlock(0, b0.taskId), "block 1 is the same worker's, not pulled yet");
    s.reserve(0, b1.taskId, 4, 4);
    assertEquals(PASS, s.gate(0, b0.taskId, true));
    assertFalse(s.waitsOnOwnBlock(0, b0.taskId));
    // another worker's unpulled block: the push waits for someone else
    BlockScheduler.Assignment b2 = s.next(1);
    BlockScheduler.Assignment b3 = s.next(0);
    s.done(0, b0.taskId, new double[] {2, 2}, new long[] {2, 2}, 4, 8);
    s.done(0, b1.taskId, new double[] {2, 2}, new long[] {2, 2}, 4, 8);
    s.reserve(0, b3.taskId, 4, 4);
    assertEquals(WAIT, s.gate(0, b3.taskId, true));
    assertFalse(s.waitsOnOwnBlock(0, b3.taskId), "block 2 is worker 1's");
    assertEquals(PASS, s.gate(1, b2.taskId, false));
  }

  @Test
  void withoutWavesEveryGateIsOpen() {
    BlockScheduler s = new BlockScheduler(2, 4, List.of(), List.of(), false, () -> 0L);
    assertEquals(0, s.waveWidth());
    BlockScheduler.Assignment b0 = s.next(0);
    s.next(1);
    s.next(1);
    BlockScheduler.Assignment b3 = s.next(1);
    assertEquals(3, b3.blockIndex);
    assertEquals(PASS, s.gate(1, b3.taskId, false));
    assertEquals(PASS, s.gate(1, b3.taskId, true));
    assertEquals(PASS, s.gate(0, b0.taskId, true));
    assertThrows(IllegalArgumentException.class, () -> s.useWaves(-1));
  }

  @Test
  void lostWorkersBlocksAreHandedOutAgainAndLateReportsIgnored() {
    BlockScheduler s = new BlockScheduler(2, 3, List.of(), List.of(), false, () -> 0L);
    BlockScheduler.Assignment a = s.next(0);
    BlockScheduler.Assignment b = s.next(1);
    s.reserve(0, a.taskId, 10, 10);
    assertEquals(1, s.workerLost(0));
    BlockScheduler.Assignment again = s.next(2);
    assertEquals(a.blockIndex, again.blockIndex);
    assertFalse(s.done(0, a.taskId, new double[] {5, 5}, new long[] {5, 5}, 10, 1),
        "the lost task's report is ignored");
    s.done(1, b.taskId, new double[] {1, 1}, new long[] {1, 1}, 2, 1);
    s.done(2, again.taskId, new double[] {5, 5}, new long[] {5, 5}, 10, 1);
    BlockScheduler.Assignment c = s.next(2);
    s.done(2, c.taskId, new double[] {0, 1}, new long[] {0, 1}, 1, 1);
    assertTrue(s.finished());
    assertArrayEquals(new double[] {6, 7}, s.committedLoads());
  }

  /** Concurrent blocks, random sizes and completion order, the real engine: part sizes end within one row. */
  @Test
  void reservedQuotasKeepPartsWithinOneRowWithTheRealEngine() {
    int k = 7;
    Random rnd = new Random(3);
    int blocks = 30;
    BlockScheduler s = new BlockScheduler(k, blocks, List.of(), List.of(), false, () -> 0L);
    ParsaEngine engine = new ParsaEngine(k);
    List<Object[]> running = new ArrayList<>();
    int worker = 0;
    while (!s.finished()) {
      while (running.size() < 3) {
        BlockScheduler.Assignment a = s.next(worker);
        if (a.kind != BlockScheduler.Kind.RUN) {
          break;
        }
        int n = 1 + rnd.nextInt(200);
        Block blk = randomBlock(rnd, n, 3, 300);
        double[] loads = s.reserve(worker, a.taskId, n, n);
        running.add(new Object[] {a, blk, loads, worker});
        worker = (worker + 1) % 3;
      }
      Object[] r = running.remove(rnd.nextInt(running.size()));
      BlockScheduler.Assignment a = (BlockScheduler.Assignment) r[0];
      Block blk = (Block) r[1];
      double[] loads = (double[]) r[2];
      double[] before = loads.clone();
      double[] quota = LoadQuotas.unitQuota(before, blk.numRows());
      engine.partition(blk, new long[blk.keys().length], loads);
      double[] delta = new double[k];
      for (int i = 0; i < k; i++) {
        delta[i] = loads[i] - before[i];
      }
      assertArrayEquals(quota, delta, "the engine reproduces the reserved quota");
      s.done((Integer) r[3], a.taskId, delta, rowsOf(delta), blk.numRows(), 0);
    }
    double min = Double.MAX_VALUE;
    double max = 0;
    for (double v : s.committedLoads()) {
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
    assertTrue(max - min <= 1, "spread " + (max - min));
  }

  /**
   * With the row counts fixed, block j starts from the loads the sequential engine carries into it, whichever
   * block reserves first; the real engine still ends every part within one row.
   */
  @Test
  void fixedRowCountsGiveSequentialStartingLoadsInAnyReservationOrder() {
    int k = 5;
    long[] rows = {7, 3, 11, 4, 9, 2};
    BlockScheduler s = new BlockScheduler(k, rows.length, List.of(), List.of(), false, () -> 0L);
    s.fixRowCounts(rows);
    List<BlockScheduler.Assignment> handed = new ArrayList<>();
    for (int i = 0; i < rows.length; i++) {
      handed.add(s.next(i % 2));
    }
    // sequential: loads after blocks 0..j-1 (lowest load first, ties to the lowest index)
    double[][] expected = new double[rows.length][];
    double[] carried = new double[k];
    for (int j = 0; j < rows.length; j++) {
      expected[j] = carried.clone();
      double[] q = LoadQuotas.unitQuota(carried, rows[j]);
      for (int i = 0; i < k; i++) {
        carried[i] += q[i];
      }
    }
    ParsaEngine engine = new ParsaEngine(k);
    Random rnd = new Random(5);
    for (int j : new int[] {4, 1, 5, 0, 3, 2}) {
      BlockScheduler.Assignment a = handed.get(j);
      int worker = j % 2;
      double[] loads = s.reserve(worker, a.taskId, rows[j], rows[j]);
      assertArrayEquals(expected[a.blockIndex], loads, "starting loads of block " + a.blockIndex);
      int n = (int) rows[j];
      Block blk = randomBlock(rnd, n, 2, 40);
      double[] before = loads.clone();
      engine.partition(blk, new long[blk.keys().length], loads);
      double[] delta = new double[k];
      for (int i = 0; i < k; i++) {
        delta[i] = loads[i] - before[i];
      }
      assertTrue(s.done(worker, a.taskId, delta, rowsOf(delta), n, 2L * n));
    }
    assertTrue(s.finished());
    assertArrayEquals(carried, s.committedLoads());
    assertEquals(null, s.rowCountMismatch());
  }

  @Test
  void aBlockWhoseRowCountChangedFallsBackToReservationOrder() {
    BlockScheduler s = new BlockScheduler(2, 2, List.of(), List.of(), false, () -> 0L);
    s.fixRowCounts(new long[] {3, 4});
    BlockScheduler.Assignment a = s.next(0);
    BlockScheduler.Assignment b = s.next(1);
    assertArrayEquals(new double[] {2, 1}, s.reserve(1, b.taskId, 4, 4), "block 1 starts after block 0's 3 rows");
    assertArrayEquals(new double[] {2, 2}, s.reserve(0, a.taskId, 5, 5), "reservation-order base after a mismatch");
    assertTrue(s.rowCountMismatch().contains("block 0 has 5 rows but 3 were counted"));
  }

  @Test
  void fixedBlockWeightsGiveTheSameStartingLoadsInWavesInAnyReservationOrder() {
    double[][][] seen = new double[2][][];
    for (int run = 0; run < 2; run++) {
      BlockScheduler s = new BlockScheduler(2, 4, List.of(), List.of(), true, () -> 0L);
      s.useWaves(2);
      s.fixBlockWeights(new double[] {3, 5, 2, 4});
      BlockScheduler.Assignment a = s.next(0);
      BlockScheduler.Assignment b = s.next(1);
      double[][] bases = new double[4][];
      // the second run reserves and finishes the wave's blocks the other way round
      if (run == 0) {
        bases[0] = s.reserve(0, a.taskId, 3, 3);
        bases[1] = s.reserve(1, b.taskId, 5, 5);
      } else {
        bases[1] = s.reserve(1, b.taskId, 5, 5);
        bases[0] = s.reserve(0, a.taskId, 3, 3);
      }
      // the engine may place a weighted block off its quota: the next wave starts from what the blocks did
      double[] loads0 = {3, 0};
      double[] loads1 = {2, 3};
      if (run == 0) {
        s.done(0, a.taskId, loads0, new long[] {1, 0}, 1, 3);
        s.done(1, b.taskId, loads1, new long[] {1, 1}, 2, 5);
      } else {
        s.done(1, b.taskId, loads1, new long[] {1, 1}, 2, 5);
        s.done(0, a.taskId, loads0, new long[] {1, 0}, 1, 3);
      }
      BlockScheduler.Assignment c = s.next(0);
      BlockScheduler.Assignment d = s.next(1);
      bases[3] = s.reserve(1, d.taskId, 3, 4);
      bases[2] = s.reserve(0, c.taskId, 1, 2);
      // block 3's worker is lost after block 2 is done: it runs again from the same loads, not from block 2's
      s.done(0, c.taskId, new double[] {0, 2}, new long[] {0, 1}, 1, 2);
      assertEquals(1, s.workerLost(1));
      BlockScheduler.Assignment again = s.next(0);
      assertEquals(3, again.blockIndex);
      assertArrayEquals(bases[3], s.reserve(0, again.taskId, 3, 4));
      assertTrue(s.blockWeightsFixed());
      seen[run] = bases;
    }
    for (int run = 0; run < 2; run++) {
      assertArrayEquals(new double[] {0, 0}, seen[run][0]);
      assertArrayEquals(new double[] {1.5, 1.5}, seen[run][1], "block 0's quota of weight 3");
      assertArrayEquals(new double[] {5, 3}, seen[run][2], "wave 0's loads as done");
      assertArrayEquals(new double[] {5, 5}, seen[run][3], "block 2's quota of weight 2 on top");
    }
  }

  /**
   * Weighted rows in waves of 2 over 6 blocks: a master that takes over from an earlier attempt's ledger, written
   * after wave 0 and block 2 of wave 1 were done (and read back from its JSON), starts block 3 and the blocks of wave
   * 2 from the same loads as the undisturbed run. A ledger without loads per wave (an older version's) still
   * recovers, its sums counted as closed.
   */
  @Test
  void weightedWavesTakenOverFromALedgerStartFromTheUndisturbedLoads() throws Exception {
    double[] weights = {3, 5, 2, 4, 6, 1};
    double[][] loads = {{3, 0}, {2, 3}, {0, 2}, {3, 1}, {2, 4}, {1, 0}};
    double[][] undisturbed = new double[6][];
    DoneLedger written = null;
    BlockScheduler s = weightedWaves(weights);
    for (int wave = 0; wave < 3; wave++) {
      BlockScheduler.Assignment a = s.next(0);
      BlockScheduler.Assignment b = s.next(1);
      undisturbed[a.blockIndex] = s.reserve(0, a.taskId, 1, weights[a.blockIndex]);
      undisturbed[b.blockIndex] = s.reserve(1, b.taskId, 1, weights[b.blockIndex]);
      s.done(0, a.taskId, loads[a.blockIndex], new long[] {1, 0}, 1, 1);
      if (wave == 1) {
        written = s.ledger(); // block 2 done, block 3 running
      }
      s.done(1, b.taskId, loads[b.blockIndex], new long[] {0, 1}, 1, 1);
    }
    assertTrue(s.finished());
    assertEquals(List.of(0, 1, 2), written.blocks);
    assertEquals(1, written.closedWaves);
    java.io.ByteArrayOutputStream json = new java.io.ByteArrayOutputStream();
    io.parsa.common.JsonFiles.MAPPER.writeValue(json, written);
    DoneLedger read = io.parsa.common.JsonFiles.MAPPER.readValue(json.toByteArray(), DoneLedger.class);

    BlockScheduler t = weightedWaves(weights);
    t.recovered(read);
    BlockScheduler.Assignment three = t.next(0);
    assertEquals(3, three.blockIndex);
    assertArrayEquals(undisturbed[3], t.reserve(0, three.taskId, 1, weights[3]), "block 3 as undisturbed");
    t.done(0, three.taskId, loads[3], new long[] {1, 0}, 1, 1);
    for (int i = 0; i < 2; i++) {
      BlockScheduler.Assignment a = t.next(i);
      assertArrayEquals(undisturbed[a.blockIndex], t.reserve(i, a.taskId, 1, weights[a.blockIndex]),
          "block " + a.blockIndex + " as undisturbed");
      t.done(i, a.taskId, loads[a.blockIndex], new long[] {1, 0}, 1, 1);
    }
    assertTrue(t.finished());
    assertArrayEquals(s.committedLoads(), t.committedLoads(), 1e-12);

    // an older ledger: the sums alone, counted as closed; block 3 then starts from block 2's loads and its quota
    read.closedLoads = null;
    read.openLoads = null;
    read.closedWaves = -1;
    BlockScheduler u = weightedWaves(weights);
    u.recovered(read);
    BlockScheduler.Assignment older = u.next(0);
    double[] base = u.reserve(0, older.taskId, 1, weights[3]);
    assertArrayEquals(new double[] {6, 6}, base, "blocks 0-2 as done, and block 2's quota of weight 2 again");
    assertFalse(java.util.Arrays.equals(undisturbed[3], base));
  }

  private static BlockScheduler weightedWaves(double[] weights) {
    BlockScheduler s = new BlockScheduler(2, weights.length, List.of(), List.of(), true, () -> 0L);
    s.useWaves(2);
    s.fixBlockWeights(weights);
    return s;
  }

  @Test
  void aBlockWhoseWeightChangedFallsBackToReservationOrder() {
    BlockScheduler s = new BlockScheduler(2, 2, List.of(), List.of(), true, () -> 0L);
    s.useWaves(2);
    s.fixBlockWeights(new double[] {2, 2});
    BlockScheduler.Assignment a = s.next(0);
    BlockScheduler.Assignment b = s.next(1);
    assertArrayEquals(new double[] {1, 1}, s.reserve(1, b.taskId, 2, 2), "block 1 after block 0's weight 2");
    assertArrayEquals(new double[] {1, 1}, s.reserve(0, a.taskId, 2, 3), "reservation-order base after a mismatch");
    assertTrue(s.rowCountMismatch().contains("block 0 weighs 3.0 but 2.0 was summed"), s.rowCountMismatch());
    assertFalse(s.blockWeightsFixed());
  }

  @Test
  void blocksRecoveredFromAnEarlierAttemptAreNotHandedOutAgain() {
    BlockScheduler s = new BlockScheduler(2, 4, List.of(), List.of(), false, () -> 0L);
    s.fixRowCounts(new long[] {2, 2, 2, 2});
    DoneLedger earlier = new DoneLedger();
    earlier.blocks = List.of(0, 2);
    earlier.partLoads = new double[] {2, 2};
    earlier.partRows = new long[] {2, 2};
    earlier.rows = 4;
    earlier.edges = 8;
    s.recovered(earlier);
    assertEquals(2, s.progress().blocksDone);
    BlockScheduler.Assignment a = s.next(0);
    BlockScheduler.Assignment b = s.next(1);
    assertEquals(List.of(1, 3), List.of(a.blockIndex, b.blockIndex));
    assertEquals(BlockScheduler.Kind.WAIT, s.next(0).kind);
    assertArrayEquals(new double[] {3, 3}, s.reserve(1, b.taskId, 2, 2), "block 3 starts after 6 rows");
    s.done(1, b.taskId, new double[] {1, 1}, new long[] {1, 1}, 2, 4);
    s.done(0, a.taskId, new double[] {1, 1}, new long[] {1, 1}, 2, 4);
    assertTrue(s.finished());
    assertArrayEquals(new double[] {4, 4}, s.committedLoads());
    assertEquals(List.of(0, 1, 2, 3), s.ledger().blocks);
    assertArrayEquals(new long[] {4, 4}, s.ledger().partRows);
    DoneLedger twice = new DoneLedger();
    twice.blocks = List.of(1, 1);
    twice.partLoads = new double[2];
    twice.partRows = new long[2];
    assertThrows(IllegalArgumentException.class, () -> new BlockScheduler(2, 2, List.of(), List.of(), false,
        () -> 0L).recovered(twice));
  }

  private static long[] rowsOf(double[] loads) {
    long[] r = new long[loads.length];
    for (int i = 0; i < loads.length; i++) {
      r[i] = (long) loads[i];
    }
    return r;
  }

  /** n rows with ids 0..n-1, each with {@code perRow} keys drawn from [0, keyRange). */
  private static Block randomBlock(Random rnd, int n, int perRow, int keyRange) {
    long[] ids = new long[n];
    int[] start = new int[n + 1];
    long[] keys = new long[n * perRow];
    for (int r = 0; r < n; r++) {
      ids[r] = r;
      start[r + 1] = perRow * (r + 1);
      for (int j = 0; j < perRow; j++) {
        keys[perRow * r + j] = rnd.nextInt(keyRange);
      }
    }
    return new Block(ids, start, keys, null);
  }

  @Test
  void weightQuotaFillsTheLowestFirst() {
    double[] q = LoadQuotas.weightQuota(new double[] {0, 4, 10}, 8);
    assertArrayEquals(new double[] {6, 2, 0}, q, 1e-9);
  }
}
