package io.parsa.engine;

import java.util.List;

/**
 * Single-process Parsa (paper §4.2, §4.4): partitions a sequence of blocks with one {@link ParsaEngine},
 * carrying the neighbor sets S and the part loads from block to block.
 *
 * <p>Per block: pull S restricted to the block's keys, run Algorithm 3, write the updated sets back (they only
 * grow). Deterministic: the result depends only on the blocks, their order, k, θ and the initialisation.
 */
public final class BlockSequencePartitioner {

  /** The outcome of one run. */
  public static final class Result {
    private final int[][] parts;
    private final NeighborSets sets;
    private final double[] loads;
    private final long edgesProcessed;
    private final long engineNanos;

    Result(int[][] parts, NeighborSets sets, double[] loads, long edgesProcessed, long engineNanos) {
      this.parts = parts;
      this.sets = sets;
      this.loads = loads;
      this.edgesProcessed = edgesProcessed;
      this.engineNanos = engineNanos;
    }

    /** {@code parts()[b][r]}: the part of row r of block b (warm-up results are not included). */
    public int[][] parts() {
      return parts;
    }

    /** Final S_1..S_k (⊇ N(U_i); includes the initial sets). */
    public NeighborSets sets() {
      return sets;
    }

    /** Final per-part loads (rows or total weight) of the real (non-warm-up) run. */
    public double[] loads() {
      return loads;
    }

    /** Distinct (row, key) pairs processed by Algorithm 3, warm-up blocks included. */
    public long edgesProcessed() {
      return edgesProcessed;
    }

    /** Nanoseconds spent in pull + Algorithm 3 + write-back, warm-up included (no I/O, no block building). */
    public long engineNanos() {
      return engineNanos;
    }
  }

  private final int k;
  private final ParsaEngine engine;
  private long[] buffer = new long[0];
  private int[] slots = new int[0];

  /** A partitioner for k parts with θ = {@link ParsaEngine#DEFAULT_THETA}. */
  public BlockSequencePartitioner(int k) {
    this(k, ParsaEngine.DEFAULT_THETA);
  }

  /** A partitioner for k parts whose engine uses the given θ. */
  public BlockSequencePartitioner(int k, int theta) {
    this(k, theta, ParsaEngine.Structure.LINKED_LIST);
  }

  /** A partitioner for k parts whose engine uses the given θ and cost structure. */
  public BlockSequencePartitioner(int k, int theta, ParsaEngine.Structure structure) {
    this.k = k;
    this.engine = new ParsaEngine(k, theta, structure);
  }

  /** Partitions {@code blocks} in order after the given initialisation. */
  public Result partition(List<Block> blocks, Initialisation init) {
    NeighborSets sets = init.startingSets() == null ? new NeighborSets(k) : init.startingSets().copy();
    if (sets.k() != k) {
      throw new IllegalArgumentException("starting sets have k = " + sets.k() + ", expected " + k);
    }
    int a = init.warmupBlocks();
    if (a > 0 && blocks.isEmpty()) {
      throw new IllegalArgumentException("warm-up needs at least one block");
    }
    long edges = 0;
    long nanos = 0;
    for (int t = 0; t < a; t++) {
      Block block = blocks.get(t % blocks.size());
      long t0 = System.nanoTime();
      long[] m = pull(sets, block);
      int[] parts = engine.partition(block, m, new double[k]);
      // reset S to exactly this block's N(U_{i,t})
      sets.clear();
      long[] own = ownSets(block, parts, k);
      sets.replace(block.keys(), own);
      nanos += System.nanoTime() - t0;
      edges += block.numEdges();
    }
    double[] loads = new double[k];
    int[][] result = new int[blocks.size()][];
    for (int b = 0; b < blocks.size(); b++) {
      Block block = blocks.get(b);
      long t0 = System.nanoTime();
      int nk = block.numKeys();
      slots = sets.resolve(block.keys(), slots);
      long[] m = buffer(nk);
      sets.pullSlots(slots, nk, m);
      result[b] = engine.partition(block, m, loads);
      sets.unionSlots(slots, nk, m);
      nanos += System.nanoTime() - t0;
      edges += block.numEdges();
    }
    return new Result(result, sets, loads, edges, nanos);
  }

  private long[] pull(NeighborSets sets, Block block) {
    long[] m = buffer(block.numKeys());
    sets.pull(block.keys(), m);
    return m;
  }

  private long[] buffer(int numKeys) {
    int len = numKeys * NeighborSets.wordsPerKey(k);
    if (buffer.length < len) {
      buffer = new long[Math.max(len, buffer.length + (buffer.length >> 1))];
    }
    return buffer;
  }

  /** N(U_i) of one block's assignment to k parts, in the membership layout over the block's keys. */
  public static long[] ownSets(Block block, int[] parts, int k) {
    int wpk = NeighborSets.wordsPerKey(k);
    long[] own = new long[block.numKeys() * wpk];
    int[] rs = block.localRowStart();
    int[] lk = block.localKeys();
    for (int r = 0; r < block.numRows(); r++) {
      int p = parts[r];
      for (int e = rs[r]; e < rs[r + 1]; e++) {
        own[lk[e] * wpk + (p >>> 6)] |= 1L << p;
      }
    }
    return own;
  }
}
