package io.parsa.jobs.ingest;

import java.util.ArrayList;
import java.util.List;

/**
 * The summary ingest writes as {@code _stats.json} beside the blocks (public fields, serialised by Jackson).
 * Row degree = non-zeros of a row (as listed, duplicates included); key degree = number of rows using the key.
 */
public class IngestStats {
  public String format;
  /** The --input entries as given. */
  public List<String> inputs = new ArrayList<>();
  /** The resolved input files in ordinal order (the order that numbers libsvm row ids). */
  public List<String> files = new ArrayList<>();
  public long seed;
  public int blocks;
  /** How the number of blocks was chosen ("--blocks" or the default rule with its numbers). */
  public String blocksRule;
  public String weights;
  public String idRule;
  public String blockRule;

  public long rows;
  public long nonZeros;
  /**
   * Distinct (row, key) pairs, the edges |E| of the graph that partitioning and the metrics work on; smaller than
   * {@link #nonZeros} when rows list a key more than once.
   */
  public long edges;
  /** Listings of a key already listed in the same row (nonZeros - edges). */
  public long repeatedKeys;
  /** Distinct keys |V|: exact, or (with {@link #distinctKeysEstimated}) the HyperLogLog estimate. */
  public long distinctKeys;
  /** True when {@link #distinctKeys} is an estimate (ingest --key-stats estimate, or auto on large data). */
  public boolean distinctKeysEstimated;
  /** With an estimate: its bounds at about 95 % confidence; otherwise null. */
  public List<Long> distinctKeysBounds;
  public Degree rowDegree = new Degree();
  /** Key degrees; with an estimated key count, max is -1 (unknown) and mean is edges / the estimate. */
  public Degree keyDegree = new Degree();
  public List<Long> rowsPerBlock = new ArrayList<>();
  public List<Long> nonZerosPerBlock = new ArrayList<>();
  /**
   * Σ of the row weights per block (a row without a weight counts 1), or null when no row has a weight:
   * partition-u --weighted fixes every block's starting loads from it, so a run in waves is reproducible.
   */
  public List<Double> weightPerBlock;
  /** Largest relative deviation of a block's row count from the mean, (max |rows_i - n/b|) / (n/b). */
  public double blockImbalance;

  public long lines;
  public long commentLines;
  public long blankLines;
  public long emptyRows;
  public long badRecordsSkipped;
  /** The first few skipped lines as file:line: problem. */
  public List<String> skippedExamples = new ArrayList<>();
  /** Wall time of the whole step, of the block-writing job and of the key statistics, in milliseconds. */
  public long wallTimeMs;
  public long blockJobMs;
  public long keyStatsMs;
  /** Wall time of the line-count pass over large uncompressed text files (0 if none ran), in milliseconds. */
  public long lineCountMs;
  /** Map tasks that read the input (text: files read whole plus byte ranges of large files). */
  public int inputSplits;

  /** Largest and mean degree of one side of the graph. */
  public static class Degree {
    public long max;
    public double mean;

    public Degree() {}

    public Degree(long max, double mean) {
      this.max = max;
      this.mean = mean;
    }
  }
}
