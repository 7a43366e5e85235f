package io.parsa.engine.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.parsa.engine.Block;
import io.parsa.engine.BlockSequencePartitioner;
import io.parsa.engine.Initialisation;
import io.parsa.engine.ParsaEngine;
import io.parsa.engine.PlacementEvaluator;
import io.parsa.engine.PlacementMetrics;
import io.parsa.engine.gen.PowerLawGenerator;
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
      "                          | --generate ROWS [--columns C] [--non-zeros N] [--row-exponent R]",
      "                            [--column-exponent S])",
      "                          [-k K[,K..]] [-b B[,B..]] [-a A[,A..]] [--a-percent P[,P..]]",
      "                          [--theta T] [--structure linked-list|bucket-stacks] [--seed S] [--repeat R]",
      "                          [--no-quality] [--json FILE]",
      "  --input FILE       libsvm(.gz) or edge list(.gz); format from the name (*.edges*) unless --format",
      "  --symmetric        edge list: add both directions of every edge",
      "  --generate ROWS    power-law graph from io.parsa.engine.gen.PowerLawGenerator, held in memory",
      "                     (defaults: --columns ROWS, --non-zeros 20*ROWS, --row-exponent 2.2,",
      "                     --column-exponent 1.0, seed = --seed)",
      "  -k                 parts (default 16)      -b  blocks (default 16)",
      "  -a                 warm-up blocks (default 0); --a-percent: a = round(P/100 * b) instead",
      "  --theta            head pointers for costs 0..T (default " + ParsaEngine.DEFAULT_THETA + ")",
      "  --structure        per-part cost structure (default linked-list = paper's Figure 5)",
      "  --seed             seed of the block split and the random baseline (default 1)",
      "  --repeat R         run every combination R times (default 1; later runs have a warm JIT)",
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
        case "--input", "--format", "--generate", "--columns", "--non-zeros", "--row-exponent",
            "--column-exponent", "-k", "-b",
            "-a", "--a-percent", "--theta", "--seed", "--json", "--repeat", "--structure" -> {
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
    int repeat = ints(o, "repeat", "1", 1)[0];
    ParsaEngine.Structure structure = switch (o.getOrDefault("structure", "linked-list")) {
      case "bucket-stacks" -> ParsaEngine.Structure.BUCKET_STACKS;
      case "linked-list" -> ParsaEngine.Structure.LINKED_LIST;
      default -> throw new IllegalArgumentException("--structure must be bucket-stacks or linked-list, was "
          + o.get("structure"));
    };

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
      long cols = Long.parseLong(o.getOrDefault("columns", String.valueOf(rows)));
      long nnz = Long.parseLong(o.getOrDefault("non-zeros", String.valueOf(20L * rows)));
      double re = Double.parseDouble(o.getOrDefault("row-exponent", "2.2"));
      double ce = Double.parseDouble(o.getOrDefault("column-exponent", "1.0"));
      g = generate(rows, cols, nnz, re, ce, seed);
      source = String.format(Locale.ROOT,
          "PowerLawGenerator rows=%d columns=%d non-zeros=%d row-exponent=%s column-exponent=%s seed=%d",
          rows, cols, nnz, re, ce, seed);
    }
    double loadSec = (System.nanoTime() - t0) / 1e9;
    out.printf(Locale.ROOT, "# %s: %d rows, %d non-zeros (loaded in %.1f s)%n", source, g.numRows(),
        g.numNonZeros(), loadSec);
    out.printf(Locale.ROOT, "# theta=%d structure=%s seed=%d java=%s maxHeap=%d MB%n", theta, structure, seed,
        System.getProperty("java.version"), Runtime.getRuntime().maxMemory() >> 20);
    out.println("k\tb\ta\tedges\tengine_s\tMedges/s\tcpu_s\tMedges/cpu_s\tblocks_s\tpeak_heap_MB"
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
        for (int rep = 0; rep < repeat * as.length; rep++) {
          int aIn = as[rep / repeat];
          int a = percent ? (int) Math.round(aIn / 100.0 * b) : aIn;
          System.gc();
          resetPeaks();
          long c0 = THREADS.getCurrentThreadCpuTime();
          long w0 = System.nanoTime();
          BlockSequencePartitioner.Result r =
              new BlockSequencePartitioner(k, theta, structure).partition(blocks, Initialisation.individual(a));
          double wall = (System.nanoTime() - w0) / 1e9;
          double cpu = (THREADS.getCurrentThreadCpuTime() - c0) / 1e9;
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
          row.put("structure", structure.name());
          row.put("seed", seed);
          row.put("repetition", rep % repeat);
          row.put("edgesProcessed", r.edgesProcessed());
          row.put("engineSeconds", engineSec);
          row.put("wallSeconds", wall);
          row.put("edgesPerSecond", eps);
          row.put("cpuSeconds", cpu);
          row.put("edgesPerCpuSecond", r.edgesProcessed() / cpu);
          row.put("blockBuildSeconds", blockSec);
          row.put("peakHeapMB", peak >> 20);
          StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%d\t%d\t%d\t%d\t%.3f\t%.2f\t%.3f\t%.2f\t%.2f\t%d",
              k, b, a, r.edgesProcessed(), engineSec, eps / 1e6, cpu, r.edgesProcessed() / cpu / 1e6, blockSec,
              peak >> 20));
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

  /** Collects the lead's streaming generator's rows into an in-memory CSR graph. */
  static InMemoryGraph generate(int rows, long cols, long nnz, double rowExp, double colExp, long seed)
      throws IOException {
    if (nnz > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException("--non-zeros must be < 2^31 for an in-memory graph, was " + nnz);
    }
    long[] ids = new long[rows];
    int[] start = new int[rows + 1];
    GraphReader.LongList keys = new GraphReader.LongList();
    keys.data = new long[(int) Math.max(16, nnz)];
    int[] r = {0};
    new PowerLawGenerator(rows, cols, nnz, rowExp, colExp, seed).generate((row, ks, n) -> {
      ids[r[0]] = row;
      for (int i = 0; i < n; i++) {
        keys.add(ks[i]);
      }
      start[++r[0]] = keys.size;
    });
    return new InMemoryGraph(ids, start, keys.data.length == keys.size ? keys.data : keys.toArray());
  }

  private static final java.lang.management.ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

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
