package io.parsa.jobs.refine;

import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.mapreduce.Partitioner;

/**
 * The per-block jobs' partitioner (key: the block's index): block b goes to reducer b mod the reducers, so a task
 * that needs one block's output reads one file ({@link #fileOf}), as the count job does where it applies a chunk
 * job's moves ({@link CountMapper#MOVES}).
 */
public class BlockPartitioner<V> extends Partitioner<IntWritable, V> {

  @Override
  public int getPartition(IntWritable block, V value, int reducers) {
    return Math.floorMod(block.get(), reducers);
  }

  /** The file of {@code dir}, a per-block job's output over {@code reducers} reducers, that holds block {@code b}'s. */
  public static Path fileOf(Path dir, int b, int reducers) {
    return new Path(dir, String.format("part-r-%05d", Math.floorMod(b, reducers)));
  }
}
