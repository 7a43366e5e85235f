package io.parsa.yarn.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.parsa.yarn.TestBlocks;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BlockFilesTest {

  /** ingest's counts only size the arrays: exact, too small, too large or unknown, the same rows come back. */
  @Test
  void countsSizeTheArraysAndChangeNothingRead(@TempDir java.nio.file.Path tmp) throws Exception {
    FileSystem fs = FileSystem.getLocal(new Configuration());
    Path dir = new Path(tmp.toString());
    TestBlocks.write(fs, dir, TestBlocks.random(3_000, 500, 12, 5), 1, 5);
    Path file = BlockFiles.list(fs, dir).get(0);
    BlockData plain = BlockFiles.read(fs, file);
    int rows = plain.numRows();
    long nnz = plain.rowKeys.length;
    for (long[] hint : List.of(new long[] {rows, nnz}, new long[] {1, 1}, new long[] {rows / 3, nnz / 3},
        new long[] {rows * 4L, nnz * 4}, new long[] {-1, -1}, new long[] {0, 0})) {
      BlockData d = BlockFiles.read(fs, file, hint[0], hint[1]);
      assertArrayEquals(plain.rowIds, d.rowIds);
      assertArrayEquals(plain.rowStart, d.rowStart);
      assertArrayEquals(plain.rowKeys, d.rowKeys);
      assertEquals(rows, d.rowIds.length, "arrays cut to size");
      assertEquals(nnz, d.rowKeys.length);
    }
  }
}
