/*
 * compact/compact_passthrough.h — compaction without re-encoding: whole
 * Parquet row groups (every column chunk, compressed bytes as they are)
 * copied from input files into new output files — or, at page level,
 * output row groups assembled from several inputs' pages (below).  Whole
 * row groups behind the option `compaction.parquet.row-group-passthrough`
 * (off by default); only row groups of at least
 * `compaction.parquet.row-group-passthrough.min-size` compressed bytes
 * ("already large enough") qualify.
 *
 * An input file is copied when: output format Parquet; the file is Parquet
 * (magic "PAR1" at both ends), written with the task's schema (same schema
 * id, no _WRITE_COLS) and its Parquet schema equals the one paimon-c writes
 * for that row type element by element (field ids may be absent); every column chunk uses the task's
 * compression codec; every row group is large enough and holds at most
 * target-file-row-num rows; the file has no deletion vector.  Otherwise the
 * executor decodes and rewrites it as usual (compact_writer.h).
 *
 * Output file: "PAR1", the copied column chunks, FileMetaData (version,
 * schema and key/value metadata of the first input, row groups with offsets
 * moved to their new place; column/offset indexes and bloom filters are
 * dropped), footer length, "PAR1".  Rolling: a row group that would push the
 * file past target-file-row-num starts a new file; after a row group the
 * file is closed once it reached target-file-size.  Statistics of the
 * DataFileMeta: the chunks' footer statistics (min_value/max_value, PLAIN
 * bytes; null counts) merged per top-level field in the field type's order
 * and converted like the writer's (table/write_stats.h); a chunk without
 * them makes min/max (or the whole column) unknown.  Sequence numbers
 * continue from the executor's counter; FileSource COMPACT.  File indexes
 * (file-index.*) are built as for rewritten outputs, from the indexed
 * columns alone, decoded from each input.
 *
 * Trade-off: no decompression or encoding at all, but row groups and
 * dictionaries stay as small as the inputs' (one row group per input row
 * group), so outputs can be larger and read slightly slower than a rewrite.
 *
 * Page level (`compaction.parquet.page-passthrough`, paimon-c's own key,
 * default true; compact_page_passthrough.h): a file that qualifies as above
 * except for the row-group size, of a table without nested fields, joins
 * the pending output row group: its plain chunks are copied page by page,
 * dictionary and file-indexed chunks (and the columns the sample marks)
 * re-encoded; an output row group is written when the next input does not
 * fit it, at parquet.block.size (capped by the task's row-group limit),
 * before target-file-row-num would be passed, and when the file reaches
 * target-file-size.  Rows of inputs that are not copied (deletion vectors,
 * another schema, _WRITE_COLS, another codec) come in decoded through
 * pm_pt_write and make row groups of their own in the same output.  Output
 * files then also carry page indexes (all ColumnIndexes, then all
 * OffsetIndexes, before the footer) and created_by "paimon-c compaction
 * (passthrough)".  The zstd level of an input's pages cannot be told from
 * a Parquet file: pages of the task's codec are copied whatever level wrote
 * them.
 */
#ifndef PM_COMPACT_PASSTHROUGH_H
#define PM_COMPACT_PASSTHROUGH_H

#include <stdbool.h>
#include <stdint.h>

#include "compact/compact_writer.h"
#include "io/fileio.h"
#include "meta/data_file_meta.h"

typedef struct pm_pt_writer pm_pt_writer;

/* min_row_group_size: INT64_MAX = no whole row groups; pages: page-level
 * passthrough of the files whose row groups are smaller (ignored when the
 * schema has nested fields); reencode_ratio: the sampling threshold
 * (compact_page_passthrough.h). */
pm_error *pm_pt_writer_new(pm_pt_writer **out, pm_fileio *fio, const pm_compact_writer_options *o,
                           int64_t min_row_group_size, bool pages, double reencode_ratio);
/* An input file checked for passthrough (footer read, file open). */
typedef struct pm_pt_input pm_pt_input;
/* Check a file (`path` = its full path): *out = NULL when it does not
 * qualify (nothing written). */
pm_error *pm_pt_probe(pm_pt_writer *w, const char *path, const pm_data_file_meta *f, pm_pt_input **out);
/* Copy the probed file's row groups (rolling outputs as needed). */
pm_error *pm_pt_copy(pm_pt_writer *w, pm_pt_input *in);
void pm_pt_input_free(pm_pt_input *in);
/* Whether the writer takes decoded rows (page level on): inputs that are
 * not copied are then written through it too, in row groups of their own,
 * so a task keeps one sequence of outputs. */
bool pm_pt_writer_takes_rows(const pm_pt_writer *w);
/* Before the first copy: sample the page-level inputs' plain columns
 * (compact_page_passthrough.h) until *done (or the inputs run out), then
 * decide which columns are re-encoded. */
pm_error *pm_pt_sample(pm_pt_writer *w, const char *path, const pm_data_file_meta *f, bool *done);
pm_error *pm_pt_sample_finish(pm_pt_writer *w);
/* The sample's decision shared instead of sampled (page level on:
 * pm_pt_writer_takes_rows): its validity key, its bytes, and taking such
 * bytes (*sampled: some column's sample was judged), and taking such
 * bytes (pm_pg_decision_key/get/set of compact_page_passthrough.h). */
pm_error *pm_pt_decision_key(const pm_pt_writer *w, pm_buf *key);
pm_error *pm_pt_decision_get(const pm_pt_writer *w, pm_buf *out, bool *sampled);
pm_error *pm_pt_decision_set(pm_pt_writer *w, const pm_buf *d);
/* Append decoded rows (columns in the task's row type order). */
pm_error *pm_pt_write(pm_pt_writer *w, const pm_batch *b);
/* Close the open output; move the closed files' metas out. */
pm_error *pm_pt_writer_finish(pm_pt_writer *w, pm_data_file_meta **files, size_t *n);
int64_t pm_pt_writer_bytes(const pm_pt_writer *w);
int64_t pm_pt_writer_next_seq(const pm_pt_writer *w);
void pm_pt_writer_set_next_seq(pm_pt_writer *w, int64_t seq);
/* Delete every file created and not handed out, then free. */
void pm_pt_writer_abort(pm_pt_writer *w);
void pm_pt_writer_free(pm_pt_writer *w);

#endif
