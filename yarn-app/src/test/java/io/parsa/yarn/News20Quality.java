package io.parsa.yarn;

import io.parsa.yarn.client.PartitionUTool;
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.ToolRunner;

/** Repeated embedded runs on news20 against the sequential engine: {@code News20Quality DIR BLOCKS K RUNS [extra args]}. */
public final class News20Quality {
  private News20Quality() {}

  public static void main(String[] args) throws Exception {
    Path dir = new Path(new File(args[0]).getAbsoluteFile().toURI());
    int nBlocks = Integer.parseInt(args[1]);
    int k = Integer.parseInt(args[2]);
    int runs = Integer.parseInt(args[3]);
    Configuration conf = new Configuration();
    FileSystem fs = FileSystem.getLocal(conf);
    Path blocks = new Path(dir, "blocks-" + nBlocks);
    if (!fs.exists(new Path(blocks, "_SUCCESS"))) {
      File data = new File(System.getProperty("parsa.datasets.dir", "../shared/datasets"), "news20.libsvm.gz");
      TestBlocks.write(fs, blocks, TestBlocks.readLibsvm(data, Integer.MAX_VALUE), nBlocks, 42);
    }
    long ref = SequentialReference.mMax(fs, blocks, k);
    for (int r = 0; r < runs; r++) {
      List<String> a = new ArrayList<>(List.of("--blocks", blocks.toString(), "--output", new Path(dir, "out").toString(),
          "--k", Integer.toString(k), "--workers", System.getProperty("workers", "2"), "--mode", "embedded", "--overwrite"));
      for (int i = 4; i < args.length; i++) {
        a.add(args[i]);
      }
      if (ToolRunner.run(conf, new PartitionUTool(), a.toArray(new String[0])) != 0) {
        throw new IllegalStateException("failed");
      }
      ExactPlacement exact = ExactPlacement.of(fs, blocks, new Path(new Path(dir, "out"), "u-assignment"), k);
      long m = exact.mMax();
      List<long[]> sizes = new ArrayList<>();
      for (int i = 0; i < k; i++) {
        sizes.add(new long[] {exact.workingSetSizes[i], i});
      }
      sizes.sort((x, y) -> Long.compare(y[0], x[0]));
      System.out.printf("QUALITY blocks=%d k=%d extra=%s ref=%d mMax=%d largest parts %d:%d %d:%d change=%+.2f%%%n",
          nBlocks, k, a.subList(11, a.size()), ref, m, sizes.get(0)[1], sizes.get(0)[0], sizes.get(1)[1],
          sizes.get(1)[0], 100.0 * (m - ref) / ref);
      System.out.flush();
    }
  }
}
