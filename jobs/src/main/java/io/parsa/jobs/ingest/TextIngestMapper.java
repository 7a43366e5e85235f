package io.parsa.jobs.ingest;

import io.parsa.common.BadRecordException;
import io.parsa.jobs.common.OrdinalFileSplit;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.lib.input.FileSplit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parses one whole text file (libsvm or edge list; key = 1-based line number) into row pieces keyed by row id.
 *
 * <p>libsvm: one piece per line, id = (file ordinal << 40) | (line - 1). Edge lists: line {@code u v} gives row
 * u the key v and the raw line; {@code uedges} also gives row v the key u (without raw bytes); {@code edges}
 * gives v an empty piece, so that every vertex of the file is a row. An edge list's pieces are combined in the
 * mapper into one piece per row and flush ({@link EdgePieces}, at most {@link IngestConfig#MAP_BUFFER_PIECES}
 * pieces held), keyed by the row's first line. Malformed lines fail the task with a
 * {@link BadRecordException} naming file and line, or are skipped (counted, the first few logged) while the
 * file has had at most {@code --skip-bad-records} of them. A file without a single record is an error.
 */
public class TextIngestMapper extends Mapper<LongWritable, Text, RowKey, RowPiece> {

  private static final Logger LOG = LoggerFactory.getLogger(TextIngestMapper.class);

  private final RowKey outKey = new RowKey();
  private final RowPiece outValue = new RowPiece();
  private final LongArrayList keys = new LongArrayList();
  private final long[] uv = new long[2];

  private IngestFormat format;
  private String file;
  private int ordinal;
  private long skipLimit;
  private int logLimit;
  private long skipped;
  private long records;
  private long lastLine;
  private boolean wholeFile;
  private BadRecordLog badLog;
  /** Edge lists: the split's pieces, combined per row before they are emitted. */
  private EdgePieces pieces;

  @Override
  public void run(Context context) throws IOException, InterruptedException {
    // not Mapper.run: its finally-cleanup would replace a bad-line failure by an "empty input" one
    try {
      setup(context);
      while (context.nextKeyValue()) {
        map(context.getCurrentKey(), context.getCurrentValue(), context);
      }
      cleanup(context);
    } catch (BadRecordException e) {
      if (badLog == null) {
        badLog = new BadRecordLog(context);
      }
      badLog.add(true, e);
      badLog.flush();
      throw e;
    }
  }

  @Override
  protected void setup(Context context) {
    Configuration conf = context.getConfiguration();
    format = IngestConfig.format(conf);
    if (!format.isText()) {
      throw new IllegalStateException(getClass().getSimpleName() + " reads text, not " + format.cliName());
    }
    if (format.isEdgeList()) {
      pieces = new EdgePieces(conf.getInt(IngestConfig.MAP_BUFFER_PIECES, IngestConfig.DEFAULT_MAP_BUFFER_PIECES),
          IngestConfig.MAP_BUFFER_RAW_BYTES);
    }
    skipLimit = conf.getLong(IngestConfig.SKIP_BAD_RECORDS, IngestConfig.DEFAULT_SKIP_BAD_RECORDS);
    logLimit = conf.getInt(IngestConfig.LOGGED_BAD_RECORDS, IngestConfig.DEFAULT_LOGGED_BAD_RECORDS);
    badLog = new BadRecordLog(context);
    InputSplit split = context.getInputSplit();
    file = split instanceof FileSplit fs ? fs.getPath().toString() : String.valueOf(split);
    ordinal = split instanceof OrdinalFileSplit os ? os.ordinal() : 0;
    if (ordinal >= IngestConfig.MAX_FILES) {
      throw new BadRecordException(file, 0, "file #" + ordinal + " of the input: row ids hold at most "
          + IngestConfig.MAX_FILES + " input files; merge some files first");
    }
    wholeFile = !(split instanceof OrdinalFileSplit os) || os.wholeFile();
    if (wholeFile || ((FileSplit) split).getStart() == 0) {
      context.getCounter(IngestCounters.FILES).increment(1);
    }
    context.getCounter(IngestCounters.SPLITS).increment(1);
  }

  @Override
  protected void map(LongWritable key, Text value, Context context) throws IOException, InterruptedException {
    long line = key.get();
    lastLine = line;
    context.getCounter(IngestCounters.LINES).increment(1);
    byte[] b = value.getBytes();
    int len = value.getLength();
    LineKind kind;
    try {
      if (line - 1 > IngestConfig.MAX_LINE_INDEX) {
        throw new LineFormatException("line number " + line + " overflows the row id (file ordinal << "
            + IngestConfig.LINE_BITS + " | line - 1); expected at most " + (IngestConfig.MAX_LINE_INDEX + 1)
            + " lines per file; split the file");
      }
      kind = format == IngestFormat.LIBSVM ? LibsvmParser.parse(b, len, keys) : EdgeListParser.parse(b, len, uv);
    } catch (LineFormatException e) {
      badLine(context, line, e.getMessage());
      return;
    }
    if (kind == LineKind.COMMENT) {
      context.getCounter(IngestCounters.COMMENT_LINES).increment(1);
      return;
    }
    if (kind == LineKind.BLANK) {
      context.getCounter(IngestCounters.BLANK_LINES).increment(1);
      return;
    }
    records++;
    context.getCounter(IngestCounters.RECORDS_IN).increment(1);
    long seq = IngestConfig.lineId(ordinal, line - 1);
    if (format == IngestFormat.LIBSVM) {
      outValue.clear().setKeys(keys).setRaw(b, len);
      context.write(outKey.set(seq, seq), outValue);
      context.getCounter(IngestCounters.ROWS_IN).increment(1);
      context.getCounter(IngestCounters.NONZEROS_IN).increment(keys.size());
      return;
    }
    long u = uv[0];
    long v = uv[1];
    pieces.add(u, seq, true, v, b, len);
    if (format == IngestFormat.UEDGES) {
      pieces.add(v, seq, true, u, null, -1);
      context.getCounter(IngestCounters.NONZEROS_IN).increment(2);
    } else {
      pieces.add(v, seq, false, 0, null, -1);
      context.getCounter(IngestCounters.NONZEROS_IN).increment(1);
    }
    if (pieces.full()) {
      flushPieces(context);
    }
  }

  private void flushPieces(Context context) throws IOException, InterruptedException {
    context.getCounter(IngestCounters.COMBINED_PIECES).increment(pieces.flush(context, outKey, outValue));
  }

  private void badLine(Context context, long line, String problem) {
    BadRecordException e = new BadRecordException(file, line, problem);
    if (skipped >= skipLimit) {
      if (skipLimit > 0) {
        e = new BadRecordException(file, line, problem + " (more than --skip-bad-records " + skipLimit
            + " malformed lines)");
      }
      throw e;
    }
    skipped++;
    context.getCounter(IngestCounters.BAD_RECORDS_SKIPPED).increment(1);
    if (skipped <= logLimit) {
      LOG.warn("skipping malformed line {}", e.getMessage());
      badLog.add(false, e);
    }
  }

  @Override
  protected void cleanup(Context context) throws IOException, InterruptedException {
    if (pieces != null) {
      flushPieces(context);
    }
    badLog.flush();
    // a byte range of a large file may hold no record (e.g. inside one long line); the emptiness of such a
    // file shows in the job's ROWS_OUT instead
    if (records == 0 && skipped == 0 && wholeFile) {
      throw new BadRecordException(file, lastLine + 1, "empty input: no " + format.cliName()
          + " record in this file; expected at least one "
          + (format == IngestFormat.LIBSVM ? "'label idx:val ...' line" : "'u<TAB>v' line"));
    }
  }
}
