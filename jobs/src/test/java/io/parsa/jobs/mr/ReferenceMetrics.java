package io.parsa.jobs.mr;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Straightforward in-memory recomputation of the paper's figures for tests, written independently of the jobs:
 * N(U_i) as explicit sets, T_i = |N(U_i) \ V_i| + sum_{j != i} |V_i ∩ N(U_j)| by definition.
 */
public final class ReferenceMetrics {

  public final long[] rows;
  public final long[] workingSet;
  public final long[] serverKeys;
  public final long[] traffic;
  public final long[] inner;
  public final long[] inter;
  public final long keys;

  /**
   * @param rowKeys row id to its keys (duplicates allowed)
   * @param uPart row id to part
   * @param vPart key to part (must cover every used key)
   */
  public ReferenceMetrics(Map<Long, long[]> rowKeys, Map<Long, Integer> uPart, Map<Long, Integer> vPart, int k) {
    rows = new long[k];
    workingSet = new long[k];
    serverKeys = new long[k];
    traffic = new long[k];
    inner = new long[k];
    inter = new long[k];
    java.util.List<Set<Long>> n = new java.util.ArrayList<>();
    for (int i = 0; i < k; i++) {
      n.add(new HashSet<>());
    }
    rowKeys.forEach((id, ks) -> {
      int p = uPart.get(id);
      rows[p]++;
      for (long key : ks) {
        n.get(p).add(key);
      }
    });
    Map<Integer, Set<Long>> v = new HashMap<>();
    Set<Long> used = new HashSet<>();
    for (int i = 0; i < k; i++) {
      used.addAll(n.get(i));
      v.put(i, new HashSet<>());
    }
    for (long key : used) {
      v.get(vPart.get(key)).add(key);
    }
    keys = used.size();
    for (int i = 0; i < k; i++) {
      workingSet[i] = n.get(i).size();
      serverKeys[i] = v.get(i).size();
      long in = 0;
      for (long key : n.get(i)) {
        if (v.get(i).contains(key)) {
          in++;
        }
      }
      inner[i] = in;
      inter[i] = workingSet[i] - in;
      long served = 0;
      for (int j = 0; j < k; j++) {
        if (j == i) {
          continue;
        }
        for (long key : v.get(i)) {
          if (n.get(j).contains(key)) {
            served++;
          }
        }
      }
      traffic[i] = inter[i] + served;
    }
  }

  /**
   * Algorithm 2 written out plainly: one sweep over the used keys in ascending order, cost_i from |N(U_i)|, each
   * key to the cheapest part using it (ties: lowest index), cost += -1 + (parts using it - 1).
   */
  public static Map<Long, Integer> algorithm2(Map<Long, long[]> rowKeys, Map<Long, Integer> uPart, int k) {
    java.util.TreeMap<Long, java.util.TreeSet<Integer>> usage = new java.util.TreeMap<>();
    rowKeys.forEach((id, ks) -> {
      for (long key : ks) {
        usage.computeIfAbsent(key, x -> new java.util.TreeSet<>()).add(uPart.get(id));
      }
    });
    double[] cost = new double[k];
    usage.values().forEach(s -> s.forEach(p -> cost[p]++));
    Map<Long, Integer> v = new HashMap<>();
    usage.forEach((key, parts) -> {
      int xi = -1;
      for (int p : parts) {
        if (xi < 0 || cost[p] < cost[xi]) {
          xi = p;
        }
      }
      cost[xi] += -1 + parts.size() - 1;
      v.put(key, xi);
    });
    return v;
  }
}
