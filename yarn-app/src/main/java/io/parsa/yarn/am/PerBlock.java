package io.parsa.yarn.am;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Runs one I/O task per block on a few daemon threads; the first failure is rethrown as an IOException. */
final class PerBlock {

  /** A task on one block. */
  interface Task<T> {
    T run(int block) throws IOException;
  }

  private PerBlock() {}

  /** The task's results, in the order of {@code blocks}. */
  static <T> List<T> map(List<Integer> blocks, int threads, String threadName, Task<T> task)
      throws IOException, InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(threads, blocks.size())), r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<T>> futures = new ArrayList<>(blocks.size());
      for (int b : blocks) {
        futures.add(pool.submit(() -> task.run(b)));
      }
      List<T> out = new ArrayList<>(blocks.size());
      for (Future<T> f : futures) {
        try {
          out.add(f.get());
        } catch (ExecutionException e) {
          Throwable c = e.getCause();
          throw c instanceof IOException ? (IOException) c : new IOException(c.toString(), c);
        }
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  /** 0 .. n-1. */
  static List<Integer> all(int n) {
    List<Integer> l = new ArrayList<>(n);
    for (int b = 0; b < n; b++) {
      l.add(b);
    }
    return l;
  }
}
