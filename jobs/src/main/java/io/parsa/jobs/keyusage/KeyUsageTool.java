package io.parsa.jobs.keyusage;

import io.parsa.common.OutputPaths;
import io.parsa.common.ParsaTool;
import io.parsa.jobs.mr.ConsistencyException;
import io.parsa.jobs.mr.Jobs;
import io.parsa.jobs.mr.MrKeys;
import io.parsa.jobs.mr.RowJoinJob;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * key-usage: the blocks ⋈ u-assignment join, once, into the compact per-key dataset that partition-v and metrics
 * read ({@link KeyUsageJob}). Output: SequenceFiles (key, USAGE) {@code part-r-NNNNN}, keys hashed over the
 * reducers and sorted within each file, {@code _usage.json} and {@code _SUCCESS}; written atomically.
 */
public class KeyUsageTool extends ParsaTool {

  private static final Logger LOG = LoggerFactory.getLogger(KeyUsageTool.class);

  @Override
  protected String name() {
    return "key-usage";
  }

  @Override
  protected String description() {
    return "joins the blocks with a u-assignment once into the per-key dataset (the parts that use each key, under"
        + " the placement and under a seeded random U) that partition-v and metrics read";
  }

  @Override
  protected java.util.Set<String> requiredOptions() {
    return java.util.Set.of("blocks", "u-assignment", "output", "k");
  }

  @Override
  protected Options options() {
    return new Options()
        .addOption(opt("blocks", "DIR", "graph blocks (Avro GraphRow)"))
        .addOption(opt("u-assignment", "DIR", "u-assignment (Avro UAssignment)"))
        .addOption(opt("output", "DIR", "key-usage output directory"))
        .addOption(opt("k", "K", "number of parts"))
        .addOption(opt("seed", "N", "seed of the random U recorded beside the placed one (default "
            + MrKeys.SEED_DEFAULT + "; metrics compares against it)"))
        .addOption(opt("reducers", "R", "reducers, i.e. output files (default: one per "
            + (RowJoinJob.BYTES_PER_REDUCER_DEFAULT >> 20) + " MiB of blocks, -D " + RowJoinJob.BYTES_PER_REDUCER
            + ", and one per " + io.parsa.jobs.partitionv.PartitionVTool.KEYS_PER_SHARE_DEFAULT + " keys of ingest's"
            + " _stats.json)"))
        .addOption(opt("join-reducers", "J", "reducers of the reduce-side join, used only when the u-assignment is"
            + " not aligned with the blocks (default: as --reducers)"))
        .addOption(flag("overwrite", "replace an existing output"));
  }

  @Override
  protected int run(CommandLine cl) throws Exception {
    Path blocks = new Path(required(cl, "blocks"));
    Path uAssign = new Path(required(cl, "u-assignment"));
    Path out = new Path(required(cl, "output"));
    required(cl, "k");
    int k = intOpt(cl, "k", 0, 1);
    long seed = longOpt(cl, "seed", MrKeys.SEED_DEFAULT, Long.MIN_VALUE);
    boolean overwrite = cl.hasOption("overwrite");
    Configuration conf = getConf();
    Jobs.requireComplete(conf, blocks, "blocks");
    Jobs.requireComplete(conf, uAssign, "u-assignment");
    int r = cl.hasOption("reducers") ? intOpt(cl, "reducers", 1, 1) : KeyUsageJob.defaultReducers(conf, blocks);
    int j = intOpt(cl, "join-reducers", r, 1);
    FileSystem fs = out.getFileSystem(conf);
    OutputPaths.checkWritable(fs, out, overwrite);
    Path tmp = OutputPaths.tempFor(out);
    Path work = Jobs.workDirFor(out);
    long t0 = System.nanoTime();
    try {
      KeyUsageJob.Summary s = KeyUsageJob.run(conf, name(), KeyUsageTool.class, blocks, uAssign, k, seed, r, j, tmp,
          work);
      OutputPaths.commit(fs, tmp, out, overwrite);
      LOG.info("key-usage: {} rows, {} non-zeros, {} keys, sum_i |N(U_i)| = {} ({} under the random U), {} file(s),"
              + " {} join, in {} ms -> {}", s.rows, s.nonZeros, s.keys, s.keyPartPairs, s.keyPartPairsRandom, s.files,
          s.mapSideJoin ? "map-side" : "reduce-side", (System.nanoTime() - t0) / 1_000_000, out);
      return 0;
    } catch (ConsistencyException e) {
      System.err.println(name() + ": consistency check failed: " + e.getMessage());
      return 1;
    } finally {
      OutputPaths.discard(fs, tmp);
      OutputPaths.discard(fs, work);
    }
  }
}
