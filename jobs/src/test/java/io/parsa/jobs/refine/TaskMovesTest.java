package io.parsa.jobs.refine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.jobs.mr.DistinctKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TaskMovesTest {

  /**
   * Moves kept in memory up to the budget and in a local file beyond it are all given back, in the order added, with
   * their parts; a row's repeated keys once each. Every budget, from none in memory to all of them, gives the same.
   */
  @Test
  void everyMoveIsGivenBackWhetherInMemoryOrSpilled() throws Exception {
    Random rnd = new Random(7);
    List<long[]> rows = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      long[] keys = new long[1 + rnd.nextInt(20)];
      for (int j = 0; j < keys.length; j++) {
        keys[j] = rnd.nextInt(300) * 1_000_003L; // repeats within a row are dropped by DistinctKeys
      }
      rows.add(keys);
    }
    List<String> expected = null;
    for (long budget : new long[] {0, 37, 1000, Long.MAX_VALUE}) {
      List<String> seen = new ArrayList<>();
      long keys = 0;
      try (TaskMoves moves = new TaskMoves(budget)) {
        assertTrue(moves.isEmpty());
        DistinctKeys distinct = new DistinctKeys();
        for (int i = 0; i < rows.size(); i++) {
          long[] r = rows.get(i);
          moves.add(distinct.of(r, 0, r.length), i % 16, (i * 7) % 16);
          keys += distinct.size();
        }
        assertFalse(moves.isEmpty());
        assertEquals(rows.size(), moves.size());
        assertEquals(budget == Long.MAX_VALUE ? 0 : budget == 0 ? keys : keys - moves.keysInMemory(),
            moves.spilledKeys(), "budget " + budget);
        assertTrue(moves.keysInMemory() <= budget, "budget " + budget);
        for (int pass = 0; pass < 2; pass++) { // read twice: the file is read afresh for every slice
          List<String> once = new ArrayList<>();
          moves.forEachKey((key, left, entered) -> once.add(key + ":" + left + ">" + entered));
          if (pass == 0) {
            seen = once;
          } else {
            assertTrue(seen.equals(once), "read twice, read differently");
          }
        }
      }
      assertEquals(keys, seen.size());
      if (expected == null) {
        expected = seen;
      } else {
        assertTrue(expected.equals(seen), "budget " + budget + " gave other moves or another order");
      }
    }
  }
}
