package io.parsa.engine;

import java.lang.reflect.Array;
import java.util.HashMap;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * Large arrays that one thread's refinement reuses from one V-cycle level, V-cycle or swap round to the next instead
 * of allocating them afresh: a coarse level's nets and pins, the coarsening's per-net scratch, a round's candidates.
 * Fresh memory is not free: the JVM zeroes a large array and the kernel faults in every page of it on first touch (on
 * the 2-core VM of docs/quality.md §25, 11 µs a 4 KiB page; a fifth of refine-u's CPU samples on reuters21578 were
 * such zeroing and faults). An array handed out keeps whatever its last user left in it; whoever needs zeros clears
 * the range it uses. One workspace serves one thread at a time, and an array handed out for a slot is valid until
 * the next request for that slot.
 */
public final class Workspace {
  private final Map<String, Object> slots = new HashMap<>();

  /** An array of at least {@code length} ints for {@code slot}, grown with an eighth to spare when too short. */
  int[] ints(String slot, int length) {
    return array(slot, length, int[].class, int[]::new);
  }

  /** As {@link #ints}, of longs. */
  long[] longs(String slot, int length) {
    return array(slot, length, long[].class, long[]::new);
  }

  /** As {@link #ints}, of floats. */
  float[] floats(String slot, int length) {
    return array(slot, length, float[].class, float[]::new);
  }

  private <A> A array(String slot, int length, Class<A> type, IntFunction<A> make) {
    Object a = slots.get(slot);
    if (type.isInstance(a) && Array.getLength(a) >= length) {
      return type.cast(a);
    }
    A x = make.apply((int) Math.min(Integer.MAX_VALUE - 8, length + (long) (length >>> 3)));
    slots.put(slot, x);
    return x;
  }
}
