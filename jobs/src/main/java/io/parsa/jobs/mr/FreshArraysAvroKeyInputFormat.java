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

  /**
   * Avro's key reader, dropping the last record's arrays before it reads the next into it, and asking Avro's reader for
   * its progress once per {@link #PROGRESS_EVERY} records: the map task asks after every record, and Avro's answer
   * builds a debug message each time (4 % of the count job's map CPU at 3·10^7 non-zeros, docs/quality.md §42).
   */
  static final class Reader<T> extends AvroKeyRecordReader<T> {
    static final int PROGRESS_EVERY = 1024;
    private float progress;
    private int untilProgress;

    Reader(Schema schema) {
      super(schema);
    }

    @Override
    public float getProgress() throws IOException, InterruptedException {
      if (--untilProgress < 0) {
        progress = super.getProgress();
        untilProgress = PROGRESS_EVERY - 1;
      }
      return progress;
    }

    @Override
    public boolean nextKeyValue() throws IOException, InterruptedException {
      AvroReuse.dropArrays(getCurrentRecord());
      return super.nextKeyValue();
    }
  }
}
