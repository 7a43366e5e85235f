package io.parsa.jobs.baseline;

import io.parsa.avro.GraphRow;
import io.parsa.avro.UAssignment;
import io.parsa.jobs.mr.Mix;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.PartStats;
import java.io.IOException;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Mapper;

/** Assigns each row to a part by the baseline rule and writes its UAssignment; tallies rows per part. */
public class BaselineMapper extends Mapper<AvroKey<GraphRow>, NullWritable, AvroKey<UAssignment>, NullWritable> {

  /** PartStats name of the rows per part. */
  public static final String ROWS = "rows";

  private final AvroKey<UAssignment> outKey = new AvroKey<>();
  private final UAssignment record = new UAssignment();
  private final PartStats stats = new PartStats();
  private long[] rows;
  private int k;
  private long seed;
  private boolean hash;

  @Override
  protected void setup(Context context) {
    k = MrKeys.k(context.getConfiguration());
    seed = MrKeys.seed(context.getConfiguration());
    hash = "hash".equals(context.getConfiguration().get(BaselineAssignTool.ALGORITHM, "random"));
    rows = stats.array(ROWS, k);
  }

  /** The baseline part of row {@code id}. */
  public static int part(boolean hash, long seed, long id, int k) {
    return hash ? (int) Math.floorMod(id, (long) k) : Mix.randomRowPart(seed, id, k);
  }

  @Override
  protected void map(AvroKey<GraphRow> key, NullWritable value, Context context)
      throws IOException, InterruptedException {
    long id = key.datum().getId();
    int p = part(hash, seed, id, k);
    context.getCounter(BaselineAssignTool.Counters.ROWS_IN).increment(1);
    record.setId(id);
    record.setPart(p);
    outKey.datum(record);
    context.write(outKey, NullWritable.get());
    rows[p]++;
    context.getCounter(BaselineAssignTool.Counters.ROWS_OUT).increment(1);
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    stats.write(context);
  }
}
