package io.parsa.jobs.ingest;

import it.unimi.dsi.fastutil.longs.LongArrayList;

/**
 * Parses one libsvm/svmlight line: {@code label[,label...] [qid:n] idx:val idx:val ... [# comment]}.
 *
 * <p>The label is one or more comma-separated numbers (multi-label files); {@code qid:} tokens are checked and
 * ignored; feature indices are non-negative 64-bit integers (kept as written: 1-based files stay 1-based);
 * values must be numbers but are not kept. A row may have no features. Everything from {@code #} on is a
 * comment; a line that is only a comment is reported as {@link LineKind#COMMENT}.
 */
final class LibsvmParser {

  private LibsvmParser() {}

  /** Parses {@code b[0, len)}; on {@link LineKind#RECORD} the row's keys are in {@code keys} (cleared first). */
  static LineKind parse(byte[] b, int len, LongArrayList keys) {
    keys.clear();
    int i = TextScan.skipSpace(b, 0, len);
    if (i == len) {
      return LineKind.BLANK;
    }
    if (b[i] == '#') {
      return LineKind.COMMENT;
    }
    int end = TextScan.indexOf(b, i, len, (byte) '#');
    int t = TextScan.tokenEnd(b, i, end);
    checkLabel(b, i, t);
    i = TextScan.skipSpace(b, t, end);
    while (i < end) {
      t = TextScan.tokenEnd(b, i, end);
      int colon = TextScan.indexOf(b, i, t, (byte) ':');
      if (colon == t) {
        throw new LineFormatException("missing ':' in feature '" + TextScan.show(b, i, t)
            + "'; expected index:value");
      }
      if (colon - i == 3 && b[i] == 'q' && b[i + 1] == 'i' && b[i + 2] == 'd') {
        if (!TextScan.isInteger(b, colon + 1, t)) {
          throw new LineFormatException("bad query id '" + TextScan.show(b, i, t) + "'; expected qid:<integer>");
        }
      } else {
        long index = TextScan.parseNonNegative(b, i, colon, "feature index");
        if (!TextScan.isNumber(b, colon + 1, t)) {
          throw new LineFormatException("bad value in feature '" + TextScan.show(b, i, t)
              + "'; expected index:<number>");
        }
        keys.add(index);
      }
      i = TextScan.skipSpace(b, t, end);
    }
    return LineKind.RECORD;
  }

  private static void checkLabel(byte[] b, int from, int end) {
    if (TextScan.indexOf(b, from, end, (byte) ':') < end) {
      throw new LineFormatException("line starts with feature '" + TextScan.show(b, from, end)
          + "'; expected a label (a number) first");
    }
    int s = from;
    while (s <= end) {
      int c = TextScan.indexOf(b, s, end, (byte) ',');
      if (!TextScan.isNumber(b, s, c)) {
        throw new LineFormatException("bad label '" + TextScan.show(b, from, end)
            + "'; expected a number (or comma-separated numbers)");
      }
      s = c + 1;
    }
  }
}
