package io.parsa.jobs.ingest;

import io.parsa.avro.GraphRow;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.mapred.AvroKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * Writes one block: reducer i receives exactly the rows whose block is i (see {@link BlockPartitioner}) and
 * writes them as GraphRow records. Edge-list rows are assembled from their pieces, keys and raw lines in input
 * order; libsvm and Avro rows are written one per piece. In its cleanup it leaves the block's row count,
 * non-zeros and largest row degree in {@code <report dir>/block-stats/} for the client's {@code _stats.json}.
 */
public class BlockReducer extends Reducer<RowKey, RowPiece, AvroKey<GraphRow>, NullWritable> {

  static final String STATS_DIR = "block-stats";

  private final AvroKey<GraphRow> outKey = new AvroKey<>();
  /** The row being written, assembled from its pieces. */
  private final RowPiece row = new RowPiece();
  private boolean merge;
  private boolean nnzWeights;
  private boolean textInput;
  private long rows;
  private long nonZeros;
  private long maxDegree;
  /** Σ of the rows' weights (a row without one weighs 1), and whether any row had one. */
  private double weightSum;
  private boolean anyWeight;
  /** Distinct (row, key) pairs written: a row listing a key twice counts it once. */
  private long edges;
  private final KeySketch sketch = new KeySketch();
  private long[] sorted = new long[64];

  @Override
  protected void setup(Context context) {
    Configuration conf = context.getConfiguration();
    merge = IngestConfig.format(conf).isEdgeList();
    nnzWeights = IngestConfig.nnzWeights(conf);
    textInput = IngestConfig.format(conf).isText();
  }

  @Override
  protected void reduce(RowKey key, Iterable<RowPiece> values, Context context)
      throws IOException, InterruptedException {
    long id = key.id();
    if (!merge) {
      for (RowPiece p : values) {
        row.clear().append(p);
        write(context, id, p.hasWeight() ? p.weight() : null);
        if (p.rawLength() > 0 && textInput) {
          context.getCounter(IngestCounters.RAW_LINES_OUT).increment(1);
        }
      }
      return;
    }
    row.clear();
    for (RowPiece p : values) {
      row.append(p); // a piece combined in the mapper carries several lines
    }
    context.getCounter(IngestCounters.ROWS_IN).increment(1);
    context.getCounter(IngestCounters.RAW_LINES_OUT).increment(row.rawLines());
    write(context, id, null);
  }

  private void write(Context context, long id, Double givenWeight) throws IOException, InterruptedException {
    int n = row.numKeys();
    long[] keys = row.keyArray();
    List<Long> boxed = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      boxed.add(keys[i]);
    }
    Double weight = nnzWeights ? Double.valueOf(n) : givenWeight;
    outKey.datum(new GraphRow(id, boxed, weight, ByteBuffer.wrap(row.raw())));
    context.write(outKey, NullWritable.get());
    rows++;
    nonZeros += n;
    maxDegree = Math.max(maxDegree, n);
    weightSum += weight == null ? 1 : weight;
    anyWeight |= weight != null;
    if (sorted.length < n) {
      sorted = new long[Math.max(n, 2 * sorted.length)];
    }
    System.arraycopy(keys, 0, sorted, 0, n);
    Arrays.sort(sorted, 0, n);
    int distinct = 0;
    for (int i = 0; i < n; i++) {
      if (i == 0 || sorted[i] != sorted[i - 1]) {
        distinct++;
        sketch.update(sorted[i]);
      }
    }
    edges += distinct;
    context.getCounter(IngestCounters.EDGES_OUT).increment(distinct);
    context.getCounter(IngestCounters.ROWS_OUT).increment(1);
    context.getCounter(IngestCounters.NONZEROS_OUT).increment(n);
    if (n == 0) {
      context.getCounter(IngestCounters.EMPTY_ROWS_OUT).increment(1);
    }
  }

  @Override
  protected void cleanup(Context context) throws IOException {
    Configuration conf = context.getConfiguration();
    String report = conf.get(IngestConfig.REPORT_DIR);
    if (report == null) {
      return;
    }
    int block = context.getTaskAttemptID().getTaskID().getId();
    // one file per attempt, written under a temporary name and renamed, so that a retried or speculative
    // attempt never leaves a half-written file; complete files of one block are identical
    Path dir = new Path(report, STATS_DIR);
    String name = String.format("block-%08d-%s.txt", block, context.getTaskAttemptID());
    Path tmp = new Path(dir, "." + name);
    FileSystem fs = tmp.getFileSystem(conf);
    try (OutputStream out = fs.create(tmp, true)) {
      String line = block + "\t" + rows + "\t" + nonZeros + "\t" + maxDegree + "\t" + edges + "\t"
          + sketch.serialize() + "\t" + (anyWeight ? Double.toString(weightSum) : "-") + "\n";
      out.write(line.getBytes(StandardCharsets.UTF_8));
    }
    if (!fs.rename(tmp, new Path(dir, name))) {
      throw new IOException("could not rename " + tmp + " into " + dir);
    }
  }
}
