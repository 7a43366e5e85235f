package io.parsa.jobs.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.parsa.avro.GraphRow;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.avro.hadoop.io.AvroSerialization;
import org.apache.avro.mapred.AvroKey;
import org.apache.avro.specific.SpecificData;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mrunit.mapreduce.MapReduceDriver;
import org.apache.hadoop.mrunit.mapreduce.ReduceDriver;
import org.apache.hadoop.mrunit.types.Pair;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.junit.jupiter.api.Test;

/** MRUnit tests of the block reducer, alone and behind the text mapper. */
class BlockReducerTest {

  private static void avro(Configuration conf) {
    AvroSerialization.addToConfiguration(conf);
    AvroSerialization.setKeyWriterSchema(conf, GraphRow.getClassSchema());
    AvroSerialization.setKeyReaderSchema(conf, GraphRow.getClassSchema());
    AvroSerialization.setDataModelClass(conf, SpecificData.class);
  }

  private static ReduceDriver<RowKey, RowPiece, AvroKey<GraphRow>, NullWritable> driver(String format,
      String weights) {
    ReduceDriver<RowKey, RowPiece, AvroKey<GraphRow>, NullWritable> d =
        ReduceDriver.newReduceDriver(new BlockReducer());
    d.getConfiguration().set(IngestConfig.FORMAT, format);
    d.getConfiguration().set(IngestConfig.WEIGHTS, weights);
    avro(d.getConfiguration());
    return d;
  }

  private static RowPiece piece(String raw, long... keys) {
    byte[] b = raw.getBytes(StandardCharsets.UTF_8);
    return new RowPiece().setKeys(keys).setRaw(b, b.length);
  }

  @Test
  void libsvmPiecesBecomeOneRowEach() throws Exception {
    ReduceDriver<RowKey, RowPiece, AvroKey<GraphRow>, NullWritable> d = driver("libsvm", "nnz");
    d.withInput(new RowKey(7, 7), List.of(piece("1 3:1 1:1", 3, 1)));
    d.withInput(new RowKey(9, 9), List.of(piece("-1")));
    List<Pair<AvroKey<GraphRow>, NullWritable>> out = d.run();
    assertEquals(2, out.size());
    GraphRow r = out.get(0).getFirst().datum();
    assertEquals(7, r.getId());
    assertEquals(List.of(3L, 1L), r.getKeys());
    assertEquals(2.0, r.getWeight());
    assertEquals("1 3:1 1:1", IngestTestSupport.raw(r));
    assertEquals(0.0, out.get(1).getFirst().datum().getWeight());
    assertEquals(2, d.getCounters().findCounter(IngestCounters.ROWS_OUT).getValue());
    assertEquals(2, d.getCounters().findCounter(IngestCounters.NONZEROS_OUT).getValue());
    assertEquals(2, d.getCounters().findCounter(IngestCounters.RAW_LINES_OUT).getValue());
    assertEquals(1, d.getCounters().findCounter(IngestCounters.EMPTY_ROWS_OUT).getValue());
  }

  @Test
  void edgePiecesMergeInInputOrder() throws Exception {
    ReduceDriver<RowKey, RowPiece, AvroKey<GraphRow>, NullWritable> d = driver("uedges", "none");
    // the shuffle delivers pieces sorted by seq (file ordinal, line); here already in that order
    d.withInput(new RowKey(1, 0), List.of(piece("1\t2", 2), new RowPiece().setKeys(5), piece("1\t9", 9)));
    List<Pair<AvroKey<GraphRow>, NullWritable>> out = d.run();
    assertEquals(1, out.size());
    GraphRow r = out.get(0).getFirst().datum();
    assertEquals(1, r.getId());
    assertEquals(List.of(2L, 5L, 9L), r.getKeys());
    assertEquals("1\t2\n1\t9", IngestTestSupport.raw(r));
    assertNull(r.getWeight());
    assertEquals(1, d.getCounters().findCounter(IngestCounters.ROWS_IN).getValue());
    assertEquals(2, d.getCounters().findCounter(IngestCounters.RAW_LINES_OUT).getValue());
  }

  @Test
  void mapperAndReducerTogetherGroupEdgeRowsBySource() throws Exception {
    MapReduceDriver<LongWritable, Text, RowKey, RowPiece, AvroKey<GraphRow>, NullWritable> d =
        MapReduceDriver.newMapReduceDriver(new TextIngestMapper(), new BlockReducer());
    d.getConfiguration().set(IngestConfig.FORMAT, "uedges");
    avro(d.getConfiguration());
    d.setKeyGroupingComparator(new RowKey.GroupComparator());
    d.setKeyOrderComparator(new RowKey.SortComparator());
    d.withInput(new LongWritable(1), new Text("3 1"));
    d.withInput(new LongWritable(2), new Text("1 2"));
    d.withInput(new LongWritable(3), new Text("3 2"));
    List<Pair<AvroKey<GraphRow>, NullWritable>> out = d.run();
    assertEquals(3, out.size());
    GraphRow v1 = out.get(0).getFirst().datum();
    GraphRow v3 = out.get(2).getFirst().datum();
    assertEquals(1, v1.getId());
    assertEquals(List.of(3L, 2L), v1.getKeys(), "reverse edge of line 1 first, then line 2");
    assertEquals("1 2", IngestTestSupport.raw(v1));
    assertEquals(3, v3.getId());
    assertEquals(List.of(1L, 2L), v3.getKeys());
    assertEquals("3 1\n3 2", IngestTestSupport.raw(v3));
    assertEquals(6, d.getCounters().findCounter(IngestCounters.NONZEROS_OUT).getValue());
  }
}
