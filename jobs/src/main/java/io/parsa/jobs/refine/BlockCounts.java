package io.parsa.jobs.refine;

import io.parsa.yarn.io.AssignmentFiles;
import io.parsa.yarn.io.BlockData;
import io.parsa.yarn.io.BlockFiles;
import io.parsa.yarn.io.BlockStats;
import it.unimi.dsi.fastutil.Hash;
import it.unimi.dsi.fastutil.HashCommon;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.io.IOException;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.TaskInputOutputContext;

/**
 * What a reducer keyed by block ({@link GainReducer}, {@link ChunkReducer}) reads for one block: the count job's part
 * counts of the block's keys (all blocks' rows), the block's rows from its file and their parts from the block's
 * assignment file ({@link GainReducer#BLOCKS}, {@link GainReducer#U}). Reused from block to block.
 */
final class BlockCounts {

  private final Long2IntOpenHashMap index = new Long2IntOpenHashMap();
  private final IntArrayList start = new IntArrayList();
  private final IntArrayList parts = new IntArrayList();
  private final IntArrayList counts = new IntArrayList();
  /** The part of every row of the block, by id (−1: none). */
  final Long2IntOpenHashMap partOf = new Long2IntOpenHashMap();
  private final List<Path> blockFiles;
  private final FileSystem blocksFs;
  private final Path uDir;
  private final FileSystem uFs;
  /** Ingest's rows and non-zeros per block (null if not found): a block's arrays are allocated once at their size. */
  private final BlockStats counted;
  /** The block read last. */
  BlockData data;
  /** The most keys and rows a block had so far: the maps keep the capacity they grew to across clear(). */
  private int mostKeys;
  private int mostRows;

  BlockCounts(Configuration conf) throws IOException {
    Path blocks = new Path(conf.get(GainReducer.BLOCKS));
    blocksFs = blocks.getFileSystem(conf);
    blockFiles = BlockFiles.list(blocksFs, blocks);
    counted = BlockStats.read(blocksFs, blocks, blockFiles.size()).stats;
    uDir = new Path(conf.get(GainReducer.U));
    uFs = uDir.getFileSystem(conf);
    index.defaultReturnValue(-1);
    partOf.defaultReturnValue(-1);
  }

  /**
   * Reads block {@code b}: the counts of its keys from {@code values} (its marker, an empty record, skipped; a key
   * counted twice is counted as DUPLICATE_KEY_COUNTS), its rows and their parts.
   */
  void read(int b, Iterable<KeyCounts> values, TaskInputOutputContext<?, ?, ?, ?> context) throws IOException {
    // the last block goes before the next is read: a reducer with two blocks of 7·10^6 and 6·10^6 non-zeros held
    // both (and the second's doubling arrays) and ran its 410 MiB heap out
    data = null;
    index.clear();
    start.clear();
    parts.clear();
    counts.clear();
    for (KeyCounts v : values) {
      if (v.size() == 0) {
        continue; // the block's marker (MarkerMapper)
      }
      if (index.put(v.key(), start.size()) != -1) {
        context.getCounter(MrRefinement.Counters.DUPLICATE_KEY_COUNTS).increment(1);
      }
      start.add(parts.size());
      for (int t = 0; t < v.size(); t++) {
        parts.add(v.part(t));
        counts.add(v.count(t));
      }
    }
    start.add(parts.size());
    mostKeys = Math.max(mostKeys, index.size());
    data = counted == null ? BlockFiles.read(blocksFs, blockFiles.get(b))
        : BlockFiles.read(blocksFs, blockFiles.get(b), counted.rowsPerBlock[b], counted.nonZerosPerBlock[b]);
    AssignmentFiles.Rows a = AssignmentFiles.read(uFs, AssignmentFiles.fileFor(uDir, b));
    partOf.clear();
    for (int r = 0; r < a.n; r++) {
      partOf.put(a.ids[r], a.parts[r]);
    }
    mostRows = Math.max(mostRows, partOf.size());
  }

  /**
   * The heap the block read last holds, by its arrays' lengths and its maps' and lists' capacities: a function of the
   * blocks read, not of when the collector ran.
   */
  long heldBytes() {
    long bytes = mapBytes(mostKeys) + mapBytes(mostRows)
        + 4L * (start.elements().length + parts.elements().length + counts.elements().length);
    BlockData d = data;
    if (d != null) {
      bytes += 8L * d.rowIds.length + 4L * d.rowStart.length + 8L * d.rowKeys.length
          + (d.weights == null ? 0 : 8L * d.weights.length);
    }
    return bytes;
  }

  /** A long-to-int open hash map's two arrays for {@code size} entries at fastutil's default load factor. */
  private static long mapBytes(int size) {
    return (Long.BYTES + Integer.BYTES) * (HashCommon.arraySize(Math.max(1, size), Hash.DEFAULT_LOAD_FACTOR) + 1L);
  }

  /** The position of {@code key}'s counts, or −1 if the block got none: its counts are [start[j], start[j + 1]). */
  int indexOf(long key) {
    return index.get(key);
  }

  /** Where each key's counts begin (by {@link #indexOf}), one past the last at the end. */
  int[] start() {
    return start.elements();
  }

  /** The parts of the counts, ascending within a key. */
  int[] parts() {
    return parts.elements();
  }

  /** The rows of each count's part that use its key. */
  int[] counts() {
    return counts.elements();
  }
}
