package io.parsa.yarn.am;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.avro.rpc.Task;
import io.parsa.avro.rpc.TaskKind;
import io.parsa.avro.rpc.TaskReport;
import io.parsa.avro.rpc.TaskRequest;
import io.parsa.yarn.JobSpec;
import io.parsa.yarn.ParsaYarnConfig;
import io.parsa.yarn.rpc.Longs;
import io.parsa.yarn.rpc.Tokens;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** The scheduler's RPC face without a network: the master woken at a stage's end, the wait it tells workers. */
class SchedulerServiceTest {

  private static final String SECRET = "scheduler-service-test-secret";

  private static boolean done(SchedulerService s, String token, int worker, Task t) throws Exception {
    return s.taskDone(new TaskReport(token, worker, t.getTaskId(), 1L, 1L, Longs.wrap(new double[] {1, 0}), 1L,
        Longs.wrap(new long[] {1, 0})));
  }

  @Test
  void aDoneReportThatEndsAStageOrTheRunWakesTheMasterAndNoOtherDoes() throws Exception {
    JobSpec job = new JobSpec();
    job.k = 2;
    job.servers = 1;
    job.blockPaths = List.of("b0", "b1");
    // one initialisation block (block 1), then the two blocks of stage 1
    BlockScheduler scheduler = new BlockScheduler(2, 2, List.of(1), List.of(), false, () -> 0L);
    SchedulerService s = new SchedulerService(job, SECRET, scheduler, new ServerRegistry(1), 20);
    AtomicInteger wakes = new AtomicInteger();
    s.onStageEnd(wakes::incrementAndGet);
    String w0 = Tokens.worker(SECRET, 0);
    String w1 = Tokens.worker(SECRET, 1);

    Task init = s.nextTask(new TaskRequest(w0, 0));
    assertEquals(0, init.getStage());
    Task waiting = s.nextTask(new TaskRequest(w1, 1));
    assertEquals(TaskKind.WAIT, waiting.getKind());
    assertEquals(20, waiting.getWaitMs(), "the wait the master was given");
    assertTrue(done(s, w0, 0, init));
    assertEquals(1, wakes.get(), "the end of stage 0");

    Task a = s.nextTask(new TaskRequest(w0, 0));
    Task b = s.nextTask(new TaskRequest(w1, 1));
    assertTrue(done(s, w0, 0, a));
    assertEquals(1, wakes.get(), "a block in the middle of stage 1");
    assertFalse(done(s, w0, 0, a), "a repeated report is not counted");
    assertEquals(1, wakes.get());
    assertTrue(done(s, w1, 1, b));
    assertEquals(2, wakes.get(), "the end of the run");
  }

  @Test
  void theWaitToldToWorkersGrowsWithTheirNumber() {
    Configuration conf = new Configuration(false);
    assertEquals(20, ParsaYarnConfig.amWaitMs(conf, 2));
    assertEquals(500, ParsaYarnConfig.amWaitMs(conf, 500));
    conf.setInt(ParsaYarnConfig.AM_WAIT_MS, 100);
    assertEquals(100, ParsaYarnConfig.amWaitMs(conf, 500));
  }
}
