/*
 * compact/compact_json.c — JSON form of plans, tasks and results, so a task
 * can run in another process or machine and its result come back.
 *
 * Every document is an object with "format": 1 and "kind": "plan" | "task"
 * | "result".  Every key is always written (nullable values as null), and
 * reading is strict: an unknown key, a missing key, a wrong JSON type, a
 * number out of range, bad base64 or an unknown enum value is PM_EINVALID
 * naming the field by its path (e.g. `task.files[2].value_stats.null_counts`).
 * Byte strings (serialized BinaryRows, embedded indexes) are standard
 * base64.  Integers are JSON integers (64-bit); DataFileMeta round-trips
 * exactly, null and empty distinguished.
 *
 *   task   {format, kind, table, plan_id, commit_user, task_index, snapshot_id,
 *           schema_id, mode ("append-unaware"|"append-bucketed"), full,
 *           partition, bucket, total_buckets,
 *           output {format, compression, target_file_size, target_file_row_num, level,
 *                   row_group_passthrough, row_group_passthrough_min_size},
 *           files [DataFileMeta], deletion_vectors [DvRef], index_files [IndexEntry],
 *           pk (primary-key tasks, else null: pk_json.c)}
 *   result {format, kind, table, plan_id, commit_user, task_index, snapshot_id,
 *           schema_id, partition, bucket, total_buckets, before [DataFileMeta],
 *           after [DataFileMeta], changelog [DataFileMeta], deletion_vectors [DvRef], index_added [IndexEntry],
 *           index_removed [IndexEntry], counters {rows_read, rows_deleted,
 *           rows_written, bytes_read, bytes_written, duration_ms}, pk | null}
 *   plan   {format, kind, table, plan_id, commit_user, snapshot_id, schema_id,
 *           full, tasks [task]}
 *   DataFileMeta {file_name, file_size, row_count, min_key, max_key, key_stats,
 *           value_stats, min_sequence_number, max_sequence_number, schema_id,
 *           level, extra_files, creation_time, delete_row_count, embedded_index,
 *           file_source, value_stats_cols, external_path, first_row_id,
 *           write_cols, write_cols_sequences}
 *   SimpleStats {min_values, max_values, null_counts [int|null] | null}
 *   DvRef {data_file, index_file, offset, length, cardinality}
 *   IndexEntry {kind (0 ADD, 1 DELETE), partition, bucket, index_type, file_name,
 *           file_size, row_count, dv_ranges [{data_file, offset, length,
 *           cardinality}] | null, external_path, global_index {row_range_start,
 *           row_range_end, index_field_id, extra_field_ids, index_meta,
 *           source_meta} | null}
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "base/util.h"
#include "compact/compact_internal.h"
#include "compact/pk_compact.h"
#include "meta/manifest.h"

/* ================================================================== */
/* writing                                                             */
/* ================================================================== */

typedef struct jb {
    bool failed;    /* allocation failure or invalid UTF-8 */
    const char *bad_string;
} jb;

static json_t *w_take(jb *b, json_t *v)
{
    if (!v)
        b->failed = true;
    return v;
}

static void w_set(jb *b, json_t *obj, const char *key, json_t *v)
{
    if (!v) {
        b->failed = true;
        return;
    }
    if (!obj || json_object_set_new(obj, key, v))
        b->failed = true;
}

static void w_push(jb *b, json_t *arr, json_t *v)
{
    if (!v) {
        b->failed = true;
        return;
    }
    if (!arr || json_array_append_new(arr, v))
        b->failed = true;
}

static json_t *w_str(jb *b, const char *s)
{
    if (!s)
        return json_null();
    json_t *v = json_string(s);
    if (!v && !b->bad_string)
        b->bad_string = s;
    return w_take(b, v);
}

static json_t *w_long(jb *b, int64_t v) { return w_take(b, json_integer((json_int_t)v)); }

static json_t *w_opt_long(jb *b, pm_opt_long v) { return v.has ? w_long(b, v.v) : json_null(); }

static json_t *w_bytes(jb *b, const pm_bytes *v)
{
    if (!v->has)
        return json_null();
    pm_buf buf = PM_BUF_INIT;
    pm_error *e = pm_base64_encode(&buf, v->data, v->len);
    const char *s = NULL;
    if (!e)
        e = pm_buf_cstr(&buf, &s);
    json_t *r = NULL;
    if (!e)
        r = json_stringn(s, buf.len);
    pm_error_free(e);
    pm_buf_free(&buf);
    return w_take(b, r);
}

static json_t *w_str_list(jb *b, bool has, const pm_str_list *l)
{
    if (!has)
        return json_null();
    json_t *a = w_take(b, json_array());
    for (size_t i = 0; i < l->count; i++)
        w_push(b, a, w_str(b, l->items[i]));
    return a;
}

static json_t *w_stats(jb *b, const pm_simple_stats *s)
{
    json_t *o = w_take(b, json_object());
    w_set(b, o, "min_values", w_bytes(b, &s->min_values));
    w_set(b, o, "max_values", w_bytes(b, &s->max_values));
    if (s->has_null_counts) {
        json_t *a = w_take(b, json_array());
        for (size_t i = 0; i < s->null_count_len; i++)
            w_push(b, a, w_opt_long(b, s->null_counts[i]));
        w_set(b, o, "null_counts", a);
    } else {
        w_set(b, o, "null_counts", json_null());
    }
    return o;
}

static json_t *w_file(jb *b, const pm_data_file_meta *f)
{
    json_t *o = w_take(b, json_object());
    w_set(b, o, "file_name", w_str(b, f->file_name));
    w_set(b, o, "file_size", w_long(b, f->file_size));
    w_set(b, o, "row_count", w_long(b, f->row_count));
    w_set(b, o, "min_key", w_bytes(b, &f->min_key));
    w_set(b, o, "max_key", w_bytes(b, &f->max_key));
    w_set(b, o, "key_stats", w_stats(b, &f->key_stats));
    w_set(b, o, "value_stats", w_stats(b, &f->value_stats));
    w_set(b, o, "min_sequence_number", w_long(b, f->min_sequence_number));
    w_set(b, o, "max_sequence_number", w_long(b, f->max_sequence_number));
    w_set(b, o, "schema_id", w_long(b, f->schema_id));
    w_set(b, o, "level", w_long(b, f->level));
    w_set(b, o, "extra_files", w_str_list(b, true, &f->extra_files));
    w_set(b, o, "creation_time", w_opt_long(b, f->creation_time));
    w_set(b, o, "delete_row_count", w_opt_long(b, f->delete_row_count));
    w_set(b, o, "embedded_index", w_bytes(b, &f->embedded_index));
    w_set(b, o, "file_source", f->file_source.has ? w_long(b, f->file_source.v) : json_null());
    w_set(b, o, "value_stats_cols", w_str_list(b, f->has_value_stats_cols, &f->value_stats_cols));
    w_set(b, o, "external_path", w_str(b, f->external_path));
    w_set(b, o, "first_row_id", w_opt_long(b, f->first_row_id));
    w_set(b, o, "write_cols", w_str_list(b, f->has_write_cols, &f->write_cols));
    if (f->has_write_cols_sequences) {
        json_t *a = w_take(b, json_array());
        for (size_t i = 0; i < f->write_cols_sequence_len; i++)
            w_push(b, a, w_long(b, f->write_cols_sequences[i]));
        w_set(b, o, "write_cols_sequences", a);
    } else {
        w_set(b, o, "write_cols_sequences", json_null());
    }
    return o;
}

static json_t *w_files(jb *b, const pm_data_file_meta *f, size_t n)
{
    json_t *a = w_take(b, json_array());
    for (size_t i = 0; i < n; i++)
        w_push(b, a, w_file(b, &f[i]));
    return a;
}

static json_t *w_dvs(jb *b, const pm_compact_dv_ref *d, size_t n)
{
    json_t *a = w_take(b, json_array());
    for (size_t i = 0; i < n; i++) {
        json_t *o = w_take(b, json_object());
        w_set(b, o, "data_file", w_str(b, d[i].data_file));
        w_set(b, o, "index_file", w_str(b, d[i].index_file));
        w_set(b, o, "offset", w_long(b, d[i].offset));
        w_set(b, o, "length", w_long(b, d[i].length));
        w_set(b, o, "cardinality", w_opt_long(b, d[i].cardinality));
        w_push(b, a, o);
    }
    return a;
}

static json_t *w_index(jb *b, const pm_index_manifest_entry *e, size_t n)
{
    json_t *a = w_take(b, json_array());
    for (size_t i = 0; i < n; i++) {
        const pm_index_file_meta *f = &e[i].index_file;
        json_t *o = w_take(b, json_object());
        w_set(b, o, "kind", w_long(b, e[i].kind));
        w_set(b, o, "partition", w_bytes(b, &e[i].partition));
        w_set(b, o, "bucket", w_long(b, e[i].bucket));
        w_set(b, o, "index_type", w_str(b, f->index_type));
        w_set(b, o, "file_name", w_str(b, f->file_name));
        w_set(b, o, "file_size", w_long(b, f->file_size));
        w_set(b, o, "row_count", w_long(b, f->row_count));
        if (f->has_dv_ranges) {
            json_t *r = w_take(b, json_array());
            for (size_t k = 0; k < f->dv_range_len; k++) {
                const pm_dv_meta *m = &f->dv_ranges[k];
                json_t *mo = w_take(b, json_object());
                w_set(b, mo, "data_file", w_str(b, m->data_file_name));
                w_set(b, mo, "offset", w_long(b, m->offset));
                w_set(b, mo, "length", w_long(b, m->length));
                w_set(b, mo, "cardinality", w_opt_long(b, m->cardinality));
                w_push(b, r, mo);
            }
            w_set(b, o, "dv_ranges", r);
        } else {
            w_set(b, o, "dv_ranges", json_null());
        }
        w_set(b, o, "external_path", w_str(b, f->external_path));
        if (f->has_global_index) {
            const pm_global_index_meta *g = &f->global_index;
            json_t *go = w_take(b, json_object());
            w_set(b, go, "row_range_start", w_long(b, g->row_range_start));
            w_set(b, go, "row_range_end", w_long(b, g->row_range_end));
            w_set(b, go, "index_field_id", w_long(b, g->index_field_id));
            if (g->has_extra_field_ids) {
                json_t *x = w_take(b, json_array());
                for (size_t k = 0; k < g->extra_field_id_len; k++)
                    w_push(b, x, w_long(b, g->extra_field_ids[k]));
                w_set(b, go, "extra_field_ids", x);
            } else {
                w_set(b, go, "extra_field_ids", json_null());
            }
            w_set(b, go, "index_meta", w_bytes(b, &g->index_meta));
            w_set(b, go, "source_meta", w_bytes(b, &g->source_meta));
            w_set(b, o, "global_index", go);
        } else {
            w_set(b, o, "global_index", json_null());
        }
        w_push(b, a, o);
    }
    return a;
}

static json_t *w_task(jb *b, const pm_compact_task *t)
{
    json_t *o = w_take(b, json_object());
    w_set(b, o, "format", w_long(b, PM_COMPACT_FORMAT_VERSION));
    w_set(b, o, "kind", w_str(b, "task"));
    w_set(b, o, "table", w_str(b, t->table_path));
    w_set(b, o, "plan_id", w_str(b, t->plan_id));
    w_set(b, o, "commit_user", w_str(b, t->commit_user));
    w_set(b, o, "task_index", w_long(b, t->task_index));
    w_set(b, o, "snapshot_id", w_long(b, t->snapshot_id));
    w_set(b, o, "schema_id", w_long(b, t->schema_id));
    w_set(b, o, "mode", w_str(b, pm_compact_mode_name(t->mode)));
    w_set(b, o, "full", w_take(b, json_boolean(t->full)));
    w_set(b, o, "partition", w_bytes(b, &t->partition));
    w_set(b, o, "bucket", w_long(b, t->bucket));
    w_set(b, o, "total_buckets", w_long(b, t->total_buckets));
    json_t *out = w_take(b, json_object());
    w_set(b, out, "format", w_str(b, t->output.format));
    w_set(b, out, "compression", w_str(b, t->output.compression));
    w_set(b, out, "target_file_size", w_long(b, t->output.target_file_size));
    w_set(b, out, "target_file_row_num", w_long(b, t->output.target_file_row_num));
    w_set(b, out, "level", w_long(b, t->output.level));
    w_set(b, out, "row_group_passthrough", w_take(b, json_boolean(t->output.rg_passthrough)));
    w_set(b, out, "row_group_passthrough_min_size", w_long(b, t->output.rg_passthrough_min));
    w_set(b, o, "output", out);
    w_set(b, o, "files", w_files(b, t->files, t->nfiles));
    w_set(b, o, "deletion_vectors", w_dvs(b, t->dvs, t->ndvs));
    w_set(b, o, "index_files", w_index(b, t->dv_index, t->ndv_index));
    w_set(b, o, "pk", t->pk ? w_take(b, pm_compact_pk_to_json(t->pk)) : json_null());
    return o;
}

static json_t *w_result(jb *b, const pm_compact_result *r)
{
    json_t *o = w_take(b, json_object());
    w_set(b, o, "format", w_long(b, PM_COMPACT_FORMAT_VERSION));
    w_set(b, o, "kind", w_str(b, "result"));
    w_set(b, o, "table", w_str(b, r->table_path));
    w_set(b, o, "plan_id", w_str(b, r->plan_id));
    w_set(b, o, "commit_user", w_str(b, r->commit_user));
    w_set(b, o, "task_index", w_long(b, r->task_index));
    w_set(b, o, "snapshot_id", w_long(b, r->snapshot_id));
    w_set(b, o, "schema_id", w_long(b, r->schema_id));
    w_set(b, o, "partition", w_bytes(b, &r->partition));
    w_set(b, o, "bucket", w_long(b, r->bucket));
    w_set(b, o, "total_buckets", w_long(b, r->total_buckets));
    w_set(b, o, "before", w_files(b, r->before, r->nbefore));
    w_set(b, o, "after", w_files(b, r->after, r->nafter));
    w_set(b, o, "changelog", w_files(b, r->changelog, r->nchangelog));
    w_set(b, o, "deletion_vectors", w_dvs(b, r->dvs, r->ndvs));
    w_set(b, o, "index_added", w_index(b, r->index_added, r->nindex_added));
    w_set(b, o, "index_removed", w_index(b, r->index_removed, r->nindex_removed));
    json_t *c = w_take(b, json_object());
    w_set(b, c, "rows_read", w_long(b, r->counters.rows_read));
    w_set(b, c, "rows_deleted", w_long(b, r->counters.rows_deleted));
    w_set(b, c, "rows_written", w_long(b, r->counters.rows_written));
    w_set(b, c, "bytes_read", w_long(b, r->counters.bytes_read));
    w_set(b, c, "bytes_written", w_long(b, r->counters.bytes_written));
    w_set(b, c, "duration_ms", w_long(b, r->counters.duration_ms));
    w_set(b, o, "counters", c);
    w_set(b, o, "pk", r->pk ? w_take(b, pm_compact_pk_to_json(r->pk)) : json_null());
    return o;
}

static json_t *w_plan(jb *b, const pm_compact_plan *p)
{
    json_t *o = w_take(b, json_object());
    w_set(b, o, "format", w_long(b, PM_COMPACT_FORMAT_VERSION));
    w_set(b, o, "kind", w_str(b, "plan"));
    w_set(b, o, "table", w_str(b, p->table_path));
    w_set(b, o, "plan_id", w_str(b, p->plan_id));
    w_set(b, o, "commit_user", w_str(b, p->commit_user));
    w_set(b, o, "snapshot_id", w_long(b, p->snapshot_id));
    w_set(b, o, "schema_id", w_long(b, p->schema_id));
    w_set(b, o, "full", w_take(b, json_boolean(p->full)));
    json_t *a = w_take(b, json_array());
    for (size_t i = 0; i < p->ntasks; i++)
        w_push(b, a, w_task(b, p->tasks[i]));
    w_set(b, o, "tasks", a);
    return o;
}

static pm_error *w_finish(jb *b, json_t *root, const char *what, char **out)
{
    *out = NULL;
    if (b->failed || !root) {
        json_decref(root);
        if (b->bad_string)
            return pm_error_new(PM_EINVALID, "%s: string is not valid UTF-8: \"%.80s\"", what, b->bad_string);
        return pm_error_wrap(pm_oom(), PM_ENOMEM, "%s to JSON", what);
    }
    char *s = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!s)
        return pm_error_wrap(pm_oom(), PM_ENOMEM, "%s to JSON", what);
    /* jansson allocates with malloc by default: the caller frees with free() */
    *out = s;
    return NULL;
}

pm_error *pm_compact_task_to_json(const pm_compact_task *t, char **out)
{
    jb b = {0};
    return w_finish(&b, w_task(&b, t), "task", out);
}

pm_error *pm_compact_result_to_json(const pm_compact_result *r, char **out)
{
    jb b = {0};
    return w_finish(&b, w_result(&b, r), "result", out);
}

pm_error *pm_compact_plan_to_json(const pm_compact_plan *p, char **out)
{
    jb b = {0};
    return w_finish(&b, w_plan(&b, p), "plan", out);
}

/* ================================================================== */
/* reading                                                             */
/* ================================================================== */

#define PATH_MAX_LEN 256

__attribute__((format(printf, 3, 4))) static pm_error *bad(const char *path, const char *key, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (key)
        return pm_error_new(PM_EINVALID, "%s.%s: %s", path, key, msg);
    return pm_error_new(PM_EINVALID, "%s: %s", path, msg);
}

static void sub_path(char *dst, const char *path, const char *key, long idx)
{
    int n = idx >= 0 ? snprintf(dst, PATH_MAX_LEN, "%s.%s[%ld]", path, key, idx)
                     : snprintf(dst, PATH_MAX_LEN, "%s.%s", path, key);
    if (n < 0 || n >= PATH_MAX_LEN)
        memcpy(dst + PATH_MAX_LEN - 4, "...", 4); /* truncated path */
}

static pm_error *r_keys(const json_t *o, const char *path, const char *const *allowed)
{
    if (!json_is_object(o))
        return bad(path, NULL, "expected an object");
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)o, k, v) {
        bool ok = false;
        for (size_t i = 0; allowed[i]; i++)
            if (!strcmp(allowed[i], k)) {
                ok = true;
                break;
            }
        if (!ok)
            return bad(path, NULL, "unknown field '%s'", k);
    }
    for (size_t i = 0; allowed[i]; i++)
        if (!json_object_get(o, allowed[i]))
            return bad(path, allowed[i], "missing");
    return NULL;
}

static const json_t *r_get(const json_t *o, const char *key) { return json_object_get(o, key); }

static pm_error *r_i64(const json_t *o, const char *path, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
    const json_t *v = r_get(o, key);
    if (!json_is_integer(v))
        return bad(path, key, "expected an integer");
    int64_t x = (int64_t)json_integer_value(v);
    if (x < lo || x > hi)
        return bad(path, key, "%" PRId64 " is out of range [%" PRId64 ", %" PRId64 "]", x, lo, hi);
    *out = x;
    return NULL;
}

static pm_error *r_i32(const json_t *o, const char *path, const char *key, int32_t lo, int32_t hi, int32_t *out)
{
    int64_t x = 0;
    PM_TRY(r_i64(o, path, key, lo, hi, &x));
    *out = (int32_t)x;
    return NULL;
}

static pm_error *r_opt_i64(const json_t *o, const char *path, const char *key, pm_opt_long *out)
{
    const json_t *v = r_get(o, key);
    out->has = false;
    out->v = 0;
    if (json_is_null(v))
        return NULL;
    if (!json_is_integer(v))
        return bad(path, key, "expected an integer or null");
    out->has = true;
    out->v = (int64_t)json_integer_value(v);
    return NULL;
}

static pm_error *r_bool(const json_t *o, const char *path, const char *key, bool *out)
{
    const json_t *v = r_get(o, key);
    if (!json_is_boolean(v))
        return bad(path, key, "expected true or false");
    *out = json_is_true(v);
    return NULL;
}

static pm_error *r_str(const json_t *o, const char *path, const char *key, bool nullable, char **out)
{
    const json_t *v = r_get(o, key);
    *out = NULL;
    if (nullable && json_is_null(v))
        return NULL;
    if (!json_is_string(v))
        return bad(path, key, nullable ? "expected a string or null" : "expected a string");
    const char *s = json_string_value(v);
    if (strlen(s) != json_string_length(v))
        return bad(path, key, "string contains a NUL character");
    return pm_strdup(out, s);
}

static pm_error *r_nonempty_str(const json_t *o, const char *path, const char *key, char **out)
{
    PM_TRY(r_str(o, path, key, false, out));
    if (!**out) {
        free(*out);
        *out = NULL;
        return bad(path, key, "must not be empty");
    }
    return NULL;
}

static pm_error *r_bytes(const json_t *o, const char *path, const char *key, bool nullable, pm_bytes *out)
{
    const json_t *v = r_get(o, key);
    memset(out, 0, sizeof *out);
    if (nullable && json_is_null(v))
        return NULL;
    if (!json_is_string(v))
        return bad(path, key, nullable ? "expected a base64 string or null" : "expected a base64 string");
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    /* strict standard base64: length multiple of 4, padding only at the end */
    if (n % 4)
        return bad(path, key, "invalid base64 (length %zu)", n);
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
                  c == '/' || (c == '=' && i + 2 >= n && (i + 1 == n || s[i + 1] == '='));
        if (!ok)
            return bad(path, key, "invalid base64 character at %zu", i);
    }
    pm_buf buf = PM_BUF_INIT;
    pm_error *e = pm_base64_decode(&buf, s, n);
    if (e) {
        pm_buf_free(&buf);
        pm_error_free(e);
        return bad(path, key, "invalid base64");
    }
    e = pm_bytes_set(out, buf.data, buf.len);
    pm_buf_free(&buf);
    return e;
}

static pm_error *r_array(const json_t *o, const char *path, const char *key, bool nullable, const json_t **out)
{
    const json_t *v = r_get(o, key);
    *out = NULL;
    if (nullable && json_is_null(v))
        return NULL;
    if (!json_is_array(v))
        return bad(path, key, nullable ? "expected an array or null" : "expected an array");
    *out = v;
    return NULL;
}

static pm_error *r_str_list(const json_t *o, const char *path, const char *key, bool nullable, bool *has,
                            pm_str_list *out)
{
    const json_t *a;
    memset(out, 0, sizeof *out);
    PM_TRY(r_array(o, path, key, nullable, &a));
    if (has)
        *has = a != NULL;
    if (!a || !json_array_size(a))
        return NULL;
    size_t n = json_array_size(a);
    PM_TRY(pm_calloc(&out->items, n, sizeof *out->items));
    for (size_t i = 0; i < n; i++) {
        const json_t *v = json_array_get(a, i);
        if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v)) {
            pm_str_list_free(out);
            char p[PATH_MAX_LEN];
            sub_path(p, path, key, (long)i);
            return bad(p, NULL, "expected a string");
        }
        pm_error *e = pm_strdup(&out->items[i], json_string_value(v));
        if (e) {
            pm_str_list_free(out);
            return e;
        }
        out->count = i + 1;
    }
    return NULL;
}

static const char *const STATS_KEYS[] = {"min_values", "max_values", "null_counts", NULL};

static pm_error *r_stats(const json_t *parent, const char *path, const char *key, pm_simple_stats *s)
{
    char p[PATH_MAX_LEN];
    sub_path(p, path, key, -1);
    const json_t *o = r_get(parent, key);
    memset(s, 0, sizeof *s);
    PM_TRY(r_keys(o, p, STATS_KEYS));
    pm_error *e = NULL;
    PM_TRY_GOTO(e, r_bytes(o, p, "min_values", true, &s->min_values), fail);
    PM_TRY_GOTO(e, r_bytes(o, p, "max_values", true, &s->max_values), fail);
    const json_t *a;
    PM_TRY_GOTO(e, r_array(o, p, "null_counts", true, &a), fail);
    s->has_null_counts = a != NULL;
    if (a && json_array_size(a)) {
        size_t n = json_array_size(a);
        PM_TRY_GOTO(e, pm_calloc(&s->null_counts, n, sizeof *s->null_counts), fail);
        s->null_count_len = n;
        for (size_t i = 0; i < n; i++) {
            const json_t *v = json_array_get(a, i);
            if (json_is_null(v))
                continue;
            if (!json_is_integer(v)) {
                char q[PATH_MAX_LEN];
                sub_path(q, p, "null_counts", (long)i);
                e = bad(q, NULL, "expected an integer or null");
                goto fail;
            }
            s->null_counts[i].has = true;
            s->null_counts[i].v = (int64_t)json_integer_value(v);
        }
    }
    return NULL;
fail:
    pm_simple_stats_clear(s);
    return e;
}

static const char *const FILE_KEYS[] = {
    "file_name", "file_size", "row_count", "min_key", "max_key", "key_stats", "value_stats",
    "min_sequence_number", "max_sequence_number", "schema_id", "level", "extra_files", "creation_time",
    "delete_row_count", "embedded_index", "file_source", "value_stats_cols", "external_path", "first_row_id",
    "write_cols", "write_cols_sequences", NULL};

static pm_error *r_file(const json_t *o, const char *p, pm_data_file_meta *f)
{
    memset(f, 0, sizeof *f);
    PM_TRY(r_keys(o, p, FILE_KEYS));
    pm_error *e = NULL;
    PM_TRY_GOTO(e, r_nonempty_str(o, p, "file_name", &f->file_name), fail);
    PM_TRY_GOTO(e, r_i64(o, p, "file_size", 0, INT64_MAX, &f->file_size), fail);
    PM_TRY_GOTO(e, r_i64(o, p, "row_count", 0, INT64_MAX, &f->row_count), fail);
    PM_TRY_GOTO(e, r_bytes(o, p, "min_key", true, &f->min_key), fail);
    PM_TRY_GOTO(e, r_bytes(o, p, "max_key", true, &f->max_key), fail);
    PM_TRY_GOTO(e, r_stats(o, p, "key_stats", &f->key_stats), fail);
    PM_TRY_GOTO(e, r_stats(o, p, "value_stats", &f->value_stats), fail);
    PM_TRY_GOTO(e, r_i64(o, p, "min_sequence_number", INT64_MIN, INT64_MAX, &f->min_sequence_number), fail);
    PM_TRY_GOTO(e, r_i64(o, p, "max_sequence_number", INT64_MIN, INT64_MAX, &f->max_sequence_number), fail);
    PM_TRY_GOTO(e, r_i64(o, p, "schema_id", 0, INT64_MAX, &f->schema_id), fail);
    PM_TRY_GOTO(e, r_i32(o, p, "level", 0, INT32_MAX, &f->level), fail);
    PM_TRY_GOTO(e, r_str_list(o, p, "extra_files", false, NULL, &f->extra_files), fail);
    PM_TRY_GOTO(e, r_opt_i64(o, p, "creation_time", &f->creation_time), fail);
    PM_TRY_GOTO(e, r_opt_i64(o, p, "delete_row_count", &f->delete_row_count), fail);
    PM_TRY_GOTO(e, r_bytes(o, p, "embedded_index", true, &f->embedded_index), fail);
    {
        const json_t *v = r_get(o, "file_source");
        if (!json_is_null(v)) {
            int32_t src;
            PM_TRY_GOTO(e, r_i32(o, p, "file_source", 0, 1, &src), fail);
            f->file_source.has = true;
            f->file_source.v = src;
        }
    }
    PM_TRY_GOTO(e, r_str_list(o, p, "value_stats_cols", true, &f->has_value_stats_cols, &f->value_stats_cols),
                fail);
    PM_TRY_GOTO(e, r_str(o, p, "external_path", true, &f->external_path), fail);
    PM_TRY_GOTO(e, r_opt_i64(o, p, "first_row_id", &f->first_row_id), fail);
    PM_TRY_GOTO(e, r_str_list(o, p, "write_cols", true, &f->has_write_cols, &f->write_cols), fail);
    {
        const json_t *a;
        PM_TRY_GOTO(e, r_array(o, p, "write_cols_sequences", true, &a), fail);
        f->has_write_cols_sequences = a != NULL;
        if (a && json_array_size(a)) {
            size_t n = json_array_size(a);
            PM_TRY_GOTO(e, pm_calloc(&f->write_cols_sequences, n, sizeof(int64_t)), fail);
            f->write_cols_sequence_len = n;
            for (size_t i = 0; i < n; i++) {
                const json_t *v = json_array_get(a, i);
                if (!json_is_integer(v)) {
                    char q[PATH_MAX_LEN];
                    sub_path(q, p, "write_cols_sequences", (long)i);
                    e = bad(q, NULL, "expected an integer");
                    goto fail;
                }
                f->write_cols_sequences[i] = (int64_t)json_integer_value(v);
            }
        }
    }
    if (f->max_sequence_number < f->min_sequence_number && f->row_count > 0) {
        e = bad(p, "max_sequence_number", "%" PRId64 " is below min_sequence_number %" PRId64,
                f->max_sequence_number, f->min_sequence_number);
        goto fail;
    }
    return NULL;
fail:
    pm_data_file_meta_clear(f);
    return e;
}

static pm_error *r_files(const json_t *o, const char *path, const char *key, pm_data_file_meta **out, size_t *n)
{
    const json_t *a;
    *out = NULL;
    *n = 0;
    PM_TRY(r_array(o, path, key, false, &a));
    size_t cnt = json_array_size(a);
    if (!cnt)
        return NULL;
    PM_TRY(pm_calloc(out, cnt, sizeof **out));
    for (size_t i = 0; i < cnt; i++) {
        char p[PATH_MAX_LEN];
        sub_path(p, path, key, (long)i);
        pm_error *e = r_file(json_array_get(a, i), p, &(*out)[i]);
        if (e) {
            pm_data_file_metas_free(*out, i);
            *out = NULL;
            return e;
        }
    }
    *n = cnt;
    return NULL;
}

static const char *const DV_KEYS[] = {"data_file", "index_file", "offset", "length", "cardinality", NULL};

static pm_error *r_dvs(const json_t *o, const char *path, const char *key, pm_compact_dv_ref **out, size_t *n)
{
    const json_t *a;
    *out = NULL;
    *n = 0;
    PM_TRY(r_array(o, path, key, false, &a));
    size_t cnt = json_array_size(a);
    if (!cnt)
        return NULL;
    PM_TRY(pm_calloc(out, cnt, sizeof **out));
    pm_error *e = NULL;
    size_t i = 0;
    for (; i < cnt; i++) {
        char p[PATH_MAX_LEN];
        sub_path(p, path, key, (long)i);
        const json_t *d = json_array_get(a, i);
        pm_compact_dv_ref *r = &(*out)[i];
        PM_TRY_GOTO(e, r_keys(d, p, DV_KEYS), fail);
        PM_TRY_GOTO(e, r_nonempty_str(d, p, "data_file", &r->data_file), fail);
        PM_TRY_GOTO(e, r_nonempty_str(d, p, "index_file", &r->index_file), fail);
        PM_TRY_GOTO(e, r_i64(d, p, "offset", 0, INT32_MAX, &r->offset), fail);
        PM_TRY_GOTO(e, r_i64(d, p, "length", 0, INT32_MAX, &r->length), fail);
        PM_TRY_GOTO(e, r_opt_i64(d, p, "cardinality", &r->cardinality), fail);
    }
    *n = cnt;
    return NULL;
fail:
    pm_compact_dv_refs_free(*out, i + 1);
    *out = NULL;
    return e;
}

static const char *const INDEX_KEYS[] = {"kind", "partition", "bucket", "index_type", "file_name", "file_size",
                                         "row_count", "dv_ranges", "external_path", "global_index", NULL};
static const char *const RANGE_KEYS[] = {"data_file", "offset", "length", "cardinality", NULL};
static const char *const GLOBAL_KEYS[] = {"row_range_start", "row_range_end", "index_field_id", "extra_field_ids",
                                          "index_meta", "source_meta", NULL};

static pm_error *r_index_entry(const json_t *o, const char *p, pm_file_kind expect, pm_index_manifest_entry *x)
{
    memset(x, 0, sizeof *x);
    PM_TRY(r_keys(o, p, INDEX_KEYS));
    pm_index_file_meta *f = &x->index_file;
    pm_error *e = NULL;
    int32_t kind;
    PM_TRY_GOTO(e, r_i32(o, p, "kind", 0, 1, &kind), fail);
    if (kind != (int32_t)expect) {
        e = bad(p, "kind", "expected %d (%s)", (int)expect, expect == PM_FILE_ADD ? "ADD" : "DELETE");
        goto fail;
    }
    x->kind = (pm_file_kind)kind;
    PM_TRY_GOTO(e, r_bytes(o, p, "partition", false, &x->partition), fail);
    PM_TRY_GOTO(e, r_i32(o, p, "bucket", INT32_MIN, INT32_MAX, &x->bucket), fail);
    PM_TRY_GOTO(e, r_nonempty_str(o, p, "index_type", &f->index_type), fail);
    PM_TRY_GOTO(e, r_nonempty_str(o, p, "file_name", &f->file_name), fail);
    PM_TRY_GOTO(e, r_i64(o, p, "file_size", 0, INT64_MAX, &f->file_size), fail);
    PM_TRY_GOTO(e, r_i64(o, p, "row_count", 0, INT64_MAX, &f->row_count), fail);
    const json_t *a;
    PM_TRY_GOTO(e, r_array(o, p, "dv_ranges", true, &a), fail);
    f->has_dv_ranges = a != NULL;
    if (a && json_array_size(a)) {
        size_t n = json_array_size(a);
        PM_TRY_GOTO(e, pm_calloc(&f->dv_ranges, n, sizeof *f->dv_ranges), fail);
        for (size_t i = 0; i < n; i++) {
            char q[PATH_MAX_LEN];
            sub_path(q, p, "dv_ranges", (long)i);
            const json_t *m = json_array_get(a, i);
            pm_dv_meta *d = &f->dv_ranges[i];
            f->dv_range_len = i + 1;
            PM_TRY_GOTO(e, r_keys(m, q, RANGE_KEYS), fail);
            PM_TRY_GOTO(e, r_nonempty_str(m, q, "data_file", &d->data_file_name), fail);
            PM_TRY_GOTO(e, r_i32(m, q, "offset", 0, INT32_MAX, &d->offset), fail);
            PM_TRY_GOTO(e, r_i32(m, q, "length", 0, INT32_MAX, &d->length), fail);
            PM_TRY_GOTO(e, r_opt_i64(m, q, "cardinality", &d->cardinality), fail);
        }
    }
    PM_TRY_GOTO(e, r_str(o, p, "external_path", true, &f->external_path), fail);
    const json_t *g = r_get(o, "global_index");
    if (!json_is_null(g)) {
        char q[PATH_MAX_LEN];
        sub_path(q, p, "global_index", -1);
        pm_global_index_meta *gm = &f->global_index;
        f->has_global_index = true;
        PM_TRY_GOTO(e, r_keys(g, q, GLOBAL_KEYS), fail);
        PM_TRY_GOTO(e, r_i64(g, q, "row_range_start", INT64_MIN, INT64_MAX, &gm->row_range_start), fail);
        PM_TRY_GOTO(e, r_i64(g, q, "row_range_end", INT64_MIN, INT64_MAX, &gm->row_range_end), fail);
        PM_TRY_GOTO(e, r_i32(g, q, "index_field_id", INT32_MIN, INT32_MAX, &gm->index_field_id), fail);
        const json_t *xa;
        PM_TRY_GOTO(e, r_array(g, q, "extra_field_ids", true, &xa), fail);
        gm->has_extra_field_ids = xa != NULL;
        if (xa && json_array_size(xa)) {
            size_t n = json_array_size(xa);
            PM_TRY_GOTO(e, pm_calloc(&gm->extra_field_ids, n, sizeof(int32_t)), fail);
            gm->extra_field_id_len = n;
            for (size_t i = 0; i < n; i++) {
                const json_t *v = json_array_get(xa, i);
                if (!json_is_integer(v) || json_integer_value(v) < INT32_MIN || json_integer_value(v) > INT32_MAX) {
                    char r[PATH_MAX_LEN];
                    sub_path(r, q, "extra_field_ids", (long)i);
                    e = bad(r, NULL, "expected a 32-bit integer");
                    goto fail;
                }
                gm->extra_field_ids[i] = (int32_t)json_integer_value(v);
            }
        }
        PM_TRY_GOTO(e, r_bytes(g, q, "index_meta", true, &gm->index_meta), fail);
        PM_TRY_GOTO(e, r_bytes(g, q, "source_meta", true, &gm->source_meta), fail);
    } else if (!g) {
        e = bad(p, "global_index", "missing");
        goto fail;
    }
    return NULL;
fail:
    pm_index_manifest_entry_clear(x);
    return e;
}

static pm_error *r_index(const json_t *o, const char *path, const char *key, pm_file_kind expect,
                         pm_index_manifest_entry **out, size_t *n)
{
    const json_t *a;
    *out = NULL;
    *n = 0;
    PM_TRY(r_array(o, path, key, false, &a));
    size_t cnt = json_array_size(a);
    if (!cnt)
        return NULL;
    PM_TRY(pm_calloc(out, cnt, sizeof **out));
    for (size_t i = 0; i < cnt; i++) {
        char p[PATH_MAX_LEN];
        sub_path(p, path, key, (long)i);
        pm_error *e = r_index_entry(json_array_get(a, i), p, expect, &(*out)[i]);
        if (e) {
            pm_index_manifest_entries_free(*out, i);
            *out = NULL;
            return e;
        }
    }
    *n = cnt;
    return NULL;
}

static pm_error *r_header(const json_t *o, const char *path, const char *kind)
{
    const json_t *f = r_get(o, "format");
    if (!json_is_integer(f))
        return bad(path, "format", "expected an integer");
    if (json_integer_value(f) != PM_COMPACT_FORMAT_VERSION)
        return pm_error_new(PM_EUNSUPPORTED, "%s.format: version %lld is not supported (expected %d)", path,
                            (long long)json_integer_value(f), PM_COMPACT_FORMAT_VERSION);
    const json_t *k = r_get(o, "kind");
    if (!json_is_string(k))
        return bad(path, "kind", "expected a string");
    if (strcmp(json_string_value(k), kind))
        return bad(path, "kind", "expected \"%s\", got \"%s\"", kind, json_string_value(k));
    return NULL;
}

static const char *const TASK_KEYS[] = {
    "format", "kind", "table", "plan_id", "commit_user", "task_index", "snapshot_id", "schema_id", "mode", "full",
    "partition", "bucket", "total_buckets", "output", "files", "deletion_vectors", "index_files", "pk", NULL};
static const char *const OUTPUT_KEYS[] = {"format", "compression", "target_file_size", "target_file_row_num",
                                          "level", "row_group_passthrough", "row_group_passthrough_min_size",
                                          NULL};

static pm_error *r_task(const json_t *o, const char *path, pm_compact_task **out)
{
    *out = NULL;
    if (!json_is_object(o))
        return bad(path, NULL, "expected an object");
    PM_TRY(r_header(o, path, "task"));
    PM_TRY(r_keys(o, path, TASK_KEYS));
    pm_compact_task *t;
    PM_TRY(pm_calloc(&t, 1, sizeof *t));
    pm_error *e = NULL;
    char *mode = NULL;
    PM_TRY_GOTO(e, r_nonempty_str(o, path, "table", &t->table_path), fail);
    PM_TRY_GOTO(e, r_nonempty_str(o, path, "plan_id", &t->plan_id), fail);
    PM_TRY_GOTO(e, r_nonempty_str(o, path, "commit_user", &t->commit_user), fail);
    PM_TRY_GOTO(e, r_i64(o, path, "task_index", 0, INT32_MAX, &t->task_index), fail);
    PM_TRY_GOTO(e, r_i64(o, path, "snapshot_id", 1, INT64_MAX, &t->snapshot_id), fail);
    PM_TRY_GOTO(e, r_i64(o, path, "schema_id", 0, INT64_MAX, &t->schema_id), fail);
    PM_TRY_GOTO(e, r_str(o, path, "mode", false, &mode), fail);
    if (!strcmp(mode, "append-unaware")) {
        t->mode = PM_COMPACT_MODE_UNAWARE;
    } else if (!strcmp(mode, "append-bucketed")) {
        t->mode = PM_COMPACT_MODE_BUCKETED;
    } else if (!strcmp(mode, "primary-key")) {
        t->mode = PM_COMPACT_MODE_PK;
    } else {
        e = bad(path, "mode", "unknown mode \"%s\" (append-unaware, append-bucketed, primary-key)", mode);
        goto fail;
    }
    PM_TRY_GOTO(e, r_bool(o, path, "full", &t->full), fail);
    PM_TRY_GOTO(e, r_bytes(o, path, "partition", false, &t->partition), fail);
    PM_TRY_GOTO(e, r_i32(o, path, "bucket", 0, INT32_MAX, &t->bucket), fail);
    PM_TRY_GOTO(e, r_i32(o, path, "total_buckets", INT32_MIN, INT32_MAX, &t->total_buckets), fail);
    {
        char p[PATH_MAX_LEN];
        sub_path(p, path, "output", -1);
        const json_t *out_o = r_get(o, "output");
        PM_TRY_GOTO(e, r_keys(out_o, p, OUTPUT_KEYS), fail);
        PM_TRY_GOTO(e, r_nonempty_str(out_o, p, "format", &t->output.format), fail);
        if (strcmp(t->output.format, "parquet") && strcmp(t->output.format, "avro")) {
            e = bad(p, "format", "unsupported output format \"%s\" (parquet, avro)", t->output.format);
            goto fail;
        }
        PM_TRY_GOTO(e, r_nonempty_str(out_o, p, "compression", &t->output.compression), fail);
        PM_TRY_GOTO(e, r_i64(out_o, p, "target_file_size", 1, INT64_MAX, &t->output.target_file_size), fail);
        PM_TRY_GOTO(e, r_i64(out_o, p, "target_file_row_num", 1, INT64_MAX, &t->output.target_file_row_num), fail);
        PM_TRY_GOTO(e, r_i32(out_o, p, "level", 0, INT32_MAX, &t->output.level), fail);
        PM_TRY_GOTO(e, r_bool(out_o, p, "row_group_passthrough", &t->output.rg_passthrough), fail);
        PM_TRY_GOTO(e, r_i64(out_o, p, "row_group_passthrough_min_size", 0, INT64_MAX, &t->output.rg_passthrough_min),
                    fail);
    }
    PM_TRY_GOTO(e, r_files(o, path, "files", &t->files, &t->nfiles), fail);
    if (!t->nfiles) {
        e = bad(path, "files", "a task needs at least one input file");
        goto fail;
    }
    PM_TRY_GOTO(e, r_dvs(o, path, "deletion_vectors", &t->dvs, &t->ndvs), fail);
    PM_TRY_GOTO(e, r_index(o, path, "index_files", PM_FILE_ADD, &t->dv_index, &t->ndv_index), fail);
    PM_TRY_GOTO(e, pm_compact_pk_from_json(r_get(o, "pk"), path, &t->pk), fail);
    if ((t->mode == PM_COMPACT_MODE_PK) != (t->pk != NULL)) {
        e = bad(path, "pk", t->pk ? "only primary-key tasks have a pk part" : "a primary-key task needs its pk part");
        goto fail;
    }
    if (t->pk && t->pk->output_level != t->output.level) {
        e = bad(path, "pk", "output level %d differs from output.level %d", (int)t->pk->output_level,
                (int)t->output.level);
        goto fail;
    }
    /* every DV belongs to an input file; input names are unique */
    for (size_t i = 0; i < t->nfiles; i++)
        for (size_t k = i + 1; k < t->nfiles; k++)
            if (!strcmp(t->files[i].file_name, t->files[k].file_name)) {
                char p[PATH_MAX_LEN];
                sub_path(p, path, "files", (long)k);
                e = bad(p, "file_name", "duplicate input file %s", t->files[k].file_name);
                goto fail;
            }
    for (size_t i = 0; i < t->ndvs; i++) {
        bool found = false;
        for (size_t k = 0; k < t->nfiles && !found; k++)
            found = !strcmp(t->files[k].file_name, t->dvs[i].data_file);
        if (!found) {
            char p[PATH_MAX_LEN];
            sub_path(p, path, "deletion_vectors", (long)i);
            e = bad(p, "data_file", "%s is not an input file of the task", t->dvs[i].data_file);
            goto fail;
        }
    }
    free(mode);
    *out = t;
    return NULL;
fail:
    free(mode);
    pm_compact_task_free(t);
    return e;
}

static const char *const RESULT_KEYS[] = {
    "format", "kind", "table", "plan_id", "commit_user", "task_index", "snapshot_id", "schema_id", "partition",
    "bucket", "total_buckets", "before", "after", "changelog", "deletion_vectors", "index_added", "index_removed",
    "counters", "pk", NULL};
static const char *const COUNTER_KEYS[] = {"rows_read", "rows_deleted", "rows_written", "bytes_read",
                                           "bytes_written", "duration_ms", NULL};

static pm_error *r_result(const json_t *o, const char *path, pm_compact_result **out)
{
    *out = NULL;
    if (!json_is_object(o))
        return bad(path, NULL, "expected an object");
    PM_TRY(r_header(o, path, "result"));
    PM_TRY(r_keys(o, path, RESULT_KEYS));
    pm_compact_result *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    pm_error *e = NULL;
    PM_TRY_GOTO(e, r_nonempty_str(o, path, "table", &r->table_path), fail);
    PM_TRY_GOTO(e, r_nonempty_str(o, path, "plan_id", &r->plan_id), fail);
    PM_TRY_GOTO(e, r_nonempty_str(o, path, "commit_user", &r->commit_user), fail);
    PM_TRY_GOTO(e, r_i64(o, path, "task_index", 0, INT32_MAX, &r->task_index), fail);
    PM_TRY_GOTO(e, r_i64(o, path, "snapshot_id", 1, INT64_MAX, &r->snapshot_id), fail);
    PM_TRY_GOTO(e, r_i64(o, path, "schema_id", 0, INT64_MAX, &r->schema_id), fail);
    PM_TRY_GOTO(e, r_bytes(o, path, "partition", false, &r->partition), fail);
    PM_TRY_GOTO(e, r_i32(o, path, "bucket", 0, INT32_MAX, &r->bucket), fail);
    PM_TRY_GOTO(e, r_i32(o, path, "total_buckets", INT32_MIN, INT32_MAX, &r->total_buckets), fail);
    PM_TRY_GOTO(e, r_files(o, path, "before", &r->before, &r->nbefore), fail);
    if (!r->nbefore) {
        e = bad(path, "before", "a result needs at least one input file");
        goto fail;
    }
    PM_TRY_GOTO(e, r_files(o, path, "after", &r->after, &r->nafter), fail);
    PM_TRY_GOTO(e, r_files(o, path, "changelog", &r->changelog, &r->nchangelog), fail);
    PM_TRY_GOTO(e, r_dvs(o, path, "deletion_vectors", &r->dvs, &r->ndvs), fail);
    PM_TRY_GOTO(e, r_index(o, path, "index_added", PM_FILE_ADD, &r->index_added, &r->nindex_added), fail);
    PM_TRY_GOTO(e, r_index(o, path, "index_removed", PM_FILE_DELETE, &r->index_removed, &r->nindex_removed), fail);
    {
        char p[PATH_MAX_LEN];
        sub_path(p, path, "counters", -1);
        const json_t *c = r_get(o, "counters");
        PM_TRY_GOTO(e, r_keys(c, p, COUNTER_KEYS), fail);
        PM_TRY_GOTO(e, r_i64(c, p, "rows_read", 0, INT64_MAX, &r->counters.rows_read), fail);
        PM_TRY_GOTO(e, r_i64(c, p, "rows_deleted", 0, INT64_MAX, &r->counters.rows_deleted), fail);
        PM_TRY_GOTO(e, r_i64(c, p, "rows_written", 0, INT64_MAX, &r->counters.rows_written), fail);
        PM_TRY_GOTO(e, r_i64(c, p, "bytes_read", 0, INT64_MAX, &r->counters.bytes_read), fail);
        PM_TRY_GOTO(e, r_i64(c, p, "bytes_written", 0, INT64_MAX, &r->counters.bytes_written), fail);
        PM_TRY_GOTO(e, r_i64(c, p, "duration_ms", 0, INT64_MAX, &r->counters.duration_ms), fail);
    }
    PM_TRY_GOTO(e, pm_compact_pk_from_json(r_get(o, "pk"), path, &r->pk), fail);
    *out = r;
    return NULL;
fail:
    pm_compact_result_free(r);
    return e;
}

static const char *const PLAN_KEYS[] = {"format", "kind", "table", "plan_id", "commit_user", "snapshot_id",
                                        "schema_id", "full", "tasks", NULL};

static pm_error *r_plan(const json_t *o, pm_compact_plan **out)
{
    const char *path = "plan";
    *out = NULL;
    if (!json_is_object(o))
        return bad(path, NULL, "expected an object");
    PM_TRY(r_header(o, path, "plan"));
    PM_TRY(r_keys(o, path, PLAN_KEYS));
    pm_compact_plan *p;
    PM_TRY(pm_calloc(&p, 1, sizeof *p));
    pm_error *e = NULL;
    PM_TRY_GOTO(e, r_nonempty_str(o, path, "table", &p->table_path), fail);
    PM_TRY_GOTO(e, r_nonempty_str(o, path, "plan_id", &p->plan_id), fail);
    PM_TRY_GOTO(e, r_nonempty_str(o, path, "commit_user", &p->commit_user), fail);
    PM_TRY_GOTO(e, r_i64(o, path, "snapshot_id", 0, INT64_MAX, &p->snapshot_id), fail);
    PM_TRY_GOTO(e, r_i64(o, path, "schema_id", 0, INT64_MAX, &p->schema_id), fail);
    PM_TRY_GOTO(e, r_bool(o, path, "full", &p->full), fail);
    const json_t *a;
    PM_TRY_GOTO(e, r_array(o, path, "tasks", false, &a), fail);
    size_t n = json_array_size(a);
    if (n) {
        PM_TRY_GOTO(e, pm_calloc(&p->tasks, n, sizeof *p->tasks), fail);
        for (size_t i = 0; i < n; i++) {
            char q[PATH_MAX_LEN];
            sub_path(q, path, "tasks", (long)i);
            PM_TRY_GOTO(e, r_task(json_array_get(a, i), q, &p->tasks[i]), fail);
            p->ntasks = i + 1;
            const pm_compact_task *t = p->tasks[i];
            if (strcmp(t->plan_id, p->plan_id) || t->snapshot_id != p->snapshot_id ||
                t->schema_id != p->schema_id || strcmp(t->commit_user, p->commit_user) ||
                strcmp(t->table_path, p->table_path)) {
                e = bad(q, NULL, "task does not belong to the plan (plan id, snapshot, schema, commit user "
                                 "or table differ)");
                goto fail;
            }
            if (t->task_index != (int64_t)i) {
                e = bad(q, "task_index", "expected %zu, got %" PRId64, i, t->task_index);
                goto fail;
            }
        }
    }
    *out = p;
    return NULL;
fail:
    pm_compact_plan_free(p);
    return e;
}

static pm_error *parse_doc(const char *json, size_t len, const char *what, json_t **out)
{
    *out = NULL;
    if (!json)
        return pm_error_new(PM_EINVALID, "%s: no JSON text", what);
    json_error_t err;
    json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &err);
    if (!root)
        return pm_error_new(PM_EINVALID, "%s: malformed JSON at line %d, column %d: %s", what, err.line,
                            err.column, err.text);
    *out = root;
    return NULL;
}

pm_error *pm_compact_task_from_json(pm_compact_task **out, const char *json, size_t len)
{
    json_t *root;
    PM_TRY(parse_doc(json, len, "task", &root));
    pm_error *e = r_task(root, "task", out);
    json_decref(root);
    return e;
}

pm_error *pm_compact_result_from_json(pm_compact_result **out, const char *json, size_t len)
{
    json_t *root;
    PM_TRY(parse_doc(json, len, "result", &root));
    pm_error *e = r_result(root, "result", out);
    json_decref(root);
    return e;
}

pm_error *pm_compact_plan_from_json(pm_compact_plan **out, const char *json, size_t len)
{
    json_t *root;
    PM_TRY(parse_doc(json, len, "plan", &root));
    pm_error *e = r_plan(root, out);
    json_decref(root);
    return e;
}
