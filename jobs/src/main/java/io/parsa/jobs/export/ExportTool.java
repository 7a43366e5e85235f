package io.parsa.jobs.export;

import io.parsa.common.OutputPaths;
import io.parsa.common.ParsaTool;
import io.parsa.common.UsageException;
import io.parsa.jobs.common.AvroFiles;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import org.apache.avro.Schema;
import org.apache.avro.file.DataFileStream;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * {@code parsa export}: prints any Avro output of the suite (blocks, u-assignment, neighbor-sets, v-assignment,
 * Avro shards; a file, a directory of {@code *.avro} or a glob) as TSV with a header line of field names, or as
 * JSON lines, to stdout or to a file. Files are read in name order (block order for a blocks directory).
 * See {@link RecordFormatter} for how each Avro type is written.
 */
public class ExportTool extends ParsaTool {

  @Override
  protected String name() {
    return "export";
  }

  @Override
  protected String description() {
    return "Print Avro outputs of the suite (a file or a directory of *.avro) as TSV or JSON lines.";
  }

  @Override
  protected Options options() {
    Options o = new Options();
    o.addOption(opt("input", "path", "an Avro file, a directory of *.avro files, or a glob (required)"));
    o.addOption(opt("format", "fmt", "tsv (default: header line of field names, then one record a line) or "
        + "json (one JSON object a line)"));
    o.addOption(opt("output", "file", "file to write (default: standard output)"));
    o.addOption(opt("limit", "n", "stop after n records (default: all)"));
    o.addOption(flag("overwrite", "replace the output file if it exists"));
    return o;
  }

  @Override
  protected int run(CommandLine cl) throws Exception {
    Configuration conf = getConf();
    List<Path> files = AvroFiles.list(conf, new Path(required(cl, "input")));
    if (files.isEmpty()) {
      throw new UsageException("input " + cl.getOptionValue("input") + " holds no .avro file");
    }
    boolean json = choiceOpt(cl, "format", "tsv", "tsv", "json").equals("json");
    long limit = longOpt(cl, "limit", Long.MAX_VALUE, 0);
    String output = cl.getOptionValue("output");
    if (output == null) {
      Writer w = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
      long n = export(conf, files, json, limit, w);
      w.flush();
      System.err.printf(Locale.ROOT, "export: %,d records from %d file(s)%n", n, files.size());
      return 0;
    }
    Path out = new Path(output);
    FileSystem fs = out.getFileSystem(conf);
    out = fs.makeQualified(out);
    boolean overwrite = cl.hasOption("overwrite");
    OutputPaths.checkWritable(fs, out, overwrite);
    Path tmp = new Path(out.getParent(), "." + out.getName() + ".tmp-" + java.util.UUID.randomUUID());
    boolean done = false;
    try {
      long n;
      try (OutputStream os = fs.create(tmp, false);
           Writer w = new BufferedWriter(new OutputStreamWriter(os, StandardCharsets.UTF_8), 1 << 16)) {
        n = export(conf, files, json, limit, w);
      }
      if (fs.exists(out)) {
        fs.delete(out, true);
      }
      if (!fs.rename(tmp, out)) {
        throw new IOException("could not rename " + tmp + " to " + out);
      }
      done = true;
      System.err.printf(Locale.ROOT, "export: %,d records from %d file(s) -> %s%n", n, files.size(), out);
      return 0;
    } finally {
      if (!done) {
        OutputPaths.discard(fs, tmp);
      }
    }
  }

  /** Writes the records of {@code files} (at most {@code limit}); returns how many were written. */
  static long export(Configuration conf, List<Path> files, boolean json, long limit, Writer w) throws IOException {
    long n = 0;
    Schema first = null;
    RecordFormatter fmt = null;
    for (Path p : files) {
      if (n >= limit) {
        break;
      }
      try (DataFileStream<Object> in = AvroFiles.openGeneric(conf, p)) {
        Schema schema = in.getSchema();
        if (first == null) {
          first = schema;
          fmt = new RecordFormatter(schema);
          if (!json) {
            w.write(fmt.tsvHeader());
            w.write('\n');
          }
        } else if (!schema.equals(first)) {
          throw new UsageException(p + " holds " + schema.getFullName() + " records, " + files.get(0) + " holds "
              + first.getFullName() + "; export one kind of output at a time");
        }
        while (in.hasNext() && n < limit) {
          Object rec = in.next();
          w.write(json ? fmt.json(rec) : fmt.tsv(rec));
          w.write('\n');
          n++;
        }
      }
    }
    return n;
  }
}
