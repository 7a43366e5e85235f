package io.parsa.jobs.pipeline;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.parsa.common.JsonFiles;
import io.parsa.common.OutputPaths;
import io.parsa.common.ParsaTool;
import io.parsa.common.UsageException;
import io.parsa.jobs.ParsaCli;
import io.parsa.jobs.metrics.MetricsTool;
import io.parsa.jobs.refine.Preload;
import io.parsa.jobs.refine.RefineUTool;
import io.parsa.yarn.client.PartitionUTool;
import io.parsa.yarn.rpc.RpcSecurity;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chains the steps into one resumable run: ingest → partition-u (or a baseline) → refine-u (after partition-u,
 * unless {@code --effort fast} or {@code --refine-rounds 0}) → key-usage → partition-v → metrics → reshuffle, each writing its own directory under {@code --output}. A step whose output is already complete
 * ({@code _SUCCESS}) and provably made from the inputs it would read now ({@link Provenance}: raw input files by
 * length, modification time and checksum, upstream outputs by their listing) is reused, so re-running a failed
 * pipeline resumes where it stopped, and re-running after the input changed redoes every step that depends on
 * the change. The run's settings are kept in {@code _pipeline.json} and a resume with different settings is
 * refused unless {@code --overwrite}.
 */
public final class PipelineTool extends ParsaTool {

  private static final Logger LOG = LoggerFactory.getLogger(PipelineTool.class);

  /** Settings file kept in the pipeline's output directory. */
  static final String SETTINGS = "_pipeline.json";

  /** Wall time per step (seconds, or "skipped") of the last run, kept in the pipeline's output directory. */
  public static final String TIMINGS = "_timings.json";

  @Override
  protected String name() {
    return "pipeline";
  }

  @Override
  protected String description() {
    return "Runs ingest -> partition-u -> refine-u -> key-usage -> partition-v -> metrics -> reshuffle into DIR/{blocks,"
        + "u-assignment,neighbor-sets,u-refined,key-usage,v-assignment,metrics,shards} (refine-u unless --effort fast); a complete step is reused only if its inputs (files: length, mtime, checksum) are "
        + "unchanged, so a failed run resumes and a changed input is redone.";
  }

  @Override
  protected Options options() {
    Options o = new Options();
    o.addOption(opt("input", "PATHS", "raw input: comma-separated files, directories or globs (required)"));
    o.addOption(opt("format", "FMT", "input format: libsvm | edges | uedges | avro (required)"));
    o.addOption(opt("k", "K", "number of parts (machines) (required)"));
    o.addOption(opt("output", "DIR", "pipeline directory (required)"));
    o.addOption(opt("algorithm", "ALG", "placement of U: parsa (default) | random | hash"));
    o.addOption(opt("blocks", "B", "number of graph blocks (default: ingest's rule from the input size)"));
    o.addOption(opt("seed", "S", "seed for blocks, baselines and the random comparison (default 1)"));
    o.addOption(opt("skip-bad-records", "N", "skip up to N malformed input lines (default 0: fail on the first)"));
    o.addOption(opt("workers", "N", "partition-u worker containers (default 2)"));
    o.addOption(opt("servers", "N", "partition-u neighbor-set server containers (default: partition-u's, sized from the blocks)"));
    o.addOption(opt("max-delay", "TAU", "partition-u maximal delay in blocks, with --waves async (default unbounded)"));
    o.addOption(opt("waves", "W|async", "partition-u's stage 1 in waves of W blocks, reproducible whatever the timing "
        + "(default: W = --workers), or async: the paper's asynchronous scheme"));
    o.addOption(opt("init-fraction", "F", "partition-u global initialisation sample fraction"));
    o.addOption(opt("warmup-blocks", "A", "partition-u individual initialisation warm-up blocks"));
    o.addOption(opt("mode", "MODE", "partition-u: embedded | yarn | auto (default auto)"));
    o.addOption(opt("effort", "E", "quality/time preset: fast (Parsa's U as is), quick (refine-u's swap rounds only:"
        + " no V-cycles, no multilevel start: on the text sets 7.4-8.4x faster than Mt-KaHyPar, T_sum 5-7 % above the"
        + " default's; on graphs most of the multilevel gain is lost),"
        + " default (refine-u: "
        + RefineUTool.DEFAULT_ROUNDS + " rounds per phase, " + RefineUTool.DEFAULT_VCYCLES + " + "
        + RefineUTool.DEFAULT_CAPPED_VCYCLES + " V-cycles (the capped ones on the leading start) up to 8*10^6"
        + " non-zeros, 0 + 1 up to 2*10^7 at k = 16 (non-zeros * k <= 3.2*10^8), multilevel start"
        + " for short rows (graphs) or where the input order shows locality), best (refine-u: " + BEST_REFINE_ROUNDS + " rounds per phase, "
        + BEST_VCYCLES + " + " + BEST_CAPPED_VCYCLES + " V-cycles, always the multilevel start too); see docs/quality.md"));
    o.addOption(opt("weights", "W", "none (default: every part gets the same number of rows, within one) or nnz:"
        + " every part the same number of non-zeros, within the longest row's (ingest --weights nnz, partition-u"
        + " --weighted; refine-u keeps every part's weight within the heaviest row's)"));
    o.addOption(opt("refine-rounds", "N", "refine-u rounds per phase after partition-u (overrides --effort; 0 skips"
        + " the step)"));
    o.addOption(opt("objective", "O", "what refine-u optimises: balanced (default: the busiest machine's working set"
        + " and traffic and the total traffic on balance; on graphs whose multilevel starts descend, their knee is the"
        + " room per machine), max (the busiest machine), total (the total traffic)"));
    o.addOption(opt("refine-schedule", "P[,P..]", "refine-u's phases (its --schedule): exponent p of each phase of"
        + " swap rounds, large p the largest working sets, 1 the total (default: the objective's; docs/quality.md"
        + " §59, §69: 3.2,1 with --objective total and --max-working-set met all three targets on ego-twitter)"));
    o.addOption(opt("capped-vcycles", "N", "refine-u's V-cycles after its swap rounds that may not raise the largest"
        + " working set (default: --effort's)"));
    o.addOption(opt("max-working-set", "KEYS", "refine-u's room per machine: its connectivity rounds and capped V-cycles"
        + " may grow a working set up to KEYS to lower the total traffic (default: none, the largest never rises;"
        + " docs/quality.md §59, §69: --objective total --refine-schedule 3.2,1 --capped-vcycles 12 --refine-rounds"
        + " 20 --max-working-set 17421 meets all three targets on ego-twitter)"));
    o.addOption(opt("refine-mode", "M", "where refine-u runs: auto (default: in the pipeline's JVM when the data fits"
        + " its heap, else as MapReduce rounds), memory, mapreduce"));
    o.addOption(opt("reducers", "R", "partition-v sweeper shares (default 1, the paper's single sweep)"));
    o.addOption(opt("join-reducers", "J", "reducers of the key-usage step, the one blocks-u-assignment join"
        + " (default: from the blocks' size)"));
    o.addOption(flag("renumber", "give keys new numbers so each server owns one contiguous range; shards use them"));
    o.addOption(opt("output-format", "FMT", "shards as text (default, same format as the input) or avro"));
    o.addOption(flag("overwrite", "redo every step, replacing existing outputs"));
    return o;
  }

  /** refine-u V-cycles per start with {@code --effort best}: before and (capped) after the swap rounds. */
  static final int BEST_VCYCLES = 2;
  static final int BEST_CAPPED_VCYCLES = 5;
  /** refine-u rounds per phase with {@code --effort best}. */
  static final int BEST_REFINE_ROUNDS = 30;

  @Override
  protected int run(CommandLine cl) throws Exception {
    String input = required(cl, "input");
    required(cl, "format");
    String format = choiceOpt(cl, "format", null, "libsvm", "edges", "uedges", "avro");
    int k = intOpt(cl, "k", -1, 1);
    if (k < 1) {
      throw new UsageException("missing required option --k");
    }
    Path dir = new Path(required(cl, "output"));
    String algorithm = choiceOpt(cl, "algorithm", "parsa", "parsa", "random", "hash");
    String objective = cl.hasOption("objective")
        ? choiceOpt(cl, "objective", null, RefineUTool.Objective.ids()) : null;
    if (cl.hasOption("refine-schedule")) {
      RefineUTool.schedule(cl.getOptionValue("refine-schedule")); // refused here, before any step writes
    }
    Integer cappedVcycles = cl.hasOption("capped-vcycles") ? intOpt(cl, "capped-vcycles", 0, 0) : null;
    if (cl.hasOption("max-working-set")) {
      longOpt(cl, "max-working-set", 0, 1); // refused here, before any step writes
    }
    String seed = String.valueOf(longOpt(cl, "seed", 1, Long.MIN_VALUE));
    boolean overwrite = cl.hasOption("overwrite");
    boolean renumber = cl.hasOption("renumber");

    Configuration conf = getConf();
    FileSystem fs = dir.getFileSystem(conf);
    Map<String, String> settings = settings(cl);
    checkSettings(fs, dir, settings, overwrite);

    String blocks = new Path(dir, "blocks").toString();
    String uAssign = new Path(dir, "u-assignment").toString();
    String vAssign = new Path(dir, "v-assignment").toString();
    String metrics = new Path(dir, "metrics").toString();
    String shards = new Path(dir, "shards").toString();
    String ks = String.valueOf(k);

    List<Step> steps = new ArrayList<>();
    List<String> ingest = args("--input", input, "--format", format, "--output", blocks, "--seed", seed);
    copy(cl, ingest, "blocks", "skip-bad-records");
    boolean weighted = choiceOpt(cl, "weights", "none", "none", "nnz").equals("nnz");
    if (weighted) {
      ingest.addAll(args("--weights", "nnz"));
    }
    steps.add(new Step("ingest", blocks, ingest, List.of()));

    if (algorithm.equals("parsa")) {
      List<String> pu = args("--blocks", blocks, "--output", dir.toString(), "--k", ks, "--seed", seed);
      copy(cl, pu, "workers", "servers", "max-delay", "waves", "init-fraction", "warmup-blocks", "mode");
      if (weighted) {
        pu.add("--weighted");
      }
      steps.add(new Step("partition-u", uAssign, pu, List.of(blocks)));
      String effort = choiceOpt(cl, "effort", "default", "fast", "quick", "default", "best");
      int refineRounds = intOpt(cl, "refine-rounds", switch (effort) {
        case "fast" -> 0;
        case "best" -> BEST_REFINE_ROUNDS;
        default -> RefineUTool.DEFAULT_ROUNDS;
      }, 0);
      if (refineRounds > 0 && k > 1) {
        String refined = new Path(dir, "u-refined").toString();
        List<String> ru = args("--blocks", blocks, "--u-assignment", uAssign, "--output", refined, "--k", ks,
            "--rounds", String.valueOf(refineRounds), "--multilevel", switch (effort) {
              case "best" -> "on";
              case "quick" -> "off";
              default -> "auto";
            });
        // V-cycles before and after the swap rounds: the preset's, or refine-u's own defaults (null)
        Integer preCycles = switch (effort) {
          case "best" -> BEST_VCYCLES;
          case "quick" -> 0;
          default -> null;
        };
        Integer postCycles = cappedVcycles != null ? cappedVcycles : switch (effort) {
          case "best" -> BEST_CAPPED_VCYCLES;
          case "quick" -> 0;
          default -> null;
        };
        if (preCycles != null) {
          ru.addAll(args("--vcycles", String.valueOf(preCycles)));
        }
        if (postCycles != null) {
          ru.addAll(args("--capped-vcycles", String.valueOf(postCycles)));
        }
        if (objective != null) {
          ru.addAll(args("--objective", objective));
        }
        if (cl.hasOption("refine-schedule")) {
          ru.addAll(args("--schedule", cl.getOptionValue("refine-schedule")));
        }
        copy(cl, ru, "max-working-set");
        String refineMode = choiceOpt(cl, "refine-mode", "auto", "auto", "memory", "mapreduce");
        if (!refineMode.equals("auto")) {
          ru.addAll(args("--mode", refineMode));
        }
        steps.add(new Step("refine-u", refined, ru, List.of(blocks, uAssign)));
        uAssign = refined;
      }
    } else {
      steps.add(new Step("assign-baseline", uAssign, args("--blocks", blocks, "--output", uAssign, "--k", ks,
          "--algorithm", algorithm, "--seed", seed), List.of(blocks)));
    }

    // the blocks ⋈ u-assignment join, once: partition-v and metrics read only its per-key output
    String usage = new Path(dir, "key-usage").toString();
    List<String> ku = args("--blocks", blocks, "--u-assignment", uAssign, "--output", usage, "--k", ks, "--seed", seed);
    if (cl.hasOption("join-reducers")) {
      ku.add("--reducers");
      ku.add(cl.getOptionValue("join-reducers"));
    }
    steps.add(new Step("key-usage", usage, ku, List.of(blocks, uAssign)));

    List<String> pv = args("--key-usage", usage, "--output", vAssign, "--k", ks);
    copy(cl, pv, "reducers");
    if (renumber) {
      pv.add("--renumber");
    }
    steps.add(new Step("partition-v", vAssign, pv, List.of(usage)));

    steps.add(new Step("metrics", metrics, args("--key-usage", usage, "--v-assignment", vAssign, "--output", metrics,
        "--k", ks, "--seed", seed, "--algorithm", algorithm), List.of(usage, vAssign)));

    List<String> rs = args("--blocks", blocks, "--u-assignment", uAssign, "--v-assignment", vAssign,
        "--output", shards, "--k", ks);
    copy(cl, rs, "output-format");
    if (renumber) {
      rs.add("--renumber");
    }
    steps.add(new Step("reshuffle", shards, rs, List.of(blocks, uAssign, vAssign)));

    Provenance provenance = overwrite ? Provenance.empty() : Provenance.read(fs, dir);
    long start = System.nanoTime();
    Map<String, Object> timings = new LinkedHashMap<>();
    List<String> reused = new ArrayList<>();
    List<String> ran = new ArrayList<>();
    // partition-u in this JVM: its TLS classes load on a spare thread while ingest runs (news20: partition-u 4.9 ->
    // 3.5 s, ingest 0.6 s longer on two cores; started with partition-u itself it gains nothing), and not at all
    // when a resumed run starts after partition-u
    int warmUntil = -1; // the steps before which to start it: up to partition-u's
    boolean embedded = PartitionUTool.runsEmbedded(choiceOpt(cl, "mode", "auto", "embedded", "yarn", "auto"), conf);
    String preload = choiceConf(conf, PRELOAD, "auto", "auto", "true", "false");
    // on YARN this JVM only waits while partition-u runs; embedded, its workers take both cores of a small machine
    // (news20: partition-u 0.17 s slower, refine-u 0.05 s faster; reuters21578 0.04 s and 0.21 s)
    boolean preloads = preload.equals("true") || preload.equals("auto") && !embedded;
    if (embedded) {
      for (int i = 0; i < steps.size(); i++) {
        if (steps.get(i).name.equals("partition-u")) {
          warmUntil = i;
        }
      }
    }
    for (int i = 0; i < steps.size(); i++) {
      Step s = steps.get(i);
      String tag = String.format("[%d/%d] %-15s", i + 1, steps.size(), s.name);
      // what the step reads now: the raw input (ingest) or the upstream outputs, and its own arguments
      Provenance.Inputs reads = new Provenance.Inputs();
      if (s.reads.isEmpty()) {
        reads.addRawInput(conf, input);
      }
      for (String r : s.reads) {
        reads.addOutput(fs, new Path(r).getName(), new Path(r));
      }
      // arguments relative to the pipeline directory, so that a record stays valid for a copied step output
      List<String> relArgs = new ArrayList<>();
      for (String a : s.args) {
        relArgs.add(a.replace(dir.toString(), "<DIR>"));
      }
      String fingerprint = reads.fingerprint(relArgs);
      Path out = new Path(s.output);
      if (!overwrite && OutputPaths.isComplete(fs, out)) {
        Provenance.StepRecord rec = provenance.get(s.name);
        if (rec != null && rec.fingerprint().equals(fingerprint)) {
          System.err.println(tag + " reused: " + s.output + " (made " + rec.finished() + " from "
              + describe(reads.items()) + ", all unchanged)");
          timings.put(s.name, "reused");
          reused.add(s.name);
          if (s.name.equals("refine-u")) {
            Preload.discard();
          }
          continue;
        }
        List<String> why = rec == null
            ? List.of("no record of what it was made from (" + Provenance.FILE + ")")
            : Provenance.differences(rec.inputs(), reads.items(), 5);
        System.err.println(tag + " redo: " + s.output + " is complete but stale: " + String.join("; ", why));
      }
      if (fs.exists(out)) {
        // a stale output, or an incomplete one of an interrupted run: the step replaces it
        s.args.add("--overwrite");
      }
      if (i <= warmUntil) {
        RpcSecurity.warmUpInBackground();
      }
      Step refineStep = s.name.equals("partition-u") && preloads ? refinesInMemory(steps, i) : null;
      if (refineStep != null) {
        // in-memory refine-u reads the blocks, builds its graph and places the multilevel seeds while partition-u runs
        // (they do not depend on the U); options it refuses are left to it to report
        RefineUTool.Seeds plan;
        try {
          plan = RefineUTool.seeds(refineStep.args);
        } catch (org.apache.commons.cli.ParseException | RuntimeException e) {
          plan = null;
        }
        Preload.startIfRoom(conf, new Path(blocks), k, RefineUTool.heapLimit(conf), plan);
      }
      long t0 = System.nanoTime();
      System.err.println(tag + " running: parsa " + s.name + " " + String.join(" ", s.args));
      Configuration stepConf = new Configuration(conf);
      stepConf.setBoolean(MetricsTool.PRINT_TABLE, false);
      int rc = ParsaCli.runStep(stepConf, s.name, s.args.toArray(new String[0]));
      if (!s.name.equals("partition-u")) {
        Preload.discard(); // taken by refine-u, or never wanted: its memory is freed
      }
      double secs = (System.nanoTime() - t0) / 1e9;
      if (rc != 0) {
        Preload.discard();
        System.err.printf("%s FAILED (exit %d) after %.1f s; fix the cause and re-run the same command to resume%n",
            tag, rc, secs);
        return rc;
      }
      // the step read what it read before it ran (outputs upstream do not change while it runs)
      s.args.remove("--overwrite");
      provenance.put(s.name, new Provenance.StepRecord(fingerprint, reads.items(), Instant.now().toString()));
      provenance.write(fs, dir);
      System.err.printf("%s done in %.1f s -> %s%n", tag, secs, s.output);
      timings.put(s.name, secs);
      ran.add(s.name);
    }
    timings.put("total", (System.nanoTime() - start) / 1e9);
    timings.put("reused", reused);
    timings.put("ran", ran);
    timings.put("jit", jitCompilers());
    JsonFiles.write(fs, new Path(dir, TIMINGS), timings);
    System.err.printf("pipeline finished in %.1f s; report: %s%n", (System.nanoTime() - start) / 1e9,
        new Path(metrics, "report.txt"));
    if (!reused.isEmpty()) {
      System.out.println("pipeline: reused " + String.join(", ", reused) + " from an earlier run (their inputs are"
          + " unchanged; see " + new Path(dir, Provenance.FILE) + "); ran " + (ran.isEmpty() ? "nothing" : String.join(", ", ran)));
    }
    printReport(fs, new Path(metrics, "report.txt"));
    return 0;
  }

  /**
   * Which just-in-time compilers this JVM runs, for the timings: "c1" when it stops at the first tier (bin/parsa
   * chooses that for small local inputs, PARSA_JIT), else "tiered" (C1, then C2 for the hottest code).
   */
  static String jitCompilers() {
    try {
      HotSpotDiagnosticMXBean hs = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
      return "1".equals(hs.getVMOption("TieredStopAtLevel").getValue()) ? "c1" : "tiered";
    } catch (RuntimeException e) {
      return "unknown";
    }
  }

  /**
   * Gives the pipeline directory {@code to} a copy of the complete blocks of pipeline directory {@code from} (same
   * input and ingest settings), with the record that proves what they were made from, so that a run in {@code to}
   * reuses them instead of ingesting again (the benchmark runs several placements of one input).
   */
  public static void adoptBlocks(Configuration conf, Path from, Path to) throws IOException {
    FileSystem fs = to.getFileSystem(conf);
    Provenance.StepRecord rec = Provenance.read(fs, from).get("ingest");
    if (rec == null || !OutputPaths.isComplete(fs, new Path(from, "blocks"))) {
      return;
    }
    org.apache.hadoop.fs.FileUtil.copy(fs, new Path(from, "blocks"), fs, new Path(to, "blocks"), false, conf);
    Provenance p = Provenance.read(fs, to);
    p.put("ingest", rec);
    p.write(fs, to);
  }

  /** Short description of a step's inputs for the console ("3 input files, 1.2 MB" or "blocks, u-assignment"). */
  private static String describe(Map<String, String> items) {
    java.util.Set<String> groups = new java.util.LinkedHashSet<>();
    int rawFiles = 0;
    for (String key : items.keySet()) {
      if (key.startsWith("input ")) {
        rawFiles++;
      } else {
        int slash = key.indexOf('/');
        groups.add(slash < 0 ? key : key.substring(0, slash));
      }
    }
    if (rawFiles > 0) {
      groups.add(rawFiles + " input file" + (rawFiles == 1 ? "" : "s") + " (length, mtime, checksum)");
    }
    return String.join(", ", groups);
  }

  /**
   * One step of the run: its CLI name, the directory whose completeness means it is done, its arguments and the
   * upstream output directories it reads (none: it reads the raw input).
   */
  private record Step(String name, String output, List<String> args, List<String> reads) {}

  /**
   * Whether in-memory refine-u's blocks are read while partition-u runs: auto (default: when partition-u runs on YARN),
   * true or false; only where refine-u's estimated heap is at most half of this JVM's.
   */
  public static final String PRELOAD = "parsa.pipeline.refine-u.preload";

  /** The refine-u step after step {@code i} if it may run in memory (not {@code --mode mapreduce}), else null. */
  private static Step refinesInMemory(List<Step> steps, int i) {
    for (int j = i + 1; j < steps.size(); j++) {
      Step s = steps.get(j);
      if (s.name.equals("refine-u")) {
        int m = s.args.indexOf("--mode");
        return m < 0 || !s.args.get(m + 1).equals("mapreduce") ? s : null;
      }
    }
    return null;
  }

  private static List<String> args(String... a) {
    return new ArrayList<>(Arrays.asList(a));
  }

  /** Passes the listed options through to a step when the user gave them. */
  private static void copy(CommandLine cl, List<String> to, String... names) {
    for (String n : names) {
      if (cl.hasOption(n)) {
        to.add("--" + n);
        to.add(cl.getOptionValue(n));
      }
    }
  }

  private static Map<String, String> settings(CommandLine cl) {
    Map<String, String> m = new TreeMap<>();
    for (org.apache.commons.cli.Option o : cl.getOptions()) {
      if (!o.getLongOpt().equals("overwrite")) {
        m.put(o.getLongOpt(), o.hasArg() ? o.getValue() : "true");
      }
    }
    return m;
  }

  /** Records the run's settings, refusing to resume a directory that was started with different ones. */
  @SuppressWarnings("unchecked")
  private static void checkSettings(FileSystem fs, Path dir, Map<String, String> settings, boolean overwrite)
      throws IOException {
    Path file = new Path(dir, SETTINGS);
    if (fs.exists(file) && !overwrite) {
      Map<String, String> old = new TreeMap<>(JsonFiles.read(fs, file, LinkedHashMap.class));
      if (!old.equals(settings)) {
        throw new UsageException(dir + " holds a pipeline run with other settings " + old
            + "; use the same settings to resume, another --output, or --overwrite");
      }
      return;
    }
    fs.mkdirs(dir);
    JsonFiles.write(fs, file, settings);
  }

  private static void printReport(FileSystem fs, Path report) throws IOException {
    if (!fs.exists(report)) {
      return;
    }
    try (InputStream in = fs.open(report)) {
      byte[] bytes = in.readAllBytes();
      System.out.print(new String(bytes, StandardCharsets.UTF_8));
    }
  }
}
