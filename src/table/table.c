/*
 * table/table.c — open and create tables; the schema cache.
 *
 * Open: schema directory of the branch → latest schema-N (PM_ENOTFOUND when
 * there is none), then derived state (partition type, snapshot store, path
 * factory), after pm_schema_validate_table (options and table rules; the
 * same pass runs on reload).  Create: build schema 0 from the spec
 * (meta/schema.c applies Paimon's rules and validates it), then publish
 * schema/schema-0 with publish-if-absent so two creators cannot both win;
 * a refused spec writes nothing.
 */
#include "table/table_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf_pool.h"
#include "base/mem.h"
#include "base/util.h"
#include "index/global_index_decl.h"
#include "meta/safe_path.h"
#include "table/table_memo.h"

/* Spare writer buffers a table handle keeps between its writers (page
 * blocks and page buffers of Parquet files: one compaction task's output
 * row group is reused by the next task instead of faulted in again). */
#define TABLE_SPARE_BUFFERS ((size_t)64 << 20)

static void table_destroy(pm_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->schema_cache_len; i++)
        if (t->schema_cache[i] && t->schema_cache[i] != t->schema)
            pm_schema_free(t->schema_cache[i]);
    free(t->schema_cache);
    pm_table_memo_free(t->memo);
    pm_schema_free(t->schema);
    pm_type_free(t->partition_type);
    pm_snapshot_store_free(t->snapshots);
    pm_path_factory_free(t->paths);
    pm_fileio_free(t->fio);
    free(t->path);
    free(t->branch);
    free(t->branch_root);
    pthread_mutex_destroy(&t->cache_mu);
    pm_buf_pool_free(t->buffers);
    free(t);
}

void pm_table_free(pm_table *t) { table_destroy(t); }

const char *pm_table_path(const pm_table *t) { return t->path; }
const char *pm_table_branch(const pm_table *t) { return t->branch; }
const pm_schema *pm_table_schema(const pm_table *t) { return t->schema; }
bool pm_table_has_primary_key(const pm_table *t) { return t->schema->primary_keys.count > 0; }

int32_t pm_table_num_buckets(const pm_table *t)
{
    int32_t n = -1;
    pm_error *e = pm_schema_num_buckets(t->schema, &n);
    if (e) {
        pm_error_free(e);
        return -1;
    }
    return n;
}

pm_error *pm_table_check_external_path(pm_table *t, int64_t read_schema_id, const char *field, const char *path)
{
    const char *roots = pm_options_raw(pm_table_options(t), PM_OPT_DATA_FILE_EXTERNAL_PATHS);
    pm_error *e = pm_safe_external_path(PM_ECORRUPT, field, path, roots);
    if (!e || pm_error_code(e) != PM_ECORRUPT || read_schema_id < 0 || read_schema_id == t->schema->id)
        return e;
    const pm_schema *rs = NULL;
    pm_error *le = pm_table_schema_by_id(t, read_schema_id, &rs);
    if (le) {
        pm_error_free(e);
        return pm_error_wrap(le, 0, "%s: the external roots of schema %lld", field, (long long)read_schema_id);
    }
    const char *other = pm_options_raw(rs->options, PM_OPT_DATA_FILE_EXTERNAL_PATHS);
    if (!other || (roots && !strcmp(other, roots)))
        return e;
    pm_error *e2 = pm_safe_external_path(PM_ECORRUPT, field, path, other);
    if (!e2) {
        pm_error_free(e);
        return NULL;
    }
    pm_error_free(e2);
    return e;
}

pm_error *pm_table_check_index_external_path(pm_table *t, int64_t read_schema_id, const char *field,
                                             const char *path)
{
    pm_error *e = pm_table_check_external_path(t, read_schema_id, field, path);
    const char *gi = pm_options_get(pm_table_options(t), "global-index.external-path");
    if (!e || pm_error_code(e) != PM_ECORRUPT || !gi || !*gi)
        return e;
    pm_error *e2 = pm_safe_external_path(PM_ECORRUPT, field, path, gi);
    if (e2) {
        pm_error_free(e2);
        return e;
    }
    pm_error_free(e);
    return NULL;
}

pm_error *pm_table_gi_external_root(const pm_options *o, const char **root, char **local)
{
    *root = NULL;
    *local = NULL;
    const char *v = pm_options_get(o, "global-index.external-path");
    while (v && (*v == ' ' || *v == '\t'))
        v++;
    if (!v || !*v)
        return NULL;
    if (strchr(v, ','))
        return pm_error_new(PM_EINVALID, "option 'global-index.external-path' = '%s': one directory, not a list", v);
    PM_TRY(pm_error_wrap(pm_safe_external_path(PM_EINVALID, "option 'global-index.external-path'", v, v), 0,
                         "option 'global-index.external-path' must be an absolute local directory"));
    const char *l = pm_safe_path_local(v);
    size_t n = strlen(l);
    while (n > 1 && l[n - 1] == '/')
        n--;
    PM_TRY(pm_strndup(local, l, n));
    *root = v;
    return NULL;
}

static pm_error *strip_path(const char *path, char **out)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    if (n >= 7 && !strncmp(path, "file://", 7)) {
        path += 7;
        n -= 7;
    }
    return pm_strndup(out, path, n);
}

static pm_error *derive_state(pm_table *t)
{
    PM_TRY(pm_schema_validate_table(t->schema, false));
    PM_TRY(pm_schema_partition_type(t->schema, &t->partition_type));
    pm_path_factory_free(t->paths);
    t->paths = NULL;
    PM_TRY(pm_path_factory_new(&t->paths, t->path, t->partition_type, t->schema->options));
    return NULL;
}

pm_error *pm_table_open(pm_table **out, const char *path, const char *branch)
{
    *out = NULL;
    pm_table *t;
    PM_TRY(pm_calloc(&t, 1, sizeof *t));
    pthread_mutex_init(&t->cache_mu, NULL);
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_buf_pool_new(&t->buffers, TABLE_SPARE_BUFFERS), fail);
    PM_TRY_GOTO(e, pm_table_memo_new(&t->memo), fail);
    PM_TRY_GOTO(e, strip_path(path, &t->path), fail);
    PM_TRY_GOTO(e, pm_strdup(&t->branch, branch ? branch : "main"), fail);
    PM_TRY_GOTO(e, pm_fileio_local_new(&t->fio), fail);
    PM_TRY_GOTO(e, pm_branch_root(t->path, t->branch, &t->branch_root), fail);
    PM_TRY_GOTO(e, pm_schema_load_latest(t->fio, t->branch_root, &t->schema), fail);
    if (!t->schema) {
        e = !strcmp(t->branch, "main")
                ? pm_error_new(PM_ENOTFOUND, "no Paimon table at %s (no schema/schema-N)", t->path)
                : pm_error_new(PM_ENOTFOUND, "table %s has no branch '%s'", t->path, t->branch);
        goto fail;
    }
    PM_TRY_GOTO(e, pm_snapshot_store_open(&t->snapshots, t->fio, t->path, t->branch), fail);
    PM_TRY_GOTO(e, derive_state(t), fail);
    *out = t;
    return NULL;
fail:
    table_destroy(t);
    return pm_error_wrap(e, 0, "open table %s", path);
}

pm_error *pm_table_schema_by_id(pm_table *t, int64_t id, const pm_schema **out)
{
    *out = NULL;
    if (id < 0 || id > INT32_MAX)
        return pm_error_new(PM_ECORRUPT, "invalid schema id %lld", (long long)id);
    if (id == t->schema->id) {
        *out = t->schema;
        return NULL;
    }
    pm_error *e = NULL;
    pthread_mutex_lock(&t->cache_mu);
    if ((size_t)id < t->schema_cache_len && t->schema_cache[id]) {
        *out = t->schema_cache[id];
        goto done;
    }
    if ((size_t)id >= t->schema_cache_len) {
        size_t n = (size_t)id + 1;
        PM_TRY_GOTO(e, pm_realloc_array(&t->schema_cache, n, sizeof *t->schema_cache), done);
        memset(t->schema_cache + t->schema_cache_len, 0,
               (n - t->schema_cache_len) * sizeof *t->schema_cache);
        t->schema_cache_len = n;
    }
    pm_schema *s = NULL;
    PM_TRY_GOTO(e, pm_schema_load(t->fio, t->branch_root, id, &s), done);
    t->schema_cache[id] = s;
    *out = s;
done:
    pthread_mutex_unlock(&t->cache_mu);
    return e;
}

pm_error *pm_table_reload(pm_table *t, bool *changed)
{
    pm_schema *s = NULL;
    PM_TRY(pm_schema_load_latest(t->fio, t->branch_root, &s));
    if (!s)
        return pm_error_new(PM_ENOTFOUND, "table %s lost its schema", t->path);
    *changed = s->id != t->schema->id;
    if (!*changed) {
        pm_schema_free(s);
        return NULL;
    }
    /* Keep the old latest schema reachable through the cache. */
    pthread_mutex_lock(&t->cache_mu);
    pm_error *e = NULL;
    int64_t old = t->schema->id;
    if ((size_t)old >= t->schema_cache_len) {
        size_t n = (size_t)old + 1;
        e = pm_realloc_array(&t->schema_cache, n, sizeof *t->schema_cache);
        if (!e) {
            memset(t->schema_cache + t->schema_cache_len, 0,
                   (n - t->schema_cache_len) * sizeof *t->schema_cache);
            t->schema_cache_len = n;
        }
    }
    if (!e && !t->schema_cache[old])
        t->schema_cache[old] = t->schema;
    else if (!e)
        pm_schema_free(t->schema);
    pthread_mutex_unlock(&t->cache_mu);
    if (e) {
        pm_schema_free(s);
        return e;
    }
    t->schema = s;
    pm_type_free(t->partition_type);
    t->partition_type = NULL;
    return derive_state(t);
}

pm_error *pm_table_create(const char *path, const pm_table_spec *spec, bool ignore_if_exists)
{
    pm_error *e = NULL;
    char *root = NULL;
    pm_fileio *fio = NULL;
    pm_options *opts = NULL;
    pm_schema *s = NULL, *existing = NULL;
    if (!spec || spec->version != PM_TABLE_SPEC_VERSION) {
        e = pm_error_new(PM_EINVALID, "table spec version %d (this library knows %d)", spec ? spec->version : 0,
                         PM_TABLE_SPEC_VERSION);
        goto done;
    }
    if (!spec->row_type || spec->row_type->id != PM_TYPE_ROW) {
        e = pm_error_new(PM_EINVALID, "a table needs a ROW type of fields");
        goto done;
    }
    PM_TRY_GOTO(e, strip_path(path, &root), done);
    PM_TRY_GOTO(e, pm_fileio_local_new(&fio), done);
    PM_TRY_GOTO(e, pm_schema_load_latest(fio, root, &existing), done);
    if (existing) {
        if (!ignore_if_exists)
            e = pm_error_new(PM_EEXIST, "table %s already exists", root);
        goto done;
    }
    PM_TRY_GOTO(e, pm_options_new(&opts), done);
    for (size_t i = 0; i < spec->noptions; i++)
        PM_TRY_GOTO(e, pm_options_set(opts, spec->option_keys[i], spec->option_values[i]), done);
    /* builds schema 0 and runs the one validation pass
     * (pm_schema_validate_table: options, keys, table rules) before
     * anything is written */
    PM_TRY_GOTO(e, pm_schema_new_table(&s, spec->row_type, spec->partition_keys, spec->npartition_keys,
                                       spec->primary_keys, spec->nprimary_keys, opts, spec->comment,
                                       pm_now_millis()), done);
    /* global index declarations (index/global_index_decl.h) */
    PM_TRY_GOTO(e, pm_gi_decls_validate(s->options, s->row_type, s->primary_keys.count), done);
    bool committed = false;
    PM_TRY_GOTO(e, pm_schema_commit(fio, root, s, &committed), done);
    if (!committed && !ignore_if_exists)
        e = pm_error_new(PM_EEXIST, "table %s already exists (created concurrently)", root);
done:
    pm_schema_free(existing);
    pm_schema_free(s);
    pm_options_free(opts);
    pm_fileio_free(fio);
    free(root);
    return pm_error_wrap(e, 0, "create table %s", path);
}
