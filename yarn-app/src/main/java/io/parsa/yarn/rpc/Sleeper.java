package io.parsa.yarn.rpc;

import java.io.InterruptedIOException;

/** Retry back-off that keeps the interrupt flag and turns an interrupt into an {@link InterruptedIOException}. */
public final class Sleeper {

  private Sleeper() {}

  /** Sleeps 50 ms, 100 ms, ... up to 2 s depending on the attempt. */
  public static void backoff(int attempt) throws InterruptedIOException {
    sleep(Math.min(2000L, 50L << Math.min(attempt, 6)));
  }

  public static void sleep(long ms) throws InterruptedIOException {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      InterruptedIOException io = new InterruptedIOException("interrupted");
      io.initCause(e);
      throw io;
    }
  }
}
