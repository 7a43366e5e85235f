package io.parsa.yarn;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.parsa.common.JsonFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * The complete description of one partition-u run, written by the client and read by the master, workers and
 * servers (as JSON: staged on the file system for the master, sent over RPC to the containers). All paths are
 * fully qualified so every container resolves them against the same file system.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public final class JobSpec {
  /** Number of parts k. */
  public int k;
  /** Number of worker containers (threads in embedded mode). */
  public int workers = 1;
  /** Number of neighbor-set servers (shards). */
  public int servers = 1;
  /** Maximal delay τ in blocks: before pulling block t a worker waits for its pushes of blocks ≤ t-τ-1; -1 = unbounded. */
  public int maxDelay = -1;
  /**
   * Stage-1 blocks per wave: a block pulls the neighbor sets of the earlier waves exactly, so the run does not
   * depend on timing (see BlockScheduler); 0 = no waves, the paper's asynchronous scheme bounded by
   * {@link #maxDelay}.
   */
  public int waveWidth;
  /** Number of blocks partitioned by one worker in stage 0 (global initialisation); 0 = none. */
  public int initBlocks;
  /** Individual initialisation: warm-up blocks per worker whose results are dropped; 0 = none. */
  public int warmupBlocks;
  /** Random seed (block sampling for initialisation, engine tie breaking). */
  public long seed = 1;
  /** Balance total row weight instead of row counts. */
  public boolean weighted;
  /** The blocks, one Avro GraphRow file each, in name order. */
  public List<String> blockPaths = new ArrayList<>();
  /** Final output directory (committed by the master on success). */
  public String output;
  /** Hidden temporary sibling of {@link #output} that the run writes into. */
  public String outputTmp;
  /** Replace an existing output. */
  public boolean overwrite;
  /** Earlier neighbor-sets directory to start from (incremental partitioning), or null. */
  public String initialNeighborSets;
  /** Directory for server checkpoints (inside the staging or temp directory). */
  public String checkpointDir;
  /** The run fails after this many worker container failures (aborted/preempted/lost ones excluded). */
  public int maxWorkerFailures = 3;
  /** The run fails after this many server restarts. */
  public int maxServerRestarts = 3;
  /**
   * Rows of each block, in block order, from ingest's {@code _stats.json} in the blocks directory; null when
   * unknown (the master then starts each block from the loads at its reservation; see BlockScheduler).
   */
  public List<Long> rowsPerBlock;
  /** Non-zeros of each block, in block order, from the same file; null when unknown. */
  public List<Long> nonZerosPerBlock;
  /**
   * Σ of the row weights of each block, in block order, from the same file; null when unknown (the weighted
   * master then starts each block from the loads at its reservation).
   */
  public List<Double> weightPerBlock;
  /** Non-zeros of all blocks from the same file; -1 when unknown. */
  public long nonZeros = -1;
  /** Where {@link #rowsPerBlock} came from, or why it is absent (reported in partition-u's {@code _stats.json}). */
  public String rowCountsSource;
  /** parsa.* configuration entries forwarded to every container. */
  public Map<String, String> conf = new LinkedHashMap<>();

  /** Number of 64-bit words per key of a neighbor-set bitset. */
  public int wordsPerKey() {
    return (k + 63) >>> 6;
  }

  /** A Hadoop configuration with the forwarded parsa.* entries applied on top of {@code base}. */
  public Configuration applyTo(Configuration base) {
    Configuration c = new Configuration(base);
    conf.forEach(c::set);
    return c;
  }

  /** Copies every {@code parsa.*} entry of {@code c} into {@link #conf}. */
  public void captureParsaConf(Configuration c) {
    for (Map.Entry<String, String> e : c.getPropsWithPrefix("parsa.").entrySet()) {
      conf.put("parsa." + e.getKey(), e.getValue());
    }
  }

  public String toJson() {
    try {
      return JsonFiles.MAPPER.writeValueAsString(this);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static JobSpec fromJson(String json) {
    try {
      return JsonFiles.MAPPER.readValue(json, JobSpec.class);
    } catch (IOException e) {
      throw new UncheckedIOException("bad job description: " + e.getMessage(), e);
    }
  }
}
