package io.parsa.yarn;

import com.fasterxml.jackson.databind.JsonNode;
import io.parsa.avro.GraphRow;
import io.parsa.common.JsonFiles;
import io.parsa.engine.gen.PowerLawGenerator;
import io.parsa.yarn.client.PartitionUTool;
import java.io.File;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileWriter;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.ToolRunner;

/**
 * Benchmark of partition-u in embedded mode: generates a power-law graph into GraphRow blocks (rows dealt
 * round-robin into blocks, i.e. a random-like split), then runs partition-u with 1 and with 2 workers.
 *
 * <p>Usage: {@code PartitionUBench DIR ROWS COLUMNS NONZEROS BLOCKS K [workers...]}
 */
public final class PartitionUBench {

  private PartitionUBench() {}

  public static void main(String[] args) throws Exception {
    Path dir = new Path(new File(args[0]).getAbsoluteFile().toURI());
    long rows = Long.parseLong(args[1]);
    long cols = Long.parseLong(args[2]);
    long nnz = Long.parseLong(args[3]);
    int blocks = Integer.parseInt(args[4]);
    int k = Integer.parseInt(args[5]);
    List<Integer> workers = new ArrayList<>();
    for (int i = 6; i < args.length; i++) {
      workers.add(Integer.parseInt(args[i]));
    }
    Configuration conf = new Configuration();
    FileSystem fs = FileSystem.getLocal(conf);
    Path blocksDir = new Path(dir, "blocks");
    if (!fs.exists(new Path(blocksDir, "_SUCCESS"))) {
      long t0 = System.currentTimeMillis();
      fs.mkdirs(blocksDir);
      @SuppressWarnings("unchecked")
      DataFileWriter<GraphRow>[] w = new DataFileWriter[blocks];
      for (int b = 0; b < blocks; b++) {
        w[b] = new DataFileWriter<>(new SpecificDatumWriter<>(GraphRow.class));
        w[b].setCodec(CodecFactory.deflateCodec(1));
        w[b].create(GraphRow.getClassSchema(), fs.create(new Path(blocksDir, String.format("block-%05d.avro", b))));
      }
      GraphRow row = new GraphRow();
      ByteBuffer empty = ByteBuffer.allocate(0);
      long written = new PowerLawGenerator(rows, cols, nnz, 2.5, 1.0, 42).generate((r, keys, n) -> {
        List<Long> ks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          ks.add(keys[i]);
        }
        row.setId(r);
        row.setKeys(ks);
        row.setWeight(null);
        row.setRaw(empty);
        w[(int) Long.remainderUnsigned(io.parsa.yarn.rpc.KeySharding.mix(r), blocks)].append(row);
      });
      for (DataFileWriter<GraphRow> x : w) {
        x.close();
      }
      fs.create(new Path(blocksDir, "_SUCCESS")).close();
      System.out.printf("generated %d rows, %d non-zeros into %d blocks in %d ms%n", rows, written, blocks,
          System.currentTimeMillis() - t0);
    }
    for (int wk : workers) {
      Path out = new Path(dir, "out-w" + wk);
      com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
          java.lang.management.ManagementFactory.getOperatingSystemMXBean();
      long cpu0 = os.getProcessCpuTime();
      long t0 = System.currentTimeMillis();
      List<String> a = new ArrayList<>(List.of("--blocks", blocksDir.toString(), "--output", out.toString(), "--k",
          Integer.toString(k), "--workers", Integer.toString(wk), "--servers", "1", "--mode", "embedded",
          "--overwrite"));
      String extra = System.getProperty("bench.extra", "").trim();
      if (!extra.isEmpty()) {
        a.addAll(List.of(extra.split("\\s+")));
      }
      int rc = ToolRunner.run(conf, new PartitionUTool(), a.toArray(new String[0]));
      long wall = System.currentTimeMillis() - t0;
      long cpuMs = (os.getProcessCpuTime() - cpu0) / 1_000_000;
      double load = os.getSystemLoadAverage();
      if (rc != 0) {
        throw new IllegalStateException("partition-u failed with " + rc);
      }
      JsonNode st = JsonFiles.read(fs, new Path(out, "_stats.json"), JsonNode.class);
      System.out.printf("RESULT extra=[%s] workers=%d wall=%d ms stage1=%d ms dump=%d ms cpu=%d ms load=%.1f rows=%d nnz=%d max|S_i|=%d%n",
          extra, wk, wall, st.get("timings").get("stage1Ms").asLong(), st.get("timings").get("dumpMs").asLong(),
          cpuMs, load, st.get("rows").asLong(), st.path("nonZeros").asLong(-1), st.get("neighborSetMax").asLong());
      System.out.flush();
    }
  }
}
