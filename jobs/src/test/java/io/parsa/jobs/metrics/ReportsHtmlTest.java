package io.parsa.jobs.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.avro.MetricsReport;
import io.parsa.avro.PlacementMetrics;
import io.parsa.jobs.common.SvgChart;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The HTML report: every table cell filled, labelled axes with round ticks, readable at k = 256. */
class ReportsHtmlTest {

  private static PlacementMetrics placement(int k, long seed) {
    Random rnd = new Random(seed);
    long[] rows = new long[k];
    long[] m = new long[k];
    long[] v = new long[k];
    long[] inner = new long[k];
    long[] served = new long[k];
    for (int i = 0; i < k; i++) {
      rows[i] = 1000 + rnd.nextInt(3);
      m[i] = 40_000 + rnd.nextInt(20_000);
      v[i] = 10_000 + rnd.nextInt(5_000);
      inner[i] = v[i] / 2;
      served[i] = 30_000 + rnd.nextInt(10_000);
    }
    return Reports.placement(rows, m, v, inner, served, null, null);
  }

  private static MetricsReport report(int k) {
    PlacementMetrics p = placement(k, 1);
    PlacementMetrics q = placement(k, 2);
    return MetricsReport.newBuilder().setK(k).setAlgorithm("parsa").setRows(1000L * k).setKeys(12_000L * k)
        .setNonZeros(50_000L * k).setRandomSeed(1).setPlaced(p).setRandom(q)
        .setImprovementMaxWorkingSet(Reports.improvement(q.getMaxWorkingSet(), p.getMaxWorkingSet()))
        .setImprovementMaxTraffic(Reports.improvement(q.getMaxTraffic(), p.getMaxTraffic()))
        .setImprovementSumTraffic(Reports.improvement(q.getSumTraffic(), p.getSumTraffic()))
        .setRandomUAlgorithm2V(placement(k, 3)).build();
  }

  @Test
  void everyTableCellIsFilledIncludingTheMaxRow() {
    String html = Reports.html(report(8));
    assertFalse(html.contains("<td></td>"), "no blank cells");
    PlacementMetrics p = report(8).getPlaced();
    long maxInner = p.getParts().stream().mapToLong(x -> x.getInnerAccesses()).max().orElseThrow();
    assertTrue(html.contains(String.format("<tr class=\"sum\"><td>max</td>")), html);
    assertTrue(html.contains(String.format(java.util.Locale.ROOT, "%,d", maxInner)), "max inner shown");
  }

  @Test
  void chartsHaveAxisLabelsRoundTicksAndATrafficBreakdown() {
    String html = Reports.html(report(8));
    assertTrue(html.contains("M_i (keys a worker needs)"));
    assertTrue(html.contains(">part i<"));
    assertTrue(html.contains("Key accesses: own machine vs network"));
    assertTrue(html.contains("inner (own machine)") && html.contains("inter (network)"));
    // y tick labels (right-aligned at the axis) are round: 1, 2 or 5 times a power of ten, in k or M
    Matcher ticks = Pattern.compile("text-anchor=\"end\" font-size=\"11\">([^<]+)</text>").matcher(html);
    int n = 0;
    while (ticks.find()) {
      String t = ticks.group(1);
      assertTrue(t.matches("-?\\d+(\\.\\d+)?[kM]?"), "tick " + t);
      n++;
    }
    assertTrue(n >= 9, "ticks on every chart");
  }

  @Test
  void twoHundredFiftySixPartsStayReadable() {
    String html = Reports.html(report(256));
    List<Integer> widths = new ArrayList<>();
    Matcher svg = Pattern.compile("<svg [^>]*width=\"(\\d+)\"").matcher(html);
    while (svg.find()) {
      widths.add(Integer.parseInt(svg.group(1)));
    }
    assertEquals(3, widths.size());
    assertTrue(widths.stream().allMatch(w -> w <= 960), "fits a screen: " + widths);
    // x labels thinned out: far fewer than 256 per chart
    Matcher xLabels = Pattern.compile("text-anchor=\"middle\" font-size=\"11\">\\d+</text>").matcher(html);
    int labels = 0;
    while (xLabels.find()) {
      labels++;
    }
    assertTrue(labels <= 2 * 30, "labels " + labels);
    assertTrue(html.contains("<details>"), "the 256-row table is folded");
  }

  @Test
  void tickValuesAreCompactAndRound() {
    assertEquals("20k", SvgChart.tickLabel(20_000, 5_000));
    assertEquals("1.5M", SvgChart.tickLabel(1_500_000, 500_000));
    assertEquals("2500", SvgChart.tickLabel(2_500, 500));
    assertEquals("0.25", SvgChart.tickLabel(0.25, 0.05));
  }
}
