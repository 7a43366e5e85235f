package io.parsa.jobs.reshuffle;

import org.apache.hadoop.mapreduce.Partitioner;

/** Sends (part, id) to reducer {@code part}: reducer i writes shard i. */
public class PartPartitioner<V> extends Partitioner<PartRowKey, V> {
  @Override
  public int getPartition(PartRowKey key, V value, int numPartitions) {
    if (key.part() < 0 || key.part() >= numPartitions) {
      throw new IllegalStateException("part " + key.part() + " outside [0, " + numPartitions + ")");
    }
    return key.part();
  }
}
