/**
 * partition-v: Algorithm 2 of Parsa (section 3.2) as MapReduce jobs: join, key usage, sweep in R shares, optional
 * renumbering. See {@link io.parsa.jobs.partitionv.PartitionVTool} for the jobs and
 * {@link io.parsa.jobs.partitionv.Algorithm2} for the sweep.
 *
 * <p>Scaling beyond one reducer: keys are hashed (SplitMix64) to R shares; the key-usage reducer r writes share r
 * sorted by key; one map task per share (files never split) sweeps it against its own cost array started at
 * |N(U_i)| / R. Each sweeper sees about 1/R of every part's keys, so balancing its 1/R share of the cost balances
 * the total; the shares' integer cost updates are summed by the driver into the exact T_i it logs. R = 1 is the
 * paper's single sweep in ascending key order.
 */
package io.parsa.jobs.partitionv;
