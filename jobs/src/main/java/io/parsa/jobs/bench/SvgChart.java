package io.parsa.jobs.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A small, dependency-free SVG chart (lines or grouped bars) for the benchmark report: the figures must open in
 * any browser or Markdown viewer with no network and no plotting library.
 */
public final class SvgChart {

  /** One named series of y values over the chart's x categories. */
  public record Series(String name, double[] values) {}

  private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};
  private static final int W = 640;
  private static final int H = 360;
  private static final int LEFT = 70;
  private static final int RIGHT = 150;
  private static final int TOP = 40;
  private static final int BOTTOM = 50;

  private final String title;
  private final String xLabel;
  private final String yLabel;
  private final List<String> categories;
  private final List<Series> series = new ArrayList<>();

  public SvgChart(String title, String xLabel, String yLabel, List<String> categories) {
    this.title = title;
    this.xLabel = xLabel;
    this.yLabel = yLabel;
    this.categories = categories;
  }

  public SvgChart add(String name, double[] values) {
    if (values.length != categories.size()) {
      throw new IllegalArgumentException("series " + name + " has " + values.length + " values for "
          + categories.size() + " categories");
    }
    series.add(new Series(name, values));
    return this;
  }

  /** Line chart: one polyline with markers per series, categories evenly spaced on x. */
  public String lines() {
    return render(false);
  }

  /** Grouped bar chart: one bar per series in each category. */
  public String bars() {
    return render(true);
  }

  private String render(boolean bars) {
    double lo = 0;
    double hi = 0;
    for (Series s : series) {
      for (double v : s.values) {
        if (!Double.isNaN(v)) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
      }
    }
    if (hi == lo) {
      hi = lo + 1;
    }
    double step = niceStep((hi - lo) / 5);
    lo = Math.floor(lo / step) * step;
    hi = Math.ceil(hi / step) * step;
    int pw = W - LEFT - RIGHT;
    int ph = H - TOP - BOTTOM;
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            + "font-family=\"sans-serif\" font-size=\"12\">%n", W, H, W, H));
    sb.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    sb.append(text(W / 2.0, 22, title, "middle", 15));
    // y grid and labels
    for (double y = lo; y <= hi + step / 2; y += step) {
      double py = TOP + ph - (y - lo) / (hi - lo) * ph;
      sb.append(String.format(Locale.ROOT,
          "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n", LEFT, py, LEFT + pw, py));
      sb.append(text(LEFT - 6, py + 4, fmt(y), "end", 11));
    }
    sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>%n",
        LEFT, TOP, LEFT, TOP + ph));
    double zeroY = TOP + ph - (0 - lo) / (hi - lo) * ph;
    sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#333\"/>%n",
        LEFT, zeroY, LEFT + pw, zeroY));
    int n = categories.size();
    double slot = (double) pw / n;
    for (int c = 0; c < n; c++) {
      sb.append(text(LEFT + slot * (c + 0.5), TOP + ph + 18, categories.get(c), "middle", 11));
    }
    sb.append(text(LEFT + pw / 2.0, H - 10, xLabel, "middle", 12));
    sb.append(String.format(Locale.ROOT,
        "<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 16 %.1f)\">%s</text>%n",
        TOP + ph / 2.0, TOP + ph / 2.0, esc(yLabel)));
    for (int s = 0; s < series.size(); s++) {
      Series se = series.get(s);
      String color = COLORS[s % COLORS.length];
      if (bars) {
        double bw = slot * 0.8 / series.size();
        for (int c = 0; c < n; c++) {
          double v = se.values[c];
          if (Double.isNaN(v)) {
            continue;
          }
          double py = TOP + ph - (v - lo) / (hi - lo) * ph;
          double x = LEFT + slot * c + slot * 0.1 + bw * s;
          sb.append(String.format(Locale.ROOT,
              "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s: %s</title></rect>%n",
              x, Math.min(py, zeroY), bw, Math.abs(zeroY - py), color, esc(se.name), fmt(v)));
        }
      } else {
        StringBuilder pts = new StringBuilder();
        for (int c = 0; c < n; c++) {
          double v = se.values[c];
          if (Double.isNaN(v)) {
            continue;
          }
          double px = LEFT + slot * (c + 0.5);
          double py = TOP + ph - (v - lo) / (hi - lo) * ph;
          pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
          sb.append(String.format(Locale.ROOT,
              "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>%s: %s</title></circle>%n",
              px, py, color, esc(se.name), fmt(v)));
        }
        sb.append(String.format(Locale.ROOT,
            "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>%n", pts.toString().trim(),
            color));
      }
      double ly = TOP + 10 + s * 20;
      sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>%n",
          LEFT + pw + 14, ly - 10, color));
      sb.append(text(LEFT + pw + 32, ly, se.name, "start", 12));
    }
    sb.append("</svg>\n");
    return sb.toString();
  }

  private static String text(double x, double y, String s, String anchor, int size) {
    return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\">%s</text>%n",
        x, y, anchor, size, esc(s));
  }

  private static double niceStep(double raw) {
    double mag = Math.pow(10, Math.floor(Math.log10(raw)));
    double f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
  }

  static String fmt(double v) {
    if (Math.abs(v) >= 1e6 || (Math.abs(v) < 1e-2 && v != 0)) {
      return String.format(Locale.ROOT, "%.3g", v);
    }
    return v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
