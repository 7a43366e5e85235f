package io.parsa.jobs.generate;

import io.parsa.common.OutputPaths;
import io.parsa.common.ParsaTool;
import io.parsa.common.UsageException;
import io.parsa.engine.Mix64;
import io.parsa.engine.gen.PowerLawGenerator;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Locale;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code parsa generate}: writes a synthetic power-law bipartite graph as one libsvm file, streaming row by row
 * from {@link PowerLawGenerator} (memory does not grow with the size; 10^8 non-zeros and more are fine).
 *
 * <p>Line r (0-based) is {@code label k1:1 k2:1 ...} with the row's keys ascending and 1-based; the label is
 * +1 or -1 from a seeded hash of r. A {@code .gz} or {@code .bz2} output name is compressed with Hadoop's codec.
 * The file is written under a hidden temporary name beside the output and renamed when complete. With
 * {@code --files n} the output is a directory of n files holding contiguous row ranges (the same rows, split),
 * so that ingest, which reads each text file with one mapper, can use n mappers.
 */
public class GenerateTool extends ParsaTool {

  private static final Logger LOG = LoggerFactory.getLogger(GenerateTool.class);
  private static final int BUFFER = 1 << 20;

  @Override
  protected String name() {
    return "generate";
  }

  @Override
  protected String description() {
    return "Write synthetic power-law bipartite data (rows x columns, given non-zeros) as a libsvm file.";
  }

  @Override
  protected Options options() {
    Options o = new Options();
    o.addOption(opt("rows", "n", "number of rows (examples) (required)"));
    o.addOption(opt("columns", "m", "number of columns (distinct possible keys, 1..m) (required)"));
    o.addOption(opt("nonzeros", "N", "total non-zeros (required; exact unless it exceeds rows x columns/2, as a row "
        + "holds at most columns/2 distinct keys; a row asking for more is capped and its excess spread over the "
        + "other rows)"));
    o.addOption(opt("row-exponent", "a", "power-law exponent of row degrees, > 1 (default 2.2)"));
    o.addOption(opt("column-exponent", "s", "power-law exponent of key popularity, >= 0; 0 = uniform, 1 = Zipf "
        + "(default 1.0)"));
    o.addOption(opt("clusters", "c", "number of topic-like communities (default 1: none)"));
    o.addOption(opt("locality", "p", "probability that a key comes from the row's own community, 0..1 "
        + "(default 0)"));
    o.addOption(opt("seed", "n", "random seed (default 42)"));
    o.addOption(opt("output", "file", "libsvm file to write, on any Hadoop file system; .gz/.bz2 compress "
        + "(required)"));
    o.addOption(opt("files", "n", "write a directory of n files part-00000.libsvm ... (rows split into n "
        + "contiguous ranges, so that ingest reads them with n mappers) instead of one file (default 1)"));
    o.addOption(opt("compress", "c", "with --files: none (default), gz or bz2"));
    o.addOption(flag("overwrite", "replace the output if it exists"));
    return o;
  }

  @Override
  protected int run(CommandLine cl) throws Exception {
    long rows = longOpt(cl, "rows", -1, 1);
    long columns = longOpt(cl, "columns", -1, 1);
    long nonZeros = longOpt(cl, "nonzeros", -1, 0);
    if (rows < 0 || columns < 0 || nonZeros < 0) {
      throw new UsageException("--rows, --columns and --nonzeros are required");
    }
    double rowExp = doubleOpt(cl, "row-exponent", 2.2);
    double colExp = doubleOpt(cl, "column-exponent", 1.0);
    if (!(rowExp > 1.0)) {
      throw new UsageException("--row-exponent must be greater than 1, got " + rowExp);
    }
    if (!(colExp >= 0.0)) {
      throw new UsageException("--column-exponent must be at least 0, got " + colExp);
    }
    int clusters = intOpt(cl, "clusters", 1, 1);
    double locality = doubleOpt(cl, "locality", 0.0);
    if (!(locality >= 0.0 && locality <= 1.0) || clusters > columns) {
      throw new UsageException("--locality must be in [0, 1] and --clusters at most --columns; got " + locality
          + " and " + clusters);
    }
    long seed = longOpt(cl, "seed", 42, Long.MIN_VALUE);
    boolean overwrite = cl.hasOption("overwrite");
    Configuration conf = getConf();
    Path out = new Path(required(cl, "output"));
    FileSystem fs = out.getFileSystem(conf);
    out = fs.makeQualified(out);
    OutputPaths.checkWritable(fs, out, overwrite);
    int files = intOpt(cl, "files", 1, 1);
    String compress = choiceOpt(cl, "compress", "none", "none", "gz", "bz2");
    if (files == 1 && cl.hasOption("compress")) {
      throw new UsageException("--compress goes with --files; a single output file is compressed by its "
          + "extension (.gz, .bz2)");
    }
    if (files == 1 && fs.exists(out) && fs.getFileStatus(out).isDirectory()) {
      throw new UsageException("output " + out + " is a directory; generate writes one file (or use --files)");
    }
    if (files > rows) {
      throw new UsageException("--files " + files + " is more than --rows " + rows);
    }

    long start = System.nanoTime();
    PowerLawGenerator gen = new PowerLawGenerator(rows, columns, nonZeros, rowExp, colExp, seed, clusters,
        locality);
    long[] written = new long[2];
    if (files == 1) {
      writeFile(conf, fs, out, gen, rows, seed, written);
    } else {
      writeFiles(conf, fs, out, files, compress, overwrite, gen, rows, seed, written);
    }
    double secs = (System.nanoTime() - start) / 1e9;
    LOG.info("generate: {} rows, {} non-zeros -> {}", written[0], written[1], out);
    if (written[1] < nonZeros) {
      System.err.printf(Locale.ROOT, "generate: WARNING: wrote %,d non-zeros, not the %,d asked for: %s%n",
          written[1], nonZeros, gen.maxNonZeros() < nonZeros
              ? String.format(Locale.ROOT, "a row holds at most --columns/2 = %,d distinct keys, so %,d rows hold "
                  + "at most %,d; raise --columns or --rows", gen.rowCap(), rows, gen.maxNonZeros())
              : "with --locality 1 a row draws only from its community's key range, which holds fewer keys than "
                  + "some rows ask for; lower --locality or --clusters");
    }
    System.out.printf(Locale.ROOT,
        "generate: %,d rows, %,d non-zeros, %,d columns -> %s (%.1f s, %.1f M non-zeros/s)%n",
        written[0], written[1], columns, out, secs, written[1] / secs / 1e6);
    return 0;
  }

  /** One libsvm file, written under a hidden temporary name and renamed into place. */
  private static void writeFile(Configuration conf, FileSystem fs, Path out, PowerLawGenerator gen, long rows,
      long seed, long[] written) throws IOException {
    Path tmp = new Path(out.getParent(), "." + out.getName() + ".tmp-" + java.util.UUID.randomUUID());
    CompressionCodec codec = new CompressionCodecFactory(conf).getCodec(out);
    boolean done = false;
    try {
      try (OutputStream os = open(fs, tmp, codec)) {
        LineWriter w = new LineWriter(os, seed);
        written[1] = gen.generate(w::row);
        w.flush();
        written[0] = rows;
      }
      if (fs.exists(out)) {
        fs.delete(out, true);
      }
      fs.mkdirs(out.getParent());
      if (!fs.rename(tmp, out)) {
        throw new IOException("could not rename " + tmp + " to " + out);
      }
      done = true;
    } finally {
      if (!done) {
        OutputPaths.discard(fs, tmp);
      }
    }
  }

  /** A directory of {@code files} libsvm files holding contiguous row ranges, committed with _SUCCESS. */
  private static void writeFiles(Configuration conf, FileSystem fs, Path out, int files, String compress,
      boolean overwrite, PowerLawGenerator gen, long rows, long seed, long[] written) throws IOException {
    Path tmp = OutputPaths.tempFor(out);
    String ext = ".libsvm" + (compress.equals("none") ? "" : "." + compress);
    CompressionCodec codec = compress.equals("none") ? null
        : new CompressionCodecFactory(conf).getCodec(new Path("x" + ext));
    boolean done = false;
    try {
      fs.mkdirs(tmp);
      OutputStream[] current = new OutputStream[1];
      LineWriter[] writer = new LineWriter[1];
      int[] file = {-1};
      long[] nextBoundary = {0};
      written[1] = gen.generate((row, keys, n) -> {
        while (row >= nextBoundary[0]) {
          if (current[0] != null) {
            writer[0].flush();
            current[0].close();
          }
          file[0]++;
          current[0] = open(fs, new Path(tmp, String.format(Locale.ROOT, "part-%05d%s", file[0], ext)), codec);
          writer[0] = new LineWriter(current[0], seed);
          nextBoundary[0] = file[0] + 1 == files ? Long.MAX_VALUE : rows * (file[0] + 1) / files;
        }
        writer[0].row(row, keys, n);
      });
      writer[0].flush();
      current[0].close();
      written[0] = rows;
      OutputPaths.commit(fs, tmp, out, overwrite);
      done = true;
    } finally {
      if (!done) {
        OutputPaths.discard(fs, tmp);
      }
    }
  }

  private static OutputStream open(FileSystem fs, Path p, CompressionCodec codec) throws IOException {
    OutputStream raw = fs.create(p, false);
    return new BufferedOutputStream(codec == null ? raw : codec.createOutputStream(raw), BUFFER);
  }

  /** Formats rows as libsvm lines straight into bytes (no per-row strings). */
  static final class LineWriter {
    private final OutputStream out;
    private final long seed;
    private byte[] buf = new byte[1 << 16];
    private int len;

    LineWriter(OutputStream out, long seed) {
      this.out = out;
      this.seed = seed;
    }

    void row(long row, long[] keys, int n) throws IOException {
      ensure(3 + n * 22);
      if ((Mix64.hash(seed, row) & 1) == 0) {
        buf[len++] = '+';
      } else {
        buf[len++] = '-';
      }
      buf[len++] = '1';
      for (int i = 0; i < n; i++) {
        buf[len++] = ' ';
        putLong(keys[i]);
        buf[len++] = ':';
        buf[len++] = '1';
      }
      buf[len++] = '\n';
      if (len >= (1 << 15)) {
        out.write(buf, 0, len);
        len = 0;
      }
    }

    void flush() throws IOException {
      out.write(buf, 0, len);
      len = 0;
    }

    private void ensure(int extra) throws IOException {
      if (len + extra > buf.length) {
        out.write(buf, 0, len);
        len = 0;
        if (extra > buf.length) {
          buf = new byte[extra];
        }
      }
    }

    private void putLong(long v) {
      if (v == 0) {
        buf[len++] = '0';
        return;
      }
      int start = len;
      while (v > 0) {
        buf[len++] = (byte) ('0' + v % 10);
        v /= 10;
      }
      for (int i = start, j = len - 1; i < j; i++, j--) {
        byte t = buf[i];
        buf[i] = buf[j];
        buf[j] = t;
      }
    }
  }
}
