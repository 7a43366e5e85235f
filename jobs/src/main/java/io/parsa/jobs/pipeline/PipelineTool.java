package io.parsa.jobs.pipeline;

import io.parsa.common.JsonFiles;
import io.parsa.common.OutputPaths;
import io.parsa.common.ParsaTool;
import io.parsa.common.UsageException;
import io.parsa.jobs.ParsaCli;
import io.parsa.jobs.metrics.MetricsTool;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
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
 * Chains the steps into one resumable run: ingest → partition-u (or a baseline) → partition-v → metrics →
 * reshuffle, each writing its own directory under {@code --output}. A step whose output is already complete
 * ({@code _SUCCESS}) is skipped, so re-running a failed pipeline resumes where it stopped; the run's settings are
 * kept in {@code _pipeline.json} and a resume with different settings is refused unless {@code --overwrite}.
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
    return "Runs ingest -> partition-u -> partition-v -> metrics -> reshuffle into DIR/{blocks,u-assignment,"
        + "neighbor-sets,v-assignment,metrics,shards}; complete steps are skipped, so a failed run resumes.";
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
    o.addOption(opt("servers", "N", "partition-u neighbor-set server containers (default 1)"));
    o.addOption(opt("max-delay", "TAU", "partition-u maximal delay in blocks (default unbounded)"));
    o.addOption(opt("init-fraction", "F", "partition-u global initialisation sample fraction"));
    o.addOption(opt("warmup-blocks", "A", "partition-u individual initialisation warm-up blocks"));
    o.addOption(opt("mode", "MODE", "partition-u: embedded | yarn | auto (default auto)"));
    o.addOption(opt("reducers", "R", "partition-v reducers (default 1)"));
    o.addOption(flag("renumber", "give keys new numbers so each server owns one contiguous range; shards use them"));
    o.addOption(opt("output-format", "FMT", "shards as text (default, same format as the input) or avro"));
    o.addOption(flag("overwrite", "redo every step, replacing existing outputs"));
    return o;
  }

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
    steps.add(new Step("ingest", blocks, ingest));

    if (algorithm.equals("parsa")) {
      List<String> pu = args("--blocks", blocks, "--output", dir.toString(), "--k", ks, "--seed", seed);
      copy(cl, pu, "workers", "servers", "max-delay", "init-fraction", "warmup-blocks", "mode");
      steps.add(new Step("partition-u", uAssign, pu));
    } else {
      steps.add(new Step("assign-baseline", uAssign, args("--blocks", blocks, "--output", uAssign, "--k", ks,
          "--algorithm", algorithm, "--seed", seed)));
    }

    List<String> pv = args("--blocks", blocks, "--u-assignment", uAssign, "--output", vAssign, "--k", ks);
    copy(cl, pv, "reducers");
    if (renumber) {
      pv.add("--renumber");
    }
    steps.add(new Step("partition-v", vAssign, pv));

    steps.add(new Step("metrics", metrics, args("--blocks", blocks, "--u-assignment", uAssign,
        "--v-assignment", vAssign, "--output", metrics, "--k", ks, "--seed", seed, "--algorithm", algorithm)));

    List<String> rs = args("--blocks", blocks, "--u-assignment", uAssign, "--v-assignment", vAssign,
        "--output", shards, "--k", ks);
    copy(cl, rs, "output-format");
    if (renumber) {
      rs.add("--renumber");
    }
    steps.add(new Step("reshuffle", shards, rs));

    long start = System.nanoTime();
    Map<String, Object> timings = new LinkedHashMap<>();
    for (int i = 0; i < steps.size(); i++) {
      Step s = steps.get(i);
      String tag = String.format("[%d/%d] %-15s", i + 1, steps.size(), s.name);
      if (!overwrite && OutputPaths.isComplete(fs, new Path(s.output))) {
        System.err.println(tag + " skipped: " + s.output + " is complete");
        timings.put(s.name, "skipped");
        continue;
      }
      if (overwrite) {
        s.args.add("--overwrite");
      } else if (fs.exists(new Path(s.output))) {
        // an incomplete output of an interrupted run: remove it so the step can start clean
        LOG.info("removing incomplete output {}", s.output);
        fs.delete(new Path(s.output), true);
      }
      long t0 = System.nanoTime();
      System.err.println(tag + " running: parsa " + s.name + " " + String.join(" ", s.args));
      Configuration stepConf = new Configuration(conf);
      stepConf.setBoolean(MetricsTool.PRINT_TABLE, false);
      int rc = ParsaCli.runStep(stepConf, s.name, s.args.toArray(new String[0]));
      double secs = (System.nanoTime() - t0) / 1e9;
      if (rc != 0) {
        System.err.printf("%s FAILED (exit %d) after %.1f s; fix the cause and re-run the same command to resume%n",
            tag, rc, secs);
        return rc;
      }
      System.err.printf("%s done in %.1f s -> %s%n", tag, secs, s.output);
      timings.put(s.name, secs);
    }
    timings.put("total", (System.nanoTime() - start) / 1e9);
    JsonFiles.write(fs, new Path(dir, TIMINGS), timings);
    System.err.printf("pipeline finished in %.1f s; report: %s%n", (System.nanoTime() - start) / 1e9,
        new Path(metrics, "report.txt"));
    printReport(fs, new Path(metrics, "report.txt"));
    return 0;
  }

  /** One step of the run: its CLI name, the directory whose completeness means it is done, its arguments. */
  private record Step(String name, String output, List<String> args) {}

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
