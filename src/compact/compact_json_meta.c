/*
 * compact/compact_json_meta.c — JSON of the values compaction documents
 * carry (compact_json.h): DataFileMeta {file_name, file_size, row_count,
 * min_key, max_key, key_stats, value_stats, min_sequence_number,
 * max_sequence_number, schema_id, level, extra_files, creation_time,
 * delete_row_count, embedded_index, file_source, value_stats_cols,
 * external_path, first_row_id, write_cols, write_cols_sequences},
 * SimpleStats {min_values, max_values, null_counts [int|null] | null},
 * DvRef {data_file, index_file, offset, length, cardinality},
 * IndexEntry {kind (0 ADD, 1 DELETE), partition, bucket, index_type,
 * file_name, file_size, row_count, dv_ranges [{data_file, offset, length,
 * cardinality}] | null, external_path, global_index {row_range_start,
 * row_range_end, index_field_id, extra_field_ids, index_meta,
 * source_meta} | null}.  Every key is always written (nullable values as
 * null); byte strings are standard base64; DataFileMeta round-trips
 * exactly, null and empty distinguished.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "base/util.h"
#include "compact/compact_json.h"
#include "meta/manifest.h"

/* ================================================================== */
/* writing                                                             */
/* ================================================================== */

json_t *pm_cjw_take(pm_cjw *b, json_t *v)
{
    if (!v)
        b->failed = true;
    return v;
}

void pm_cjw_set(pm_cjw *b, json_t *obj, const char *key, json_t *v)
{
    if (!v) {
        b->failed = true;
        return;
    }
    if (!obj || json_object_set_new(obj, key, v))
        b->failed = true;
}

void pm_cjw_push(pm_cjw *b, json_t *arr, json_t *v)
{
    if (!v) {
        b->failed = true;
        return;
    }
    if (!arr || json_array_append_new(arr, v))
        b->failed = true;
}

json_t *pm_cjw_str(pm_cjw *b, const char *s)
{
    if (!s)
        return json_null();
    json_t *v = json_string(s);
    if (!v && !b->bad_string)
        b->bad_string = s;
    return pm_cjw_take(b, v);
}

json_t *pm_cjw_long(pm_cjw *b, int64_t v) { return pm_cjw_take(b, json_integer((json_int_t)v)); }

static json_t *w_opt_long(pm_cjw *b, pm_opt_long v) { return v.has ? pm_cjw_long(b, v.v) : json_null(); }

json_t *pm_cjw_bytes(pm_cjw *b, const pm_bytes *v)
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
    return pm_cjw_take(b, r);
}

static json_t *w_str_list(pm_cjw *b, bool has, const pm_str_list *l)
{
    if (!has)
        return json_null();
    json_t *a = pm_cjw_take(b, json_array());
    for (size_t i = 0; i < l->count; i++)
        pm_cjw_push(b, a, pm_cjw_str(b, l->items[i]));
    return a;
}

static json_t *w_stats(pm_cjw *b, const pm_simple_stats *s)
{
    json_t *o = pm_cjw_take(b, json_object());
    pm_cjw_set(b, o, "min_values", pm_cjw_bytes(b, &s->min_values));
    pm_cjw_set(b, o, "max_values", pm_cjw_bytes(b, &s->max_values));
    if (s->has_null_counts) {
        json_t *a = pm_cjw_take(b, json_array());
        for (size_t i = 0; i < s->null_count_len; i++)
            pm_cjw_push(b, a, w_opt_long(b, s->null_counts[i]));
        pm_cjw_set(b, o, "null_counts", a);
    } else {
        pm_cjw_set(b, o, "null_counts", json_null());
    }
    return o;
}

static json_t *w_file(pm_cjw *b, const pm_data_file_meta *f)
{
    json_t *o = pm_cjw_take(b, json_object());
    pm_cjw_set(b, o, "file_name", pm_cjw_str(b, f->file_name));
    pm_cjw_set(b, o, "file_size", pm_cjw_long(b, f->file_size));
    pm_cjw_set(b, o, "row_count", pm_cjw_long(b, f->row_count));
    pm_cjw_set(b, o, "min_key", pm_cjw_bytes(b, &f->min_key));
    pm_cjw_set(b, o, "max_key", pm_cjw_bytes(b, &f->max_key));
    pm_cjw_set(b, o, "key_stats", w_stats(b, &f->key_stats));
    pm_cjw_set(b, o, "value_stats", w_stats(b, &f->value_stats));
    pm_cjw_set(b, o, "min_sequence_number", pm_cjw_long(b, f->min_sequence_number));
    pm_cjw_set(b, o, "max_sequence_number", pm_cjw_long(b, f->max_sequence_number));
    pm_cjw_set(b, o, "schema_id", pm_cjw_long(b, f->schema_id));
    pm_cjw_set(b, o, "level", pm_cjw_long(b, f->level));
    pm_cjw_set(b, o, "extra_files", w_str_list(b, true, &f->extra_files));
    pm_cjw_set(b, o, "creation_time", w_opt_long(b, f->creation_time));
    pm_cjw_set(b, o, "delete_row_count", w_opt_long(b, f->delete_row_count));
    pm_cjw_set(b, o, "embedded_index", pm_cjw_bytes(b, &f->embedded_index));
    pm_cjw_set(b, o, "file_source", f->file_source.has ? pm_cjw_long(b, f->file_source.v) : json_null());
    pm_cjw_set(b, o, "value_stats_cols", w_str_list(b, f->has_value_stats_cols, &f->value_stats_cols));
    pm_cjw_set(b, o, "external_path", pm_cjw_str(b, f->external_path));
    pm_cjw_set(b, o, "first_row_id", w_opt_long(b, f->first_row_id));
    pm_cjw_set(b, o, "write_cols", w_str_list(b, f->has_write_cols, &f->write_cols));
    if (f->has_write_cols_sequences) {
        json_t *a = pm_cjw_take(b, json_array());
        for (size_t i = 0; i < f->write_cols_sequence_len; i++)
            pm_cjw_push(b, a, pm_cjw_long(b, f->write_cols_sequences[i]));
        pm_cjw_set(b, o, "write_cols_sequences", a);
    } else {
        pm_cjw_set(b, o, "write_cols_sequences", json_null());
    }
    return o;
}

json_t *pm_cjw_files(pm_cjw *b, const pm_data_file_meta *f, size_t n)
{
    json_t *a = pm_cjw_take(b, json_array());
    for (size_t i = 0; i < n; i++)
        pm_cjw_push(b, a, w_file(b, &f[i]));
    return a;
}

json_t *pm_cjw_dvs(pm_cjw *b, const pm_compact_dv_ref *d, size_t n)
{
    json_t *a = pm_cjw_take(b, json_array());
    for (size_t i = 0; i < n; i++) {
        json_t *o = pm_cjw_take(b, json_object());
        pm_cjw_set(b, o, "data_file", pm_cjw_str(b, d[i].data_file));
        pm_cjw_set(b, o, "index_file", pm_cjw_str(b, d[i].index_file));
        pm_cjw_set(b, o, "offset", pm_cjw_long(b, d[i].offset));
        pm_cjw_set(b, o, "length", pm_cjw_long(b, d[i].length));
        pm_cjw_set(b, o, "cardinality", w_opt_long(b, d[i].cardinality));
        pm_cjw_push(b, a, o);
    }
    return a;
}

json_t *pm_cjw_index(pm_cjw *b, const pm_index_manifest_entry *e, size_t n)
{
    json_t *a = pm_cjw_take(b, json_array());
    for (size_t i = 0; i < n; i++) {
        const pm_index_file_meta *f = &e[i].index_file;
        json_t *o = pm_cjw_take(b, json_object());
        pm_cjw_set(b, o, "kind", pm_cjw_long(b, e[i].kind));
        pm_cjw_set(b, o, "partition", pm_cjw_bytes(b, &e[i].partition));
        pm_cjw_set(b, o, "bucket", pm_cjw_long(b, e[i].bucket));
        pm_cjw_set(b, o, "index_type", pm_cjw_str(b, f->index_type));
        pm_cjw_set(b, o, "file_name", pm_cjw_str(b, f->file_name));
        pm_cjw_set(b, o, "file_size", pm_cjw_long(b, f->file_size));
        pm_cjw_set(b, o, "row_count", pm_cjw_long(b, f->row_count));
        if (f->has_dv_ranges) {
            json_t *r = pm_cjw_take(b, json_array());
            for (size_t k = 0; k < f->dv_range_len; k++) {
                const pm_dv_meta *m = &f->dv_ranges[k];
                json_t *mo = pm_cjw_take(b, json_object());
                pm_cjw_set(b, mo, "data_file", pm_cjw_str(b, m->data_file_name));
                pm_cjw_set(b, mo, "offset", pm_cjw_long(b, m->offset));
                pm_cjw_set(b, mo, "length", pm_cjw_long(b, m->length));
                pm_cjw_set(b, mo, "cardinality", w_opt_long(b, m->cardinality));
                pm_cjw_push(b, r, mo);
            }
            pm_cjw_set(b, o, "dv_ranges", r);
        } else {
            pm_cjw_set(b, o, "dv_ranges", json_null());
        }
        pm_cjw_set(b, o, "external_path", pm_cjw_str(b, f->external_path));
        if (f->has_global_index) {
            const pm_global_index_meta *g = &f->global_index;
            json_t *go = pm_cjw_take(b, json_object());
            pm_cjw_set(b, go, "row_range_start", pm_cjw_long(b, g->row_range_start));
            pm_cjw_set(b, go, "row_range_end", pm_cjw_long(b, g->row_range_end));
            pm_cjw_set(b, go, "index_field_id", pm_cjw_long(b, g->index_field_id));
            if (g->has_extra_field_ids) {
                json_t *x = pm_cjw_take(b, json_array());
                for (size_t k = 0; k < g->extra_field_id_len; k++)
                    pm_cjw_push(b, x, pm_cjw_long(b, g->extra_field_ids[k]));
                pm_cjw_set(b, go, "extra_field_ids", x);
            } else {
                pm_cjw_set(b, go, "extra_field_ids", json_null());
            }
            pm_cjw_set(b, go, "index_meta", pm_cjw_bytes(b, &g->index_meta));
            pm_cjw_set(b, go, "source_meta", pm_cjw_bytes(b, &g->source_meta));
            pm_cjw_set(b, o, "global_index", go);
        } else {
            pm_cjw_set(b, o, "global_index", json_null());
        }
        pm_cjw_push(b, a, o);
    }
    return a;
}

/* Every registered part key: the value's part under its mode's key, null
 * under the others. */

/* ================================================================== */
/* reading                                                             */
/* ================================================================== */

pm_error *pm_cjr_bytes(const pm_jnode *o, const char *key, unsigned flags, pm_bytes *out)
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
    PM_TRY_GOTO(e, pm_cjr_bytes(&o, "min_values", PM_JSON_NULLABLE, &s->min_values), fail);
    PM_TRY_GOTO(e, pm_cjr_bytes(&o, "max_values", PM_JSON_NULLABLE, &s->max_values), fail);
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
    PM_TRY_GOTO(e, pm_cjr_bytes(o, "min_key", PM_JSON_NULLABLE, &f->min_key), fail);
    PM_TRY_GOTO(e, pm_cjr_bytes(o, "max_key", PM_JSON_NULLABLE, &f->max_key), fail);
    PM_TRY_GOTO(e, r_stats(o, "key_stats", &f->key_stats), fail);
    PM_TRY_GOTO(e, r_stats(o, "value_stats", &f->value_stats), fail);
    PM_TRY_GOTO(e, pm_json_i64(o, "min_sequence_number", INT64_MIN, INT64_MAX, &f->min_sequence_number), fail);
    PM_TRY_GOTO(e, pm_json_i64(o, "max_sequence_number", INT64_MIN, INT64_MAX, &f->max_sequence_number), fail);
    PM_TRY_GOTO(e, pm_json_i64(o, "schema_id", 0, INT64_MAX, &f->schema_id), fail);
    PM_TRY_GOTO(e, pm_json_i32(o, "level", 0, INT32_MAX, &f->level), fail);
    PM_TRY_GOTO(e, pm_json_str_list(o, "extra_files", 0, NULL, &f->extra_files), fail);
    PM_TRY_GOTO(e, r_opt(o, "creation_time", &f->creation_time), fail);
    PM_TRY_GOTO(e, r_opt(o, "delete_row_count", &f->delete_row_count), fail);
    PM_TRY_GOTO(e, pm_cjr_bytes(o, "embedded_index", PM_JSON_NULLABLE, &f->embedded_index), fail);
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
    PM_TRY(pm_cjr_bytes(&g, "index_meta", PM_JSON_NULLABLE, &gm->index_meta));
    return pm_cjr_bytes(&g, "source_meta", PM_JSON_NULLABLE, &gm->source_meta);
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
    PM_TRY_GOTO(e, pm_cjr_bytes(o, "partition", 0, &x->partition), fail);
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

/* ---- arrays: obj[key] as n elements of `size` bytes read by rd (which
 * leaves its element clear on failure); freed with fr on failure ---- */

typedef pm_error *(*elem_read)(const pm_jnode *el, const void *arg, void *out);
typedef void (*elems_free)(void *arr, size_t n);

static pm_error *r_elems(const pm_jnode *o, const char *key, size_t size, elem_read rd, const void *arg,
                         elems_free fr, void **out, size_t *n)
{
    pm_jnode a;
    size_t cnt = 0;
    *out = NULL;
    *n = 0;
    PM_TRY(pm_json_array(o, key, 0, &a, &cnt));
    if (!cnt)
        return NULL;
    uint8_t *arr = NULL;
    PM_TRY(pm_calloc(&arr, cnt, size));
    for (size_t i = 0; i < cnt; i++) {
        pm_jnode el;
        pm_json_at(&el, &a, i);
        pm_error *e = rd(&el, arg, arr + i * size);
        if (e) {
            fr(arr, i + 1);
            return e;
        }
    }
    *out = arr;
    *n = cnt;
    return NULL;
}

static pm_error *rd_file(const pm_jnode *el, const void *arg, void *out)
{
    (void)arg;
    return r_file(el, out);
}

static void free_files(void *a, size_t n) { pm_data_file_metas_free(a, n); }

pm_error *pm_cjr_files(const pm_jnode *o, const char *key, pm_data_file_meta **out, size_t *n)
{
    return r_elems(o, key, sizeof **out, rd_file, NULL, free_files, (void **)out, n);
}

static pm_error *rd_dv(const pm_jnode *el, const void *arg, void *out)
{
    (void)arg;
    pm_error *e = r_dv(el, out);
    if (e)
        pm_compact_dv_ref_clear(out);
    return e;
}

static void free_dvs(void *a, size_t n) { pm_compact_dv_refs_free(a, n); }

pm_error *pm_cjr_dvs(const pm_jnode *o, const char *key, pm_compact_dv_ref **out, size_t *n)
{
    return r_elems(o, key, sizeof **out, rd_dv, NULL, free_dvs, (void **)out, n);
}

static pm_error *rd_index(const pm_jnode *el, const void *arg, void *out)
{
    return r_index_entry(el, *(const pm_file_kind *)arg, out);
}

static void free_index(void *a, size_t n) { pm_index_manifest_entries_free(a, n); }

pm_error *pm_cjr_index(const pm_jnode *o, const char *key, pm_file_kind expect, pm_index_manifest_entry **out,
                       size_t *n)
{
    return r_elems(o, key, sizeof **out, rd_index, &expect, free_index, (void **)out, n);
}
