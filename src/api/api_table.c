/*
 * api/api_table.c — the public face of tables, schemas and snapshots
 * (paimon/table.h, paimon/schema.h, paimon/snapshot.h, pm_free): getters
 * over the meta layer's values and the table handle, snapshot listing and
 * loading, the commit lookup, and ALTER TABLE SET/RESET through the schema
 * manager.
 */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "index/global_index_alter.h"
#include "index/global_index_decl.h"
#include "meta/schema.h"
#include "meta/schema_manager.h"
#include "meta/snapshot.h"
#include "meta/snapshot_store.h"
#include "paimon/table.h"
#include "table/table_commit.h"
#include "table/table_internal.h"

void pm_free(void *p) { free(p); }

void pm_table_spec_init(pm_table_spec *spec)
{
    static const pm_table_spec init = PM_TABLE_SPEC_INIT;
    *spec = init;
}

/* ---- schema getters ---- */

int64_t pm_schema_id(const pm_schema *s) { return s->id; }
const pm_type *pm_schema_row_type(const pm_schema *s) { return s->row_type; }
size_t pm_schema_partition_key_count(const pm_schema *s) { return s->partition_keys.count; }
size_t pm_schema_primary_key_count(const pm_schema *s) { return s->primary_keys.count; }
size_t pm_schema_option_count(const pm_schema *s) { return pm_options_count(s->options); }
const char *pm_schema_comment(const pm_schema *s) { return s->comment; }
int64_t pm_schema_time_millis(const pm_schema *s) { return s->time_millis; }
const char *pm_schema_option(const pm_schema *s, const char *key) { return pm_options_get(s->options, key); }

const char *pm_schema_partition_key(const pm_schema *s, size_t i)
{
    return i < s->partition_keys.count ? s->partition_keys.items[i] : NULL;
}

const char *pm_schema_primary_key(const pm_schema *s, size_t i)
{
    return i < s->primary_keys.count ? s->primary_keys.items[i] : NULL;
}

const char *pm_schema_option_key(const pm_schema *s, size_t i)
{
    return i < pm_options_count(s->options) ? pm_options_key_at(s->options, i) : NULL;
}

const char *pm_schema_option_value(const pm_schema *s, size_t i)
{
    return i < pm_options_count(s->options) ? pm_options_value_at(s->options, i) : NULL;
}

/* Detach a buffer as a NUL-terminated malloc'd string. */
static pm_error *buf_to_string(pm_buf *b, char **out)
{
    const char *s;
    pm_error *e = pm_buf_cstr(b, &s);
    if (e) {
        pm_buf_free(b);
        return e;
    }
    *out = (char *)pm_buf_detach(b, NULL);
    return NULL;
}

pm_error *pm_schema_to_json_text(char **out, const pm_schema *s)
{
    *out = NULL;
    pm_buf b = PM_BUF_INIT;
    pm_error *e = pm_schema_to_json(s, &b);
    if (e) {
        pm_buf_free(&b);
        return e;
    }
    return buf_to_string(&b, out);
}

/* ---- snapshot getters ---- */

int64_t pm_snapshot_id(const pm_snapshot *s) { return s->id; }
int64_t pm_snapshot_schema_id(const pm_snapshot *s) { return s->schema_id; }
const char *pm_snapshot_commit_kind(const pm_snapshot *s) { return pm_commit_kind_name(s->commit_kind); }
int64_t pm_snapshot_time_millis(const pm_snapshot *s) { return s->time_millis; }
const char *pm_snapshot_commit_user(const pm_snapshot *s) { return s->commit_user; }
int64_t pm_snapshot_commit_identifier(const pm_snapshot *s) { return s->commit_identifier; }
int64_t pm_snapshot_total_record_count(const pm_snapshot *s) { return s->total_record_count; }
int64_t pm_snapshot_delta_record_count(const pm_snapshot *s) { return s->delta_record_count; }
const char *pm_snapshot_base_manifest_list(const pm_snapshot *s) { return s->base_manifest_list; }
const char *pm_snapshot_delta_manifest_list(const pm_snapshot *s) { return s->delta_manifest_list; }
const char *pm_snapshot_changelog_manifest_list(const pm_snapshot *s) { return s->changelog_manifest_list; }
const char *pm_snapshot_index_manifest(const pm_snapshot *s) { return s->index_manifest; }
const char *pm_snapshot_write_operation(const pm_snapshot *s) { return pm_snapshot_operation_name(s->operation); }

static bool opt(pm_opt_long v, int64_t *out)
{
    if (v.has && out)
        *out = v.v;
    return v.has;
}

bool pm_snapshot_changelog_record_count(const pm_snapshot *s, int64_t *out)
{
    return opt(s->changelog_record_count, out);
}
bool pm_snapshot_watermark(const pm_snapshot *s, int64_t *out) { return opt(s->watermark, out); }
bool pm_snapshot_next_row_id(const pm_snapshot *s, int64_t *out) { return opt(s->next_row_id, out); }

pm_error *pm_snapshot_to_json_text(char **out, const pm_snapshot *s)
{
    *out = NULL;
    pm_buf b = PM_BUF_INIT;
    pm_error *e = pm_snapshot_to_json(s, &b);
    if (e) {
        pm_buf_free(&b);
        return e;
    }
    return buf_to_string(&b, out);
}

/* ---- table ---- */

const char *pm_table_option(const pm_table *t, const char *key) { return pm_options_get(t->schema->options, key); }

pm_error *pm_table_schema_get(const pm_schema **out, pm_table *t, int64_t schema_id)
{
    return pm_table_schema_by_id(t, schema_id, out);
}

pm_error *pm_table_schema_ids(int64_t **ids, size_t *count, pm_table *t)
{
    *ids = NULL;
    *count = 0;
    return pm_schema_list_ids(t->fio, t->branch_root, ids, count);
}

pm_error *pm_table_snapshot_ids(int64_t **ids, size_t *count, pm_table *t)
{
    *ids = NULL;
    *count = 0;
    return pm_snapshot_store_list_ids(t->snapshots, ids, count);
}

pm_error *pm_table_snapshot(pm_snapshot **out, pm_table *t, int64_t id)
{
    *out = NULL;
    if (id < 0)
        return pm_error_new(PM_EINVALID, "snapshot id %lld is negative", (long long)id);
    if (id == 0)
        return pm_snapshot_store_load_latest(t->snapshots, out);
    return pm_snapshot_store_load(t->snapshots, id, out);
}

pm_error *pm_table_find_commit(int64_t *snapshot_id, pm_table *t, const char *commit_user,
                               int64_t commit_identifier)
{
    *snapshot_id = 0;
    if (!commit_user || !*commit_user)
        return pm_error_new(PM_EINVALID, "a commit user is needed to find a commit");
    return pm_table_commit_find(t, commit_user, commit_identifier, 0, snapshot_id);
}

pm_error *pm_table_alter_options(pm_table *t, const char *const *set_keys, const char *const *set_values,
                                 size_t nset, const char *const *reset_keys, size_t nreset)
{
    if (!nset && !nreset)
        return NULL; /* nothing to change: no new schema */
    bool has_snapshot = false;
    int64_t latest = 0;
    PM_TRY(pm_snapshot_store_latest_id(t->snapshots, &has_snapshot, &latest));
    pm_schema *next = NULL;
    PM_TRY(pm_schema_alter_options(t->schema, has_snapshot, set_keys, set_values, nset, reset_keys, nreset,
                                   &next));
    /* global index declarations, as at creation (index/global_index_decl.h) */
    pm_error *e = pm_gi_decls_validate(next->options, next->row_type, next->primary_keys.count);
    if (!e) /* declared columns keep name and type (index/global_index_alter.h) */
        e = pm_gi_check_alter(t->schema, next);
    bool committed = false;
    if (!e)
        e = pm_schema_commit(t->fio, t->branch_root, next, &committed);
    if (!e && !committed)
        e = pm_error_new(PM_ECONFLICT, "schema %lld of table %s was written concurrently; nothing changed",
                         (long long)next->id, t->path);
    pm_schema_free(next);
    if (e)
        return pm_error_wrap(e, 0, "alter table %s", t->path);
    bool changed = false;
    return pm_error_wrap(pm_table_reload(t, &changed), 0, "alter table %s: reload", t->path);
}
