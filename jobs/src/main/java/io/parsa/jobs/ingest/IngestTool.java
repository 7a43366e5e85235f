package io.parsa.jobs.ingest;

import io.parsa.avro.GraphRow;
import io.parsa.common.BadRecordException;
import io.parsa.common.JsonFiles;
import io.parsa.common.OutputPaths;
import io.parsa.common.ParsaTool;
import io.parsa.common.UsageException;
import io.parsa.jobs.common.AvroFiles;
import io.parsa.jobs.common.InputFiles;
import io.parsa.jobs.common.LineNumberInputFormat;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.mapreduce.AvroJob;
import io.parsa.jobs.mr.FreshArraysAvroKeyInputFormat;
import io.parsa.jobs.mr.Jobs;
import org.apache.avro.mapreduce.AvroKeyOutputFormat;
import org.apache.avro.specific.SpecificData;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Counters;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code parsa ingest}: reads raw training data (libsvm, edge lists, Avro rows) and writes b random graph
 * blocks of GraphRow, plus {@code _stats.json}.
 *
 * <p>Two MapReduce jobs: (1) mappers parse each input file whole (exact line numbers), the shuffle groups
 * row pieces by row id in input order, and reducer i, one per block, writes block i; (2) a small aggregation
 * over the written blocks counts distinct keys and key degrees ({@link KeyStatsJob}). Output goes to a hidden
 * temporary directory that is renamed into place only when both jobs succeeded and the counters prove that
 * every row and non-zero read was written.
 *
 * <p><b>Row ids.</b> libsvm: (file ordinal << 40) | 0-based line number, where the ordinal is the file's index
 * among all input files sorted by full path and the line number counts every physical line (comments too).
 * Edge lists: the source vertex id. Avro: the record's id.
 * <b>Blocks.</b> block(id) = splitmix64(seed, id) mod b; files {@code block-00000.avro} ... (at least five
 * digits, more if b needs them), so sorting by name gives block order.
 */
public class IngestTool extends ParsaTool {

  private static final Logger LOG = LoggerFactory.getLogger(IngestTool.class);

  /** Set to true to print Hadoop's job progress while the jobs run. */
  public static final String VERBOSE = io.parsa.common.ConsoleLog.VERBOSE;
  /** Non-zeros per key-statistics reducer. */
  static final long KEYSTATS_NNZ_PER_REDUCER = 50_000_000L;

  private static final Pattern PART = Pattern.compile("part-r-(\\d+)\\.avro");

  private Counters lastCounters;

  @Override
  protected String name() {
    return "ingest";
  }

  @Override
  protected String description() {
    return "Read libsvm, edge-list or Avro input and write b random graph blocks (Avro GraphRow) with _stats.json.";
  }

  @Override
  protected Options options() {
    Options o = new Options();
    o.addOption(opt("input", "paths", "input files, directories or globs, comma-separated, on any Hadoop "
        + "file system; .gz and .bz2 are decompressed (required)"));
    o.addOption(opt("format", "fmt", "libsvm (default), edges (directed u v), uedges (undirected: both "
        + "directions) or avro (GraphRow records, re-blocked)"));
    o.addOption(opt("output", "dir", "blocks directory to create (required)"));
    o.addOption(opt("blocks", "b", "number of blocks (default: ceil(estimated uncompressed input / 64 MiB), "
        + "at least 4, at most 10000; compressed files count 4x their size)"));
    o.addOption(opt("seed", "n", "seed of the row-to-block hash (default " + IngestConfig.DEFAULT_SEED + ")"));
    o.addOption(opt("skip-bad-records", "N", "skip up to N malformed lines in total (counted, the first few "
        + "logged with file:line) instead of failing (default 0)"));
    o.addOption(opt("weights", "w", "none (default) or nnz: row weight = number of non-zeros"));
    o.addOption(opt("codec", "c", "Avro block compression: snappy (default), deflate or null"));
    o.addOption(opt("key-stats", "mode", "distinct keys and key degrees: exact (a key shuffle: a MapReduce job, or "
        + "a pass in the client for small data), estimate (HyperLogLog sketches of the block reducers, +-1.6 % at "
        + "95 %; no key degrees) or auto (default: exact up to " + "parsa.ingest.keystats.local.max.nonzeros "
        + "non-zeros, estimate above)"));
    o.addOption(flag("overwrite", "replace the output directory if it exists"));
    return o;
  }

  /** Counters of the last successful ingest job run by this instance (for tests and the pipeline). */
  public Counters lastCounters() {
    return lastCounters;
  }

  @Override
  protected int run(CommandLine cl) throws Exception {
    long start = System.nanoTime();
    Configuration conf = new Configuration(getConf());
    Jobs.applyDefaults(conf);
    List<String> inputs = InputFiles.split(required(cl, "input"));
    IngestFormat format = IngestFormat.parse(choiceOpt(cl, "format", "libsvm", "libsvm", "edges", "uedges", "avro"));
    Path out = new Path(required(cl, "output"));
    boolean overwrite = cl.hasOption("overwrite");
    long seed = longOpt(cl, "seed", IngestConfig.DEFAULT_SEED, Long.MIN_VALUE);
    long skip = longOpt(cl, "skip-bad-records", IngestConfig.DEFAULT_SKIP_BAD_RECORDS, 0);
    String weights = choiceOpt(cl, "weights", IngestConfig.DEFAULT_WEIGHTS, "none", "nnz");
    String codec = choiceOpt(cl, "codec", "snappy", "snappy", "deflate", "null");
    String keyStatsMode = choiceOpt(cl, "key-stats", "auto", "auto", "exact", "estimate");

    FileSystem outFs = out.getFileSystem(conf);
    out = outFs.makeQualified(out);
    OutputPaths.checkWritable(outFs, out, overwrite);
    List<FileStatus> files = InputFiles.resolve(conf, inputs);
    for (FileStatus f : files) {
      String p = f.getPath().toString();
      if (p.equals(out.toString()) || p.startsWith(out + "/")) {
        throw new UsageException("input file " + p + " lies inside the output " + out);
      }
    }
    if (format.isText() && files.size() > IngestConfig.MAX_FILES) {
      throw new UsageException(files.size() + " input files; row ids hold at most " + IngestConfig.MAX_FILES);
    }
    if (format == IngestFormat.AVRO) {
      checkAvroInputs(conf, files);
    }
    int blocks;
    String blocksRule;
    if (cl.hasOption("blocks")) {
      blocks = intOpt(cl, "blocks", 0, 1);
      blocksRule = "--blocks " + blocks;
    } else {
      long est = InputFiles.estimatedBytes(conf, files);
      blocks = IngestConfig.defaultBlocks(conf, est);
      blocksRule = String.format(Locale.ROOT, "default: ceil(%d estimated bytes / %d) clamped to [%d, %d] = %d",
          est, conf.getLong(IngestConfig.BLOCK_TARGET_BYTES, IngestConfig.DEFAULT_BLOCK_TARGET_BYTES),
          conf.getInt(IngestConfig.MIN_BLOCKS, IngestConfig.DEFAULT_MIN_BLOCKS),
          conf.getInt(IngestConfig.MAX_BLOCKS, IngestConfig.DEFAULT_MAX_BLOCKS), blocks);
    }
    LOG.info("ingest: {} input file(s), format {}, {} blocks ({}), seed {} -> {}", files.size(),
        format.cliName(), blocks, blocksRule, seed, out);

    conf.set(IngestConfig.FORMAT, format.cliName());
    conf.setLong(IngestConfig.SEED, seed);
    conf.setLong(IngestConfig.SKIP_BAD_RECORDS, skip);
    conf.set(IngestConfig.WEIGHTS, weights);

    Path tmp = OutputPaths.tempFor(out);
    Path work = new Path(tmp, "_work");
    conf.set(IngestConfig.REPORT_DIR, work.toString());
    boolean committed = false;
    Path lineCounts = null;
    try {
      Job job = createIngestJob(conf, format, files, tmp, blocks, codec);
      long lineCountMs = 0;
      if (format.isText() && LineNumberInputFormat.needsLineCounts(job)) {
        // large uncompressed files are read in byte ranges; a first pass counts each range's lines so that
        // line numbers (and the row ids made from them) are those of the whole file
        long t0 = System.nanoTime();
        lineCounts = OutputPaths.tempFor(out); // a sibling: the block job's output directory must not exist yet
        Path counts = lineCounts;
        Job countJob = LineNumberInputFormat.countJob(job, counts);
        if (!runJob(countJob, conf)) {
          System.err.println("ingest: line-count job failed: " + countJob.getStatus().getFailureInfo());
          return 1;
        }
        job.getConfiguration().set(LineNumberInputFormat.LINE_COUNTS, counts.toString());
        lineCountMs = (System.nanoTime() - t0) / 1_000_000;
        LOG.info("ingest: counted the lines of {} byte ranges in {} ms",
            Jobs.counters(countJob).findCounter(TaskCounter.MAP_OUTPUT_RECORDS)
                .getValue(), lineCountMs);
      }
      long jobStart = System.nanoTime();
      boolean jobOk = runJob(job, conf);
      long blockJobMs = (System.nanoTime() - jobStart) / 1_000_000;
      if (!jobOk) {
        return failed(outFs, work, job);
      }
      Counters c = Jobs.counters(job);
      long skipped = c.findCounter(IngestCounters.BAD_RECORDS_SKIPPED).getValue();
      List<BadRecordLog.Entry> reports = BadRecordLog.read(outFs, work);
      if (skipped > skip) {
        throw new UsageException(skipped + " malformed lines, more than --skip-bad-records " + skip
            + (reports.isEmpty() ? "" : "; first: " + reports.get(0)));
      }
      int shown = 0;
      for (BadRecordLog.Entry e : reports) {
        if (!e.fatal() && shown++ < 5) {
          LOG.warn("ingest: skipped malformed line {}", e);
        }
      }
      List<String> problems = verify(format, c);
      if (!problems.isEmpty()) {
        System.err.println("ingest: counters do not add up, output discarded: " + String.join("; ", problems));
        return 1;
      }
      long nnz = c.findCounter(IngestCounters.NONZEROS_OUT).getValue();
      long rows = c.findCounter(IngestCounters.ROWS_OUT).getValue();
      if (rows == 0) {
        throw new UsageException("input " + String.join(",", inputs) + " holds no rows");
      }

      List<Path> blockFiles = renameBlocks(outFs, tmp, blocks);
      BlockSide side = BlockSide.read(outFs, work, blocks);
      long edgesOut = c.findCounter(IngestCounters.EDGES_OUT).getValue();
      if (side.rows != rows || side.nonZeros != nnz || side.edges != edgesOut) {
        System.err.println("ingest: the block reducers' statistics (rows " + side.rows + ", non-zeros "
            + side.nonZeros + ", edges " + side.edges + ") differ from the job's counters (rows " + rows
            + ", non-zeros " + nnz + ", edges " + edgesOut + "); output discarded");
        return 1;
      }
      long keyStart = System.nanoTime();
      KeyStatsJob.Result keys;
      boolean exact = keyStatsMode.equals("exact")
          || (keyStatsMode.equals("auto") && nnz <= KeyStatsJob.localMaxNonZeros(conf));
      if (!exact) {
        keys = new KeyStatsJob.Result(side.keys.estimate(), -1, edgesOut, nnz);
        LOG.info("ingest: distinct keys estimated from the block reducers' sketches: {} (95 % bounds {} .. {})",
            keys.distinctKeys(), side.keys.lowerBound(), side.keys.upperBound());
      } else if (nnz <= KeyStatsJob.localMaxNonZeros(conf)) {
        keys = KeyStatsJob.computeLocally(conf, blockFiles);
        LOG.debug("ingest: key statistics computed in the client ({} non-zeros)", nnz);
      } else {
        int keyReducers = (int) Math.max(1, Math.min(blocks, (nnz + KEYSTATS_NNZ_PER_REDUCER - 1)
            / KEYSTATS_NNZ_PER_REDUCER));
        Path keyOut = new Path(work, "key-stats");
        Job keyJob = KeyStatsJob.create(conf, blockFiles, keyOut, keyReducers);
        if (!runJob(keyJob, conf)) {
          System.err.println("ingest: key-statistics job failed: " + keyJob.getStatus().getFailureInfo());
          return 1;
        }
        keys = KeyStatsJob.read(outFs, keyOut,
            Jobs.counters(keyJob).findCounter(KeyStatsCounters.KEY_OCCURRENCES).getValue());
        if (Jobs.counters(keyJob).findCounter(KeyStatsCounters.ROWS_READ).getValue() != rows) {
          System.err.println("ingest: key-statistics job read " + Jobs.counters(keyJob)
              .findCounter(KeyStatsCounters.ROWS_READ).getValue() + " rows, the blocks hold " + rows
              + "; output discarded");
          return 1;
        }
      }
      if (keys.occurrences() != nnz) {
        System.err.println("ingest: key statistics saw " + keys.occurrences() + " key occurrences, the blocks hold "
            + nnz + " non-zeros; output discarded");
        return 1;
      }
      if (keys.sumDegree() != edgesOut) {
        System.err.println("ingest: key statistics count " + keys.sumDegree() + " distinct (row, key) pairs, the "
            + "block reducers " + edgesOut + "; output discarded");
        return 1;
      }

      long keyStatsMs = (System.nanoTime() - keyStart) / 1_000_000;
      LOG.debug("ingest: block job {} ms, key statistics {} ms", blockJobMs, keyStatsMs);
      IngestStats stats = stats(c, keys, side, blocks);
      if (!exact) {
        stats.distinctKeysEstimated = true;
        stats.distinctKeysBounds = List.of(side.keys.lowerBound(), side.keys.upperBound());
      }
      stats.blockJobMs = blockJobMs;
      stats.keyStatsMs = keyStatsMs;
      stats.lineCountMs = lineCountMs;
      stats.inputSplits = (int) c.findCounter(IngestCounters.SPLITS).getValue();
      stats.format = format.cliName();
      stats.inputs = inputs;
      for (FileStatus f : files) {
        stats.files.add(f.getPath().toString());
      }
      stats.seed = seed;
      stats.edges = keys.sumDegree();
      stats.repeatedKeys = nnz - keys.sumDegree();
      stats.blocksRule = blocksRule;
      stats.weights = weights;
      stats.idRule = switch (format) {
        case LIBSVM -> "(file ordinal << 40) | 0-based line number; files sorted by full path, ordinal from 0";
        case EDGES, UEDGES -> "source vertex id";
        case AVRO -> "id as given in the input records";
      };
      stats.blockRule = "block = unsigned(splitmix64(splitmix64(seed + 0x9E3779B97F4A7C15) ^ "
          + "(id * 0x9E3779B97F4A7C15))) mod b";
      for (BadRecordLog.Entry e : reports) {
        if (!e.fatal()) {
          stats.skippedExamples.add(e.toString());
        }
      }
      stats.wallTimeMs = (System.nanoTime() - start) / 1_000_000;
      outFs.delete(work, true);
      JsonFiles.write(outFs, new Path(tmp, "_stats.json"), stats);
      OutputPaths.commit(outFs, tmp, out, overwrite);
      committed = true;
      lastCounters = c;
      System.out.printf(Locale.ROOT, "ingest: %,d rows, %,d non-zeros (%,d distinct row-key edges), %s%,d distinct "
              + "keys%s in %d blocks -> %s (%.1f s%s)%n", rows, nnz, stats.edges, exact ? "" : "about ",
          keys.distinctKeys(), exact ? "" : String.format(Locale.ROOT, " (estimated: %,d .. %,d at 95 %%)",
              side.keys.lowerBound(), side.keys.upperBound()), blocks, out,
          stats.wallTimeMs / 1000.0, skipped > 0 ? ", " + skipped + " malformed lines skipped" : "");
      if (stats.repeatedKeys > 0) {
        String warning = String.format(Locale.ROOT, "%,d non-zeros list a key that their row already lists "
            + "(%,d non-zeros, %,d distinct row-key edges): partitioning and the metrics count each (row, key) "
            + "edge once, the shards keep the lines as written", stats.repeatedKeys, nnz, stats.edges);
        LOG.warn("ingest: {}", warning);
        System.err.println("ingest: WARNING: " + warning);
      }
      return 0;
    } finally {
      if (!committed) {
        OutputPaths.discard(outFs, tmp);
      }
      if (lineCounts != null) {
        OutputPaths.discard(outFs, lineCounts);
      }
    }
  }

  /**
   * Reads the header of every Avro input so that a file that is not Avro, or holds other records than GraphRow,
   * fails before the job with a message naming it (inside the job it would surface as a bare task failure).
   */
  static void checkAvroInputs(Configuration conf, List<FileStatus> files) throws IOException {
    for (FileStatus f : files) {
      String name = f.getPath().toString();
      if (f.getLen() == 0) {
        throw new BadRecordException(name, 1, "empty file; expected an Avro container file of GraphRow records");
      }
      Schema schema;
      try (DataFileStream<Object> in = AvroFiles.openGeneric(conf, f.getPath())) {
        schema = in.getSchema();
      } catch (IOException | AvroRuntimeException e) {
        throw new BadRecordException(name, 1, "not an Avro container file (" + e.getMessage()
            + "); expected GraphRow records, e.g. the blocks of an earlier ingest");
      }
      if (schema.getType() != Schema.Type.RECORD || schema.getField("id") == null
          || schema.getField("keys") == null || schema.getField("raw") == null) {
        throw new BadRecordException(name, 1, "holds " + schema.getFullName()
            + " records; expected GraphRow records (id, keys, weight, raw)");
      }
    }
  }

  /** The block-writing job. */
  static Job createIngestJob(Configuration conf, IngestFormat format, List<FileStatus> files, Path tmp,
      int blocks, String codec) throws IOException {
    Job job = Job.getInstance(conf, "parsa ingest: " + format.cliName() + " -> " + blocks + " blocks");
    job.setJarByClass(IngestTool.class);
    FileInputFormat.setInputPaths(job, InputFiles.paths(files));
    if (format.isText()) {
      job.setInputFormatClass(LineNumberInputFormat.class);
      job.setMapperClass(TextIngestMapper.class);
    } else {
      job.setInputFormatClass(FreshArraysAvroKeyInputFormat.class);
      AvroJob.setInputKeySchema(job, GraphRow.getClassSchema());
      job.setMapperClass(AvroIngestMapper.class);
    }
    job.setMapOutputKeyClass(RowKey.class);
    job.setMapOutputValueClass(RowPiece.class);
    job.setSortComparatorClass(RowKey.SortComparator.class);
    job.setGroupingComparatorClass(RowKey.GroupComparator.class);
    job.setPartitionerClass(BlockPartitioner.class);
    job.setReducerClass(BlockReducer.class);
    job.setNumReduceTasks(blocks);
    job.setOutputFormatClass(AvroKeyOutputFormat.class);
    AvroJob.setOutputKeySchema(job, GraphRow.getClassSchema());
    // the generated-class writer; avro-mapred's default (reflection) looks up encodings per record
    AvroJob.setDataModelClass(job, SpecificData.class);
    job.setOutputValueClass(NullWritable.class);
    if (!"null".equals(codec)) {
      FileOutputFormat.setCompressOutput(job, true);
      job.getConfiguration().set(AvroJob.CONF_OUTPUT_CODEC, codec);
    }
    FileOutputFormat.setOutputPath(job, tmp);
    return job;
  }

  private static boolean runJob(Job job, Configuration conf) throws Exception {
    return Jobs.monitor(job);
  }

  /** Turns a failed job into the user's message: the first bad record if a task reported one. */
  private static int failed(FileSystem fs, Path work, Job job) throws IOException, InterruptedException {
    for (BadRecordLog.Entry e : BadRecordLog.read(fs, work)) {
      if (e.fatal()) {
        throw e.toException();
      }
    }
    String info = job.getStatus().getFailureInfo();
    System.err.println("ingest: job " + job.getJobID() + " failed" + (info == null || info.isEmpty() ? ""
        : ": " + info));
    return 1;
  }

  /** The counter identities every successful run must satisfy; returns what does not hold. */
  static List<String> verify(IngestFormat format, Counters c) {
    List<String> problems = new ArrayList<>();
    check(problems, c, IngestCounters.ROWS_IN, IngestCounters.ROWS_OUT);
    check(problems, c, IngestCounters.NONZEROS_IN, IngestCounters.NONZEROS_OUT);
    if (format.isText()) {
      long lines = v(c, IngestCounters.LINES);
      long accounted = v(c, IngestCounters.RECORDS_IN) + v(c, IngestCounters.COMMENT_LINES)
          + v(c, IngestCounters.BLANK_LINES) + v(c, IngestCounters.BAD_RECORDS_SKIPPED);
      if (lines != accounted) {
        problems.add("LINES " + lines + " != RECORDS_IN + COMMENT_LINES + BLANK_LINES + BAD_RECORDS_SKIPPED "
            + accounted);
      }
      check(problems, c, IngestCounters.RECORDS_IN, IngestCounters.RAW_LINES_OUT);
    }
    if (format.isEdgeList()) {
      long emitted = c.findCounter(TaskCounter.MAP_OUTPUT_RECORDS).getValue();
      if (v(c, IngestCounters.COMBINED_PIECES) != emitted) {
        problems.add("COMBINED_PIECES " + v(c, IngestCounters.COMBINED_PIECES) + " != map output records " + emitted);
      }
    }
    return problems;
  }

  private static void check(List<String> problems, Counters c, IngestCounters in, IngestCounters out) {
    if (v(c, in) != v(c, out)) {
      problems.add(in + " " + v(c, in) + " != " + out + " " + v(c, out));
    }
  }

  private static long v(Counters c, IngestCounters k) {
    return c.findCounter(k).getValue();
  }

  /** Renames the reducers' part-r-NNNNN.avro files to block-NNNNN.avro; there must be exactly b. */
  static List<Path> renameBlocks(FileSystem fs, Path dir, int blocks) throws IOException {
    int digits = Math.max(5, String.valueOf(blocks - 1).length());
    List<Path> out = new ArrayList<>(blocks);
    for (int i = 0; i < blocks; i++) {
      out.add(null);
    }
    int found = 0;
    for (FileStatus st : fs.listStatus(dir)) {
      Matcher m = PART.matcher(st.getPath().getName());
      if (!m.matches()) {
        continue;
      }
      int i = Integer.parseInt(m.group(1));
      Path target = new Path(dir, blockFileName(i, digits));
      if (!fs.rename(st.getPath(), target)) {
        throw new IOException("could not rename " + st.getPath() + " to " + target);
      }
      out.set(i, target);
      found++;
    }
    if (found != blocks) {
      throw new IOException("expected " + blocks + " block files in " + dir + ", found " + found);
    }
    return out;
  }

  /** Name of block {@code i}: {@code block-} + i zero-padded to {@code digits} + {@code .avro}. */
  public static String blockFileName(int i, int digits) {
    return String.format(Locale.ROOT, "block-%0" + digits + "d.avro", i);
  }

  /** What the block reducers wrote beside their blocks: rows, non-zeros, edges, largest row, key sketches. */
  static final class BlockSide {
    long rows;
    long nonZeros;
    long edges;
    long maxRow;
    long[] rowsPer;
    long[] nnzPer;
    /** Σ of the row weights per block, or null when no row of any block had a weight. */
    double[] weightPer;
    final KeySketch.Merged keys = new KeySketch.Merged();

    /** Reads one complete file per block (retried attempts write identical files: the first of each counts). */
    static BlockSide read(FileSystem fs, Path work, int blocks) throws IOException {
      BlockSide b = new BlockSide();
      b.rowsPer = new long[blocks];
      b.nnzPer = new long[blocks];
      boolean[] seen = new boolean[blocks];
      double[] weights = new double[blocks];
      boolean weighted = false;
      Path dir = new Path(work, BlockReducer.STATS_DIR);
      for (FileStatus st : fs.listStatus(dir, p -> !p.getName().startsWith("."))) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(fs.open(st.getPath()),
            StandardCharsets.UTF_8))) {
          String[] f = r.readLine().split("\t");
          int i = Integer.parseInt(f[0]);
          if (seen[i]) {
            continue;
          }
          seen[i] = true;
          b.rowsPer[i] = Long.parseLong(f[1]);
          b.nnzPer[i] = Long.parseLong(f[2]);
          b.maxRow = Math.max(b.maxRow, Long.parseLong(f[3]));
          b.rows += b.rowsPer[i];
          b.nonZeros += b.nnzPer[i];
          b.edges += Long.parseLong(f[4]);
          b.keys.add(f[5]);
          // a block of rows without weights weighs its rows
          boolean blockWeighted = f.length > 6 && !f[6].equals("-");
          weights[i] = blockWeighted ? Double.parseDouble(f[6]) : b.rowsPer[i];
          weighted |= blockWeighted;
        }
      }
      for (int i = 0; i < blocks; i++) {
        if (!seen[i]) {
          throw new IOException("no statistics of block " + i + " in " + dir);
        }
      }
      b.weightPer = weighted ? weights : null;
      return b;
    }
  }

  private static IngestStats stats(Counters c, KeyStatsJob.Result keys, BlockSide side, int blocks) {
    IngestStats s = new IngestStats();
    s.blocks = blocks;
    s.rows = v(c, IngestCounters.ROWS_OUT);
    s.nonZeros = v(c, IngestCounters.NONZEROS_OUT);
    s.distinctKeys = keys.distinctKeys();
    s.lines = v(c, IngestCounters.LINES);
    s.commentLines = v(c, IngestCounters.COMMENT_LINES);
    s.blankLines = v(c, IngestCounters.BLANK_LINES);
    s.emptyRows = v(c, IngestCounters.EMPTY_ROWS_OUT);
    s.badRecordsSkipped = v(c, IngestCounters.BAD_RECORDS_SKIPPED);
    long[] rowsPer = side.rowsPer;
    long[] nnzPer = side.nnzPer;
    long maxRow = side.maxRow;
    double mean = (double) s.rows / blocks;
    double worst = 0;
    s.weightPerBlock = side.weightPer == null ? null : new ArrayList<>(blocks);
    for (int i = 0; i < blocks; i++) {
      s.rowsPerBlock.add(rowsPer[i]);
      s.nonZerosPerBlock.add(nnzPer[i]);
      if (side.weightPer != null) {
        s.weightPerBlock.add(side.weightPer[i]);
      }
      worst = Math.max(worst, Math.abs(rowsPer[i] - mean));
    }
    s.blockImbalance = mean == 0 ? 0 : worst / mean;
    s.rowDegree = new IngestStats.Degree(maxRow, s.rows == 0 ? 0 : (double) s.nonZeros / s.rows);
    s.keyDegree = new IngestStats.Degree(keys.maxDegree(),
        keys.distinctKeys() == 0 ? 0 : (double) keys.sumDegree() / keys.distinctKeys());
    return s;
  }
}
