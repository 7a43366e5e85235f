package io.parsa.jobs.mr;

import java.io.IOException;
import java.io.InputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BufferedFSInputStream;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.SequenceFile;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.input.SequenceFileInputFormat;

/**
 * {@link SequenceFileInputFormat} whose reader reads through a buffer of {@link #BUFFER_BYTES}. Hadoop's own reader
 * reads each record's two lengths byte by byte from the file system's stream, and on HDFS every such byte is a
 * synchronized call into the block reader: in the distributed refinement's per-block jobs, whose maps only pass
 * the part counts of every key on, those calls took 27–32 % of the map tasks' CPU. The records and splits are
 * exactly Hadoop's (the same sync-marker rule at a split's two ends).
 */
public class BufferedSequenceFileInputFormat<K, V> extends SequenceFileInputFormat<K, V> {

  /** Bytes of the read buffer (default 64 KiB). */
  public static final String BUFFER_BYTES = "parsa.sequencefile.read.buffer.bytes";

  static final int DEFAULT_BUFFER_BYTES = 64 << 10;

  @Override
  public RecordReader<K, V> createRecordReader(InputSplit split, TaskAttemptContext context) {
    return new Reader<>();
  }

  /**
   * A reader of the whole file {@code path} through a buffer; the caller closes it. Where the file system's stream
   * is not a plain {@link FSInputStream} (or is buffered already) it is read as opened.
   */
  public static SequenceFile.Reader open(Path path, Configuration conf) throws IOException {
    FileSystem fs = path.getFileSystem(conf);
    long length = fs.getFileStatus(path).getLen();
    FSDataInputStream opened = fs.open(path);
    FSDataInputStream in = opened;
    InputStream raw = opened.getWrappedStream();
    if (raw instanceof FSInputStream && !(raw instanceof BufferedFSInputStream)) {
      in = new FSDataInputStream(
          new BufferedFSInputStream((FSInputStream) raw, conf.getInt(BUFFER_BYTES, DEFAULT_BUFFER_BYTES)));
    }
    try {
      return new SequenceFile.Reader(conf, SequenceFile.Reader.stream(in), SequenceFile.Reader.length(length));
    } catch (IOException | RuntimeException e) {
      in.close();
      throw e;
    }
  }

  /** The records of one split: those whose sync block starts in it, as Hadoop's SequenceFileRecordReader reads. */
  static final class Reader<K, V> extends RecordReader<K, V> {
    private SequenceFile.Reader in;
    private long start;
    private long end;
    private boolean more = true;
    private K key;
    private V value;

    @Override
    public void initialize(InputSplit split, TaskAttemptContext context) throws IOException {
      FileSplit file = (FileSplit) split;
      in = open(file.getPath(), context.getConfiguration());
      end = file.getStart() + file.getLength();
      if (file.getStart() > in.getPosition()) {
        in.sync(file.getStart());
      }
      start = in.getPosition();
      more = start < end;
    }

    @Override
    @SuppressWarnings("unchecked")
    public boolean nextKeyValue() throws IOException {
      if (!more) {
        return false;
      }
      long pos = in.getPosition();
      key = (K) in.next(key);
      if (key == null || (pos >= end && in.syncSeen())) {
        more = false;
        key = null;
        value = null;
      } else {
        value = (V) in.getCurrentValue(value);
      }
      return more;
    }

    @Override
    public K getCurrentKey() {
      return key;
    }

    @Override
    public V getCurrentValue() {
      return value;
    }

    @Override
    public float getProgress() throws IOException {
      if (end == start) {
        return 0.0f;
      }
      return Math.min(1.0f, (in.getPosition() - start) / (float) (end - start));
    }

    @Override
    public void close() throws IOException {
      if (in != null) {
        in.close();
      }
    }
  }
}
