package io.parsa.yarn.worker;

import io.parsa.engine.Block;
import io.parsa.engine.ParsaEngine;
import io.parsa.yarn.io.BlockData;

/** {@link BlockPartitioner} backed by {@link ParsaEngine}; one engine instance, used by one thread at a time. */
public final class EnginePartitioner implements BlockPartitioner {
  private final ParsaEngine engine;

  public EnginePartitioner(int k) {
    this.engine = new ParsaEngine(k);
  }

  @Override
  public Prepared prepare(BlockData d) {
    Block block = new Block(d.rowIds, d.rowStart, d.rowKeys, d.weights);
    double total = d.totalWeight();
    return new Prepared() {
      @Override
      public long[] keys() {
        return block.keys();
      }

      @Override
      public int numRows() {
        return block.numRows();
      }

      @Override
      public long rowId(int r) {
        return block.rowId(r);
      }

      @Override
      public long edges() {
        return block.numEdges();
      }

      @Override
      public int[] localRowStart() {
        return block.localRowStart();
      }

      @Override
      public int[] localKeys() {
        return block.localKeys();
      }

      @Override
      public double totalWeight() {
        return total;
      }

      @Override
      public int[] partition(long[] membership, double[] loads) {
        synchronized (engine) {
          return engine.partition(block, membership, loads);
        }
      }
    };
  }
}
