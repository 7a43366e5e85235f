package io.parsa.jobs;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.util.Tool;
import org.apache.hadoop.util.ToolRunner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.parsa.common.BadRecordException;
import io.parsa.common.ConsoleLog;
import io.parsa.common.NioLocalFileSystem;
import io.parsa.common.UsageException;

/**
 * Entry point of the job jar ({@code hadoop jar parsa-job.jar <step> ...} and {@code bin/parsa <step> ...}):
 * maps a step name to its {@link Tool} and runs it through {@link ToolRunner}.
 */
public final class ParsaCli {

  private static final Logger LOG = LoggerFactory.getLogger(ParsaCli.class);

  /** Step name to implementing class and one-line description, in pipeline order. */
  private static final Map<String, String[]> STEPS = new LinkedHashMap<>();

  static {
    step("ingest", "io.parsa.jobs.ingest.IngestTool", "raw data (libsvm, edge lists, Avro) -> random graph blocks (MapReduce)");
    step("partition-u", "io.parsa.yarn.client.PartitionUTool", "partition rows U over k workers with Parsa (YARN application)");
    step("refine-u", "io.parsa.jobs.refine.RefineUTool", "refine a u-assignment by balance-preserving row swaps (single JVM)");
    step("key-usage", "io.parsa.jobs.keyusage.KeyUsageTool", "the blocks-u-assignment join, once, into the per-key dataset partition-v and metrics read (MapReduce)");
    step("partition-v", "io.parsa.jobs.partitionv.PartitionVTool", "assign keys V to k servers, Algorithm 2 (MapReduce)");
    step("metrics", "io.parsa.jobs.metrics.MetricsTool", "traffic report of a placement against random (MapReduce)");
    step("reshuffle", "io.parsa.jobs.reshuffle.ReshuffleTool", "rewrite the input into k placed shards (MapReduce)");
    step("pipeline", "io.parsa.jobs.pipeline.PipelineTool", "ingest -> partition-u -> refine-u -> key-usage -> partition-v -> metrics -> reshuffle, resumable");
    step("assign-baseline", "io.parsa.jobs.baseline.BaselineAssignTool", "assign rows U by a random or hash baseline (MapReduce)");
    step("generate", "io.parsa.jobs.generate.GenerateTool", "synthetic power-law bipartite data in libsvm format");
    step("export", "io.parsa.jobs.export.ExportTool", "any Avro output of the suite as TSV or JSON lines");
    step("bench", "io.parsa.jobs.bench.BenchTool", "benchmark suite: pipeline on every dataset, writes docs/benchmarks.md");
    step("train-bench", "io.parsa.train.TrainBenchTool", "parameter-server training run: real bytes and epoch times, placed vs random/hash");
    step("engine-bench", "io.parsa.engine.bench.EngineBench", "single-process engine benchmark (edges/s, quality)");
  }

  private ParsaCli() {}

  private static void step(String name, String cls, String desc) {
    STEPS.put(name, new String[] {cls, desc});
  }

  /** Runs {@code args[0]} with the remaining arguments and returns its exit code. */
  public static int run(Configuration conf, String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("--verbose")) {
      // 'parsa --verbose <step> ...' as well as 'parsa <step> --verbose ...'
      conf.setBoolean(ConsoleLog.VERBOSE, true);
      args = Arrays.copyOfRange(args, 1, args.length);
    }
    if (args.length == 0) {
      usage(System.err);
      return 2;
    }
    if (args[0].equals("--help") || args[0].equals("-h") || args[0].equals("help")) {
      usage(System.out);
      return 0;
    }
    if (args[0].equals("--version") || args[0].equals("version")) {
      System.out.println(version());
      return 0;
    }
    NioLocalFileSystem.install(conf);
    String[] entry = STEPS.get(args[0]);
    if (entry == null) {
      System.err.println("parsa: unknown step '" + args[0] + "'");
      usage(System.err);
      return 2;
    }
    String[] rest = new String[args.length - 1];
    System.arraycopy(args, 1, rest, 0, rest.length);
    Class<?> cls;
    try {
      cls = Class.forName(entry[0]);
    } catch (ClassNotFoundException e) {
      System.err.println("parsa: step '" + args[0] + "' is not in this build (" + entry[0] + " missing)");
      return 2;
    }
    if (Tool.class.isAssignableFrom(cls)) {
      Tool tool = (Tool) cls.getDeclaredConstructor().newInstance();
      return ToolRunner.run(conf, tool, rest);
    }
    // plain main-style commands (benchmarks) expose static int run(String[])
    return (int) cls.getMethod("run", String[].class).invoke(null, (Object) rest);
  }

  /** Runs one named step with its own arguments (as the pipeline does); returns its exit code. */
  public static int runStep(Configuration conf, String step, String... stepArgs) throws Exception {
    String[] all = new String[stepArgs.length + 1];
    all[0] = step;
    System.arraycopy(stepArgs, 0, all, 1, stepArgs.length);
    return run(conf, all);
  }

  private static void usage(java.io.PrintStream out) {
    StringBuilder sb = new StringBuilder("usage: parsa [--verbose] <step> [generic Hadoop options] [options]\n"
        + "       parsa --help | --version\n\nsteps:\n");
    STEPS.forEach((n, e) -> sb.append(String.format("  %-15s %s%n", n, e[1])));
    sb.append("\nRun 'parsa <step> --help' for the options of a step. --verbose prints stack traces of failures.");
    out.println(sb);
  }

  /** "parsa 0.1.0 (Hadoop 3.5.0 at run time, built with 3.5.0; Avro 1.12.0; Java 17.0.x)". */
  static String version() {
    java.util.Properties p = new java.util.Properties();
    try (java.io.InputStream in = ParsaCli.class.getResourceAsStream("version.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (java.io.IOException e) {
      // an unreadable resource leaves the version unknown; it is printed as such
    }
    String avro = org.apache.avro.Schema.class.getPackage().getImplementationVersion();
    return "parsa " + p.getProperty("version", "unknown") + " (Hadoop "
        + org.apache.hadoop.util.VersionInfo.getVersion() + " at run time, built with "
        + p.getProperty("hadoop.build.version", "unknown") + "; Avro "
        + (avro != null ? avro : p.getProperty("avro.build.version", "unknown")) + "; Java "
        + System.getProperty("java.version") + ")";
  }

  public static void main(String[] args) {
    int rc;
    boolean verbose = ConsoleLog.verboseRequested(args);
    ConsoleLog.setUp(verbose);
    Configuration conf = new Configuration();
    conf.setBoolean(ConsoleLog.VERBOSE, verbose);
    try {
      rc = run(conf, args);
    } catch (Throwable t) {
      rc = report(t);
    }
    System.exit(rc);
  }

  /**
   * Turns a failure into a message: a user error (bad option, bad input line, existing output) anywhere in the
   * cause chain is printed as its message alone with exit code 2; anything else is logged with its stack trace.
   */
  static int report(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof java.lang.reflect.InvocationTargetException && c.getCause() != null) {
        continue;
      }
      if (c instanceof UsageException) {
        System.err.println("parsa: " + c.getMessage() + (c instanceof BadRecordException ? ConsoleLog.logHint() : ""));
        return 2;
      }
    }
    LOG.error("parsa: failed", t);
    return 1;
  }
}
