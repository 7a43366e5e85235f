package io.parsa.jobs.partitionv;

import io.parsa.jobs.mr.Mix;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.mapreduce.Partitioner;

/**
 * Sends a key to the sweeper share mix64(key) mod R: a hash, not key ranges, so every share sees a representative
 * sample of the keys and its proportional start cost |N(U_i)| / R is a fair estimate.
 */
public class SharePartitioner<V> extends Partitioner<LongWritable, V> {
  @Override
  public int getPartition(LongWritable key, V value, int numPartitions) {
    return (int) Long.remainderUnsigned(Mix.mix64(key.get()), numPartitions);
  }
}
