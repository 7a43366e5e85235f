package io.parsa.jobs.metrics;

import io.parsa.avro.MetricsReport;
import io.parsa.avro.PartMetrics;
import io.parsa.avro.PlacementMetrics;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import io.parsa.jobs.common.SvgChart;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.io.JsonEncoder;
import org.apache.avro.specific.SpecificDatumWriter;

/**
 * Builds the MetricsReport figures from per-part tallies and renders it as JSON (Avro's JSON encoding of the
 * record, so {@code JsonDecoder} with the MetricsReport schema reads it back), a text table and a self-contained
 * HTML page (inline CSS and SVG, no scripts, no network).
 */
public final class Reports {

  private Reports() {}

  /**
   * One placement's figures. T_i = |N(U_i) \ V_i| + sum_{j != i} |V_i ∩ N(U_j)| = (M_i - inner_i) + served_i.
   *
   * @param rows |U_i|
   * @param workingSet M_i = |N(U_i)|
   * @param serverKeys |V_i|
   * @param inner |N(U_i) ∩ V_i|
   * @param served sum_{j != i} |V_i ∩ N(U_j)|
   * @param nonZeros non-zeros of U_i's rows, or null if not known (an older key usage)
   * @param weights the weight of U_i's rows, or null where no row carries a weight
   */
  public static PlacementMetrics placement(long[] rows, long[] workingSet, long[] serverKeys, long[] inner,
      long[] served, long[] nonZeros, double[] weights) {
    int k = rows.length;
    List<PartMetrics> parts = new ArrayList<>(k);
    long maxM = 0;
    long sumM = 0;
    long maxT = 0;
    long sumT = 0;
    long sumInner = 0;
    long sumInter = 0;
    long maxRows = 0;
    long minRows = Long.MAX_VALUE;
    for (int i = 0; i < k; i++) {
      long inter = workingSet[i] - inner[i];
      long t = inter + served[i];
      parts.add(PartMetrics.newBuilder().setPart(i).setRows(rows[i]).setWorkingSet(workingSet[i])
          .setServerKeys(serverKeys[i]).setTraffic(t).setInnerAccesses(inner[i]).setInterAccesses(inter)
          .setNonZeros(nonZeros == null ? 0 : nonZeros[i]).setWeight(weights == null ? null : weights[i]).build());
      maxM = Math.max(maxM, workingSet[i]);
      sumM += workingSet[i];
      maxT = Math.max(maxT, t);
      sumT += t;
      sumInner += inner[i];
      sumInter += inter;
      maxRows = Math.max(maxRows, rows[i]);
      minRows = Math.min(minRows, rows[i]);
    }
    return PlacementMetrics.newBuilder().setParts(parts).setMaxWorkingSet(maxM).setSumWorkingSet(sumM)
        .setMaxTraffic(maxT).setSumTraffic(sumT).setInnerAccesses(sumInner).setInterAccesses(sumInter)
        .setMaxRows(maxRows).setMinRows(k == 0 ? 0 : minRows)
        .setMaxNonZeros(nonZeros == null ? 0 : Arrays.stream(nonZeros).max().orElse(0))
        .setMinNonZeros(nonZeros == null ? 0 : Arrays.stream(nonZeros).min().orElse(0))
        .setMaxWeight(weights == null ? null : Arrays.stream(weights).max().orElse(0))
        .setMinWeight(weights == null ? null : Arrays.stream(weights).min().orElse(0)).build();
  }

  /** (random - placed) / placed * 100; 0 if both are 0, +infinity if only placed is 0. */
  public static double improvement(long random, long placed) {
    if (placed == 0) {
      return random == 0 ? 0.0 : Double.POSITIVE_INFINITY;
    }
    return (random - placed) * 100.0 / placed;
  }

  /** The report as pretty-printed Avro JSON. */
  public static String json(MetricsReport report) throws IOException {
    ByteArrayOutputStream bos = new ByteArrayOutputStream();
    JsonEncoder enc = EncoderFactory.get().jsonEncoder(MetricsReport.getClassSchema(), bos, true);
    new SpecificDatumWriter<>(MetricsReport.class).write(report, enc);
    enc.flush();
    return bos.toString(StandardCharsets.UTF_8) + "\n";
  }

  /** The text table printed on the console and written to report.txt. */
  public static String text(MetricsReport r) {
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "Parsa placement report: algorithm=%s k=%d |U|=%d |V|=%d |E|=%d random seed=%d%n%n",
        r.getAlgorithm(), r.getK(), r.getRows(), r.getKeys(), r.getNonZeros(), r.getRandomSeed()));
    String h = "%5s | %10s %10s %10s %10s %10s %10s | %10s %10s %10s %10s%n";
    sb.append(String.format(Locale.ROOT, h, "", "placed", "", "", "", "", "", "random", "", "", ""));
    sb.append(String.format(Locale.ROOT, h, "part", "|U_i|", "M_i", "|V_i|", "T_i", "inner", "inter",
        "|U_i|", "M_i", "|V_i|", "T_i"));
    String row = "%5s | %10d %10d %10d %10d %10d %10d | %10d %10d %10d %10d%n";
    PlacementMetrics p = r.getPlaced();
    PlacementMetrics q = r.getRandom();
    for (int i = 0; i < r.getK(); i++) {
      PartMetrics a = p.getParts().get(i);
      PartMetrics b = q.getParts().get(i);
      sb.append(String.format(Locale.ROOT, row, i, a.getRows(), a.getWorkingSet(), a.getServerKeys(), a.getTraffic(),
          a.getInnerAccesses(), a.getInterAccesses(), b.getRows(), b.getWorkingSet(), b.getServerKeys(),
          b.getTraffic()));
    }
    sb.append(String.format(Locale.ROOT, row, "max", p.getMaxRows(), p.getMaxWorkingSet(), max(p, 2),
        p.getMaxTraffic(), max(p, 4), max(p, 5), q.getMaxRows(), q.getMaxWorkingSet(), max(q, 2), q.getMaxTraffic()));
    sb.append(String.format(Locale.ROOT, row, "sum", r.getRows(), p.getSumWorkingSet(), r.getKeys(),
        p.getSumTraffic(), p.getInnerAccesses(), p.getInterAccesses(), r.getRows(), q.getSumWorkingSet(), r.getKeys(),
        q.getSumTraffic()));
    sb.append(String.format(Locale.ROOT, "%nrandom: inner %d, inter %d accesses; min |U_i| placed %d, random %d%n",
        q.getInnerAccesses(), q.getInterAccesses(), p.getMinRows(), q.getMinRows()));
    sb.append(loads(p, q, "%n"));
    PlacementMetrics v = r.getRandomUAlgorithm2V();
    if (v != null) {
      sb.append(String.format(Locale.ROOT, "random U + Algorithm 2 V: max T_i %d, sum T_i %d, inner %d, inter %d;"
              + " T_i per part %s%n", v.getMaxTraffic(), v.getSumTraffic(), v.getInnerAccesses(), v.getInterAccesses(),
          v.getParts().stream().map(x -> Long.toString(x.getTraffic())).collect(java.util.stream.Collectors.joining(" "))));
    }
    if (r.getMaxTrafficLowerBound() != null) {
      long lb = r.getMaxTrafficLowerBound();
      long t = p.getMaxTraffic();
      sb.append(String.format(Locale.ROOT, "T_max lower bound for this U (%s, keys on a part that uses them): %d;"
              + " placed T_max %d is %s above it%n",
          Boolean.TRUE.equals(r.getMaxTrafficLowerBoundExact()) ? "LP optimum of eq. 8" : "averaging bound", lb, t,
          lb > 0 ? String.format(Locale.ROOT, "%.2f %%", (t - lb) * 100.0 / lb) : (t - lb) + " keys"));
    }
    sb.append(String.format(Locale.ROOT,
        "improvement over random, (random - placed) / placed: max M_i %s, max T_i %s, sum T_i %s%n",
        pct(r.getImprovementMaxWorkingSet()), pct(r.getImprovementMaxTraffic()), pct(r.getImprovementSumTraffic())));
    return sb.toString();
  }

  /**
   * The work per part, placed against random: non-zeros per part (where the key usage counted them) and the rows'
   * weight per part (where rows carry weights), each line ended by {@code eol}.
   */
  private static String loads(PlacementMetrics p, PlacementMetrics q, String eol) {
    StringBuilder sb = new StringBuilder();
    if (p.getMaxNonZeros() > 0) {
      sb.append(String.format(Locale.ROOT, "non-zeros per part: placed %d to %d, random %d to %d", p.getMinNonZeros(),
          p.getMaxNonZeros(), q.getMinNonZeros(), q.getMaxNonZeros())).append(String.format(eol));
    }
    if (p.getMaxWeight() != null) {
      sb.append(String.format(Locale.ROOT, "row weight per part: placed %s to %s, random %s to %s",
          num(p.getMinWeight()), num(p.getMaxWeight()), num(q.getMinWeight()), num(q.getMaxWeight())))
          .append(String.format(eol));
    }
    return sb.toString();
  }

  /** A weight: whole numbers without a fraction. */
  private static String num(Double w) {
    return w == Math.rint(w) && Math.abs(w) < 1e15 ? Long.toString(w.longValue())
        : String.format(Locale.ROOT, "%.3f", w);
  }

  private static long max(PlacementMetrics p, int field) {
    long m = 0;
    for (PartMetrics a : p.getParts()) {
      long v = field == 2 ? a.getServerKeys() : field == 4 ? a.getInnerAccesses() : a.getInterAccesses();
      m = Math.max(m, v);
    }
    return m;
  }

  static String pct(double v) {
    return Double.isInfinite(v) ? "inf %" : String.format(Locale.ROOT, "%.1f %%", v);
  }

  /** A self-contained HTML page: summary, grouped bar charts of M_i and T_i (placed vs random), the table. */
  public static String html(MetricsReport r) {
    StringBuilder sb = new StringBuilder();
    sb.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>Parsa placement report</title>\n")
        .append("<style>body{font-family:sans-serif;margin:24px;color:#222}h1{font-size:22px}h2{font-size:17px;margin-top:28px}")
        .append("table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #bbb;padding:3px 8px;text-align:right}")
        .append("th{background:#eee}.sum td{font-weight:bold}.legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 14px}")
        .append(".kv td:first-child{text-align:left}</style></head><body>\n");
    sb.append("<h1>Parsa placement report</h1>\n");
    sb.append(String.format(Locale.ROOT, "<table class=\"kv\"><tr><td>algorithm</td><td>%s</td></tr><tr><td>k</td><td>%d</td></tr>"
            + "<tr><td>|U| rows</td><td>%d</td></tr><tr><td>|V| keys</td><td>%d</td></tr><tr><td>|E| non-zeros</td><td>%d</td></tr>"
            + "<tr><td>random seed</td><td>%d</td></tr>"
            + "<tr><td>improvement max M<sub>i</sub></td><td>%s</td></tr><tr><td>improvement max T<sub>i</sub></td><td>%s</td></tr>"
            + "<tr><td>improvement sum T<sub>i</sub></td><td>%s</td></tr></table>\n",
        esc(r.getAlgorithm()), r.getK(), r.getRows(), r.getKeys(), r.getNonZeros(), r.getRandomSeed(),
        pct(r.getImprovementMaxWorkingSet()), pct(r.getImprovementMaxTraffic()), pct(r.getImprovementSumTraffic())));
    sb.append("<p>Improvement = (random &minus; placed) / placed &times; 100 %, as in the paper's section 5.</p>\n");
    int k = r.getK();
    PlacementMetrics variant = r.getRandomUAlgorithm2V();
    PlacementMetrics p = r.getPlaced();
    PlacementMetrics q = r.getRandom();
    List<String> partNames = new ArrayList<>(k);
    double[][] m = new double[2][k];
    double[][] t = new double[variant == null ? 2 : 3][k];
    for (int i = 0; i < k; i++) {
      partNames.add(Integer.toString(i));
      m[0][i] = p.getParts().get(i).getWorkingSet();
      m[1][i] = q.getParts().get(i).getWorkingSet();
      t[0][i] = p.getParts().get(i).getTraffic();
      t[1][i] = q.getParts().get(i).getTraffic();
      if (variant != null) {
        t[2][i] = variant.getParts().get(i).getTraffic();
      }
    }
    int width = k <= 16 ? 640 : 960;
    SvgChart mc = new SvgChart("Working set M_i = |N(U_i)| per part", "part i", "M_i (keys a worker needs)",
        partNames).width(width);
    SvgChart tc = new SvgChart("Traffic T_i per part", "part i", "T_i (keys in and out of machine i)", partNames)
        .width(width);
    for (int s = 0; s < t.length; s++) {
      if (s < 2) {
        mc.add(SERIES[s], m[s]);
      }
      tc.add(SERIES[s], t[s]);
    }
    boolean bars = k <= 32;
    sb.append("<h2>Working set M<sub>i</sub> = |N(U<sub>i</sub>)| per part</h2>\n")
        .append(bars ? mc.bars() : mc.lines());
    sb.append("<h2>Traffic T<sub>i</sub> per part</h2>\n").append(bars ? tc.bars() : tc.lines());
    if (variant != null) {
      sb.append(String.format(Locale.ROOT, "<p>random U + Algorithm 2 V: max T<sub>i</sub> %d, sum T<sub>i</sub> %d"
          + " (the gain of placing V alone, against random: max %s, sum %s).</p>%n", variant.getMaxTraffic(),
          variant.getSumTraffic(), pct(improvement(r.getRandom().getMaxTraffic(), variant.getMaxTraffic())),
          pct(improvement(r.getRandom().getSumTraffic(), variant.getSumTraffic()))));
    }
    sb.append("<p>").append(loads(p, q, "<br>\n")).append("</p>\n");
    // where the accesses go: every key of a working set is read either from the worker's own server (inner)
    // or over the network (inter)
    List<String> placements = new ArrayList<>(List.of("placed (" + esc(r.getAlgorithm()) + ")", "random"));
    List<PlacementMetrics> ps = new ArrayList<>(List.of(p, q));
    if (variant != null) {
      placements.add("random U + Alg. 2 V");
      ps.add(variant);
    }
    double[] inner = new double[ps.size()];
    double[] inter = new double[ps.size()];
    for (int i = 0; i < ps.size(); i++) {
      inner[i] = ps.get(i).getInnerAccesses();
      inter[i] = ps.get(i).getInterAccesses();
    }
    sb.append("<h2>Where the accesses go</h2>\n<p>Each key of a worker's working set is read once per pass, from "
        + "the server on its own machine (inner) or from another machine (inter, network traffic).</p>\n")
        .append(new SvgChart("Key accesses: own machine vs network", "placement", "accesses (sum over parts of M_i)",
            placements).add("inner (own machine)", inner).add("inter (network)", inter).stackedBars());
    String table = tableHtml(r, k, p, q);
    if (k > 32) {
      sb.append("<h2>Table</h2>\n<details><summary>per-part figures of all ").append(k)
          .append(" parts (the max and sum rows first)</summary>\n").append(table).append("</details>\n");
    } else {
      sb.append("<h2>Table</h2>\n").append(table);
    }
    sb.append("</body></html>\n");
    return sb.toString();
  }

  private static final String[] SERIES = {"placed", "random", "random U + Alg. 2 V"};

  /** The per-part table; the max and sum rows come first so that a long table need not be scrolled. */
  private static String tableHtml(MetricsReport r, int k, PlacementMetrics p, PlacementMetrics q) {
    StringBuilder sb = new StringBuilder();
    sb.append("<table><tr><th>part</th><th>|U<sub>i</sub>|</th><th>M<sub>i</sub></th><th>|V<sub>i</sub>|</th>"
        + "<th>T<sub>i</sub></th><th>inner</th><th>inter</th><th>random |U<sub>i</sub>|</th><th>random M<sub>i</sub></th>"
        + "<th>random |V<sub>i</sub>|</th><th>random T<sub>i</sub></th></tr>\n");
    String row = "<tr%s><td>%s</td><td>%,d</td><td>%,d</td><td>%,d</td><td>%,d</td><td>%,d</td><td>%,d</td>"
        + "<td>%,d</td><td>%,d</td><td>%,d</td><td>%,d</td></tr>\n";
    sb.append(String.format(Locale.ROOT, row, " class=\"sum\"", "max", p.getMaxRows(), p.getMaxWorkingSet(),
        max(p, 2), p.getMaxTraffic(), max(p, 4), max(p, 5), q.getMaxRows(), q.getMaxWorkingSet(), max(q, 2),
        q.getMaxTraffic()));
    sb.append(String.format(Locale.ROOT, row, " class=\"sum\"", "sum", r.getRows(), p.getSumWorkingSet(),
        r.getKeys(), p.getSumTraffic(), p.getInnerAccesses(), p.getInterAccesses(), r.getRows(),
        q.getSumWorkingSet(), r.getKeys(), q.getSumTraffic()));
    for (int i = 0; i < k; i++) {
      PartMetrics a = p.getParts().get(i);
      PartMetrics b = q.getParts().get(i);
      sb.append(String.format(Locale.ROOT, row, "", i, a.getRows(), a.getWorkingSet(), a.getServerKeys(),
          a.getTraffic(), a.getInnerAccesses(), a.getInterAccesses(), b.getRows(), b.getWorkingSet(),
          b.getServerKeys(), b.getTraffic()));
    }
    return sb.append("</table>\n").toString();
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
