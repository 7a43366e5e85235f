package io.parsa.jobs.bench;

import com.fasterxml.jackson.databind.JsonNode;
import io.parsa.common.JsonFiles;
import io.parsa.common.OutputPaths;
import io.parsa.common.ParsaTool;
import io.parsa.engine.gen.PowerLawGenerator;
import io.parsa.jobs.ParsaCli;
import io.parsa.jobs.pipeline.PipelineTool;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;

/**
 * Benchmark runner: runs the pipeline on the shared real datasets and on generated graphs for each placement
 * (parsa, random, hash), and writes the paper's Table 2 (improvement over random of M_max, T_max, T_sum) with wall
 * time per step and peak heap to {@code docs/benchmarks.md}, plus SVG charts. Every measured run is cached as JSON
 * under the work directory, so an interrupted run resumes and a finished one only re-renders.
 */
public final class BenchTool extends ParsaTool {

  /** A data set: name, path, input format. */
  record Dataset(String name, String path, String format) {}

  /** One measured pipeline run. */
  record Run(String dataset, String algorithm, int k, JsonNode report, JsonNode timings, long peakHeapBytes) {}

  @Override
  protected String name() {
    return "bench";
  }

  @Override
  protected String description() {
    return "Runs the pipeline on every dataset and placement and writes docs/benchmarks.md with charts.";
  }

  @Override
  protected Options options() {
    Options o = new Options();
    o.addOption(flag("quick", "only the two small text datasets (news20, reuters) at k = 16"));
    o.addOption(flag("large", "also the generated graph with 10^8 non-zeros (long)"));
    o.addOption(opt("datasets", "DIR", "real datasets directory (default ../shared/datasets)"));
    o.addOption(opt("work", "DIR", "work directory for outputs and cached results (default bench/work)"));
    o.addOption(opt("docs", "DIR", "where benchmarks.md and the charts go (default docs)"));
    o.addOption(opt("k", "K", "parts for the table (default 16)"));
    o.addOption(opt("workers", "N", "partition-u workers (default 2)"));
    return o;
  }

  @Override
  protected int run(CommandLine cl) throws Exception {
    boolean quick = cl.hasOption("quick");
    File datasets = new File(cl.getOptionValue("datasets", "../shared/datasets"));
    File work = new File(cl.getOptionValue("work", "bench/work"));
    File docs = new File(cl.getOptionValue("docs", "docs"));
    int k = intOpt(cl, "k", 16, 1);
    String workers = String.valueOf(intOpt(cl, "workers", 2, 1));
    Files.createDirectories(new File(work, "results").toPath());
    Files.createDirectories(new File(docs, "bench").toPath());

    List<Dataset> sets = new ArrayList<>();
    addIfPresent(sets, datasets, "news20", "news20.libsvm.gz", "libsvm");
    addIfPresent(sets, datasets, "reuters21578", "reuters21578.libsvm.gz", "libsvm");
    if (!quick) {
      addIfPresent(sets, datasets, "email-enron", "email-enron.edges.gz", "uedges");
      addIfPresent(sets, datasets, "ego-twitter", "ego-twitter.edges.gz", "uedges");
      addIfPresent(sets, datasets, "cnr-2000", "cnr-2000.edges.gz", "edges");
      sets.add(generated(work, "gen-1e7", 1_000_000, 2_000_000, 10_000_000L));
      if (cl.hasOption("large")) {
        sets.add(generated(work, "gen-1e8", 10_000_000, 20_000_000, 100_000_000L));
      }
    }
    if (sets.isEmpty()) {
      System.err.println("bench: no dataset found under " + datasets + " (use --datasets)");
      return 2;
    }

    List<Run> runs = new ArrayList<>();
    for (Dataset d : sets) {
      for (String alg : new String[] {"parsa", "random", "hash"}) {
        runs.add(measure(d, alg, k, workers, work));
      }
    }
    writeReport(runs, sets, docs, quick, k);
    System.err.println("bench: wrote " + new File(docs, "benchmarks.md"));
    return 0;
  }

  private static void addIfPresent(List<Dataset> sets, File dir, String name, String file, String format) {
    File f = new File(dir, file);
    if (f.exists()) {
      sets.add(new Dataset(name, f.getAbsolutePath(), format));
    } else {
      System.err.println("bench: skipping " + name + ": " + f + " not found");
    }
  }

  /** A generated power-law libsvm file, written once into the work directory. */
  private static Dataset generated(File work, String name, long rows, long cols, long nnz) throws IOException {
    File f = new File(work, name + ".libsvm.gz");
    if (!f.exists()) {
      File tmp = new File(work, "." + name + ".tmp");
      System.err.println("bench: generating " + f + " (" + nnz + " non-zeros)");
      try (BufferedWriter w = new BufferedWriter(new OutputStreamWriter(
          new GZIPOutputStream(Files.newOutputStream(tmp.toPath()), 1 << 16), StandardCharsets.US_ASCII), 1 << 16)) {
        new PowerLawGenerator(rows, cols, nnz, 2.2, 1.0, 42).generate((row, keys, n) -> {
          w.write('1');
          for (int i = 0; i < n; i++) {
            w.write(' ');
            w.write(Long.toString(keys[i]));
            w.write(":1");
          }
          w.write('\n');
        });
      }
      Files.move(tmp.toPath(), f.toPath());
    }
    return new Dataset(name, f.getAbsolutePath(), "libsvm");
  }

  /** Runs (or loads the cached result of) one pipeline for a dataset and placement. */
  private Run measure(Dataset d, String alg, int k, String workers, File work) throws Exception {
    File cached = new File(work, "results/" + d.name + "-" + alg + "-k" + k + ".json");
    if (cached.exists()) {
      JsonNode n = JsonFiles.MAPPER.readTree(cached);
      return new Run(d.name, alg, k, n.get("report"), n.get("timings"), n.get("peakHeapBytes").asLong());
    }
    Configuration conf = new Configuration(getConf());
    FileSystem fs = FileSystem.getLocal(conf);
    Path dir = new Path(new File(work, d.name + "/" + alg + "-k" + k).getAbsolutePath());
    Path parsaBlocks = new Path(new File(work, d.name + "/parsa-k" + k).getAbsolutePath(), "blocks");
    if (!alg.equals("parsa") && OutputPaths.isComplete(fs, parsaBlocks)
        && !fs.exists(new Path(dir, "blocks"))) {
      // same input, same seed: reuse the blocks rather than ingesting again
      FileUtil.copy(fs, parsaBlocks, fs, new Path(dir, "blocks"), false, conf);
    }
    resetPeaks();
    System.err.printf("bench: %s / %s / k=%d%n", d.name, alg, k);
    int rc = ParsaCli.runStep(conf, "pipeline", "--input", d.path, "--format", d.format, "--k",
        String.valueOf(k), "--output", dir.toString(), "--algorithm", alg, "--workers", workers);
    if (rc != 0) {
      throw new IOException("pipeline failed for " + d.name + "/" + alg + " (exit " + rc + ")");
    }
    long peak = peakHeap();
    JsonNode report = JsonFiles.MAPPER.readTree(new File(dir.toString(), "metrics/report.json"));
    JsonNode timings = JsonFiles.MAPPER.readTree(new File(dir.toString(), PipelineTool.TIMINGS));
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("report", report);
    out.put("timings", timings);
    out.put("peakHeapBytes", peak);
    JsonFiles.MAPPER.writeValue(cached, out);
    return new Run(d.name, alg, k, report, timings, peak);
  }

  private static void resetPeaks() {
    System.gc();
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      p.resetPeakUsage();
    }
  }

  /** Sum of the heap pools' peak usage since the last reset (an upper bound of the true peak heap). */
  private static long peakHeap() {
    long sum = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP) {
        sum += p.getPeakUsage().getUsed();
      }
    }
    return sum;
  }

  // ---- report -----------------------------------------------------------------------------------

  private static void writeReport(List<Run> runs, List<Dataset> sets, File docs, boolean quick, int k)
      throws IOException {
    StringBuilder md = new StringBuilder();
    md.append("# Benchmarks\n\n");
    md.append("Generated by `bin/parsa bench").append(quick ? " --quick" : "").append("` on ")
        .append(LocalDate.now()).append(". Hand-written measurements (engine, YARN scaling) follow the ")
        .append("generated tables; they come from `bench/notes.md`.\n\n");
    md.append("## Machine\n\n");
    md.append("| | |\n|---|---|\n");
    md.append("| cores | ").append(Runtime.getRuntime().availableProcessors()).append(" |\n");
    md.append("| memory | ").append(String.format(Locale.ROOT, "%.1f GiB",
        ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getTotalMemorySize() / (1024.0 * 1024 * 1024))).append(" |\n");
    md.append("| OS | ").append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.version"))
        .append(' ').append(System.getProperty("os.arch")).append(" |\n");
    md.append("| JVM | ").append(System.getProperty("java.vm.name")).append(' ')
        .append(System.getProperty("java.runtime.version")).append(", max heap ")
        .append(Runtime.getRuntime().maxMemory() >> 20).append(" MiB |\n");
    md.append("| mode | embedded default: local file system, LocalJobRunner, partition-u in one JVM |\n\n");

    md.append("## Table 2: improvement over a random placement (k = ").append(k).append(")\n\n");
    md.append("Improvement = (random − placed) / placed × 100 %, the paper's definition; the random placement ")
        .append("(random U, random V) is computed by the metrics step in the same run.\n\n");
    md.append("| dataset | placement | \\|U\\| | \\|V\\| | \\|E\\| | M_max | T_max | T_sum | ")
        .append("M_max impr. | T_max impr. | T_sum impr. | ingest s | partition-u s | partition-v s | ")
        .append("metrics s | reshuffle s | total s | peak heap MiB |\n");
    md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Run r : runs) {
      JsonNode p = r.report.get("placed");
      md.append("| ").append(r.dataset).append(" | ").append(r.algorithm).append(" | ")
          .append(r.report.path("rows").asLong()).append(" | ").append(r.report.path("keys").asLong())
          .append(" | ").append(r.report.path("nonZeros").asLong()).append(" | ")
          .append(p.path("maxWorkingSet").asLong()).append(" | ").append(p.path("maxTraffic").asLong())
          .append(" | ").append(p.path("sumTraffic").asLong()).append(" | ")
          .append(pct(r.report.path("improvementMaxWorkingSet").asDouble())).append(" | ")
          .append(pct(r.report.path("improvementMaxTraffic").asDouble())).append(" | ")
          .append(pct(r.report.path("improvementSumTraffic").asDouble())).append(" | ");
        String stepKey = r.algorithm.equals("parsa") ? "partition-u" : "assign-baseline";
      for (String s : new String[] {"ingest", stepKey, "partition-v", "metrics", "reshuffle", "total"}) {
        md.append(secs(r.timings.get(s))).append(" | ");
      }
      md.append(r.peakHeapBytes >> 20).append(" |\n");
    }
    md.append('\n');

    List<String> names = new ArrayList<>();
    for (Dataset d : sets) {
      names.add(d.name);
    }
    for (String[] metric : new String[][] {
        {"improvementMaxWorkingSet", "M_max"}, {"improvementMaxTraffic", "T_max"},
        {"improvementSumTraffic", "T_sum"}}) {
      SvgChart chart = new SvgChart("Improvement of " + metric[1] + " over random (k = " + k + ")", "dataset",
          "improvement %", names);
      for (String alg : new String[] {"parsa", "hash"}) {
        double[] v = new double[names.size()];
        for (int i = 0; i < v.length; i++) {
          v[i] = Double.NaN;
          for (Run r : runs) {
            if (r.dataset.equals(names.get(i)) && r.algorithm.equals(alg)) {
              v[i] = r.report.path(metric[0]).asDouble();
            }
          }
        }
        chart.add(alg, v);
      }
      String file = "bench/table2-" + metric[1].toLowerCase(Locale.ROOT).replace("_", "") + ".svg";
      Files.writeString(new File(docs, file).toPath(), chart.bars());
      md.append("![").append(metric[1]).append("](").append(file).append(")\n");
    }
    md.append('\n');

    File notes = new File("bench/notes.md");
    if (notes.exists()) {
      md.append(Files.readString(notes.toPath()));
    }
    Files.writeString(new File(docs, "benchmarks.md").toPath(), md.toString());
  }

  private static String pct(double v) {
    return String.format(Locale.ROOT, "%.0f %%", v);
  }

  private static String secs(JsonNode n) {
    if (n == null || !n.isNumber()) {
      return n == null ? "" : n.asText();
    }
    return String.format(Locale.ROOT, "%.1f", n.asDouble());
  }
}
