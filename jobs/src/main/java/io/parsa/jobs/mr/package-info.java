/**
 * Shared MapReduce plumbing of the steps partition-v, metrics, reshuffle and the baselines.
 *
 * <ul>
 *   <li>{@link io.parsa.jobs.mr.RowJoinJob}: the reduce-side join of the blocks (GraphRow, {@link
 *       io.parsa.jobs.mr.RowMapper}) with a u-assignment (UAssignment, {@link io.parsa.jobs.mr.AssignmentMapper}) on
 *       row id; {@link io.parsa.jobs.mr.RowJoin} checks each id has exactly one row and one assignment, and
 *       {@link io.parsa.jobs.mr.JoinCounters} let the driver prove it (all error counters zero, rows = assignments
 *       = joined rows).</li>
 *   <li>{@link io.parsa.jobs.mr.JoinValue}: the one tagged shuffle value (row, part, pair of parts, part set).</li>
 *   <li>{@link io.parsa.jobs.mr.PartStats}: per-part tallies written by each task as a {@code _partstats-<task>}
 *       side file in its committed output (counters would overflow the job's counter limit for large k).</li>
 *   <li>{@link io.parsa.jobs.mr.Mix}: the seeded SplitMix64 hash behind every random placement
 *       (row: mix(seed, id) mod k; key: mix(seed ^ V_SALT, key) mod k) and the row checksums.</li>
 *   <li>{@link io.parsa.jobs.mr.Jobs}: run a job, read and check counters ({@link
 *       io.parsa.jobs.mr.ConsistencyException} = exit code 1), local-mode defaults.</li>
 * </ul>
 *
 * <p>Every step writes into {@code OutputPaths.tempFor(out)} and commits by rename; its intermediate job outputs go
 * to a hidden {@code .<out>.work-<uuid>} sibling deleted at the end, success or not.
 */
package io.parsa.jobs.mr;
