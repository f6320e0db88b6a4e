/*
 * table/pk_read.h — batch read of one bucket of a primary-key table:
 * merge-on-read as Java's MergeFileSplitRead does it for batch scans.
 *
 * Plan (pm_pk_reader_new, metadata only):
 *  1. Files: the bucket's live files; DV tables (unless
 *     `deletion-vectors.merge-on-read`) and `first-row` tables read only
 *     level > 0 files (Java's batchScanSkipLevel0); the postpone bucket
 *     is not readable at all (no rows).
 *  2. If level 0 is skipped and no remaining file may hold retracts
 *     (_DELETE_ROW_COUNT = 0), every file is read raw (Java's raw
 *     convertible split).
 *  3. Otherwise the files are split into sections of overlapping key
 *     ranges (lsm/interval_partition.h on _MIN_KEY/_MAX_KEY).  A section
 *     of one file is read raw: a file holds one record per key, so a merge
 *     would pass every record through unchanged (reducer mode) — only its
 *     retracts are dropped.  A section of several sorted runs is merged.
 * Read:
 *   raw      the file's rows of the requested columns with `_VALUE_KIND`;
 *            rows of kind -U/-D and rows marked in the file's deletion
 *            vector are dropped; batches that lose no row share the file
 *            reader's columns
 *   merge    one source per sorted run (its files in key order, deletion
 *            vectors applied) → loser-tree merge (lsm/merge_reader.h: key,
 *            `sequence.field` with its sort order, _SEQUENCE_NUMBER) →
 *            merge engine (lsm/merge_engine.h, reducer mode) per key →
 *            results of kind -U/-D dropped (Java's DropDeleteReader) →
 *            requested columns.  Files are read with the columns the merge
 *            needs: the requested ones, the trimmed primary key and the
 *            sequence fields; partial-update and aggregation read every
 *            column (their functions see whole rows).  Records the merge
 *            keeps unchanged (single records, deduplicate winners) are
 *            copied as row ranges.  Sections of 2..16 runs decode their
 *            runs ahead on a small thread pool (up to 4 batches per run);
 *            tables that need lookup (pm_pk_read_lookup_merge) merge one
 *            run per level and only a key's level-0 records with its
 *            lowest positive-level one;
 *            more than 256 runs merge in several passes through files in
 *            a private temporary directory (pk_spill.h).
 * Output batches have the requested row type; they are owned by the
 * reader and valid until the next call.
 */
#ifndef PM_TABLE_PK_READ_H
#define PM_TABLE_PK_READ_H

#include <stdint.h>

#include "meta/schema.h"
#include "paimon/batch.h"
#include "paimon/error.h"
#include "table/pk_index_select.h"
#include "table/scan.h"

typedef struct pm_pk_reader pm_pk_reader;

/* Does a merge of this table follow Java's LookupMergeFunction (tables
 * that need lookup — changelog-producer=lookup, deletion vectors,
 * force-lookup — except first-row)?  A key's records of level 0 then merge
 * with its lowest positive-level record only (older levels already
 * contributed to that state), in full mode. */
pm_error *pm_pk_read_lookup_merge(const pm_schema *s, bool *out);

typedef struct pm_pk_read_stats {
    int64_t raw_files;        /* files read without a merge */
    int64_t merged_sections;  /* sections merged */
    int64_t merged_files;     /* files inside merged sections */
    int64_t index_skipped_files; /* files not read: the global index proves no row matches */
} pm_pk_read_stats;

/* b (borrowed) and its table must outlive the reader; s is the schema the
 * rows are read in (the bucket's table's read schema), read_type the
 * requested ROW (fields of s, any order; cloned). */
pm_error *pm_pk_reader_new(pm_pk_reader **out, const pm_bucket_files *b, const pm_schema *s,
                           const pm_type *read_type, int64_t batch_rows);
/* *out = NULL at the end. */
pm_error *pm_pk_reader_next(pm_pk_reader *r, const pm_batch **out);
void pm_pk_reader_stats(const pm_pk_reader *r, pm_pk_read_stats *out);
/* Before the first next: restrict the read to the positions h allows
 * (table/pk_index_select.h; h is taken, also on error): a raw section's
 * file reads only its positions (none: not read at all); a merged section
 * is not read when every file of it is covered without a position and the
 * merge engine is deduplicate or first-row (a merged row is then one of
 * the records, so it cannot match either).  Rows still pass the caller's
 * filter. */
pm_error *pm_pk_reader_use_index(pm_pk_reader *r, pm_pk_gi_hits *h);
void pm_pk_reader_free(pm_pk_reader *r);

/* Would a batch read of this bucket skip level 0 (DV without
 * merge-on-read, or first-row)? */
pm_error *pm_pk_read_skips_level0(const pm_schema *s, bool *out);

#endif
