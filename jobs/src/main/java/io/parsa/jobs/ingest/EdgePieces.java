package io.parsa.jobs.ingest;

import io.parsa.jobs.mr.KeyPairBuffer;
import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.mapreduce.TaskInputOutputContext;

/**
 * In-mapper combining of an edge-list split: the pieces that its lines give (a source's key and line, a target's
 * key or empty piece) are gathered and emitted as one piece per row, with the row's keys in line order and its raw
 * lines joined by newlines, keyed by the row and its first line. A split's lines arrive in order and every flush
 * holds a contiguous run of them, so the pieces of one row from different flushes or splits never interleave in
 * line order: the reducer, which concatenates a row's pieces by (row, first line), assembles exactly the row the
 * uncombined pieces gave. The shuffle then carries about a record per row and flush instead of one or two per
 * line (cnr-2000: 6.4·10^6 records, whose sort and merge were most of ingest's map time).
 *
 * <p>Bounded: at most {@code maxEntries} pieces (about 40 bytes each) and {@code maxRawBytes} bytes of lines are
 * held; {@link #full()} says when to {@link #flush}.
 */
final class EdgePieces {

  private final int maxEntries;
  private final int maxRawBytes;
  private final KeyPairBuffer order;
  private long[] seq = new long[1024];
  private long[] key = new long[1024];
  private int[] rawStart = new int[1024];
  private int[] rawLen = new int[1024];
  private boolean[] keyed = new boolean[1024];
  private byte[] raw = new byte[1 << 16];
  private int rawUsed;
  private int n;

  EdgePieces(int maxEntries, int maxRawBytes) {
    this.maxEntries = Math.max(1, maxEntries);
    this.maxRawBytes = Math.max(1, maxRawBytes);
    order = new KeyPairBuffer(Math.min(this.maxEntries, 1 << 16));
  }

  /**
   * Row {@code row}'s piece of line {@code lineId}: key {@code k} if {@code hasKey}, and the line if {@code len ≥ 0}.
   */
  void add(long row, long lineId, boolean hasKey, long k, byte[] line, int len) {
    if (n == seq.length) {
      int cap = 2 * n;
      seq = Arrays.copyOf(seq, cap);
      key = Arrays.copyOf(key, cap);
      rawStart = Arrays.copyOf(rawStart, cap);
      rawLen = Arrays.copyOf(rawLen, cap);
      keyed = Arrays.copyOf(keyed, cap);
    }
    seq[n] = lineId;
    key[n] = k;
    keyed[n] = hasKey;
    rawLen[n] = len;
    if (len >= 0) {
      if (rawUsed + len > raw.length) {
        // doubling, but not far past the bound: a flush follows as soon as it is reached
        int cap = (int) Math.min(2L * raw.length, (long) maxRawBytes + (1 << 16));
        raw = Arrays.copyOf(raw, Math.max(rawUsed + len, cap));
      }
      System.arraycopy(line, 0, raw, rawUsed, len);
      rawStart[n] = rawUsed;
      rawUsed += len;
    }
    order.add(row, n++);
  }

  boolean full() {
    return n >= maxEntries || rawUsed >= maxRawBytes;
  }

  /** Emits one piece per row held, in row order, and empties the buffer; returns the pieces emitted. */
  <K, V> long flush(TaskInputOutputContext<K, V, RowKey, RowPiece> context, RowKey outKey, RowPiece outValue)
      throws IOException, InterruptedException {
    if (n == 0) {
      return 0;
    }
    order.sort(); // by row, then entry index = line order
    long pieces = 0;
    for (int i = 0; i < n; ) {
      int end = order.runEnd(i);
      outValue.clear();
      for (int t = i; t < end; t++) {
        int e = (int) order.value(t);
        if (keyed[e]) {
          outValue.addKey(key[e]);
        }
        if (rawLen[e] >= 0) {
          outValue.addRawLine(raw, rawStart[e], rawLen[e]);
        }
      }
      context.write(outKey.set(order.key(i), seq[(int) order.value(i)]), outValue);
      pieces++;
      i = end;
    }
    order.clear();
    n = 0;
    rawUsed = 0;
    return pieces;
  }
}
