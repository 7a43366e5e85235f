package io.parsa.engine;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Communities of the rows of a row–key hypergraph by modularity (the Louvain method: nodes move to the neighbouring
 * community of the largest gain, then every community becomes one node, and again), for the multilevel
 * partitioner's coarsening, which then clusters rows only within their community: the heavy-edge rating alone
 * sometimes joins a row to a cluster across a community's border, and no refinement at a coarser level can undo it.
 *
 * <p>The graph is the hypergraph's bipartite form: a node per row and a node per key of at least two rows, an edge
 * from every key to each of its rows weighing 1/|e| (every key weighs 1 in all; a small key ties its rows closer
 * than a large one; a key that stands for w keys of the same rows weighs w, w/|e| per edge). Keys of more than
 * {@code maxNetSize} rows are left out: they tie everything to everything. The modularity gain of moving node x into
 * community C is w(x, C) − d(x)·D(C)/2W (d: weighted degree, D: the community's total degree, 2W: the sum of all
 * degrees).
 *
 * <p>Every pass visits the nodes in a random order: over the first level (cnr-2000: 575,367 nodes, 7.9·10^6
 * adjacency entries) a pass costs about 0.2 s, mostly cache misses, and visiting in id order or in runs of 256 ids
 * was five times faster but ended with a placement 2–3 % worse in T_sum over eight seeds (docs/quality.md §67). The
 * result depends on the seed only, never on threads.
 *
 * <p>Memory: the bipartite graph (an int and a double per pin in each direction) and its aggregates, at most as
 * much again, while it runs; the result is an int per row.
 */
public final class Communities {

  /** Passes of a level's local moving at most. */
  private static final int MAX_PASSES = 16;
  /** Aggregation levels at most. */
  private static final int MAX_LEVELS = 8;

  /** A level's graph: CSR adjacency with weights, a self-loop weight and the weighted degree of every node. */
  private record Graph(int n, int[] start, int[] adj, double[] w, double[] self, double[] degree, double total) {}

  private Communities() {}

  /**
   * The community of every row (ids 0..c−1 in order of first appearance) of the hypergraph whose keys' rows are
   * {@code nStart}/{@code nPins} ({@code numNets} keys over {@code n} rows); deterministic for a seed.
   */
  public static int[] of(int n, int numNets, int[] nStart, int[] nPins, int maxNetSize, long seed) {
    return of(n, numNets, nStart, nPins, null, maxNetSize, seed);
  }

  /**
   * {@link #of(int, int, int[], int[], int, long)} where key e stands for {@code netWeight[e]} keys of the same rows
   * (null: every key for one), as a placement from a sample of holder sets lists them: such a key weighs that much.
   */
  public static int[] of(int n, int numNets, int[] nStart, int[] nPins, int[] netWeight, int maxNetSize, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    Graph g = bipartite(n, numNets, nStart, nPins, netWeight, maxNetSize);
    // the community of every node of the first graph, followed through the levels
    int[] of = new int[g.n()];
    for (int i = 0; i < of.length; i++) {
      of[i] = i;
    }
    for (int level = 0; level < MAX_LEVELS; level++) {
      int[] c = localMoving(g, rnd);
      int count = renumber(c);
      if (count == g.n()) {
        break; // no node moved: nothing more to aggregate
      }
      for (int i = 0; i < of.length; i++) {
        of[i] = c[of[i]];
      }
      if (count == 1) {
        break;
      }
      g = aggregate(g, c, count);
    }
    int[] rows = Arrays.copyOf(of, n);
    renumber(rows);
    return rows;
  }

  /** Rows 0..n−1, then a node per key of 2..maxNetSize rows. */
  private static Graph bipartite(int n, int numNets, int[] nStart, int[] nPins, int[] netWeight, int maxNetSize) {
    int[] keyNode = new int[numNets];
    int nodes = n;
    long pins = 0;
    for (int e = 0; e < numNets; e++) {
      int size = nStart[e + 1] - nStart[e];
      if (size >= 2 && size <= maxNetSize) {
        keyNode[e] = nodes++;
        pins += size;
      } else {
        keyNode[e] = -1;
      }
    }
    if (2 * pins > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("too many pins for one community graph: " + pins);
    }
    int[] start = new int[nodes + 1];
    for (int e = 0; e < numNets; e++) {
      if (keyNode[e] >= 0) {
        start[keyNode[e] + 1] += nStart[e + 1] - nStart[e];
        for (int q = nStart[e]; q < nStart[e + 1]; q++) {
          start[nPins[q] + 1]++;
        }
      }
    }
    for (int i = 0; i < nodes; i++) {
      start[i + 1] += start[i];
    }
    int[] fill = Arrays.copyOf(start, nodes);
    int[] adj = new int[start[nodes]];
    double[] w = new double[start[nodes]];
    double[] degree = new double[nodes];
    for (int e = 0; e < numNets; e++) {
      int x = keyNode[e];
      if (x < 0) {
        continue;
      }
      double weight = netWeight == null ? 1.0 : netWeight[e];
      double we = weight / (nStart[e + 1] - nStart[e]);
      for (int q = nStart[e]; q < nStart[e + 1]; q++) {
        int u = nPins[q];
        adj[fill[x]] = u;
        w[fill[x]++] = we;
        adj[fill[u]] = x;
        w[fill[u]++] = we;
        degree[u] += we;
      }
      degree[x] = weight;
    }
    double total = 0;
    for (double d : degree) {
      total += d;
    }
    return new Graph(nodes, start, adj, w, new double[nodes], degree, total);
  }

  /**
   * Moves nodes to the neighbouring community of the largest modularity gain, in a random order from {@code rnd}
   * each pass, until a pass moves fewer than 1 % of the nodes or {@link #MAX_PASSES} passes ran; returns every node's
   * community. (Stopping at 0.1 % took cnr-2000's Louvain 4 s instead of 2.4 s for placements of the same quality
   * over eight seeds.)
   */
  private static int[] localMoving(Graph g, SplittableRandom rnd) {
    int n = g.n();
    int[] c = new int[n];
    double[] tot = new double[n];
    int[] start = g.start();
    int[] adj = g.adj();
    double[] w = g.w();
    double[] degree = g.degree();
    for (int i = 0; i < n; i++) {
      c[i] = i;
      tot[i] = degree[i];
    }
    double twoW = g.total();
    double[] wTo = new double[n];
    int[] touched = new int[n];
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    for (int pass = 0; pass < MAX_PASSES; pass++) {
      for (int i = n - 1; i > 0; i--) {
        int j = rnd.nextInt(i + 1);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
      int moved = 0;
      for (int x : order) {
        int own = c[x];
        int nt = 0;
        for (int q = start[x]; q < start[x + 1]; q++) {
          int cy = c[adj[q]];
          if (wTo[cy] == 0) {
            touched[nt++] = cy;
          }
          wTo[cy] += w[q];
        }
        double dx = degree[x];
        tot[own] -= dx;
        int best = own;
        double bestGain = wTo[own] - dx * tot[own] / twoW;
        for (int i = 0; i < nt; i++) {
          int cy = touched[i];
          double gain = wTo[cy] - dx * tot[cy] / twoW;
          if (gain > bestGain + 1e-12) {
            bestGain = gain;
            best = cy;
          }
          wTo[cy] = 0;
        }
        wTo[own] = 0;
        tot[best] += dx;
        if (best != own) {
          c[x] = best;
          moved++;
        }
      }
      if (moved < Math.max(1, n / 100)) {
        break;
      }
    }
    return c;
  }

  /** Renumbers the ids of {@code c} densely from 0 in order of first appearance; returns their count. */
  static int renumber(int[] c) {
    int max = -1;
    for (int x : c) {
      max = Math.max(max, x);
    }
    int[] id = new int[max + 1];
    Arrays.fill(id, -1);
    int count = 0;
    for (int i = 0; i < c.length; i++) {
      if (id[c[i]] < 0) {
        id[c[i]] = count++;
      }
      c[i] = id[c[i]];
    }
    return count;
  }

  /** Every community of {@code c} one node; edges within a community become its self-loop weight. */
  private static Graph aggregate(Graph g, int[] c, int count) {
    int[] memStart = new int[count + 1];
    int[] members = MultilevelPartitioner.groupBy(g.n(), c, memStart);
    int[] gStart = g.start();
    int[] gAdj = g.adj();
    double[] gW = g.w();
    int[] start = new int[count + 1];
    int[] adj = new int[gAdj.length];
    double[] w = new double[gAdj.length];
    double[] self = new double[count];
    double[] degree = new double[count];
    double[] wTo = new double[count];
    int[] touched = new int[count];
    int pos = 0;
    for (int cc = 0; cc < count; cc++) {
      int nt = 0;
      for (int m = memStart[cc]; m < memStart[cc + 1]; m++) {
        int x = members[m];
        self[cc] += g.self()[x];
        degree[cc] += g.degree()[x];
        for (int q = gStart[x]; q < gStart[x + 1]; q++) {
          int cy = c[gAdj[q]];
          if (cy == cc) {
            self[cc] += gW[q];
          } else {
            if (wTo[cy] == 0) {
              touched[nt++] = cy;
            }
            wTo[cy] += gW[q];
          }
        }
      }
      for (int i = 0; i < nt; i++) {
        adj[pos] = touched[i];
        w[pos++] = wTo[touched[i]];
        wTo[touched[i]] = 0;
      }
      start[cc + 1] = pos;
    }
    return new Graph(count, start, Arrays.copyOf(adj, pos), Arrays.copyOf(w, pos), self, degree, g.total());
  }
}
