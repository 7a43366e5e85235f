package io.parsa.yarn.am;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** LivenessMonitor with a fake clock: only a worker that holds a block and shows no progress is stuck. */
class LivenessMonitorTest {

  @Test
  void aWorkerHoldingABlockWithoutProgressIsStuck() {
    AtomicLong now = new AtomicLong(0);
    LivenessMonitor m = new LivenessMonitor(now::get, 5_000);
    m.blockStarted(1);
    m.blockStarted(2);
    now.set(4_000);
    m.progress(2); // e.g. a reserve
    now.set(5_001);
    assertEquals(List.of(1), m.stuck());
    now.set(9_001);
    assertEquals(List.of(1, 2), m.stuck());
    m.forget(1);
    assertEquals(List.of(2), m.stuck());
  }

  @Test
  void idleWorkersAndWorkersThatFinishedTheirBlocksAreNeverStuck() {
    AtomicLong now = new AtomicLong(0);
    LivenessMonitor m = new LivenessMonitor(now::get, 1_000);
    m.progress(3); // polling for work, holding nothing
    m.blockStarted(4);
    m.blockStarted(4); // a prefetched second block
    m.blockDone(4);
    now.set(10_000);
    assertEquals(List.of(4), m.stuck(), "one block still held");
    m.blockDone(4);
    assertEquals(List.of(), m.stuck());
  }

  @Test
  void waitingForARestartingServerIsProgress() {
    AtomicLong now = new AtomicLong(0);
    LivenessMonitor m = new LivenessMonitor(now::get, 1_000);
    m.blockStarted(0);
    for (int i = 0; i < 20; i++) {
      now.addAndGet(500);
      m.progress(0); // server-address lookups while the server restarts
      assertEquals(List.of(), m.stuck());
    }
  }

  @Test
  void aZeroTimeoutDisablesDetection() {
    AtomicLong now = new AtomicLong(0);
    LivenessMonitor m = new LivenessMonitor(now::get, 0);
    m.blockStarted(0);
    now.set(Long.MAX_VALUE / 2);
    assertEquals(List.of(), m.stuck());
  }
}
