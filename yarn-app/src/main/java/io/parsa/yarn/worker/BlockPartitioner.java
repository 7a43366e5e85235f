package io.parsa.yarn.worker;

import io.parsa.yarn.io.BlockData;

/** Runs the single-block algorithm (Parsa Algorithm 3) for a worker; the seam between YARN code and the engine. */
public interface BlockPartitioner {

  /** A block prepared for the engine (keys renumbered), built on the prefetch thread. */
  interface Prepared {
    /** Distinct keys of the block, ascending; the membership layout follows this order. */
    long[] keys();

    int numRows();

    long rowId(int r);

    /** Distinct (row, key) pairs. */
    long edges();

    /** Local key ids of row r's distinct keys are {@code localKeys()[localRowStart()[r] .. localRowStart()[r+1])}. */
    int[] localRowStart();

    int[] localKeys();

    double totalWeight();

    /**
     * Partitions the block. {@code membership} (in/out): S restricted to {@link #keys()}, wpk words per key,
     * updated to S ∪ N(U_i). {@code loads} (in/out): per-part loads. Returns each row's part.
     */
    int[] partition(long[] membership, double[] loads);
  }

  Prepared prepare(BlockData data);
}
