/**
 * The ingest step: raw training data to b random graph blocks.
 *
 * <h2>Inputs</h2>
 * {@code --input} takes comma-separated files, directories (read recursively) and globs on any Hadoop file
 * system; names starting with {@code _} or {@code .} are skipped. Files a Hadoop codec knows by extension
 * ({@code .gz}, {@code .bz2}, ...) are decompressed. Formats: {@code libsvm} ({@code label[,label] [qid:n]
 * idx:val ... [# comment]}; indices are non-negative 64-bit integers kept as written; a row may have no
 * features), {@code edges} / {@code uedges} ({@code u v [ignored columns]}, whitespace separated, {@code #} and
 * {@code %} comment lines) and {@code avro} (GraphRow container files).
 *
 * <p>Compressed text files are read whole, one mapper each. An uncompressed text file larger than the split size
 * (Hadoop's {@code max(minsize, min(maxsize, block size))}: 128 MiB on a default HDFS, 32 MiB on the local file
 * system; tune with {@code -D mapreduce.input.fileinputformat.split.maxsize=...}) is read in byte ranges by
 * parallel mappers when the job runs on a cluster (in local mode only with {@code -D
 * parsa.input.text.split=true}: on 2 cores the ranges cost more than they gain). Ids and error messages use the line number in the whole file, which a mapper starting
 * mid-file cannot know, so a map-only line-count job first counts the lines of every range with the same line
 * reader, and each range then numbers its lines from 1 + the lines of the file's earlier ranges
 * ({@link io.parsa.jobs.common.LineNumberInputFormat}): ids do not depend on the split size. The count pass reads
 * those files twice; {@code -D parsa.input.text.split=false} reads every file whole instead. {@code _stats.json}
 * records {@code inputSplits} and {@code lineCountMs}.
 *
 * <h2>Row ids (stable: the same input gives the same ids on every run)</h2>
 * <ul>
 *   <li>libsvm: {@code (file ordinal << 40) | (line - 1)}, the ordinal being the file's index (from 0) among all
 *       input files sorted by their full path, the line counting every physical line (comments and blank lines
 *       too, so an id points straight at its line). At most 2^23 files and 2^40 lines per file.
 *   <li>edge lists: the source vertex id. Every vertex in either column is a row: with {@code uedges} a line
 *       {@code u v} gives u the key v and v the key u; with {@code edges} it gives u the key v, and a vertex that
 *       never appears first is a row without keys. Keys are in input order (file, line); the raw bytes are the
 *       lines whose first column is the vertex, joined by {@code '\n'} (empty if there are none), so every input
 *       line lands in exactly one row.
 *   <li>avro: the record's id, keys, weight and raw bytes as given.
 * </ul>
 *
 * <h2>Blocks</h2>
 * block(id) = {@code unsigned(splitmix64(splitmix64(seed + φ) ^ (id · φ))) mod b}, φ = 0x9E3779B97F4A7C15
 * ({@link io.parsa.jobs.ingest.BlockPartitioner#blockOf}): random, reproducible for a seed, balanced (rows per
 * block are binomial around n/b). One reducer per block writes {@code block-00000.avro} ... {@code
 * block-(b-1).avro} (zero-padded to at least five digits, so name order is block order), each an Avro container
 * of GraphRow (snappy by default), even when empty. Default b = ceil(estimated uncompressed input bytes / 64
 * MiB), clamped to [4, 10000], compressed files counting 4x their size
 * ({@link io.parsa.jobs.ingest.IngestConfig#defaultBlocks}).
 *
 * <h2>Bad input</h2>
 * A malformed line (bad number or label, missing {@code :}, negative or non-integer index or vertex id, a
 * value overflowing 64 bits or the row-id layout), a truncated or corrupt compressed file and a file without a
 * single record fail the step with {@code file:line: what was expected} (exit code 2, no stack trace from our
 * code). {@code --skip-bad-records N} skips up to N malformed lines in total (truncated and empty files are
 * always fatal), counts them ({@link io.parsa.jobs.ingest.IngestCounters#BAD_RECORDS_SKIPPED}), logs and lists
 * the first ten per file in {@code _stats.json}, and fails if there were more than N.
 *
 * <h2>Proof that nothing was lost</h2>
 * After the job the tool checks ROWS_IN = ROWS_OUT, NONZEROS_IN = NONZEROS_OUT, LINES = RECORDS_IN +
 * COMMENT_LINES + BLANK_LINES + BAD_RECORDS_SKIPPED and RECORDS_IN = RAW_LINES_OUT (text input), for edge lists
 * (whose pieces each mapper combines per row, {@link io.parsa.jobs.ingest.EdgePieces}) that the combined pieces
 * counted are the map output records, and that the key statistics saw exactly NONZEROS_OUT key occurrences;
 * otherwise the output is discarded and the step fails.
 *
 * <h2>Statistics</h2>
 * {@code _stats.json} ({@link io.parsa.jobs.ingest.IngestStats}): rows, non-zeros, distinct keys, max and mean
 * row degree (non-zeros per row) and key degree (rows using the key), rows and non-zeros per block, block
 * imbalance, line counts, skipped lines, inputs, resolved files, format, seed, b and the rules. The key side
 * comes from a second aggregation over the written blocks ({@link io.parsa.jobs.ingest.KeyStatsJob}): a
 * MapReduce job with in-mapper combining, or, up to {@code parsa.ingest.keystats.local.max.nonzeros}
 * non-zeros, a single streaming pass in the client.
 */
package io.parsa.jobs.ingest;
