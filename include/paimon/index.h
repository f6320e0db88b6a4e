/*
 * paimon/index.h — global index maintenance: building the missing row-ID
 * coverage of the btree and bitmap global indexes a table declares.
 *
 * Declarations are table options (Apache Paimon's shared configuration):
 *   global-index.<type>.index-columns  comma-separated columns per type
 *                                      (btree, bitmap; the other types of
 *                                      Paimon — multivalue, fm, full-text,
 *                                      ivf-*, diskann — are refused as not
 *                                      supported at create and write);
 *   fields.<column>.index-options      a JSON object of the column's index
 *                                      parameters (block-size → btree-index.
 *                                      block-size, ...).
 * They need row tracking (`row-tracking.enabled`), no primary key and
 * `bucket` = -1.  With `write-only` = false (the default) every write of
 * the write API builds the missing coverage after its automatic
 * compaction round; pm_table_build_index does it on demand (e.g. for
 * `write-only` = true tables).  The files are Apache Paimon Java 1.4.2's
 * btree and bitmap global index files (`bitmap-index.format=dictionary`:
 * the later dictionary bitmap format pypaimon 2.1 reads; both bitmap
 * formats are always read; `btree-index.compression` / `bitmap-index.
 * compression`: none, zstd, lz4), listed in the index manifest with their
 * row range and field id, published as one APPEND snapshot that changes
 * only the index manifest; in `<table>/index/`, or under
 * `global-index.external-path` (an absolute local directory) with their
 * full path in the entry.  Reads with a filter (read.h) use them when
 * `global-index.enabled` (default true) holds.
 *
 * Options and results are versioned structs: initialize with their _INIT
 * macro (or the _init function).
 */
#ifndef PAIMON_INDEX_H
#define PAIMON_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/error.h"
#include "paimon/table.h"
#include "paimon/version.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PM_INDEX_OPTIONS_VERSION 1
#define PM_INDEX_RESULT_VERSION 1

typedef struct pm_index_options {
    int version;                  /* PM_INDEX_OPTIONS_VERSION */
    const char *column;           /* NULL = every declared column; else one declared column (borrowed) */
    const char *commit_user;      /* NULL = a random one (borrowed) */
    int64_t commit_identifier;    /* with commit_user: a retry after an uncertain outcome is a no-op */
} pm_index_options;

#define PM_INDEX_OPTIONS_INIT {.version = PM_INDEX_OPTIONS_VERSION}
PM_API void pm_index_options_init(pm_index_options *o);

typedef struct pm_index_result {
    int version;                  /* PM_INDEX_RESULT_VERSION, set by the caller */
    int64_t snapshot_id;          /* the published snapshot, 0 = nothing was missing */
    int64_t files_added;
    int64_t files_removed;        /* payloads of incompatible definitions retired */
    int64_t ranges_built;
    int64_t rows_indexed;         /* rows of the built ranges, summed over columns */
} pm_index_result;

#define PM_INDEX_RESULT_INIT {.version = PM_INDEX_RESULT_VERSION}

/* Build the missing coverage of t's declared global indexes (o may be
 * NULL: every column); *out (may be NULL) gets what was done.  Errors:
 * PM_EINVALID for a bad declaration, an undeclared column or an unknown
 * version or a relative global-index.external-path; PM_EUNSUPPORTED for
 * declarations paimon-c cannot maintain (other index types, primary-key
 * tables, a non-local global-index.external-path);
 * PM_ECONFLICT when concurrent commits kept invalidating the build beyond
 * commit.max-retries.  Nothing is published on error. */
PM_API pm_error *pm_table_build_index(pm_index_result *out, pm_table *t, const pm_index_options *o);

/* *out = whether t's current schema declares global indexes (btree or
 * bitmap columns) for pm_table_build_index to maintain.  Errors: those of
 * a bad declaration (PM_EINVALID, PM_EUNSUPPORTED as above). */
PM_API pm_error *pm_table_index_declared(bool *out, pm_table *t);

#ifdef __cplusplus
}
#endif
#endif
