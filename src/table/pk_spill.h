/*
 * table/pk_spill.h — the private temporary directory that holds sorted
 * runs of the primary-key write buffer and the intermediate runs of
 * multi-pass merges (merge-on-read of more than 256 runs).
 *
 * A spill owns one directory created on first use under `dir`, else
 * $TMPDIR, else /tmp, as "paimon-spill-XXXXXX"; the runs themselves are
 * lsm/kv_spill.h files (Avro, snappy), each deleted when the source made
 * from it is closed.  Freeing the spill removes any run left and the
 * directory.  Runs are private scratch data, never part of a table.
 */
#ifndef PM_TABLE_PK_SPILL_H
#define PM_TABLE_PK_SPILL_H

#include <stdint.h>

#include "lsm/merge_reader.h"

typedef struct pm_pk_spill pm_pk_spill;

/* dir = NULL: $TMPDIR or /tmp.  Nothing is created until the first run. */
pm_error *pm_pk_spill_new(pm_pk_spill **out, const char *dir);
/* Removes every remaining run file and the directory. */
void pm_pk_spill_free(pm_pk_spill *s);
/* The spill as merge-reader callbacks (valid while s lives).  Sources
 * made by finish must be closed before s is freed. */
pm_error *pm_pk_spill_callbacks(pm_pk_spill *s, const pm_kv_spill **out);
/* Runs finished so far and the bytes written (for tests and metrics). */
int64_t pm_pk_spill_runs(const pm_pk_spill *s);
int64_t pm_pk_spill_bytes(const pm_pk_spill *s);

#endif
