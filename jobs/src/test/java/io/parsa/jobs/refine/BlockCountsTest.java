package io.parsa.jobs.refine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.Matchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.parsa.avro.GraphRow;
import io.parsa.jobs.mr.TestData;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.Counter;
import org.apache.hadoop.mapreduce.TaskInputOutputContext;
import org.junit.jupiter.api.Test;

/** A chunk task's key counts follow the block's own moves in place, slice after slice. */
class BlockCountsTest {

  /**
   * Rows 1 {10, 11} and 2 {11, 12} in part 0 and 1, row 3 {12} in part 1. Moving row 1 to part 1 takes key 10's count
   * from part 0 and adds part 1 beside the counts (the count job sent none there), and moves key 11's count within
   * them; a move from a part the key has no count in is reported stale.
   */
  @Test
  @SuppressWarnings("unchecked")
  void aMoveChangesTheCountsInPlaceAndAddsThePartsTheyLack() throws Exception {
    Configuration conf = new Configuration();
    conf.set("fs.defaultFS", "file:///");
    FileSystem fs = FileSystem.getLocal(conf);
    Path dir = TestData.tempDir("block-counts");
    List<GraphRow> rows = List.of(TestData.libsvmRow(1, 10, 11), TestData.libsvmRow(2, 11, 12),
        TestData.libsvmRow(3, 12));
    TestData.writeBlocks(fs, new Path(dir, "blocks"), rows, 1);
    TestData.writeAlignedUAssignment(fs, new Path(dir, "u"), rows, 1, Map.of(1L, 0, 2L, 1, 3L, 1));
    conf.set(GainReducer.BLOCKS, new Path(dir, "blocks").toString());
    conf.set(GainReducer.U, new Path(dir, "u").toString());
    List<KeyCounts> values = new ArrayList<>();
    values.add(new KeyCounts().reset(-1, 0)); // the block's marker
    KeyCounts k10 = new KeyCounts().reset(10, 0);
    k10.add(0, 1);
    KeyCounts k11 = new KeyCounts().reset(11, 0);
    k11.add(0, 1);
    k11.add(1, 1);
    KeyCounts k12 = new KeyCounts().reset(12, 0);
    k12.add(1, 2);
    values.addAll(List.of(k10, k11, k12));
    TaskInputOutputContext<?, ?, ?, ?> context = mock(TaskInputOutputContext.class);
    when(context.getCounter(any(Enum.class))).thenReturn(mock(Counter.class));

    BlockCounts counts = new BlockCounts(conf);
    counts.read(0, values, context);
    assertEquals(3, counts.data.numRows());
    int j10 = counts.indexOf(10);
    int j11 = counts.indexOf(11);
    int j12 = counts.indexOf(12);
    assertEquals(-1, counts.indexOf(13));

    assertTrue(counts.move(j10, 0, 1));
    assertTrue(counts.move(j11, 0, 1));
    assertArrayEquals(new int[] {0, 0}, partCounts(counts, j10, 0, 1), "key 10 left part 0, none counted in 1");
    assertArrayEquals(new int[] {0, 2}, partCounts(counts, j11, 0, 1));
    assertEquals(List.of(j10), counts.addedKeys());
    assertEquals(List.of(1), counts.addedParts());

    assertTrue(counts.move(j12, 1, 2));
    assertArrayEquals(new int[] {1, 0}, partCounts(counts, j12, 1, 2));
    assertEquals(List.of(j10, j12), counts.addedKeys());
    assertEquals(List.of(1, 2), counts.addedParts());

    assertFalse(counts.move(j10, 3, 0), "key 10 has no count in part 3: stale");
    for (int s : java.util.Arrays.copyOf(counts.slots(), 3)) {
      assertEquals(-1, s, "slots start unset");
    }

    // the next block starts from its own counts
    counts.read(0, values, context);
    assertTrue(counts.addedKeys().isEmpty());
    assertArrayEquals(new int[] {1, 1}, partCounts(counts, counts.indexOf(11), 0, 1));
  }

  /** The counts of key position {@code j} in parts {@code a} and {@code b} (0 where the key has none). */
  private static int[] partCounts(BlockCounts c, int j, int a, int b) {
    int[] out = new int[2];
    for (int t = c.start()[j]; t < c.start()[j + 1]; t++) {
      if (c.parts()[t] == a) {
        out[0] += c.counts()[t];
      } else if (c.parts()[t] == b) {
        out[1] += c.counts()[t];
      }
    }
    return out;
  }
}
