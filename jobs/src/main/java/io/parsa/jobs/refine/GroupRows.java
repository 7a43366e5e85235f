package io.parsa.jobs.refine;

import io.parsa.engine.Block;
import it.unimi.dsi.fastutil.doubles.DoubleArrayList;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.ints.IntArrays;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import org.apache.hadoop.mapreduce.TaskInputOutputContext;

/**
 * The rows of one group of parts as its reducer receives them ({@link GroupMapper}), in (block, id) order so that
 * nothing depends on the order the shuffle delivered them in: their blocks, ids and local parts, and the in-memory
 * {@link Block} the engine reads (row i of the block is row i here). Shared by the group cycles
 * ({@link GroupReducer}) and the distributed multilevel start's clustering ({@link CoarsenReducer}).
 */
final class GroupRows {

  final int n;
  final int[] blockOf;
  final long[] ids;
  /** The local part (0..g−1) of every row. */
  final int[] part;
  final Block block;

  private GroupRows(int[] blockOf, long[] ids, int[] part, Block block) {
    this.n = ids.length;
    this.blockOf = blockOf;
    this.ids = ids;
    this.part = part;
    this.block = block;
  }

  /**
   * Reads the group's rows; {@code local[p]} is part p's number in the group, or −1 for a part of another group (such
   * a row is counted as ROW_IN_WRONG_GROUP and left out).
   */
  static GroupRows collect(Iterable<GroupRow> values, int[] local, TaskInputOutputContext<?, ?, ?, ?> context) {
    return collect(values, local, false, context);
  }

  /** {@link #collect}; with {@code weighted} the block carries the rows' weights (rows without one weigh 1). */
  static GroupRows collect(Iterable<GroupRow> values, int[] local, boolean weighted,
      TaskInputOutputContext<?, ?, ?, ?> context) {
    DoubleArrayList weights = new DoubleArrayList();
    IntArrayList blocks = new IntArrayList();
    LongArrayList rowIds = new LongArrayList();
    IntArrayList given = new IntArrayList();
    IntArrayList start = new IntArrayList();
    LongArrayList keys = new LongArrayList();
    start.add(0);
    for (GroupRow r : values) {
      if (local[r.part()] < 0) {
        context.getCounter(MrRefinement.Counters.ROW_IN_WRONG_GROUP).increment(1);
        continue;
      }
      blocks.add(r.block());
      rowIds.add(r.id());
      weights.add(r.weight());
      given.add(local[r.part()]);
      for (int i = 0; i < r.size(); i++) {
        keys.add(r.key(i));
      }
      start.add(keys.size());
      context.progress();
    }
    int n = rowIds.size();
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    IntArrays.quickSort(order, (a, b) -> blocks.getInt(a) != blocks.getInt(b)
        ? Integer.compare(blocks.getInt(a), blocks.getInt(b)) : Long.compare(rowIds.getLong(a), rowIds.getLong(b)));
    int[] blockOf = new int[n];
    long[] ids = new long[n];
    int[] part = new int[n];
    long[] localIds = new long[n];
    double[] w = weighted ? new double[n] : null;
    int[] rowStart = new int[n + 1];
    long[] rowKeys = new long[keys.size()];
    for (int i = 0; i < n; i++) {
      int r = order[i];
      blockOf[i] = blocks.getInt(r);
      ids[i] = rowIds.getLong(r);
      part[i] = given.getInt(r);
      localIds[i] = i;
      if (w != null) {
        w[i] = weights.getDouble(r);
      }
      int s = start.getInt(r);
      int len = start.getInt(r + 1) - s;
      keys.getElements(s, rowKeys, rowStart[i], len);
      rowStart[i + 1] = rowStart[i] + len;
    }
    return new GroupRows(blockOf, ids, part, new Block(localIds, rowStart, rowKeys, w));
  }

  /** The group's parts in part order ({@code groupOf[p] == group}). */
  static int[] partsOf(int[] groupOf, int group) {
    return java.util.stream.IntStream.range(0, groupOf.length).filter(p -> groupOf[p] == group).toArray();
  }

  /** Part p's number in the group ({@code parts}), or −1 for the parts of other groups. */
  static int[] localNumbers(int[] parts, int k) {
    int[] local = new int[k];
    java.util.Arrays.fill(local, -1);
    for (int i = 0; i < parts.length; i++) {
      local[parts[i]] = i;
    }
    return local;
  }
}
