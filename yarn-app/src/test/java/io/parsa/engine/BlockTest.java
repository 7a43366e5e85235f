package io.parsa.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class BlockTest {
  @Test
  void renumbersKeysAscendingAndDropsDuplicatesWithinRows() {
    Block b = new Block(new long[] {10, 11, 12}, new int[] {0, 3, 3, 6},
        new long[] {500, -7, 500, 42, 42, 500}, null);
    assertEquals(3, b.numRows());
    assertEquals(6, b.numNonZeros());
    assertEquals(4, b.numEdges());
    assertArrayEquals(new long[] {-7, 42, 500}, b.keys());
    assertArrayEquals(new int[] {0, 2, 2, 4}, b.localRowStart());
    int[] lk = b.localKeys();
    assertArrayEquals(new int[] {2, 0, 1, 2}, java.util.Arrays.copyOf(lk, 4));
    assertEquals(11, b.rowId(1));
    assertEquals(1.0, b.weight(2));
  }

  @Test
  void rejectsInconsistentInput() {
    assertThrows(IllegalArgumentException.class,
        () -> new Block(new long[] {1}, new int[] {0, 2}, new long[] {1}, null));
    assertThrows(IllegalArgumentException.class,
        () -> new Block(new long[] {1}, new int[] {0, 1}, new long[] {1}, new double[] {-1}));
  }
}
