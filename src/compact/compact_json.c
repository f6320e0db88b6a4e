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
 *           schema_id, mode (a mode name: "append-unaware", "append-bucketed",
 *           "primary-key"), full,
 *           partition, bucket, total_buckets,
 *           output {format, compression, target_file_size, target_file_row_num, level,
 *                   row_group_passthrough, row_group_passthrough_min_size},
 *           files [DataFileMeta], deletion_vectors [DvRef], index_files [IndexEntry],
 *           <part key of every registered mode>: the task mode's part, the
 *           others null (compact_mode.h; primary keys: "pk", pk/pk_json.c)}
 *   result {format, kind, table, plan_id, commit_user, task_index, snapshot_id,
 *           schema_id, partition, bucket, total_buckets, before [DataFileMeta],
 *           after [DataFileMeta], changelog [DataFileMeta], deletion_vectors [DvRef], index_added [IndexEntry],
 *           index_removed [IndexEntry], counters {rows_read, rows_deleted,
 *           rows_written, bytes_read, bytes_written, duration_ms}, <part keys> as in a task}
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
#include "meta/json.h"
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

/* Every registered part key: the value's part under its mode's key, null
 * under the others. */
static void w_parts(jb *b, json_t *o, const pm_compact_part *part)
{
    const char *keys[16];
    size_t n = pm_compact_part_keys(keys, 16);
    for (size_t i = 0; i < n; i++) {
        bool mine = part && !strcmp(part->mode->part_key, keys[i]);
        w_set(b, o, keys[i], mine ? w_take(b, part->mode->part_to_json(part)) : json_null());
    }
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
    w_set(b, o, "mode", w_str(b, t->mode->name));
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
    w_parts(b, o, t->part);
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
    w_parts(b, o, r->part);
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

pm_error *pm_compact_task_to_json(char **out, const pm_compact_task *t)
{
    jb b = {0};
    return w_finish(&b, w_task(&b, t), "task", out);
}

pm_error *pm_compact_result_to_json(char **out, const pm_compact_result *r)
{
    jb b = {0};
    return w_finish(&b, w_result(&b, r), "result", out);
}

pm_error *pm_compact_plan_to_json(char **out, const pm_compact_plan *p)
{
    jb b = {0};
    return w_finish(&b, w_plan(&b, p), "plan", out);
}

/* ================================================================== */
/* reading                                                             */
/* ================================================================== */

/* bytes: standard base64 or (nullable) null */
static pm_error *r_bytes(const pm_jnode *o, const char *key, unsigned flags, pm_bytes *out)
{
    memset(out, 0, sizeof *out);
    pm_buf b = PM_BUF_INIT;
    bool has = false;
    pm_error *e = pm_json_base64(o, key, flags, &has, &b);
    if (!e && has)
        e = pm_bytes_set(out, b.data, b.len);
    pm_buf_free(&b);
    return e;
}

static pm_error *r_opt(const pm_jnode *o, const char *key, pm_opt_long *out)
{
    return pm_json_opt_i64(o, key, INT64_MIN, INT64_MAX, &out->has, &out->v);
}

static pm_error *r_opt_node(const pm_jnode *n, pm_opt_long *out)
{
    return pm_json_as_opt_i64(n, INT64_MIN, INT64_MAX, &out->has, &out->v);
}

static const char *const STATS_KEYS[] = {"min_values", "max_values", "null_counts", NULL};

static pm_error *r_stats(const pm_jnode *parent, const char *key, pm_simple_stats *s)
{
    pm_jnode o, a;
    pm_json_get(&o, parent, key);
    memset(s, 0, sizeof *s);
    PM_TRY(pm_json_keys(&o, STATS_KEYS));
    pm_error *e = NULL;
    size_t n = 0;
    PM_TRY_GOTO(e, r_bytes(&o, "min_values", PM_JSON_NULLABLE, &s->min_values), fail);
    PM_TRY_GOTO(e, r_bytes(&o, "max_values", PM_JSON_NULLABLE, &s->max_values), fail);
    PM_TRY_GOTO(e, pm_json_array(&o, "null_counts", PM_JSON_NULLABLE, &a, &n), fail);
    s->has_null_counts = a.v != NULL;
    if (n) {
        PM_TRY_GOTO(e, pm_calloc(&s->null_counts, n, sizeof *s->null_counts), fail);
        s->null_count_len = n;
        for (size_t i = 0; i < n; i++) {
            pm_jnode el;
            pm_json_at(&el, &a, i);
            PM_TRY_GOTO(e, r_opt_node(&el, &s->null_counts[i]), fail);
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

static pm_error *r_file(const pm_jnode *o, pm_data_file_meta *f)
{
    memset(f, 0, sizeof *f);
    PM_TRY(pm_json_keys(o, FILE_KEYS));
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_json_str(o, "file_name", PM_JSON_NONEMPTY, &f->file_name), fail);
    PM_TRY_GOTO(e, pm_json_i64(o, "file_size", 0, INT64_MAX, &f->file_size), fail);
    PM_TRY_GOTO(e, pm_json_i64(o, "row_count", 0, INT64_MAX, &f->row_count), fail);
    PM_TRY_GOTO(e, r_bytes(o, "min_key", PM_JSON_NULLABLE, &f->min_key), fail);
    PM_TRY_GOTO(e, r_bytes(o, "max_key", PM_JSON_NULLABLE, &f->max_key), fail);
    PM_TRY_GOTO(e, r_stats(o, "key_stats", &f->key_stats), fail);
    PM_TRY_GOTO(e, r_stats(o, "value_stats", &f->value_stats), fail);
    PM_TRY_GOTO(e, pm_json_i64(o, "min_sequence_number", INT64_MIN, INT64_MAX, &f->min_sequence_number), fail);
    PM_TRY_GOTO(e, pm_json_i64(o, "max_sequence_number", INT64_MIN, INT64_MAX, &f->max_sequence_number), fail);
    PM_TRY_GOTO(e, pm_json_i64(o, "schema_id", 0, INT64_MAX, &f->schema_id), fail);
    PM_TRY_GOTO(e, pm_json_i32(o, "level", 0, INT32_MAX, &f->level), fail);
    PM_TRY_GOTO(e, pm_json_str_list(o, "extra_files", 0, NULL, &f->extra_files), fail);
    PM_TRY_GOTO(e, r_opt(o, "creation_time", &f->creation_time), fail);
    PM_TRY_GOTO(e, r_opt(o, "delete_row_count", &f->delete_row_count), fail);
    PM_TRY_GOTO(e, r_bytes(o, "embedded_index", PM_JSON_NULLABLE, &f->embedded_index), fail);
    {
        bool has = false;
        int64_t src = 0;
        PM_TRY_GOTO(e, pm_json_opt_i64(o, "file_source", 0, 1, &has, &src), fail);
        f->file_source.has = has;
        f->file_source.v = (int32_t)src;
    }
    PM_TRY_GOTO(e, pm_json_str_list(o, "value_stats_cols", PM_JSON_NULLABLE, &f->has_value_stats_cols,
                                    &f->value_stats_cols), fail);
    PM_TRY_GOTO(e, pm_json_str(o, "external_path", PM_JSON_NULLABLE, &f->external_path), fail);
    PM_TRY_GOTO(e, r_opt(o, "first_row_id", &f->first_row_id), fail);
    PM_TRY_GOTO(e, pm_json_str_list(o, "write_cols", PM_JSON_NULLABLE, &f->has_write_cols, &f->write_cols), fail);
    {
        pm_jnode a;
        size_t n = 0;
        PM_TRY_GOTO(e, pm_json_array(o, "write_cols_sequences", PM_JSON_NULLABLE, &a, &n), fail);
        f->has_write_cols_sequences = a.v != NULL;
        if (n) {
            PM_TRY_GOTO(e, pm_calloc(&f->write_cols_sequences, n, sizeof(int64_t)), fail);
            f->write_cols_sequence_len = n;
            for (size_t i = 0; i < n; i++) {
                pm_jnode el;
                pm_json_at(&el, &a, i);
                PM_TRY_GOTO(e, pm_json_as_i64(&el, INT64_MIN, INT64_MAX, &f->write_cols_sequences[i]), fail);
            }
        }
    }
    if (f->max_sequence_number < f->min_sequence_number && f->row_count > 0) {
        pm_jnode c;
        pm_json_get(&c, o, "max_sequence_number");
        e = pm_json_error(&c, "%" PRId64 " is below min_sequence_number %" PRId64, f->max_sequence_number,
                          f->min_sequence_number);
        goto fail;
    }
    return NULL;
fail:
    pm_data_file_meta_clear(f);
    return e;
}

static pm_error *r_files(const pm_jnode *o, const char *key, pm_data_file_meta **out, size_t *n)
{
    pm_jnode a;
    size_t cnt = 0;
    *out = NULL;
    *n = 0;
    PM_TRY(pm_json_array(o, key, 0, &a, &cnt));
    if (!cnt)
        return NULL;
    PM_TRY(pm_calloc(out, cnt, sizeof **out));
    for (size_t i = 0; i < cnt; i++) {
        pm_jnode el;
        pm_json_at(&el, &a, i);
        pm_error *e = r_file(&el, &(*out)[i]);
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

static pm_error *r_dv(const pm_jnode *d, pm_compact_dv_ref *r)
{
    PM_TRY(pm_json_keys(d, DV_KEYS));
    PM_TRY(pm_json_str(d, "data_file", PM_JSON_NONEMPTY, &r->data_file));
    PM_TRY(pm_json_str(d, "index_file", PM_JSON_NONEMPTY, &r->index_file));
    PM_TRY(pm_json_i64(d, "offset", 0, INT32_MAX, &r->offset));
    PM_TRY(pm_json_i64(d, "length", 0, INT32_MAX, &r->length));
    return r_opt(d, "cardinality", &r->cardinality);
}

static pm_error *r_dvs(const pm_jnode *o, const char *key, pm_compact_dv_ref **out, size_t *n)
{
    pm_jnode a;
    size_t cnt = 0;
    *out = NULL;
    *n = 0;
    PM_TRY(pm_json_array(o, key, 0, &a, &cnt));
    if (!cnt)
        return NULL;
    PM_TRY(pm_calloc(out, cnt, sizeof **out));
    for (size_t i = 0; i < cnt; i++) {
        pm_jnode el;
        pm_json_at(&el, &a, i);
        pm_error *e = r_dv(&el, &(*out)[i]);
        if (e) {
            pm_compact_dv_refs_free(*out, i + 1);
            *out = NULL;
            return e;
        }
    }
    *n = cnt;
    return NULL;
}

static const char *const INDEX_KEYS[] = {"kind", "partition", "bucket", "index_type", "file_name", "file_size",
                                         "row_count", "dv_ranges", "external_path", "global_index", NULL};
static const char *const RANGE_KEYS[] = {"data_file", "offset", "length", "cardinality", NULL};
static const char *const GLOBAL_KEYS[] = {"row_range_start", "row_range_end", "index_field_id", "extra_field_ids",
                                          "index_meta", "source_meta", NULL};

static pm_error *r_dv_ranges(const pm_jnode *o, pm_index_file_meta *f)
{
    pm_jnode a;
    size_t n = 0;
    PM_TRY(pm_json_array(o, "dv_ranges", PM_JSON_NULLABLE, &a, &n));
    f->has_dv_ranges = a.v != NULL;
    if (!n)
        return NULL;
    PM_TRY(pm_calloc(&f->dv_ranges, n, sizeof *f->dv_ranges));
    for (size_t i = 0; i < n; i++) {
        pm_jnode m;
        pm_json_at(&m, &a, i);
        pm_dv_meta *d = &f->dv_ranges[i];
        f->dv_range_len = i + 1;
        PM_TRY(pm_json_keys(&m, RANGE_KEYS));
        PM_TRY(pm_json_str(&m, "data_file", PM_JSON_NONEMPTY, &d->data_file_name));
        PM_TRY(pm_json_i32(&m, "offset", 0, INT32_MAX, &d->offset));
        PM_TRY(pm_json_i32(&m, "length", 0, INT32_MAX, &d->length));
        PM_TRY(r_opt(&m, "cardinality", &d->cardinality));
    }
    return NULL;
}

static pm_error *r_global_index(const pm_jnode *o, pm_index_file_meta *f)
{
    pm_jnode g;
    PM_TRY(pm_json_object(o, "global_index", PM_JSON_NULLABLE, &g));
    if (!g.v)
        return NULL;
    pm_global_index_meta *gm = &f->global_index;
    f->has_global_index = true;
    PM_TRY(pm_json_keys(&g, GLOBAL_KEYS));
    PM_TRY(pm_json_i64(&g, "row_range_start", INT64_MIN, INT64_MAX, &gm->row_range_start));
    PM_TRY(pm_json_i64(&g, "row_range_end", INT64_MIN, INT64_MAX, &gm->row_range_end));
    PM_TRY(pm_json_i32(&g, "index_field_id", INT32_MIN, INT32_MAX, &gm->index_field_id));
    pm_jnode xa;
    size_t n = 0;
    PM_TRY(pm_json_array(&g, "extra_field_ids", PM_JSON_NULLABLE, &xa, &n));
    gm->has_extra_field_ids = xa.v != NULL;
    if (n) {
        PM_TRY(pm_calloc(&gm->extra_field_ids, n, sizeof(int32_t)));
        gm->extra_field_id_len = n;
        for (size_t i = 0; i < n; i++) {
            pm_jnode el;
            pm_json_at(&el, &xa, i);
            PM_TRY(pm_json_as_i32(&el, INT32_MIN, INT32_MAX, &gm->extra_field_ids[i]));
        }
    }
    PM_TRY(r_bytes(&g, "index_meta", PM_JSON_NULLABLE, &gm->index_meta));
    return r_bytes(&g, "source_meta", PM_JSON_NULLABLE, &gm->source_meta);
}

static pm_error *r_index_entry(const pm_jnode *o, pm_file_kind expect, pm_index_manifest_entry *x)
{
    memset(x, 0, sizeof *x);
    PM_TRY(pm_json_keys(o, INDEX_KEYS));
    pm_index_file_meta *f = &x->index_file;
    pm_error *e = NULL;
    int32_t kind;
    PM_TRY_GOTO(e, pm_json_i32(o, "kind", 0, 1, &kind), fail);
    if (kind != (int32_t)expect) {
        pm_jnode k;
        pm_json_get(&k, o, "kind");
        e = pm_json_error(&k, "expected %d (%s)", (int)expect, expect == PM_FILE_ADD ? "ADD" : "DELETE");
        goto fail;
    }
    x->kind = (pm_file_kind)kind;
    PM_TRY_GOTO(e, r_bytes(o, "partition", 0, &x->partition), fail);
    PM_TRY_GOTO(e, pm_json_i32(o, "bucket", INT32_MIN, INT32_MAX, &x->bucket), fail);
    PM_TRY_GOTO(e, pm_json_str(o, "index_type", PM_JSON_NONEMPTY, &f->index_type), fail);
    PM_TRY_GOTO(e, pm_json_str(o, "file_name", PM_JSON_NONEMPTY, &f->file_name), fail);
    PM_TRY_GOTO(e, pm_json_i64(o, "file_size", 0, INT64_MAX, &f->file_size), fail);
    PM_TRY_GOTO(e, pm_json_i64(o, "row_count", 0, INT64_MAX, &f->row_count), fail);
    PM_TRY_GOTO(e, r_dv_ranges(o, f), fail);
    PM_TRY_GOTO(e, pm_json_str(o, "external_path", PM_JSON_NULLABLE, &f->external_path), fail);
    PM_TRY_GOTO(e, r_global_index(o, f), fail);
    return NULL;
fail:
    pm_index_manifest_entry_clear(x);
    return e;
}

static pm_error *r_index(const pm_jnode *o, const char *key, pm_file_kind expect, pm_index_manifest_entry **out,
                         size_t *n)
{
    pm_jnode a;
    size_t cnt = 0;
    *out = NULL;
    *n = 0;
    PM_TRY(pm_json_array(o, key, 0, &a, &cnt));
    if (!cnt)
        return NULL;
    PM_TRY(pm_calloc(out, cnt, sizeof **out));
    for (size_t i = 0; i < cnt; i++) {
        pm_jnode el;
        pm_json_at(&el, &a, i);
        pm_error *e = r_index_entry(&el, expect, &(*out)[i]);
        if (e) {
            pm_index_manifest_entries_free(*out, i);
            *out = NULL;
            return e;
        }
    }
    *n = cnt;
    return NULL;
}

static const char *const KINDS[] = {[PM_COMPACT_DOC_PLAN] = "plan", [PM_COMPACT_DOC_TASK] = "task",
                                    [PM_COMPACT_DOC_RESULT] = "result"};

/* "format" is ours and "kind" one of KINDS. */
static pm_error *r_format_kind(const pm_jnode *o, pm_compact_doc_kind *kind)
{
    PM_TRY(pm_json_as_object(o, 0, NULL));
    pm_jnode f;
    int64_t version = 0;
    pm_json_get(&f, o, "format");
    PM_TRY(pm_json_as_i64(&f, INT64_MIN, INT64_MAX, &version));
    if (version != PM_COMPACT_FORMAT_VERSION) {
        f.code = PM_EUNSUPPORTED;
        return pm_json_error(&f, "version %" PRId64 " is not supported (expected %d)", version,
                             PM_COMPACT_FORMAT_VERSION);
    }
    int k = 0;
    PM_TRY(pm_json_enum(o, "kind", KINDS, sizeof KINDS / sizeof *KINDS, 0, &k));
    *kind = (pm_compact_doc_kind)k;
    return NULL;
}

static pm_error *r_header(const pm_jnode *o, pm_compact_doc_kind want)
{
    pm_compact_doc_kind got;
    PM_TRY(r_format_kind(o, &got));
    if (got == want)
        return NULL;
    pm_jnode k;
    pm_json_get(&k, o, "kind");
    return pm_json_error(&k, "expected \"%s\", got \"%s\"", KINDS[want], KINDS[got]);
}

/* The keys of a document: base keys + every registered part key. */
#define MAX_KEYS 40

static pm_error *r_doc_keys(const pm_jnode *o, const char *const *base)
{
    const char *keys[MAX_KEYS];
    size_t n = 0;
    while (base[n] && n < MAX_KEYS - 17) {
        keys[n] = base[n];
        n++;
    }
    n += pm_compact_part_keys(keys + n, 16);
    keys[n] = NULL;
    return pm_json_keys(o, keys);
}

/* The part under one of the registered part keys (at most one non-null). */
static pm_error *r_part(const pm_jnode *o, pm_compact_part **out)
{
    *out = NULL;
    const char *keys[16];
    size_t n = pm_compact_part_keys(keys, 16);
    for (size_t i = 0; i < n; i++) {
        pm_jnode c;
        pm_json_get(&c, o, keys[i]);
        if (pm_json_is_null(&c))
            continue;
        if (*out)
            return pm_json_error(&c, "a value has at most one mode part (also %s)", (*out)->mode->part_key);
        PM_TRY(pm_compact_part_owner(keys[i])->part_from_json(&c, out));
    }
    return NULL;
}

static const char *const TASK_KEYS[] = {
    "format", "kind", "table", "plan_id", "commit_user", "task_index", "snapshot_id", "schema_id", "mode", "full",
    "partition", "bucket", "total_buckets", "output", "files", "deletion_vectors", "index_files", NULL};
static const char *const OUTPUT_KEYS[] = {"format", "compression", "target_file_size", "target_file_row_num",
                                          "level", "row_group_passthrough", "row_group_passthrough_min_size",
                                          NULL};
static const char *const FORMATS[] = {"parquet", "avro"};

static pm_error *r_output(const pm_jnode *o, pm_compact_output *out)
{
    pm_jnode p;
    pm_json_get(&p, o, "output");
    PM_TRY(pm_json_keys(&p, OUTPUT_KEYS));
    int fmt;
    PM_TRY(pm_json_enum(&p, "format", FORMATS, 2, 0, &fmt));
    PM_TRY(pm_strdup(&out->format, FORMATS[fmt]));
    PM_TRY(pm_json_str(&p, "compression", PM_JSON_NONEMPTY, &out->compression));
    PM_TRY(pm_json_i64(&p, "target_file_size", 1, INT64_MAX, &out->target_file_size));
    PM_TRY(pm_json_i64(&p, "target_file_row_num", 1, INT64_MAX, &out->target_file_row_num));
    PM_TRY(pm_json_i32(&p, "level", 0, INT32_MAX, &out->level));
    PM_TRY(pm_json_bool(&p, "row_group_passthrough", &out->rg_passthrough));
    return pm_json_i64(&p, "row_group_passthrough_min_size", 0, INT64_MAX, &out->rg_passthrough_min);
}

/* Every DV belongs to an input file; input names are unique. */
static pm_error *r_task_inputs(const pm_jnode *o, const pm_compact_task *t)
{
    pm_jnode a, el, c;
    pm_json_get(&a, o, "files");
    for (size_t i = 0; i < t->nfiles; i++)
        for (size_t k = i + 1; k < t->nfiles; k++)
            if (!strcmp(t->files[i].file_name, t->files[k].file_name)) {
                pm_json_at(&el, &a, k);
                pm_json_get(&c, &el, "file_name");
                return pm_json_error(&c, "duplicate input file %s", t->files[k].file_name);
            }
    pm_json_get(&a, o, "deletion_vectors");
    for (size_t i = 0; i < t->ndvs; i++) {
        bool found = false;
        for (size_t k = 0; k < t->nfiles && !found; k++)
            found = !strcmp(t->files[k].file_name, t->dvs[i].data_file);
        if (!found) {
            pm_json_at(&el, &a, i);
            pm_json_get(&c, &el, "data_file");
            return pm_json_error(&c, "%s is not an input file of the task", t->dvs[i].data_file);
        }
    }
    return NULL;
}

/* The node's document path for messages: "task", "plan.tasks[2]". */
static const char *doc_name(const pm_jnode *o, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s%s", o->doc, o->path[0] ? "." : "", o->path);
    return buf;
}

static pm_error *r_task(const pm_jnode *o, pm_compact_task **out)
{
    char path[PM_JSON_PATH_MAX + 32];
    doc_name(o, path, sizeof path);
    *out = NULL;
    PM_TRY(r_header(o, PM_COMPACT_DOC_TASK));
    PM_TRY(r_doc_keys(o, TASK_KEYS));
    pm_compact_task *t;
    PM_TRY(pm_calloc(&t, 1, sizeof *t));
    pm_error *e = NULL;
    char *mode = NULL;
    pm_jnode c;
    PM_TRY_GOTO(e, pm_json_str(o, "table", PM_JSON_NONEMPTY, &t->table_path), fail);
    PM_TRY_GOTO(e, pm_json_str(o, "plan_id", PM_JSON_NONEMPTY, &t->plan_id), fail);
    PM_TRY_GOTO(e, pm_json_str(o, "commit_user", PM_JSON_NONEMPTY, &t->commit_user), fail);
    PM_TRY_GOTO(e, pm_json_i64(o, "task_index", 0, INT32_MAX, &t->task_index), fail);
    PM_TRY_GOTO(e, pm_json_i64(o, "snapshot_id", 1, INT64_MAX, &t->snapshot_id), fail);
    PM_TRY_GOTO(e, pm_json_i64(o, "schema_id", 0, INT64_MAX, &t->schema_id), fail);
    PM_TRY_GOTO(e, pm_json_str(o, "mode", 0, &mode), fail);
    t->mode = pm_compact_mode_named(mode);
    if (!t->mode) {
        pm_json_get(&c, o, "mode");
        e = pm_json_error(&c, "unknown mode \"%.64s\"", mode);
        goto fail;
    }
    PM_TRY_GOTO(e, pm_json_bool(o, "full", &t->full), fail);
    PM_TRY_GOTO(e, r_bytes(o, "partition", 0, &t->partition), fail);
    PM_TRY_GOTO(e, pm_json_i32(o, "bucket", 0, INT32_MAX, &t->bucket), fail);
    PM_TRY_GOTO(e, pm_json_i32(o, "total_buckets", INT32_MIN, INT32_MAX, &t->total_buckets), fail);
    PM_TRY_GOTO(e, r_output(o, &t->output), fail);
    PM_TRY_GOTO(e, r_files(o, "files", &t->files, &t->nfiles), fail);
    if (!t->nfiles) {
        pm_json_get(&c, o, "files");
        e = pm_json_error(&c, "a task needs at least one input file");
        goto fail;
    }
    PM_TRY_GOTO(e, r_dvs(o, "deletion_vectors", &t->dvs, &t->ndvs), fail);
    PM_TRY_GOTO(e, r_index(o, "index_files", PM_FILE_ADD, &t->dv_index, &t->ndv_index), fail);
    PM_TRY_GOTO(e, r_part(o, &t->part), fail);
    PM_TRY_GOTO(e, pm_compact_part_expected(t->mode, t->part, path), fail);
    if (t->part)
        PM_TRY_GOTO(e, t->part->mode->part_check(t, path), fail);
    PM_TRY_GOTO(e, pm_compact_task_check_files(t, path, false, NULL), fail);
    PM_TRY_GOTO(e, r_task_inputs(o, t), fail);
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
    "counters", NULL};
static const char *const COUNTER_KEYS[] = {"rows_read", "rows_deleted", "rows_written", "bytes_read",
                                           "bytes_written", "duration_ms", NULL};

static pm_error *r_counters(const pm_jnode *o, pm_compact_task_counters *c)
{
    pm_jnode p;
    pm_json_get(&p, o, "counters");
    PM_TRY(pm_json_keys(&p, COUNTER_KEYS));
    PM_TRY(pm_json_i64(&p, "rows_read", 0, INT64_MAX, &c->rows_read));
    PM_TRY(pm_json_i64(&p, "rows_deleted", 0, INT64_MAX, &c->rows_deleted));
    PM_TRY(pm_json_i64(&p, "rows_written", 0, INT64_MAX, &c->rows_written));
    PM_TRY(pm_json_i64(&p, "bytes_read", 0, INT64_MAX, &c->bytes_read));
    PM_TRY(pm_json_i64(&p, "bytes_written", 0, INT64_MAX, &c->bytes_written));
    return pm_json_i64(&p, "duration_ms", 0, INT64_MAX, &c->duration_ms);
}

static pm_error *r_result(const pm_jnode *o, pm_compact_result **out)
{
    *out = NULL;
    PM_TRY(r_header(o, PM_COMPACT_DOC_RESULT));
    PM_TRY(r_doc_keys(o, RESULT_KEYS));
    pm_compact_result *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    pm_error *e = NULL;
    pm_jnode c;
    PM_TRY_GOTO(e, pm_json_str(o, "table", PM_JSON_NONEMPTY, &r->table_path), fail);
    PM_TRY_GOTO(e, pm_json_str(o, "plan_id", PM_JSON_NONEMPTY, &r->plan_id), fail);
    PM_TRY_GOTO(e, pm_json_str(o, "commit_user", PM_JSON_NONEMPTY, &r->commit_user), fail);
    PM_TRY_GOTO(e, pm_json_i64(o, "task_index", 0, INT32_MAX, &r->task_index), fail);
    PM_TRY_GOTO(e, pm_json_i64(o, "snapshot_id", 1, INT64_MAX, &r->snapshot_id), fail);
    PM_TRY_GOTO(e, pm_json_i64(o, "schema_id", 0, INT64_MAX, &r->schema_id), fail);
    PM_TRY_GOTO(e, r_bytes(o, "partition", 0, &r->partition), fail);
    PM_TRY_GOTO(e, pm_json_i32(o, "bucket", 0, INT32_MAX, &r->bucket), fail);
    PM_TRY_GOTO(e, pm_json_i32(o, "total_buckets", INT32_MIN, INT32_MAX, &r->total_buckets), fail);
    PM_TRY_GOTO(e, r_files(o, "before", &r->before, &r->nbefore), fail);
    if (!r->nbefore) {
        pm_json_get(&c, o, "before");
        e = pm_json_error(&c, "a result needs at least one input file");
        goto fail;
    }
    PM_TRY_GOTO(e, r_files(o, "after", &r->after, &r->nafter), fail);
    PM_TRY_GOTO(e, r_files(o, "changelog", &r->changelog, &r->nchangelog), fail);
    PM_TRY_GOTO(e, r_dvs(o, "deletion_vectors", &r->dvs, &r->ndvs), fail);
    PM_TRY_GOTO(e, r_index(o, "index_added", PM_FILE_ADD, &r->index_added, &r->nindex_added), fail);
    PM_TRY_GOTO(e, r_index(o, "index_removed", PM_FILE_DELETE, &r->index_removed, &r->nindex_removed), fail);
    PM_TRY_GOTO(e, r_counters(o, &r->counters), fail);
    PM_TRY_GOTO(e, r_part(o, &r->part), fail);
    PM_TRY_GOTO(e, pm_compact_result_check_files(r, o->doc, false, NULL), fail);
    *out = r;
    return NULL;
fail:
    pm_compact_result_free(r);
    return e;
}

static const char *const PLAN_KEYS[] = {"format", "kind", "table", "plan_id", "commit_user", "snapshot_id",
                                        "schema_id", "full", "tasks", NULL};

/* A task of the plan: same identity, index = position. */
static pm_error *r_plan_task(const pm_jnode *el, const pm_compact_plan *p, size_t i, pm_compact_task **out)
{
    PM_TRY(r_task(el, out));
    const pm_compact_task *t = *out;
    if (strcmp(t->plan_id, p->plan_id) || t->snapshot_id != p->snapshot_id || t->schema_id != p->schema_id ||
        strcmp(t->commit_user, p->commit_user) || strcmp(t->table_path, p->table_path))
        return pm_json_error(el, "task does not belong to the plan (plan id, snapshot, schema, commit user or "
                                 "table differ)");
    if (t->task_index != (int64_t)i) {
        pm_jnode c;
        pm_json_get(&c, el, "task_index");
        return pm_json_error(&c, "expected %zu, got %" PRId64, i, t->task_index);
    }
    return NULL;
}

static pm_error *r_plan(const pm_jnode *o, pm_compact_plan **out)
{
    *out = NULL;
    PM_TRY(r_header(o, PM_COMPACT_DOC_PLAN));
    PM_TRY(pm_json_keys(o, PLAN_KEYS));
    pm_compact_plan *p;
    PM_TRY(pm_calloc(&p, 1, sizeof *p));
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_json_str(o, "table", PM_JSON_NONEMPTY, &p->table_path), fail);
    PM_TRY_GOTO(e, pm_json_str(o, "plan_id", PM_JSON_NONEMPTY, &p->plan_id), fail);
    PM_TRY_GOTO(e, pm_json_str(o, "commit_user", PM_JSON_NONEMPTY, &p->commit_user), fail);
    PM_TRY_GOTO(e, pm_json_i64(o, "snapshot_id", 0, INT64_MAX, &p->snapshot_id), fail);
    PM_TRY_GOTO(e, pm_json_i64(o, "schema_id", 0, INT64_MAX, &p->schema_id), fail);
    PM_TRY_GOTO(e, pm_json_bool(o, "full", &p->full), fail);
    pm_jnode a;
    size_t n = 0;
    PM_TRY_GOTO(e, pm_json_array(o, "tasks", 0, &a, &n), fail);
    if (n)
        PM_TRY_GOTO(e, pm_calloc(&p->tasks, n, sizeof *p->tasks), fail);
    for (size_t i = 0; i < n; i++) {
        pm_jnode el;
        pm_json_at(&el, &a, i);
        e = r_plan_task(&el, p, i, &p->tasks[i]);
        if (p->tasks[i])
            p->ntasks = i + 1;
        if (e)
            goto fail;
    }
    *out = p;
    return NULL;
fail:
    pm_compact_plan_free(p);
    return e;
}

typedef pm_error *(*doc_reader)(const pm_jnode *root, void **out);

static pm_error *read_doc(const char *json, size_t len, const char *what, doc_reader rd, void **out)
{
    *out = NULL;
    json_t *tree = NULL;
    pm_jnode root;
    PM_TRY(pm_json_parse_doc(json, len, PM_EINVALID, what, PM_JSON_NO_DUPLICATES, &tree, &root));
    pm_error *e = rd(&root, out);
    json_decref(tree);
    return e;
}

static pm_error *rd_task(const pm_jnode *root, void **out) { return r_task(root, (pm_compact_task **)out); }
static pm_error *rd_result(const pm_jnode *root, void **out) { return r_result(root, (pm_compact_result **)out); }
static pm_error *rd_plan(const pm_jnode *root, void **out) { return r_plan(root, (pm_compact_plan **)out); }

pm_error *pm_compact_task_from_json(pm_compact_task **out, const char *json, size_t len)
{
    return read_doc(json, len, "task", rd_task, (void **)out);
}

pm_error *pm_compact_result_from_json(pm_compact_result **out, const char *json, size_t len)
{
    return read_doc(json, len, "result", rd_result, (void **)out);
}

pm_error *pm_compact_plan_from_json(pm_compact_plan **out, const char *json, size_t len)
{
    return read_doc(json, len, "plan", rd_plan, (void **)out);
}

pm_error *pm_compact_doc_kind_of(pm_compact_doc_kind *out, const char *json, size_t len)
{
    json_t *tree = NULL;
    pm_jnode root;
    PM_TRY(pm_json_parse_doc(json, len, PM_EINVALID, "document", PM_JSON_NO_DUPLICATES, &tree, &root));
    pm_error *e = r_format_kind(&root, out);
    json_decref(tree);
    return e;
}
