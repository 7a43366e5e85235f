package io.parsa.jobs.ingest;

/**
 * Parses one edge-list line {@code u v [more columns]} (whitespace separated, SNAP style). Vertex ids are
 * non-negative 64-bit integers; further columns (weights, timestamps) are allowed and ignored. Lines whose first
 * non-blank character is {@code #} or {@code %} are comments.
 */
final class EdgeListParser {

  private EdgeListParser() {}

  /** Parses {@code b[0, len)}; on {@link LineKind#RECORD} {@code uv[0]} and {@code uv[1]} hold u and v. */
  static LineKind parse(byte[] b, int len, long[] uv) {
    int i = TextScan.skipSpace(b, 0, len);
    if (i == len) {
      return LineKind.BLANK;
    }
    if (b[i] == '#' || b[i] == '%') {
      return LineKind.COMMENT;
    }
    int t = TextScan.tokenEnd(b, i, len);
    int j = TextScan.skipSpace(b, t, len);
    if (j == len) {
      throw new LineFormatException("only one column '" + TextScan.show(b, i, t)
          + "'; expected two vertex ids 'u<TAB>v'");
    }
    int t2 = TextScan.tokenEnd(b, j, len);
    uv[0] = TextScan.parseNonNegative(b, i, t, "vertex id");
    uv[1] = TextScan.parseNonNegative(b, j, t2, "vertex id");
    return LineKind.RECORD;
  }
}
