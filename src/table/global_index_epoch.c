/*
 * table/global_index_epoch.c — stale global index payloads after a column
 * type change (rules in global_index_epoch.h).
 */
#include "table/global_index_epoch.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "meta/manifest.h"
#include "meta/paths.h"
#include "meta/snapshot_store.h"
#include "table/table_internal.h"

static const pm_type *field_type(const pm_type *row, int32_t id)
{
    for (size_t i = 0; row && i < row->nfields; i++)
        if (row->fields[i].id == id)
            return row->fields[i].type;
    return NULL;
}

void pm_gi_stale_clear(pm_gi_stale *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->names[i]);
    free(s->names);
    s->names = NULL;
    s->n = 0;
}

bool pm_gi_stale_has(const pm_gi_stale *s, const char *file_name)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->names[i], file_name))
            return true;
    return false;
}

/* S (see the header); 0 = the type never changed. */
static pm_error *type_epoch(pm_table *t, int32_t field_id, int64_t *since)
{
    *since = 0;
    const pm_schema *cur = pm_table_schema(t);
    const pm_type *want = field_type(cur->row_type, field_id);
    if (!want)
        return NULL;
    for (int64_t id = cur->id - 1; id >= 0; id--) {
        const pm_schema *s = NULL;
        pm_error *e = pm_table_schema_by_id(t, id, &s);
        if (e && pm_error_code(e) == PM_ENOTFOUND) {
            pm_error_free(e); /* a gap in the schema history: older ones are unknown */
            return NULL;
        }
        PM_TRY(e);
        const pm_type *ft = field_type(s->row_type, field_id);
        if (!ft || !pm_type_equals_ignore_nullable(ft, want)) {
            *since = id + 1;
            return NULL;
        }
    }
    return NULL;
}

pm_error *pm_gi_stale_find(pm_table *t, int32_t field_id, pm_gi_stale *out)
{
    memset(out, 0, sizeof *out);
    int64_t since;
    PM_TRY(type_epoch(t, field_id, &since));
    if (!since)
        return NULL;
    int64_t *ids = NULL;
    size_t n = 0;
    PM_TRY(pm_snapshot_store_list_ids(t->snapshots, &ids, &n));
    /* the last snapshot with schema id < since */
    pm_snapshot *last = NULL;
    size_t lo = 0, hi = n;
    pm_error *e = NULL;
    while (lo < hi && !e) {
        size_t mid = lo + (hi - lo) / 2;
        pm_snapshot *s = NULL;
        if ((e = pm_snapshot_store_load(t->snapshots, ids[mid], &s)))
            break;
        if (s->schema_id < since) {
            pm_snapshot_free(last);
            last = s;
            lo = mid + 1;
        } else {
            pm_snapshot_free(s);
            hi = mid;
        }
    }
    free(ids);
    if (e || !last || !last->index_manifest) {
        pm_snapshot_free(last);
        return e;
    }
    char *path = NULL;
    pm_index_manifest_entry *es = NULL;
    size_t ne = 0;
    e = pm_path_factory_manifest_path(t->paths, last->index_manifest, &path);
    if (!e)
        e = pm_index_manifest_read(t->fio, path, &es, &ne);
    for (size_t i = 0; !e && i < ne; i++) {
        const pm_index_file_meta *f = &es[i].index_file;
        if (es[i].kind != PM_FILE_ADD || !f->has_global_index || f->global_index.index_field_id != field_id)
            continue;
        if (!(e = pm_realloc_array(&out->names, out->n + 1, sizeof *out->names)) &&
            !(e = pm_strdup(&out->names[out->n], f->file_name)))
            out->n++;
    }
    pm_index_manifest_entries_free(es, ne);
    free(path);
    pm_snapshot_free(last);
    if (e)
        pm_gi_stale_clear(out);
    return e;
}
