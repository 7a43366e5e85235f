package io.parsa.train;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.parsa.avro.VAssignment;
import io.parsa.common.OutputPaths;
import io.parsa.common.ParsaTool;
import io.parsa.common.UsageException;
import io.parsa.engine.Mix64;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongToIntFunction;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
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
        + "loopback TLS sockets) from pipeline shards; count the bytes on every link i->j, emulate a per-machine "
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
    o.addOption(Option.builder().longOpt("seed").hasArg().argName("N").desc("seed of the random key placement (default 42)").build());
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
    List<Double> rates = new ArrayList<>();
    for (String r : cl.getOptionValue("link-mbps", "0").split(",")) {
      try {
        rates.add(Double.parseDouble(r.trim()));
      } catch (NumberFormatException e) {
        throw new UsageException("--link-mbps: expected numbers separated by commas, found '" + r + "'");
      }
    }
    FileSystem fs = out.getFileSystem(getConf());
    OutputPaths.checkWritable(fs, out, cl.hasOption("overwrite"));

    Map<String, Object> report = new LinkedHashMap<>();
    report.put("mode", "embedded: k machines as threads of one JVM on one host, loopback TLS sockets");
    report.put("linkEmulation", "each machine's outgoing inter-machine bytes (TLS records included) pass a serialised"
        + " link of the given rate; inner-machine traffic (worker i <-> server i) is counted, never delayed");
    report.put("epochs", s.epochs);
    report.put("batchesPerEpoch", s.batchesPerEpoch);
    report.put("learningRate", s.learningRate);
    report.put("l2", s.l2);
    report.put("l1", s.l1);
    report.put("payloadBytesPerAccess", PAYLOAD_BYTES_PER_ACCESS);
    List<Map<String, Object>> runs = new ArrayList<>();
    report.put("runs", runs);
    int k = -1;
    for (Placement p : placements) {
      Path shardDir = fs.exists(new Path(p.dir, "shards")) ? new Path(p.dir, "shards") : p.dir;
      List<Path> files = Shard.shardFiles(fs, shardDir);
      if (k >= 0 && files.size() != k) {
        throw new UsageException(shardDir + ": " + files.size() + " shards, but the other placements have " + k);
      }
      k = files.size();
      long t0 = System.nanoTime();
      List<Shard> shards = new ArrayList<>();
      for (Path f : files) {
        shards.add(Shard.read(fs, f, getConf()));
      }
      LongToIntFunction owner = owner(fs, p, k, seed);
      JsonNode metrics = readMetrics(fs, p.dir);
      LOG.info("{}: {} shards read from {} in {} s", p.name, k, shardDir,
          String.format(Locale.ROOT, "%.1f", (System.nanoTime() - t0) / 1e9));
      for (double rate : rates) {
        s.linkMbps = rate;
        try (TrainRun run = new TrainRun(shards, owner, s, null)) {
          List<TrainRun.Epoch> epochs;
          try {
            epochs = run.train();
          } catch (IOException e) {
            System.err.println("train-bench: the " + p.name + " run failed (no report written): " + e.getMessage());
            LOG.debug("run failure", e);
            return 1;
          }
          runs.add(describe(p, rate, run, epochs, metrics, s));
        }
      }
    }
    report.put("k", k);
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

  private static void write(FileSystem fs, Path p, String s) throws IOException {
    try (FSDataOutputStream o = fs.create(p, false)) {
      o.write(s.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** The server of each key for a placement. */
  static LongToIntFunction owner(FileSystem fs, Placement p, int k, long seed) throws IOException {
    switch (p.keys) {
      case "random":
        return key -> Mix64.bucket(seed, key, k);
      case "hash":
        return key -> (int) Math.floorMod(key, (long) k);
      default:
        Path dir = new Path(p.dir, "v-assignment");
        if (!fs.exists(dir)) {
          throw new UsageException(p.dir + ": no v-assignment/ directory (expected a pipeline output)");
        }
        Long2IntOpenHashMap map = new Long2IntOpenHashMap();
        map.defaultReturnValue(-1);
        for (FileStatus st : fs.listStatus(dir, f -> f.getName().endsWith(".avro") && !f.getName().startsWith("."))) {
          try (InputStream in = fs.open(st.getPath());
              DataFileStream<VAssignment> r = new DataFileStream<>(in, new SpecificDatumReader<>(VAssignment.class))) {
            VAssignment a = null;
            while (r.hasNext()) {
              a = r.next(a);
              if (a.getPart() < 0 || a.getPart() >= k) {
                throw new UsageException(st.getPath() + ": key " + a.getKey() + " on part " + a.getPart()
                    + ", expected a part in [0, " + k + ")");
              }
              map.put(a.getKey(), a.getPart());
            }
          }
        }
        return key -> {
          int part = map.get(key);
          if (part < 0) {
            throw new UsageException(dir + ": key " + key + " of the shards has no v-assignment");
          }
          return part;
        };
    }
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

  private static Map<String, Object> describe(Placement p, double rate, TrainRun run, List<TrainRun.Epoch> epochs,
      JsonNode metrics, TrainRun.Settings s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("placement", p.name);
    m.put("source", p.dir.toString());
    m.put("keyPlacement", p.keys);
    m.put("linkMbps", rate);
    m.put("rows", run.totalRows());
    m.put("interKeyAccessesPerEpoch", run.interKeyAccessesPerEpoch());
    m.put("innerKeyAccessesPerEpoch", run.innerKeyAccessesPerEpoch());
    List<Map<String, Object>> es = new ArrayList<>();
    for (TrainRun.Epoch e : epochs) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("epoch", e.epoch);
      x.put("wallSeconds", e.wallSeconds);
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
    long payload = (long) PAYLOAD_BYTES_PER_ACCESS * run.interKeyAccessesPerEpoch();
    rec.put("predictedInterPayloadBytes", payload);
    rec.put("measuredInterFrameBytes", last.interFrameBytes);
    rec.put("measuredInterWireBytes", last.interBytes);
    rec.put("avroOverheadBytes", last.interFrameBytes - payload);
    rec.put("tlsOverheadBytes", last.interBytes - last.interFrameBytes);
    rec.put("interRequests", run.interRequestsPerEpoch());
    rec.put("overheadPercent", payload == 0 ? 0 : 100.0 * (last.interBytes - payload) / payload);
    if (metrics != null && "v-assignment".equals(p.keys)) {
      long predicted = metrics.path("placed").path("interAccesses").asLong(-1);
      rec.put("metricsInterAccesses", predicted);
      rec.put("metricsAgree", s.batchesPerEpoch == 1 && predicted == run.interKeyAccessesPerEpoch());
    }
    m.put("reconciliation", rec);
    double sum = 0;
    int n = 0;
    for (TrainRun.Epoch e : epochs) {
      if (e.epoch > 1 || epochs.size() == 1) {
        sum += e.wallSeconds;
        n++;
      }
    }
    m.put("meanEpochSeconds", sum / n);
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
