package io.parsa.yarn.am;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** ServerLiveness with a fake clock: silence or one long push makes a server stuck; a new address starts over. */
class ServerLivenessTest {

  @Test
  void silenceOrAStuckPushMakesAServerStuck() {
    AtomicLong now = new AtomicLong(0);
    ServerLiveness l = new ServerLiveness(3, now::get, 1_000);
    l.address(0, "h:1");
    l.address(1, "h:2");
    l.address(2, "");
    now.set(900);
    l.answered(0, 0);
    l.answered(1, 0);
    now.set(1_800);
    l.answered(0, 0); // idle and answering
    l.answered(1, 1_500); // answering, but one push has been running for 1.5 s
    now.set(1_950);
    assertEquals(List.of(1), l.stuck());
    now.set(2_900);
    assertEquals(List.of(0, 1), l.stuck(), "server 0 went silent");
  }

  @Test
  void aRestartedServerIsWatchedAfreshAndADownOneNotAtAll() {
    AtomicLong now = new AtomicLong(0);
    ServerLiveness l = new ServerLiveness(1, now::get, 1_000);
    l.address(0, "h:1");
    now.set(5_000);
    assertEquals(List.of(0), l.stuck());
    l.down(0);
    assertEquals(List.of(), l.stuck(), "being replaced");
    l.address(0, "h:1");
    assertEquals(List.of(), l.stuck(), "the same address again is not a new incarnation");
    l.address(0, "");
    now.set(9_000);
    l.address(0, "h:7");
    assertEquals(List.of(), l.stuck());
    now.set(10_001);
    assertEquals(List.of(0), l.stuck());
  }

  @Test
  void aZeroTimeoutDisablesDetection() {
    AtomicLong now = new AtomicLong(0);
    ServerLiveness l = new ServerLiveness(1, now::get, 0);
    l.address(0, "h:1");
    now.set(Long.MAX_VALUE / 2);
    assertEquals(List.of(), l.stuck());
  }
}
