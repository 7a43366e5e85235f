import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.parsa.avro.GraphRow;
import io.parsa.yarn.io.AssignmentFiles;
import io.parsa.yarn.io.BlockFiles;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.LongArrayList;
import java.io.BufferedReader;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * Helpers of bench/peer-u/run.
 *
 * <p>{@code PeerU import BLOCKS IDS PARTS K OUT}: a peer's partition as a u-assignment of the product. IDS holds the row
 * id of the peer's vertex i on line i (the hypergraph's numbering), PARTS the peer's part of vertex i on line i (an
 * hMetis partition file). Writes one assignment file per block, aligned with the blocks as partition-u's are; fails on
 * files of different lengths, an id given twice, a part outside [0, K), a row of the blocks without a part or a vertex
 * that is no row.
 *
 * <p>{@code PeerU figures REPORT}: the placed figures of a metrics report on one line.
 */
public final class PeerU {
  public static void main(String[] a) throws Exception {
    if (a.length == 2 && a[0].equals("figures")) {
      figures(a[1]);
    } else if (a.length == 6 && a[0].equals("import")) {
      importU(Arrays.copyOfRange(a, 1, 6));
    } else {
      System.err.println("usage: PeerU import BLOCKS IDS PARTS K OUT | PeerU figures REPORT.json");
      System.exit(2);
    }
  }

  /** M_max T_max T_sum, rows a part (min-max), non-zeros a part (min-max), the non-zeros of all rows. */
  static void figures(String report) throws Exception {
    JsonNode r = new ObjectMapper().readTree(new File(report));
    JsonNode p = r.path("placed");
    System.out.println(p.path("maxWorkingSet").asLong() + " " + p.path("maxTraffic").asLong() + " "
        + p.path("sumTraffic").asLong() + " " + p.path("minRows").asLong() + "-" + p.path("maxRows").asLong() + " "
        + p.path("minNonZeros").asLong() + "-" + p.path("maxNonZeros").asLong() + " " + r.path("nonZeros").asLong());
  }

  static void importU(String[] args) throws Exception {
    int k = Integer.parseInt(args[3]);
    Long2IntOpenHashMap part = new Long2IntOpenHashMap();
    part.defaultReturnValue(-1);
    try (BufferedReader ids = Files.newBufferedReader(Paths.get(args[1]));
         BufferedReader parts = Files.newBufferedReader(Paths.get(args[2]))) {
      int line = 0;
      for (String id = ids.readLine(); id != null; id = ids.readLine()) {
        line++;
        String p = parts.readLine();
        if (p == null) {
          throw new IllegalArgumentException(args[2] + " has " + (line - 1) + " lines, " + args[1] + " more");
        }
        int q = Integer.parseInt(p.trim());
        if (q < 0 || q >= k) {
          throw new IllegalArgumentException(args[2] + " line " + line + ": part " + q + " outside [0, " + k + ")");
        }
        if (part.put(Long.parseLong(id.trim()), q) != -1) {
          throw new IllegalArgumentException(args[1] + " line " + line + ": row id " + id + " given twice");
        }
      }
      if (parts.readLine() != null) {
        throw new IllegalArgumentException(args[2] + " has more lines than the " + line + " of " + args[1]);
      }
    }
    Path blocks = new Path(args[0]);
    Path out = new Path(args[4]);
    FileSystem fs = blocks.getFileSystem(new Configuration());
    List<Path> files = BlockFiles.list(fs, blocks);
    long rows = 0;
    fs.mkdirs(out);
    for (int b = 0; b < files.size(); b++) {
      LongArrayList ids = new LongArrayList();
      IntArrayList parts = new IntArrayList();
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
    fs.create(new Path(out, "_SUCCESS")).close();
    System.out.println(rows + " rows in " + files.size() + " assignment files");
  }
}
