package io.parsa.jobs.mr;

import io.parsa.yarn.io.AvroReuse;
import java.io.IOException;
import org.apache.avro.Schema;
import org.apache.avro.mapred.AvroKey;
import org.apache.avro.mapreduce.AvroJob;
import org.apache.avro.mapreduce.AvroKeyInputFormat;
import org.apache.avro.mapreduce.AvroKeyRecordReader;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;

/**
 * {@link AvroKeyInputFormat} whose reader gives every record arrays of its own size ({@link AvroReuse}): with Avro's
 * own reader a task that met one row of 10^6 keys cleared 10^6 slots for every row after it. The reader schema is the
 * job's ({@link AvroJob#setInputKeySchema}), or the file's where the job sets none.
 */
public class FreshArraysAvroKeyInputFormat<T> extends AvroKeyInputFormat<T> {

  @Override
  public RecordReader<AvroKey<T>, NullWritable> createRecordReader(InputSplit split, TaskAttemptContext context) {
    return new Reader<>(AvroJob.getInputKeySchema(context.getConfiguration()));
  }

  /** Avro's key reader, dropping the last record's arrays before it reads the next into it. */
  static final class Reader<T> extends AvroKeyRecordReader<T> {
    Reader(Schema schema) {
      super(schema);
    }

    @Override
    public boolean nextKeyValue() throws IOException, InterruptedException {
      AvroReuse.dropArrays(getCurrentRecord());
      return super.nextKeyValue();
    }
  }
}
