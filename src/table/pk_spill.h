/*
 * table/pk_spill.h — sorted runs on local disk for the primary-key write
 * buffer and for multi-pass merges (the file-backed lsm/merge_reader.h
 * pm_kv_spill).
 *
 * A spill owns one private temporary directory (created on first use
 * under `dir`, else $TMPDIR, else /tmp, as "paimon-spill-XXXXXX").  A run
 * is one Parquet file there (LZ4 pages, no dictionary, no page checksums,
 * 16 MiB row groups, so writing a run holds at most one row group in
 * memory); finishing a run turns it into a pm_kv_source that reads the
 * file back batch by batch and deletes it when closed.  Freeing the spill
 * removes whatever runs are left and the directory.  Runs are private
 * scratch data, never part of a table.
 */
#ifndef PM_TABLE_PK_SPILL_H
#define PM_TABLE_PK_SPILL_H

#include <stdint.h>

#include "lsm/merge_reader.h"

typedef struct pm_pk_spill pm_pk_spill;

/* dir = NULL: $TMPDIR or /tmp.  batch_rows: rows per batch read back
 * (0 = 4096).  Nothing is created until the first run. */
pm_error *pm_pk_spill_new(pm_pk_spill **out, const char *dir, int64_t batch_rows);
/* Removes every remaining run file and the directory. */
void pm_pk_spill_free(pm_pk_spill *s);
/* The spill as merge-reader callbacks (owned by s, valid while s lives).
 * Sources made by finish must be closed before s is freed. */
const pm_kv_spill *pm_pk_spill_callbacks(pm_pk_spill *s);
/* Runs written so far and their total bytes (for tests and metrics). */
int64_t pm_pk_spill_runs(const pm_pk_spill *s);
int64_t pm_pk_spill_bytes(const pm_pk_spill *s);

#endif
