package io.parsa.jobs.common;

import io.parsa.common.BadRecordException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.JobContext;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.apache.hadoop.mapreduce.lib.input.LineRecordReader;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.output.TextOutputFormat;

/**
 * Text input whose key is the 1-based line number inside the file, value the line (without its terminator).
 * Compressed files (gz, bz2, ... by extension) are decompressed with Hadoop's codecs and read whole.
 *
 * <p>Splits are {@link OrdinalFileSplit}s numbered by the files' order when sorted by their full path, which
 * is what the row-id rule of ingest uses. An uncompressed file larger than the split size (Hadoop's rule:
 * {@code max(minsize, min(maxsize, block size))}, {@code mapreduce.input.fileinputformat.split.*}) is cut into
 * byte ranges, read by Hadoop's {@link LineRecordReader}: a range returns the lines that start after its first
 * byte and at or before its end. Such a range cannot know how many lines precede it, so a first, map-only pass
 * ({@link #countJob}) reads every range with the same reader and counts its lines; {@link #getSplits} then
 * gives each range the number of its first line (1 + the lines of the file's earlier ranges), read from the
 * directory named by {@link #LINE_COUNTS}. Line numbers and ids are therefore the same as for whole-file
 * reading, whatever the split size. {@code parsa.input.text.split=false} reads every file whole (the default
 * for the local job runner, see {@link #splitText}).
 *
 * <p>A compressed stream that ends early (a truncated .gz) or is corrupt fails with a
 * {@link BadRecordException} naming the file and the line where reading stopped.
 */
public class LineNumberInputFormat extends FileInputFormat<LongWritable, Text> {

  /** Cut large uncompressed files into byte ranges (default: true on a cluster, false in local mode). */
  public static final String SPLIT_TEXT = "parsa.input.text.split";
  /** Directory of the line-count pass's output (lines {@code ordinal<TAB>start<TAB>lines}). */
  public static final String LINE_COUNTS = "parsa.input.line.counts";
  /** Internal: getSplits returns only the byte ranges of cut files, without line numbers (the count pass). */
  static final String COUNT_PASS = "parsa.input.line.count.pass";
  private static final double SPLIT_SLOP = 1.1;

  @Override
  protected boolean isSplitable(JobContext context, Path file) {
    return splitText(context.getConfiguration())
        && new CompressionCodecFactory(context.getConfiguration()).getCodec(file) == null;
  }

  /**
   * {@link #SPLIT_TEXT} if set; otherwise true on a cluster and false for the local job runner, where ranges
   * only add the count pass (10^7 non-zeros, 90 MB, 2 cores: 7.4 s whole, 12.7 s in 3 ranges).
   */
  static boolean splitText(Configuration conf) {
    return conf.getBoolean(SPLIT_TEXT, !"local".equals(conf.get("mapreduce.framework.name", "local")));
  }

  /** One file's byte ranges: {start, length} pairs; a single range for a file read whole. */
  private List<long[]> ranges(JobContext job, FileStatus st) {
    long len = st.getLen();
    List<long[]> out = new ArrayList<>();
    if (len == 0 || !isSplitable(job, st.getPath())) {
      out.add(new long[] {0, len});
      return out;
    }
    long size = computeSplitSize(st.getBlockSize(), getMinSplitSize(job), getMaxSplitSize(job));
    long left = len;
    while ((double) left / size > SPLIT_SLOP) {
      out.add(new long[] {len - left, size});
      left -= size;
    }
    out.add(new long[] {len - left, left});
    return out;
  }

  /** True if some input file is cut into several ranges, so {@link #countJob} must run first. */
  public static boolean needsLineCounts(Job job) throws IOException {
    LineNumberInputFormat f = new LineNumberInputFormat();
    for (FileStatus st : f.listStatus(job)) {
      if (f.ranges(job, st).size() > 1) {
        return true;
      }
    }
    return false;
  }

  /**
   * The map-only job that counts the lines of every byte range of the cut files of {@code ingestJob}'s input
   * into {@code out}; run it, then set {@link #LINE_COUNTS} to {@code out} on the ingest job.
   */
  public static Job countJob(Job ingestJob, Path out) throws IOException {
    Job job = Job.getInstance(new Configuration(ingestJob.getConfiguration()),
        ingestJob.getJobName() + " (line counts)");
    job.setJarByClass(LineNumberInputFormat.class);
    job.getConfiguration().setBoolean(COUNT_PASS, true);
    FileInputFormat.setInputPaths(job, FileInputFormat.getInputPaths(ingestJob));
    job.setInputFormatClass(LineNumberInputFormat.class);
    job.setMapperClass(LineCountMapper.class);
    job.setNumReduceTasks(0);
    job.setOutputKeyClass(Text.class);
    job.setOutputValueClass(NullWritable.class);
    job.setOutputFormatClass(TextOutputFormat.class);
    FileOutputFormat.setCompressOutput(job, false);
    FileOutputFormat.setOutputPath(job, out);
    return job;
  }

  /** Counts the lines of its range; writes {@code ordinal<TAB>start<TAB>lines}. */
  public static final class LineCountMapper extends Mapper<LongWritable, Text, Text, NullWritable> {
    @Override
    public void run(Context context) throws IOException, InterruptedException {
      long lines = 0;
      while (context.nextKeyValue()) {
        lines++;
      }
      OrdinalFileSplit split = (OrdinalFileSplit) context.getInputSplit();
      context.write(new Text(split.ordinal() + "\t" + split.getStart() + "\t" + lines), NullWritable.get());
    }
  }

  /** Reads the count pass's output: "ordinal:start" -> lines. */
  private static Map<String, Long> readCounts(Configuration conf, Path dir) throws IOException {
    FileSystem fs = dir.getFileSystem(conf);
    Map<String, Long> counts = new HashMap<>();
    for (FileStatus st : fs.listStatus(dir, p -> p.getName().startsWith("part-"))) {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(fs.open(st.getPath()),
          StandardCharsets.UTF_8))) {
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          String[] f = line.split("\t");
          if (f.length != 3) {
            throw new IOException(st.getPath() + ": expected 'ordinal<TAB>start<TAB>lines', found '" + line + "'");
          }
          counts.put(f[0] + ":" + f[1], Long.parseLong(f[2]));
        }
      }
    }
    return counts;
  }

  @Override
  public List<InputSplit> getSplits(JobContext job) throws IOException {
    Configuration conf = job.getConfiguration();
    boolean countPass = conf.getBoolean(COUNT_PASS, false);
    List<FileStatus> files = new ArrayList<>(listStatus(job));
    files.sort(Comparator.comparing(s -> s.getPath().toString()));
    Map<String, Long> counts = null;
    List<InputSplit> splits = new ArrayList<>(files.size());
    for (int i = 0; i < files.size(); i++) {
      FileStatus st = files.get(i);
      Path path = st.getPath();
      List<long[]> ranges = ranges(job, st);
      BlockLocation[] locs = st.getLen() > 0
          ? path.getFileSystem(conf).getFileBlockLocations(st, 0, st.getLen()) : new BlockLocation[0];
      if (ranges.size() == 1) {
        if (!countPass) {
          splits.add(new OrdinalFileSplit(path, st.getLen(), hosts(locs, 0), i));
        }
        continue;
      }
      if (!countPass && counts == null) {
        String dir = conf.get(LINE_COUNTS);
        if (dir == null) {
          throw new IOException(path + " is cut into " + ranges.size() + " splits but " + LINE_COUNTS
              + " is not set; run LineNumberInputFormat.countJob first (or set " + SPLIT_TEXT + "=false)");
        }
        counts = readCounts(conf, new Path(dir));
      }
      long line = 1;
      for (long[] r : ranges) {
        if (countPass) {
          splits.add(new OrdinalFileSplit(path, r[0], r[1], hosts(locs, r[0]), i, 0));
          continue;
        }
        splits.add(new OrdinalFileSplit(path, r[0], r[1], hosts(locs, r[0]), i, line));
        Long n = counts.get(i + ":" + r[0]);
        if (n == null) {
          throw new IOException("no line count for " + path + " from byte " + r[0] + " in " + conf.get(LINE_COUNTS)
              + "; the split size changed since the count pass?");
        }
        line += n;
      }
    }
    return splits;
  }

  private static String[] hosts(BlockLocation[] locs, long offset) throws IOException {
    for (BlockLocation l : locs) {
      if (offset >= l.getOffset() && offset < l.getOffset() + l.getLength()) {
        return l.getHosts();
      }
    }
    return locs.length > 0 ? locs[0].getHosts() : new String[0];
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
      if (split instanceof OrdinalFileSplit os && os.firstLine() > 0) {
        lineNo.set(os.firstLine() - 1);
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
