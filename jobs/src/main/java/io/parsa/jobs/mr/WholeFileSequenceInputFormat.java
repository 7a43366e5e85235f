package io.parsa.jobs.mr;

import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.JobContext;

/**
 * {@link BufferedSequenceFileInputFormat} that never splits a file, so one map task sweeps one sorted reducer output in
 * order.
 */
public class WholeFileSequenceInputFormat<K, V> extends BufferedSequenceFileInputFormat<K, V> {
  @Override
  protected boolean isSplitable(JobContext context, Path filename) {
    return false;
  }
}
