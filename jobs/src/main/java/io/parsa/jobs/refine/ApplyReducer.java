package io.parsa.jobs.refine;

import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.PartStats;
import io.parsa.yarn.io.AssignmentFiles;
import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Reducer;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;

/**
 * Apply job, reduce side, one call per block (every block has a marker, moved rows or not): reads the block's
 * assignment file from the round's start, applies the block's moves and writes the block's new assignment file
 * ({@code AssignmentFiles.fileFor}) into the task's work directory, committed with the task. A move whose row is
 * missing, is not in its {@code from} part or moves twice is counted as an error and not applied. Part stats: rows
 * per part of the new assignment.
 */
public class ApplyReducer extends Reducer<IntWritable, Move, NullWritable, NullWritable> {

  private final PartStats stats = new PartStats();
  private final Long2LongOpenHashMap moves = new Long2LongOpenHashMap();
  private Path uDir;
  private FileSystem uFs;
  private long[] rows;

  @Override
  protected void setup(Context context) throws IOException {
    Configuration conf = context.getConfiguration();
    uDir = new Path(conf.get(GainReducer.U));
    uFs = uDir.getFileSystem(conf);
    rows = stats.array(CountMapper.ROWS, MrKeys.k(conf));
    moves.defaultReturnValue(-1);
  }

  @Override
  protected void reduce(IntWritable blockKey, Iterable<Move> values, Context context)
      throws IOException, InterruptedException {
    int b = blockKey.get();
    moves.clear();
    boolean marked = false;
    for (Move m : values) {
      if (m.isMarker()) {
        marked = true;
        continue;
      }
      // from and to packed: both are parts < 2^31
      if (moves.put(m.row(), ((long) m.from() << 32) | m.to()) != -1) {
        context.getCounter(MrRefinement.Counters.DUPLICATE_MOVE).increment(1);
      }
    }
    if (!marked) {
      context.getCounter(MrRefinement.Counters.MOVE_OUTSIDE_BLOCKS).increment(moves.size());
      return;
    }
    AssignmentFiles.Rows a = AssignmentFiles.read(uFs, AssignmentFiles.fileFor(uDir, b));
    long[] ids = java.util.Arrays.copyOf(a.ids, a.n);
    int[] parts = java.util.Arrays.copyOf(a.parts, a.n);
    long applied = 0;
    for (int r = 0; r < a.n; r++) {
      long mv = moves.remove(ids[r]);
      if (mv != -1) {
        if ((int) (mv >>> 32) != parts[r]) {
          context.getCounter(MrRefinement.Counters.STALE_MOVE).increment(1);
        } else {
          parts[r] = (int) mv;
          applied++;
        }
      }
      rows[parts[r]]++;
    }
    context.getCounter(MrRefinement.Counters.MOVE_WITHOUT_ROW).increment(moves.size());
    context.getCounter(MrRefinement.Counters.MOVES_APPLIED).increment(applied);
    context.getCounter(MrRefinement.Counters.ROWS_WRITTEN).increment(a.n);
    Path work = FileOutputFormat.getWorkOutputPath(context);
    AssignmentFiles.write(work.getFileSystem(context.getConfiguration()), work, b,
        context.getTaskAttemptID().getTaskID().getId(), ids, parts);
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    stats.write(context);
  }
}
