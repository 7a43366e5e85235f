package io.parsa.engine;

import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * In-memory placement metrics (the reference the MapReduce metrics step is checked against): computes the exact
 * per-key usage N(U_i) from blocks and a U assignment, assigns V by {@link VAssigner Algorithm 2}, measures
 * {@link PlacementMetrics}, and compares with a seeded random placement.
 */
public final class PlacementEvaluator {
  private PlacementEvaluator() {}

  /** Keys ascending with, per key, the bit set of parts whose N(U_i) holds it. */
  public static final class KeyUsage {
    private final int k;
    private final long[] keys;
    private final long[] bits;

    public KeyUsage(int k, long[] keys, long[] bits) {
      this.k = k;
      this.keys = keys;
      this.bits = bits;
    }

    public int k() {
      return k;
    }

    /** Keys used by at least one row, ascending. */
    public long[] keys() {
      return keys;
    }

    /** wordsPerKey(k) words per key, aligned with {@link #keys()}. */
    public long[] bits() {
      return bits;
    }
  }

  /** Parsa's placement next to a random one, both with V by Algorithm 2. */
  public static final class Comparison {
    private final PlacementMetrics placed;
    private final PlacementMetrics random;

    Comparison(PlacementMetrics placed, PlacementMetrics random) {
      this.placed = placed;
      this.random = random;
    }

    public PlacementMetrics placed() {
      return placed;
    }

    public PlacementMetrics random() {
      return random;
    }

    public double mMaxImprovement() {
      return PlacementMetrics.improvementPercent(random.mMax(), placed.mMax());
    }

    public double tMaxImprovement() {
      return PlacementMetrics.improvementPercent(random.tMax(), placed.tMax());
    }

    public double tSumImprovement() {
      return PlacementMetrics.improvementPercent(random.tSum(), placed.tSum());
    }
  }

  /** Exact N(U_i) per key for the assignment {@code parts[b][r]} of the rows of {@code blocks}. */
  public static KeyUsage usage(int k, List<Block> blocks, int[][] parts) {
    NeighborSets sets = new NeighborSets(k);
    for (int b = 0; b < blocks.size(); b++) {
      Block block = blocks.get(b);
      sets.union(block.keys(), BlockSequencePartitioner.ownSets(block, parts[b], k));
    }
    return usage(sets);
  }

  /** The keys of {@code sets} (ascending) with their bit sets. */
  public static KeyUsage usage(NeighborSets sets) {
    int wpk = NeighborSets.wordsPerKey(sets.k());
    int n = (int) sets.numKeys();
    long[] keys = new long[n];
    int[] slot = new int[n];
    long[] raw = new long[n * wpk];
    int[] i = {0};
    sets.forEach((key, words, off) -> {
      keys[i[0]] = key;
      System.arraycopy(words, off, raw, i[0] * wpk, wpk);
      i[0]++;
    });
    // sort keys, permuting their words along
    long[] sorted = keys.clone();
    Arrays.sort(sorted);
    Long2IntOpenHashMap pos = new Long2IntOpenHashMap(n);
    for (int j = 0; j < n; j++) {
      pos.put(keys[j], j);
    }
    long[] bits = new long[n * wpk];
    for (int j = 0; j < n; j++) {
      System.arraycopy(raw, pos.get(sorted[j]) * wpk, bits, j * wpk, wpk);
    }
    return new KeyUsage(sets.k(), sorted, bits);
  }

  /** Metrics of the placement given by the usage and the part of each key ({@code vPart[j]} for keys()[j]). */
  public static PlacementMetrics evaluate(KeyUsage usage, int[] vPart) {
    int k = usage.k();
    int wpk = NeighborSets.wordsPerKey(k);
    long[] m = new long[k];
    long[] v = new long[k];
    long[] t = new long[k];
    long[] inner = {0};
    long[] bits = usage.bits();
    for (int j = 0; j < usage.keys().length; j++) {
      int owner = vPart[j];
      v[owner]++;
      VAssigner.forEachPart(bits, j * wpk, wpk, k, i -> {
        m[i]++;
        if (i == owner) {
          inner[0]++;
        } else {
          t[i]++;     // worker i fetches the key from server owner
          t[owner]++; // server owner serves worker i
        }
      });
    }
    return new PlacementMetrics(m, v, t, inner[0]);
  }

  /** Metrics of a U assignment with V assigned by Algorithm 2. */
  public static PlacementMetrics evaluate(int k, List<Block> blocks, int[][] parts) {
    KeyUsage u = usage(k, blocks, parts);
    return evaluate(u, VAssigner.assign(k, u.keys(), u.bits()).parts());
  }

  /**
   * A balanced random U assignment: the rows of all blocks, numbered in block order, are shuffled with a
   * {@link SplittableRandom} of the given seed (Fisher–Yates), and the row at shuffled position t goes to part
   * t mod k. Row weights are ignored (balanced by count).
   */
  public static int[][] randomPlacement(int k, List<Block> blocks, long seed) {
    int total = 0;
    for (Block b : blocks) {
      total += b.numRows();
    }
    int[] perm = new int[total];
    for (int i = 0; i < total; i++) {
      perm[i] = i;
    }
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int i = total - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int x = perm[i];
      perm[i] = perm[j];
      perm[j] = x;
    }
    int[] partOfRow = new int[total];
    for (int t = 0; t < total; t++) {
      partOfRow[perm[t]] = t % k;
    }
    int[][] parts = new int[blocks.size()][];
    int g = 0;
    for (int b = 0; b < blocks.size(); b++) {
      parts[b] = Arrays.copyOfRange(partOfRow, g, g + blocks.get(b).numRows());
      g += blocks.get(b).numRows();
    }
    return parts;
  }

  /** Parsa's placement vs a seeded random one, V by Algorithm 2 for both. */
  public static Comparison compare(int k, List<Block> blocks, int[][] parts, long seed) {
    return new Comparison(evaluate(k, blocks, parts), evaluate(k, blocks, randomPlacement(k, blocks, seed)));
  }
}
