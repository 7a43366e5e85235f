package io.parsa.jobs.refine;

import java.io.IOException;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.mapreduce.Mapper;

/**
 * Gain job, second input: one empty {@link KeyCounts} per block (from the driver's block markers), so that a block
 * whose rows use no key at all still gets its reduce call and its rows are rated (an empty record cannot be a key's
 * counts: every used key has at least one part).
 */
public class MarkerMapper extends Mapper<IntWritable, Move, IntWritable, KeyCounts> {

  private final KeyCounts empty = new KeyCounts();

  @Override
  protected void map(IntWritable block, Move marker, Context context) throws IOException, InterruptedException {
    context.write(block, empty.reset(0, block.get()));
  }
}
