package io.parsa.jobs.ingest;

import java.nio.charset.StandardCharsets;

/** Byte-level scanning of ASCII number formats in UTF-8 lines, without creating strings. */
final class TextScan {

  private static final int SHOWN = 40;

  private TextScan() {}

  static boolean isSpace(byte c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == 0x0B;
  }

  static int skipSpace(byte[] b, int i, int end) {
    while (i < end && isSpace(b[i])) {
      i++;
    }
    return i;
  }

  static int tokenEnd(byte[] b, int i, int end) {
    while (i < end && !isSpace(b[i])) {
      i++;
    }
    return i;
  }

  static int indexOf(byte[] b, int from, int end, byte c) {
    for (int i = from; i < end; i++) {
      if (b[i] == c) {
        return i;
      }
    }
    return end;
  }

  /** The bytes as a string for an error message, shortened. */
  static String show(byte[] b, int from, int end) {
    int n = end - from;
    String s = new String(b, from, Math.min(n, SHOWN), StandardCharsets.UTF_8);
    return n > SHOWN ? s + "..." : s;
  }

  /**
   * Parses a non-negative decimal integer occupying exactly [from, end). {@code what} names the field in error
   * messages ("feature index", "vertex id").
   */
  static long parseNonNegative(byte[] b, int from, int end, String what) {
    if (from == end) {
      throw new LineFormatException("missing " + what + "; expected a non-negative integer");
    }
    int i = from;
    if (b[i] == '-' && end - from > 1 && allDigits(b, from + 1, end)) {
      throw new LineFormatException("negative " + what + " " + show(b, from, end)
          + "; expected a non-negative integer");
    }
    long v = 0;
    for (; i < end; i++) {
      int d = b[i] - '0';
      if (d < 0 || d > 9) {
        throw new LineFormatException("non-integer " + what + " '" + show(b, from, end)
            + "'; expected a non-negative integer");
      }
      if (v > (Long.MAX_VALUE - d) / 10) {
        if (!allDigits(b, i, end)) {
          throw new LineFormatException("non-integer " + what + " '" + show(b, from, end)
              + "'; expected a non-negative integer");
        }
        throw new LineFormatException(what + " " + show(b, from, end)
            + " overflows a 64-bit id; expected at most " + Long.MAX_VALUE);
      }
      v = v * 10 + d;
    }
    return v;
  }

  /** True if [from, end) is an optionally signed decimal integer. */
  static boolean isInteger(byte[] b, int from, int end) {
    int i = from;
    if (i < end && (b[i] == '-' || b[i] == '+')) {
      i++;
    }
    return i < end && allDigits(b, i, end);
  }

  static boolean allDigits(byte[] b, int from, int end) {
    for (int i = from; i < end; i++) {
      if (b[i] < '0' || b[i] > '9') {
        return false;
      }
    }
    return from < end;
  }

  /**
   * True if [from, end) is a decimal floating-point number: {@code [+-](digits[.digits]|.digits)[(e|E)[+-]digits]},
   * or {@code nan}/{@code inf}/{@code infinity} in any case.
   */
  static boolean isNumber(byte[] b, int from, int end) {
    int i = from;
    if (i < end && (b[i] == '-' || b[i] == '+')) {
      i++;
    }
    if (i == end) {
      return false;
    }
    if (!isDigit(b[i]) && b[i] != '.') {
      String word = new String(b, i, end - i, StandardCharsets.US_ASCII).toLowerCase(java.util.Locale.ROOT);
      return word.equals("nan") || word.equals("inf") || word.equals("infinity");
    }
    int digits = 0;
    while (i < end && isDigit(b[i])) {
      i++;
      digits++;
    }
    if (i < end && b[i] == '.') {
      i++;
      while (i < end && isDigit(b[i])) {
        i++;
        digits++;
      }
    }
    if (digits == 0) {
      return false;
    }
    if (i < end && (b[i] == 'e' || b[i] == 'E')) {
      i++;
      if (i < end && (b[i] == '-' || b[i] == '+')) {
        i++;
      }
      int exp = 0;
      while (i < end && isDigit(b[i])) {
        i++;
        exp++;
      }
      if (exp == 0) {
        return false;
      }
    }
    return i == end;
  }

  private static boolean isDigit(byte c) {
    return c >= '0' && c <= '9';
  }
}
