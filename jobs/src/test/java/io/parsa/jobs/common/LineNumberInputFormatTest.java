package io.parsa.jobs.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.parsa.common.BadRecordException;
import io.parsa.jobs.ingest.IngestTestSupport;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.RecordReader;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.task.TaskAttemptContextImpl;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Whole-file splits numbered by path order, 1-based line numbers, and truncated compressed input. */
class LineNumberInputFormatTest {

  @TempDir
  File tmp;

  private final Configuration conf = IngestTestSupport.localConf();

  private List<InputSplit> splits(File... files) throws Exception {
    Job job = Job.getInstance(conf);
    Path[] paths = Arrays.stream(files).map(f -> new Path(f.toURI())).toArray(Path[]::new);
    FileInputFormat.setInputPaths(job, paths);
    return new LineNumberInputFormat().getSplits(job);
  }

  private List<String> read(InputSplit split) throws Exception {
    TaskAttemptContext ctx = new TaskAttemptContextImpl(conf, new TaskAttemptID());
    List<String> out = new ArrayList<>();
    try (RecordReader<LongWritable, Text> r = new LineNumberInputFormat().createRecordReader(split, ctx)) {
      r.initialize(split, ctx);
      while (r.nextKeyValue()) {
        out.add(r.getCurrentKey().get() + ":" + r.getCurrentValue());
      }
    }
    return out;
  }

  @Test
  void oneSplitPerFileNumberedInPathOrder() throws Exception {
    File b = IngestTestSupport.write(new File(tmp, "b.txt.bz2"), "x\ny\n");
    File a = IngestTestSupport.write(new File(tmp, "a.txt.gz"), "p\r\nq\n\nr");
    File c = IngestTestSupport.write(new File(tmp, "c.txt"), "");
    List<InputSplit> s = splits(c, b, a);
    assertEquals(3, s.size());
    for (int i = 0; i < 3; i++) {
      assertEquals(i, ((OrdinalFileSplit) s.get(i)).ordinal());
    }
    assertEquals("a.txt.gz", ((OrdinalFileSplit) s.get(0)).getPath().getName());
    assertEquals(List.of("1:p", "2:q", "3:", "4:r"), read(s.get(0)));
    assertEquals(List.of("1:x", "2:y"), read(s.get(1)));
    assertEquals(List.of(), read(s.get(2)));
    // the ordinal survives serialisation (splits travel to the tasks)
    OrdinalFileSplit copy = new OrdinalFileSplit();
    org.apache.hadoop.io.DataOutputBuffer out = new org.apache.hadoop.io.DataOutputBuffer();
    ((OrdinalFileSplit) s.get(2)).write(out);
    org.apache.hadoop.io.DataInputBuffer in = new org.apache.hadoop.io.DataInputBuffer();
    in.reset(out.getData(), out.getLength());
    copy.readFields(in);
    assertEquals(2, copy.ordinal());
  }

  /**
   * A plain file cut into many small byte ranges (mixed LF, CR LF and CR terminators, empty lines, a line
   * longer than a range): the count pass plus numbered ranges return exactly the whole-file lines and numbers.
   */
  @Test
  void rangesOfALargeFileNumberTheirLinesAsTheWholeFile() throws Exception {
    StringBuilder sb = new StringBuilder();
    java.util.Random rnd = new java.util.Random(7);
    String[] ends = {"\n", "\r\n", "\r", "\n\n"};
    for (int i = 0; i < 400; i++) {
      sb.append("row ").append(i).append(" ").append("x".repeat(i == 200 ? 700 : rnd.nextInt(30)))
          .append(ends[rnd.nextInt(ends.length)]);
    }
    sb.append("last line without terminator");
    File f = IngestTestSupport.write(new File(tmp, "big.txt"), sb.toString());
    conf.setBoolean(LineNumberInputFormat.SPLIT_TEXT, false);
    List<String> whole = read(splits(f).get(0));
    conf.setBoolean(LineNumberInputFormat.SPLIT_TEXT, true);
    conf.setLong(FileInputFormat.SPLIT_MAXSIZE, 97);

    Job job = Job.getInstance(conf);
    FileInputFormat.setInputPaths(job, new Path(f.toURI()));
    assertTrue(LineNumberInputFormat.needsLineCounts(job));
    IOException missing = assertThrows(IOException.class, () -> new LineNumberInputFormat().getSplits(job));
    assertTrue(missing.getMessage().contains(LineNumberInputFormat.LINE_COUNTS), missing.getMessage());

    // the count pass, as LineCountMapper does it: read each range, write ordinal<TAB>start<TAB>lines
    conf.setBoolean(LineNumberInputFormat.COUNT_PASS, true);
    List<InputSplit> ranges = splits(f);
    assertTrue(ranges.size() > 50, ranges.size() + " ranges");
    StringBuilder counts = new StringBuilder();
    for (InputSplit r : ranges) {
      OrdinalFileSplit os = (OrdinalFileSplit) r;
      assertFalse(os.wholeFile());
      counts.append(os.ordinal()).append('\t').append(os.getStart()).append('\t').append(read(r).size()).append('\n');
    }
    IngestTestSupport.write(new File(tmp, "counts/part-m-00000"), counts.toString());
    conf.setBoolean(LineNumberInputFormat.COUNT_PASS, false);
    conf.set(LineNumberInputFormat.LINE_COUNTS, new File(tmp, "counts").toURI().toString());

    List<String> joined = new ArrayList<>();
    List<InputSplit> numbered = splits(f);
    assertEquals(ranges.size(), numbered.size());
    for (InputSplit r : numbered) {
      // serialised and read back, as a task receives it
      OrdinalFileSplit copy = new OrdinalFileSplit();
      org.apache.hadoop.io.DataOutputBuffer out = new org.apache.hadoop.io.DataOutputBuffer();
      ((OrdinalFileSplit) r).write(out);
      org.apache.hadoop.io.DataInputBuffer in = new org.apache.hadoop.io.DataInputBuffer();
      in.reset(out.getData(), out.getLength());
      copy.readFields(in);
      joined.addAll(read(copy));
    }
    assertEquals(whole, joined);
    assertTrue(whole.size() > 400, whole.size() + " lines");
  }

  @Test
  void truncatedGzipFailsWithTheLineWhereReadingStopped() throws Exception {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 50_000; i++) {
      sb.append("line ").append(i).append(" with some text to compress\n");
    }
    File full = IngestTestSupport.write(new File(tmp, "full.gz"), sb.toString());
    byte[] bytes = Files.readAllBytes(full.toPath());
    File cut = new File(tmp, "cut.gz");
    Files.write(cut.toPath(), Arrays.copyOf(bytes, bytes.length / 3));
    List<InputSplit> s = splits(cut);
    List<String> seen = new ArrayList<>();
    TaskAttemptContext ctx = new TaskAttemptContextImpl(conf, new TaskAttemptID());
    BadRecordException e = assertThrows(BadRecordException.class, () -> {
      try (RecordReader<LongWritable, Text> r = new LineNumberInputFormat().createRecordReader(s.get(0), ctx)) {
        r.initialize(s.get(0), ctx);
        while (r.nextKeyValue()) {
          seen.add(r.getCurrentValue().toString());
        }
      }
    });
    assertTrue(e.getMessage().contains("truncated or corrupt compressed input"), e.getMessage());
    assertEquals(seen.size() + 1, e.line(), "the first line that could not be read");
    assertTrue(seen.size() > 1000 && seen.size() < 50_000, "read " + seen.size() + " lines before the cut");
  }

  @Test
  void inputFilesResolveGlobsDirectoriesAndSkipHiddenFiles() throws Exception {
    IngestTestSupport.write(new File(tmp, "d/x.txt"), "1\n");
    IngestTestSupport.write(new File(tmp, "d/_SUCCESS"), "");
    IngestTestSupport.write(new File(tmp, "d/.x.txt.crc"), "");
    IngestTestSupport.write(new File(tmp, "d/sub/y.txt"), "1\n");
    IngestTestSupport.write(new File(tmp, "e1.txt"), "1\n");
    IngestTestSupport.write(new File(tmp, "e2.txt"), "1\n");
    List<FileStatus> files = InputFiles.resolve(conf, InputFiles.split(tmp + "/e*.txt, " + tmp + "/d,"
        + tmp + "/e1.txt"));
    List<String> names = new ArrayList<>();
    files.forEach(f -> names.add(new File(f.getPath().toUri().getPath()).getAbsolutePath()
        .substring(tmp.getAbsolutePath().length() + 1)));
    assertEquals(List.of("d/sub/y.txt", "d/x.txt", "e1.txt", "e2.txt"), names);
  }
}
