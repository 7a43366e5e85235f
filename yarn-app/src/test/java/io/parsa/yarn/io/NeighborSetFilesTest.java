package io.parsa.yarn.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.parsa.avro.NeighborSetEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NeighborSetFilesTest {

  /** Sets written from bits come back as NeighborSetEntry records and as the same bits; empty sets are not written. */
  @Test
  void writtenSetsReadBackAsRecordsAndBits(@TempDir java.nio.file.Path tmp) throws Exception {
    FileSystem fs = FileSystem.getLocal(new Configuration());
    Path dir = new Path(tmp.toString());
    for (int k : new int[] {1, 16, 64, 100}) {
      int wpk = (k + 63) >>> 6;
      SplittableRandom rnd = new SplittableRandom(k);
      int n = 2_000;
      long[] keys = new long[n];
      long[] words = new long[n * wpk];
      for (int i = 0; i < n; i++) {
        keys[i] = rnd.nextLong();
        for (int w = 0; w < wpk; w++) {
          int bits = Math.min(64, k - 64 * w);
          long mask = bits == 64 ? -1L : (1L << bits) - 1;
          words[i * wpk + w] = i % 7 == 0 ? 0 : rnd.nextLong() & mask; // every seventh set empty
        }
      }
      Path file = new Path(dir, "k" + k + ".avro");
      try (NeighborSetFiles.Writer w = new NeighborSetFiles.Writer(fs, file, k, Map.of("parsa.test", "yes"))) {
        for (int i = 0; i < n; i++) {
          w.write(keys[i], words, i * wpk);
        }
        assertEquals(java.util.stream.IntStream.range(0, n).filter(i -> !empty(words, i, wpk)).count(), w.written());
      }
      List<NeighborSetEntry> records = new ArrayList<>();
      try (DataFileStream<NeighborSetEntry> in =
          new DataFileStream<>(fs.open(file), new SpecificDatumReader<>(NeighborSetEntry.class))) {
        in.forEach(records::add);
      }
      List<Long> readKeys = new ArrayList<>();
      List<long[]> readWords = new ArrayList<>();
      Map<String, String> meta = NeighborSetFiles.read(fs, file, k, (key, ws, off) -> {
        readKeys.add(key);
        readWords.add(java.util.Arrays.copyOfRange(ws, off, off + wpk));
      });
      assertEquals("yes", meta.get("parsa.test"));
      int r = 0;
      for (int i = 0; i < n; i++) {
        if (empty(words, i, wpk)) {
          continue;
        }
        NeighborSetEntry e = records.get(r);
        assertEquals(keys[i], e.getKey());
        List<Integer> expected = new ArrayList<>();
        for (int p = 0; p < k; p++) {
          if ((words[i * wpk + (p >>> 6)] >>> (p & 63) & 1) != 0) {
            expected.add(p);
          }
        }
        assertEquals(expected, e.getParts(), "k = " + k + ", record " + r);
        assertEquals(keys[i], readKeys.get(r));
        assertArrayEquals(java.util.Arrays.copyOfRange(words, i * wpk, (i + 1) * wpk), readWords.get(r));
        r++;
      }
      assertEquals(r, records.size());
    }
  }

  private static boolean empty(long[] words, int i, int wpk) {
    for (int w = 0; w < wpk; w++) {
      if (words[i * wpk + w] != 0) {
        return false;
      }
    }
    return true;
  }
}
