package io.parsa.jobs.mr;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.Random;
import org.apache.hadoop.io.DataOutputBuffer;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.RawComparator;
import org.apache.hadoop.io.WritableComparator;
import org.apache.hadoop.mapreduce.Job;
import org.junit.jupiter.api.Test;

class LongKeyComparatorTest {

  /** Serialized keys at odd offsets of one buffer, as in a map task's sort buffer. */
  private static int[] write(DataOutputBuffer out, long[] values) throws IOException {
    int[] at = new int[values.length];
    LongWritable w = new LongWritable();
    for (int i = 0; i < values.length; i++) {
      out.write(i % 7); // some bytes before each key, so keys start at every alignment
      at[i] = out.getLength();
      w.set(values[i]);
      w.write(out);
    }
    return at;
  }

  @Test
  void ordersSerializedKeysAsHadoopsOwnComparator() throws IOException {
    Random rnd = new Random(7);
    long[] values = new long[2_000];
    long[] edges = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE + 1, Long.MAX_VALUE - 1, 255, 256,
        -256, 1L << 32, -(1L << 32), 0xFFFFFFFFL};
    for (int i = 0; i < values.length; i++) {
      values[i] = i < edges.length ? edges[i] : (i % 3 == 0 ? rnd.nextInt(1000) - 500 : rnd.nextLong());
    }
    DataOutputBuffer out = new DataOutputBuffer();
    int[] at = write(out, values);
    byte[] b = out.getData();
    WritableComparator hadoop = WritableComparator.get(LongWritable.class);
    LongKeyComparator ours = new LongKeyComparator();
    int pairs = 0;
    for (int i = 0; i < values.length; i++) {
      for (int j = 0; j < values.length; j += 1 + (i % 5)) {
        int expected = Integer.signum(hadoop.compare(b, at[i], 8, b, at[j], 8));
        assertEquals(expected, Integer.signum(ours.compare(b, at[i], 8, b, at[j], 8)), values[i] + " vs " + values[j]);
        assertEquals(Integer.signum(Long.compare(values[i], values[j])), expected);
        pairs++;
      }
    }
    assertEquals(true, pairs > 1_000_000, "pairs compared: " + pairs);
    // the object form (used where a job compares deserialized keys) is Hadoop's
    assertEquals(-1, Integer.signum(ours.compare(new LongWritable(-5), new LongWritable(3))));
  }

  @Test
  void setsTheJobsMapOutputKeysAndTheirOrder() throws IOException {
    Job job = Job.getInstance();
    LongKeyComparator.mapOutputKeys(job);
    assertEquals(LongWritable.class, job.getMapOutputKeyClass());
    RawComparator<?> sort = job.getSortComparator();
    assertEquals(LongKeyComparator.class, sort.getClass());
    // the grouping of the reduce calls follows the sort order where the job sets none
    assertEquals(LongKeyComparator.class, job.getGroupingComparator().getClass());
  }
}
