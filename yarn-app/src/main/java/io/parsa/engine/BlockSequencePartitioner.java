package io.parsa.engine;

import java.util.Iterator;
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

    /**
     * {@code parts()[b][r]}: the part of row r of block b (warm-up results are not included); null when the
     * assignments went to a {@link BlockSink}.
     */
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

  /** Receives each block's assignment as soon as it is made (never called for warm-up blocks). */
  @FunctionalInterface
  public interface BlockSink {
    void accept(int blockIndex, Block block, int[] parts);
  }

  /** Partitions {@code blocks} in order after the given initialisation; all assignments kept in the result. */
  public Result partition(List<Block> blocks, Initialisation init) {
    int[][] parts = new int[blocks.size()][];
    Result r = partition(blocks, init, (b, block, p) -> parts[b] = p);
    return new Result(parts, r.sets(), r.loads(), r.edgesProcessed(), r.engineNanos());
  }

  /**
   * Partitions {@code blocks} in order after the given initialisation, handing each block's assignment to
   * {@code sink} and keeping none ({@link Result#parts()} is null), so only one block need be in memory when
   * the iterable loads blocks lazily. Warm-up iterates {@code blocks} again from the start as often as needed.
   */
  public Result partition(Iterable<Block> blocks, Initialisation init, BlockSink sink) {
    NeighborSets sets = init.startingSets() == null ? new NeighborSets(k) : init.startingSets().copy();
    if (sets.k() != k) {
      throw new IllegalArgumentException("starting sets have k = " + sets.k() + ", expected " + k);
    }
    int a = init.warmupBlocks();
    long edges = 0;
    long nanos = 0;
    Iterator<Block> warm = blocks.iterator();
    for (int t = 0; t < a; t++) {
      if (!warm.hasNext()) {
        warm = blocks.iterator();
        if (!warm.hasNext()) {
          throw new IllegalArgumentException("warm-up needs at least one block");
        }
      }
      Block block = warm.next();
      long t0 = System.nanoTime();
      long[] m = pull(sets, block);
      int[] parts = engine.partition(block, m, new double[k]);
      // reset S to exactly this block's N(U_{i,t})
      sets.clear();
      sets.replace(block.keys(), ownSets(block, parts, k));
      nanos += System.nanoTime() - t0;
      edges += block.numEdges();
    }
    double[] loads = new double[k];
    int b = 0;
    for (Block block : blocks) {
      long t0 = System.nanoTime();
      int nk = block.numKeys();
      slots = sets.resolve(block.keys(), slots);
      long[] m = buffer(nk);
      sets.pullSlots(slots, nk, m);
      int[] parts = engine.partition(block, m, loads);
      sets.unionSlots(slots, nk, m);
      nanos += System.nanoTime() - t0;
      edges += block.numEdges();
      sink.accept(b++, block, parts);
    }
    return new Result(null, sets, loads, edges, nanos);
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
