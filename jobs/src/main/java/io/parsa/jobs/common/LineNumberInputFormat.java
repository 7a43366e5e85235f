package io.parsa.jobs.common;

import io.parsa.common.BadRecordException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.input.LineRecordReader;

/**
 * Text input read whole-file: one split per file, key = 1-based line number, value = the line (without its
 * terminator). Compressed files (gz, bz2, ... by extension) are decompressed with Hadoop's codecs.
 *
 * <p>Why not splittable: row ids and error messages name the line inside the file, and a split starting in the
 * middle of a file cannot know how many lines precede it without reading them. So each file is read by one
 * mapper from its first line (gzip cannot be split anyway). Parallelism therefore comes from the number of
 * input files; split very large plain or bz2 inputs into several files.
 *
 * <p>Splits are {@link OrdinalFileSplit}s numbered by the files' order when sorted by their full path, which
 * is what the row-id rule of ingest uses. A compressed stream that ends early (a truncated .gz) or is corrupt
 * fails with a {@link BadRecordException} naming the file and the line where reading stopped.
 */
public class LineNumberInputFormat extends FileInputFormat<LongWritable, Text> {

  @Override
  protected boolean isSplitable(JobContext context, Path file) {
    return false;
  }

  @Override
  public List<InputSplit> getSplits(JobContext job) throws IOException {
    List<FileStatus> files = new ArrayList<>(listStatus(job));
    files.sort(Comparator.comparing(s -> s.getPath().toString()));
    List<InputSplit> splits = new ArrayList<>(files.size());
    for (int i = 0; i < files.size(); i++) {
      FileStatus st = files.get(i);
      Path path = st.getPath();
      String[] hosts = new String[0];
      if (st.getLen() > 0) {
        FileSystem fs = path.getFileSystem(job.getConfiguration());
        BlockLocation[] locs = fs.getFileBlockLocations(st, 0, st.getLen());
        if (locs != null && locs.length > 0) {
          hosts = locs[0].getHosts();
        }
      }
      splits.add(new OrdinalFileSplit(path, st.getLen(), hosts, i));
    }
    return splits;
  }

  @Override
  public RecordReader<LongWritable, Text> createRecordReader(InputSplit split, TaskAttemptContext context) {
    return new NumberedLineReader();
  }

  /** Wraps Hadoop's {@link LineRecordReader}, replacing its byte-offset key by the line number. */
  static final class NumberedLineReader extends RecordReader<LongWritable, Text> {
    private final LineRecordReader lines = new LineRecordReader();
    private final LongWritable lineNo = new LongWritable(0);
    private String file = "?";

    @Override
    public void initialize(InputSplit split, TaskAttemptContext context) throws IOException {
      if (split instanceof FileSplit fs) {
        file = fs.getPath().toString();
      }
      try {
        lines.initialize(split, context);
      } catch (java.io.EOFException e) {
        throw new BadRecordException(file, 1, "truncated or corrupt compressed input (" + e.getMessage()
            + "); expected a complete compressed stream");
      }
    }

    @Override
    public boolean nextKeyValue() throws IOException {
      boolean more;
      try {
        more = lines.nextKeyValue();
      } catch (IOException e) {
        // the decompressors report a stream cut short as EOFException("Unexpected end of input stream")
        // and a damaged one as a plain IOException; both mean the file cannot be read past this line
        throw new BadRecordException(file, lineNo.get() + 1, "truncated or corrupt compressed input ("
            + e.getMessage() + "); expected a complete, valid compressed stream");
      }
      if (more) {
        lineNo.set(lineNo.get() + 1);
      }
      return more;
    }

    @Override
    public LongWritable getCurrentKey() {
      return lineNo;
    }

    @Override
    public Text getCurrentValue() {
      return lines.getCurrentValue();
    }

    @Override
    public float getProgress() throws IOException {
      return lines.getProgress();
    }

    @Override
    public void close() throws IOException {
      lines.close();
    }
  }
}
