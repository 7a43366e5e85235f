package io.parsa.jobs.mr;

import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.JobContext;

/**
 * {@link FreshArraysAvroKeyInputFormat} that never splits a file, so one map task sees one whole file in order.
 */
public class WholeFileAvroKeyInputFormat<T> extends FreshArraysAvroKeyInputFormat<T> {
  @Override
  protected boolean isSplitable(JobContext context, Path filename) {
    return false;
  }
}
