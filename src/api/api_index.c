/*
 * api/api_index.c — paimon/index.h over compact/global_index_maint.h.
 */
#include "paimon/index.h"

#include <string.h>

#include "compact/global_index_maint.h"

void pm_index_options_init(pm_index_options *o)
{
    pm_index_options d = PM_INDEX_OPTIONS_INIT;
    *o = d;
}

pm_error *pm_table_build_index(pm_index_result *out, pm_table *t, const pm_index_options *o)
{
    if (out && out->version != PM_INDEX_RESULT_VERSION)
        return pm_error_new(PM_EINVALID, "index result version %d (this library knows %d): initialize it with "
                            "PM_INDEX_RESULT_INIT", out->version, PM_INDEX_RESULT_VERSION);
    if (o && o->version != PM_INDEX_OPTIONS_VERSION)
        return pm_error_new(PM_EINVALID, "index options version %d (this library knows %d): initialize them with "
                            "PM_INDEX_OPTIONS_INIT", o->version, PM_INDEX_OPTIONS_VERSION);
    if (!t)
        return pm_error_new(PM_EINVALID, "pm_table_build_index: no table");
    pm_gi_maint_options mo;
    memset(&mo, 0, sizeof mo);
    if (o) {
        mo.column = o->column;
        mo.commit_user = o->commit_user;
        mo.commit_identifier = o->commit_identifier;
    }
    pm_gi_maint_result r;
    PM_TRY(pm_gi_maintain(t, &mo, &r));
    if (out) {
        out->snapshot_id = r.snapshot_id;
        out->files_added = r.files_added;
        out->files_removed = r.files_removed;
        out->ranges_built = r.ranges_built;
        out->rows_indexed = r.rows_indexed;
    }
    return NULL;
}

pm_error *pm_table_index_declared(bool *out, pm_table *t)
{
    if (!out || !t)
        return pm_error_new(PM_EINVALID, "pm_table_index_declared: no %s", out ? "table" : "result");
    *out = false;
    return pm_gi_maint_declared(t, out);
}
