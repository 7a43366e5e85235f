package io.parsa.jobs.refine;

import io.parsa.avro.GraphRow;
import io.parsa.jobs.mr.AlignedJoin;
import io.parsa.jobs.mr.BufferedSequenceFileInputFormat;
import io.parsa.jobs.mr.DistinctKeys;
import io.parsa.jobs.mr.KeyPairBuffer;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.PartStats;
import io.parsa.yarn.io.AssignmentFiles;
import io.parsa.yarn.io.BlockFiles;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import it.unimi.dsi.fastutil.longs.LongOpenHashSet;
import java.io.IOException;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.SequenceFile;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;

/**
 * Count job, map side (one task per block, joined with the block's assignment file without a shuffle, as
 * {@link AlignedJoin}): the block's rows per part for each of its keys, one {@link KeyCounts} per (block, key)
 * emitted in cleanup, so the shuffle carries the block's distinct keys, not its non-zeros. Part stats: rows per part,
 * their weight per part and the heaviest row.
 * Memory: the block's distinct (key, part) pairs.
 *
 * <p>With {@link #MOVES} the task first applies the block's moves (a per-block job's output, {@link BlockPartitioner})
 * to its assignment, counts the rows where the moves put them, and writes the block's new assignment file under
 * {@link #U_OUT} of its work output, committed with the task: the apply job and the count job in one. Its counters
 * are the apply job's: DUPLICATE_MOVE, STALE_MOVE and MOVE_WITHOUT_ROW (not applied), MOVES_APPLIED, ROWS_WRITTEN.
 * Memory then also holds the block's row ids and parts, and its moves.
 */
public class CountMapper extends Mapper<AvroKey<GraphRow>, NullWritable, LongWritable, KeyCounts> {

  /** Part stats: rows per part. */
  public static final String ROWS = "rows";
  /** Part stats ({@link PartStats#putDoubles}): the weight of the rows per part (a row without a weight weighs 1). */
  public static final String WEIGHTS = "weights";
  /** Part stats ({@link PartStats#putDoubles}, one entry): the heaviest row of the task. */
  public static final String HEAVIEST = "heaviest";
  /** Part stats: the least and the largest row id of the task (absent where it read no row). */
  public static final String ID_RANGE = "idRange";
  /** Moves to apply before counting: the output directory of a per-block job ({@link BlockPartitioner}); unset: none. */
  public static final String MOVES = "parsa.refine.count.moves";
  /** The number of files (reducers) of {@link #MOVES}. */
  public static final String MOVES_FILES = "parsa.refine.count.moves-files";
  /** Under the job's output: the new assignment's files, one per block, where {@link #MOVES} was set. */
  public static final String U_OUT = "_u";

  private final PartStats stats = new PartStats();
  private final KeyPairBuffer pairs = new KeyPairBuffer(1 << 16);
  private Long2IntOpenHashMap partOf;
  private long[] rows;
  /** Weight per part (rows without a weight weigh 1), and the heaviest row. */
  private double[] weights;
  private double heaviest = Double.NEGATIVE_INFINITY;
  private final DistinctKeys distinct = new DistinctKeys();
  private int k;
  private int block;
  private long minId = Long.MAX_VALUE;
  private long maxId = Long.MIN_VALUE;
  /** With {@link #MOVES}: the block's rows and their new parts, in the block's order. */
  private LongArrayList ids;
  private IntArrayList parts;

  @Override
  protected void setup(Context context) throws IOException {
    Configuration conf = context.getConfiguration();
    k = MrKeys.k(conf);
    rows = stats.array(ROWS, k);
    weights = new double[k];
    partOf = AlignedJoin.loadAssignments(context, k);
    Path file = ((FileSplit) context.getInputSplit()).getPath();
    block = BlockFiles.indexOf(file.getFileSystem(conf), file);
    if (conf.get(MOVES) != null) {
      applyMoves(context, BlockPartitioner.fileOf(new Path(conf.get(MOVES)), block, conf.getInt(MOVES_FILES, 1)));
      ids = new LongArrayList(partOf.size());
      parts = new IntArrayList(partOf.size());
    }
  }

  /** Applies the moves of this task's block in {@code file} (others' skipped) to {@link #partOf}. */
  private void applyMoves(Context context, Path file) throws IOException {
    Configuration conf = context.getConfiguration();
    if (!file.getFileSystem(conf).exists(file)) {
      throw new IOException("block " + block + ": no moves file " + file);
    }
    LongOpenHashSet moved = new LongOpenHashSet();
    long applied = 0;
    try (SequenceFile.Reader in = BufferedSequenceFileInputFormat.open(file, conf)) {
      IntWritable b = new IntWritable();
      Move m = new Move();
      while (in.next(b, m)) {
        if (b.get() != block || m.isMarker()) {
          continue;
        }
        if (!moved.add(m.row())) {
          context.getCounter(MrRefinement.Counters.DUPLICATE_MOVE).increment(1);
          continue;
        }
        int part = partOf.get(m.row());
        if (part < 0) {
          context.getCounter(MrRefinement.Counters.MOVE_WITHOUT_ROW).increment(1);
        } else if (part != m.from()) {
          context.getCounter(MrRefinement.Counters.STALE_MOVE).increment(1);
        } else {
          partOf.put(m.row(), m.to());
          applied++;
        }
      }
    }
    context.getCounter(MrRefinement.Counters.MOVES_APPLIED).increment(applied);
  }

  @Override
  protected void map(AvroKey<GraphRow> key, NullWritable value, Context context) {
    GraphRow row = key.datum();
    int part = AlignedJoin.join(context, partOf, row);
    if (part < 0) {
      return;
    }
    if (ids != null) {
      ids.add(row.getId());
      parts.add(part);
    }
    double w = 1;
    if (row.getWeight() != null) {
      context.getCounter(MrRefinement.Counters.WEIGHTED_ROWS).increment(1);
      w = row.getWeight();
      if (w != Math.rint(w) || w < 0) {
        context.getCounter(MrRefinement.Counters.FRACTIONAL_WEIGHTS).increment(1);
      }
    }
    weights[part] += w;
    heaviest = Math.max(heaviest, w);
    rows[part]++;
    minId = Math.min(minId, row.getId());
    maxId = Math.max(maxId, row.getId());
    distinct.of(row.getKeys());
    for (int i = 0; i < distinct.size(); i++) {
      pairs.add(distinct.get(i), part);
    }
    context.getCounter(MrRefinement.Counters.ROW_KEY_PAIRS).increment(distinct.size());
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    AlignedJoin.finish(context, partOf);
    if (ids != null) {
      Path work = new Path(FileOutputFormat.getWorkOutputPath(context), U_OUT);
      AssignmentFiles.write(work.getFileSystem(context.getConfiguration()), work, block,
          context.getTaskAttemptID().getTaskID().getId(), ids.toLongArray(), parts.toIntArray());
      context.getCounter(MrRefinement.Counters.ROWS_WRITTEN).increment(ids.size());
    }
    pairs.sort(); // by key, then part
    int m = pairs.size();
    LongWritable outKey = new LongWritable();
    KeyCounts out = new KeyCounts();
    int i = 0;
    while (i < m) {
      long key = pairs.key(i);
      int end = pairs.runEnd(i);
      out.reset(key, block);
      while (i < end) {
        int p = (int) pairs.value(i);
        int c = 0;
        while (i < end && pairs.value(i) == p) {
          c++;
          i++;
        }
        out.add(p, c);
      }
      outKey.set(key);
      context.write(outKey, out);
    }
    if (minId <= maxId) {
      long[] range = stats.array(ID_RANGE, 2);
      range[0] = minId;
      range[1] = maxId;
    }
    stats.putDoubles(WEIGHTS, weights);
    stats.putDoubles(HEAVIEST, new double[] {heaviest});
    stats.write(context);
  }
}
