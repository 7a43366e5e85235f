import io.parsa.avro.GraphRow;
import io.parsa.yarn.io.AssignmentFiles;
import io.parsa.yarn.io.BlockFiles;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import java.io.BufferedReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/**
 * Helpers of bench/peer-u/run. {@code PeerU import BLOCKS IDS PARTS K OUT}: a peer's partition as a u-assignment of
 * the product. IDS holds the row id of
 * the peer's vertex i on line i (the hypergraph's numbering), PARTS the peer's part of vertex i on line i (hMetis
 * partition file). Writes one assignment file per block, aligned with the blocks, as partition-u does; fails on an id
 * given twice, a part outside [0, K), a row of the blocks without a part or a vertex that is no row.
 */
public final class PeerU {
  public static void main(String[] a) throws Exception {
    if (a.length == 2 && a[0].equals("figures")) {
      figures(a[1]);
    } else if (a.length == 6 && a[0].equals("import")) {
      importU(java.util.Arrays.copyOfRange(a, 1, 6));
    } else {
      System.err.println("usage: PeerU import BLOCKS IDS PARTS K OUT | PeerU figures REPORT.json");
      System.exit(2);
    }
  }

  /**
   * {@code PeerU figures REPORT}: the placed figures of a metrics report on one line: M_max T_max T_sum, rows a part
   * (min-max), non-zeros a part (min-max), the non-zeros of all rows.
   */
  static void figures(String report) throws Exception {
    com.fasterxml.jackson.databind.JsonNode r = new com.fasterxml.jackson.databind.ObjectMapper()
        .readTree(new java.io.File(report));
    com.fasterxml.jackson.databind.JsonNode p = r.path("placed");
    System.out.println(p.path("maxWorkingSet").asLong() + " " + p.path("maxTraffic").asLong() + " "
        + p.path("sumTraffic").asLong() + " " + p.path("minRows").asLong() + "-" + p.path("maxRows").asLong() + " "
        + p.path("minNonZeros").asLong() + "-" + p.path("maxNonZeros").asLong() + " " + r.path("nonZeros").asLong());
  }

  static void importU(String[] args) throws Exception {
    int k = Integer.parseInt(args[3]);
    Long2IntOpenHashMap part = new Long2IntOpenHashMap();
    part.defaultReturnValue(-1);
    try (BufferedReader ids = Files.newBufferedReader(Path.of(args[1]));
         BufferedReader parts = Files.newBufferedReader(Path.of(args[2]))) {
      int line = 0;
      for (String id = ids.readLine(); id != null; id = ids.readLine()) {
        line++;
        String p = parts.readLine();
        if (p == null) {
          throw new IllegalArgumentException(args[2] + ": " + (line - 1) + " lines, but " + args[1] + " has more");
        }
        int q = Integer.parseInt(p.trim());
        if (q < 0 || q >= k) {
          throw new IllegalArgumentException(args[2] + " line " + line + ": part " + q + " outside [0, " + k + ")");
        }
        if (part.put(Long.parseLong(id.trim()), q) != -1) {
          throw new IllegalArgumentException(args[1] + " line " + line + ": row id " + id + " given twice");
        }
      }
    }
    Configuration conf = new Configuration();
    org.apache.hadoop.fs.Path blocks = new org.apache.hadoop.fs.Path(args[0]);
    org.apache.hadoop.fs.Path out = new org.apache.hadoop.fs.Path(args[4]);
    FileSystem fs = blocks.getFileSystem(conf);
    List<org.apache.hadoop.fs.Path> files = BlockFiles.list(fs, blocks);
    long rows = 0;
    fs.mkdirs(out);
    for (int b = 0; b < files.size(); b++) {
      it.unimi.dsi.fastutil.longs.LongArrayList ids = new it.unimi.dsi.fastutil.longs.LongArrayList();
      it.unimi.dsi.fastutil.ints.IntArrayList parts = new it.unimi.dsi.fastutil.ints.IntArrayList();
      try (DataFileStream<GraphRow> in = new DataFileStream<>(fs.open(files.get(b)),
          new SpecificDatumReader<>(GraphRow.class))) {
        for (GraphRow r : in) {
          int q = part.remove(r.getId());
          if (q < 0) {
            throw new IllegalArgumentException(files.get(b) + ": row " + r.getId() + " has no part in " + args[1]);
          }
          ids.add(r.getId());
          parts.add(q);
        }
      }
      AssignmentFiles.write(fs, out, b, 0, ids.toLongArray(), parts.toIntArray());
      rows += ids.size();
    }
    if (!part.isEmpty()) {
      throw new IllegalArgumentException(part.size() + " ids of " + args[1] + " are no rows of " + blocks
          + " (e.g. " + part.keySet().iterator().nextLong() + ")");
    }
    fs.create(new org.apache.hadoop.fs.Path(out, "_SUCCESS")).close();
    System.out.println(rows + " rows in " + files.size() + " assignment files");
  }
}
