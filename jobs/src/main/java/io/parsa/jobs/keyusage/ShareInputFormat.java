package io.parsa.jobs.keyusage;

import io.parsa.jobs.mr.BufferedSequenceFileInputFormat;
import io.parsa.jobs.mr.JoinValue;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.input.CombineFileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.CombineFileRecordReader;
import org.apache.hadoop.mapreduce.lib.input.CombineFileRecordReaderWrapper;
import org.apache.hadoop.mapreduce.lib.input.CombineFileSplit;

/**
 * Reads a key-usage dataset as {@link #SHARES} splits of whole files: share s holds the record files whose index in
 * name order is s mod shares, read one after another, each in key order. As the dataset's reducers hash keys, every
 * share is a representative sample of the keys, whatever the number of files; with one share a single task reads
 * every key (the paper's one exact sweep), without any extra shuffle. Each file is read through
 * {@link BufferedSequenceFileInputFormat}'s buffer.
 */
public class ShareInputFormat extends CombineFileInputFormat<LongWritable, JoinValue> {

  /** Number of shares (int, default 1). */
  public static final String SHARES = "parsa.keyusage.shares";

  @Override
  public List<InputSplit> getSplits(JobContext job) throws IOException {
    int shares = job.getConfiguration().getInt(SHARES, 1);
    List<FileStatus> files = new ArrayList<>(listStatus(job));
    files.sort(Comparator.comparing(f -> f.getPath().getName()));
    List<InputSplit> splits = new ArrayList<>();
    for (int s = 0; s < Math.min(shares, Math.max(1, files.size())); s++) {
      List<Path> paths = new ArrayList<>();
      List<Long> lengths = new ArrayList<>();
      for (int i = s; i < files.size(); i += shares) {
        paths.add(files.get(i).getPath());
        lengths.add(files.get(i).getLen());
      }
      long[] len = lengths.stream().mapToLong(Long::longValue).toArray();
      splits.add(new CombineFileSplit(paths.toArray(new Path[0]), new long[len.length], len, new String[0]));
    }
    return splits;
  }

  @Override
  public RecordReader<LongWritable, JoinValue> createRecordReader(InputSplit split, TaskAttemptContext context)
      throws IOException {
    return new CombineFileRecordReader<>((CombineFileSplit) split, context, FileReader.class);
  }

  /** The reader of one file of a share (constructed by {@link CombineFileRecordReader} through reflection). */
  static final class FileReader extends CombineFileRecordReaderWrapper<LongWritable, JoinValue> {
    FileReader(CombineFileSplit split, TaskAttemptContext context, Integer index)
        throws IOException, InterruptedException {
      super(new BufferedSequenceFileInputFormat<>(), split, context, index);
    }
  }
}
