package io.parsa.yarn.am;

import java.util.ArrayDeque;
import java.util.function.LongSupplier;

/**
 * Counts failures over a sliding time window, so a long run survives occasional failures spread over hours while
 * a burst still stops it. The clock is injected so the window can be tested without waiting. Thread-safe.
 */
public final class FailureTracker {
  private final LongSupplier clock;
  private final long windowMs;
  private final ArrayDeque<Long> times = new ArrayDeque<>();
  private long total;

  /**
   * @param clock milliseconds
   * @param windowMs length of the window; 0 or less = every failure counts for ever
   */
  public FailureTracker(LongSupplier clock, long windowMs) {
    this.clock = clock;
    this.windowMs = windowMs;
  }

  /** Records one failure now; returns the failures within the window, this one included. */
  public synchronized int record() {
    long now = clock.getAsLong();
    times.addLast(now);
    total++;
    expire(now);
    return times.size();
  }

  /** Failures within the window ending now. */
  public synchronized int recent() {
    expire(clock.getAsLong());
    return times.size();
  }

  /** Failures since the start, whatever their age. */
  public synchronized long total() {
    return total;
  }

  private void expire(long now) {
    if (windowMs <= 0) {
      return;
    }
    while (!times.isEmpty() && times.peekFirst() <= now - windowMs) {
      times.removeFirst();
    }
  }
}
