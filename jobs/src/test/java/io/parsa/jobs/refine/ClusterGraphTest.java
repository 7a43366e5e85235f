package io.parsa.jobs.refine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The placing task's graph of clusters ({@link ClusterGraph}) and the heap it is sized by. */
class ClusterGraphTest {

  /**
   * A task's heap is sized by the nets its clusters form, not by their keys: 40 clusters of 30 keys each, 20 of them
   * their own and 10 from a pool of 20 keys that several clusters share, form 20 nets from 1,200 pins. The reader takes
   * them in exactly the heap the model gives for 20 nets, refuses them a byte below (keeping only their ids and
   * weights), and that heap is below what the same pins need where the nets are not known (as many as the pins).
   */
  @Test
  void theHeapATaskNeedsFollowsTheNetsItsClustersForm() {
    int k = 16;
    List<ClusterRow> rows = new ArrayList<>();
    for (int c = 0; c < 40; c++) {
      long[] keys = new long[30];
      for (int i = 0; i < 10; i++) {
        keys[i] = (c + 2L * i) % 20; // shared: every pool key is held by 20 clusters
      }
      for (int i = 0; i < 20; i++) {
        keys[10 + i] = 1000L + 20L * c + i; // this cluster's own
      }
      java.util.Arrays.sort(keys);
      rows.add(new ClusterRow().set(c, 1, keys, 30));
    }
    long need = ClusterGraph.heapNeeded(40, 1200, 20, k);
    assertTrue(need < ClusterGraph.heapNeeded(40, 1200, k), "20 nets need less than 1,200 would");
    ClusterGraph refused = ClusterGraph.read(rows, k, need - 1, () -> {});
    assertFalse(refused.placeable(), "a byte below the model");
    assertEquals(40, refused.size(), "a refused read keeps the clusters' ids");
    for (int v = 0; v < 40; v++) {
      assertEquals(v, refused.ids[v]);
      assertEquals(1, refused.weight[v]);
    }
    ClusterGraph g = ClusterGraph.read(rows, k, need, () -> {});
    assertTrue(g.placeable());
    assertEquals(20, g.numNets);
    assertEquals(400, g.vStart[g.size()], "pins of the nets: 10 per cluster");
    for (int v = 0; v < g.size(); v++) {
      assertEquals(20, g.internal[v], "cluster " + v + "'s own keys");
    }
  }
}
