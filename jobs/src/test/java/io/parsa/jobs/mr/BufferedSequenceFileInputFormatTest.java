package io.parsa.jobs.mr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.SequenceFile;
import org.apache.hadoop.mapreduce.InputFormat;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.SequenceFileInputFormat;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The buffered reader gives exactly Hadoop's records, split by split, whatever the split and buffer sizes; the
 * progress of either never falls and ends at 1.
 */
class BufferedSequenceFileInputFormatTest {

  @TempDir
  Path dir;

  @Test
  void everySplitReadsTheSameRecordsAsHadoopsReader() throws Exception {
    Configuration conf = new Configuration();
    conf.set("fs.defaultFS", "file:///");
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(dir.toUri().toString(), "part-r-00000");
    int records = 20_000;
    // Records of 0 to 299 value bytes, a sync marker about every 2 KB: many sync blocks per split, records
    // larger than a buffer of 256 bytes, and split ends inside records.
    try (SequenceFile.Writer w = SequenceFile.createWriter(conf, SequenceFile.Writer.file(file),
        SequenceFile.Writer.keyClass(LongWritable.class), SequenceFile.Writer.valueClass(BytesWritable.class),
        SequenceFile.Writer.syncInterval(2_000))) {
      for (int i = 0; i < records; i++) {
        byte[] value = new byte[(i * 37) % 300];
        for (int j = 0; j < value.length; j++) {
          value[j] = (byte) (i + j);
        }
        w.append(new LongWritable(i * 7L), new BytesWritable(value));
      }
    }
    long length = FileSystem.get(conf).getFileStatus(file).getLen();
    for (long splitBytes : new long[] {length, 100_000, 9_999, 1_000}) {
      for (int buffer : new int[] {256, 64 << 10}) {
        Job job = Job.getInstance(conf);
        job.getConfiguration().setInt(BufferedSequenceFileInputFormat.BUFFER_BYTES, buffer);
        FileInputFormat.addInputPath(job, file);
        FileInputFormat.setMaxInputSplitSize(job, splitBytes);
        FileInputFormat.setMinInputSplitSize(job, 1);
        List<InputSplit> splits = new SequenceFileInputFormat<LongWritable, BytesWritable>().getSplits(job);
        assertEquals(splits.toString(),
            new BufferedSequenceFileInputFormat<LongWritable, BytesWritable>().getSplits(job).toString());
        List<String> expected = new ArrayList<>();
        List<String> actual = new ArrayList<>();
        for (InputSplit split : splits) {
          List<String> hadoop = read(new SequenceFileInputFormat<>(), split, job.getConfiguration());
          List<String> buffered = read(new BufferedSequenceFileInputFormat<>(), split, job.getConfiguration());
          assertEquals(hadoop, buffered, "split " + split + ", buffer " + buffer);
          expected.addAll(hadoop);
          actual.addAll(buffered);
        }
        assertTrue(splitBytes == length || splits.size() > 1, "the file was split");
        assertEquals(records, actual.size(), "every record once, split size " + splitBytes);
        assertEquals(expected, actual);
      }
    }
  }

  private static List<String> read(InputFormat<LongWritable, BytesWritable> format, InputSplit split,
      Configuration conf) throws Exception {
    TaskAttemptContext context = new TaskAttemptContextImpl(conf, new TaskAttemptID());
    List<String> out = new ArrayList<>();
    try (RecordReader<LongWritable, BytesWritable> r = format.createRecordReader(split, context)) {
      r.initialize(split, context);
      float progress = r.getProgress();
      assertTrue(progress >= 0 && progress <= 1, "progress " + progress);
      while (r.nextKeyValue()) {
        float now = r.getProgress();
        assertTrue(now >= progress && now <= 1, "progress " + progress + " then " + now + " in " + split);
        progress = now;
        BytesWritable v = r.getCurrentValue();
        int sum = 0;
        for (int j = 0; j < v.getLength(); j++) {
          sum = sum * 31 + v.getBytes()[j];
        }
        out.add(r.getCurrentKey().get() + ":" + v.getLength() + ":" + sum);
      }
      assertEquals(1.0f, r.getProgress(), "progress at the end of " + split);
    }
    return out;
  }
}
