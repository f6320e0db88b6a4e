/*
 * paimon/read.h — reading a table: scan → splits → reader.
 *
 *   pm_scan_new(&scan, table, &opts)        picks one snapshot (latest or
 *                                           opts.snapshot_id), prunes by the
 *                                           partition filters, and splits
 *                                           the live files by (partition, bucket)
 *   pm_scan_split(scan, i)                  a self-contained unit of reading;
 *                                           pm_split_to_json / _from_json let
 *                                           another process or machine read it
 *   pm_reader_new(&r, table, splits, n, &o) rows of those splits, projected,
 *                                           merged (primary keys), deletion
 *                                           vectors applied
 *   pm_reader_next(&batch, r)               batches until NULL
 *   pm_reader_to_arrow_stream(&stream, r)   the same as an ArrowArrayStream
 *
 * Incremental reads (options version 2: incremental_from/_to/_mode) scan
 * the changes of a snapshot range instead: the added or changelog files,
 * each record with its row kind in a `_ROW_KIND` column.
 *
 * Primary-key tables are merged on read with the table's merge engine
 * (deletes and update-befores dropped); deletion-vector and first-row
 * tables skip level 0 as Java's batch read does.  With `scan.fallback-branch`
 * the partitions the branch lacks come from the fallback branch (unless
 * opts.no_fallback_branch).  Time travel (snapshot_id) reads in that
 * snapshot's schema.  Tables this version cannot read (data-evolution files
 * that must be merged by row id, blob columns) return PM_EUNSUPPORTED
 * naming the feature.  Data files may be Parquet, ORC or Avro, manifests
 * Avro or ORC.
 *
 * Ownership: the caller owns scans, splits it copied or parsed, and
 * readers; a split returned by pm_scan_split is owned by the scan.  A
 * reader copies the splits it is given; the table must outlive the reader
 * and any stream made from it.  A batch returned by pm_reader_next is owned
 * by the reader and valid until the next call (pm_batch_export gives it a
 * life of its own, without copying).
 */
#ifndef PAIMON_READ_H
#define PAIMON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/arrow_c.h"
#include "paimon/batch.h"
#include "paimon/error.h"
#include "paimon/table.h"
#include "paimon/version.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PM_READ_OPTIONS_VERSION 2

/* What an incremental read returns (Java's incremental-between-scan-mode). */
typedef enum pm_incremental_mode {
    PM_INCREMENTAL_AUTO = 0,          /* changelog when the table has a changelog producer, else delta */
    PM_INCREMENTAL_DELTA = 1,         /* the files APPEND snapshots added (COMPACT, OVERWRITE skipped) */
    PM_INCREMENTAL_CHANGELOG = 2      /* the changelog files of the snapshots (OVERWRITE skipped) */
} pm_incremental_mode;

/* Version 2 added `filter` and the incremental read fields; a version 1
 * struct (without them) is still accepted and reads every row of its
 * snapshot. */
typedef struct pm_read_options {
    int version;                      /* PM_READ_OPTIONS_VERSION */
    int64_t snapshot_id;              /* 0 = latest */
    const char *const *partitions;    /* filters "k=v[,k2=v2]", any of them; NULL = all */
    size_t npartitions;
    const char *const *columns;       /* projection by name, in this order; NULL = all */
    size_t ncolumns;
    int64_t limit;                    /* at most this many rows; -1 = all */
    int64_t batch_rows;               /* rows per batch; 0 = 4096 */
    size_t threads;                   /* decoding threads; 0 or 1 = the caller's only */
    bool no_fallback_branch;          /* ignore the table's scan.fallback-branch */
    /* Rows to return, e.g. "dt = '2024-01-01' AND id IN (1, 2)": atoms
     * `column op literal` (op: = <> != < <= > >=) and
     * `column IN (literal, ...)` joined by AND
     * (string literals in single quotes, numbers, TRUE/FALSE; names in
     * double quotes when not plain).  Only matching rows are returned
     * (primary-key tables: after the merge); with the table's
     * file-index.read.enabled (default true) append data files whose file
     * index proves no row matches an = / IN atom are not read.  Copied
     * by the reader; NULL = every row.  PM_EINVALID for a syntax error or an unknown or
     * non-atomic column. */
    const char *filter;
    /* An incremental read of the snapshots (incremental_from,
     * incremental_to] (Java's incremental-between 'A,B') when
     * incremental_to > 0: every record of the files they added (delta) or
     * of their changelog files, not merged, with a `_ROW_KIND` STRING
     * column ("+I", "-U", "+U", "-D"; last unless the projection names
     * it).  Rows are in the current schema; snapshot_id must be 0, the
     * fallback branch and deletion vectors do not apply.  from = to reads
     * nothing; from must be >= earliest - 1 and to <= latest. */
    int64_t incremental_from;
    int64_t incremental_to;
    pm_incremental_mode incremental_mode;
} pm_read_options;

#define PM_READ_OPTIONS_INIT \
    {PM_READ_OPTIONS_VERSION, 0, NULL, 0, NULL, 0, -1, 0, 0, false, NULL, 0, 0, PM_INCREMENTAL_AUTO}
PM_API void pm_read_options_init(pm_read_options *o);

typedef struct pm_scan pm_scan;
typedef struct pm_split pm_split;
typedef struct pm_reader pm_reader;

/* Check the syntax of a partition filter "k=v[,k2=v2]" (PM_EINVALID naming
 * the problem); whether the keys are partition keys is checked by the scan. */
PM_API pm_error *pm_partition_filter_check(const char *text);

/* ---- scan ---- */

/* Plan a read of `t` (o NULL = latest snapshot, everything).  Reads only
 * metadata.  A table without snapshots gives a scan with no splits. */
PM_API pm_error *pm_scan_new(pm_scan **out, pm_table *t, const pm_read_options *o);
PM_API void pm_scan_free(pm_scan *s);
/* The snapshot scanned (0 = the table had none; incremental: the end of the
 * range, 0 when it is empty). */
PM_API int64_t pm_scan_snapshot_id(const pm_scan *s);
/* The schema rows are read in (the latest, or the snapshot's for time travel). */
PM_API int64_t pm_scan_schema_id(const pm_scan *s);
PM_API size_t pm_scan_split_count(const pm_scan *s);
/* Split i, owned by the scan (NULL when out of range). */
PM_API const pm_split *pm_scan_split(const pm_scan *s, size_t i);

/* ---- splits ---- */

PM_API pm_error *pm_split_copy(pm_split **out, const pm_split *s);
PM_API void pm_split_free(pm_split *s);
/* "k1=v1/k2=v2" of the split's partition ("" when unpartitioned); owned by s. */
PM_API const char *pm_split_partition(const pm_split *s);
PM_API int32_t pm_split_bucket(const pm_split *s);
/* The branch whose files the split holds (the scanned one, or its
 * fallback branch); owned by s. */
PM_API const char *pm_split_branch(const pm_split *s);
PM_API int64_t pm_split_snapshot_id(const pm_split *s);
/* The split of an incremental scan: its mode (DELTA or CHANGELOG, never
 * AUTO); *incremental = false for a split of a normal scan. */
PM_API void pm_split_incremental(const pm_split *s, bool *incremental, pm_incremental_mode *mode);
PM_API size_t pm_split_file_count(const pm_split *s);
/* Rows and bytes in the split's files (before merging and deletion vectors). */
PM_API int64_t pm_split_row_count(const pm_split *s);
PM_API int64_t pm_split_file_bytes(const pm_split *s);
/* JSON with "format": 1 (malloc'd; release with pm_free), so a split can
 * be read in another process or machine. */
PM_API pm_error *pm_split_to_json(char **out, const pm_split *s);
/* Strict: unknown or missing keys, wrong types and file names that are
 * not plain names are PM_EINVALID naming the field.  External paths are
 * checked against the table by the reader. */
PM_API pm_error *pm_split_from_json(pm_split **out, const char *json, size_t len);

/* ---- reader ---- */

/* Rows of `splits` (all from scans of `t`'s table: one scan, or scans of
 * one snapshot) with o's columns, filter, limit, batch_rows and threads
 * (o NULL = defaults); the other fields of o are ignored here (they belong
 * to the scan).  A filter on incremental splits is PM_EUNSUPPORTED.  Splits whose path is not t's table are PM_EINVALID, and so is a
 * mix of incremental and normal splits; incremental splits are read
 * record by record with `_ROW_KIND`. */
PM_API pm_error *pm_reader_new(pm_reader **out, pm_table *t, const pm_split *const *splits, size_t nsplits,
                               const pm_read_options *o);
/* Scan and reader in one step: every split of pm_scan_new(t, o). */
PM_API pm_error *pm_table_read(pm_reader **out, pm_table *t, const pm_read_options *o);
/* Row type of the batches; owned by r. */
PM_API const pm_type *pm_reader_type(const pm_reader *r);
/* Next batch (owned by r, valid until the next call), NULL at the end. */
PM_API pm_error *pm_reader_next(const pm_batch **out, pm_reader *r);
/* Hand the reader to an Arrow C stream (the stream owns it from now on,
 * also on failure; release the stream to free it).  Each array is a
 * struct array of the reader's row type. */
PM_API pm_error *pm_reader_to_arrow_stream(struct ArrowArrayStream *out, pm_reader *r);
PM_API void pm_reader_free(pm_reader *r);
/* Data files the reader did not open because their file index proved no
 * row matches the filter (0 without a filter or file indexes). */
PM_API size_t pm_reader_files_skipped(const pm_reader *r);

#ifdef __cplusplus
}
#endif
#endif
