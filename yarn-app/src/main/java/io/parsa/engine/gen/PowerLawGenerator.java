package io.parsa.engine.gen;

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
 * prefix sum of weights, so the degrees add up to exactly N (before the per-row cap of {@code columns/2}, which
 * only bites on tiny column counts). A first pass over the same random stream computes W. Each key is drawn from
 * a continuous power law on [1, columns+1) with density ∝ x^(-columnExponent), then scattered over the key space
 * by a fixed bijection so that popular keys are not all small numbers. Keys of a row are distinct and ascending.
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
    if (rows < 1 || columns < 1 || nonZeros < 0) {
      throw new IllegalArgumentException("need rows >= 1, columns >= 1, nonZeros >= 0; got " + rows + ", "
          + columns + ", " + nonZeros);
    }
    if (!(rowExponent > 1.0) || !(columnExponent >= 0.0)) {
      throw new IllegalArgumentException("need rowExponent > 1 and columnExponent >= 0; got " + rowExponent
          + ", " + columnExponent);
    }
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

  /** Generates every row in order 0..rows-1 into {@code sink}; returns the number of non-zeros produced. */
  public long generate(RowSink sink) throws IOException {
    double total = 0;
    SplittableRandom weights = new SplittableRandom(seed);
    for (long r = 0; r < rows; r++) {
      total += rowWeight(weights);
    }
    weights = new SplittableRandom(seed);
    SplittableRandom keysRnd = new SplittableRandom(seed ^ 0x9E3779B97F4A7C15L);
    long cap = Math.max(1, columns / 2);
    long[] buf = new long[16];
    LongOpenHashSet seen = new LongOpenHashSet();
    double prefix = 0;
    long emittedTarget = 0;
    long produced = 0;
    for (long r = 0; r < rows; r++) {
      prefix += rowWeight(weights);
      long target = r == rows - 1 ? nonZeros : (long) Math.floor(nonZeros * (prefix / total));
      long degree = Math.min(cap, Math.max(0, target - emittedTarget));
      emittedTarget = Math.max(emittedTarget, target);
      int d = (int) Math.min(Integer.MAX_VALUE - 8, degree);
      if (buf.length < d) {
        buf = new long[Math.max(d, buf.length * 2)];
      }
      seen.clear();
      int n = 0;
      while (n < d) {
        long k = drawKey(keysRnd);
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

  private double rowWeight(SplittableRandom rnd) {
    double u = 1.0 - rnd.nextDouble(); // (0, 1]
    return Math.pow(u, -1.0 / (rowExponent - 1.0));
  }

  /** One key in [1, columns], power-law popular, scattered by a bijection of [0, columns). */
  private long drawKey(SplittableRandom rnd) {
    double u = rnd.nextDouble();
    double hi = columns + 1.0;
    double x;
    if (columnExponent == 0.0) {
      x = 1.0 + u * columns;
    } else if (Math.abs(columnExponent - 1.0) < 1e-9) {
      x = Math.pow(hi, u);
    } else {
      double a = 1.0 - columnExponent;
      x = Math.pow(u * (Math.pow(hi, a) - 1.0) + 1.0, 1.0 / a);
    }
    long rank = Math.min(columns - 1, Math.max(0, (long) x - 1));
    return scatter(rank) + 1;
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
