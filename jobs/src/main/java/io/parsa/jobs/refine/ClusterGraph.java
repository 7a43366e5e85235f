package io.parsa.jobs.refine;

import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.ints.IntArrays;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import org.apache.hadoop.util.Progressable;

/**
 * The clusters one task of the distributed multilevel start reads ({@link ClusterRow}s: the placement's, or a group
 * of them clustered once more), as the weighted vertices the multilevel partitioner takes: in cluster id order (so
 * that the result does not depend on the order the shuffle delivered them in), a key held by one cluster alone
 * counted in its {@code internal} keys (it can never be cut), every other key a net with a dense id (weighing what the
 * key does: a holder set's keys, {@link ClusterRow#keyWeight}).
 */
final class ClusterGraph {

  /** Cluster ids, in vertex order. */
  final long[] ids;
  final int[] weight;
  /** Keys no other cluster holds: the unlisted ones ({@link ClusterRow#unlisted}) and those listed by this one alone. */
  final int[] internal;
  /** Keys no other cluster holds that were not listed ({@link ClusterRow#unlisted}). */
  final int[] unlisted;
  final int[] vStart;
  final int[] vNets;
  final int numNets;
  /** Every net's weight ({@link ClusterRow#keyWeight}: a holder set's), or null where every net weighs 1. */
  final int[] netWeight;
  /**
   * The clusters' distinct keys (global ids, ascending) as they were read: vertex v's at {@code keys[keyStart[r] ..
   * keyStart[r+1])} with r = {@code readAt[v]}; null once dropped.
   */
  private long[] keys;
  private final int[] keyStart;
  private final int[] readAt;

  private ClusterGraph(long[] ids, int[] weight, int[] internal, int[] unlisted, int[] vStart, int[] vNets, int numNets,
      int[] netWeight, long[] keys, int[] keyStart, int[] readAt) {
    this.ids = ids;
    this.weight = weight;
    this.internal = internal;
    this.unlisted = unlisted;
    this.vStart = vStart;
    this.vNets = vNets;
    this.numNets = numNets;
    this.netWeight = netWeight;
    this.keys = keys;
    this.keyStart = keyStart;
    this.readAt = readAt;
  }

  /**
   * Heap a task needs for {@code clusters} clusters with {@code pins} keys in all, placed into k parts, where the
   * number of nets is not known: as many as the pins, at most 64 per cluster.
   */
  static long heapNeeded(long clusters, long pins, int k) {
    return heapNeeded(clusters, pins, Math.min(pins, clusters * 64), k);
  }

  /**
   * Heap a task needs for {@code clusters} clusters with {@code pins} keys in all that form {@code nets} nets (keys
   * or holder sets that two or more clusters hold), placed into k parts: refine-u's model of a graph of that many rows,
   * pairs and keys ({@link RefineUTool#heapNeeded}: part counts per net, levels per pin), and 42 bytes per pin for the
   * task's own copies of the clusters' keys and the communities. Measured on nine placements of cnr-2000's clusters
   * (k = 2 and 16; the least -Xmx of each replayed alone, less the JVM's own): 1.28–2.18 times what they needed,
   * where 20 bytes per pin with the nets taken as many as the pins fell 7–10 % short on two pairs of parts
   * (docs/quality.md §79).
   */
  static long heapNeeded(long clusters, long pins, long nets, int k) {
    return RefineUTool.heapNeeded(clusters, pins, nets, k) + 42L * pins;
  }

  /**
   * The clusters of {@code values}; if they would need more than {@code maxBytes}, only their ids and weights (in id
   * order), not {@link #placeable}.
   */
  static ClusterGraph read(Iterable<ClusterRow> values, int k, long maxBytes, Progressable progress) {
    LongArrayList ids = new LongArrayList();
    IntArrayList weights = new IntArrayList();
    IntArrayList unlistedRead = new IntArrayList();
    IntArrayList start = new IntArrayList();
    LongArrayList keys = new LongArrayList();
    IntArrayList keyWeights = new IntArrayList();
    boolean weighted = false;
    start.add(0);
    for (ClusterRow c : values) {
      ids.add(c.cluster());
      weights.add(c.weight());
      unlistedRead.add(c.unlisted());
      if (c.weighted() && !weighted) {
        // the keys' weights are kept from the first weighted cluster on (the keys before it weigh 1)
        weighted = true;
        while (keyWeights.size() < keys.size()) {
          keyWeights.add(1);
        }
      }
      for (int i = 0; i < c.size(); i++) {
        keys.add(c.key(i));
        if (weighted) {
          keyWeights.add(c.keyWeight(i));
        }
      }
      start.add(keys.size());
      progress.progress();
    }
    int n = ids.size();
    Long2IntOpenHashMap holders = new Long2IntOpenHashMap();
    for (int i = 0; i < keys.size(); i++) {
      holders.addTo(keys.getLong(i), 1);
    }
    long shared = holders.values().intStream().filter(h -> h >= 2).count();
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    IntArrays.quickSort(order, (a, b) -> Long.compare(ids.getLong(a), ids.getLong(b)));
    long[] sortedIds = new long[n];
    int[] weight = new int[n];
    for (int v = 0; v < n; v++) {
      sortedIds[v] = ids.getLong(order[v]);
      weight[v] = weights.getInt(order[v]);
    }
    if (heapNeeded(n, keys.size(), shared, k) > maxBytes) {
      return new ClusterGraph(sortedIds, weight, null, null, null, null, 0, null, null, null, null);
    }
    Long2IntOpenHashMap netOf = new Long2IntOpenHashMap();
    netOf.defaultReturnValue(-1);
    int[] internal = new int[n];
    int[] unlisted = new int[n];
    int[] vStart = new int[n + 1];
    IntArrayList nets = new IntArrayList();
    IntArrayList netWeights = new IntArrayList();
    for (int v = 0; v < n; v++) {
      int c = order[v];
      unlisted[v] = unlistedRead.getInt(c);
      internal[v] = unlisted[v];
      int from = start.getInt(c);
      int to = start.getInt(c + 1);
      for (int i = from; i < to; i++) {
        long key = keys.getLong(i);
        if (holders.get(key) < 2) {
          internal[v] += weighted ? keyWeights.getInt(i) : 1;
          continue;
        }
        int e = netOf.get(key);
        if (e < 0) {
          e = netOf.size();
          netOf.put(key, e);
          if (weighted) {
            netWeights.add(keyWeights.getInt(i));
          }
        }
        nets.add(e);
      }
      vStart[v + 1] = nets.size();
    }
    return new ClusterGraph(sortedIds, weight, internal, unlisted, vStart, nets.toIntArray(), netOf.size(),
        weighted ? netWeights.toIntArray() : null, keys.elements(), start.toIntArray(), order);
  }

  int size() {
    return ids.length;
  }

  /** Whether the clusters fitted the task's heap when read: else only {@link #ids} and {@link #weight} are kept. */
  boolean placeable() {
    return vStart != null;
  }

  /** Keys of every cluster in all (the pins before the nets were formed). */
  long pins() {
    return keyStart[keyStart.length - 1];
  }

  /** Frees every cluster's own keys (what the placement does not need). */
  void dropKeys() {
    keys = null;
  }

  /**
   * The distinct keys of the vertices {@code members[from..to)} into {@code buf} (grown as needed), ascending;
   * returns the buffer, its length in {@code size[0]}.
   */
  long[] union(int[] members, int from, int to, long[] buf, int[] size) {
    int total = 0;
    for (int q = from; q < to; q++) {
      int r = readAt[members[q]];
      int len = keyStart[r + 1] - keyStart[r];
      if (buf.length < total + len) {
        buf = java.util.Arrays.copyOf(buf, Math.max(2 * buf.length, total + len));
      }
      System.arraycopy(keys, keyStart[r], buf, total, len);
      total += len;
    }
    java.util.Arrays.sort(buf, 0, total);
    int d = 0;
    for (int i = 0; i < total; i++) {
      if (d == 0 || buf[i] != buf[d - 1]) {
        buf[d++] = buf[i];
      }
    }
    size[0] = d;
    return buf;
  }
}
