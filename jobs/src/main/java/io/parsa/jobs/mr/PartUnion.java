package io.parsa.jobs.mr;

import java.util.Arrays;

/**
 * The union of one key's parts under two placements (the placed U and the seeded random U), gathered from PAIR
 * and USAGE values or single pairs: the one place where the key-usage map side, combiner and reducer merge part
 * sets. Work per key is O(parts added), not O(k). Use: {@link #reset()}, adds, {@link #finish()}, then read.
 */
public final class PartUnion {

  private final boolean[] usedPlaced;
  private final boolean[] usedRandom;
  private final long[] placed;
  private final long[] random;
  private int np;
  private int nr;

  public PartUnion(int k) {
    usedPlaced = new boolean[k];
    usedRandom = new boolean[k];
    placed = new long[k];
    random = new long[k];
  }

  public void reset() {
    np = 0;
    nr = 0;
  }

  public void addPlaced(int part) {
    if (!usedPlaced[part]) {
      usedPlaced[part] = true;
      placed[np++] = part;
    }
  }

  public void addRandom(int part) {
    if (!usedRandom[part]) {
      usedRandom[part] = true;
      random[nr++] = part;
    }
  }

  /** Adds a PAIR (one part of each placement) or a USAGE (part sets of both); any other value is an error. */
  public void add(JoinValue v) {
    if (v.tag() == JoinValue.PAIR) {
      addPlaced(v.a());
      addRandom(v.b());
    } else if (v.tag() == JoinValue.USAGE) {
      long[] l = v.longsArray();
      for (int t = v.usageOffset(false), e = t + v.usageCount(false); t < e; t++) {
        addPlaced((int) l[t]);
      }
      for (int t = v.usageOffset(true), e = t + v.usageCount(true); t < e; t++) {
        addRandom((int) l[t]);
      }
    } else {
      throw new IllegalStateException("expected a PAIR or USAGE value, got " + v);
    }
  }

  /** The finished union of {@code values} alone (PAIR and USAGE values, as {@link #add}). */
  public PartUnion of(Iterable<JoinValue> values) {
    reset();
    for (JoinValue v : values) {
      add(v);
    }
    finish();
    return this;
  }

  /** Sorts both sets and clears the marks; the sets stay readable until the next {@link #reset()}. */
  public void finish() {
    Arrays.sort(placed, 0, np);
    Arrays.sort(random, 0, nr);
    for (int t = 0; t < np; t++) {
      usedPlaced[(int) placed[t]] = false;
    }
    for (int t = 0; t < nr; t++) {
      usedRandom[(int) random[t]] = false;
    }
  }

  public int placedCount() {
    return np;
  }

  public int randomCount() {
    return nr;
  }

  public int placed(int t) {
    return (int) placed[t];
  }

  public int random(int t) {
    return (int) random[t];
  }

  /** Sets {@code out} to the USAGE value of the finished union. */
  public JoinValue writeTo(JoinValue out) {
    return out.setUsage(placed, np, random, nr);
  }
}
