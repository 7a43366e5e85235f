package io.parsa.jobs.mr;

import io.parsa.avro.GraphRow;
import io.parsa.yarn.io.AssignmentFiles;
import io.parsa.yarn.io.BlockFiles;
import java.io.IOException;
import java.util.List;
import org.apache.avro.mapreduce.AvroJob;
import org.apache.avro.specific.SpecificData;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.MapContext;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.TaskInputOutputContext;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;

/**
 * The map-side form of the blocks ⋈ u-assignment join, used when the u-assignment is aligned with the blocks
 * ({@link #aligned}): one map task per block file ({@link AlignedRowKeysMapper}) emits what the reduce-side join
 * with {@link RowKeysReducer} would, (key, PAIR(placed, random)) plus part stats, so the key-usage job needs no
 * separate join and no shuffle of rows. {@code -D parsa.mr.join.aligned=false} forces the reduce-side join.
 */
public final class AlignedJoin {
  /** Where the mappers find the assignment files. */
  static final String U_ASSIGNMENT = "parsa.mr.join.aligned.u-assignment";
  /** Use the map-side join when possible (default true). */
  public static final String ENABLED = "parsa.mr.join.aligned";

  private AlignedJoin() {}

  /**
   * True if {@code uDir} holds exactly one assignment file per block of {@code blocks}, named by the block's index
   * ({@code AssignmentFiles.fileFor}), and no other record files (a reduce-side join handles anything else).
   */
  public static boolean aligned(Configuration conf, Path blocks, Path uDir) throws IOException {
    if (!conf.getBoolean(ENABLED, true)) {
      return false;
    }
    FileSystem bfs = blocks.getFileSystem(conf);
    FileSystem ufs = uDir.getFileSystem(conf);
    List<Path> files = BlockFiles.list(bfs, blocks);
    FileStatus[] present = ufs.listStatus(uDir, p -> p.getName().endsWith(".avro") && !p.getName().startsWith(".")
        && !p.getName().startsWith("_"));
    if (present.length != files.size()) {
      return false;
    }
    for (int b = 0; b < files.size(); b++) {
      if (!ufs.exists(AssignmentFiles.fileFor(uDir, b))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Makes {@code job}'s map phase the map-side join: one task per block file running {@link AlignedRowKeysMapper}
   * (which reads the block's assignment file itself); the caller sets the reduce side and output. Needs the job's
   * {@link MrKeys#K} and {@link MrKeys#SEED}.
   */
  public static void configureMapSide(Job job, Path blocks, Path uDir) throws IOException {
    configureMapSide(job, blocks, uDir, AlignedRowKeysMapper.class);
  }

  /** As above with another mapper, which must call {@link #loadAssignments} in its setup. */
  @SuppressWarnings("rawtypes")
  public static void configureMapSide(Job job, Path blocks, Path uDir, Class<? extends Mapper> mapper)
      throws IOException {
    Configuration c = job.getConfiguration();
    Path qualified = uDir.getFileSystem(c).makeQualified(uDir);
    c.set(U_ASSIGNMENT, qualified.toString());
    Jobs.readsInTasks(job, qualified);
    configureBlockTasks(job, blocks, mapper);
  }

  /** One map task per block file, reading the whole file in order with {@code mapper}. */
  @SuppressWarnings("rawtypes")
  public static void configureBlockTasks(Job job, Path blocks, Class<? extends Mapper> mapper) throws IOException {
    Configuration c = job.getConfiguration();
    AvroJob.setDataModelClass(job, SpecificData.class);
    job.setInputFormatClass(WholeFileAvroKeyInputFormat.class);
    AvroJob.setInputKeySchema(job, GraphRow.getClassSchema());
    for (Path p : BlockFiles.list(blocks.getFileSystem(c), blocks)) {
      FileInputFormat.addInputPath(job, p);
    }
    job.setMapperClass(mapper);
  }

  /**
   * In a map task of a map-side join: the (row id → part) pairs of the task's block, read from the block's
   * assignment file; counts ASSIGNMENTS_IN, and DUPLICATE_ASSIGNMENT and BAD_PART (not loaded). The mapper removes
   * each row's entry as it meets it and counts what is left as ASSIGNMENT_WITHOUT_ROW in cleanup.
   */
  public static Long2IntOpenHashMap loadAssignments(TaskInputOutputContext<?, ?, ?, ?> context, int k)
      throws IOException {
    Configuration conf = context.getConfiguration();
    Path block = ((FileSplit) ((MapContext<?, ?, ?, ?>) context).getInputSplit()).getPath();
    FileSystem fs = block.getFileSystem(conf);
    Path uDir = new Path(conf.get(U_ASSIGNMENT));
    Path file = AssignmentFiles.fileFor(uDir, BlockFiles.indexOf(fs, block));
    FileSystem ufs = uDir.getFileSystem(conf);
    if (!ufs.exists(file)) {
      throw new IOException("block " + block + " has no assignment file " + file);
    }
    AssignmentFiles.Rows a = AssignmentFiles.read(ufs, file);
    Long2IntOpenHashMap partOf = new Long2IntOpenHashMap(Math.max(16, a.n));
    partOf.defaultReturnValue(-1);
    context.getCounter(JoinCounters.ASSIGNMENTS_IN).increment(a.n);
    for (int r = 0; r < a.n; r++) {
      int p = a.parts[r];
      if (p < 0 || p >= k) {
        context.getCounter(JoinCounters.BAD_PART).increment(1);
        continue;
      }
      if (partOf.put(a.ids[r], p) != -1) {
        context.getCounter(JoinCounters.DUPLICATE_ASSIGNMENT).increment(1);
      }
    }
    return partOf;
  }

  /**
   * In a map task of a map-side join: the part of {@code row} from the block's assignments ({@link #loadAssignments}),
   * or -1 if it has none, counting ROWS_IN, NONZEROS_IN and JOINED_ROWS or ROW_WITHOUT_ASSIGNMENT. Each assignment is
   * used once: a second row with the same id finds it gone and counts as a row without assignment.
   */
  public static int join(TaskInputOutputContext<?, ?, ?, ?> context, Long2IntOpenHashMap partOf, GraphRow row) {
    context.getCounter(JoinCounters.ROWS_IN).increment(1);
    context.getCounter(JoinCounters.NONZEROS_IN).increment(row.getKeys().size());
    int part = partOf.remove(row.getId());
    context.getCounter(part < 0 ? JoinCounters.ROW_WITHOUT_ASSIGNMENT : JoinCounters.JOINED_ROWS).increment(1);
    return part;
  }

  /** In a map task's cleanup: the assignments no row met, counted as ASSIGNMENT_WITHOUT_ROW. */
  public static void finish(TaskInputOutputContext<?, ?, ?, ?> context, Long2IntOpenHashMap partOf) {
    context.getCounter(JoinCounters.ASSIGNMENT_WITHOUT_ROW).increment(partOf.size());
  }

  /** Fails unless every row met exactly one assignment and vice versa. Returns the number of rows. */
  public static long check(Job job) throws IOException {
    Jobs.checkZero(job, JoinCounters.ROW_WITHOUT_ASSIGNMENT, JoinCounters.ASSIGNMENT_WITHOUT_ROW,
        JoinCounters.DUPLICATE_ASSIGNMENT, JoinCounters.BAD_PART);
    long rows = Jobs.count(job, JoinCounters.ROWS_IN);
    Jobs.checkEqual(job.getJobName() + ": assignments vs rows", rows, Jobs.count(job, JoinCounters.ASSIGNMENTS_IN));
    Jobs.checkEqual(job.getJobName() + ": joined rows vs rows", rows, Jobs.count(job, JoinCounters.JOINED_ROWS));
    long mapIn = Jobs.counters(job).findCounter(TaskCounter.MAP_INPUT_RECORDS).getValue();
    Jobs.checkEqual(job.getJobName() + ": map input records vs rows", rows, mapIn);
    return rows;
  }
}
