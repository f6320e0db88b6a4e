/*
 * table/global_index_epoch.h — global index payloads built while their
 * column had another type (schema-id-aware retirement).
 *
 * Index manifest entries carry no schema id, so the type a payload was
 * built with is told by the snapshots: with T the field's type in the
 * current schema (nullability ignored), S = the smallest schema id from
 * which every schema up to the current one gives the field type T.  When
 * S > 0 (the type changed at S, or the field did not exist before), the
 * payloads of the field that the last snapshot with a schema id below S
 * lists (found by binary search: snapshot schema ids do not decrease)
 * were built under an older type: they are stale.  Readers skip them
 * (their rows count as not covered) and maintenance retires them and
 * rebuilds the coverage.  When no retained snapshot predates S nothing is
 * known stale (the older snapshots were expired).
 */
#ifndef PM_TABLE_GLOBAL_INDEX_EPOCH_H
#define PM_TABLE_GLOBAL_INDEX_EPOCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/error.h"
#include "paimon/table.h"

typedef struct pm_gi_stale {
    char **names;              /* index file names (malloc'd) */
    size_t n;
} pm_gi_stale;

/* The stale payloads of field `field_id` of t's current schema (out
 * empty when none). */
pm_error *pm_gi_stale_find(pm_table *t, int32_t field_id, pm_gi_stale *out);
bool pm_gi_stale_has(const pm_gi_stale *s, const char *file_name);
void pm_gi_stale_clear(pm_gi_stale *s);

#endif
