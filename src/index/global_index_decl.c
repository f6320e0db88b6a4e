/*
 * index/global_index_decl.c — the global-index declaration resolver (see
 * global_index_decl.h for the rules).
 *
 * Steps: for every family of the list, the first present declaration key
 * gives its columns (checked: blank, empty names, duplicates, unknown
 * fields, supported family); the columns of all families are then checked
 * for a column in two families; each column's parameters come from the
 * first present field JSON (the two legacy ones merged when both exist),
 * qualified, checked against the keys paimon-c acts on, and laid over the
 * table-level policy defaults.
 */
#include "index/global_index_decl.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "index/fi_internal.h"
#include "index/global_index_file.h"

#define KEY_MAX 512

typedef struct family_def {
    const char *name;
    bool supported;
    pm_gi_family family;
    const char *prefix;     /* implementation prefix of short JSON keys */
} family_def;

static const family_def FAMILIES[] = {
    {"btree", true, PM_GI_BTREE, "btree-index."},
    {"bitmap", true, PM_GI_BITMAP, "bitmap-index."},
    {"multivalue", false, 0, "multivalue-index."},
    {"fm", false, 0, "fm-index."},
    {"full-text", false, 0, "full-text."},
    {"ivf-flat", false, 0, "ivf-flat."},
    {"ivf-sq", false, 0, "ivf-sq."},
    {"ivf-pq", false, 0, "ivf-pq."},
    {"ivf-rq", false, 0, "ivf-rq."},
    {"diskann", false, 0, "diskann."},
    {"vector", false, 0, "vector."},
};
#define NFAMILIES (sizeof FAMILIES / sizeof FAMILIES[0])

const char *pm_gi_family_name(pm_gi_family f) { return f == PM_GI_BTREE ? "btree" : "bitmap"; }

bool pm_gi_family_parse(const char *index_type, pm_gi_family *out)
{
    if (!index_type)
        return false;
    if (!strcmp(index_type, "btree"))
        *out = PM_GI_BTREE;
    else if (!strcmp(index_type, "bitmap"))
        *out = PM_GI_BITMAP;
    else
        return false;
    return true;
}

void pm_gi_decls_clear(pm_gi_decls *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->cols[i].column);
        free(d->cols[i].declared_by);
        pm_options_free(d->cols[i].params);
    }
    free(d->cols);
    d->cols = NULL;
    d->n = 0;
}

const pm_gi_column *pm_gi_decls_find(const pm_gi_decls *d, int32_t field_id)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->cols[i].field_id == field_id)
            return &d->cols[i];
    return NULL;
}

const pm_gi_column *pm_gi_decls_find_name(const pm_gi_decls *d, const char *name)
{
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->cols[i].column, name))
            return &d->cols[i];
    return NULL;
}

/* ---------------------------------------------------------------- */
/* declarations                                                      */

/* The first present declaration key of family f: *key (static buffer of
 * the caller) and its value, or *value = NULL. */
static void declaration_of(const pm_options *o, const family_def *f, char *key, size_t cap, const char **value)
{
    const char *forms[3] = {"global-index.%s.index-columns", "global-index.%s.index-column", "pk-%s.index.columns"};
    *value = NULL;
    for (size_t i = 0; i < 3; i++) {
        snprintf(key, cap, forms[i], f->name);
        const char *v = pm_options_get(o, key);
        if (v) {
            *value = v;
            return;
        }
    }
}

static bool blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r' && *s != '\f' && *s != '\v')
            return false;
    return true;
}

/* Every global-index.X.index-column(s) key names a known family. */
static pm_error *check_unknown_families(const pm_options *o)
{
    for (size_t i = 0; i < pm_options_count(o); i++) {
        const char *k = pm_options_key_at(o, i);
        if (strncmp(k, "global-index.", 13))
            continue;
        const char *rest = k + 13, *dot = strrchr(rest, '.');
        if (!dot || dot == rest || (strcmp(dot, ".index-columns") && strcmp(dot, ".index-column")))
            continue;
        size_t n = (size_t)(dot - rest);
        bool known = false;
        for (size_t f = 0; f < NFAMILIES && !known; f++)
            known = strlen(FAMILIES[f].name) == n && !strncmp(FAMILIES[f].name, rest, n);
        if (!known)
            return pm_error_new(PM_EINVALID, "option '%s': unknown global index type '%.*s'", k, (int)n, rest);
    }
    return NULL;
}

/* ---------------------------------------------------------------- */
/* field parameters                                                  */

/* The JSON text of a scalar value (string, boolean, number) as an option
 * value (malloc'd). */
static pm_error *json_scalar_text(const json_t *v, const char *key, const char *opt, char **out)
{
    *out = NULL;
    if (json_is_string(v))
        return pm_strdup(out, json_string_value(v));
    if (json_is_true(v))
        return pm_strdup(out, "true");
    if (json_is_false(v))
        return pm_strdup(out, "false");
    if (json_is_integer(v)) {
        char buf[32];
        snprintf(buf, sizeof buf, "%" PRId64, (int64_t)json_integer_value(v));
        return pm_strdup(out, buf);
    }
    if (json_is_real(v)) {
        char *t = json_dumps(v, JSON_ENCODE_ANY);
        if (!t)
            return pm_oom();
        *out = t;
        return NULL;
    }
    return pm_error_new(PM_EINVALID, "option '%s': value of '%s' must be a string, boolean or number", opt, key);
}

/* The qualified key of a JSON key k of family f (into buf). */
static pm_error *qualify(const family_def *f, const char *k, const char *opt, char *buf, size_t cap)
{
    if (!*k)
        return pm_error_new(PM_EINVALID, "option '%s': empty parameter name", opt);
    int n;
    if (!strncmp(k, f->prefix, strlen(f->prefix)) || !strncmp(k, "global-index.", 13))
        n = snprintf(buf, cap, "%s", k);
    else
        n = snprintf(buf, cap, "%s%s", f->prefix, k);
    if (n < 0 || (size_t)n >= cap)
        return pm_error_new(PM_EINVALID, "option '%s': parameter name '%s' is too long", opt, k);
    return NULL;
}

/* Parse the JSON object of option `opt` into qualified pairs of params;
 * with `merge`, a key already present with another value is a conflict. */
static pm_error *parse_params(const family_def *f, const char *opt, const char *text, bool merge, pm_options *params)
{
    json_error_t je;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return pm_error_new(PM_EINVALID, "option '%s': not a JSON object (%s, line %d column %d)", opt, je.text,
                            je.line, je.column);
    pm_error *e = NULL;
    if (!json_is_object(root)) {
        e = pm_error_new(PM_EINVALID, "option '%s': not a JSON object", opt);
        goto done;
    }
    const char *k;
    json_t *v;
    json_object_foreach(root, k, v)
    {
        char q[KEY_MAX];
        char *val = NULL;
        if ((e = qualify(f, k, opt, q, sizeof q)) || (e = json_scalar_text(v, k, opt, &val)))
            break;
        const char *old = pm_options_get(params, q);
        if (old && merge && strcmp(old, val)) {
            e = pm_error_new(PM_EINVALID, "option '%s': '%s' = '%s' conflicts with '%s' of another legacy declaration",
                             opt, q, val, old);
            free(val);
            break;
        }
        e = pm_options_set(params, q, val);
        free(val);
        if (e)
            break;
    }
done:
    json_decref(root);
    return e;
}

/* The field JSON of column c of family f (see the header's precedence). */
static pm_error *column_params(const pm_options *o, const family_def *f, const char *c, pm_options *params)
{
    char k1[KEY_MAX], k2[KEY_MAX], k3[KEY_MAX];
    snprintf(k1, sizeof k1, "fields.%s.index-options", c);
    snprintf(k2, sizeof k2, "fields.%s.global-index.%s.index-options", c, f->name);
    snprintf(k3, sizeof k3, "fields.%s.pk-%s.index.options", c, f->name);
    const char *v1 = pm_options_get(o, k1), *v2 = pm_options_get(o, k2), *v3 = pm_options_get(o, k3);
    if (v1)
        return parse_params(f, k1, v1, false, params);
    if (v2)
        PM_TRY(parse_params(f, k2, v2, false, params));
    if (v3)
        PM_TRY(parse_params(f, k3, v3, v2 != NULL, params));
    return NULL;
}

/* An integer parameter: table-level key, then the JSON's, within [lo, hi]. */
static pm_error *int_param(const pm_options *table, const pm_options *params, const char *key, int64_t def,
                           int64_t lo, const char *c, int64_t *out)
{
    *out = def;
    const char *v = pm_options_get(params, key);
    const char *src = v ? "index-options of column" : "table option";
    if (!v)
        v = pm_options_get(table, key);
    if (!v)
        return NULL;
    pm_error *e = pm_parse_int64(v, out);
    if (e)
        return pm_error_wrap(e, PM_EINVALID, "%s %s: '%s'", src, c, key);
    if (*out < lo)
        return pm_error_new(PM_EINVALID, "%s %s: '%s' = %" PRId64 " must be %s", src, c, key, *out,
                            lo > 0 ? "positive" : "nonnegative");
    return NULL;
}

static pm_error *memory_param(const pm_options *params, const char *key, int64_t def, const char *c, int64_t *out)
{
    *out = def;
    const char *v = pm_options_get(params, key);
    if (!v)
        return NULL;
    pm_error *e = pm_parse_memory_size(v, out);
    if (e)
        return pm_error_wrap(e, PM_EINVALID, "index-options of column %s: '%s'", c, key);
    if (*out <= 0 || *out > INT32_MAX)
        return pm_error_new(PM_EINVALID, "index-options of column %s: '%s' must be between 1 byte and 2 GiB", c,
                            key);
    return NULL;
}

static const char *const POLICY_KEYS[] = {"global-index.num-sorted-run.compaction-trigger",
                                          "global-index.compaction.size-ratio",
                                          "global-index.compaction.max-size-amplification-percent",
                                          "global-index.row-count-per-shard", NULL};
static const char *const BTREE_KEYS[] = {"btree-index.block-size",        "btree-index.records-per-range",
                                         "btree-index.compression",       "btree-index.compression-level",
                                         "btree-index.cache-size",        "btree-index.high-priority-pool-ratio",
                                         NULL};
static const char *const BITMAP_KEYS[] = {"bitmap-index.format", "bitmap-index.dictionary-block-size",
                                          "bitmap-index.compression", "bitmap-index.compression-level", NULL};

/* A parameter of the column's JSON, else the table option of that key. */
static const char *param_or_table(const pm_options *table, const pm_options *params, const char *key)
{
    const char *v = pm_options_get(params, key);
    return v ? v : pm_options_get(table, key);
}

/* <family>-index.compression and -level (JSON, then table). */
static pm_error *compression_params(const pm_options *o, pm_gi_column *g, const char *key, const char *level_key)
{
    const char *v = param_or_table(o, g->params, key);
    if (v)
        PM_TRY(pm_error_wrap(pm_gi_compression_parse(v, key, &g->compression), 0, "global index on column %s",
                             g->column));
    int64_t level;
    PM_TRY(int_param(o, g->params, level_key, 1, INT32_MIN, g->column, &level));
    if (level > INT32_MAX)
        return pm_error_new(PM_EINVALID, "column %s: '%s' is out of range", g->column, level_key);
    g->compression_level = (int32_t)level;
    return NULL;
}

/* bitmap-index.format (file-index: Java 1.4.2's, the default; dictionary:
 * the BGIX format of later Paimon and pypaimon 2.1) and the options of the
 * dictionary format, which the file-index format refuses. */
static pm_error *bitmap_params(const pm_options *o, pm_gi_column *g)
{
    const char *f = param_or_table(o, g->params, "bitmap-index.format");
    if (f && !strcmp(f, "dictionary")) {
        g->bitmap_dictionary = true;
        if (!pm_gi_btree_type_ok(g->type)) { /* dictionary keys are KeySerializer's */
            char *ts = pm_type_to_string(g->type);
            pm_error *e = pm_error_new(PM_EUNSUPPORTED,
                                       "bitmap global index on column %s: type %s is not supported by "
                                       "bitmap-index.format=dictionary",
                                       g->column, ts ? ts : "?");
            free(ts);
            return e;
        }
    }
    else if (f && strcmp(f, "file-index"))
        return pm_error_new(PM_EINVALID, "column %s: 'bitmap-index.format' = '%s' (file-index or dictionary)",
                            g->column, f);
    g->bitmap_dict_block_size = 16 * 1024;
    const char *bs = param_or_table(o, g->params, "bitmap-index.dictionary-block-size");
    if (bs) {
        pm_error *e = pm_parse_memory_size(bs, &g->bitmap_dict_block_size);
        if (e)
            return pm_error_wrap(e, PM_EINVALID, "column %s: 'bitmap-index.dictionary-block-size'", g->column);
        if (g->bitmap_dict_block_size <= 0 || g->bitmap_dict_block_size > INT32_MAX)
            return pm_error_new(PM_EINVALID,
                                "column %s: 'bitmap-index.dictionary-block-size' must be between 1 byte and 2 GiB",
                                g->column);
    }
    PM_TRY(compression_params(o, g, "bitmap-index.compression", "bitmap-index.compression-level"));
    if (!g->bitmap_dictionary && (bs || g->compression != PM_GI_COMPRESS_NONE))
        return pm_error_new(PM_EINVALID,
                            "column %s: '%s' applies to bitmap-index.format=dictionary only (Java 1.4.2's bitmap "
                            "payload has no dictionary blocks)",
                            g->column, bs ? "bitmap-index.dictionary-block-size" : "bitmap-index.compression");
    return NULL;
}

static bool listed(const char *const *keys, const char *k)
{
    for (; *keys; keys++)
        if (!strcmp(*keys, k))
            return true;
    return false;
}

/* Check and apply the parameters of column g (params already filled). */
static pm_error *apply_params(const pm_options *o, pm_gi_column *g)
{
    const char *const *own = g->family == PM_GI_BTREE ? BTREE_KEYS : BITMAP_KEYS;
    for (size_t i = 0; i < pm_options_count(g->params); i++) {
        const char *k = pm_options_key_at(g->params, i);
        if (!listed(POLICY_KEYS, k) && !listed(own, k))
            return pm_error_new(PM_EINVALID, "index-options of column %s: unknown %s index parameter '%s'", g->column,
                                pm_gi_family_name(g->family), k);
    }
    int64_t v;
    PM_TRY(int_param(o, g->params, POLICY_KEYS[0], 5, 1, g->column, &v));
    if (v > INT32_MAX)
        return pm_error_new(PM_EINVALID, "column %s: '%s' is out of range", g->column, POLICY_KEYS[0]);
    g->policy.trigger = (int32_t)v;
    PM_TRY(int_param(o, g->params, POLICY_KEYS[1], 1, 0, g->column, &v));
    if (v > INT32_MAX)
        return pm_error_new(PM_EINVALID, "column %s: '%s' is out of range", g->column, POLICY_KEYS[1]);
    g->policy.size_ratio = (int32_t)v;
    PM_TRY(int_param(o, g->params, POLICY_KEYS[2], 200, 0, g->column, &v));
    if (v > INT32_MAX)
        return pm_error_new(PM_EINVALID, "column %s: '%s' is out of range", g->column, POLICY_KEYS[2]);
    g->policy.max_amplification = (int32_t)v;
    /* shard size: JSON, then fields.C.global-index.row-count-per-shard, then the table's */
    char fk[KEY_MAX];
    snprintf(fk, sizeof fk, "fields.%s.global-index.row-count-per-shard", g->column);
    pm_options *shard = NULL;
    PM_TRY(pm_options_new(&shard));
    const char *sv = pm_options_get(o, fk);
    pm_error *e = sv ? pm_options_set(shard, POLICY_KEYS[3], sv) : NULL;
    const char *tv = pm_options_get(o, POLICY_KEYS[3]);
    if (!e && !sv && tv)
        e = pm_options_set(shard, POLICY_KEYS[3], tv);
    if (!e)
        e = int_param(shard, g->params, POLICY_KEYS[3], 100000, 1, g->column, &g->rows_per_shard);
    pm_options_free(shard);
    PM_TRY(e);
    if (g->family == PM_GI_BTREE) {
        PM_TRY(memory_param(g->params, "btree-index.block-size", 64 * 1024, g->column, &g->btree_block_size));
        PM_TRY(int_param(o, g->params, "btree-index.records-per-range", 1000000, 1, g->column,
                         &g->btree_records_per_range));
        PM_TRY(compression_params(o, g, "btree-index.compression", "btree-index.compression-level"));
        int64_t cache;
        PM_TRY(memory_param(g->params, "btree-index.cache-size", 128 * 1024 * 1024, g->column, &cache));
        const char *ratio = pm_options_get(g->params, "btree-index.high-priority-pool-ratio");
        if (ratio) {
            double d;
            pm_error *re = pm_parse_double(ratio, &d);
            if (re)
                return pm_error_wrap(re, PM_EINVALID, "index-options of column %s: 'btree-index.high-priority-pool-ratio'",
                                     g->column);
            if (!(d >= 0 && d <= 1))
                return pm_error_new(PM_EINVALID,
                                    "index-options of column %s: 'btree-index.high-priority-pool-ratio' must be in [0, 1]",
                                    g->column);
        }
    } else {
        PM_TRY(bitmap_params(o, g));
    }
    return NULL;
}

/* ---------------------------------------------------------------- */
/* resolve                                                           */

/* Column types each family's writer takes: Java's KeySerializer for
 * btree (compact decimals and timestamps of precision <= 3 only, see
 * global_index_file.h), BitmapFileIndex's for bitmap (fi_bitmap.c). */
static pm_error *check_type(const pm_gi_column *g)
{
    const pm_type *t = g->type;
    bool ok;
    if (g->family == PM_GI_BTREE) {
        ok = pm_gi_btree_type_ok(t);
    } else {
        pm_fi_spec spec = {0};
        spec.kind = PM_FI_BITMAP;
        pm_error *e = pm_fi_bitmap_ops.check(t, &spec);
        ok = !e;
        pm_error_free(e);
    }
    if (ok)
        return NULL;
    char *ts = pm_type_to_string(t);
    pm_error *e = pm_error_new(PM_EUNSUPPORTED, "%s global index on column %s ('%s'): type %s is not supported",
                               pm_gi_family_name(g->family), g->column, g->declared_by, ts ? ts : "?");
    free(ts);
    return e;
}

static pm_error *add_family_columns(const pm_options *o, const pm_type *row_type, const family_def *f,
                                    pm_gi_decls *out)
{
    char key[KEY_MAX];
    const char *value;
    declaration_of(o, f, key, sizeof key, &value);
    if (!value)
        return NULL;
    if (blank(value))
        return pm_error_new(PM_EINVALID, "option '%s' is empty: list the indexed columns or remove the option", key);
    pm_str_list names = {0};
    PM_TRY(pm_parse_list(value, &names));
    pm_error *e = NULL;
    for (size_t i = 0; i < names.count && !e; i++) {
        const char *c = names.items[i];
        if (!*c) {
            e = pm_error_new(PM_EINVALID, "option '%s' = '%s': empty column name", key, value);
            break;
        }
        for (size_t j = 0; j < i && !e; j++)
            if (!strcmp(names.items[j], c))
                e = pm_error_new(PM_EINVALID, "option '%s': column '%s' is listed twice", key, c);
        if (e)
            break;
        ptrdiff_t fi = pm_type_field_index(row_type, c);
        if (fi < 0) {
            e = pm_error_new(PM_EINVALID, "option '%s': unknown field '%s'", key, c);
            break;
        }
        if (!f->supported) {
            e = pm_error_new(PM_EUNSUPPORTED, "option '%s': global index type '%s' (column %s) is not supported", key,
                             f->name, c);
            break;
        }
        for (size_t j = 0; j < out->n && !e; j++)
            if (!strcmp(out->cols[j].column, c))
                e = pm_error_new(PM_EINVALID, "column '%s' is declared for two global index types (%s by '%s', %s by '%s')",
                                 c, pm_gi_family_name(out->cols[j].family), out->cols[j].declared_by, f->name, key);
        if (e)
            break;
        if ((e = pm_realloc_array(&out->cols, out->n + 1, sizeof *out->cols)))
            break;
        pm_gi_column *g = &out->cols[out->n];
        memset(g, 0, sizeof *g);
        out->n++;
        g->field_id = row_type->fields[fi].id;
        g->type = row_type->fields[fi].type;
        g->family = f->family;
        if ((e = pm_strdup(&g->column, c)) || (e = pm_strdup(&g->declared_by, key)) || (e = pm_options_new(&g->params)))
            break;
        if ((e = check_type(g)) || (e = column_params(o, f, c, g->params)) || (e = apply_params(o, g)))
            break;
    }
    pm_str_list_free(&names);
    return e;
}

pm_error *pm_gi_decls_resolve(const pm_options *o, const pm_type *row_type, pm_gi_decls *out)
{
    out->cols = NULL;
    out->n = 0;
    pm_error *e = check_unknown_families(o);
    for (size_t f = 0; f < NFAMILIES && !e; f++)
        e = add_family_columns(o, row_type, &FAMILIES[f], out);
    if (e)
        pm_gi_decls_clear(out);
    return e;
}

pm_error *pm_gi_decls_check_table(const pm_gi_decls *d, const pm_options *o, size_t n_primary_keys)
{
    if (!d->n)
        return NULL;
    const pm_gi_column *g = &d->cols[0];
    if (n_primary_keys) {
        /* source-backed indexes (compact/pk/pk_global_index.h): fixed buckets */
        bool has_bucket = false;
        int32_t pk_bucket = 0;
        PM_TRY(pm_options_int(o, PM_OPT_BUCKET, &has_bucket, &pk_bucket));
        if (pk_bucket <= 0)
            return pm_error_new(PM_EUNSUPPORTED,
                                "global index on column %s ('%s'): source-backed global indexes of primary-key tables "
                                "need a fixed bucket count ('bucket' > 0); bucket %" PRId32 " is not supported",
                                g->column, g->declared_by, pk_bucket);
        return NULL;
    }
    bool rt = false;
    PM_TRY(pm_options_bool(o, PM_OPT_ROW_TRACKING_ENABLED, &rt));
    if (!rt)
        return pm_error_new(PM_EINVALID, "global index on column %s ('%s') needs 'row-tracking.enabled' = true",
                            g->column, g->declared_by);
    bool present = false;
    int32_t bucket = 0;
    PM_TRY(pm_options_int(o, PM_OPT_BUCKET, &present, &bucket));
    if (bucket != -1)
        return pm_error_new(PM_EINVALID, "global index on column %s ('%s') needs 'bucket' = -1 (found %" PRId32 ")",
                            g->column, g->declared_by, bucket);
    return NULL;
}

pm_error *pm_gi_decls_validate(const pm_options *o, const pm_type *row_type, size_t n_primary_keys)
{
    pm_gi_decls d;
    PM_TRY(pm_gi_decls_resolve(o, row_type, &d));
    pm_error *e = pm_gi_decls_check_table(&d, o, n_primary_keys);
    pm_gi_decls_clear(&d);
    return e;
}
