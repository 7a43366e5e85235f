package io.parsa.engine.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.parsa.engine.Block;
import io.parsa.engine.BlockSequencePartitioner;
import io.parsa.engine.Initialisation;
import io.parsa.engine.ParsaEngine;
import io.parsa.engine.PlacementEvaluator;
import io.parsa.engine.PlacementMetrics;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code parsa engine-bench}: single-threaded benchmark of the Parsa engine (Algorithm 3 over b random blocks,
 * with a warm-up blocks) on a libsvm / edge-list file or an in-memory power-law graph. Reports edges/s
 * (distinct non-zeros processed by Algorithm 3, warm-up included, divided by the time spent in the engine —
 * no I/O, parsing or block building), wall time, peak heap, and M_max, T_max, T_sum for Parsa and for a
 * seeded random placement (V by Algorithm 2 for both) with the improvements (random − parsa)/parsa × 100 %.
 *
 * <p>Lists of k, b and a (comma-separated) run every combination; the graph is read once.
 */
public final class EngineBench {
  private EngineBench() {}

  static final String USAGE = String.join("\n",
      "usage: parsa engine-bench (--input FILE [--format libsvm|edges] [--symmetric]",
      "                          | --generate ROWS [--keys N] [--avg-degree D] [--key-exponent S])",
      "                          [-k K[,K..]] [-b B[,B..]] [-a A[,A..]] [--a-percent P[,P..]]",
      "                          [--theta T] [--seed S] [--no-quality] [--json FILE]",
      "  --input FILE       libsvm(.gz) or edge list(.gz); format from the name (*.edges*) unless --format",
      "  --symmetric        edge list: add both directions of every edge",
      "  --generate ROWS    in-memory power-law graph (defaults: --keys ROWS, --avg-degree 20,",
      "                     --key-exponent 1.1)",
      "  -k                 parts (default 16)      -b  blocks (default 16)",
      "  -a                 warm-up blocks (default 0); --a-percent: a = round(P/100 * b) instead",
      "  --theta            head pointers for costs 0..T (default " + ParsaEngine.DEFAULT_THETA + ")",
      "  --seed             seed of the block split and the random baseline (default 1)",
      "  --no-quality       skip the metrics (speed only)",
      "  --json FILE        also write the results as JSON");

  /** Entry point for the CLI dispatcher; returns the exit code (0 ok, 2 usage error, 1 failure). */
  public static int run(String[] args) {
    return run(args, System.out, System.err);
  }

  static int run(String[] args, PrintStream out, PrintStream err) {
    Map<String, String> opts;
    try {
      opts = parse(args);
    } catch (IllegalArgumentException e) {
      err.println("engine-bench: " + e.getMessage());
      err.println(USAGE);
      return 2;
    }
    if (opts.containsKey("help")) {
      out.println(USAGE);
      return 0;
    }
    try {
      return bench(opts, out);
    } catch (IllegalArgumentException e) {
      err.println("engine-bench: " + e.getMessage());
      err.println(USAGE);
      return 2;
    } catch (IOException e) {
      err.println("engine-bench: " + e);
      return 1;
    }
  }

  public static void main(String[] args) {
    System.exit(run(args));
  }

  private static Map<String, String> parse(String[] args) {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--symmetric", "--no-quality", "--help", "-h" -> o.put(a.replaceFirst("^-+", ""), "true");
        case "--input", "--format", "--generate", "--keys", "--avg-degree", "--key-exponent", "-k", "-b",
            "-a", "--a-percent", "--theta", "--seed", "--json" -> {
          if (i + 1 >= args.length) {
            throw new IllegalArgumentException("option " + a + " needs a value");
          }
          o.put(a.replaceFirst("^-+", ""), args[++i]);
        }
        default -> throw new IllegalArgumentException("unknown option " + a);
      }
    }
    if (o.containsKey("h")) {
      o.put("help", "true");
    }
    if (!o.containsKey("help") && o.containsKey("input") == o.containsKey("generate")) {
      throw new IllegalArgumentException("give exactly one of --input and --generate");
    }
    return o;
  }

  private static int[] ints(Map<String, String> o, String key, String dflt, int min) {
    String[] parts = o.getOrDefault(key, dflt).split(",");
    int[] r = new int[parts.length];
    for (int i = 0; i < parts.length; i++) {
      try {
        r[i] = Integer.parseInt(parts[i].trim());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("-" + key + ": not an integer: " + parts[i]);
      }
      if (r[i] < min) {
        throw new IllegalArgumentException("-" + key + " must be >= " + min + ", was " + r[i]);
      }
    }
    return r;
  }

  private static int bench(Map<String, String> o, PrintStream out) throws IOException {
    int[] ks = ints(o, "k", "16", 1);
    int[] bs = ints(o, "b", "16", 1);
    boolean percent = o.containsKey("a-percent");
    if (percent && o.containsKey("a")) {
      throw new IllegalArgumentException("give -a or --a-percent, not both");
    }
    int[] as = percent ? ints(o, "a-percent", "0", 0) : ints(o, "a", "0", 0);
    int theta = ints(o, "theta", String.valueOf(ParsaEngine.DEFAULT_THETA), 0)[0];
    long seed = Long.parseLong(o.getOrDefault("seed", "1"));
    boolean quality = !o.containsKey("no-quality");

    long t0 = System.nanoTime();
    InMemoryGraph g;
    String source;
    if (o.containsKey("input")) {
      Path in = Path.of(o.get("input"));
      if (!Files.isRegularFile(in)) {
        throw new IllegalArgumentException("--input: no such file: " + in);
      }
      String format = o.getOrDefault("format",
          in.getFileName().toString().contains(".edges") ? "edges" : "libsvm");
      g = switch (format) {
        case "libsvm" -> GraphReader.readLibsvm(in);
        case "edges" -> GraphReader.readEdges(in, o.containsKey("symmetric"));
        default -> throw new IllegalArgumentException("--format must be libsvm or edges, was " + format);
      };
      source = in.toString();
    } else {
      int rows = ints(o, "generate", "0", 1)[0];
      long keys = Long.parseLong(o.getOrDefault("keys", String.valueOf(rows)));
      double deg = Double.parseDouble(o.getOrDefault("avg-degree", "20"));
      double s = Double.parseDouble(o.getOrDefault("key-exponent", "1.1"));
      g = PowerLawGraph.generate(rows, keys, deg, s, seed);
      source = String.format(Locale.ROOT, "power-law rows=%d keys=%d avg-degree=%s key-exponent=%s seed=%d",
          rows, keys, deg, s, seed);
    }
    double loadSec = (System.nanoTime() - t0) / 1e9;
    out.printf(Locale.ROOT, "# %s: %d rows, %d non-zeros (loaded in %.1f s)%n", source, g.numRows(),
        g.numNonZeros(), loadSec);
    out.printf(Locale.ROOT, "# theta=%d seed=%d java=%s maxHeap=%d MB%n", theta, seed,
        System.getProperty("java.version"), Runtime.getRuntime().maxMemory() >> 20);
    out.println("k\tb\ta\tedges\tengine_s\tMedges/s\tblocks_s\tpeak_heap_MB"
        + (quality ? "\tM_max\tT_max\tT_sum\trnd_M_max\trnd_T_max\trnd_T_sum\timp_M_max%\timp_T_max%\timp_T_sum%"
        : ""));

    List<Map<String, Object>> results = new ArrayList<>();
    for (int b : bs) {
      long tb = System.nanoTime();
      List<Block> blocks = g.randomBlocks(b, seed);
      double blockSec = (System.nanoTime() - tb) / 1e9;
      for (int k : ks) {
        PlacementMetrics random = quality
            ? PlacementEvaluator.evaluate(k, blocks, PlacementEvaluator.randomPlacement(k, blocks, seed + 1))
            : null;
        for (int aIn : as) {
          int a = percent ? (int) Math.round(aIn / 100.0 * b) : aIn;
          System.gc();
          resetPeaks();
          long w0 = System.nanoTime();
          BlockSequencePartitioner.Result r =
              new BlockSequencePartitioner(k, theta).partition(blocks, Initialisation.individual(a));
          double wall = (System.nanoTime() - w0) / 1e9;
          long peak = peakHeap();
          double engineSec = r.engineNanos() / 1e9;
          double eps = r.edgesProcessed() / engineSec;
          Map<String, Object> row = new LinkedHashMap<>();
          row.put("source", source);
          row.put("rows", g.numRows());
          row.put("nonZeros", g.numNonZeros());
          row.put("k", k);
          row.put("b", b);
          row.put("a", a);
          row.put("theta", theta);
          row.put("seed", seed);
          row.put("edgesProcessed", r.edgesProcessed());
          row.put("engineSeconds", engineSec);
          row.put("wallSeconds", wall);
          row.put("edgesPerSecond", eps);
          row.put("blockBuildSeconds", blockSec);
          row.put("peakHeapMB", peak >> 20);
          StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%d\t%d\t%d\t%d\t%.3f\t%.2f\t%.2f\t%d",
              k, b, a, r.edgesProcessed(), engineSec, eps / 1e6, blockSec, peak >> 20));
          if (quality) {
            PlacementMetrics p = PlacementEvaluator.evaluate(k, blocks, r.parts());
            double im = PlacementMetrics.improvementPercent(random.mMax(), p.mMax());
            double it = PlacementMetrics.improvementPercent(random.tMax(), p.tMax());
            double is = PlacementMetrics.improvementPercent(random.tSum(), p.tSum());
            row.put("parsa", Map.of("mMax", p.mMax(), "tMax", p.tMax(), "tSum", p.tSum()));
            row.put("random", Map.of("mMax", random.mMax(), "tMax", random.tMax(), "tSum", random.tSum()));
            row.put("improvementPercent", Map.of("mMax", im, "tMax", it, "tSum", is));
            line.append(String.format(Locale.ROOT, "\t%d\t%d\t%d\t%d\t%d\t%d\t%.1f\t%.1f\t%.1f", p.mMax(),
                p.tMax(), p.tSum(), random.mMax(), random.tMax(), random.tSum(), im, it, is));
          }
          out.println(line);
          out.flush();
          results.add(row);
        }
      }
    }
    if (o.containsKey("json")) {
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
          .writeValue(Path.of(o.get("json")).toFile(), results);
    }
    return 0;
  }

  private static void resetPeaks() {
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP) {
        p.resetPeakUsage();
      }
    }
  }

  private static long peakHeap() {
    long sum = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP) {
        sum += p.getPeakUsage().getUsed();
      }
    }
    return sum;
  }
}
