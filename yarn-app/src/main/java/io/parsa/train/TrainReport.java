package io.parsa.train;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The train-bench report as console text and as a self-contained HTML page (inline SVG, no scripts). */
final class TrainReport {

  private TrainReport() {}

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> runs(Map<String, Object> report) {
    return (List<Map<String, Object>>) report.get("runs");
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> epochs(Map<String, Object> run) {
    return (List<Map<String, Object>>) run.get("epochs");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> rec(Map<String, Object> run) {
    return (Map<String, Object>) run.get("reconciliation");
  }

  private static double d(Object o) {
    return ((Number) o).doubleValue();
  }

  private static long l(Object o) {
    return ((Number) o).longValue();
  }

  private static String rate(Object mbps) {
    return d(mbps) <= 0 ? "loopback" : String.format(Locale.ROOT, "%.0f Mbit/s", d(mbps));
  }

  static String text(Map<String, Object> report) {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "train-bench: k=%s, %s epochs x %s iterations, learning rate %s, L2 %s, L1 %s%n",
        report.get("k"), report.get("epochs"), report.get("batchesPerEpoch"), report.get("learningRate"),
        report.get("l2"), report.get("l1")));
    sb.append("mode: ").append(report.get("mode")).append('\n');
    sb.append("link emulation: ").append(report.get("linkEmulation")).append('\n');
    if (report.get("timeDilation") != null) {
      sb.append("time dilation: ").append(report.get("timeDilationNote")).append('\n');
    }
    sb.append('\n');
    String h = "%-8s %-14s %16s %8s %12s %10s %12s %10s %9s%n";
    sb.append(String.format(Locale.ROOT, h, "placement", "link", "inter B/epoch", "inner %", "epoch s", "cpu s",
        "vs parsa", "loss", "accuracy"));
    Map<String, Double> parsaTime = new java.util.HashMap<>();
    for (Map<String, Object> r : runs(report)) {
      if ("parsa".equals(r.get("placement"))) {
        parsaTime.put(rate(r.get("linkMbps")), d(r.get("meanEpochSeconds")));
      }
    }
    for (Map<String, Object> r : runs(report)) {
      Double base = parsaTime.get(rate(r.get("linkMbps")));
      sb.append(String.format(Locale.ROOT, "%-8s %-14s %,16d %7.1f%% %12.3f %10s %12s %10.6f %9.4f%n",
          r.get("placement"), rate(r.get("linkMbps")), l(r.get("interBytesPerEpoch")), 100 * d(r.get("innerShare")),
          d(r.get("meanEpochSeconds")), r.get("meanEpochCpuSeconds") == null ? "-"
              : String.format(Locale.ROOT, "%.3f", d(r.get("meanEpochCpuSeconds"))),
          base == null ? "" : String.format(Locale.ROOT, "%.2fx", d(r.get("meanEpochSeconds")) / base),
          d(r.get("finalLoss")), d(r.get("finalAccuracy"))));
    }
    sb.append("\n(epoch s: mean over epochs after the first, whose first requests also set up TLS and Avro "
        + "handshakes" + (report.get("timeDilation") == null ? "" : ", the measured wall time divided by the time"
            + " dilation " + TrainBenchTool.num(d(report.get("timeDilation"))))
        + "; cpu s: CPU time per epoch, of the whole process embedded (every machine is a thread of it), summed"
        + " over the worker and server containers on YARN; bytes: last epoch, on the wire)\n");
    if (report.get("warmupEpochs") != null) {
      sb.append(String.format(Locale.ROOT, "(warm-up: %s untimed epochs on every placement before the measured runs; "
          + "%s round(s) of measured runs, placements in rotated order)%n", report.get("warmupEpochs"),
          report.get("rounds")));
    }
    sb.append('\n');
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> payback = (List<Map<String, Object>>) report.get("payback");
    if (payback != null) {
      for (Map<String, Object> p : payback) {
        double pipeline = d(p.get("pipelineSeconds"));
        Object n = p.get("epochsToPayBack");
        sb.append(String.format(Locale.ROOT, "payback against %s at %s: %s%n", p.get("against"),
            rate(p.get("linkMbps")), pipeline < 0
                ? "unknown (the placed run has no _timings.json)"
                : n == null
                    ? String.format(Locale.ROOT, "never at this rate (the %.0f s pipeline saves no epoch time: %+.3f s"
                        + " per epoch)", pipeline, d(p.get("savedSecondsPerEpoch")))
                    : String.format(Locale.ROOT, "after %.0f epochs (the %.0f s pipeline against %.3f s saved per"
                        + " epoch)", Math.ceil(d(n)), pipeline, d(p.get("savedSecondsPerEpoch")))
                        + (p.get("epochsToPayBackExtra") == null ? "" : String.format(Locale.ROOT, "; after %.0f"
                            + " counting only its %.0f s beyond the %s pipeline's own %.0f s",
                            Math.ceil(d(p.get("epochsToPayBackExtra"))), Math.max(0, d(p.get("extraPipelineSeconds"))),
                            p.get("against"), d(p.get("baselinePipelineSeconds"))))));
      }
      if (!payback.isEmpty()) {
        sb.append('\n');
      }
    }
    for (Map<String, Object> r : runs(report)) {
      sb.append(String.format(Locale.ROOT, "%s at %s (%s):%n", r.get("placement"), rate(r.get("linkMbps")),
          r.get("source")));
      sb.append(String.format(Locale.ROOT, "  %5s %10s %16s %16s %8s %10s %9s%n", "epoch", "wall s", "inner B",
          "inter B", "inner %", "loss", "accuracy"));
      for (Map<String, Object> e : epochs(r)) {
        sb.append(String.format(Locale.ROOT, "  %5d %10.3f %,16d %,16d %7.1f%% %10.6f %9.4f%n", l(e.get("epoch")),
            d(e.get("wallSeconds")), l(e.get("innerBytes")), l(e.get("interBytes")), 100 * d(e.get("innerShare")),
            d(e.get("loss")), d(e.get("accuracy"))));
      }
      Map<String, Object> c = rec(r);
      sb.append(String.format(Locale.ROOT, "  predicted inter payload %,d B = %d B x %,d (worker, key) accesses served"
              + " by another machine; measured %,d B of Avro frames (+%,d B Avro framing/record headers over %d"
              + " requests and responses) and %,d B on the wire (+%,d B TLS records): overhead %.1f %%%n",
          l(c.get("predictedInterPayloadBytes")), l(report.get("payloadBytesPerAccess")),
          l(r.get("interKeyAccessesPerEpoch")), l(c.get("measuredInterFrameBytes")), l(c.get("avroOverheadBytes")),
          2 * l(c.get("interRequests")), l(c.get("measuredInterWireBytes")), l(c.get("tlsOverheadBytes")),
          d(c.get("overheadPercent"))));
      if (c.containsKey("metricsInterAccesses")) {
        sb.append(String.format(Locale.ROOT, "  metrics step predicted %,d inter-machine accesses, this run made %,d:"
                + " %s%n", l(c.get("metricsInterAccesses")), l(r.get("interKeyAccessesPerEpoch")),
            Boolean.TRUE.equals(c.get("metricsAgree")) ? "agree" : "differ (batches > 1 or other data)"));
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  private static String esc(Object s) {
    return String.valueOf(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }

  static String html(Map<String, Object> report) {
    StringBuilder sb = new StringBuilder();
    sb.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>Parsa train-bench report</title>\n")
        .append("<style>body{font-family:sans-serif;margin:24px;color:#222}h1{font-size:22px}h2{font-size:17px;margin-top:28px}")
        .append("table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #bbb;padding:3px 8px;text-align:right}")
        .append("th{background:#eee}td:first-child{text-align:left}</style></head><body>\n");
    sb.append("<h1>Parsa train-bench report</h1>\n<p>").append(esc(report.get("mode"))).append(".<br>Link emulation: ")
        .append(esc(report.get("linkEmulation"))).append(".</p>\n");
    if (report.get("timeDilation") != null) {
      sb.append("<p>Time dilation: ").append(esc(report.get("timeDilationNote"))).append(".</p>\n");
    }
    sb.append(String.format(Locale.ROOT, "<p>k = %s, %s epochs &times; %s synchronous iterations, learning rate %s,"
            + " L2 %s, L1 %s.</p>%n", report.get("k"), report.get("epochs"), report.get("batchesPerEpoch"),
        esc(report.get("learningRate")), esc(report.get("l2")), esc(report.get("l1"))));
    sb.append("<h2>Summary</h2>\n<table><tr><th>placement</th><th>link</th><th>inter bytes / epoch</th>"
        + "<th>inner share</th><th>epoch s</th><th>loss</th><th>accuracy</th><th>overhead over payload</th></tr>\n");
    for (Map<String, Object> r : runs(report)) {
      sb.append(String.format(Locale.ROOT, "<tr><td>%s</td><td>%s</td><td>%,d</td><td>%.1f %%</td><td>%.3f</td>"
              + "<td>%.6f</td><td>%.4f</td><td>%.1f %%</td></tr>%n", esc(r.get("placement")), rate(r.get("linkMbps")),
          l(r.get("interBytesPerEpoch")), 100 * d(r.get("innerShare")), d(r.get("meanEpochSeconds")),
          d(r.get("finalLoss")), d(r.get("finalAccuracy")), d(rec(r).get("overheadPercent"))));
    }
    sb.append("</table>\n");
    sb.append("<h2>Inter-machine bytes per epoch</h2>\n").append(bars(report, "interBytesPerEpoch", "%,.0f B"));
    sb.append("<h2>Epoch time (s)</h2>\n").append(bars(report, "meanEpochSeconds", "%.3f s"));
    for (Map<String, Object> r : runs(report)) {
      sb.append(String.format(Locale.ROOT, "<h2>%s at %s</h2>%n<table><tr><th>epoch</th><th>wall s</th>"
          + "<th>inner bytes</th><th>inter bytes</th><th>inner share</th><th>loss</th><th>accuracy</th></tr>%n",
          esc(r.get("placement")), rate(r.get("linkMbps"))));
      for (Map<String, Object> e : epochs(r)) {
        sb.append(String.format(Locale.ROOT, "<tr><td>%d</td><td>%.3f</td><td>%,d</td><td>%,d</td><td>%.1f %%</td>"
                + "<td>%.6f</td><td>%.4f</td></tr>%n", l(e.get("epoch")), d(e.get("wallSeconds")),
            l(e.get("innerBytes")), l(e.get("interBytes")), 100 * d(e.get("innerShare")), d(e.get("loss")),
            d(e.get("accuracy"))));
      }
      Map<String, Object> c = rec(r);
      sb.append(String.format(Locale.ROOT, "</table>%n<p>Predicted inter-machine payload %,d B (%s B per access);"
              + " measured %,d B of Avro frames and %,d B on the wire (Avro framing %,d B, TLS %,d B).%s</p>%n",
          l(c.get("predictedInterPayloadBytes")), report.get("payloadBytesPerAccess"),
          l(c.get("measuredInterFrameBytes")), l(c.get("measuredInterWireBytes")), l(c.get("avroOverheadBytes")),
          l(c.get("tlsOverheadBytes")), c.containsKey("metricsInterAccesses")
              ? String.format(Locale.ROOT, " The metrics step predicted %,d inter-machine accesses; this run made %,d.",
                  l(c.get("metricsInterAccesses")), l(r.get("interKeyAccessesPerEpoch"))) : ""));
    }
    return sb.append("</body></html>\n").toString();
  }

  private static String bars(Map<String, Object> report, String field, String fmt) {
    List<Map<String, Object>> runs = runs(report);
    double max = 0;
    for (Map<String, Object> r : runs) {
      max = Math.max(max, d(r.get(field)));
    }
    int rowH = 22;
    int width = 720;
    int left = 220;
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-size=\"12\">%n", width,
        rowH * runs.size() + 8));
    for (int i = 0; i < runs.size(); i++) {
      Map<String, Object> r = runs.get(i);
      double v = d(r.get(field));
      double w = max == 0 ? 0 : (width - left - 120) * v / max;
      String color = "parsa".equals(r.get("placement")) ? "#2b6cb0" : "random".equals(r.get("placement")) ? "#dd8452" : "#55a868";
      int y = i * rowH + 4;
      sb.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s, %s</text>"
              + "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/><text x=\"%.1f\" y=\"%d\">%s</text>%n",
          left - 6, y + 14, esc(r.get("placement")), rate(r.get("linkMbps")), left, y, w, rowH - 6, color,
          left + w + 4, y + 14, String.format(Locale.ROOT, fmt, v)));
    }
    return sb.append("</svg>\n").toString();
  }
}
