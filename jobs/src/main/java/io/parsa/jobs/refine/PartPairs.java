package io.parsa.jobs.refine;

import java.util.ArrayList;
import java.util.List;

/**
 * A sparse k × k table over ordered part pairs, as a job's configuration carries it: "from:to" entries (a set of
 * moves, {@link GainReducer#TARGETS}) or "from:to:count" entries (rows per move, {@link FlowReducer#QUOTAS}).
 */
final class PartPairs {

  private PartPairs() {}

  /**
   * The table of {@code entries} (null: empty) under configuration key {@code key}: each pair's count, or 1 per listed
   * pair where the entries carry none ({@code counted} false). A malformed entry, a part outside 0..k−1, a pair of one
   * part with itself or a negative count is an error naming the key and the entry.
   */
  static long[][] parse(String key, String[] entries, int k, boolean counted) {
    long[][] t = new long[k][k];
    if (entries == null) {
      return t;
    }
    for (String e : entries) {
      String[] f = e.split(":");
      if (f.length != (counted ? 3 : 2)) {
        throw new IllegalArgumentException(key + ": expected " + (counted ? "from:to:rows" : "from:to") + ", got " + e);
      }
      int from;
      int to;
      long count;
      try {
        from = Integer.parseInt(f[0].trim());
        to = Integer.parseInt(f[1].trim());
        count = counted ? Long.parseLong(f[2].trim()) : 1;
      } catch (NumberFormatException x) {
        throw new IllegalArgumentException(key + ": not numbers: " + e);
      }
      if (from < 0 || from >= k || to < 0 || to >= k || from == to || count < 0) {
        throw new IllegalArgumentException(key + ": not a move between two of the " + k + " parts: " + e);
      }
      t[from][to] = count;
    }
    return t;
  }

  /** The positive entries of {@code t}, with their counts if {@code counted}. */
  static String[] format(long[][] t, boolean counted) {
    List<String> out = new ArrayList<>();
    for (int from = 0; from < t.length; from++) {
      for (int to = 0; to < t[from].length; to++) {
        if (t[from][to] > 0) {
          out.add(counted ? from + ":" + to + ":" + t[from][to] : from + ":" + to);
        }
      }
    }
    return out.toArray(String[]::new);
  }
}
