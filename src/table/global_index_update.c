/*
 * table/global_index_update.c — global-index.column-update-action for
 * updates by row ID (see global_index_update.h).
 */
#include "table/global_index_update.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "table/table_internal.h"

static bool listed(const pm_index_manifest_entry *a, size_t n, const pm_index_manifest_entry *e)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(a[i].index_file.file_name, e->index_file.file_name))
            return true;
    return false;
}

pm_error *pm_gi_update_retire(pm_table *t, const pm_bucket_files *b, const pm_type *updated,
                              const pm_commit_message *prev, size_t nprev, pm_index_manifest_entry **removed,
                              size_t *nremoved)
{
    const char *action = pm_options_get(pm_table_options(t), "global-index.column-update-action");
    bool drop = false;
    if (action && !strcasecmp(action, "DROP_PARTITION_INDEX"))
        drop = true;
    else if (action && strcasecmp(action, "THROW_ERROR"))
        return pm_error_new(PM_EINVALID, "option 'global-index.column-update-action' = '%s': expected THROW_ERROR "
                            "or DROP_PARTITION_INDEX", action);
    for (size_t i = 0; i < b->nindex_entries; i++) {
        const pm_index_manifest_entry *ie = &b->index_entries[i];
        const pm_index_file_meta *f = &ie->index_file;
        if (ie->kind != PM_FILE_ADD || !f->has_global_index)
            continue;
        ptrdiff_t k = pm_type_field_index_by_id(updated, f->global_index.index_field_id);
        if (k < 0)
            continue;
        if (!drop)
            return pm_error_new(PM_EINVALID, "column %s is covered by global index file %s: updating it needs "
                                "'global-index.column-update-action' = 'DROP_PARTITION_INDEX'",
                                updated->fields[k].name, f->file_name);
        bool seen = listed(*removed, *nremoved, ie);
        for (size_t m = 0; m < nprev && !seen; m++)
            seen = listed(prev[m].index_removed, prev[m].n_index_removed, ie);
        if (seen)
            continue;
        PM_TRY(pm_realloc_array(removed, *nremoved + 1, sizeof **removed));
        pm_index_manifest_entry *d = &(*removed)[*nremoved];
        memset(d, 0, sizeof *d);
        PM_TRY(pm_index_manifest_entry_copy(d, ie));
        d->kind = PM_FILE_DELETE;
        (*nremoved)++;
    }
    return NULL;
}
