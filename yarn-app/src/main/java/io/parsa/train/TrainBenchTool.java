package io.parsa.train;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.parsa.common.OutputPaths;
import io.parsa.common.ParsaTool;
import io.parsa.common.UsageException;
import io.parsa.yarn.ParsaYarnConfig;
import io.parsa.yarn.client.Sizing;
import io.parsa.yarn.client.YarnSubmitter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongToIntFunction;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code parsa train-bench}: trains a sparse logistic regression on k embedded parameter-server machines from the
 * shards of one or more pipeline runs (placed by Parsa, random, hash) and reports the bytes every placement really
 * sends, the epoch times under an emulated link rate, and the loss, which is the same for every placement.
 */
public final class TrainBenchTool extends ParsaTool {
  private static final Logger LOG = LoggerFactory.getLogger(TrainBenchTool.class);

  /** Payload bytes of one (worker, key) access per epoch: pull key + value, push key + gradient, 8 bytes each. */
  public static final int PAYLOAD_BYTES_PER_ACCESS = 32;

  @Override
  protected String name() {
    return "train-bench";
  }

  @Override
  protected String description() {
    return "Train sparse logistic regression on k parameter-server machines (embedded: threads in this JVM over "
        + "loopback TLS sockets; --mode yarn: server and worker containers) from pipeline shards; count the bytes on every link i->j, emulate a per-machine "
        + "outgoing link, and compare placements (parsa, random, hash). Writes report.json, report.txt, report.html.";
  }

  @Override
  protected Options options() {
    Options o = new Options();
    o.addOption(Option.builder().longOpt("placed").hasArg().argName("DIR")
        .desc("pipeline directory of the placed (parsa) run: shards/, v-assignment/ (keys), metrics/report.json").build());
    o.addOption(Option.builder().longOpt("random").hasArg().argName("DIR")
        .desc("pipeline directory of a --algorithm random run: its shards, keys placed by a seeded random hash").build());
    o.addOption(Option.builder().longOpt("hash").hasArg().argName("DIR")
        .desc("pipeline directory of a --algorithm hash run: its shards, keys placed by key mod k").build());
    o.addOption(Option.builder().longOpt("output").hasArg().argName("DIR").desc("report directory (required)").build());
    o.addOption(Option.builder().longOpt("overwrite").desc("replace an existing report directory").build());
    o.addOption(Option.builder().longOpt("epochs").hasArg().argName("N").desc("epochs per run (default 3)").build());
    o.addOption(Option.builder().longOpt("batches").hasArg().argName("B")
        .desc("synchronous iterations per epoch, each over 1/B of every shard (default 1: full-batch gradient)").build());
    o.addOption(Option.builder().longOpt("learning-rate").hasArg().argName("ETA").desc("step size (default 0.3)").build());
    o.addOption(Option.builder().longOpt("l2").hasArg().argName("L").desc("L2 penalty (default 1e-4)").build());
    o.addOption(Option.builder().longOpt("l1").hasArg().argName("L")
        .desc("L1 penalty, applied by a proximal step on the servers (default 0)").build());
    o.addOption(Option.builder().longOpt("link-mbps").hasArg().argName("LIST")
        .desc("emulated outgoing link rate of every machine in Mbit/s, comma-separated for several runs; 0 = no "
            + "emulation (loopback speed). Default 0").build());
    o.addOption(Option.builder().longOpt("warmup-epochs").hasArg().argName("W")
        .desc("embedded: untimed epochs trained on every placement before any measured run, so that no placement "
            + "pays the JVM's warm-up (JIT) in its epoch times (default 5; 0 = none)").build());
    o.addOption(Option.builder().longOpt("rounds").hasArg().argName("R")
        .desc("embedded: measure every (placement, link rate) R times, the order of the placements rotated from one "
            + "measured run to the next; the epoch time is the mean over the rounds (default 1)").build());
    o.addOption(Option.builder().longOpt("time-dilation").hasArg().argName("auto|D")
        .desc("embedded: run every link D times slower and report every time divided by D, so that k machines sharing"
            + " this host's cores behave like k machines of one core each (time-dilated emulation); auto = k / the"
            + " host's cores, at least 1; 1 = wall time as measured. Default auto").build());
    o.addOption(Option.builder().longOpt("seed").hasArg().argName("N").desc("seed of the random key placement (default 42)").build());
    o.addOption(Option.builder().longOpt("mode").hasArg().argName("MODE")
        .desc("embedded (default: k machines as threads of this JVM) | yarn (a YARN application per placement: a "
            + "master, k server and k worker containers; paths on the cluster file system)").build());
    o.addOption(Option.builder().longOpt("am-memory").hasArg().argName("MB")
        .desc("yarn: memory of the master container (default 512)").build());
    o.addOption(Option.builder().longOpt("server-memory").hasArg().argName("MB")
        .desc("yarn: memory of each server container (default 384)").build());
    o.addOption(Option.builder().longOpt("worker-memory").hasArg().argName("MB")
        .desc("yarn: memory of each worker container (default 256 MB + 4x the largest shard file, in 128 MB steps)")
        .build());
    o.addOption(Option.builder().longOpt("queue").hasArg().argName("NAME").desc("yarn: queue (default: default)").build());
    return o;
  }

  /** One placement to train on. */
  static final class Placement {
    final String name;
    final Path dir;
    final String keys;

    Placement(String name, Path dir, String keys) {
      this.name = name;
      this.dir = dir;
      this.keys = keys;
    }
  }

  @Override
  protected int run(CommandLine cl) throws Exception {
    Path out = new Path(required(cl, "output"));
    List<Placement> placements = new ArrayList<>();
    if (cl.hasOption("placed")) {
      placements.add(new Placement("parsa", new Path(cl.getOptionValue("placed")), "v-assignment"));
    }
    if (cl.hasOption("random")) {
      placements.add(new Placement("random", new Path(cl.getOptionValue("random")), "random"));
    }
    if (cl.hasOption("hash")) {
      placements.add(new Placement("hash", new Path(cl.getOptionValue("hash")), "hash"));
    }
    if (placements.isEmpty()) {
      throw new UsageException("give at least one of --placed, --random, --hash");
    }
    TrainRun.Settings s = new TrainRun.Settings();
    s.epochs = intOpt(cl, "epochs", 3, 1);
    s.batchesPerEpoch = intOpt(cl, "batches", 1, 1);
    s.learningRate = doubleOpt(cl, "learning-rate", 0.3);
    s.l2 = doubleOpt(cl, "l2", 1e-4);
    s.l1 = doubleOpt(cl, "l1", 0);
    long seed = Long.parseLong(cl.getOptionValue("seed", "42"));
    int warmupEpochs = intOpt(cl, "warmup-epochs", 5, 0);
    int rounds = intOpt(cl, "rounds", 1, 1);
    List<Double> rates = new ArrayList<>();
    for (String r : cl.getOptionValue("link-mbps", "0").split(",")) {
      try {
        rates.add(Double.parseDouble(r.trim()));
      } catch (NumberFormatException e) {
        throw new UsageException("--link-mbps: expected numbers separated by commas, found '" + r + "'");
      }
    }
    boolean yarn = "yarn".equals(choiceOpt(cl, "mode", "embedded", "embedded", "yarn"));
    String dilationArg = cl.getOptionValue("time-dilation", "auto");
    if (yarn && cl.hasOption("time-dilation") && !dilationArg.equals("auto") && parseDilation(dilationArg) != 1) {
      throw new UsageException("--time-dilation applies to --mode embedded only: on YARN every machine's containers"
          + " run on their own cores");
    }
    Configuration conf = new Configuration(getConf());
    if (yarn) {
      conf.setInt(ParsaYarnConfig.AM_MEMORY_MB, intOpt(cl, "am-memory", 512, 128));
      conf.setInt(ParsaYarnConfig.SERVER_MEMORY_MB, intOpt(cl, "server-memory", 384, 128));
      if (cl.hasOption("worker-memory")) {
        conf.setInt(ParsaYarnConfig.WORKER_MEMORY_MB, intOpt(cl, "worker-memory", 256, 128));
      }
      if (cl.hasOption("queue")) {
        conf.set(ParsaYarnConfig.QUEUE, cl.getOptionValue("queue"));
      }
    }
    FileSystem fs = out.getFileSystem(conf);
    OutputPaths.checkWritable(fs, out, cl.hasOption("overwrite"));

    Map<String, Object> report = new LinkedHashMap<>();
    report.put("mode", yarn
        ? "yarn: one application per placement; machine i = server container i + worker container i, TLS sockets"
            + " between containers"
        : "embedded: k machines as threads of one JVM on one host, loopback TLS sockets");
    report.put("linkEmulation", yarn
        ? "each machine's outgoing inter-machine bytes pass one serialised link of the given rate, kept by its"
            + " worker container: the worker's requests to other machines reserve it directly, the server"
            + " container's answers to other machines through the worker's endpoint (an extra local round trip per"
            + " answer); inner-machine traffic (worker i <-> server i) is counted, never delayed"
        : "each machine's outgoing inter-machine bytes (TLS records included) pass a serialised"
        + " link of the given rate; inner-machine traffic (worker i <-> server i) is counted, never delayed");
    report.put("epochs", s.epochs);
    report.put("batchesPerEpoch", s.batchesPerEpoch);
    report.put("learningRate", s.learningRate);
    report.put("l2", s.l2);
    report.put("l1", s.l1);
    report.put("payloadBytesPerAccess", PAYLOAD_BYTES_PER_ACCESS);
    if (!yarn) {
      report.put("warmupEpochs", warmupEpochs);
      report.put("rounds", rounds);
    }
    List<Map<String, Object>> runs = new ArrayList<>();
    report.put("runs", runs);
    int k = -1;
    List<Loaded> loaded = new ArrayList<>();
    for (Placement p : placements) {
      Path shardDir = fs.exists(new Path(p.dir, "shards")) ? new Path(p.dir, "shards") : p.dir;
      List<Path> files = Shard.shardFiles(fs, shardDir);
      if (k >= 0 && files.size() != k) {
        throw new UsageException(shardDir + ": " + files.size() + " shards, but the other placements have " + k);
      }
      k = files.size();
      JsonNode metrics = readMetrics(fs, p.dir);
      if (yarn) {
        TrainSpec.Result result = onYarn(conf, fs, p, files, s, rates, seed, out);
        if (result == null) {
          return 1;
        }
        for (TrainSpec.Run r : result.runs) {
          runs.add(describe(p, r.linkMbps, r, r.epochs, metrics, s, 1));
        }
        continue;
      }
      long t0 = System.nanoTime();
      List<Shard> shards = new ArrayList<>();
      for (Path f : files) {
        shards.add(Shard.read(fs, f, getConf()));
      }
      LongToIntFunction owner = owner(fs, p, k, seed);
      LOG.info("{}: {} shards read from {} in {} s", p.name, k, shardDir,
          String.format(Locale.ROOT, "%.1f", (System.nanoTime() - t0) / 1e9));
      loaded.add(new Loaded(p, shards, owner, metrics));
    }
    int cores = Runtime.getRuntime().availableProcessors();
    double dilation = yarn ? 1 : dilation(dilationArg, k, cores);
    if (!yarn) {
      report.put("timeDilation", dilation);
      report.put("timeDilationNote", dilationNote(dilation, k, cores));
    }
    if (!yarn && !measure(loaded, rates, s, warmupEpochs, rounds, dilation, runs)) {
      return 1;
    }
    report.put("k", k);
    report.put("payback", payback(runs, pipelineSeconds(fs, placements)));
    String text = TrainReport.text(report);
    System.out.print(text);
    Path tmp = OutputPaths.tempFor(out);
    fs.mkdirs(tmp);
    write(fs, new Path(tmp, "report.json"),
        new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(report) + "\n");
    write(fs, new Path(tmp, "report.txt"), text);
    write(fs, new Path(tmp, "report.html"), TrainReport.html(report));
    OutputPaths.commit(fs, tmp, out, cl.hasOption("overwrite"));
    System.out.println("report: " + new Path(out, "report.html"));
    return 0;
  }

  /** A placement whose shards and key placement are in memory (embedded mode). */
  private static final class Loaded {
    final Placement p;
    final List<Shard> shards;
    final LongToIntFunction owner;
    final JsonNode metrics;

    Loaded(Placement p, List<Shard> shards, LongToIntFunction owner, JsonNode metrics) {
      this.p = p;
      this.shards = shards;
      this.owner = owner;
      this.metrics = metrics;
    }
  }

  /**
   * The order in which the measured runs of one round go: for every link rate (in the given order) every placement,
   * the first placement of each measured slot rotated by one so that no placement is always the first (or last)
   * after a warm-up or after another placement's run. Entries are {rate index, placement index}.
   */
  static List<int[]> schedule(int placements, int rates, int round) {
    List<int[]> out = new ArrayList<>();
    for (int r = 0; r < rates; r++) {
      int first = (round * rates + r) % placements;
      for (int j = 0; j < placements; j++) {
        out.add(new int[] {r, (first + j) % placements});
      }
    }
    return out;
  }

  /**
   * Embedded runs: {@code warmupEpochs} untimed epochs on every placement (the JVM compiles the RPC, TLS and
   * training code while they run: on a small host the first runs of a JVM took 2-3x longer per epoch than later
   * ones, which made the placement measured first look slow), then {@code rounds} rounds of measured runs in the
   * order of {@link #schedule}. Adds one run per (placement, rate) to {@code runs}, in placement-then-rate order;
   * false after printing why a run failed.
   */
  private static boolean measure(List<Loaded> loaded, List<Double> rates, TrainRun.Settings s, int warmupEpochs,
      int rounds, double dilation, List<Map<String, Object>> runs) throws IOException {
    if (warmupEpochs > 0) {
      TrainRun.Settings w = s.copy();
      w.epochs = warmupEpochs;
      w.linkMbps = rates.get(0) / dilation;
      for (Loaded l : loaded) {
        long t0 = System.nanoTime();
        if (train(l, w) == null) {
          return false;
        }
        LOG.info("{}: warm-up, {} untimed epochs in {} s", l.p.name, warmupEpochs,
            String.format(Locale.ROOT, "%.1f", (System.nanoTime() - t0) / 1e9));
      }
    }
    int n = loaded.size();
    TrainSpec.Run[][] figures = new TrainSpec.Run[n][rates.size()];
    List<List<List<TrainRun.Epoch>>> epochs = grid(n, rates.size());
    List<List<List<Double>>> roundSeconds = grid(n, rates.size());
    List<List<List<Double>>> roundCpu = grid(n, rates.size());
    for (int round = 0; round < rounds; round++) {
      for (int[] slot : schedule(n, rates.size(), round)) {
        Loaded l = loaded.get(slot[1]);
        TrainRun.Settings m = s.copy();
        m.linkMbps = rates.get(slot[0]) / dilation;
        Trained result = train(l, m);
        if (result == null) {
          return false;
        }
        List<TrainRun.Epoch> es = result.epochs();
        figures[slot[1]][slot[0]] = result.figures();
        if (round == 0) {
          epochs.get(slot[1]).get(slot[0]).addAll(es);
        }
        roundSeconds.get(slot[1]).get(slot[0]).add(meanEpochSeconds(es) / dilation);
        roundCpu.get(slot[1]).get(slot[0]).add(meanEpochCpuSeconds(es));
      }
    }
    for (int j = 0; j < n; j++) {
      for (int r = 0; r < rates.size(); r++) {
        Loaded l = loaded.get(j);
        Map<String, Object> d = describe(l.p, rates.get(r), figures[j][r], epochs.get(j).get(r), l.metrics, s,
            dilation);
        List<Double> perRound = roundSeconds.get(j).get(r);
        List<Double> cpuPerRound = roundCpu.get(j).get(r);
        if (rounds > 1) {
          d.put("meanEpochSeconds", mean(perRound));
          d.put("meanEpochSecondsPerRound", perRound);
          if (dilation != 1) {
            d.put("measuredMeanEpochSeconds", mean(perRound) * dilation);
          }
          if (cpuPerRound.stream().allMatch(c -> c >= 0)) {
            d.put("meanEpochCpuSeconds", mean(cpuPerRound));
            d.put("meanEpochCpuSecondsPerRound", cpuPerRound);
          }
        }
        runs.add(d);
      }
    }
    return true;
  }

  /** n × m empty lists. */
  private static <T> List<List<List<T>>> grid(int n, int m) {
    List<List<List<T>>> g = new ArrayList<>();
    for (int j = 0; j < n; j++) {
      List<List<T>> row = new ArrayList<>();
      for (int r = 0; r < m; r++) {
        row.add(new ArrayList<>());
      }
      g.add(row);
    }
    return g;
  }

  private static double mean(List<Double> xs) {
    return xs.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
  }

  /** What one embedded run measured. */
  private record Trained(TrainSpec.Run figures, List<TrainRun.Epoch> epochs) {}

  /** One embedded run, or null after printing why it failed. */
  private static Trained train(Loaded l, TrainRun.Settings s) throws IOException {
    // the garbage of the run before is collected now, not in this run's epochs (the epochs' CPU time had varied 2x
    // between rounds of the same run with a full heap of three placements' shards)
    System.gc();
    try (TrainRun run = new TrainRun(l.shards, l.owner, s, null)) {
      try {
        TrainSpec.Run figures = run.figures();
        return new Trained(figures, run.train());
      } catch (IOException e) {
        System.err.println("train-bench: the " + l.p.name + " run failed (no report written): " + e.getMessage());
        LOG.debug("run failure", e);
        return null;
      }
    }
  }

  /**
   * Mean CPU time of the epochs after the first (embedded: the process's; on YARN: summed over the containers, not
   * known for the first epoch), or -1 if not measured.
   */
  static double meanEpochCpuSeconds(List<TrainRun.Epoch> epochs) {
    double sum = 0;
    int n = 0;
    for (TrainRun.Epoch e : epochs) {
      if (e.epoch > 1 || epochs.size() == 1) {
        if (e.processCpuSeconds < 0) {
          return -1;
        }
        sum += e.processCpuSeconds;
        n++;
      }
    }
    return n == 0 ? -1 : sum / n;
  }

  /** Mean wall time of the epochs after the first (whose first requests also set up TLS and Avro handshakes). */
  static double meanEpochSeconds(List<TrainRun.Epoch> epochs) {
    double sum = 0;
    int n = 0;
    for (TrainRun.Epoch e : epochs) {
      if (e.epoch > 1 || epochs.size() == 1) {
        sum += e.wallSeconds;
        n++;
      }
    }
    return sum / n;
  }

  private static void write(FileSystem fs, Path p, String s) throws IOException {
    try (FSDataOutputStream o = fs.create(p, false)) {
      o.write(s.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** The server of each key for a placement (every key of the v-assignment: the embedded run holds them all). */
  static LongToIntFunction owner(FileSystem fs, Placement p, int k, long seed) throws IOException {
    if (KeyPlacement.computed(p.keys)) {
      return KeyPlacement.computed(p.keys, seed, k);
    }
    Path dir = new Path(p.dir, KeyPlacement.V_ASSIGNMENT);
    return KeyPlacement.lookup(KeyPlacement.read(fs, dir, k, key -> true, part -> true), dir);
  }

  /** Each placement's pipeline time from its directory's {@code _timings.json} ("total"), where there is one. */
  private static Map<String, Double> pipelineSeconds(FileSystem fs, List<Placement> placements) throws IOException {
    Map<String, Double> out = new LinkedHashMap<>();
    for (Placement p : placements) {
      Path t = new Path(p.dir, "_timings.json");
      if (fs.exists(t)) {
        try (InputStream in = fs.open(t)) {
          double total = new ObjectMapper().readTree(in).path("total").asDouble(-1);
          if (total >= 0) {
            out.put(p.name, total);
          }
        }
      }
    }
    return out;
  }

  /**
   * When the placement pays for itself, per link rate and baseline: the placed run's whole pipeline time (ingest to
   * reshuffle: a cost a user who trains on the data as it lies would not pay) over the epoch time it saves against
   * the baseline; and, when the baseline's own pipeline was timed too, only the time parsa's pipeline takes beyond
   * it (a user who shards the data anyway pays ingest and reshuffle either way).
   */
  static List<Map<String, Object>> payback(List<Map<String, Object>> runs, Map<String, Double> pipelineSeconds) {
    double pipeline = pipelineSeconds.getOrDefault("parsa", -1.0);
    List<Map<String, Object>> out = new ArrayList<>();
    for (Map<String, Object> placed : runs) {
      if (!"parsa".equals(placed.get("placement"))) {
        continue;
      }
      for (Map<String, Object> base : runs) {
        if ("parsa".equals(base.get("placement")) || !base.get("linkMbps").equals(placed.get("linkMbps"))) {
          continue;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        double saved = (Double) base.get("meanEpochSeconds") - (Double) placed.get("meanEpochSeconds");
        m.put("linkMbps", placed.get("linkMbps"));
        m.put("against", base.get("placement"));
        m.put("pipelineSeconds", pipeline);
        m.put("savedSecondsPerEpoch", saved);
        m.put("epochsToPayBack", pipeline < 0 || saved <= 0 ? null : pipeline / saved);
        Double basePipeline = pipelineSeconds.get((String) base.get("placement"));
        if (pipeline >= 0 && basePipeline != null) {
          double extra = pipeline - basePipeline;
          m.put("baselinePipelineSeconds", basePipeline);
          m.put("extraPipelineSeconds", extra);
          m.put("epochsToPayBackExtra", saved <= 0 ? null : Math.max(0, extra) / saved);
        }
        out.add(m);
      }
    }
    return out;
  }

  private static JsonNode readMetrics(FileSystem fs, Path dir) throws IOException {
    Path p = new Path(dir, "metrics/report.json");
    if (!fs.exists(p)) {
      return null;
    }
    try (InputStream in = fs.open(p)) {
      return new ObjectMapper().readTree(in);
    }
  }

  /**
   * Trains placement {@code p} as a YARN application (one run per link rate on the same containers); the figures, or
   * null after printing why the application failed.
   */
  private TrainSpec.Result onYarn(Configuration base, FileSystem fs, Placement p, List<Path> files,
      TrainRun.Settings s, List<Double> rates, long seed, Path out) throws Exception {
    // this placement's own copy: the default worker size below follows its shards, not an earlier placement's
    Configuration conf = new Configuration(base);
    TrainSpec spec = new TrainSpec();
    spec.k = files.size();
    spec.placement = p.name;
    spec.keys = p.keys;
    if (!KeyPlacement.computed(p.keys)) {
      spec.vAssignment = fs.makeQualified(new Path(p.dir, KeyPlacement.V_ASSIGNMENT)).toString();
    }
    spec.seed = seed;
    long largest = 0;
    for (Path f : files) {
      spec.shards.add(fs.makeQualified(f).toString());
      largest = Math.max(largest, fs.getFileStatus(f).getLen());
    }
    if (conf.get(ParsaYarnConfig.WORKER_MEMORY_MB) == null) {
      long mb = 256 + 4 * (largest >> 20);
      conf.setInt(ParsaYarnConfig.WORKER_MEMORY_MB, (int) ((mb + 127) / 128 * 128));
    }
    spec.settings = s;
    spec.linkMbps.addAll(rates);
    Path result = fs.makeQualified(new Path(out.getParent(),
        "." + out.getName() + ".train-" + p.name + "-" + java.util.UUID.randomUUID() + ".json"));
    spec.result = result.toString();
    for (Map.Entry<String, String> e : conf.getPropsWithPrefix("parsa.").entrySet()) {
      spec.conf.put("parsa." + e.getKey(), e.getValue());
    }
    int am = ParsaYarnConfig.amMemoryMb(conf);
    int server = ParsaYarnConfig.serverMemoryMb(conf);
    int worker = ParsaYarnConfig.workerMemoryMb(conf);
    int k = spec.k;
    System.err.printf(Locale.ROOT, "train-bench: %s on YARN: master %d MB, %d servers of %d MB, %d workers of %d MB"
        + " (%d MB in all)%n", p.name, am, k, server, k, worker, am + (long) k * (server + worker));
    int rc = YarnSubmitter.submit(conf, new YarnSubmitter.Application("train-bench",
        "parsa train-bench " + p.name + " k=" + k, TrainMaster.class.getName(), am, spec.result) {
      @Override
      protected String jobJson() {
        return spec.toJson();
      }

      @Override
      protected void stagedJar(String key, String path) {
        spec.conf.put(key, path);
      }

      @Override
      protected List<String> paths() {
        List<String> paths = new ArrayList<>(spec.shards.subList(0, 1));
        if (spec.vAssignment != null) {
          paths.add(spec.vAssignment);
        }
        paths.add(spec.result);
        return paths;
      }

      @Override
      protected void check(long maxContainerMb, long clusterMb) {
        int largestContainer = Math.max(am, Math.max(server, worker));
        if (largestContainer > maxContainerMb) {
          throw new UsageException("train-bench: a " + largestContainer + " MB container is larger than the "
              + maxContainerMb + " MB the cluster allows (yarn.scheduler.maximum-allocation-mb); lower "
              + "--am-memory, --server-memory or --worker-memory");
        }
        // YARN rounds every request up to a multiple of the scheduler's minimum allocation
        long amR = Sizing.round(conf, am);
        long serverR = Sizing.round(conf, server);
        long workerR = Sizing.round(conf, worker);
        long need = amR + k * (serverR + workerR);
        if (clusterMb > 0 && need > clusterMb) {
          throw new UsageException("train-bench: the run needs " + need + " MB at once (master " + amR + " + " + k
              + " x (server " + serverR + " + worker " + workerR + "), rounded to the scheduler's minimum allocation"
              + "), but the running NodeManagers offer " + clusterMb + " MB; lower --server-memory / --worker-memory"
              + " or use a smaller k");
        }
      }
    });
    try {
      if (rc != 0) {
        System.err.println("train-bench: the " + p.name + " application failed (no report written); its log: yarn "
            + "logs -applicationId <the id above>");
        return null;
      }
      try (InputStream in = fs.open(result)) {
        return io.parsa.common.JsonFiles.MAPPER.readValue(in, TrainSpec.Result.class);
      }
    } finally {
      fs.delete(result, false);
    }
  }

  /**
   * {@code --time-dilation}: "auto" is k machines over the host's cores (each emulated machine then gets about one
   * core's worth of the host's time per dilated second), at least 1; otherwise a number &ge; 1.
   */
  static double dilation(String arg, int k, int cores) {
    if (arg.equals("auto")) {
      return Math.max(1.0, k / (double) Math.max(1, cores));
    }
    return parseDilation(arg);
  }

  private static double parseDilation(String arg) {
    double d;
    try {
      d = Double.parseDouble(arg);
    } catch (NumberFormatException e) {
      throw new UsageException("--time-dilation expects 'auto' or a number >= 1, got '" + arg + "'");
    }
    if (!(d >= 1) || Double.isInfinite(d)) {
      throw new UsageException("--time-dilation expects 'auto' or a number >= 1, got '" + arg + "'");
    }
    return d;
  }

  /** What the dilation means, for the report. */
  static String dilationNote(double d, int k, int cores) {
    if (d == 1) {
      return "none: times are this host's wall time, where all " + k + " machines share its " + cores + " cores (the"
          + " CPU work of an epoch is not spread over k machines as on a cluster, so the network's share of an epoch"
          + " is understated)";
    }
    return String.format(Locale.ROOT, "%s: the %d machines share this host's %d cores, so each runs at about"
        + " 1/%s of a core; every link runs %s times slower than the rate named and every time is divided by %s,"
        + " which emulates a cluster of %d machines of about %s core(s) each at the named rate (the cores are pooled"
        + " here: a machine that waits on its link leaves its share to the others, which a cluster cannot do)",
        num(d), k, cores, num(k / (double) cores), num(d), num(d), k, num(d * cores / k));
  }

  /** Three significant digits, no trailing zeros. */
  static String num(double x) {
    return new java.math.BigDecimal(x).round(new java.math.MathContext(3)).stripTrailingZeros().toPlainString();
  }

  private static Map<String, Object> describe(Placement p, double rate, TrainSpec.Run run, List<TrainRun.Epoch> epochs,
      JsonNode metrics, TrainRun.Settings s, double dilation) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("placement", p.name);
    m.put("source", p.dir.toString());
    m.put("keyPlacement", p.keys);
    m.put("linkMbps", rate);
    m.put("rows", run.rows);
    m.put("interKeyAccessesPerEpoch", run.interKeyAccessesPerEpoch);
    m.put("innerKeyAccessesPerEpoch", run.innerKeyAccessesPerEpoch);
    List<Map<String, Object>> es = new ArrayList<>();
    for (TrainRun.Epoch e : epochs) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("epoch", e.epoch);
      x.put("wallSeconds", e.wallSeconds / dilation);
      if (dilation != 1) {
        x.put("measuredWallSeconds", e.wallSeconds);
      }
      if (e.processCpuSeconds >= 0) {
        x.put("processCpuSeconds", e.processCpuSeconds);
      }
      x.put("innerBytes", e.innerBytes);
      x.put("interBytes", e.interBytes);
      x.put("innerShare", share(e.innerBytes, e.interBytes));
      x.put("maxMachineOutBytes", e.maxMachineOutBytes);
      x.put("innerFrameBytes", e.innerFrameBytes);
      x.put("interFrameBytes", e.interFrameBytes);
      x.put("loss", e.loss);
      x.put("objective", e.objective);
      x.put("accuracy", e.accuracy);
      x.put("nonZeroWeights", e.nonZeroWeights);
      es.add(x);
    }
    m.put("epochs", es);
    TrainRun.Epoch last = epochs.get(epochs.size() - 1);
    Map<String, Object> rec = new LinkedHashMap<>();
    long payload = (long) PAYLOAD_BYTES_PER_ACCESS * run.interKeyAccessesPerEpoch;
    rec.put("predictedInterPayloadBytes", payload);
    rec.put("measuredInterFrameBytes", last.interFrameBytes);
    rec.put("measuredInterWireBytes", last.interBytes);
    rec.put("avroOverheadBytes", last.interFrameBytes - payload);
    rec.put("tlsOverheadBytes", last.interBytes - last.interFrameBytes);
    rec.put("interRequests", run.interRequestsPerEpoch);
    rec.put("overheadPercent", payload == 0 ? 0 : 100.0 * (last.interBytes - payload) / payload);
    if (metrics != null && "v-assignment".equals(p.keys)) {
      long predicted = metrics.path("placed").path("interAccesses").asLong(-1);
      rec.put("metricsInterAccesses", predicted);
      rec.put("metricsAgree", s.batchesPerEpoch == 1 && predicted == run.interKeyAccessesPerEpoch);
    }
    m.put("reconciliation", rec);
    double measured = meanEpochSeconds(epochs);
    m.put("meanEpochSeconds", measured / dilation);
    if (dilation != 1) {
      m.put("measuredMeanEpochSeconds", measured);
    }
    double cpu = meanEpochCpuSeconds(epochs);
    if (cpu >= 0) {
      m.put("meanEpochCpuSeconds", cpu);
    }
    m.put("interBytesPerEpoch", last.interBytes);
    m.put("innerShare", share(last.innerBytes, last.interBytes));
    m.put("finalLoss", last.loss);
    m.put("finalAccuracy", last.accuracy);
    return m;
  }

  private static double share(long inner, long inter) {
    return inner + inter == 0 ? 0 : (double) inner / (inner + inter);
  }
}
