package io.parsa.yarn.am;

import it.unimi.dsi.fastutil.ints.Int2IntOpenHashMap;
import it.unimi.dsi.fastutil.ints.Int2LongOpenHashMap;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Tells which workers are alive but stuck: a worker that holds at least one block and has shown no progress
 * (a block handed to it, a reserve, a done report, a server lookup while it waits for a restarting server) for
 * the timeout. A worker without a block is never stuck (it is waiting for work, which is the master's business).
 * Fed by {@link SchedulerService}, polled by {@link PartitionMaster}; the clock is injected. Thread-safe.
 */
public final class LivenessMonitor {
  private final LongSupplier clock;
  private final long timeoutMs;
  private final Int2LongOpenHashMap lastProgress = new Int2LongOpenHashMap();
  private final Int2IntOpenHashMap holding = new Int2IntOpenHashMap();

  /**
   * @param clock milliseconds
   * @param timeoutMs how long a worker holding a block may show no progress; 0 or less = never stuck
   */
  public LivenessMonitor(LongSupplier clock, long timeoutMs) {
    this.clock = clock;
    this.timeoutMs = timeoutMs;
  }

  public long timeoutMs() {
    return timeoutMs;
  }

  /** The worker did something that shows it is not stuck. */
  public synchronized void progress(int worker) {
    lastProgress.put(worker, clock.getAsLong());
  }

  /** A block was handed to the worker. */
  public synchronized void blockStarted(int worker) {
    progress(worker);
    holding.addTo(worker, 1);
  }

  /** The worker reported one of its blocks done. */
  public synchronized void blockDone(int worker) {
    progress(worker);
    if (holding.addTo(worker, -1) <= 1) {
      holding.remove(worker);
    }
  }

  /** The worker is gone (exited, or declared stuck); its blocks were re-queued. */
  public synchronized void forget(int worker) {
    lastProgress.remove(worker);
    holding.remove(worker);
  }

  /** Workers holding a block with no progress for longer than the timeout, ascending. */
  public synchronized List<Integer> stuck() {
    List<Integer> out = new ArrayList<>();
    if (timeoutMs <= 0) {
      return out;
    }
    long now = clock.getAsLong();
    for (int w : holding.keySet()) {
      if (now - lastProgress.get(w) > timeoutMs) {
        out.add(w);
      }
    }
    out.sort(null);
    return out;
  }
}
