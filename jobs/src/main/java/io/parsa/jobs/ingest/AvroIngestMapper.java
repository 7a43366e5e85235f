package io.parsa.jobs.ingest;

import io.parsa.avro.GraphRow;
import io.parsa.yarn.rpc.Longs;
import io.parsa.common.BadRecordException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;

/** Turns Avro GraphRow records (an earlier ingest's blocks, say) back into row pieces, ids and weights as given. */
public class AvroIngestMapper extends Mapper<AvroKey<GraphRow>, NullWritable, RowKey, RowPiece> {

  private final RowKey outKey = new RowKey();
  private final RowPiece outValue = new RowPiece();
  private long seq;

  @Override
  public void run(Context context) throws IOException, InterruptedException {
    InputSplit split = context.getInputSplit();
    String file = split instanceof FileSplit fs ? fs.getPath().toString() : String.valueOf(split);
    try {
      setup(context);
      while (nextKeyValue(context, file)) {
        map(context.getCurrentKey(), context.getCurrentValue(), context);
      }
      cleanup(context);
    } catch (BadRecordException e) {
      BadRecordLog log = new BadRecordLog(context);
      log.add(true, e);
      log.flush();
      throw e;
    }
  }

  private boolean nextKeyValue(Context context, String file) throws IOException, InterruptedException {
    try {
      return context.nextKeyValue();
    } catch (IOException | AvroRuntimeException e) {
      throw new BadRecordException(file, seq + 1, "unreadable Avro input (" + e.getMessage()
          + "); expected an Avro container file of GraphRow records (record number given)");
    }
  }

  @Override
  protected void setup(Context context) {
    // Avro container files are split at sync markers: count a file once, at its first split
    if (!(context.getInputSplit() instanceof org.apache.hadoop.mapreduce.lib.input.FileSplit fs)
        || fs.getStart() == 0) {
      context.getCounter(IngestCounters.FILES).increment(1);
    }
    context.getCounter(IngestCounters.SPLITS).increment(1);
  }

  @Override
  protected void map(AvroKey<GraphRow> key, NullWritable value, Context context)
      throws IOException, InterruptedException {
    GraphRow row = key.datum();
    long[] keys = Longs.toArray(row.getKeys());
    int n = keys.length;
    outValue.clear().setKeys(keys).setWeight(row.getWeight());
    ByteBuffer raw = row.getRaw();
    if (raw != null) {
      byte[] b = new byte[raw.remaining()];
      raw.duplicate().get(b);
      outValue.setRaw(b, b.length);
    }
    context.write(outKey.set(row.getId(), seq++), outValue);
    context.getCounter(IngestCounters.RECORDS_IN).increment(1);
    context.getCounter(IngestCounters.ROWS_IN).increment(1);
    context.getCounter(IngestCounters.NONZEROS_IN).increment(n);
  }
}
