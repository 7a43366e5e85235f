package io.parsa.yarn.worker;

import java.util.ArrayList;
import java.util.List;

/**
 * A worker's own pushes that the servers have not acknowledged yet. Pulled sets are overlaid with them, so a
 * worker always sees its own earlier blocks (read-your-writes) even while its pushes are in flight under an
 * unbounded τ; staleness is then only across workers, as in the paper's analysis.
 */
final class PendingPushes {

  /** One push: keys ascending, {@code wpk} words per key. */
  static final class Entry {
    final long[] keys;
    final long[] bits;

    Entry(long[] keys, long[] bits) {
      this.keys = keys;
      this.bits = bits;
    }
  }

  private final List<Entry> entries = new ArrayList<>();

  synchronized Entry add(long[] keys, long[] bits) {
    Entry e = new Entry(keys, bits);
    entries.add(e);
    return e;
  }

  synchronized void remove(Entry e) {
    if (e != null) {
      entries.remove(e);
    }
  }

  /** The pushes not yet acknowledged; take it before pulling. */
  synchronized List<Entry> snapshot() {
    return new ArrayList<>(entries);
  }

  /** ORs the pushes of {@code snapshot} into {@code membership} (layout of {@code keys}, which are ascending). */
  static void overlay(List<Entry> snapshot, long[] keys, long[] membership, int wpk) {
    for (Entry e : snapshot) {
      int i = 0;
      int j = 0;
      while (i < keys.length && j < e.keys.length) {
        if (keys[i] < e.keys[j]) {
          i++;
        } else if (keys[i] > e.keys[j]) {
          j++;
        } else {
          for (int w = 0; w < wpk; w++) {
            membership[i * wpk + w] |= e.bits[j * wpk + w];
          }
          i++;
          j++;
        }
      }
    }
  }
}
