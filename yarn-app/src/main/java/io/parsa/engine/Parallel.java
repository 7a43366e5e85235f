package io.parsa.engine;

import java.util.Arrays;
import java.util.function.IntConsumer;

/** Fork-join of a few tasks on threads of their own, for the engine's parallel passes. */
final class Parallel {
  private Parallel() {
  }

  /**
   * Bounds of {@code chunks} ranges of the first {@code n} rows of a CSR with row starts {@code start}, cut where the
   * entries are about equal: range c is rows bounds[c] .. bounds[c + 1] − 1.
   */
  static int[] ranges(int[] start, int n, int chunks) {
    int[] bounds = new int[chunks + 1];
    bounds[chunks] = n;
    long total = start[n] - start[0];
    for (int c = 1; c < chunks; c++) {
      long target = start[0] + total * c / chunks;
      int at = Arrays.binarySearch(start, bounds[c - 1], n + 1, (int) target);
      bounds[c] = Math.min(n, Math.max(bounds[c - 1], at >= 0 ? at : -at - 1));
    }
    return bounds;
  }

  /**
   * Runs task(0) … task(n − 1), task(0) on this thread and the others on daemon threads named {@code name-c}; waits
   * for all of them (even when interrupted: the tasks work on the caller's state), then rethrows the first failure.
   */
  static void run(int n, String name, IntConsumer task) {
    if (n == 1) {
      task.accept(0);
      return;
    }
    Thread[] others = new Thread[n - 1];
    Throwable[] failed = new Throwable[n];
    for (int c = 1; c < n; c++) {
      final int chunk = c;
      others[c - 1] = new Thread(() -> {
        try {
          task.accept(chunk);
        } catch (Throwable t) {
          failed[chunk] = t;
        }
      }, name + "-" + c);
      others[c - 1].setDaemon(true);
      others[c - 1].start();
    }
    try {
      task.accept(0);
    } finally {
      boolean interrupted = false;
      for (Thread t : others) {
        while (true) {
          try {
            t.join();
            break;
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    for (Throwable t : failed) {
      if (t instanceof RuntimeException re) {
        throw re;
      }
      if (t instanceof Error err) {
        throw err;
      }
    }
  }
}
