/**
 * reshuffle: k shards {@code part-00000 ... part-(k-1)}, shard i = the rows of U_i in row id order, written byte for
 * byte from GraphRow.raw, renumbered ({@link io.parsa.jobs.reshuffle.RowRewriter}), or as Avro GraphRow. See
 * {@link io.parsa.jobs.reshuffle.ReshuffleTool} for the counters that prove nothing was lost or duplicated.
 */
package io.parsa.jobs.reshuffle;
