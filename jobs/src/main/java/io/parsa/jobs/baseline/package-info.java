/**
 * Baseline U placements (random, hash) as a map-only job, so the pipeline can run and be compared without
 * partition-u. {@code BaselineAssignTool --blocks DIR --output DIR --k K [--algorithm random|hash] [--seed N]
 * [--overwrite]}; output: Avro UAssignment {@code block-NNNNNN.avro}, one per block file (the block at position
 * NNNNNN in name order, as partition-u writes them) + {@code _SUCCESS}. With the same seed,
 * random equals the random U of the metrics report.
 */
package io.parsa.jobs.baseline;
