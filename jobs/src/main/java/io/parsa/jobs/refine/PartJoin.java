package io.parsa.jobs.refine;

import io.parsa.jobs.ingest.RowKey;
import java.io.IOException;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.mapreduce.Mapper;
import org.apache.hadoop.mapreduce.Partitioner;
import org.apache.hadoop.mapreduce.Reducer;

/**
 * Distributed multilevel start, on the way down: the reduce-side join of a level's placement (cluster → part) with the
 * level's members (cluster → row, or cluster → member cluster of the level below), for placements too big to be read
 * whole by every map task ({@link #MAP_JOIN_BYTES}; below it {@link ProjectMapper} and {@link DescendMapper} read the
 * placement whole). Both sides are shuffled by cluster; within a cluster the placement sorts first (a secondary sort on
 * ingest's {@link RowKey}: the cluster as its id, the side as its sequence number), so a reducer holds one part at a
 * time whatever the cluster's size. Members whose cluster has no part are counted as CLUSTER_WITHOUT_PART, a cluster
 * placed twice as DUPLICATE_PLACEMENT (errors).
 */
public final class PartJoin {

  /**
   * Largest placement (bytes, about {@link #BYTES_PER_ENTRY} per cluster) that the map tasks read whole (map-side join);
   * a larger one is joined in the shuffle. Default: a quarter of a map task's heap.
   */
  public static final String MAP_JOIN_BYTES = "parsa.refine.multilevel.mapjoin.bytes";
  /** Heap of one cluster's entry in the map-side join's hash map while it grows. */
  static final long BYTES_PER_ENTRY = 32;

  private static final long PLACEMENT = 0;
  private static final long MEMBER = 1;

  private PartJoin() {}

  /** Whether a placement of {@code clusters} entries is read whole by the map tasks under {@code conf}. */
  static boolean mapSide(org.apache.hadoop.conf.Configuration conf, long clusters) {
    long limit = conf.getLong(MAP_JOIN_BYTES, io.parsa.jobs.mr.Jobs.mapperHeapBytes(conf) / 4);
    return clusters * BYTES_PER_ENTRY <= limit;
  }

  /**
   * The join's shuffle in {@code job}: {@link RowKey} sorted on (cluster, side) and grouped on the cluster, both sides
   * of a cluster routed to the same reducer.
   */
  static void configureShuffle(org.apache.hadoop.mapreduce.Job job) {
    job.setMapOutputKeyClass(RowKey.class);
    job.setMapOutputValueClass(Move.class);
    job.setSortComparatorClass(RowKey.SortComparator.class);
    job.setGroupingComparatorClass(RowKey.GroupComparator.class);
    job.setPartitionerClass(Route.class);
  }

  /** Both sides of a cluster to the same reducer. */
  public static final class Route extends Partitioner<RowKey, Move> {
    @Override
    public int getPartition(RowKey key, Move value, int numPartitions) {
      return (int) ((io.parsa.jobs.mr.Mix.mix64(key.id()) & Long.MAX_VALUE) % numPartitions);
    }
  }

  /** The placement side: cluster → part, carried as a move whose {@code to} is the part. */
  public static class PlacementMapper extends Mapper<LongWritable, IntWritable, RowKey, Move> {
    private final RowKey key = new RowKey();
    private final Move out = new Move();

    @Override
    protected void map(LongWritable cluster, IntWritable part, Context context)
        throws IOException, InterruptedException {
      context.write(key.set(cluster.get(), PLACEMENT), out.set(cluster.get(), -1, -1, part.get()));
    }
  }

  /** The first level's rows ({@link CoarsenReducer#MEMBERS}: cluster → the row's move record). */
  public static class RowMapper extends Mapper<LongWritable, Move, RowKey, Move> {
    private final RowKey key = new RowKey();

    @Override
    protected void map(LongWritable cluster, Move row, Context context) throws IOException, InterruptedException {
      context.write(key.set(cluster.get(), MEMBER), row);
    }
  }

  /** A further level's members ({@link CoarsenClustersReducer}'s MEMBERS: cluster → member cluster id). */
  public static class MemberMapper extends Mapper<LongWritable, LongWritable, RowKey, Move> {
    private final RowKey key = new RowKey();
    private final Move out = new Move();

    @Override
    protected void map(LongWritable cluster, LongWritable member, Context context)
        throws IOException, InterruptedException {
      context.write(key.set(cluster.get(), MEMBER), out.set(member.get(), -1, -1, -1));
    }
  }

  /** One cluster's part and members: every member passed to {@link #member} with the part. */
  abstract static class JoinReducer<K, V> extends Reducer<RowKey, Move, K, V> {
    @Override
    protected void reduce(RowKey key, Iterable<Move> values, Context context) throws IOException, InterruptedException {
      int part = -1;
      for (Move v : values) {
        // the key object follows the values: its side is the current value's
        if (key.seq() == PLACEMENT) {
          if (part >= 0) {
            context.getCounter(MrRefinement.Counters.DUPLICATE_PLACEMENT).increment(1);
          }
          part = v.to();
          context.getCounter(MrRefinement.Counters.PLACEMENTS_JOINED).increment(1);
        } else if (part < 0) {
          context.getCounter(MrRefinement.Counters.CLUSTER_WITHOUT_PART).increment(1);
        } else {
          member(v, part, context);
        }
      }
    }

    abstract void member(Move member, int part, Context context) throws IOException, InterruptedException;
  }

  /**
   * Projection: every row with its cluster's part, written as the move to that part keyed by block (for the apply
   * job) unless the row is there already; the reduce-side twin of {@link ProjectMapper}.
   */
  public static class ProjectReducer extends JoinReducer<IntWritable, Move> {
    private final IntWritable blockKey = new IntWritable();
    private final Move out = new Move();

    @Override
    void member(Move row, int part, Context context) throws IOException, InterruptedException {
      ProjectMapper.project(row, part, context, blockKey, out);
    }
  }

  /**
   * One level down: every member cluster with its cluster's part, in the placement job's format; the reduce-side twin
   * of {@link DescendMapper}.
   */
  public static class DescendReducer extends JoinReducer<LongWritable, IntWritable> {
    private final LongWritable id = new LongWritable();
    private final IntWritable out = new IntWritable();

    @Override
    void member(Move member, int part, Context context) throws IOException, InterruptedException {
      DescendMapper.descend(member.row(), part, context, id, out);
    }
  }
}
