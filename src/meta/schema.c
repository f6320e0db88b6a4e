/*
 * meta/schema.c — TableSchema JSON read/write, validation, derived keys and
 * the schema directory.  Layout and rules are in schema.h.
 *
 * Parsing steps: parse the object (jansson keeps key order, so options stay
 * in file order); read version, id; each DataField recursively (a type is a
 * string → pm_type_parse, or an object → nested by the prefix of "type");
 * highestFieldId; key lists; options (values must be strings); comment;
 * timeMillis; apply the version compatibility defaults; validate.
 */
#include "meta/schema.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "meta/json.h"
#include "meta/paths.h"

void pm_schema_free(pm_schema *s)
{
    if (!s)
        return;
    pm_type_free(s->row_type);
    pm_str_list_free(&s->partition_keys);
    pm_str_list_free(&s->primary_keys);
    pm_options_free(s->options);
    free(s->comment);
    free(s);
}

static pm_error *str_list_copy(const char *const *items, size_t n, pm_str_list *out)
{
    out->items = NULL;
    out->count = 0;
    if (!n)
        return NULL;
    PM_TRY(pm_calloc(&out->items, n, sizeof(char *)));
    for (size_t i = 0; i < n; i++) {
        pm_error *e = pm_strdup(&out->items[i], items[i]);
        if (e) {
            out->count = i;
            pm_str_list_free(out);
            return e;
        }
    }
    out->count = n;
    return NULL;
}

pm_error *pm_schema_clone(const pm_schema *s, pm_schema **out)
{
    pm_schema *c;
    PM_TRY(pm_calloc(&c, 1, sizeof *c));
    c->version = s->version;
    c->id = s->id;
    c->highest_field_id = s->highest_field_id;
    c->time_millis = s->time_millis;
    pm_error *e = NULL;
    c->row_type = pm_type_clone(s->row_type);
    if (!c->row_type)
        e = pm_oom();
    if (!e)
        e = str_list_copy((const char *const *)s->partition_keys.items, s->partition_keys.count,
                          &c->partition_keys);
    if (!e)
        e = str_list_copy((const char *const *)s->primary_keys.items, s->primary_keys.count,
                          &c->primary_keys);
    if (!e)
        e = pm_options_clone(s->options, &c->options);
    if (!e)
        e = pm_strdup(&c->comment, s->comment);
    if (e) {
        pm_schema_free(c);
        return e;
    }
    *out = c;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* reading                                                              */
/* ------------------------------------------------------------------ */

static pm_error *parse_type_json(const pm_jnode *j, const char *field, int depth, pm_type **out);

static pm_error *parse_field_json(const pm_jnode *j, int depth, pm_type *row)
{
    PM_TRY(pm_json_as_object(j, 0, NULL));
    int32_t id;
    char *name = NULL, *desc = NULL, *dflt = NULL;
    pm_type *t = NULL;
    pm_error *e = pm_json_i32(j, "id", INT32_MIN, INT32_MAX, &id);
    if (!e)
        e = pm_json_str(j, "name", 0, &name);
    if (!e)
        e = pm_json_str(j, "description", PM_JSON_NULLABLE, &desc);
    if (!e)
        e = pm_json_str(j, "defaultValue", PM_JSON_NULLABLE, &dflt);
    if (!e) {
        pm_jnode tj;
        pm_json_get(&tj, j, "type");
        if (!tj.v)
            e = pm_json_error(&tj, "column '%s' has no type", name);
        else
            e = parse_type_json(&tj, name, depth + 1, &t);
    }
    if (!e) {
        e = pm_type_add_field(row, id, name, t); /* takes t, also on failure */
        t = NULL;
        if (!e) {
            pm_field *f = &row->fields[row->nfields - 1];
            f->description = desc;
            f->default_value = dflt;
            desc = dflt = NULL;
        }
    }
    pm_type_free(t);
    free(name);
    free(desc);
    free(dflt);
    return e;
}

/* The fields of a ROW (the schema's or a nested one) into row. */
static pm_error *parse_fields_json(const pm_jnode *fields, size_t n, int depth, pm_type *row)
{
    for (size_t i = 0; i < n; i++) {
        pm_jnode fj;
        pm_json_at(&fj, fields, i);
        PM_TRY(parse_field_json(&fj, depth, row));
    }
    return NULL;
}

/* A nested type's child `key` (element, key, value). */
static pm_error *child_type(const pm_jnode *j, const char *key, const char *field, const char *type, int depth,
                            pm_type **out)
{
    pm_jnode c;
    pm_json_get(&c, j, key);
    if (!c.v)
        return pm_json_error(j, "column '%s': %s type without \"%s\"", field, type, key);
    return parse_type_json(&c, field, depth + 1, out);
}

static pm_error *parse_type_json(const pm_jnode *j, const char *field, int depth, pm_type **out)
{
    *out = NULL;
    if (depth > 64)
        return pm_json_error(j, "column '%s': types nested too deeply", field);
    if (json_is_string(j->v)) {
        char *text = NULL;
        PM_TRY(pm_json_as_str(j, 0, &text));
        pm_error *e = pm_type_parse(out, text);
        if (e)
            e = pm_error_wrap(e, pm_error_code(e) == PM_EUNSUPPORTED ? 0 : PM_ECORRUPT,
                              "%s: column '%s': type '%s'", j->doc, field, text);
        free(text);
        return e;
    }
    if (!json_is_object(j->v))
        return pm_json_error(j, "column '%s': type is neither a string nor an object", field);
    pm_jnode ts;
    pm_json_get(&ts, j, "type");
    if (!json_is_string(ts.v))
        return pm_json_error(j, "column '%s': nested type without a \"type\" string", field);
    const char *s = json_string_value(ts.v);
    bool nullable = strstr(s, "NOT NULL") == NULL;
    pm_type *a = NULL, *b = NULL;
    if (strncmp(s, "ARRAY", 5) == 0) {
        PM_TRY(child_type(j, "element", field, "ARRAY", depth, &a));
        *out = pm_type_new_array(a, nullable);
    } else if (strncmp(s, "VECTOR", 6) == 0) {
        return pm_error_new(PM_EUNSUPPORTED, "%s: column '%s': VECTOR type", j->doc, field);
    } else if (strncmp(s, "MULTISET", 8) == 0) {
        PM_TRY(child_type(j, "element", field, "MULTISET", depth, &a));
        *out = pm_type_new_multiset(a, nullable);
    } else if (strncmp(s, "MAP", 3) == 0) {
        PM_TRY(child_type(j, "key", field, "MAP", depth, &a));
        pm_error *e = child_type(j, "value", field, "MAP", depth, &b);
        if (e) {
            pm_type_free(a);
            return e;
        }
        *out = pm_type_new_map(a, b, nullable);
    } else if (strncmp(s, "ROW", 3) == 0) {
        pm_jnode fields;
        size_t n = 0;
        pm_json_get(&fields, j, "fields");
        if (!json_is_array(fields.v))
            return pm_json_error(j, "column '%s': ROW type without a \"fields\" array", field);
        PM_TRY(pm_json_as_array(&fields, 0, NULL, &n));
        pm_type *row = pm_type_new_row(nullable);
        if (!row)
            return pm_oom();
        pm_error *e = parse_fields_json(&fields, n, depth, row);
        if (e) {
            pm_type_free(row);
            return e;
        }
        *out = row;
        return NULL;
    } else {
        return pm_json_error(j, "column '%s': cannot parse type object '%s'", field, s);
    }
    return *out ? NULL : pm_oom();
}

static pm_error *set_option(void *ctx, const char *key, const char *value)
{
    return pm_options_set(ctx, key, value);
}

static pm_error *parse_schema_fields(const pm_jnode *root, pm_schema *s)
{
    bool has;
    int64_t v;
    PM_TRY(pm_json_opt_i64(root, "version", INT32_MIN, INT32_MAX, &has, &v));
    s->version = has ? (int32_t)v : 1;
    PM_TRY(pm_json_i64(root, "id", INT64_MIN, INT64_MAX, &s->id));
    pm_jnode fields;
    size_t n = 0;
    PM_TRY(pm_json_array(root, "fields", 0, &fields, &n));
    s->row_type = pm_type_new_row(true);
    if (!s->row_type)
        return pm_oom();
    PM_TRY(parse_fields_json(&fields, n, 0, s->row_type));
    PM_TRY(pm_json_i32(root, "highestFieldId", INT32_MIN, INT32_MAX, &s->highest_field_id));
    PM_TRY(pm_json_str_list(root, "partitionKeys", 0, NULL, &s->partition_keys));
    PM_TRY(pm_json_str_list(root, "primaryKeys", 0, NULL, &s->primary_keys));
    PM_TRY(pm_options_new(&s->options));
    PM_TRY(pm_json_str_map(root, "options", 0, set_option, s->options));
    if (s->version <= 1 && !pm_options_get(s->options, "bucket"))
        PM_TRY(pm_options_set(s->options, "bucket", "1"));
    if (s->version <= 2 && !pm_options_get(s->options, "file.format"))
        PM_TRY(pm_options_set(s->options, "file.format", "orc"));
    PM_TRY(pm_json_str(root, "comment", PM_JSON_NULLABLE, &s->comment));
    PM_TRY(pm_json_opt_i64(root, "timeMillis", INT64_MIN, INT64_MAX, &has, &s->time_millis));
    return NULL;
}

pm_error *pm_schema_parse(const void *json, size_t len, const char *what, pm_schema **out)
{
    *out = NULL;
    json_t *tree;
    pm_jnode root;
    PM_TRY(pm_json_parse_doc(json, len, PM_ECORRUPT, what, PM_JSON_FILE, &tree, &root));
    pm_schema *s;
    pm_error *e = pm_calloc(&s, 1, sizeof *s);
    if (!e)
        e = parse_schema_fields(&root, s);
    json_decref(tree);
    if (!e) {
        e = pm_schema_validate(s);
        if (e)
            e = pm_error_wrap(e, PM_ECORRUPT, "%s", what);
    }
    if (e) {
        pm_schema_free(s);
        return e;
    }
    *out = s;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* writing                                                              */
/* ------------------------------------------------------------------ */

static void write_type(pm_jw *w, const pm_type *t);

static void write_field(pm_jw *w, const pm_field *f)
{
    pm_jw_begin_object(w);
    pm_jw_field_long(w, "id", f->id);
    pm_jw_field_string(w, "name", f->name);
    pm_jw_key(w, "type");
    write_type(w, f->type);
    if (f->description)
        pm_jw_field_string(w, "description", f->description);
    if (f->default_value)
        pm_jw_field_string(w, "defaultValue", f->default_value);
    pm_jw_end_object(w);
}

static void write_nested_head(pm_jw *w, const char *name, bool nullable)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%s%s", name, nullable ? "" : " NOT NULL");
    pm_jw_begin_object(w);
    pm_jw_field_string(w, "type", buf);
}

static void write_type(pm_jw *w, const pm_type *t)
{
    if (w->err)
        return;
    switch (t->id) {
    case PM_TYPE_ARRAY:
    case PM_TYPE_MULTISET:
        write_nested_head(w, t->id == PM_TYPE_ARRAY ? "ARRAY" : "MULTISET", t->nullable);
        pm_jw_key(w, "element");
        write_type(w, t->element);
        pm_jw_end_object(w);
        return;
    case PM_TYPE_MAP:
        write_nested_head(w, "MAP", t->nullable);
        pm_jw_key(w, "key");
        write_type(w, t->key);
        pm_jw_key(w, "value");
        write_type(w, t->value);
        pm_jw_end_object(w);
        return;
    case PM_TYPE_ROW:
        write_nested_head(w, "ROW", t->nullable);
        pm_jw_key(w, "fields");
        pm_jw_begin_array(w);
        for (size_t i = 0; i < t->nfields; i++)
            write_field(w, &t->fields[i]);
        pm_jw_end_array(w);
        pm_jw_end_object(w);
        return;
    default: {
        char *s = pm_type_to_string(t);
        if (!s) {
            w->err = pm_error_new(PM_EINVALID, "cannot print a type of id %d", (int)t->id);
            return;
        }
        pm_jw_string(w, s);
        free(s);
    }
    }
}

pm_error *pm_schema_type_to_json(const pm_type *t, pm_buf *out)
{
    pm_jw w;
    pm_jw_init(&w, out);
    write_type(&w, t);
    return pm_jw_finish(&w);
}

static void write_string_array(pm_jw *w, const char *key, const pm_str_list *l)
{
    pm_jw_key(w, key);
    pm_jw_begin_array(w);
    for (size_t i = 0; i < l->count; i++)
        pm_jw_string(w, l->items[i]);
    pm_jw_end_array(w);
}

pm_error *pm_schema_to_json(const pm_schema *s, pm_buf *out)
{
    pm_jw w;
    pm_jw_init(&w, out);
    pm_jw_begin_object(&w);
    pm_jw_field_long(&w, "version", s->version);
    pm_jw_field_long(&w, "id", s->id);
    pm_jw_key(&w, "fields");
    pm_jw_begin_array(&w);
    for (size_t i = 0; i < s->row_type->nfields; i++)
        write_field(&w, &s->row_type->fields[i]);
    pm_jw_end_array(&w);
    pm_jw_field_long(&w, "highestFieldId", s->highest_field_id);
    write_string_array(&w, "partitionKeys", &s->partition_keys);
    write_string_array(&w, "primaryKeys", &s->primary_keys);
    pm_jw_key(&w, "options");
    pm_jw_begin_object(&w);
    for (size_t i = 0; i < pm_options_count(s->options); i++)
        pm_jw_field_string(&w, pm_options_key_at(s->options, i), pm_options_value_at(s->options, i));
    pm_jw_end_object(&w);
    if (s->comment)
        pm_jw_field_string(&w, "comment", s->comment);
    pm_jw_field_long(&w, "timeMillis", s->time_millis);
    pm_jw_end_object(&w);
    return pm_jw_finish(&w);
}

/* ------------------------------------------------------------------ */
/* derived information and validation                                   */
/* ------------------------------------------------------------------ */

static bool list_has(const pm_str_list *l, const char *s)
{
    for (size_t i = 0; i < l->count; i++)
        if (strcmp(l->items[i], s) == 0)
            return true;
    return false;
}

size_t pm_schema_field_count(const pm_schema *s) { return s->row_type->nfields; }
const pm_field *pm_schema_field(const pm_schema *s, size_t i) { return &s->row_type->fields[i]; }
ptrdiff_t pm_schema_field_index(const pm_schema *s, const char *name)
{
    return pm_type_field_index(s->row_type, name);
}
bool pm_schema_has_primary_key(const pm_schema *s) { return s->primary_keys.count > 0; }

pm_error *pm_schema_trimmed_primary_keys(const pm_schema *s, pm_str_list *out)
{
    out->items = NULL;
    out->count = 0;
    if (!s->primary_keys.count)
        return NULL;
    PM_TRY(pm_calloc(&out->items, s->primary_keys.count, sizeof(char *)));
    for (size_t i = 0; i < s->primary_keys.count; i++) {
        if (list_has(&s->partition_keys, s->primary_keys.items[i]))
            continue;
        pm_error *e = pm_strdup(&out->items[out->count], s->primary_keys.items[i]);
        if (e) {
            pm_str_list_free(out);
            return e;
        }
        out->count++;
    }
    if (!out->count) {
        pm_str_list_free(out);
        return pm_error_new(PM_EINVALID, "primary key constraint should not be the same as the "
                            "partition fields: that leaves one record per partition");
    }
    return NULL;
}

/* bucket-key as Java reads it: blank → none; else split on ',' keeping spaces. */
static pm_error *original_bucket_keys(const pm_schema *s, pm_str_list *out)
{
    out->items = NULL;
    out->count = 0;
    const char *k = pm_options_get(s->options, "bucket-key");
    if (!k)
        return NULL;
    bool blank = true;
    for (const char *p = k; *p; p++)
        if (!strchr(" \t\n\v\f\r\x1c\x1d\x1e\x1f", *p))
            blank = false;
    if (blank)
        return NULL;
    /* Java String.split drops trailing empty strings */
    size_t n = strlen(k);
    while (n && k[n - 1] == ',')
        n--;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || k[i] == ',') {
            PM_TRY(pm_realloc_array(&out->items, out->count + 1, sizeof(char *)));
            pm_error *e = pm_strndup(&out->items[out->count], k + start, i - start);
            if (e) {
                pm_str_list_free(out);
                return e;
            }
            out->count++;
            start = i + 1;
        }
    }
    return NULL;
}

static pm_error *check_bucket_keys(const pm_schema *s, const pm_str_list *bk)
{
    for (size_t i = 0; i < bk->count; i++) {
        const char *k = bk->items[i];
        if (pm_type_field_index(s->row_type, k) < 0)
            return pm_error_new(PM_EINVALID, "bucket key '%s' is not a field of the table", k);
        if (list_has(&s->partition_keys, k))
            return pm_error_new(PM_EINVALID, "bucket key '%s' must not be a partition key", k);
        if (s->primary_keys.count && !list_has(&s->primary_keys, k))
            return pm_error_new(PM_EINVALID, "bucket key '%s' must be a primary key field", k);
    }
    return NULL;
}

pm_error *pm_schema_bucket_keys(const pm_schema *s, pm_str_list *out)
{
    PM_TRY(original_bucket_keys(s, out));
    pm_error *e = check_bucket_keys(s, out);
    if (e) {
        pm_str_list_free(out);
        return e;
    }
    if (out->count)
        return NULL;
    return pm_schema_trimmed_primary_keys(s, out);
}

pm_error *pm_schema_num_buckets(const pm_schema *s, int32_t *out)
{
    return pm_options_int(s->options, PM_OPT_BUCKET, NULL, out);
}

/* Every name of the list option `id` must be a field of the schema. */
static pm_error *check_field_list(const pm_schema *s, pm_option_id id, const char *what)
{
    pm_str_list l = {0};
    PM_TRY(pm_options_list(s->options, id, &l));
    pm_error *e = NULL;
    for (size_t i = 0; i < l.count && !e; i++)
        if (pm_type_field_index(s->row_type, l.items[i]) < 0)
            e = pm_error_new(PM_EINVALID, "%s '%s' (option %s) is not a field of the table", what, l.items[i],
                             pm_option_def_get(id)->key);
    pm_str_list_free(&l);
    return e;
}

pm_error *pm_schema_validate(const pm_schema *s)
{
    if (!s->row_type || s->row_type->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "schema without a row type");
    pm_str_list l;
    PM_TRY(pm_schema_trimmed_primary_keys(s, &l));
    pm_str_list_free(&l);
    PM_TRY(pm_schema_bucket_keys(s, &l));
    pm_str_list_free(&l);
    int32_t b;
    PM_TRY(pm_schema_num_buckets(s, &b));
    return NULL;
}

pm_error *pm_schema_validate_table(const pm_schema *s, bool creating)
{
    PM_TRY(pm_schema_validate(s));
    PM_TRY(pm_options_validate(s->options));
    PM_TRY(check_field_list(s, PM_OPT_SEQUENCE_FIELD, "sequence field"));
    const char *rkf = pm_options_get(s->options, "rowkind.field");
    if (rkf && pm_type_field_index(s->row_type, rkf) < 0)
        return pm_error_new(PM_EINVALID, "rowkind.field '%s' is not a field of the table", rkf);
    if (!creating)
        return NULL;
    /* SchemaValidation rules Java applies to new tables only (old tables,
     * e.g. version-1 schemas that got bucket=1, still open) */
    pm_str_list l;
    PM_TRY(original_bucket_keys(s, &l));
    bool has_bucket_key = l.count > 0;
    pm_str_list_free(&l);
    int32_t b;
    PM_TRY(pm_schema_num_buckets(s, &b));
    if (b > 0 && !s->primary_keys.count && !has_bucket_key)
        return pm_error_new(PM_EINVALID, "a fixed-bucket append table (bucket=%d) needs the bucket-key option",
                            (int)b);
    return NULL;
}

pm_error *pm_schema_project(const pm_schema *s, const char *const *names, size_t n, pm_type **out)
{
    *out = NULL;
    pm_type *row = pm_type_new_row(s->row_type->nullable);
    if (!row)
        return pm_oom();
    for (size_t i = 0; i < n; i++) {
        ptrdiff_t k = pm_type_field_index(s->row_type, names[i]);
        if (k < 0) {
            pm_type_free(row);
            return pm_error_new(PM_EINVALID, "field '%s' does not exist", names[i]);
        }
        const pm_field *f = &s->row_type->fields[k];
        pm_type *t = pm_type_clone(f->type);
        pm_error *e = t ? pm_type_add_field(row, f->id, f->name, t) : pm_oom();
        if (!e && (f->description || f->default_value)) {
            pm_field *nf = &row->fields[row->nfields - 1];
            e = pm_strdup(&nf->description, f->description);
            if (!e)
                e = pm_strdup(&nf->default_value, f->default_value);
        }
        if (e) {
            pm_type_free(row);
            return e;
        }
    }
    *out = row;
    return NULL;
}

pm_error *pm_schema_row_tracking_type(const pm_type *row, pm_type **out)
{
    *out = NULL;
    if (pm_type_field_index(row, PM_ROW_ID_NAME) >= 0 || pm_type_field_index(row, PM_SEQUENCE_NUMBER_NAME) >= 0)
        return pm_error_new(PM_EINVALID, "a field named %s or %s conflicts with the row-tracking fields",
                            PM_ROW_ID_NAME, PM_SEQUENCE_NUMBER_NAME);
    pm_type *t = pm_type_clone(row);
    if (!t)
        return pm_oom();
    pm_type *rid = pm_type_new(PM_TYPE_BIGINT, true), *seq = pm_type_new(PM_TYPE_BIGINT, false);
    pm_error *e = rid ? pm_type_add_field(t, PM_ROW_ID_FIELD_ID, PM_ROW_ID_NAME, rid) : pm_oom();
    if (e)
        pm_type_free(rid);
    else if (!(e = seq ? pm_type_add_field(t, PM_SEQUENCE_NUMBER_FIELD_ID, PM_SEQUENCE_NUMBER_NAME, seq) : pm_oom()))
        seq = NULL;
    pm_type_free(seq);
    if (e) {
        pm_type_free(t);
        return e;
    }
    *out = t;
    return NULL;
}

static pm_error *project_list(const pm_schema *s, pm_str_list *l, pm_type **out)
{
    pm_error *e = pm_schema_project(s, (const char *const *)l->items, l->count, out);
    pm_str_list_free(l);
    return e;
}

pm_error *pm_schema_partition_type(const pm_schema *s, pm_type **out)
{
    return pm_schema_project(s, (const char *const *)s->partition_keys.items, s->partition_keys.count,
                             out);
}

pm_error *pm_schema_trimmed_primary_key_type(const pm_schema *s, pm_type **out)
{
    pm_str_list l;
    PM_TRY(pm_schema_trimmed_primary_keys(s, &l));
    return project_list(s, &l, out);
}

pm_error *pm_schema_bucket_key_type(const pm_schema *s, pm_type **out)
{
    pm_str_list l;
    PM_TRY(pm_schema_bucket_keys(s, &l));
    return project_list(s, &l, out);
}

/* ------------------------------------------------------------------ */
/* creating a table                                                     */
/* ------------------------------------------------------------------ */

static pm_error *collect_ids(const pm_type *t, int32_t **ids, size_t *n, size_t *cap)
{
    if (t->id == PM_TYPE_ROW) {
        for (size_t i = 0; i < t->nfields; i++) {
            for (size_t k = 0; k < *n; k++)
                if ((*ids)[k] == t->fields[i].id)
                    return pm_error_new(PM_EINVALID, "field id %d is used twice", (int)t->fields[i].id);
            if (*n == *cap) {
                *cap = *cap ? *cap * 2 : 16;
                PM_TRY(pm_realloc_array(ids, *cap, sizeof(int32_t)));
            }
            (*ids)[(*n)++] = t->fields[i].id;
            PM_TRY(collect_ids(t->fields[i].type, ids, n, cap));
        }
    } else if (t->id == PM_TYPE_ARRAY || t->id == PM_TYPE_MULTISET) {
        PM_TRY(collect_ids(t->element, ids, n, cap));
    } else if (t->id == PM_TYPE_MAP) {
        PM_TRY(collect_ids(t->key, ids, n, cap));
        PM_TRY(collect_ids(t->value, ids, n, cap));
    }
    return NULL;
}

static pm_error *check_unique(const pm_str_list *l, const char *what)
{
    for (size_t i = 0; i < l->count; i++)
        for (size_t k = i + 1; k < l->count; k++)
            if (strcmp(l->items[i], l->items[k]) == 0)
                return pm_error_new(PM_EINVALID, "%s '%s' appears twice", what, l->items[i]);
    return NULL;
}

/* Keys from the `primary-key` / `partition` option: split, trim, drop empties. */
static pm_error *keys_from_option(pm_options *o, const char *key, pm_str_list *dst, const char *what)
{
    const char *v = pm_options_get(o, key);
    if (!v)
        return NULL;
    if (dst->count)
        return pm_error_new(PM_EINVALID, "cannot define %s both as keys and as option '%s'", what, key);
    pm_str_list l;
    PM_TRY(pm_parse_list(v, &l));
    size_t w = 0;
    for (size_t i = 0; i < l.count; i++) {
        if (l.items[i][0])
            l.items[w++] = l.items[i];
        else
            free(l.items[i]);
    }
    l.count = w;
    *dst = l;
    pm_options_remove(o, key);
    return NULL;
}

static pm_error *build_new_table(pm_schema *s, const pm_type *row_type,
                                 const char *const *partition_keys, size_t npartition,
                                 const char *const *primary_keys, size_t nprimary,
                                 const pm_options *options, const char *comment)
{
    if (!row_type || row_type->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "a table's type must be a ROW");
    s->row_type = pm_type_clone(row_type);
    if (!s->row_type)
        return pm_oom();
    s->row_type->nullable = true;
    PM_TRY(str_list_copy(partition_keys, npartition, &s->partition_keys));
    PM_TRY(str_list_copy(primary_keys, nprimary, &s->primary_keys));
    if (options)
        PM_TRY(pm_options_clone(options, &s->options));
    else
        PM_TRY(pm_options_new(&s->options));
    PM_TRY(pm_strdup(&s->comment, comment));
    PM_TRY(keys_from_option(s->options, "partition", &s->partition_keys, "partition keys"));
    PM_TRY(keys_from_option(s->options, "primary-key", &s->primary_keys, "primary keys"));

    pm_str_list names = {0};
    PM_TRY(pm_calloc(&names.items, s->row_type->nfields + 1, sizeof(char *)));
    for (size_t i = 0; i < s->row_type->nfields; i++)
        names.items[names.count++] = s->row_type->fields[i].name;
    pm_error *e = check_unique(&names, "field name");
    free(names.items);
    PM_TRY(e);
    PM_TRY(check_unique(&s->partition_keys, "partition key"));
    PM_TRY(check_unique(&s->primary_keys, "primary key"));
    for (size_t i = 0; i < s->partition_keys.count; i++)
        if (pm_type_field_index(s->row_type, s->partition_keys.items[i]) < 0)
            return pm_error_new(PM_EINVALID, "partition key '%s' is not a field",
                                s->partition_keys.items[i]);
    for (size_t i = 0; i < s->primary_keys.count; i++)
        if (pm_type_field_index(s->row_type, s->primary_keys.items[i]) < 0)
            return pm_error_new(PM_EINVALID, "primary key '%s' is not a field", s->primary_keys.items[i]);
    bool pk_nullable;
    PM_TRY(pm_options_bool(s->options, PM_OPT_PRIMARY_KEY_NULLABLE, &pk_nullable));
    for (size_t i = 0; i < s->row_type->nfields; i++)
        if (list_has(&s->primary_keys, s->row_type->fields[i].name))
            s->row_type->fields[i].type->nullable = pk_nullable;

    int32_t *ids = NULL;
    size_t n = 0, cap = 0;
    e = collect_ids(s->row_type, &ids, &n, &cap);
    int32_t highest = -1;
    for (size_t i = 0; !e && i < n; i++)
        if (ids[i] < INT32_MAX / 2 && ids[i] > highest)
            highest = ids[i];
    free(ids);
    PM_TRY(e);
    s->highest_field_id = highest;
    return pm_schema_validate_table(s, true);
}

pm_error *pm_schema_new_table(pm_schema **out, const pm_type *row_type,
                              const char *const *partition_keys, size_t npartition,
                              const char *const *primary_keys, size_t nprimary,
                              const pm_options *options, const char *comment, int64_t time_millis)
{
    *out = NULL;
    pm_schema *s;
    PM_TRY(pm_calloc(&s, 1, sizeof *s));
    s->version = PM_SCHEMA_VERSION;
    s->id = 0;
    s->time_millis = time_millis;
    pm_error *e = build_new_table(s, row_type, partition_keys, npartition, primary_keys, nprimary,
                                  options, comment);
    if (e) {
        pm_schema_free(s);
        return pm_error_wrap(e, 0, "create table schema");
    }
    *out = s;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* schema directory                                                     */
/* ------------------------------------------------------------------ */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

pm_error *pm_schema_list_ids(pm_fileio *fio, const char *branch_root, int64_t **ids, size_t *count)
{
    *ids = NULL;
    *count = 0;
    char *dir = pm_path_join(branch_root, "schema");
    if (!dir)
        return pm_oom();
    pm_name_list names;
    pm_error *e = pm_fileio_list(fio, dir, &names);
    free(dir);
    PM_TRY(e);
    int64_t *v = NULL;
    size_t n = 0;
    if (names.count)
        e = pm_calloc(&v, names.count, sizeof *v);
    for (size_t i = 0; !e && i < names.count; i++) {
        if (strncmp(names.names[i], "schema-", 7) != 0)
            continue;
        int64_t id;
        pm_error *pe = pm_parse_int64(names.names[i] + 7, &id);
        if (pe) {
            pm_error_free(pe);
            continue;
        }
        v[n++] = id;
    }
    pm_fileio_list_free(&names);
    if (e || !n) {
        free(v);
        return e;
    }
    qsort(v, n, sizeof *v, cmp_i64);
    *ids = v;
    *count = n;
    return NULL;
}

pm_error *pm_schema_load(pm_fileio *fio, const char *branch_root, int64_t id, pm_schema **out)
{
    *out = NULL;
    char *p;
    PM_TRY(pm_schema_file_path(branch_root, id, &p));
    pm_buf b = PM_BUF_INIT;
    pm_error *e = pm_fileio_read_file(fio, p, &b);
    if (e) {
        e = pm_error_wrap(e, 0, "load schema %" PRId64, id);
    } else {
        e = pm_schema_parse(b.data, b.len, p, out);
        if (!e && (*out)->id != id) {
            e = pm_error_new(PM_ECORRUPT, "%s: holds schema id %" PRId64, p, (*out)->id);
            pm_schema_free(*out);
            *out = NULL;
        }
    }
    pm_buf_free(&b);
    free(p);
    return e;
}

pm_error *pm_schema_load_latest(pm_fileio *fio, const char *branch_root, pm_schema **out)
{
    *out = NULL;
    int64_t *ids;
    size_t n;
    PM_TRY(pm_schema_list_ids(fio, branch_root, &ids, &n));
    if (!n)
        return NULL;
    int64_t id = ids[n - 1];
    free(ids);
    return pm_schema_load(fio, branch_root, id, out);
}

pm_error *pm_schema_commit(pm_fileio *fio, const char *branch_root, const pm_schema *s, bool *committed)
{
    *committed = false;
    PM_TRY(pm_schema_validate(s));
    pm_buf json = PM_BUF_INIT;
    char *p = NULL;
    pm_error *e = pm_schema_to_json(s, &json);
    if (!e)
        e = pm_schema_file_path(branch_root, s->id, &p);
    if (!e)
        e = pm_fileio_publish_if_absent(fio, p, json.data, json.len, committed);
    pm_buf_free(&json);
    free(p);
    return e ? pm_error_wrap(e, 0, "commit schema %" PRId64, s->id) : NULL;
}
