package io.parsa.engine;

/**
 * How the neighbor sets start before the blocks are partitioned (paper §4.4).
 *
 * <ul>
 *   <li>{@link #none()}: S_i = ∅.</li>
 *   <li>{@link #individual(int) individual(a)}: {@code a} warm-up passes over blocks {@code 0, 1, .., b−1, 0, ..}
 *       (block {@code t mod b} for warm-up pass t; a may exceed b); each warm-up block is partitioned with the
 *       current S and fresh zero loads, its assignment is dropped, and S is then reset to exactly that block's
 *       N(U_{i,t}). The real run then starts from the last warm-up block's sets with zero loads.</li>
 *   <li>{@link #global(NeighborSets)}: start from the given sets (e.g. one worker's partition of a sample).</li>
 *   <li>{@link #incremental(NeighborSets)}: start from an earlier run's final sets.</li>
 * </ul>
 * Global and incremental are the same mechanism (the given sets are copied, never modified); they differ only
 * in where the sets come from. Warm-up blocks may be combined with given starting sets.
 */
public final class Initialisation {
  /** Which strategy, for reporting. */
  public enum Kind { NONE, INDIVIDUAL, GLOBAL, INCREMENTAL }

  private final Kind kind;
  private final int warmupBlocks;
  private final NeighborSets start;

  private Initialisation(Kind kind, int warmupBlocks, NeighborSets start) {
    if (warmupBlocks < 0) {
      throw new IllegalArgumentException("warm-up blocks must be >= 0, was " + warmupBlocks);
    }
    this.kind = kind;
    this.warmupBlocks = warmupBlocks;
    this.start = start;
  }

  /** Empty starting sets. */
  public static Initialisation none() {
    return new Initialisation(Kind.NONE, 0, null);
  }

  /** {@code a} warm-up blocks whose results are dropped; S reset to each warm-up block's sets. */
  public static Initialisation individual(int a) {
    return new Initialisation(a == 0 ? Kind.NONE : Kind.INDIVIDUAL, a, null);
  }

  /** Start from the given sets (global initialisation from a sample). */
  public static Initialisation global(NeighborSets sets) {
    return new Initialisation(Kind.GLOBAL, 0, requireSets(sets));
  }

  /** Start from an earlier run's final sets (incremental partitioning). */
  public static Initialisation incremental(NeighborSets sets) {
    return new Initialisation(Kind.INCREMENTAL, 0, requireSets(sets));
  }

  /** The same starting sets, followed by {@code a} warm-up blocks. */
  public Initialisation withWarmup(int a) {
    return new Initialisation(kind == Kind.NONE && a > 0 ? Kind.INDIVIDUAL : kind, a, start);
  }

  private static NeighborSets requireSets(NeighborSets sets) {
    if (sets == null) {
      throw new IllegalArgumentException("starting neighbor sets must not be null");
    }
    return sets;
  }

  public Kind kind() {
    return kind;
  }

  public int warmupBlocks() {
    return warmupBlocks;
  }

  /** The given starting sets, or null. */
  public NeighborSets startingSets() {
    return start;
  }

  @Override
  public String toString() {
    return kind + (warmupBlocks > 0 ? "(a=" + warmupBlocks + ")" : "");
  }
}
