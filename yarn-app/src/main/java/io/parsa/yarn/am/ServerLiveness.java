package io.parsa.yarn.am;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Tells which neighbor-set servers are alive but stuck: a registered server that has not answered a ping, or
 * answered that one push has been running, for longer than the timeout. A server is watched from the moment a
 * new address of it is seen until it is marked down. The clock is injected. Thread-safe.
 */
public final class ServerLiveness {
  private final LongSupplier clock;
  private final long timeoutMs;
  private final long[] lastHealthy;
  private final String[] seen;
  private final boolean[] watched;

  /**
   * @param servers number of servers
   * @param clock milliseconds
   * @param timeoutMs how long a server may go without a healthy answer; 0 or less = never stuck
   */
  public ServerLiveness(int servers, LongSupplier clock, long timeoutMs) {
    this.clock = clock;
    this.timeoutMs = timeoutMs;
    this.lastHealthy = new long[servers];
    this.seen = new String[servers];
    this.watched = new boolean[servers];
    Arrays.fill(seen, "");
  }

  public long timeoutMs() {
    return timeoutMs;
  }

  /** The registry lists {@code address} for server {@code s} (empty: down); a new address starts a new watch. */
  public synchronized void address(int s, String address) {
    if (address.isEmpty()) {
      watched[s] = false;
    } else if (!address.equals(seen[s])) {
      watched[s] = true;
      lastHealthy[s] = clock.getAsLong();
    }
    seen[s] = address;
  }

  /** Server {@code s} is being replaced: stop watching it until a new address is seen. */
  public synchronized void down(int s) {
    watched[s] = false;
  }

  /** Server {@code s} answered a ping; {@code pushAgeMs} is how long its current push has been running (0: none). */
  public synchronized void answered(int s, long pushAgeMs) {
    if (watched[s] && (timeoutMs <= 0 || pushAgeMs <= timeoutMs)) {
      lastHealthy[s] = clock.getAsLong();
    }
  }

  /** Watched servers without a healthy answer for longer than the timeout, ascending. */
  public synchronized List<Integer> stuck() {
    List<Integer> out = new ArrayList<>();
    if (timeoutMs <= 0) {
      return out;
    }
    long now = clock.getAsLong();
    for (int s = 0; s < watched.length; s++) {
      if (watched[s] && now - lastHealthy[s] > timeoutMs) {
        out.add(s);
      }
    }
    return out;
  }
}
