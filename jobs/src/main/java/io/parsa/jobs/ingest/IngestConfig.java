package io.parsa.jobs.ingest;

import org.apache.hadoop.conf.Configuration;

/** Configuration keys of the ingest job, each with its default, declared once. */
public final class IngestConfig {

  /** Input format: libsvm, edges, uedges or avro. */
  public static final String FORMAT = "parsa.ingest.format";
  /** Seed of the row-to-block hash. */
  public static final String SEED = "parsa.ingest.seed";
  public static final long DEFAULT_SEED = 42L;
  /** Malformed lines each input file may skip (the tool also checks the total after the job). */
  public static final String SKIP_BAD_RECORDS = "parsa.ingest.skip.bad.records";
  public static final long DEFAULT_SKIP_BAD_RECORDS = 0;
  /** Row weights: none (keep null, or the Avro input's weight) or nnz (weight = number of keys). */
  public static final String WEIGHTS = "parsa.ingest.weights";
  public static final String DEFAULT_WEIGHTS = "none";
  /** Directory where tasks leave bad-record reports and per-block statistics for the client (unset: none). */
  public static final String REPORT_DIR = "parsa.ingest.report.dir";
  /** Bad lines each task logs (and reports) individually; the rest are only counted. */
  public static final String LOGGED_BAD_RECORDS = "parsa.ingest.logged.bad.records";
  public static final int DEFAULT_LOGGED_BAD_RECORDS = 10;
  /** Target uncompressed input bytes per block for the default number of blocks, in bytes. */
  public static final String BLOCK_TARGET_BYTES = "parsa.ingest.block.target.bytes";
  public static final long DEFAULT_BLOCK_TARGET_BYTES = 64L << 20;
  /**
   * Edge-list pieces a map task holds for in-mapper combining before it emits them, one per row (about 40 bytes a
   * piece, so the default holds 40 MiB), beside at most {@link #MAP_BUFFER_RAW_BYTES} of raw lines.
   */
  public static final String MAP_BUFFER_PIECES = "parsa.ingest.map.buffer.pieces";
  public static final int DEFAULT_MAP_BUFFER_PIECES = 1 << 20;
  public static final int MAP_BUFFER_RAW_BYTES = 32 << 20;
  /** Fewest blocks the default rule gives (enough for two workers and a stage-0 sample). */
  public static final String MIN_BLOCKS = "parsa.ingest.blocks.min";
  public static final int DEFAULT_MIN_BLOCKS = 4;
  /** Most blocks the default rule gives. */
  public static final String MAX_BLOCKS = "parsa.ingest.blocks.max";
  public static final int DEFAULT_MAX_BLOCKS = 10_000;

  /** Bits of the line number in a libsvm row id: id = (file ordinal << LINE_BITS) | 0-based line. */
  public static final int LINE_BITS = 40;
  /** Largest 0-based line number a libsvm row id can hold. */
  public static final long MAX_LINE_INDEX = (1L << LINE_BITS) - 1;
  /** Most input files a libsvm row id can number (ordinals 0 .. 2^23 - 1 keep ids non-negative). */
  public static final int MAX_FILES = 1 << (63 - LINE_BITS);

  private IngestConfig() {}

  public static IngestFormat format(Configuration conf) {
    return IngestFormat.parse(conf.get(FORMAT, IngestFormat.LIBSVM.cliName()));
  }

  public static boolean nnzWeights(Configuration conf) {
    return "nnz".equals(conf.get(WEIGHTS, DEFAULT_WEIGHTS));
  }

  /** Row id (and sequence number) of 0-based line {@code lineIndex} of file {@code ordinal}. */
  public static long lineId(int ordinal, long lineIndex) {
    return ((long) ordinal << LINE_BITS) | lineIndex;
  }

  /**
   * Default number of blocks: ceil(estimated uncompressed input bytes / target bytes), clamped to
   * [min, max]. Compressed files count {@link io.parsa.jobs.common.InputFiles#COMPRESSED_TEXT_RATIO} times
   * their size.
   */
  public static int defaultBlocks(Configuration conf, long estimatedBytes) {
    long target = conf.getLong(BLOCK_TARGET_BYTES, DEFAULT_BLOCK_TARGET_BYTES);
    long b = (estimatedBytes + target - 1) / target;
    int min = conf.getInt(MIN_BLOCKS, DEFAULT_MIN_BLOCKS);
    int max = conf.getInt(MAX_BLOCKS, DEFAULT_MAX_BLOCKS);
    return (int) Math.max(min, Math.min(max, b));
  }
}
