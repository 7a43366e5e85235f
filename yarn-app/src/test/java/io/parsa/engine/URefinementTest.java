package io.parsa.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class URefinementTest {

  /** Blocks of random rows over {@code cols} keys with a planted cluster structure (so refinement has work). */
  private static List<Block> blocks(SplittableRandom rnd, int nBlocks, int rowsPerBlock, int cols, int clusters) {
    List<Block> out = new ArrayList<>();
    long id = 0;
    for (int b = 0; b < nBlocks; b++) {
      int n = rowsPerBlock + rnd.nextInt(3);
      long[] ids = new long[n];
      int[] start = new int[n + 1];
      List<Long> keys = new ArrayList<>();
      for (int r = 0; r < n; r++) {
        ids[r] = id++;
        int c = rnd.nextInt(clusters);
        int deg = 1 + rnd.nextInt(8);
        for (int d = 0; d < deg; d++) {
          long key = rnd.nextDouble() < 0.8 ? c * (cols / clusters) + rnd.nextInt(cols / clusters) : rnd.nextInt(cols);
          keys.add(key * 7919L);
        }
        start[r + 1] = keys.size();
      }
      out.add(new Block(ids, start, keys.stream().mapToLong(Long::longValue).toArray(), null));
    }
    return out;
  }

  private static int[][] randomParts(SplittableRandom rnd, List<Block> blocks, int k) {
    return PlacementEvaluator.randomPlacement(k, blocks, rnd.nextLong());
  }

  /** Every part's working set counted from scratch (also used by the multilevel partitioner's tests). */
  static long[] recomputedWorkingSets(int k, List<Block> blocks, int[][] parts) {
    PlacementEvaluator.KeyUsage usage = PlacementEvaluator.usage(k, blocks, parts);
    return PlacementEvaluator.evaluate(usage, new int[usage.keys().length]).workingSetSizes();
  }

  private static long maxBase(URefinement ref) {
    long[] m = ref.workingSets();
    long[] s = ref.singleKeys();
    long max = Long.MIN_VALUE;
    for (int i = 0; i < m.length; i++) {
      max = Math.max(max, m[i] - s[i]);
    }
    return max;
  }

  /** Keys used by exactly one part, per part, recomputed from scratch. */
  private static long[] recomputedSingles(int k, List<Block> blocks, int[][] parts) {
    PlacementEvaluator.KeyUsage u = PlacementEvaluator.usage(k, blocks, parts);
    int wpk = (k + 63) >>> 6;
    long[] s = new long[k];
    for (int j = 0; j < u.keys().length; j++) {
      int c = 0;
      int only = -1;
      for (int w = 0; w < wpk; w++) {
        long bits = u.bits()[j * wpk + w];
        c += Long.bitCount(bits);
        if (bits != 0) {
          only = (w << 6) + Long.numberOfTrailingZeros(bits);
        }
      }
      if (c == 1) {
        s[only]++;
      }
    }
    return s;
  }

  private static int[] sizes(int k, int[][] parts) {
    int[] s = new int[k];
    for (int[] p : parts) {
      for (int x : p) {
        s[x]++;
      }
    }
    return s;
  }

  /**
   * A chunk of the rows (two of five blocks) refined among all k parts with the other rows as fixed pins: its working
   * sets are the whole assignment's, recounted from scratch after every round; every part keeps its rows of the chunk;
   * M_max never rises, the whole objective never rises, and the connectivity rounds lower the whole T_sum.
   */
  @Test
  void aChunkRefinedWithTheOtherRowsFixedSeesTheWholeAssignment() {
    int k = 6;
    ChunkCase cc = ChunkCase.of(41, k);
    List<Block> all = cc.all();
    int[][] parts = cc.parts();
    List<Block> chunk = cc.chunk();
    RowKeyGraph g = cc.g();
    int[] fixed = cc.fixed();
    long[] whole = cc.whole();
    long keysInAll = PlacementEvaluator.usage(k, all, parts).keys().length;
    int[][] chunkParts = {parts[0].clone(), parts[1].clone()};
    int[] sizes0 = sizes(k, chunkParts);
    long tSum0 = 2 * (java.util.Arrays.stream(whole).sum() - keysInAll);
    long mMax0 = java.util.Arrays.stream(whole).max().getAsLong();
    // a working set below the chunk's keys its part holds cannot be the whole assignment's
    long[] tooSmall = new long[k];
    int[][] start = chunkParts;
    assertThrows(IllegalArgumentException.class,
        () -> URefinement.ofChunk(k, chunk, g, start, fixed, tooSmall, keysInAll, 1));
    for (double p : new double[] {4, 1}) {
      URefinement ref = URefinement.ofChunk(k, chunk, g, chunkParts, fixed,
          recomputedWorkingSets(k, all, joined(parts, chunkParts)), keysInAll, p);
      for (int round = 0; round < 5; round++) {
        double before = ref.objective();
        long maxBefore = java.util.Arrays.stream(ref.workingSets()).max().getAsLong();
        URefinement.RoundStats st = ref.round();
        chunkParts = ref.parts();
        long[] now = recomputedWorkingSets(k, all, joined(parts, chunkParts));
        assertArrayEquals(now, ref.workingSets(), "round " + round + " at p = " + p);
        assertEquals(2 * (java.util.Arrays.stream(now).sum() - keysInAll), st.tSumIfHome());
        assertTrue(ref.objective() <= before + 1e-9);
        assertTrue(java.util.Arrays.stream(now).max().getAsLong() <= maxBefore);
        assertArrayEquals(sizes0, sizes(k, chunkParts), "swaps only: every part keeps its rows of the chunk");
      }
    }
    long[] end = recomputedWorkingSets(k, all, joined(parts, chunkParts));
    assertTrue(2 * (java.util.Arrays.stream(end).sum() - keysInAll) < tSum0, "T_sum " + tSum0 + " -> "
        + 2 * (java.util.Arrays.stream(end).sum() - keysInAll));
    assertTrue(java.util.Arrays.stream(end).max().getAsLong() <= mMax0);
  }

  /**
   * A chunk of weighted rows (weights 1 to 8, their keys) refined with the other rows fixed: every part's whole weight,
   * the chunk's rows there plus the fixed rows' weight given as the offset, stays in the window at every round while
   * rows move singly too; its working sets are the whole assignment's, M_max and the objective never rise, T_sum falls.
   * An offset that puts a part outside the window is refused.
   */
  @Test
  void aChunkOfWeightedRowsKeepsEveryPartsWholeWeightInTheWindow() {
    int k = 6;
    ChunkCase cc = ChunkCase.of(47, k);
    List<Block> all = cc.all();
    int[][] parts = cc.parts();
    List<Block> chunk = new ArrayList<>();
    for (Block b : cc.chunk()) {
      long[] ids = new long[b.numRows()];
      long[] keys = new long[b.localKeys().length];
      double[] w = new double[b.numRows()];
      for (int r = 0; r < b.numRows(); r++) {
        ids[r] = b.rowId(r);
        w[r] = 1 + (b.rowId(r) * 2_654_435_761L >>> 7) % 8;
      }
      for (int t = 0; t < keys.length; t++) {
        keys[t] = b.keys()[b.localKeys()[t]];
      }
      chunk.add(new Block(ids, b.localRowStart().clone(), keys, w));
    }
    RowKeyGraph g = RowKeyGraph.of(chunk);
    // the other blocks' rows weigh 1 to 8 as well; the whole assignment's weights and a window as wide as the heaviest
    double[] fixedLoads = new double[k];
    double[] whole = new double[k];
    for (int b = 0; b < all.size(); b++) {
      for (int r = 0; r < all.get(b).numRows(); r++) {
        double w = 1 + (all.get(b).rowId(r) * 2_654_435_761L >>> 7) % 8;
        whole[parts[b][r]] += w;
        if (b >= chunk.size()) {
          fixedLoads[parts[b][r]] += w;
        }
      }
    }
    double[] window = URefinement.weightWindow(whole, 8);
    long keysInAll = PlacementEvaluator.usage(k, all, parts).keys().length;
    int[][] chunkParts = {parts[0].clone(), parts[1].clone()};
    long tSum0 = 2 * (java.util.Arrays.stream(cc.whole()).sum() - keysInAll);
    double[] off = fixedLoads.clone();
    off[0] += window[1] - window[0] + 1;
    int[][] start = chunkParts;
    assertThrows(IllegalArgumentException.class, () -> URefinement.ofWeightedChunk(k, chunk, g, start, cc.fixed(),
        cc.whole(), keysInAll, 1, off, window[0], window[1]));
    assertThrows(IllegalArgumentException.class, () -> URefinement.ofChunk(k, chunk, g, start, cc.fixed(),
        cc.whole(), keysInAll, 1));
    boolean countsChanged = false;
    for (double p : new double[] {4, 1}) {
      URefinement ref = URefinement.ofWeightedChunk(k, chunk, g, chunkParts, cc.fixed(),
          recomputedWorkingSets(k, all, joined(parts, chunkParts)), keysInAll, p, fixedLoads, window[0], window[1]);
      for (int round = 0; round < 5; round++) {
        double before = ref.objective();
        long maxBefore = java.util.Arrays.stream(ref.workingSets()).max().getAsLong();
        ref.round();
        int[][] before2 = chunkParts;
        chunkParts = ref.parts();
        countsChanged |= !java.util.Arrays.equals(sizes(k, before2), sizes(k, chunkParts));
        assertArrayEquals(recomputedWorkingSets(k, all, joined(parts, chunkParts)), ref.workingSets());
        assertTrue(ref.objective() <= before + 1e-9);
        assertTrue(java.util.Arrays.stream(ref.workingSets()).max().getAsLong() <= maxBefore);
        double[] w = fixedLoads.clone();
        for (int b = 0; b < chunk.size(); b++) {
          for (int r = 0; r < chunk.get(b).numRows(); r++) {
            w[chunkParts[b][r]] += chunk.get(b).weight(r);
          }
        }
        assertArrayEquals(w, ref.loads(), 1e-9);
        for (int i = 0; i < k; i++) {
          assertTrue(w[i] >= window[0] && w[i] <= window[1], "part " + i + " weighs " + w[i] + " at p = " + p);
        }
      }
    }
    assertTrue(countsChanged, "weighted rows move singly too");
    long[] end = recomputedWorkingSets(k, all, joined(parts, chunkParts));
    assertTrue(2 * (java.util.Arrays.stream(end).sum() - keysInAll) < tSum0);
  }

  /**
   * A chunk of the first blocks V-cycled among all parts with the other blocks' rows fixed
   * ({@link MultilevelPartitioner#chunkVCycle}): its working sets are the whole assignment's recounted, every part keeps
   * its rows of the chunk, T_sum falls and M_max does not rise; the swap rounds with fixed pins go on from its result.
   */
  @Test
  void aChunkVCycledWithTheOtherRowsFixedSeesTheWholeAssignment() {
    int k = 6;
    ChunkCase cc = ChunkCase.of(43, k);
    int[] given = new int[cc.g().numRows()];
    System.arraycopy(cc.parts()[0], 0, given, 0, cc.parts()[0].length);
    System.arraycopy(cc.parts()[1], 0, given, cc.parts()[0].length, cc.parts()[1].length);
    // a coarsest level of 20 vertices per part: the chunk's ~900 rows are clustered before they are placed
    MultilevelPartitioner.Settings coarse = new MultilevelPartitioner.Settings(300, 10, 20, 0.03, 8, 8, 4, 5);
    MultilevelPartitioner mp = new MultilevelPartitioner(k, coarse, s -> { });
    assertThrows(IllegalArgumentException.class, () -> mp.chunkVCycle(cc.g(), given, cc.fixed(), new long[k], null));
    MultilevelPartitioner.Weighted w = mp.chunkVCycle(cc.g(), given, cc.fixed(), cc.whole(), null);
    assertNotNull(w, "the cycle lowers a random placement's working sets");
    int[][] chunkParts = {java.util.Arrays.copyOfRange(w.part(), 0, cc.parts()[0].length),
        java.util.Arrays.copyOfRange(w.part(), cc.parts()[0].length, given.length)};
    long[] now = recomputedWorkingSets(k, cc.all(), joined(cc.parts(), chunkParts));
    assertArrayEquals(now, w.workingSets(), "the whole assignment's working sets");
    assertArrayEquals(sizes(k, new int[][] {cc.parts()[0], cc.parts()[1]}), sizes(k, chunkParts),
        "every part keeps its number of the chunk's rows");
    assertTrue(java.util.Arrays.stream(now).sum() < java.util.Arrays.stream(cc.whole()).sum());
    long mMax = java.util.Arrays.stream(cc.whole()).max().getAsLong();
    assertTrue(java.util.Arrays.stream(now).max().getAsLong() <= mMax);
    // under a cap of its own for every part, each a quarter of the way up to the largest working set, none is crossed
    long[] caps = java.util.Arrays.stream(cc.whole()).map(m -> m + (mMax - m) / 4).toArray();
    MultilevelPartitioner.Weighted capped = mp.chunkVCycle(cc.g(), given, cc.fixed(), cc.whole(), caps);
    assertNotNull(capped);
    long[] cappedSets = recomputedWorkingSets(k, cc.all(), joined(cc.parts(), new int[][] {
        java.util.Arrays.copyOfRange(capped.part(), 0, cc.parts()[0].length),
        java.util.Arrays.copyOfRange(capped.part(), cc.parts()[0].length, given.length)}));
    assertArrayEquals(cappedSets, capped.workingSets());
    for (int p = 0; p < k; p++) {
      assertTrue(cappedSets[p] <= caps[p], "part " + p + ": " + cappedSets[p] + " above its cap " + caps[p]);
    }
    // the swap rounds go on from it with the same fixed counts
    long keysInAll = PlacementEvaluator.usage(k, cc.all(), cc.parts()).keys().length;
    URefinement ref = URefinement.ofChunk(k, cc.chunk(), cc.g(), chunkParts, cc.fixed(), w.workingSets(), keysInAll,
        1);
    ref.round();
    assertArrayEquals(recomputedWorkingSets(k, cc.all(), joined(cc.parts(), ref.parts())), ref.workingSets());
  }

  /**
   * The chunk V-cycle of weighted rows (weights 1 to 8): the chunk's rows in every part stay within that part's own
   * bounds (of different widths, some below the given weight, some above), the working sets are the whole
   * assignment's, T_sum falls, M_max does not rise, and rows move without every part keeping its count; bounds the
   * given parts lie outside of, or missing, are refused.
   */
  @Test
  void aWeightedChunkVCycleKeepsEveryPartsChunkWeightWithinItsBounds() {
    int k = 6;
    ChunkCase cc = ChunkCase.of(53, k);
    int n = cc.g().numRows();
    int[] given = new int[n];
    System.arraycopy(cc.parts()[0], 0, given, 0, cc.parts()[0].length);
    System.arraycopy(cc.parts()[1], 0, given, cc.parts()[0].length, cc.parts()[1].length);
    int[] w = new int[n];
    long[] load = new long[k];
    for (int i = 0; i < n; i++) {
      w[i] = 1 + (int) ((i * 2_654_435_761L >>> 7) % 8);
      load[given[i]] += w[i];
    }
    long[] low = new long[k];
    long[] high = new long[k];
    for (int p = 0; p < k; p++) {
      low[p] = load[p] - 10 - 3 * p; // widths 20 to 35, the given weight off the middle
      high[p] = load[p] + 10;
    }
    MultilevelPartitioner.Settings coarse = new MultilevelPartitioner.Settings(300, 10, 20, 0.03, 8, 8, 4, 5);
    MultilevelPartitioner mp = new MultilevelPartitioner(k, coarse, s -> { });
    assertThrows(IllegalArgumentException.class, () -> mp.chunkVCycle(cc.g(), given, cc.fixed(), cc.whole(), null,
        w, low, null));
    long[] above = low.clone();
    above[2] = load[2] + 1;
    assertNull(mp.chunkVCycle(cc.g(), given, cc.fixed(), cc.whole(), null, w, above, high),
        "a part's given weight below its bounds");
    MultilevelPartitioner.Weighted r = mp.chunkVCycle(cc.g(), given, cc.fixed(), cc.whole(), null, w, low, high);
    assertNotNull(r, "the cycle lowers a random placement's working sets");
    int[][] chunkParts = {java.util.Arrays.copyOfRange(r.part(), 0, cc.parts()[0].length),
        java.util.Arrays.copyOfRange(r.part(), cc.parts()[0].length, n)};
    long[] now = recomputedWorkingSets(k, cc.all(), joined(cc.parts(), chunkParts));
    assertArrayEquals(now, r.workingSets(), "the whole assignment's working sets");
    long[] after = new long[k];
    for (int i = 0; i < n; i++) {
      after[r.part()[i]] += w[i];
    }
    for (int p = 0; p < k; p++) {
      assertTrue(after[p] >= low[p] && after[p] <= high[p], "part " + p + ": " + after[p] + " outside " + low[p] + ".."
          + high[p]);
    }
    assertFalse(java.util.Arrays.equals(sizes(k, new int[][] {cc.parts()[0], cc.parts()[1]}), sizes(k, chunkParts)),
        "weighted rows move without keeping every part's count");
    assertTrue(java.util.Arrays.stream(now).sum() < java.util.Arrays.stream(cc.whole()).sum());
    assertTrue(java.util.Arrays.stream(now).max().getAsLong()
        <= java.util.Arrays.stream(cc.whole()).max().getAsLong());
  }

  /**
   * Five random blocks in random parts, the first two of them the chunk: its graph, the other rows' part counts of its
   * keys, and the whole assignment's working sets.
   */
  private record ChunkCase(List<Block> all, int[][] parts, List<Block> chunk, RowKeyGraph g, int[] fixed,
      long[] whole) {
    static ChunkCase of(long seed, int k) {
      SplittableRandom rnd = new SplittableRandom(seed);
      List<Block> all = blocks(rnd, 5, 300, 600, 12);
      int[][] parts = randomParts(rnd, all, k);
      List<Block> chunk = all.subList(0, 2);
      RowKeyGraph g = RowKeyGraph.of(chunk);
      return new ChunkCase(all, parts, chunk, g, fixedCounts(k, all, parts, chunk.size(), g),
          recomputedWorkingSets(k, all, parts));
    }
  }

  /**
   * The part counts of {@code g}'s keys (the graph's ids, numbered in order of first use) among the rows of the blocks
   * after the first {@code chunkBlocks} of {@code all}: {@code fixed[p·numKeys + key]}.
   */
  private static int[] fixedCounts(int k, List<Block> all, int[][] parts, int chunkBlocks, RowKeyGraph g) {
    it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap idOf = new it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap();
    idOf.defaultReturnValue(-1);
    int t = 0;
    for (Block b : all.subList(0, chunkBlocks)) {
      for (int j = 0; j < b.localKeys().length; j++) {
        idOf.putIfAbsent(b.keys()[b.localKeys()[j]], g.rowKeys()[t++]);
      }
    }
    int nk = g.numKeys();
    int[] fixed = new int[nk * k];
    for (int b = chunkBlocks; b < all.size(); b++) {
      Block blk = all.get(b);
      for (int r = 0; r < blk.numRows(); r++) {
        for (int j = blk.localRowStart()[r]; j < blk.localRowStart()[r + 1]; j++) {
          int id = idOf.get(blk.keys()[blk.localKeys()[j]]);
          if (id >= 0) {
            fixed[parts[b][r] * nk + id]++;
          }
        }
      }
    }
    return fixed;
  }

  /** {@code parts} with its first blocks' parts replaced by {@code chunk}'s. */
  private static int[][] joined(int[][] parts, int[][] chunk) {
    int[][] out = parts.clone();
    System.arraycopy(chunk, 0, out, 0, chunk.length);
    return out;
  }

  /**
   * The buckets read best first through heaps give what a full sort gives, position by position, whether a bucket is
   * read to its bottom, partly or not at all, and with reads of several buckets interleaved; empty and one-element
   * buckets included, and buckets small enough to be sorted outright beside heaps.
   */
  @Test
  void bucketsReadFromTheTopAreInSortedOrder() {
    SplittableRandom rnd = new SplittableRandom(13);
    for (int trial = 0; trial < 200; trial++) {
      int buckets = 1 + rnd.nextInt(6);
      int[] start = new int[buckets + 1];
      for (int x = 0; x < buckets; x++) {
        start[x + 1] = start[x] + (rnd.nextInt(4) == 0 ? rnd.nextInt(2) : rnd.nextInt(1200));
      }
      long[] a = new long[start[buckets]];
      for (int i = 0; i < a.length; i++) {
        a[i] = (long) (rnd.nextInt(50) - 25) << 32 | i; // distinct, many equal high words, negative ones
      }
      long[] expect = a.clone();
      for (int x = 0; x < buckets; x++) {
        java.util.Arrays.sort(expect, start[x], start[x + 1]);
      }
      URefinement.TopDown td = new URefinement.TopDown(a, start);
      int[] next = new int[buckets];
      int[] stop = new int[buckets];
      for (int x = 0; x < buckets; x++) {
        td.heapify(x);
        next[x] = start[x + 1] - 1;
        stop[x] = start[x + 1] - 1 - rnd.nextInt(start[x + 1] - start[x] + 2);
      }
      for (boolean more = true; more; ) {
        more = false;
        for (int x = 0; x < buckets; x++) {
          for (int r = rnd.nextInt(4); r > 0 && next[x] >= Math.max(start[x], stop[x] + 1); r--, next[x]--) {
            assertEquals(expect[next[x]], td.get(x, next[x]), "trial " + trial + ", bucket " + x);
          }
          more |= next[x] >= Math.max(start[x], stop[x] + 1);
        }
      }
    }
  }

  @Test
  void roundsNeverRaiseTheObjectiveNorChangeBalanceNorLoseRows() {
    SplittableRandom rnd = new SplittableRandom(11);
    for (int trial = 0; trial < 12; trial++) {
      // the last trial has k > 64: several words of presence bits per key
      int k = trial == 11 ? 70 : 2 + rnd.nextInt(7);
      List<Block> blocks = trial == 11 ? blocks(rnd, 4, 250, 2000, 10)
          : blocks(rnd, 1 + rnd.nextInt(4), 30 + rnd.nextInt(60), 200, 1 + rnd.nextInt(6));
      int[][] start = randomParts(rnd, blocks, k);
      double exponent = trial % 3 == 0 ? 1.0 : trial % 3 == 1 ? 2.0 : 4.0;
      boolean guard = trial % 2 == 0;
      // every fourth trial holds M_max alone (no floor guard)
      boolean floor = trial % 4 != 2;
      URefinement ref = new URefinement(k, blocks, start, exponent, guard);
      ref.setFloorGuard(floor);
      long mMax0 = java.util.Arrays.stream(ref.workingSets()).max().getAsLong();
      long baseMax0 = maxBase(ref);
      int[] sizes0 = sizes(k, start);
      double f = ref.objective();
      int totalMoves = 0;
      for (int round = 0; round < 6; round++) {
        URefinement.RoundStats st = ref.round();
        totalMoves += st.moves();
        assertTrue(st.objectiveAfter() <= st.objectiveBefore() + 1e-9, "trial " + trial + " round " + round + ": " + st);
        assertEquals(f, st.objectiveBefore(), 1e-6 * Math.max(1, f));
        f = st.objectiveAfter();
        int[][] parts = ref.parts();
        // every row exactly once, with a part in range
        for (int b = 0; b < blocks.size(); b++) {
          assertEquals(blocks.get(b).numRows(), parts[b].length);
          for (int x : parts[b]) {
            assertTrue(x >= 0 && x < k);
          }
        }
        int[] sz = sizes(k, parts);
        assertArrayEquals(sz, ref.sizes());
        int n = 0;
        for (int s : sizes0) {
          n += s;
        }
        for (int i = 0; i < k; i++) {
          assertTrue(Math.abs(sz[i] - sizes0[i]) <= 1, "trial " + trial + ": part " + i + " size " + sizes0[i] + " -> "
              + sz[i]);
          assertTrue(sz[i] >= Math.min(sizes0[i], n / k) && sz[i] <= Math.max(sizes0[i], (n + k - 1) / k));
        }
        assertArrayEquals(recomputedWorkingSets(k, blocks, parts), ref.workingSets(), "trial " + trial);
        assertArrayEquals(recomputedSingles(k, blocks, parts), ref.singleKeys(), "trial " + trial);
        if (guard) {
          assertTrue(st.mMax() <= mMax0, "trial " + trial + ": guarded M_max rose " + mMax0 + " -> " + st.mMax());
          if (floor) {
            assertTrue(maxBase(ref) <= baseMax0, "trial " + trial + ": guarded max base rose");
          }
        }
      }
      assertTrue(totalMoves > 0, "trial " + trial + ": refinement found nothing to improve on a random start");
    }
  }

  /** The same blocks with a weight per row: its key count times a factor from 1 to 4 (heavy rows exist). */
  private static List<Block> weighted(SplittableRandom rnd, List<Block> blocks) {
    List<Block> out = new ArrayList<>();
    for (Block b : blocks) {
      int n = b.numRows();
      long[] ids = new long[n];
      double[] w = new double[n];
      long[] keys = new long[(int) b.numEdges()];
      int[] start = new int[n + 1];
      int e = 0;
      for (int r = 0; r < n; r++) {
        ids[r] = b.rowId(r);
        for (int t = b.localRowStart()[r]; t < b.localRowStart()[r + 1]; t++) {
          keys[e++] = b.keys()[b.localKeys()[t]];
        }
        start[r + 1] = e;
        w[r] = (start[r + 1] - start[r]) * (1 + rnd.nextInt(4)) + 0.25;
      }
      out.add(new Block(ids, start, keys, w));
    }
    return out;
  }

  /** Rows in random order, each to the lightest part so far (partition-u's rule: weights within the heaviest row). */
  private static int[][] lightestPartStart(SplittableRandom rnd, List<Block> blocks, int k) {
    int[][] parts = new int[blocks.size()][];
    double[] load = new double[k];
    for (int b = 0; b < blocks.size(); b++) {
      parts[b] = new int[blocks.get(b).numRows()];
    }
    List<int[]> rows = new ArrayList<>();
    for (int b = 0; b < blocks.size(); b++) {
      for (int r = 0; r < parts[b].length; r++) {
        rows.add(new int[] {b, r});
      }
    }
    for (int i = rows.size() - 1; i > 0; i--) {
      java.util.Collections.swap(rows, i, rnd.nextInt(i + 1));
    }
    for (int[] br : rows) {
      int p = 0;
      for (int i = 1; i < k; i++) {
        if (load[i] < load[p]) {
          p = i;
        }
      }
      parts[br[0]][br[1]] = p;
      load[p] += blocks.get(br[0]).weight(br[1]);
    }
    return parts;
  }

  private static double[] loads(int k, List<Block> blocks, int[][] parts) {
    double[] l = new double[k];
    for (int b = 0; b < blocks.size(); b++) {
      for (int r = 0; r < parts[b].length; r++) {
        l[parts[b][r]] += blocks.get(b).weight(r);
      }
    }
    return l;
  }

  @Test
  void weightedRoundsKeepEveryPartWithinTheHeaviestRowsWeightAndNeverRaiseTheObjective() {
    SplittableRandom rnd = new SplittableRandom(23);
    int movedTrials = 0;
    for (int trial = 0; trial < 10; trial++) {
      int k = 2 + rnd.nextInt(7);
      List<Block> blocks = weighted(rnd, blocks(rnd, 1 + rnd.nextInt(4), 40 + rnd.nextInt(60), 300,
          1 + rnd.nextInt(6)));
      double heaviest = 0;
      int n = 0;
      for (Block b : blocks) {
        n += b.numRows();
        for (int r = 0; r < b.numRows(); r++) {
          heaviest = Math.max(heaviest, b.weight(r));
        }
      }
      int[][] start = lightestPartStart(rnd, blocks, k);
      double[] l0 = loads(k, blocks, start);
      double spread0 = java.util.Arrays.stream(l0).max().getAsDouble() - java.util.Arrays.stream(l0).min().getAsDouble();
      assertTrue(spread0 <= heaviest + 1e-9, "the lightest-part start is within the heaviest row");
      double exponent = trial % 2 == 0 ? 1.0 : 4.0;
      URefinement ref = new URefinement(k, blocks, start, exponent, trial % 3 != 0);
      double[] window = ref.weightBounds();
      assertTrue(window[1] - window[0] <= heaviest + 1e-5, java.util.Arrays.toString(window));
      double f = ref.objective();
      int moves = 0;
      for (int round = 0; round < 5; round++) {
        URefinement.RoundStats st = ref.round();
        moves += st.moves();
        assertTrue(st.objectiveAfter() <= st.objectiveBefore() + 1e-9, "trial " + trial + ": " + st);
        assertEquals(f, st.objectiveBefore(), 1e-6 * Math.max(1, f));
        f = st.objectiveAfter();
        int[][] parts = ref.parts();
        int seen = 0;
        for (int b = 0; b < blocks.size(); b++) {
          assertEquals(blocks.get(b).numRows(), parts[b].length);
          seen += parts[b].length;
        }
        assertEquals(n, seen);
        double[] l = loads(k, blocks, parts);
        assertArrayEquals(l, ref.loads(), 1e-6);
        for (int i = 0; i < k; i++) {
          assertTrue(l[i] >= window[0] && l[i] <= window[1], "trial " + trial + ": part " + i + " weighs " + l[i]
              + ", outside " + java.util.Arrays.toString(window));
        }
        double spread = java.util.Arrays.stream(l).max().getAsDouble() - java.util.Arrays.stream(l).min().getAsDouble();
        assertTrue(spread <= heaviest + 1e-5, "trial " + trial + ": weights spread " + spread + " > " + heaviest);
        assertArrayEquals(recomputedWorkingSets(k, blocks, parts), ref.workingSets(), "trial " + trial);
      }
      movedTrials += moves > 0 ? 1 : 0;
    }
    assertTrue(movedTrials >= 8, "weighted refinement moved rows in only " + movedTrials + " of 10 trials");
  }

  /**
   * Part 0 holds a heavy row H (weight 4) over keys 100..109 and four light rows over keys 0..9; part 1 holds two light
   * rows over H's keys and six over keys 0..4. Every row weighs 1 but H, both parts weigh 8, and the window is 6..10.
   * No single move or one-for-one swap the window takes lowers M_max (20): H alone would leave part 0 at 4, H for one
   * row at 5. H for two rows over keys 0..4 does: part 0 keeps keys 0..9, part 1 already has H's.
   */
  @Test
  void weightedRoundsTradeAHeavyRowForSeveralLightOnesWhereNoSwapFitsTheWindow() {
    int n = 13;
    long[] ids = new long[n];
    int[] start = new int[n + 1];
    List<Long> keys = new ArrayList<>();
    double[] w = new double[n];
    int[][] parts = new int[1][n];
    for (int r = 0; r < n; r++) {
      ids[r] = r;
      int[] range = r == 0 || r == 5 || r == 6 ? new int[] {100, 110} : r <= 4 ? new int[] {0, 10} : new int[] {0, 5};
      for (long key = range[0]; key < range[1]; key++) {
        keys.add(key);
      }
      start[r + 1] = keys.size();
      w[r] = r == 0 ? 4 : 1;
      parts[0][r] = r <= 4 ? 0 : 1;
    }
    List<Block> blocks = List.of(new Block(ids, start, keys.stream().mapToLong(Long::longValue).toArray(), w));
    URefinement ref = new URefinement(2, blocks, parts, 8.0, true);
    assertEquals(20, ref.maxWorkingSet());
    assertArrayEquals(new double[] {6, 10}, ref.weightBounds(), 1e-6);
    URefinement.RoundStats st = ref.round();
    assertTrue(st.objectiveAfter() < st.objectiveBefore(), st.toString());
    assertEquals(15, ref.maxWorkingSet(), java.util.Arrays.toString(ref.parts()[0]));
    double[] l = loads(2, blocks, ref.parts());
    assertArrayEquals(new double[] {6, 10}, l, 1e-9);
    assertArrayEquals(l, ref.loads(), 1e-9);
    assertArrayEquals(recomputedWorkingSets(2, blocks, ref.parts()), ref.workingSets());
  }

  @Test
  void theWeightWindowIsTheHeaviestRowWideOrTheStartsSpread() {
    // spread 2 under a heaviest row of 5: a window of 5 around the mean 11, holding 10 and 12
    double[] w = URefinement.weightWindow(new double[] {10, 12}, 5);
    assertEquals(8.5, w[0], 1e-6);
    assertEquals(13.5, w[1], 1e-6);
    // the mean is near one end: the window shifts to still hold both start weights
    w = URefinement.weightWindow(new double[] {10, 10, 10, 13}, 4);
    assertEquals(9.0, w[0], 1e-6);
    assertEquals(13.0, w[1], 1e-6);
    // a start wider than the heaviest row keeps its own spread (never worse than the start)
    w = URefinement.weightWindow(new double[] {0, 10}, 3);
    assertEquals(0.0, w[0], 1e-6);
    assertEquals(10.0, w[1], 1e-6);
  }

  /**
   * Room (--max-working-set): the guarded connectivity rounds may grow working sets up to it and no further, never
   * raise T_sum, and from the same max-weighted refinement end below the rounds without room in some trials (a local
   * search with more freedom may also end higher); at a larger exponent the room changes no move.
   */
  @Test
  void connectivityRoundsWithRoomGrowWorkingSetsUpToItAndNoFurther() {
    SplittableRandom rnd = new SplittableRandom(23);
    int lower = 0;
    for (int trial = 0; trial < 8; trial++) {
      int k = 2 + rnd.nextInt(7);
      List<Block> blocks = blocks(rnd, 1 + rnd.nextInt(3), 60 + rnd.nextInt(80), 300, 2 + rnd.nextInt(5));
      int[][] start = randomParts(rnd, blocks, k);
      // the max phase, alike with and without room (p = 8: room has no effect)
      URefinement plain = new URefinement(k, blocks, start, 8.0, true);
      URefinement roomy = new URefinement(k, blocks, start, 8.0, true);
      roomy.setRoom(Long.MAX_VALUE / 4);
      for (int round = 0; round < 4; round++) {
        assertEquals(plain.round(), roomy.round(), "trial " + trial + ": room changed a move at p = 8");
      }
      long mMax = java.util.Arrays.stream(plain.workingSets()).max().getAsLong();
      long room = mMax + mMax / 5 + 1;
      plain.setExponent(1.0);
      roomy.setExponent(1.0);
      roomy.setRoom(room);
      int[] sizes0 = sizes(k, roomy.parts());
      long t0 = PlacementEvaluator.evaluate(k, blocks, roomy.parts()).tSum();
      for (int round = 0; round < 8; round++) {
        URefinement.RoundStats p = plain.round();
        URefinement.RoundStats r = roomy.round();
        assertTrue(p.mMax() <= mMax, "trial " + trial + ": guarded M_max rose without room");
        assertTrue(r.mMax() <= room, "trial " + trial + ": M_max " + r.mMax() + " above the room " + room);
        assertTrue(r.objectiveAfter() <= r.objectiveBefore() + 1e-9, "trial " + trial + ": " + r);
        int[] sz = sizes(k, roomy.parts());
        for (int i = 0; i < k; i++) {
          assertTrue(Math.abs(sz[i] - sizes0[i]) <= 1, "trial " + trial + ": part " + i + " lost its balance");
        }
        assertArrayEquals(recomputedWorkingSets(k, blocks, roomy.parts()), roomy.workingSets(), "trial " + trial);
      }
      long tPlain = PlacementEvaluator.evaluate(k, blocks, plain.parts()).tSum();
      long tRoomy = PlacementEvaluator.evaluate(k, blocks, roomy.parts()).tSum();
      assertTrue(tRoomy <= t0, "trial " + trial + ": T_sum rose with room, " + t0 + " -> " + tRoomy);
      if (tRoomy < tPlain) {
        lower++;
      }
    }
    assertTrue(lower > 0, "room never lowered T_sum below the guarded rounds'");
  }

  @Test
  void connectivityObjectiveLowersTotalTrafficOnPlantedClusters() {
    SplittableRandom rnd = new SplittableRandom(5);
    int k = 4;
    List<Block> blocks = blocks(rnd, 3, 200, 400, 4);
    int[][] start = randomParts(rnd, blocks, k);
    long before = PlacementEvaluator.evaluate(k, blocks, start).tSum();
    URefinement ref = new URefinement(k, blocks, start, 1.0, false);
    for (int round = 0; round < 10; round++) {
      ref.round();
    }
    long after = PlacementEvaluator.evaluate(k, blocks, ref.parts()).tSum();
    assertTrue(after < before * 0.9, "T_sum " + before + " -> " + after);
  }

  /** Rounds rated on several threads make exactly the moves of one thread (rows above the parallel threshold). */
  @Test
  void roundsOnSeveralThreadsMakeTheSameMovesAsOnOne() {
    SplittableRandom rnd = new SplittableRandom(23);
    int k = 16;
    List<Block> blocks = blocks(rnd, 4, URefinement.PARALLEL_MIN_ROWS / 4 + 100, 20_000, 16);
    int[][] start = randomParts(rnd, blocks, k);
    URefinement one = new URefinement(k, blocks, start, 8.0, true);
    URefinement three = new URefinement(k, blocks, start, 8.0, true);
    three.setThreads(3);
    for (int round = 0; round < 4; round++) {
      if (round == 2) {
        one.setExponent(1.0);
        three.setExponent(1.0);
      }
      URefinement.RoundStats a = one.round();
      URefinement.RoundStats b = three.round();
      assertTrue(a.moves() > 0 || round > 0, "round " + round + " moved nothing: " + a);
      assertEquals(a, b, "round " + round);
      for (int blk = 0; blk < blocks.size(); blk++) {
        assertArrayEquals(one.parts()[blk], three.parts()[blk], "round " + round + ", block " + blk);
      }
    }
    org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> one.setThreads(0));
  }

  /**
   * Rounds whose candidate arrays come from a workspace (shared with a second refinement of other rows between the
   * rounds, so the arrays hold stale candidates of more rows) make exactly the moves of rounds on a refinement's own.
   */
  @Test
  void roundsOnAReusedWorkspaceMakeTheSameMovesAsOnFreshArrays() {
    SplittableRandom rnd = new SplittableRandom(29);
    int k = 16;
    List<Block> blocks = blocks(rnd, 4, 600, 3_000, 16);
    List<Block> other = blocks(rnd, 4, 900, 2_000, 12);
    int[][] start = randomParts(rnd, blocks, k);
    URefinement fresh = new URefinement(k, blocks, start, 8.0, true);
    URefinement reused = new URefinement(k, blocks, start, 8.0, true);
    URefinement between = new URefinement(k, other, randomParts(rnd, other, k), 8.0, true);
    Workspace ws = new Workspace();
    reused.setWorkspace(ws);
    between.setWorkspace(ws);
    reused.setThreads(2);
    for (int round = 0; round < 4; round++) {
      if (round == 2) {
        fresh.setExponent(1.0);
        reused.setExponent(1.0);
      }
      between.round();
      URefinement.RoundStats a = fresh.round();
      URefinement.RoundStats b = reused.round();
      assertTrue(a.moves() > 0 || round > 0, "round " + round + " moved nothing: " + a);
      assertEquals(a, b, "round " + round);
      for (int blk = 0; blk < blocks.size(); blk++) {
        assertArrayEquals(fresh.parts()[blk], reused.parts()[blk], "round " + round + ", block " + blk);
      }
    }
  }

  /**
   * Rounds that rate rows from the gain cache (built at the second round, kept by every move, tentative ones undone
   * included) make the same moves as rounds that count every row, at both exponents and up to the most parts cached;
   * so do rounds under the default policy, which drops the cache once its updates cost more than it saves.
   */
  @Test
  void roundsWithTheGainCacheMakeTheSameMovesAsCounting() {
    SplittableRandom rnd = new SplittableRandom(31);
    for (int k : new int[] {3, 16, GainCache.MAX_PARTS}) {
      List<Block> blocks = blocks(rnd, 3, 400, 900, 12);
      int[][] start = randomParts(rnd, blocks, k);
      URefinement kept = new URefinement(k, blocks, start, 8.0, true);
      kept.setGainCache(true, true);
      URefinement byDefault = new URefinement(k, blocks, start, 8.0, true);
      URefinement counted = new URefinement(k, blocks, start, 8.0, true);
      counted.setGainCache(false, false);
      for (int round = 0; round < 6; round++) {
        if (round == 3) {
          for (URefinement r : List.of(kept, byDefault, counted)) {
            r.setExponent(1.0);
          }
        }
        URefinement.RoundStats want = counted.round();
        assertEquals(want, kept.round(), "k=" + k + " round " + round);
        assertEquals(want, byDefault.round(), "k=" + k + " round " + round + ", default policy");
        for (int blk = 0; blk < blocks.size(); blk++) {
          assertArrayEquals(counted.parts()[blk], kept.parts()[blk], "k=" + k + " round " + round + " block " + blk);
          assertArrayEquals(counted.parts()[blk], byDefault.parts()[blk], "k=" + k + " round " + round);
        }
        assertEquals(round >= 1, kept.gainCacheInUse(), "k=" + k + " round " + round);
        assertTrue(!counted.gainCacheInUse());
      }
    }
  }

  /**
   * Rounds that take over a V-cycle's counts and gain cache make the same moves as rounds that count the same parts
   * themselves, at one and two words of part bits; the counts serve one refinement, a second one counts its own.
   */
  @Test
  void roundsFromAVcyclesCountsMakeTheSameMovesAsFromItsParts() {
    SplittableRandom rnd = new SplittableRandom(37);
    for (int k : new int[] {3, 16, 70}) {
      List<Block> blocks = blocks(rnd, 3, 400, 900, 12);
      RowKeyGraph g = RowKeyGraph.of(blocks);
      int[][] start = randomParts(rnd, blocks, k);
      MultilevelPartitioner.Counted vc = new MultilevelPartitioner(k, MultilevelPartitioner.Settings.defaults(),
          line -> { }).counted(blocks, g, start, 0.0, -1);
      int[][] parts = new int[blocks.size()][];
      for (int b = 0; b < parts.length; b++) {
        parts[b] = vc.parts()[b].clone();
      }
      URefinement fromCounts = new URefinement(k, blocks, g, vc, 8.0, true);
      URefinement second = new URefinement(k, blocks, g, vc, 8.0, true);
      URefinement fromParts = new URefinement(k, blocks, g, parts, 8.0, true);
      assertEquals(fromParts.summary(), fromCounts.summary(), "k=" + k);
      assertEquals(fromParts.maxWorkingSet(), fromCounts.maxWorkingSet(), "k=" + k);
      assertEquals(fromParts.sumTrafficIfHome(), fromCounts.sumTrafficIfHome(), "k=" + k);
      for (int round = 0; round < 5; round++) {
        if (round == 3) {
          fromCounts.setExponent(1.0);
          fromParts.setExponent(1.0);
        }
        URefinement.RoundStats want = fromParts.round();
        assertEquals(want, fromCounts.round(), "k=" + k + " round " + round);
        for (int b = 0; b < blocks.size(); b++) {
          assertArrayEquals(fromParts.parts()[b], fromCounts.parts()[b], "k=" + k + " round " + round + " block " + b);
        }
      }
      // the second refinement did not share the first one's counts: it still starts from the V-cycle's parts
      assertEquals(new URefinement(k, blocks, g, parts(vc), 8.0, true).summary(), second.summary(), "k=" + k);
    }
  }

  private static int[][] parts(MultilevelPartitioner.Counted vc) {
    int[][] out = new int[vc.parts().length][];
    for (int b = 0; b < out.length; b++) {
      out[b] = vc.parts()[b].clone();
    }
    return out;
  }

  /** The one-pass T_sum of an assignment is the refinement's own figure for it, for one and several words of bits. */
  @Test
  void sumTrafficOfAnAssignmentMatchesTheRefinementsCount() {
    SplittableRandom rnd = new SplittableRandom(29);
    for (int k : new int[] {2, 5, 16, 70}) {
      List<Block> blocks = blocks(rnd, 3, 150, 600, 5);
      int[][] parts = randomParts(rnd, blocks, k);
      int[][] order = URefinement.inputOrderStart(k, blocks);
      long expected = new URefinement(k, blocks, parts, 1.0, false).sumTrafficIfHome();
      long expectedOrder = new URefinement(k, blocks, order, 1.0, false).sumTrafficIfHome();
      assertArrayEquals(new long[] {expected, expectedOrder},
          URefinement.sumTrafficIfHome(k, RowKeyGraph.of(blocks), parts, order), "k = " + k);
      assertTrue(expected > 0 && expectedOrder > 0);
    }
  }

  /** The input-order start cuts the rows, ranked by id over all blocks, into k runs of ⌊n/k⌋ or ⌈n/k⌉ rows. */
  @Test
  void inputOrderStartCutsTheIdOrderIntoBalancedRuns() {
    SplittableRandom rnd = new SplittableRandom(17);
    for (int k : new int[] {2, 3, 7, 16}) {
      List<Block> blocks = blocks(rnd, 3, 20 + rnd.nextInt(30), 200, 4);
      int[][] parts = URefinement.inputOrderStart(k, blocks);
      int n = blocks.stream().mapToInt(Block::numRows).sum();
      int[] size = sizes(k, parts);
      for (int i = 0; i < k; i++) {
        assertTrue(size[i] == n / k || size[i] == (n + k - 1) / k, "part " + i + " has " + size[i] + " of " + n);
      }
      // parts follow the id order: a smaller id never sits in a higher part
      for (int b = 0; b < blocks.size(); b++) {
        for (int r = 0; r < blocks.get(b).numRows(); r++) {
          for (int c = 0; c < blocks.size(); c++) {
            for (int s = 0; s < blocks.get(c).numRows(); s++) {
              if (blocks.get(b).rowId(r) < blocks.get(c).rowId(s)) {
                assertTrue(parts[b][r] <= parts[c][s]);
              }
            }
          }
        }
      }
    }
    Block dup = new Block(new long[] {5, 5}, new int[] {0, 1, 2}, new long[] {1, 2}, null);
    org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> URefinement.inputOrderStart(2, List.of(dup)));
  }

  /**
   * Weighted rows: the input-order start cuts the id order by weight, so every part weighs W/k within the heaviest row's
   * weight, and parts still follow the id order.
   */
  @Test
  void weightedInputOrderStartCutsTheIdOrderByWeight() {
    SplittableRandom rnd = new SplittableRandom(19);
    for (int k : new int[] {2, 3, 7, 16}) {
      List<Block> blocks = weighted(rnd, blocks(rnd, 3, 40 + rnd.nextInt(40), 200, 4));
      int[][] parts = URefinement.inputOrderStart(k, blocks);
      double[] load = new double[k];
      double total = 0;
      double heaviest = 0;
      java.util.TreeMap<Long, Integer> byId = new java.util.TreeMap<>();
      for (int b = 0; b < blocks.size(); b++) {
        for (int r = 0; r < blocks.get(b).numRows(); r++) {
          double w = blocks.get(b).weight(r);
          load[parts[b][r]] += w;
          total += w;
          heaviest = Math.max(heaviest, w);
          byId.put(blocks.get(b).rowId(r), parts[b][r]);
        }
      }
      for (int i = 0; i < k; i++) {
        assertTrue(Math.abs(load[i] - total / k) <= heaviest + 1e-9, "k " + k + ": part " + i + " weighs " + load[i]
            + ", the mean " + total / k + ", the heaviest row " + heaviest);
      }
      int last = 0;
      for (int part : byId.values()) {
        assertTrue(part >= last, "k " + k + ": parts do not follow the id order");
        last = part;
      }
    }
  }

  /**
   * The candidates-only pick of a row's best targets chooses the same indices in the same order as the selection
   * sort it replaces, ties included: values drawn from a few levels (many ties), one +∞ (the row's own part), k from
   * 2 to 300; with heavy ties it falls back to the sort.
   */
  @Test
  void topTargetsPickAsTheSelectionSortDoes() {
    SplittableRandom rnd = new SplittableRandom(17);
    for (int trial = 0; trial < 3000; trial++) {
      int k = 2 + rnd.nextInt(trial % 4 == 0 ? 299 : 60); // the candidates from k = 2·top = 32 on
      int top = Math.min(URefinement.TOP, k - 1);
      int levels = 1 + rnd.nextInt(trial % 3 == 0 ? 3 : 50);
      double[] v = new double[k];
      for (int i = 0; i < k; i++) {
        v[i] = rnd.nextInt(levels) * (rnd.nextBoolean() ? 1.0 : 0.25) - 3;
      }
      v[rnd.nextInt(k)] = Double.POSITIVE_INFINITY;
      int[] expected = new int[k];
      URefinement.TopTargets.selectionSort(v, expected, top);
      int[] got = new int[k];
      URefinement.TopTargets picker = new URefinement.TopTargets(k, top);
      double[] other = v.clone();
      other[rnd.nextInt(k)] = -10; // a picker is reused row after row
      picker.select(other, got);
      picker.select(v, got);
      assertArrayEquals(java.util.Arrays.copyOf(expected, top), java.util.Arrays.copyOf(got, top),
          "k = " + k + ", values " + java.util.Arrays.toString(v));
    }
  }
}
