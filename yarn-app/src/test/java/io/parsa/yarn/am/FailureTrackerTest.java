package io.parsa.yarn.am;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** FailureTracker with a fake clock: failures leave the window as it slides; a zero window keeps them all. */
class FailureTrackerTest {

  @Test
  void countsOnlyFailuresWithinTheWindow() {
    AtomicLong now = new AtomicLong(1_000);
    FailureTracker t = new FailureTracker(now::get, 60_000);
    assertEquals(1, t.record());
    now.addAndGet(30_000);
    assertEquals(2, t.record());
    now.addAndGet(29_999);
    assertEquals(2, t.recent(), "the first failure is 59,999 ms old: still inside");
    now.addAndGet(1);
    assertEquals(1, t.recent(), "60,000 ms old: out");
    now.addAndGet(30_000);
    assertEquals(0, t.recent());
    assertEquals(1, t.record());
    assertEquals(3, t.total(), "the total never forgets");
  }

  @Test
  void aBurstExceedsTheLimitWhereTheSameFailuresSpreadOutDoNot() {
    AtomicLong now = new AtomicLong();
    FailureTracker spread = new FailureTracker(now::get, 10_000);
    int worst = 0;
    for (int i = 0; i < 10; i++) {
      worst = Math.max(worst, spread.record());
      now.addAndGet(6_000);
    }
    assertEquals(2, worst, "one failure every 6 s never puts more than 2 in a 10 s window");
    FailureTracker burst = new FailureTracker(now::get, 10_000);
    for (int i = 0; i < 4; i++) {
      worst = burst.record();
      now.addAndGet(1_000);
    }
    assertEquals(4, worst);
  }

  @Test
  void aZeroWindowCountsEveryFailureOfTheRun() {
    AtomicLong now = new AtomicLong();
    FailureTracker t = new FailureTracker(now::get, 0);
    t.record();
    now.set(Long.MAX_VALUE / 2);
    assertEquals(2, t.record());
    assertEquals(2, t.recent());
  }
}
