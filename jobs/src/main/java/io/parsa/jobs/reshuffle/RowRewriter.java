package io.parsa.jobs.reshuffle;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.LongUnaryOperator;

/**
 * Rewrites the keys inside a row's raw bytes, changing nothing else (whitespace, labels, values, comments stay
 * byte for byte):
 * <ul>
 *   <li>libsvm {@code label [qid:q] idx:val ... [# comment]}: each {@code idx} becomes {@code newKey + 1} (libsvm
 *       indices are 1-based; new keys are 0-based), {@code qid:} tokens and the label are kept;</li>
 *   <li>edge list, lines {@code src<ws>dst[<ws>rest]} joined by '\n': {@code dst} becomes {@code newKey} (vertex ids
 *       stay 0-based as the new keys are); the source column is the row id and is kept.</li>
 * </ul>
 * libsvm: the indices found must equal the row's keys in order (GraphRow.keys keeps every non-zero in input
 * order). Edge lists: every line's target must be one of the row's keys (as a multiset); for an undirected input
 * (ingest's uedges) a row also holds the reverse-direction keys, which have no line of their own in raw, so fewer
 * keys than the row has may be rewritten. {@link #rewrite} returns null on a mismatch, so the caller can count it.
 */
public final class RowRewriter {

  /** How a row's raw bytes are laid out. */
  public enum Format { AUTO, LIBSVM, EDGES }

  private RowRewriter() {}

  private static boolean ws(byte b) {
    return b == ' ' || b == '\t' || b == '\r';
  }

  /** The format of one row: libsvm if its second token holds a ':', else edges. */
  public static Format detect(byte[] raw) {
    int i = 0;
    int n = raw.length;
    while (i < n && ws(raw[i])) {
      i++;
    }
    while (i < n && !ws(raw[i]) && raw[i] != '\n') {
      i++;
    }
    while (i < n && ws(raw[i])) {
      i++;
    }
    while (i < n && !ws(raw[i]) && raw[i] != '\n') {
      if (raw[i] == ':') {
        return Format.LIBSVM;
      }
      i++;
    }
    return Format.EDGES;
  }

  /** A rewritten row: its bytes and how many of its keys occurred in them. */
  public static final class Result {
    public final byte[] bytes;
    public final int keysRewritten;

    Result(byte[] bytes, int keysRewritten) {
      this.bytes = bytes;
      this.keysRewritten = keysRewritten;
    }
  }

  /**
   * The raw bytes with every key replaced by {@code map(key)}, or null if the keys found in the bytes do not
   * match {@code keys[0..n)} (libsvm: all of them, in order; edges: each line's target one of them).
   */
  public static Result rewrite(byte[] raw, long[] keys, int n, Format format, LongUnaryOperator map) {
    Format f = format == Format.AUTO ? detect(raw) : format;
    ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length + 16);
    int[] next = {0};
    if (f == Format.LIBSVM) {
      return libsvm(raw, keys, n, map, out, next) && next[0] == n ? new Result(out.toByteArray(), n) : null;
    }
    return edges(raw, keys, n, map, out, next) ? new Result(out.toByteArray(), next[0]) : null;
  }

  private static boolean libsvm(byte[] raw, long[] keys, int n, LongUnaryOperator map, ByteArrayOutputStream out,
      int[] next) {
    int len = raw.length;
    int i = 0;
    boolean first = true;
    while (i < len) {
      if (ws(raw[i]) || raw[i] == '\n') {
        out.write(raw[i++]);
        continue;
      }
      int start = i;
      while (i < len && !ws(raw[i]) && raw[i] != '\n') {
        i++;
      }
      if (raw[start] == '#') {
        out.write(raw, start, len - start); // comment to the end of the line, kept as is
        return true;
      }
      int colon = indexOf(raw, start, i, (byte) ':');
      if (first || colon < 0 || startsWith(raw, start, "qid:")) {
        out.write(raw, start, i - start);
      } else {
        Long idx = parseLong(raw, start, colon);
        if (idx == null || next[0] >= n || keys[next[0]] != idx) {
          return false;
        }
        next[0]++;
        byte[] nk = Long.toString(map.applyAsLong(idx) + 1).getBytes(StandardCharsets.US_ASCII);
        out.write(nk, 0, nk.length);
        out.write(raw, colon, i - colon);
      }
      first = false;
    }
    return true;
  }

  private static boolean edges(byte[] raw, long[] keys, int n, LongUnaryOperator map, ByteArrayOutputStream out,
      int[] next) {
    long[] sorted = java.util.Arrays.copyOf(keys, n);
    java.util.Arrays.sort(sorted);
    boolean[] taken = new boolean[n];
    int len = raw.length;
    int i = 0;
    while (i <= len) {
      int end = indexOf(raw, i, len, (byte) '\n');
      if (end < 0) {
        end = len;
      }
      // line [i, end): src ws dst [ws rest]
      int p = i;
      while (p < end && ws(raw[p])) {
        p++;
      }
      while (p < end && !ws(raw[p])) {
        p++;
      }
      int q = p;
      while (q < end && ws(raw[q])) {
        q++;
      }
      int r = q;
      while (r < end && !ws(raw[r])) {
        r++;
      }
      if (q < r) {
        Long dst = parseLong(raw, q, r);
        if (dst == null || !take(sorted, taken, dst)) {
          return false;
        }
        next[0]++;
        out.write(raw, i, q - i);
        byte[] nk = Long.toString(map.applyAsLong(dst)).getBytes(StandardCharsets.US_ASCII);
        out.write(nk, 0, nk.length);
        out.write(raw, r, end - r);
      } else {
        out.write(raw, i, end - i);
      }
      if (end < len) {
        out.write('\n');
      }
      i = end + 1;
    }
    return true;
  }

  /** Marks one not yet taken occurrence of {@code x} in {@code sorted}; false if there is none. */
  private static boolean take(long[] sorted, boolean[] taken, long x) {
    int i = java.util.Arrays.binarySearch(sorted, x);
    if (i < 0) {
      return false;
    }
    while (i > 0 && sorted[i - 1] == x) {
      i--;
    }
    for (; i < sorted.length && sorted[i] == x; i++) {
      if (!taken[i]) {
        taken[i] = true;
        return true;
      }
    }
    return false;
  }

  private static int indexOf(byte[] b, int from, int to, byte c) {
    for (int i = from; i < to; i++) {
      if (b[i] == c) {
        return i;
      }
    }
    return -1;
  }

  private static boolean startsWith(byte[] b, int from, String s) {
    if (b.length - from < s.length()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (b[from + i] != s.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  private static Long parseLong(byte[] b, int from, int to) {
    try {
      return Long.parseLong(new String(b, from, to - from, StandardCharsets.US_ASCII));
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
