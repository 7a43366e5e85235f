package io.parsa.jobs.mr;

import org.apache.avro.mapreduce.AvroKeyInputFormat;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.mapreduce.JobContext;

/** AvroKeyInputFormat that never splits a file, so one map task sees one whole file in order. */
public class WholeFileAvroKeyInputFormat<T> extends AvroKeyInputFormat<T> {
  @Override
  protected boolean isSplitable(JobContext context, Path filename) {
    return false;
  }
}
