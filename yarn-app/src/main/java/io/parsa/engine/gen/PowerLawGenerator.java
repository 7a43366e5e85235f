package io.parsa.engine.gen;

import io.parsa.engine.Mix64;
import it.unimi.dsi.fastutil.doubles.DoubleHeapPriorityQueue;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import java.io.IOException;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Streams a synthetic bipartite graph whose row degrees and column popularities both follow power laws, the shape
 * of real text and click data. Nothing but one row is held in memory, so 10^8 non-zeros and more stream through.
 *
 * <p>Model. Row r gets a Pareto weight {@code w_r = u^(-1/(rowExponent-1))}; its degree is its share of the
 * requested non-zeros by cumulative rounding, {@code d_r = floor(N·W_r/W) - floor(N·W_{r-1}/W)} with W_r the
 * prefix sum of weights, so the degrees add up to exactly N. A row holds at most {@code columns/2} distinct keys;
 * the heaviest rows (the weights have a heavy tail, so one row can ask for a large part of N) get that cap and
 * the others' shares are scaled up to make up the difference (water-filling), so the total stays exactly N
 * whenever {@code rows·columns/2 >= N}. A first pass over the same random stream computes W and the heaviest
 * weights. Each key is drawn from
 * a continuous power law on [1, columns+1) with density ∝ x^(-columnExponent), then scattered over the key space
 * by a fixed bijection so that popular keys are not all small numbers. Keys of a row are distinct and ascending.
 *
 * <p>Communities (optional). Real data has topics: documents on one subject share vocabulary. With
 * {@code clusters = c > 1} and {@code locality = p}, row r belongs to cluster {@code mix(seed, r) mod c}, the
 * key space is cut into c contiguous rank ranges, and each key is drawn with probability p from the row's own
 * cluster range (by the same power law restricted to that range) and otherwise from the whole key space. With
 * the defaults (c = 1, p = 0) keys are independent of the row.
 *
 * <p>Deterministic: the same parameters and seed give the same rows.
 */
public final class PowerLawGenerator {

  /** Receives generated rows; {@code keys[0..n)} are distinct, ascending and 1-based. */
  @FunctionalInterface
  public interface RowSink {
    void row(long row, long[] keys, int n) throws IOException;
  }

  private final long rows;
  private final long columns;
  private final long nonZeros;
  private final double rowExponent;
  private final double columnExponent;
  private final long seed;
  private final int clusters;
  private final double locality;
  private final long scatterMult;
  private final long scatterOffset;

  /**
   * @param rows number of rows (≥ 1)
   * @param columns number of distinct possible keys (≥ 1)
   * @param nonZeros requested total non-zeros (≥ 0)
   * @param rowExponent power-law exponent of row degrees (> 1; 2.0–3.0 typical)
   * @param columnExponent power-law exponent of key popularity (≥ 0; 0 = uniform, ~1 = Zipf)
   * @param seed random seed
   */
  public PowerLawGenerator(long rows, long columns, long nonZeros, double rowExponent, double columnExponent,
      long seed) {
    this(rows, columns, nonZeros, rowExponent, columnExponent, seed, 1, 0.0);
  }

  /**
   * As {@link #PowerLawGenerator(long, long, long, double, double, long)} with community structure.
   *
   * @param clusters number of communities c (1 ≤ c ≤ columns)
   * @param locality probability p in [0, 1] that a key comes from the row's own community
   */
  public PowerLawGenerator(long rows, long columns, long nonZeros, double rowExponent, double columnExponent,
      long seed, int clusters, double locality) {
    if (rows < 1 || columns < 1 || nonZeros < 0) {
      throw new IllegalArgumentException("need rows >= 1, columns >= 1, nonZeros >= 0; got " + rows + ", "
          + columns + ", " + nonZeros);
    }
    if (!(rowExponent > 1.0) || !(columnExponent >= 0.0)) {
      throw new IllegalArgumentException("need rowExponent > 1 and columnExponent >= 0; got " + rowExponent
          + ", " + columnExponent);
    }
    if (clusters < 1 || clusters > columns || !(locality >= 0.0 && locality <= 1.0)) {
      throw new IllegalArgumentException("need 1 <= clusters <= columns and 0 <= locality <= 1; got " + clusters
          + ", " + locality);
    }
    this.clusters = clusters;
    this.locality = locality;
    this.rows = rows;
    this.columns = columns;
    this.nonZeros = nonZeros;
    this.rowExponent = rowExponent;
    this.columnExponent = columnExponent;
    this.seed = seed;
    long mult = columns <= 2 ? 1 : Math.max(2, 0x5851F42D4C957F2DL % columns);
    while (columns > 2 && gcd(mult, columns) != 1) {
      mult++;
    }
    this.scatterMult = mult;
    this.scatterOffset = (seed & Long.MAX_VALUE) % columns;
  }

  /**
   * Generates every row in order 0..rows-1 into {@code sink}; returns the number of non-zeros produced, which is
   * the requested number unless {@link #maxNonZeros()} is smaller (or, with locality 1, a community's keys run
   * out).
   */
  public long generate(RowSink sink) throws IOException {
    // first pass: total weight, and the heaviest rows (only they can hit the per-row cap)
    long cap = rowCap();
    double total = 0;
    SplittableRandom weights = new SplittableRandom(seed);
    int topSize = (int) Math.min(Math.min(rows, nonZeros / cap + 1), MAX_TRACKED_HEAVY_ROWS);
    DoubleHeapPriorityQueue heaviest = new DoubleHeapPriorityQueue(Math.max(1, topSize));
    for (long r = 0; r < rows; r++) {
      double w = rowWeight(weights);
      total += w;
      if (heaviest.size() < topSize) {
        heaviest.enqueue(w);
      } else if (topSize > 0 && w > heaviest.firstDouble()) {
        heaviest.dequeueDouble();
        heaviest.enqueue(w);
      }
    }
    double[] top = new double[heaviest.size()];
    for (int i = top.length - 1; i >= 0; i--) {
      top[i] = heaviest.dequeueDouble(); // descending
    }
    Capping capping = capping(top, total, cap);
    weights = new SplittableRandom(seed);
    SplittableRandom keysRnd = new SplittableRandom(seed ^ 0x9E3779B97F4A7C15L);
    long[] buf = new long[16];
    LongOpenHashSet seen = new LongOpenHashSet();
    double prefix = 0;
    long cappedRows = 0;
    long produced = 0;
    for (long r = 0; r < rows; r++) {
      double w = rowWeight(weights);
      // share of the non-zeros: cap for the heaviest rows, the rest spread over the others by weight
      long target;
      if (w >= capping.threshold) {
        cappedRows++;
      } else {
        prefix += w;
      }
      target = r == rows - 1 ? nonZeros
          : (long) Math.floor(capping.scale * nonZeros * (prefix / total)) + cappedRows * cap;
      long degree = Math.min(cap, Math.max(0, target - produced));
      int d = (int) Math.min(Integer.MAX_VALUE - 8, degree);
      if (buf.length < d) {
        buf = new long[Math.max(d, buf.length * 2)];
      }
      if (seen.size() > 4096) {
        // clear() costs the table's capacity, which one long row inflates for good: start small again
        seen = new LongOpenHashSet();
      } else {
        seen.clear();
      }
      int n = 0;
      int cluster = clusters == 1 ? 0 : (int) Long.remainderUnsigned(Mix64.mix(seed + r), clusters);
      long lo = columns * cluster / clusters;
      long span = columns * (cluster + 1) / clusters - lo;
      d = (int) Math.min(d, locality >= 1.0 ? Math.max(1, span / 2) : d);
      while (n < d) {
        long k = locality > 0 && keysRnd.nextDouble() < locality
            ? scatter(lo + drawRank(keysRnd, span)) + 1
            : scatter(drawRank(keysRnd, columns)) + 1;
        if (seen.add(k)) {
          buf[n++] = k;
        }
      }
      Arrays.sort(buf, 0, n);
      sink.row(r, buf, n);
      produced += n;
    }
    return produced;
  }

  /** Most distinct keys one row can hold: half the key space (at least 1), so that key draws stay cheap. */
  public long rowCap() {
    return Math.max(1, columns / 2);
  }

  /** Most non-zeros this shape can hold: rows x {@link #rowCap()}. */
  public long maxNonZeros() {
    return rows > Long.MAX_VALUE / rowCap() ? Long.MAX_VALUE : rows * rowCap();
  }

  /** Most heavy rows tracked to redistribute capped degree (beyond it, degree above the cap is dropped). */
  static final int MAX_TRACKED_HEAVY_ROWS = 1 << 22;

  /** Rows with weight at least {@code threshold} get the cap; the others {@code scale} times their share. */
  private record Capping(double threshold, double scale) {}

  /**
   * Water-filling: the smallest number c of heaviest rows to cap such that, after the capped rows take c x cap,
   * the others' shares scaled up to the remaining non-zeros leave the (c+1)-th heaviest row under the cap. A row's
   * weight is a Pareto draw with infinite variance for exponents below 3, so one row can ask for far more than
   * the cap; without this its excess would be lost (10^6 non-zeros asked, 0.75 x 10^6 delivered).
   */
  private Capping capping(double[] top, double total, long cap) {
    double capped = 0;
    for (int c = 0; c <= top.length; c++) {
      if (c > 0) {
        capped += top[c - 1];
      }
      double remaining = nonZeros - (double) c * cap;
      double rest = total - capped;
      if (c == rows || remaining <= 0 || rest <= 0) {
        // every row capped (the shape holds fewer non-zeros than asked) or nothing left to spread
        return new Capping(c == 0 ? Double.POSITIVE_INFINITY : top[c - 1], rest > 0 ? Math.max(0, remaining)
            * total / (nonZeros * rest) : 0);
      }
      double scale = remaining * total / (nonZeros * rest);
      double next = c < top.length ? top[c] : 0;
      if (c == top.length || scale * nonZeros * next / total < cap) {
        return new Capping(c == 0 ? Double.POSITIVE_INFINITY : top[c - 1], c == 0 ? 1.0 : scale);
      }
    }
    return new Capping(Double.POSITIVE_INFINITY, 1.0);
  }

  private double rowWeight(SplittableRandom rnd) {
    double u = 1.0 - rnd.nextDouble(); // (0, 1]
    return Math.pow(u, -1.0 / (rowExponent - 1.0));
  }

  /** A rank in [0, range), power-law popular (rank 0 most popular). */
  private long drawRank(SplittableRandom rnd, long range) {
    double u = rnd.nextDouble();
    double hi = range + 1.0;
    double x;
    if (columnExponent == 0.0) {
      x = 1.0 + u * range;
    } else if (Math.abs(columnExponent - 1.0) < 1e-9) {
      x = Math.pow(hi, u);
    } else {
      double a = 1.0 - columnExponent;
      x = Math.pow(u * (Math.pow(hi, a) - 1.0) + 1.0, 1.0 / a);
    }
    return Math.min(range - 1, Math.max(0, (long) x - 1));
  }

  /** A bijection of [0, columns): affine map with a multiplier coprime to columns. */
  private long scatter(long rank) {
    long product = columns < (1L << 31)
        ? (rank * scatterMult) % columns
        : java.math.BigInteger.valueOf(rank).multiply(java.math.BigInteger.valueOf(scatterMult))
            .mod(java.math.BigInteger.valueOf(columns)).longValue();
    return (product + scatterOffset) % columns;
  }

  private static long gcd(long a, long b) {
    while (b != 0) {
      long t = a % b;
      a = b;
      b = t;
    }
    return a;
  }
}
