/*
 * format/parquet/pq_footer_json.c — a Parquet file's footer as one JSON object
 * (`paimon meta`, pm_parquet_footer_json):
 *   {"file", "size", "version", "created_by", "rows", "key_value_metadata",
 *    "paimon_schema": "ROW<...>" (or "paimon_schema_error"),
 *    "schema": [{"name", "repetition", "physical_type", "type_length",
 *                "logical_type", "converted_type", "scale", "precision",
 *                "field_id", "num_children"} ...]   (depth-first, root first)
 *    "row_groups": [{"rows", "total_byte_size", "compressed_size",
 *                    "file_offset", "columns": [{"path", "physical_type",
 *                    "logical_type", "converted_type", "field_id",
 *                    "repetition", "paimon_type", "encodings", "codec",
 *                    "num_values", "compressed_size", "uncompressed_size",
 *                    "data_page_offset", "dictionary_page_offset",
 *                    "statistics": {"null_count", "distinct_count",
 *                                   "min", "max"}} ...]} ...]}
 * Statistics min/max are decoded to the column's Paimon type and printed in
 * the `paimon cat` value encoding; when they cannot be decoded (unsupported
 * type, legacy unsigned order) the raw bytes appear as "min_hex"/"max_hex".
 */
#include "format/parquet/pq_footer_json.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "format/parquet/parquet_reader.h"
#include "types/column.h"

static const char *codec_name(int32_t c)
{
    static const char *const names[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"};
    return c >= 0 && c < 8 ? names[c] : "UNKNOWN";
}

static const char *unit_name(pq_time_unit u)
{
    return u == PQ_UNIT_MILLIS ? "MILLIS" : u == PQ_UNIT_MICROS ? "MICROS" : u == PQ_UNIT_NANOS ? "NANOS" : "?";
}

static json_t *logical_json(const pq_logical_type *lt)
{
    char buf[96];
    switch (lt->kind) {
    case PQ_LT_STRING: return json_string("STRING");
    case PQ_LT_MAP: return json_string("MAP");
    case PQ_LT_LIST: return json_string("LIST");
    case PQ_LT_ENUM: return json_string("ENUM");
    case PQ_LT_DATE: return json_string("DATE");
    case PQ_LT_UNKNOWN: return json_string("UNKNOWN");
    case PQ_LT_JSON: return json_string("JSON");
    case PQ_LT_BSON: return json_string("BSON");
    case PQ_LT_UUID: return json_string("UUID");
    case PQ_LT_FLOAT16: return json_string("FLOAT16");
    case PQ_LT_VARIANT: return json_string("VARIANT");
    case PQ_LT_GEOMETRY: return json_string("GEOMETRY");
    case PQ_LT_GEOGRAPHY: return json_string("GEOGRAPHY");
    case PQ_LT_DECIMAL:
        snprintf(buf, sizeof buf, "DECIMAL(%d, %d)", lt->decimal_precision, lt->decimal_scale);
        return json_string(buf);
    case PQ_LT_TIME:
    case PQ_LT_TIMESTAMP:
        snprintf(buf, sizeof buf, "%s(%s, isAdjustedToUTC=%s)", lt->kind == PQ_LT_TIME ? "TIME" : "TIMESTAMP",
                 unit_name(lt->unit), lt->is_adjusted_to_utc ? "true" : "false");
        return json_string(buf);
    case PQ_LT_INTEGER:
        snprintf(buf, sizeof buf, "INT(%d, %s)", lt->int_bit_width, lt->int_is_signed ? "signed" : "unsigned");
        return json_string(buf);
    default:
        snprintf(buf, sizeof buf, "LOGICAL_TYPE_%d", (int)lt->kind);
        return json_string(buf);
    }
}

/* Set key to value, taking the reference; NULL values (OOM) are ignored. */
static void put(json_t *o, const char *key, json_t *v)
{
    if (v)
        json_object_set_new(o, key, v);
}

static void put_element_types(json_t *o, const pq_schema_element *e)
{
    if (e->has_type)
        put(o, "physical_type", json_string(pq_type_name(e->type)));
    if (e->has_type_length && e->has_type && e->type == PQ_FIXED_LEN_BYTE_ARRAY)
        put(o, "type_length", json_integer(e->type_length));
    if (e->has_logical_type && e->logical_type.kind != PQ_LT_NONE)
        put(o, "logical_type", logical_json(&e->logical_type));
    if (e->has_converted_type)
        put(o, "converted_type", json_string(pq_converted_type_name(e->converted_type)));
}

static json_t *schema_json(const pm_pq_file_meta *m)
{
    json_t *a = json_array();
    for (uint32_t i = 0; i < m->num_schema; i++) {
        const pq_schema_element *e = &m->schema[i];
        json_t *o = json_object();
        put(o, "name", json_string(e->name));
        if (e->has_repetition)
            put(o, "repetition", json_string(pq_repetition_name(e->repetition)));
        put_element_types(o, e);
        if (e->has_scale)
            put(o, "scale", json_integer(e->scale));
        if (e->has_precision)
            put(o, "precision", json_integer(e->precision));
        if (e->has_field_id)
            put(o, "field_id", json_integer(e->field_id));
        if (e->has_num_children)
            put(o, "num_children", json_integer(e->num_children));
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *hex_json(const uint8_t *p, size_t n)
{
    char *s = malloc(2 * n + 1);
    if (!s)
        return NULL;
    for (size_t i = 0; i < n; i++)
        snprintf(s + 2 * i, 3, "%02x", p[i]);
    s[2 * n] = 0;
    json_t *j = json_string(s);
    free(s);
    return j;
}

/* min or max of one column chunk, decoded through a one-row column. */
static pm_error *stat_value(const pm_pq_reader *r, uint32_t rg, uint32_t leaf, bool max, json_t **out)
{
    *out = NULL;
    const pm_type *t = pm_pq_reader_leaf_type(r, leaf);
    if (!t)
        return NULL;
    pm_column *col;
    PM_TRY(pm_column_new(&col, t));
    bool present = false;
    pm_buf text = PM_BUF_INIT;
    pm_error *e = pm_pq_reader_stat(r, rg, leaf, max, col, &present);
    if (!e && present)
        e = pm_column_format_json(col, 0, &text);
    if (!e && present) {
        json_error_t je;
        *out = json_loadb((const char *)text.data, text.len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    }
    pm_buf_free(&text);
    pm_column_release(col);
    return e;
}

static pm_error *stats_json(const pm_pq_reader *r, uint32_t rg, uint32_t leaf, const pq_statistics *s, json_t **out)
{
    json_t *o = json_object();
    if (s->has_null_count)
        put(o, "null_count", json_integer(s->null_count));
    if (s->has_distinct_count)
        put(o, "distinct_count", json_integer(s->distinct_count));
    for (int k = 0; k < 2; k++) {
        bool max = k == 1;
        json_t *v;
        pm_error *e = stat_value(r, rg, leaf, max, &v);
        if (e) {
            json_decref(o);
            return e;
        }
        if (v) {
            put(o, max ? "max" : "min", v);
        } else {
            const uint8_t *p = max ? (s->has_max_value ? s->max_value : s->has_max ? s->max : NULL)
                                   : (s->has_min_value ? s->min_value : s->has_min ? s->min : NULL);
            uint32_t n = max ? (s->has_max_value ? s->max_value_len : s->max_len)
                             : (s->has_min_value ? s->min_value_len : s->min_len);
            if (p)
                put(o, max ? "max_hex" : "min_hex", hex_json(p, n));
        }
    }
    *out = o;
    return NULL;
}

/* Schema element index of every leaf column, in order. */
static uint32_t *leaf_elements(const pm_pq_file_meta *m, uint32_t nleaves)
{
    uint32_t *v = calloc(nleaves ? nleaves : 1, sizeof *v);
    if (!v)
        return NULL;
    uint32_t k = 0;
    for (uint32_t i = 1; i < m->num_schema && k < nleaves; i++) {
        const pq_schema_element *e = &m->schema[i];
        if (e->has_type && !(e->has_num_children && e->num_children > 0))
            v[k++] = i;
    }
    return v;
}

static pm_error *build(const char *path, pm_pq_reader *r, uint64_t size, json_t **out)
{
    const pm_pq_file_meta *m = pm_pq_reader_meta(r);
    uint32_t nleaves = pm_pq_reader_num_leaves(r);
    json_t *root = json_object();
    put(root, "file", json_string(path));
    put(root, "size", json_integer((json_int_t)size));
    put(root, "version", json_integer(m->version));
    if (m->created_by)
        put(root, "created_by", json_string(m->created_by));
    put(root, "rows", json_integer(m->num_rows));
    put(root, "num_row_groups", json_integer(m->num_row_groups));
    put(root, "num_columns", json_integer(nleaves));
    json_t *kv = json_object();
    for (uint32_t i = 0; i < m->num_key_value_metadata; i++)
        put(kv, m->key_value_metadata[i].key,
            m->key_value_metadata[i].value ? json_string(m->key_value_metadata[i].value) : json_null());
    put(root, "key_value_metadata", kv);

    /* Why the Paimon schema cannot be built (else run() adds it). */
    for (uint32_t l = 0; l < nleaves; l++) {
        const pm_error *fe = pm_pq_reader_leaf_error(r, l);
        if (fe) {
            char *s = pm_error_format(fe);
            put(root, "paimon_schema_error", json_string(s ? s : "?"));
            free(s);
            break;
        }
    }
    put(root, "schema", schema_json(m));

    uint32_t *elem = leaf_elements(m, nleaves);
    if (!elem) {
        json_decref(root);
        return pm_error_new(PM_ENOMEM, "out of memory");
    }
    json_t *rgs = json_array();
    for (uint32_t g = 0; g < m->num_row_groups; g++) {
        const pq_row_group *rg = &m->row_groups[g];
        json_t *ro = json_object();
        put(ro, "rows", json_integer(rg->num_rows));
        put(ro, "total_byte_size", json_integer(rg->total_byte_size));
        if (rg->has_total_compressed_size)
            put(ro, "compressed_size", json_integer(rg->total_compressed_size));
        if (rg->has_file_offset)
            put(ro, "file_offset", json_integer(rg->file_offset));
        json_t *cols = json_array();
        for (uint32_t c = 0; c < rg->num_columns && c < nleaves; c++) {
            const pq_column_chunk *cc = &rg->columns[c];
            const pq_schema_element *e = &m->schema[elem[c]];
            json_t *co = json_object();
            const char *lp = pm_pq_reader_leaf_path(r, c);
            if (cc->has_meta_data && cc->meta_data.path_len) {
                pm_buf p = PM_BUF_INIT;
                for (uint32_t k = 0; k < cc->meta_data.path_len; k++) {
                    if (k)
                        pm_buf_append_byte(&p, '.');
                    pm_buf_append_str(&p, cc->meta_data.path_in_schema[k]);
                }
                const char *ps = NULL;
                pm_buf_cstr(&p, &ps);
                put(co, "path", json_string(ps ? ps : ""));
                pm_buf_free(&p);
            } else if (lp) {
                put(co, "path", json_string(lp));
            }
            put_element_types(co, e);
            if (e->has_field_id)
                put(co, "field_id", json_integer(e->field_id));
            if (e->has_repetition)
                put(co, "repetition", json_string(pq_repetition_name(e->repetition)));
            const pm_type *lt = pm_pq_reader_leaf_type(r, c);
            if (lt) {
                char *ts = pm_type_to_string(lt);
                if (ts)
                    put(co, "paimon_type", json_string(ts));
                free(ts);
            }
            if (cc->file_path)
                put(co, "file_path", json_string(cc->file_path));
            if (cc->has_meta_data) {
                const pq_column_meta *cm = &cc->meta_data;
                json_t *enc = json_array();
                for (uint32_t k = 0; k < cm->num_encodings; k++)
                    json_array_append_new(enc, json_string(pq_encoding_name(cm->encodings[k])));
                put(co, "encodings", enc);
                put(co, "codec", json_string(codec_name(cm->codec)));
                put(co, "num_values", json_integer(cm->num_values));
                put(co, "compressed_size", json_integer(cm->total_compressed_size));
                put(co, "uncompressed_size", json_integer(cm->total_uncompressed_size));
                put(co, "data_page_offset", json_integer(cm->data_page_offset));
                if (cm->has_dictionary_page_offset)
                    put(co, "dictionary_page_offset", json_integer(cm->dictionary_page_offset));
                if (cm->has_statistics) {
                    json_t *st;
                    pm_error *e2 = stats_json(r, g, c, &cm->statistics, &st);
                    if (e2) {
                        json_decref(co);
                        json_decref(cols);
                        json_decref(ro);
                        json_decref(rgs);
                        json_decref(root);
                        free(elem);
                        return pm_error_wrap(e2, 0, "row group %u column %u statistics", g, c);
                    }
                    put(co, "statistics", st);
                }
            }
            json_array_append_new(cols, co);
        }
        put(ro, "columns", cols);
        json_array_append_new(rgs, ro);
    }
    free(elem);
    put(root, "row_groups", rgs);
    *out = root;
    return NULL;
}

static pm_error *paimon_schema(pm_input *in, json_t *root)
{
    /* A second, full reader gives the projected (= whole) Paimon row type. */
    pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;
    pm_pq_reader *r;
    pm_error *e = pm_pq_reader_open(&r, in, &o);
    if (e) {
        pm_error_free(e);
        return NULL;
    }
    char *s = pm_type_to_string(pm_pq_reader_schema(r));
    if (s)
        put(root, "paimon_schema", json_string(s));
    free(s);
    pm_pq_reader_free(r);
    return NULL;
}

pm_error *pm_pq_footer_json(pm_fileio *fio, const char *path, char **out)
{
    *out = NULL;
    pm_input *in = NULL;
    pm_pq_reader *r = NULL;
    json_t *root = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_input_open(fio, path, &in), done);
    pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;
    o.footer_only = true;
    PM_TRY_GOTO(e, pm_pq_reader_open(&r, in, &o), done);
    PM_TRY_GOTO(e, build(path, r, pm_input_size(in), &root), done);
    if (!json_object_get(root, "paimon_schema_error"))
        PM_TRY_GOTO(e, paimon_schema(in, root), done);
    *out = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (!*out)
        e = pm_error_new(PM_ENOMEM, "out of memory formatting JSON");
done:
    json_decref(root);
    pm_pq_reader_free(r);
    pm_input_close(in);
    return e;
}
