/*
 * table/incremental.c — incremental scans and their no-merge reader
 * (table/incremental.h).
 *
 * Scan: range check against the earliest and latest snapshots → per
 * snapshot of (A, B] its delta or changelog manifest list (by mode and
 * commit kind) → entries (table/scan.h pm_scan_manifest_list_entries,
 * partition filters and external-path checks as in a normal scan) → all
 * ADD → grouped by (partition, bucket), snapshot order kept.
 * Read: bucket after bucket, file after file: the file reader (schema
 * evolution by field id; system columns for key-value files) → output
 * batch sharing the file's columns plus a `_ROW_KIND` column made from
 * `_VALUE_KIND`.
 */
#include "table/incremental.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "lsm/kv.h"
#include "meta/manifest.h"
#include "table/file_read.h"
#include "table/partition.h"
#include "table/pk_write.h"
#include "types/column.h"

const char *pm_incr_mode_name(pm_incr_mode m)
{
    return m == PM_INCR_DELTA ? "delta" : m == PM_INCR_CHANGELOG ? "changelog" : "auto";
}

pm_error *pm_incr_mode_resolve(pm_table *t, pm_incr_mode m, pm_incr_mode *out)
{
    if (m != PM_INCR_AUTO) {
        if (m != PM_INCR_DELTA && m != PM_INCR_CHANGELOG)
            return pm_error_new(PM_EINVALID, "unknown incremental read mode %d", (int)m);
        *out = m;
        return NULL;
    }
    int producer = 0;
    PM_TRY(pm_options_enum(pm_table_options(t), PM_OPT_CHANGELOG_PRODUCER, &producer));
    *out = producer == PM_CHANGELOG_NONE ? PM_INCR_DELTA : PM_INCR_CHANGELOG;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* scan                                                                */

/* The entries snapshot s contributes (none for skipped kinds). */
static pm_error *snapshot_entries(pm_table *t, const pm_snapshot *s, pm_incr_mode mode, const pm_partition_spec *specs,
                                  size_t nspecs, pm_manifest_entry_list *ev)
{
    const char *list = NULL;
    if (mode == PM_INCR_DELTA && s->commit_kind == PM_COMMIT_APPEND)
        list = s->delta_manifest_list;
    else if (mode == PM_INCR_CHANGELOG && s->commit_kind != PM_COMMIT_OVERWRITE)
        list = s->changelog_manifest_list;
    if (!list || !*list)
        return NULL;
    size_t first = ev->n;
    PM_TRY(pm_scan_manifest_list_entries(t, s->schema_id, list, specs, nspecs, ev));
    for (size_t i = first; i < ev->n; i++)
        if (ev->v[i].kind != PM_FILE_ADD)
            return pm_error_new(PM_EUNSUPPORTED, "incremental %s read of snapshot %" PRId64 ": its %s deletes file %s "
                                "(a delta or changelog may only add files)", pm_incr_mode_name(mode), s->id,
                                mode == PM_INCR_DELTA ? "delta" : "changelog", ev->v[i].file.file_name);
    return NULL;
}

pm_error *pm_incremental_scan(pm_table *t, int64_t from, int64_t to, pm_incr_mode mode,
                              const pm_partition_spec *specs, size_t nspecs, pm_scan_result **out)
{
    *out = NULL;
    if (from < 0 || to < from)
        return pm_error_new(PM_EINVALID, "incremental read between snapshots %" PRId64 " and %" PRId64 ": the end "
                            "must not be below the start, and the start not negative", from, to);
    PM_TRY(pm_incr_mode_resolve(t, mode, &mode));
    pm_scan_result *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    r->schema = pm_table_schema(t);
    pm_error *e = NULL;
    pm_manifest_entry_list ev = {0};
    bool found = false;
    int64_t earliest = 0, latest = 0;
    PM_TRY_GOTO(e, pm_snapshot_store_earliest_id(t->snapshots, &found, &earliest), done);
    if (found)
        PM_TRY_GOTO(e, pm_snapshot_store_latest_id(t->snapshots, &found, &latest), done);
    if (!found || from == to)
        goto done; /* nothing to read (Java: an empty result) */
    if (from < earliest - 1 || to > latest) {
        e = pm_error_new(PM_EINVALID, "incremental read between snapshots %" PRId64 " and %" PRId64 " is out of the "
                         "available snapshots %" PRId64 "..%" PRId64 " (the start may be one below the earliest)",
                         from, to, earliest, latest);
        goto done;
    }
    for (int64_t id = from + 1; id <= to && !e; id++) {
        pm_snapshot *s = NULL;
        e = pm_snapshot_store_load(t->snapshots, id, &s);
        if (!e)
            e = snapshot_entries(t, s, mode, specs, nspecs, &ev);
        if (!e && id == to)
            r->snapshot = s;
        else
            pm_snapshot_free(s);
        if (e)
            e = pm_error_wrap(e, 0, "snapshot %" PRId64, id);
    }
    if (!e)
        e = pm_scan_group_entries(t, &ev, &r->buckets, &r->nbuckets);
done:
    pm_manifest_entry_list_free(&ev);
    if (e) {
        pm_scan_result_free(r);
        return pm_error_wrap(e, 0, "incremental %s read of table %s", pm_incr_mode_name(mode), t->path);
    }
    *out = r;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* reader                                                              */

struct pm_incr_reader {
    pm_table *t;
    const pm_scan_result *scan;
    pm_type *type;            /* output: the fields and _ROW_KIND */
    pm_type *read_type;       /* the fields */
    size_t kind_pos;          /* position of _ROW_KIND in type */
    bool kv;                  /* key-value files (primary keys): system columns */
    int64_t batch_rows;
    size_t bucket, file;      /* next file */
    pm_file_reader *fr;
    char *dir;
    pm_batch *out;
    pm_column *kinds;
};

static void release_out(pm_incr_reader *r)
{
    if (!r->out)
        return;
    for (size_t i = 0; i < r->out->ncolumns; i++) {
        pm_column_release(r->out->columns[i]);
        r->out->columns[i] = NULL;
    }
    r->out->num_rows = 0;
}

void pm_incr_reader_free(pm_incr_reader *r)
{
    if (!r)
        return;
    release_out(r);
    pm_batch_free(r->out);
    pm_column_release(r->kinds);
    pm_file_reader_free(r->fr);
    free(r->dir);
    pm_type_free(r->type);
    pm_type_free(r->read_type);
    free(r);
}

/* The fields asked for (without _ROW_KIND) and the output type. */
static pm_error *make_types(pm_incr_reader *r, const pm_schema *s, const char *const *cols, size_t n)
{
    const char **names = NULL;
    size_t nn = 0;
    r->kind_pos = SIZE_MAX;
    if (cols) {
        PM_TRY(pm_calloc(&names, n ? n : 1, sizeof *names));
        for (size_t i = 0; i < n; i++) {
            for (size_t j = 0; j < i; j++)
                if (!strcmp(cols[i], cols[j])) {
                    free(names);
                    return pm_error_new(PM_EINVALID, "column '%s' requested twice", cols[i]);
                }
            if (!strcmp(cols[i], PM_ROW_KIND_COLUMN))
                r->kind_pos = i;
            else
                names[nn++] = cols[i];
        }
    }
    pm_error *e = NULL;
    if (cols) {
        e = pm_schema_project(s, names, nn, &r->read_type);
    } else {
        r->read_type = pm_type_clone(s->row_type);
        e = r->read_type ? NULL : pm_oom();
    }
    free(names);
    PM_TRY(e);
    if (pm_type_field_index(r->read_type, PM_ROW_KIND_COLUMN) >= 0)
        return pm_error_new(PM_EUNSUPPORTED, "incremental read of a table with a field named %s", PM_ROW_KIND_COLUMN);
    size_t nf = r->read_type->nfields;
    if (r->kind_pos == SIZE_MAX)
        r->kind_pos = nf;
    r->type = pm_type_new_row(false);
    if (!r->type)
        return pm_oom();
    for (size_t i = 0, k = 0; i <= nf; i++) {
        pm_type *ft;
        const char *name;
        int32_t id;
        if (i == r->kind_pos) {
            ft = pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, false);
            name = PM_ROW_KIND_COLUMN;
            id = -1;
        } else {
            const pm_field *f = &r->read_type->fields[k++];
            ft = pm_type_clone(f->type);
            name = f->name;
            id = f->id;
        }
        e = ft ? pm_type_add_field(r->type, id, name, ft) : pm_oom();
        if (e) {
            pm_type_free(ft);
            return e;
        }
    }
    return NULL;
}

pm_error *pm_incr_reader_new(pm_incr_reader **out, pm_table *t, const pm_scan_result *scan,
                             const char *const *columns, size_t ncolumns, int64_t batch_rows)
{
    *out = NULL;
    pm_incr_reader *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    r->t = t;
    r->scan = scan;
    r->batch_rows = batch_rows > 0 ? batch_rows : 4096;
    const pm_schema *s = scan->schema ? scan->schema : pm_table_schema(t);
    r->kv = s->primary_keys.count > 0;
    pm_error *e = make_types(r, s, columns, ncolumns);
    if (!e)
        e = pm_batch_new(&r->out, r->type);
    if (e) {
        pm_incr_reader_free(r);
        return pm_error_wrap(e, 0, "incremental read of table %s", t->path);
    }
    release_out(r);
    *out = r;
    return NULL;
}

const pm_type *pm_incr_reader_type(const pm_incr_reader *r) { return r->type; }

static pm_error *open_next(pm_incr_reader *r, bool *end)
{
    *end = false;
    while (r->bucket < r->scan->nbuckets && r->file >= r->scan->buckets[r->bucket].nfiles) {
        r->bucket++;
        r->file = 0;
        free(r->dir);
        r->dir = NULL;
    }
    if (r->bucket >= r->scan->nbuckets) {
        *end = true;
        return NULL;
    }
    const pm_bucket_files *b = &r->scan->buckets[r->bucket];
    if (!r->dir)
        PM_TRY(pm_table_bucket_dir(b->table, b->partition.data, b->partition.len, b->bucket, &r->dir));
    pm_file_read_options fo = {r->read_type, r->batch_rows, r->kv, NULL};
    return pm_file_reader_open(&r->fr, b->table, r->dir, &b->files[r->file++], &fo);
}

static pm_error *kinds_of(pm_incr_reader *r, const pm_batch *b)
{
    pm_column_release(r->kinds);
    r->kinds = NULL;
    PM_TRY(pm_column_new(&r->kinds, r->type->fields[r->kind_pos].type));
    for (int64_t i = 0; i < b->num_rows; i++) {
        uint8_t k = r->kv ? (uint8_t)pm_column_i8(b->columns[1], i) : PM_KIND_INSERT;
        if (k > PM_KIND_DELETE)
            return pm_error_new(PM_ECORRUPT, "row %" PRId64 " has _VALUE_KIND %d", pm_file_reader_position(r->fr) + i,
                                (int)k);
        PM_TRY(pm_column_append_bytes(r->kinds, pm_kind_name(k), 2));
    }
    return NULL;
}

pm_error *pm_incr_reader_next(pm_incr_reader *r, const pm_batch **out)
{
    *out = NULL;
    release_out(r);
    for (;;) {
        if (!r->fr) {
            bool end = false;
            PM_TRY(open_next(r, &end));
            if (end)
                return NULL;
        }
        const pm_batch *b = NULL;
        pm_error *e = pm_file_reader_next(r->fr, &b);
        if (!e && b && b->num_rows)
            e = kinds_of(r, b);
        if (e) {
            const pm_bucket_files *bf = &r->scan->buckets[r->bucket];
            return pm_error_wrap(e, 0, "file %s (bucket %d)", bf->files[r->file - 1].file_name, (int)bf->bucket);
        }
        if (!b) {
            pm_file_reader_free(r->fr);
            r->fr = NULL;
            continue;
        }
        if (!b->num_rows)
            continue;
        size_t sys = r->kv ? 2 : 0;
        for (size_t i = 0, k = 0; i < r->out->ncolumns; i++)
            r->out->columns[i] = pm_column_retain(i == r->kind_pos ? r->kinds : b->columns[sys + k++]);
        r->out->num_rows = b->num_rows;
        *out = r->out;
        return NULL;
    }
}
