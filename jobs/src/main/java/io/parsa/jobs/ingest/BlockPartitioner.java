package io.parsa.jobs.ingest;

import io.parsa.engine.Mix64;
import org.apache.hadoop.conf.Configurable;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.Partitioner;

/**
 * Sends each row to the reducer of its block: block(id) = {@link Mix64#bucket}(seed, id, b), with one reducer
 * per block. Random, reproducible for a fixed seed, and balanced: rows per block follow a binomial
 * distribution around n/b (relative spread about sqrt(b/n)).
 */
public final class BlockPartitioner extends Partitioner<RowKey, RowPiece> implements Configurable {

  private Configuration conf;
  private long seed;

  /** The block of row {@code id} among {@code blocks} under {@code seed}; the one rule every step shares. */
  public static int blockOf(long seed, long id, int blocks) {
    return Mix64.bucket(seed, id, blocks);
  }

  @Override
  public int getPartition(RowKey key, RowPiece value, int numPartitions) {
    return blockOf(seed, key.id(), numPartitions);
  }

  @Override
  public void setConf(Configuration conf) {
    this.conf = conf;
    this.seed = conf.getLong(IngestConfig.SEED, IngestConfig.DEFAULT_SEED);
  }

  @Override
  public Configuration getConf() {
    return conf;
  }
}
