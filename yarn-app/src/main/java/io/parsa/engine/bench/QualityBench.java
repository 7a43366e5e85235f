package io.parsa.engine.bench;

import io.parsa.engine.Block;
import io.parsa.engine.BlockSequencePartitioner;
import io.parsa.engine.Initialisation;
import io.parsa.engine.KeySignatures;
import io.parsa.engine.MultilevelPartitioner;
import io.parsa.engine.PlacementEvaluator;
import io.parsa.engine.PlacementMetrics;
import io.parsa.engine.URefinement;
import io.parsa.engine.VPlacement;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * {@code parsa quality-bench}: in-memory quality of the placement stages on one dataset — Parsa's U (sequential
 * engine over b random blocks), then each V placement method with the LP lower bound on T_max, then U refinement
 * rounds with their effect on M_max, T_max, T_sum. Exact counts, single-threaded, no Hadoop.
 *
 * <pre>
 * usage: quality-bench FILE [libsvm|edges|uedges] [k=16] [b=4] [rounds=8] [seed=1] [exponents=2] [guard=true]
 *                      [start=parsa|order|multilevel|parsa-vcycle|order-vcycle]
 * </pre>
 *
 * <p>The multilevel start reads its settings from system properties {@code ml.maxNet}, {@code ml.perPart}, {@code ml.vcyclePerPart},
 * {@code ml.eps}, {@code ml.tries}, {@code ml.rounds}, {@code ml.fm} (defaults: {@link MultilevelPartitioner.Settings#defaults()}).
 */
public final class QualityBench {
  private QualityBench() {}

  public static void main(String[] args) throws IOException {
    if (args.length < 1) {
      System.err.println("usage: quality-bench FILE [libsvm|edges|uedges] [k] [b] [rounds] [seed]");
      System.exit(2);
    }
    Path in = Path.of(args[0]);
    String format = args.length > 1 ? args[1] : "libsvm";
    int k = args.length > 2 ? Integer.parseInt(args[2]) : 16;
    int b = args.length > 3 ? Integer.parseInt(args[3]) : 4;
    int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 8;
    long seed = args.length > 5 ? Long.parseLong(args[5]) : 1;
    // comma: separate refinements from Parsa's U; plus: phases of one refinement (rounds each)
    String[] schedules = (args.length > 6 ? args[6] : "2").split(",");
    boolean guard = args.length <= 7 || Boolean.parseBoolean(args[7]);
    String start = args.length > 8 ? args[8] : "parsa";
    run(in, format, k, b, rounds, seed, schedules, guard, start, System.out);
  }

  static void run(Path in, String format, int k, int b, int rounds, long seed, String[] schedules, boolean guard,
      String start, PrintStream out) throws IOException {
    long t0 = System.nanoTime();
    InMemoryGraph g = switch (format) {
      case "libsvm" -> GraphReader.readLibsvm(in);
      case "edges" -> GraphReader.readEdges(in, false);
      case "uedges" -> GraphReader.readEdges(in, true);
      default -> throw new IllegalArgumentException("format must be libsvm, edges or uedges, was " + format);
    };
    List<Block> blocks = g.randomBlocks(b, seed);
    out.printf(Locale.ROOT, "# %s (%s): %d rows, %d non-zeros, k=%d, b=%d, seed=%d, loaded in %.1f s%n", in,
        format, g.numRows(), g.numNonZeros(), k, b, seed, secs(t0));

    PlacementMetrics rnd = PlacementEvaluator.evaluate(k, blocks, PlacementEvaluator.randomPlacement(k, blocks,
        seed + 1));
    out.printf(Locale.ROOT, "random U, V by Algorithm 2: M_max %,d  T_max %,d  T_sum %,d%n", rnd.mMax(), rnd.tMax(),
        rnd.tSum());
    long t1 = System.nanoTime();
    BlockSequencePartitioner.Result r = new BlockSequencePartitioner(k).partition(blocks, Initialisation.none());
    double parsaSec = secs(t1);
    int[][] parts = r.parts();
    report(out, "parsa U", k, blocks, parts, parsaSec);
    if (start.equals("order")) {
      parts = URefinement.inputOrderStart(k, blocks);
      report(out, "input-order U", k, blocks, parts, 0);
    } else if (start.endsWith("vcycle")) {
      int[][] from = start.startsWith("order") ? URefinement.inputOrderStart(k, blocks) : parts;
      long tm = System.nanoTime();
      parts = from;
      for (int cycle = 0; cycle < Integer.getInteger("ml.cycles", 1); cycle++) {
        parts = new MultilevelPartitioner(k, mlSettings(seed + cycle), line -> out.println("# " + line))
            .partition(blocks, parts);
      }
      report(out, start + " U", k, blocks, parts, secs(tm));
    } else if (start.equals("multilevel")) {
      long tm = System.nanoTime();
      parts = new MultilevelPartitioner(k, mlSettings(seed), line -> out.println("# " + line)).partition(blocks);
      report(out, "multilevel U", k, blocks, parts, secs(tm));
    } else if (!start.equals("parsa")) {
      throw new IllegalArgumentException("start must be parsa, order, multilevel, parsa-vcycle or order-vcycle, was "
          + start);
    }

    for (String schedule : schedules) {
      if (rounds == 0) {
        break;
      }
      String[] phases = schedule.split("\\+");
      long t2 = System.nanoTime();
      URefinement ref = new URefinement(k, blocks, parts, Double.parseDouble(phases[0]), guard);
      out.printf(Locale.ROOT, "# refinement p=%s guard=%s set-up %.2f s; start %s%n", schedule, guard, secs(t2),
          ref.summary());
      for (String phase : phases) {
        ref.setExponent(Double.parseDouble(phase));
        for (int round = 1; round <= rounds; round++) {
          long t3 = System.nanoTime();
          URefinement.RoundStats st = ref.round();
          out.printf(Locale.ROOT, "# p=%s round %d: %s in %.2f s%n", phase, round, st, secs(t3));
          if (st.moves() == 0 || st.objectiveChangePercent() > -0.1) {
            break;
          }
        }
      }
      report(out, "refined U (p=" + schedule + ")", k, blocks, ref.parts(), secs(t2));
    }
  }

  /** Multilevel settings: the defaults, overridden by the system properties ml.*. */
  private static MultilevelPartitioner.Settings mlSettings(long seed) {
    MultilevelPartitioner.Settings d = MultilevelPartitioner.Settings.defaults();
    return new MultilevelPartitioner.Settings(Integer.getInteger("ml.maxNet", d.maxNetSize()),
        Integer.getInteger("ml.perPart", d.coarsestPerPart()), Integer.getInteger("ml.vcyclePerPart", d.vcyclePerPart()),
        Double.parseDouble(System.getProperty("ml.eps", String.valueOf(d.imbalance()))),
        Integer.getInteger("ml.tries", d.initialTries()), Integer.getInteger("ml.rounds", d.refineRounds()),
        Integer.getInteger("ml.fm", d.fmPasses()), seed);
  }

  private static void report(PrintStream out, String label, int k, List<Block> blocks, int[][] parts, double sec) {
    PlacementEvaluator.KeyUsage u = PlacementEvaluator.usage(k, blocks, parts);
    KeySignatures sigs = new KeySignatures(k);
    int wpk = (k + 63) >>> 6;
    for (int j = 0; j < u.keys().length; j++) {
      sigs.addBits(u.bits(), j * wpk);
    }
    long[] m = sigs.workingSets();
    double[] start = new double[k];
    for (int i = 0; i < k; i++) {
      start[i] = m[i];
    }
    double bound = VPlacement.lowerBound(sigs, start);
    out.printf(Locale.ROOT, "%s (%.2f s): %d keys, %d signatures, T_max lower bound (LP) %d%n", label, sec,
        sigs.numKeys(), sigs.numSignatures(), (long) Math.ceil(bound - 1e-9));
    for (VPlacement.Method method : VPlacement.Method.values()) {
      long tv = System.nanoTime();
      VPlacement.Result v = VPlacement.place(sigs, start, method);
      double vs = secs(tv);
      PlacementMetrics pm = PlacementEvaluator.evaluate(u, v.parts());
      out.printf(Locale.ROOT, "  V %-13s M_max %,9d  T_max %,9d  T_sum %,11d  (%.3f s, %d moves)%n",
          method.cliName(), pm.mMax(), pm.tMax(), pm.tSum(), vs, v.localSearchMoves());
    }
  }

  private static double secs(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }
}
