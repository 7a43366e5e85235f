package io.parsa.jobs.refine;

import io.parsa.jobs.mr.DistinctKeys;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;

/**
 * The rows a chunk task's earlier blocks moved, each as its distinct keys, the part it left and the part it entered:
 * every slice of a later block corrects the count job's counts by them ({@link ChunkReducer}). Up to a budget of keys
 * they are kept in memory; the rest go to a local file (under {@code java.io.tmpdir}, the container's own directory in
 * a YARN task), read through once per slice, so the task's heap does not grow with the rows it moved (at 3·10^7
 * non-zeros a p = 8 job moved about half of each block's 600,000 rows, whose keys outgrew a 410 MiB task in memory).
 */
final class TaskMoves implements Closeable {

  /** What a move does to the counts: called once per (key, left part, entered part) of every move. */
  interface KeyMove {
    void apply(long key, int left, int entered);
  }

  private final long budgetKeys;
  private final LongArrayList keys = new LongArrayList();
  private final IntArrayList start = IntArrayList.of(0);
  private final IntArrayList from = new IntArrayList();
  private final IntArrayList to = new IntArrayList();
  private File spill;
  private DataOutputStream out;
  private long spilled;
  private long spilledKeys;

  /** Moves kept in memory up to {@code budgetKeys} keys in all, the rest in a local file. */
  TaskMoves(long budgetKeys) {
    this.budgetKeys = Math.max(0, budgetKeys);
  }

  /** Adds a move of a row whose distinct keys are {@code rowKeys} from part {@code left} to {@code entered}. */
  void add(DistinctKeys rowKeys, int left, int entered) throws IOException {
    int n = rowKeys.size();
    if (out == null && keys.size() + (long) n <= budgetKeys) { // once one spilled, all do: the order is kept
      for (int i = 0; i < n; i++) {
        keys.add(rowKeys.get(i));
      }
      start.add(keys.size());
      from.add(left);
      to.add(entered);
      return;
    }
    if (out == null) {
      spill = File.createTempFile("parsa-chunk-moves", ".bin");
      spill.deleteOnExit();
      out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(spill.toPath()), 1 << 16));
    }
    out.writeInt(left);
    out.writeInt(entered);
    out.writeInt(n);
    for (int i = 0; i < n; i++) {
      out.writeLong(rowKeys.get(i));
    }
    spilled++;
    spilledKeys += n;
  }

  /** Whether no move was added. */
  boolean isEmpty() {
    return from.isEmpty() && spilled == 0;
  }

  /** The moves added. */
  long size() {
    return from.size() + spilled;
  }

  /** The keys of the moves kept in memory. */
  long keysInMemory() {
    return keys.size();
  }

  /** The heap the moves kept in memory take, by their lists' capacities. */
  long heldBytes() {
    return 8L * keys.elements().length
        + 4L * (start.elements().length + from.elements().length + to.elements().length);
  }

  /** The keys of the moves written to the local file. */
  long spilledKeys() {
    return spilledKeys;
  }

  /** Calls {@code each} for every key of every move added, in memory first, then from the file. */
  void forEachKey(KeyMove each) throws IOException {
    for (int m = 0; m < from.size(); m++) {
      int left = from.getInt(m);
      int entered = to.getInt(m);
      for (int t = start.getInt(m); t < start.getInt(m + 1); t++) {
        each.apply(keys.getLong(t), left, entered);
      }
    }
    if (spilled == 0) {
      return;
    }
    out.flush();
    try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(spill.toPath()),
        1 << 16))) {
      for (long m = 0; m < spilled; m++) {
        int left = in.readInt();
        int entered = in.readInt();
        int n = in.readInt();
        for (int i = 0; i < n; i++) {
          each.apply(in.readLong(), left, entered);
        }
      }
    }
  }

  @Override
  public void close() throws IOException {
    if (out != null) {
      out.close();
      Files.deleteIfExists(spill.toPath());
      out = null;
    }
  }
}
