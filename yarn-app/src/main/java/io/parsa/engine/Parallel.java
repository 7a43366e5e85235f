package io.parsa.engine;

import java.util.function.IntConsumer;

/** Fork-join of a few tasks on threads of their own, for the engine's parallel passes. */
final class Parallel {
  private Parallel() {
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
