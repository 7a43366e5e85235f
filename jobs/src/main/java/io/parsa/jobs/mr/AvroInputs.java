package io.parsa.jobs.mr;

import io.parsa.avro.GraphRow;
import io.parsa.avro.UAssignment;
import io.parsa.avro.VAssignment;
import org.apache.avro.Schema;
import org.apache.avro.mapred.AvroKey;
import org.apache.avro.mapreduce.AvroKeyInputFormat;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;

/**
 * Avro input formats that carry their reader schema, one class per record type, for jobs that read several
 * record types through {@link org.apache.hadoop.mapreduce.lib.input.MultipleInputs} (where the job-wide
 * {@code AvroJob.setInputKeySchema} cannot name one schema for all inputs). Files written with an older schema
 * are resolved against the generated class's schema, and Avro's "reader schema was not set" warning, once per
 * split, is gone.
 */
public final class AvroInputs {

  private AvroInputs() {}

  /** An {@link AvroKeyInputFormat} reading with a fixed reader schema, arrays fresh per record. */
  abstract static class Typed<T> extends AvroKeyInputFormat<T> {
    private final Schema schema;

    Typed(Schema schema) {
      this.schema = schema;
    }

    @Override
    public RecordReader<AvroKey<T>, NullWritable> createRecordReader(InputSplit split, TaskAttemptContext ctx) {
      return new FreshArraysAvroKeyInputFormat.Reader<>(schema);
    }
  }

  /** Graph blocks (GraphRow). */
  public static final class GraphRows extends Typed<GraphRow> {
    public GraphRows() {
      super(GraphRow.getClassSchema());
    }
  }

  /** A u-assignment (UAssignment). */
  public static final class UAssignments extends Typed<UAssignment> {
    public UAssignments() {
      super(UAssignment.getClassSchema());
    }
  }

  /** A v-assignment (VAssignment). */
  public static final class VAssignments extends Typed<VAssignment> {
    public VAssignments() {
      super(VAssignment.getClassSchema());
    }
  }
}
