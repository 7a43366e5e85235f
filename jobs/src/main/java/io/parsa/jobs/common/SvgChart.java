package io.parsa.jobs.common;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A small, dependency-free SVG chart (lines, grouped bars or stacked bars) for the benchmark and placement
 * reports: the figures must open in any browser or Markdown viewer with no network and no plotting library.
 * Axes carry labels and round tick values (1, 2 or 5 times a power of ten, large ones as 20k or 1.5M); with many
 * categories only every n-th is labelled and lines lose their markers, so k = 256 parts stays readable.
 */
public final class SvgChart {

  /** One named series of y values over the chart's x categories. */
  public record Series(String name, double[] values) {}

  private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};
  private static final int W_DEFAULT = 640;
  /** Categories beyond which only every n-th is labelled on x, and lines are drawn without markers. */
  private static final int DENSE = 24;
  private static final int H = 360;
  private static final int LEFT = 70;
  private static final int RIGHT = 190;
  private static final int TOP = 40;
  private static final int BOTTOM = 50;

  private final String title;
  private final String xLabel;
  private final String yLabel;
  private final List<String> categories;
  private final List<Series> series = new ArrayList<>();
  private int width = W_DEFAULT;
  private boolean stacked;

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

  /** Sets the chart's width in pixels (default 640). */
  public SvgChart width(int pixels) {
    this.width = pixels;
    return this;
  }

  /**
   * Stacked bar chart: one bar per category, the series stacked in it, each segment labelled with its share of
   * the bar when it is tall enough.
   */
  public String stackedBars() {
    stacked = true;
    try {
      return render(true);
    } finally {
      stacked = false;
    }
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
    int n = categories.size();
    double lo = 0;
    double hi = 0;
    for (int c = 0; c < n; c++) {
      double stack = 0;
      for (Series s : series) {
        double v = s.values[c];
        if (!Double.isNaN(v)) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, stacked ? (stack += v) : v);
        }
      }
    }
    if (hi == lo) {
      hi = lo + 1;
    }
    double step = niceStep((hi - lo) / 5);
    lo = Math.floor(lo / step) * step;
    hi = Math.ceil(hi / step) * step;
    int w = width;
    int pw = w - LEFT - RIGHT;
    int ph = H - TOP - BOTTOM;
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            + "font-family=\"sans-serif\" font-size=\"12\" role=\"img\" aria-label=\"%s\">%n", w, H, w, H,
        esc(title)));
    sb.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    sb.append(text(w / 2.0, 22, title, "middle", 15));
    // y grid and labels at round values
    for (int g = 0; lo + g * step <= hi + step / 2; g++) {
      double y = lo + g * step;
      double py = TOP + ph - (y - lo) / (hi - lo) * ph;
      sb.append(String.format(Locale.ROOT,
          "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n", LEFT, py, LEFT + pw, py));
      sb.append(text(LEFT - 6, py + 4, tickLabel(y, step, Math.max(Math.abs(lo), Math.abs(hi))), "end", 11));
    }
    sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>%n",
        LEFT, TOP, LEFT, TOP + ph));
    double zeroY = TOP + ph - (0 - lo) / (hi - lo) * ph;
    sb.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#333\"/>%n",
        LEFT, zeroY, LEFT + pw, zeroY));
    double slot = (double) pw / n;
    int every = n <= DENSE ? 1 : (int) niceStep(n / 12.0);
    for (int c = 0; c < n; c++) {
      if (c % every == 0) {
        sb.append(text(LEFT + slot * (c + 0.5), TOP + ph + 18, categories.get(c), "middle", 11));
      }
    }
    sb.append(text(LEFT + pw / 2.0, H - 10, xLabel, "middle", 12));
    sb.append(String.format(Locale.ROOT,
        "<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 16 %.1f)\">%s</text>%n",
        TOP + ph / 2.0, TOP + ph / 2.0, esc(yLabel)));
    double[] base = new double[n];
    double[] totals = new double[n];
    for (Series se : series) {
      for (int c = 0; c < n; c++) {
        totals[c] += Double.isNaN(se.values[c]) ? 0 : se.values[c];
      }
    }
    for (int s = 0; s < series.size(); s++) {
      Series se = series.get(s);
      String color = COLORS[s % COLORS.length];
      if (bars) {
        double bw = stacked ? slot * 0.6 : slot * 0.8 / series.size();
        for (int c = 0; c < n; c++) {
          double v = se.values[c];
          if (Double.isNaN(v)) {
            continue;
          }
          double from = stacked ? base[c] : 0;
          double y0 = TOP + ph - (from - lo) / (hi - lo) * ph;
          double y1 = TOP + ph - (from + v - lo) / (hi - lo) * ph;
          double x = stacked ? LEFT + slot * c + slot * 0.2 : LEFT + slot * c + slot * 0.1 + bw * s;
          sb.append(String.format(Locale.ROOT,
              "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%s, %s: %s</title>"
                  + "</rect>%n", x, Math.min(y0, y1), Math.max(bw, 0.5), Math.abs(y1 - y0), color,
              esc(categories.get(c)), esc(se.name), fmt(v)));
          if (stacked && Math.abs(y1 - y0) >= 16 && totals[c] > 0) {
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                    + "fill=\"white\" font-size=\"11\">%s (%.0f %%)</text>%n", x + bw / 2, (y0 + y1) / 2 + 4,
                fmt(v), v * 100 / totals[c]));
          }
          base[c] += v;
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
          if (n <= DENSE) {
            sb.append(String.format(Locale.ROOT,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>%s: %s</title></circle>%n",
                px, py, color, esc(se.name), fmt(v)));
          }
        }
        sb.append(String.format(Locale.ROOT,
            "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"><title>%s</title>"
                + "</polyline>%n", pts.toString().trim(), color, n <= DENSE ? "2" : "1.5", esc(se.name)));
      }
      double ly = TOP + 10 + s * 20;
      sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>%n",
          LEFT + pw + 14, ly - 10, color));
      sb.append(text(LEFT + pw + 32, ly, se.name, "start", 12));
    }
    sb.append("</svg>\n");
    return sb.toString();
  }

  /** A tick value: round by construction; large ones compact (20k, 1.5M), small ones with the step's digits. */
  public static String tickLabel(double v, double step) {
    return tickLabel(v, step, Math.abs(v));
  }

  /** As {@link #tickLabel(double, double)} with one unit for a whole axis whose largest tick is {@code max}. */
  static String tickLabel(double v, double step, double max) {
    if (v == 0) {
      return "0";
    }
    if (max >= 1e6) {
      return trim(String.format(Locale.ROOT, "%.2f", v / 1e6)) + "M";
    }
    if (max >= 1e4) {
      return trim(String.format(Locale.ROOT, "%.2f", v / 1e3)) + "k";
    }
    if (step >= 1) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    int digits = (int) Math.max(0, Math.ceil(-Math.log10(step)));
    return String.format(Locale.ROOT, "%." + digits + "f", v);
  }

  private static String trim(String s) {
    return s.contains(".") ? s.replaceAll("0+$", "").replaceAll("\\.$", "") : s;
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
    if (Math.abs(v) < 1e-2 && v != 0) {
      return String.format(Locale.ROOT, "%.3g", v);
    }
    return v == Math.rint(v) ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%,.1f", v);
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
