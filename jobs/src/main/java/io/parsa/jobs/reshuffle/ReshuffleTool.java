package io.parsa.jobs.reshuffle;

import io.parsa.avro.GraphRow;
import io.parsa.common.OutputPaths;
import io.parsa.common.ParsaTool;
import io.parsa.common.UsageException;
import io.parsa.jobs.common.AvroFiles;
import io.parsa.jobs.mr.AlignedJoin;
import io.parsa.jobs.mr.BufferedSequenceFileInputFormat;
import io.parsa.jobs.mr.ConsistencyException;
import io.parsa.jobs.mr.Jobs;
import io.parsa.jobs.mr.JoinCounters;
import io.parsa.jobs.mr.JoinValue;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.RowJoinJob;
import java.io.IOException;
import org.apache.avro.mapreduce.AvroJob;
import org.apache.avro.mapreduce.AvroKeyOutputFormat;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.TextOutputFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * reshuffle: rewrites the training data into k placed shards; shard i holds exactly the rows of U_i.
 *
 * <p>Jobs: <b>join</b> (blocks with their raw bytes joined with the u-assignment on row id, R reducers) emitting
 * ((part, id), row); <b>shards</b> (k reducers, reducer i gets part i, rows sorted by id) writing each row's raw
 * bytes + '\n' (text; for edge lists raw already holds all lines whose first column is the vertex; an empty raw
 * writes nothing), or an Avro GraphRow; with {@code --renumber}, keys are replaced by the v-assignment's newKey
 * (see {@link RowRewriter} for the libsvm 1-based / edge-list 0-based handling).
 *
 * <p>Output: exactly k files {@code part-00000} ... {@code part-(k-1)} (text) or {@code part-NNNNN.avro}, empty
 * for an empty part, and {@code _SUCCESS}.
 *
 * <p>Proof from counters: rows, non-zeros and raw bytes in (mapper, {@link JoinCounters}) equal those reaching the
 * shard writers (reducer, {@link Counters}); so do two order-independent checksums, the sums mod 2^64 of two
 * independently seeded 64-bit hashes of each row's raw bytes (sums, unlike xor, add up across tasks in counters).
 */
public class ReshuffleTool extends ParsaTool {

  private static final Logger LOG = LoggerFactory.getLogger(ReshuffleTool.class);

  public static final String OUTPUT_FORMAT = "parsa.reshuffle.output.format";
  public static final String INPUT_FORMAT = "parsa.reshuffle.input.format";
  /** v-assignment directory whose newKeys replace the keys; unset = no renumbering. */
  public static final String V_ASSIGNMENT = "parsa.reshuffle.renumber.v.assignment";
  /** Internal: number of keys in the v-assignment (sizes each shard reducer's key map once). */
  static final String V_ASSIGNMENT_KEYS = "parsa.reshuffle.renumber.v.keys";
  /**
   * Heap of one shard reducer in bytes for the {@code --renumber} memory check; default: detected from
   * {@code mapreduce.reduce.java.opts} (-Xmx) or {@code mapreduce.reduce.memory.mb} ×
   * {@code mapreduce.job.heap.memory-mb.ratio}, or the local JVM's heap shared by the concurrent local reducers.
   */
  public static final String REDUCER_HEAP_BYTES = "parsa.reshuffle.reducer.heap.bytes";
  /** Share of a reducer's heap the key map may take. */
  static final double MAP_HEAP_SHARE = 0.6;

  /** Counters of the shard writers ("after" side). */
  public enum Counters {
    /** Rows that reached a shard writer. */
    ROWS_OUT,
    /** Their non-zeros. */
    NONZEROS_OUT,
    /** Their raw bytes (original). */
    RAW_BYTES_OUT,
    /** Sum mod 2^64 of hash 1 of each row's original raw bytes. */
    ROW_HASH_SUM_OUT,
    /** Sum mod 2^64 of hash 2. */
    ROW_HASH2_SUM_OUT,
    /** Lines (text) or Avro records written. */
    RECORDS_WRITTEN,
    /** Text rows with an empty raw (nothing to write). */
    EMPTY_ROWS,
    /** Bytes written to text shards, newlines included. */
    TEXT_BYTES_WRITTEN,
    /** Keys replaced by a new key inside the raw bytes (--renumber). */
    KEYS_REWRITTEN,
    /** Keys of a row with no place in its raw bytes (undirected edge lists: the reverse direction). */
    KEYS_NOT_IN_RAW,
    /** Error: a key with no newKey in the v-assignment. */
    KEYS_WITHOUT_NEW_KEY,
    /** Error: a row whose raw bytes do not hold its keys in order (cannot be rewritten faithfully). */
    REWRITE_MISMATCH
  }

  @Override
  protected String name() {
    return "reshuffle";
  }

  @Override
  protected String description() {
    return "rewrite the input rows into k placed shards (shard i = rows of U_i), byte for byte or renumbered";
  }

  @Override
  protected java.util.Set<String> requiredOptions() {
    return java.util.Set.of("blocks", "u-assignment", "output", "k");
  }

  @Override
  protected Options options() {
    return new Options()
        .addOption(opt("blocks", "DIR", "graph blocks (Avro GraphRow, with raw bytes)"))
        .addOption(opt("u-assignment", "DIR", "u-assignment (Avro UAssignment)"))
        .addOption(opt("v-assignment", "DIR", "v-assignment with new keys (needed with --renumber)"))
        .addOption(opt("output", "DIR", "shards output directory"))
        .addOption(opt("k", "K", "number of parts = number of shards"))
        .addOption(flag("renumber", "replace keys by the v-assignment's newKey (libsvm: newKey + 1; edges: newKey)"))
        .addOption(opt("output-format", "FMT", "text (default: the input's own lines) or avro (GraphRow)"))
        .addOption(opt("input-format", "FMT", "layout of raw for --renumber: auto (default), libsvm or edges"))
        .addOption(opt("reducers", "R", "reducers of the join (default: -D mapreduce.job.reduces, else one per "
            + (RowJoinJob.BYTES_PER_REDUCER_DEFAULT >> 20) + " MiB of blocks, -D " + RowJoinJob.BYTES_PER_REDUCER
            + "); the shard job always has k"))
        .addOption(flag("overwrite", "replace an existing output"));
  }

  @Override
  protected int run(CommandLine cl) throws Exception {
    Path blocks = new Path(required(cl, "blocks"));
    Path uAssign = new Path(required(cl, "u-assignment"));
    Path out = new Path(required(cl, "output"));
    required(cl, "k");
    int k = intOpt(cl, "k", 0, 1);
    boolean renumber = cl.hasOption("renumber");
    String outFormat = choiceOpt(cl, "output-format", "text", "text", "avro");
    String inFormat = choiceOpt(cl, "input-format", "auto", "auto", "libsvm", "edges");
    int r = cl.hasOption("reducers") ? intOpt(cl, "reducers", 1, 1)
        : getConf().getInt("mapreduce.job.reduces", RowJoinJob.defaultReducers(getConf(), blocks));
    boolean overwrite = cl.hasOption("overwrite");
    Path vAssign = cl.hasOption("v-assignment") ? new Path(cl.getOptionValue("v-assignment")) : null;
    if (renumber && vAssign == null) {
      throw new UsageException("--renumber needs --v-assignment (a partition-v output made with --renumber)");
    }

    Configuration conf = getConf();
    FileSystem fs = out.getFileSystem(conf);
    Jobs.requireComplete(conf, blocks, "blocks");
    Jobs.requireComplete(conf, uAssign, "u-assignment");
    if (renumber) {
      Jobs.requireComplete(conf, vAssign, "v-assignment");
    }
    OutputPaths.checkWritable(fs, out, overwrite);
    long vKeys = 0;
    if (renumber) {
      vKeys = AvroFiles.countRecords(conf, Jobs.avroFiles(vAssign.getFileSystem(conf), vAssign));
      long need = renumberMapBytes(vKeys);
      long heap = reducerHeapBytes(conf);
      if (need > MAP_HEAP_SHARE * heap) {
        throw new UsageException(String.format(java.util.Locale.ROOT, "--renumber keeps the %,d keys of %s in "
            + "memory in every shard reducer (%,d MiB), more than %.0f %% of a reducer's %,d MiB heap; give the "
            + "reducers more memory (-D mapreduce.reduce.memory.mb=... -D mapreduce.reduce.java.opts=-Xmx...) "
            + "or reshuffle without --renumber", vKeys, vAssign, need >> 20, MAP_HEAP_SHARE * 100, heap >> 20));
      }
      LOG.info("reshuffle: the key map of {} keys takes about {} MiB of each shard reducer's {} MiB heap", vKeys,
          need >> 20, heap >> 20);
    }
    Path tmp = OutputPaths.tempFor(out);
    Path work = Jobs.workDirFor(out);
    long t0 = System.nanoTime();
    try {
      // rows cross the shuffle once when each block's assignment file can be read beside it (map-side join)
      boolean aligned = AlignedJoin.aligned(conf, blocks, uAssign);
      Job join = null;
      Path joinDir = new Path(work, "join");
      if (!aligned) {
        join = RowJoinJob.newJoin(conf, name(), ReshuffleTool.class, blocks, uAssign, k, AssignReducer.class,
            PartRowKey.class, r, joinDir);
        join.getConfiguration().setBoolean(MrKeys.CARRY_RAW, true);
        Jobs.run(join);
        RowJoinJob.check(join);
      }

      Job shards = Jobs.newJob(conf, name(), "write " + k + " shards (" + outFormat + ")"
          + (aligned ? ", map-side join" : ""), ReshuffleTool.class);
      Configuration sc = shards.getConfiguration();
      sc.setInt(MrKeys.K, k);
      sc.set(OUTPUT_FORMAT, outFormat);
      sc.set(INPUT_FORMAT, inFormat.toUpperCase(java.util.Locale.ROOT));
      if (renumber) {
        sc.setLong(V_ASSIGNMENT_KEYS, vKeys);
        sc.set(V_ASSIGNMENT, vAssign.makeQualified(vAssign.getFileSystem(conf).getUri(),
            vAssign.getFileSystem(conf).getWorkingDirectory()).toString());
        Jobs.readsInTasks(shards, vAssign);
      }
      if (aligned) {
        AlignedJoin.configureMapSide(shards, blocks, uAssign, AlignedShardMapper.class);
      } else {
        shards.setInputFormatClass(BufferedSequenceFileInputFormat.class);
        FileInputFormat.addInputPath(shards, joinDir);
        shards.setMapperClass(Mapper.class);
      }
      shards.setMapOutputKeyClass(PartRowKey.class);
      shards.setMapOutputValueClass(JoinValue.class);
      shards.setPartitionerClass(PartPartitioner.class);
      shards.setReducerClass(ShardReducer.class);
      shards.setNumReduceTasks(k);
      if ("avro".equals(outFormat)) {
        AvroJob.setOutputKeySchema(shards, GraphRow.getClassSchema());
        shards.setOutputFormatClass(AvroKeyOutputFormat.class);
      } else {
        shards.setOutputKeyClass(Text.class);
        shards.setOutputValueClass(NullWritable.class);
        shards.setOutputFormatClass(TextOutputFormat.class);
      }
      FileOutputFormat.setOutputPath(shards, tmp);
      Jobs.run(shards);

      Jobs.checkZero(shards, Counters.KEYS_WITHOUT_NEW_KEY, Counters.REWRITE_MISMATCH);
      if (aligned) {
        AlignedJoin.check(shards);
        join = shards; // the input-side counters are the map tasks'
      }
      long rows = Jobs.count(join, JoinCounters.ROWS_IN);
      Jobs.checkEqual("reshuffle: rows out vs rows in", rows, Jobs.count(shards, Counters.ROWS_OUT));
      long nnz = Jobs.count(join, JoinCounters.NONZEROS_IN);
      Jobs.checkEqual("reshuffle: non-zeros out vs in", nnz, Jobs.count(shards, Counters.NONZEROS_OUT));
      Jobs.checkEqual("reshuffle: raw bytes out vs in", Jobs.count(join, JoinCounters.RAW_BYTES_IN),
          Jobs.count(shards, Counters.RAW_BYTES_OUT));
      Jobs.checkEqual("reshuffle: row checksum 1 out vs in", Jobs.count(join, JoinCounters.ROW_HASH_SUM_IN),
          Jobs.count(shards, Counters.ROW_HASH_SUM_OUT));
      Jobs.checkEqual("reshuffle: row checksum 2 out vs in", Jobs.count(join, JoinCounters.ROW_HASH2_SUM_IN),
          Jobs.count(shards, Counters.ROW_HASH2_SUM_OUT));
      Jobs.checkEqual("reshuffle: records written + empty rows vs rows", rows,
          Jobs.count(shards, Counters.RECORDS_WRITTEN) + Jobs.count(shards, Counters.EMPTY_ROWS));
      if (renumber) {
        Jobs.checkEqual("reshuffle: keys rewritten + keys not in raw vs non-zeros", nnz,
            Jobs.count(shards, Counters.KEYS_REWRITTEN) + Jobs.count(shards, Counters.KEYS_NOT_IN_RAW));
      }
      long fileBytes = renameShards(fs, tmp, k, "avro".equals(outFormat) ? ".avro" : "");
      if ("text".equals(outFormat)) {
        Jobs.checkEqual("reshuffle: bytes in shard files vs bytes written", Jobs.count(shards,
            Counters.TEXT_BYTES_WRITTEN), fileBytes);
      }
      OutputPaths.commit(fs, tmp, out, overwrite);
      LOG.info("reshuffle: {} rows, {} non-zeros into {} {} shards{} in {} ms -> {}", rows, nnz, k, outFormat,
          renumber ? " (renumbered)" : "", (System.nanoTime() - t0) / 1_000_000, out);
      return 0;
    } catch (ConsistencyException e) {
      System.err.println(name() + ": consistency check failed: " + e.getMessage());
      return 1;
    } finally {
      OutputPaths.discard(fs, tmp);
      OutputPaths.discard(fs, work);
    }
  }

  /** Renames part-r-NNNNN[ext] to part-NNNNN[ext], checks there are exactly k, returns their total size. */
  static long renameShards(FileSystem fs, Path dir, int k, String ext) throws IOException {
    long bytes = 0;
    for (int i = 0; i < k; i++) {
      Path from = new Path(dir, String.format("part-r-%05d%s", i, ext));
      Path to = new Path(dir, String.format("part-%05d%s", i, ext));
      if (!fs.exists(from)) {
        throw new ConsistencyException("shard " + i + " missing: " + from);
      }
      if (!fs.rename(from, to)) {
        throw new IOException("could not rename " + from + " to " + to);
      }
      bytes += fs.getFileStatus(to).getLen();
    }
    int shardsFound = 0;
    for (FileStatus f : fs.listStatus(dir)) {
      String n = f.getPath().getName();
      if (!n.startsWith("_") && !n.startsWith(".")) {
        shardsFound++;
        Jobs.check(n.matches("part-\\d{5}" + java.util.regex.Pattern.quote(ext)), "unexpected file %s in %s", n, dir);
      }
    }
    Jobs.check(shardsFound == k, "%d shard files in %s, expected %d", shardsFound, dir, k);
    return bytes;
  }

  /** Bytes of a shard reducer's key map for {@code keys} keys (fastutil: two long arrays, load factor 0.75). */
  static long renumberMapBytes(long keys) {
    long slots = Long.highestOneBit(Math.max(2, (long) Math.ceil(keys / 0.75)) - 1) << 1;
    return 16L * (slots + 1);
  }

  /** See {@link #REDUCER_HEAP_BYTES}. */
  static long reducerHeapBytes(Configuration conf) {
    long set = conf.getLong(REDUCER_HEAP_BYTES, -1);
    if (set > 0) {
      return set;
    }
    return io.parsa.jobs.mr.Jobs.reducerHeapBytes(conf);
  }
}
