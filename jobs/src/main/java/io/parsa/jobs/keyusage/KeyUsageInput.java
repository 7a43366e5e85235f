package io.parsa.jobs.keyusage;

import io.parsa.common.UsageException;
import io.parsa.jobs.mr.Jobs;
import org.apache.commons.cli.CommandLine;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * The key usage a step reads (partition-v, metrics): either a complete key-usage directory ({@code --key-usage}) or
 * blocks and a u-assignment ({@code --blocks}, {@code --u-assignment}) from which {@link #build} makes one in the
 * step's work directory. Checked before any job runs.
 */
public final class KeyUsageInput {
  private final Path blocks;
  private final Path uAssignment;
  private final int k;
  private final int joinReducers;
  private Path dir;
  private KeyUsageJob.Summary summary;

  private KeyUsageInput(Path dir, KeyUsageJob.Summary summary, Path blocks, Path uAssignment, int k,
      int joinReducers) {
    this.dir = dir;
    this.summary = summary;
    this.blocks = blocks;
    this.uAssignment = uAssignment;
    this.k = k;
    this.joinReducers = joinReducers;
  }

  /** From the options {@code --key-usage}, or {@code --blocks} + {@code --u-assignment} [+ {@code --join-reducers}]. */
  public static KeyUsageInput of(Configuration conf, CommandLine cl, int k) throws java.io.IOException {
    if (cl.hasOption("key-usage")) {
      if (cl.hasOption("blocks") || cl.hasOption("u-assignment")) {
        throw new UsageException("give --key-usage, or --blocks and --u-assignment, not both");
      }
      Path dir = new Path(cl.getOptionValue("key-usage"));
      Jobs.requireComplete(conf, dir, "key usage");
      KeyUsageJob.Summary s = KeyUsageJob.read(dir.getFileSystem(conf), dir);
      if (s.k != k) {
        throw new UsageException("--k " + k + " but the key usage " + dir + " was computed for k = " + s.k);
      }
      return new KeyUsageInput(dir, s, null, null, k, 0);
    }
    if (!cl.hasOption("blocks") || !cl.hasOption("u-assignment")) {
      throw new UsageException("missing required option --key-usage, or --blocks and --u-assignment");
    }
    Path blocks = new Path(cl.getOptionValue("blocks"));
    Path u = new Path(cl.getOptionValue("u-assignment"));
    Jobs.requireComplete(conf, blocks, "blocks");
    Jobs.requireComplete(conf, u, "u-assignment");
    int j;
    if (cl.hasOption("join-reducers")) {
      try {
        j = Integer.parseInt(cl.getOptionValue("join-reducers").trim());
      } catch (NumberFormatException e) {
        throw new UsageException("--join-reducers: expected an integer, got '" + cl.getOptionValue("join-reducers")
            + "'");
      }
      if (j < 1) {
        throw new UsageException("--join-reducers must be at least 1, got " + j);
      }
    } else {
      j = KeyUsageJob.defaultReducers(conf, blocks);
    }
    return new KeyUsageInput(null, null, blocks, u, k, j);
  }

  /** Whether the dataset was given (not built from blocks). */
  public boolean given() {
    return blocks == null;
  }

  /**
   * Builds the dataset into {@code work}/usage with the random U of {@code seed}, unless it was given. A given
   * dataset keeps its own seed ({@link #summary()}).
   */
  public void build(Configuration conf, String step, Class<?> tool, Path work, long seed) throws Exception {
    if (given()) {
      return;
    }
    dir = new Path(work, "usage");
    summary = KeyUsageJob.run(conf, step, tool, blocks, uAssignment, k, seed, joinReducers, joinReducers, dir,
        work);
  }

  public Path dir() {
    return dir;
  }

  public KeyUsageJob.Summary summary() {
    return summary;
  }
}
