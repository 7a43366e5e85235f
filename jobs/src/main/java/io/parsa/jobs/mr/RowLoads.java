package io.parsa.jobs.mr;

/**
 * What each part of a placement, and of the seeded random placement beside it, holds of the rows: their number, their
 * non-zeros and, where rows carry weights, their weight (a row without one weighs 1). Kept by the key-usage job's row
 * side ({@link AlignedRowKeysMapper}, {@link RowKeysReducer}) in its {@link PartStats}, read back by
 * {@link io.parsa.jobs.keyusage.KeyUsageJob}.
 */
public final class RowLoads {

  /** PartStats names: non-zeros per part, placed and random. */
  public static final String NONZEROS_PLACED = "nonzeros.placed";
  public static final String NONZEROS_RANDOM = "nonzeros.random";
  /** PartStats names ({@link PartStats#putDoubles}): weight per part, placed and random. */
  public static final String WEIGHTS_PLACED = "weights.placed";
  public static final String WEIGHTS_RANDOM = "weights.random";
  /** PartStats name, one entry: rows that carry a weight. */
  public static final String WEIGHTED_ROWS = "rows.weighted";

  private final PartStats stats;
  private final long[] rowsPlaced;
  private final long[] rowsRandom;
  private final long[] nonZerosPlaced;
  private final long[] nonZerosRandom;
  private final double[] weightsPlaced;
  private final double[] weightsRandom;
  private final long[] weighted;

  public RowLoads(PartStats stats, int k) {
    this.stats = stats;
    rowsPlaced = stats.array(RowKeysReducer.ROWS_PLACED, k);
    rowsRandom = stats.array(RowKeysReducer.ROWS_RANDOM, k);
    nonZerosPlaced = stats.array(NONZEROS_PLACED, k);
    nonZerosRandom = stats.array(NONZEROS_RANDOM, k);
    weighted = stats.array(WEIGHTED_ROWS, 1);
    weightsPlaced = new double[k];
    weightsRandom = new double[k];
  }

  /** A row of {@code nonZeros} non-zeros and weight {@code weight} (NaN or null: none) on both placements' parts. */
  public void add(int placed, int random, long nonZeros, Double weight) {
    double w = 1;
    if (weight != null && !Double.isNaN(weight)) {
      w = weight;
      weighted[0]++;
    }
    rowsPlaced[placed]++;
    rowsRandom[random]++;
    nonZerosPlaced[placed] += nonZeros;
    nonZerosRandom[random] += nonZeros;
    weightsPlaced[placed] += w;
    weightsRandom[random] += w;
  }

  /** Puts the weights into the stats; call once, before they are written. */
  public void finish() {
    stats.putDoubles(WEIGHTS_PLACED, weightsPlaced);
    stats.putDoubles(WEIGHTS_RANDOM, weightsRandom);
  }
}
