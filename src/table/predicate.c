/*
 * table/predicate.c — read filters (contract in predicate.h).
 *
 * Parse: a recursive descent over the text (filter → atoms; parentheses
 * only group, since AND is the only connective); literals go through
 * pm_column_append_text into one column per atom.
 * Rows: for each atom, each row not yet excluded is compared with the
 * literals (a short list: linear) by one three-way comparison per type.
 * Files: the index bytes (embedded, or the `.index` sidecar named in
 * _EXTRA_FILES, beside the file or its external path) are parsed and the
 * = / IN atoms, renamed to the file's schema by field id, tested with
 * pm_fi_file_may_match.
 * Partitions: each atom's partition field is appended from the BinaryRow
 * to a one-row column and tested as rows are.
 */
#include "table/predicate.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/compare.h"
#include "base/mem.h"
#include "index/file_index.h"
#include "meta/paths.h"
#include "meta/safe_path.h"
#include "types/binary_row.h"
#include "types/column.h"
#include "types/value.h"

void pm_predicate_free(pm_predicate *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->natoms; i++) {
        free(p->atoms[i].column);
        pm_type_free(p->atoms[i].type);
        pm_column_release(p->atoms[i].values);
    }
    free(p->atoms);
    free(p);
}

/* ------------------------------------------------------------------ */
/* parsing                                                             */

typedef struct lexer {
    const char *text, *p;
} lexer;

static void skip_ws(lexer *l)
{
    while (*l->p && isspace((unsigned char)*l->p))
        l->p++;
}

static pm_error *syntax(const lexer *l, const char *what)
{
    return pm_error_new(PM_EINVALID, "filter: %s at position %zu of '%s'", what, (size_t)(l->p - l->text) + 1,
                        l->text);
}

static bool keyword(lexer *l, const char *kw)
{
    skip_ws(l);
    size_t n = strlen(kw);
    if (strncasecmp(l->p, kw, n))
        return false;
    char c = l->p[n];
    if (isalnum((unsigned char)c) || c == '_')
        return false;
    l->p += n;
    return true;
}

static bool punct(lexer *l, char c)
{
    skip_ws(l);
    if (*l->p != c)
        return false;
    l->p++;
    return true;
}

/* A quoted token (q = '"' or '\''), doubled quotes for one. */
static pm_error *quoted(lexer *l, char q, char **out)
{
    pm_buf b = PM_BUF_INIT;
    l->p++; /* opening quote */
    for (;;) {
        if (!*l->p) {
            pm_buf_free(&b);
            return syntax(l, q == '\'' ? "unterminated string" : "unterminated quoted name");
        }
        if (*l->p == q) {
            if (l->p[1] != q) {
                l->p++;
                break;
            }
            l->p++;
        }
        pm_error *e = pm_buf_append_byte(&b, (uint8_t)*l->p++);
        if (e) {
            pm_buf_free(&b);
            return e;
        }
    }
    const char *s;
    pm_error *e = pm_buf_cstr(&b, &s);
    if (!e)
        e = pm_strdup(out, s);
    pm_buf_free(&b);
    return e;
}

static pm_error *column_name(lexer *l, char **out)
{
    skip_ws(l);
    if (*l->p == '"')
        return quoted(l, '"', out);
    const char *s = l->p;
    if (!(isalpha((unsigned char)*s) || *s == '_'))
        return syntax(l, "a column name expected");
    while (isalnum((unsigned char)*l->p) || *l->p == '_')
        l->p++;
    return pm_strndup(out, s, (size_t)(l->p - s));
}

/* One literal, appended to the atom's column. */
static pm_error *literal(lexer *l, const pm_pred_atom *a)
{
    skip_ws(l);
    char *text = NULL;
    if (*l->p == '\'') {
        PM_TRY(quoted(l, '\'', &text));
    } else if (keyword(l, "TRUE")) {
        PM_TRY(pm_strdup(&text, "true"));
    } else if (keyword(l, "FALSE")) {
        PM_TRY(pm_strdup(&text, "false"));
    } else if (keyword(l, "NULL")) {
        return pm_error_new(PM_EINVALID, "filter: NULL is not a literal (%s = NULL holds for no row)", a->column);
    } else {
        const char *s = l->p;
        if (*l->p == '-' || *l->p == '+')
            l->p++;
        while (isalnum((unsigned char)*l->p) || *l->p == '.' ||
               ((*l->p == '-' || *l->p == '+') && (l->p[-1] == 'e' || l->p[-1] == 'E')))
            l->p++;
        if (l->p == s || !isdigit((unsigned char)(s[0] == '-' || s[0] == '+' ? s[1] : s[0])))
            return syntax(l, "a literal (number, 'string', TRUE, FALSE) expected");
        PM_TRY(pm_strndup(&text, s, (size_t)(l->p - s)));
    }
    pm_error *e = pm_column_append_text(a->values, text, strlen(text));
    if (e)
        e = pm_error_wrap(e, PM_EINVALID, "filter: literal '%s' is not a %s value of column %s", text,
                          pm_type_id_name(a->type->id), a->column);
    free(text);
    return e;
}

static bool comparable(const pm_type *t)
{
    return !pm_type_is_nested(t) && t->id != PM_TYPE_VARIANT && t->id != PM_TYPE_BLOB;
}

static pm_error *atom(lexer *l, const pm_type *rt, pm_predicate *p)
{
    char *name = NULL;
    PM_TRY(column_name(l, &name));
    ptrdiff_t k = pm_type_field_index(rt, name);
    if (k < 0) {
        pm_error *e = pm_error_new(PM_EINVALID, "filter: no column '%s'", name);
        free(name);
        return e;
    }
    const pm_field *f = &rt->fields[k];
    if (!comparable(f->type)) {
        pm_error *e = pm_error_new(PM_EINVALID, "filter: column '%s' of type %s cannot be compared", name,
                                   pm_type_id_name(f->type->id));
        free(name);
        return e;
    }
    pm_error *e = pm_realloc_array(&p->atoms, p->natoms + 1, sizeof *p->atoms);
    if (e) {
        free(name);
        return e;
    }
    pm_pred_atom *a = &p->atoms[p->natoms];
    memset(a, 0, sizeof *a);
    a->column = name;
    a->field_id = f->id;
    p->natoms++;
    /* literals are of the type made nullable-agnostic: a NOT NULL column too */
    if (!(a->type = pm_type_clone(f->type)))
        return pm_oom();
    a->type->nullable = true;
    PM_TRY(pm_column_new(&a->values, a->type));
    skip_ws(l);
    static const struct {
        const char *text;
        pm_pred_op op;
    } ops[] = {{"<>", PM_PRED_NE}, {"!=", PM_PRED_NE}, {"<=", PM_PRED_LE}, {">=", PM_PRED_GE},
               {"<", PM_PRED_LT},  {">", PM_PRED_GT},  {"=", PM_PRED_IN}};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        size_t n = strlen(ops[i].text);
        if (!strncmp(l->p, ops[i].text, n)) {
            l->p += n;
            a->op = ops[i].op;
            return literal(l, a);
        }
    }
    if (!keyword(l, "IN"))
        return syntax(l, "an operator (=, <>, !=, <, <=, >, >=) or IN expected");
    if (!punct(l, '('))
        return syntax(l, "'(' expected after IN");
    do
        PM_TRY(literal(l, a));
    while (punct(l, ','));
    if (!punct(l, ')'))
        return syntax(l, "',' or ')' expected");
    return NULL;
}

static pm_error *filter(lexer *l, const pm_type *rt, pm_predicate *p, int depth)
{
    if (depth > 64)
        return syntax(l, "parentheses nested too deep");
    do {
        if (punct(l, '(')) {
            PM_TRY(filter(l, rt, p, depth + 1));
            if (!punct(l, ')'))
                return syntax(l, "')' expected");
        } else {
            PM_TRY(atom(l, rt, p));
        }
    } while (keyword(l, "AND"));
    return NULL;
}

pm_error *pm_predicate_parse(pm_predicate **out, const char *text, const pm_type *row_type)
{
    *out = NULL;
    if (!text || !row_type || row_type->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "filter: no text or no ROW type");
    pm_predicate *p;
    PM_TRY(pm_calloc(&p, 1, sizeof *p));
    lexer l = {text, text};
    pm_error *e = filter(&l, row_type, p, 0);
    if (!e) {
        skip_ws(&l);
        if (*l.p)
            e = keyword(&l, "OR") ? pm_error_new(PM_EINVALID, "filter: OR is not supported (only comparisons and "
                                                               "IN joined by AND) in '%s'", text)
                                  : syntax(&l, "AND or the end expected");
    }
    if (e) {
        pm_predicate_free(p);
        return e;
    }
    *out = p;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* rows                                                                */

/* Three-way comparison of cells of two columns of the same type (Java's
 * compareTo). */
static int cmp3(int64_t a, int64_t b) { return a < b ? -1 : a > b; }

static int cell_compare(const pm_column *a, int64_t i, const pm_column *b, int64_t j)
{
    switch (a->type->id) {
    case PM_TYPE_BOOLEAN: return cmp3(pm_column_bool(a, i), pm_column_bool(b, j));
    case PM_TYPE_TINYINT: return cmp3(pm_column_i8(a, i), pm_column_i8(b, j));
    case PM_TYPE_SMALLINT: return cmp3(pm_column_i16(a, i), pm_column_i16(b, j));
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME: return cmp3(pm_column_i32(a, i), pm_column_i32(b, j));
    case PM_TYPE_FLOAT: return pm_cmp_java_double(pm_column_f32(a, i), pm_column_f32(b, j));
    case PM_TYPE_DOUBLE: return pm_cmp_java_double(pm_column_f64(a, i), pm_column_f64(b, j));
    case PM_TYPE_DECIMAL: {
        __int128 x = pm_column_decimal(a, i), y = pm_column_decimal(b, j);
        return x < y ? -1 : x > y;
    }
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY: {
        size_t an, bn;
        const uint8_t *ap = pm_column_bytes(a, i, &an), *bp = pm_column_bytes(b, j, &bn);
        return pm_cmp_bytes(ap, an, bp, bn);
    }
    default: return cmp3(pm_column_i64(a, i), pm_column_i64(b, j)); /* BIGINT, TIMESTAMP(_LTZ) */
    }
}

static bool atom_holds(const pm_pred_atom *a, const pm_column *c, int64_t r)
{
    if (pm_column_is_null(c, r))
        return false;
    if (a->op == PM_PRED_IN) {
        for (int64_t v = 0; v < a->values->length; v++)
            if (!cell_compare(c, r, a->values, v))
                return true;
        return false;
    }
    int d = cell_compare(c, r, a->values, 0);
    switch (a->op) {
    case PM_PRED_NE: return d != 0;
    case PM_PRED_LT: return d < 0;
    case PM_PRED_LE: return d <= 0;
    case PM_PRED_GT: return d > 0;
    default: return d >= 0;
    }
}

/* Clear the keep bits of rows [0, n) of c where atom a fails. */
static pm_error *atom_rows(const pm_pred_atom *a, const pm_column *c, int64_t n, uint8_t *keep)
{
    if (c->type->id != a->type->id)
        return pm_error_new(PM_EINTERNAL, "filter column %s is %s, expected %s", a->column,
                            pm_type_id_name(c->type->id), pm_type_id_name(a->type->id));
    for (int64_t r = 0; r < n; r++)
        if (((keep[r >> 3] >> (r & 7)) & 1) && !atom_holds(a, c, r))
            keep[r >> 3] &= (uint8_t)~(1u << (r & 7));
    return NULL;
}

pm_error *pm_predicate_rows(const pm_predicate *p, const pm_batch *b, const size_t *cols, uint8_t *keep,
                            int64_t *kept)
{
    int64_t n = b->num_rows;
    for (size_t k = 0; k < p->natoms; k++)
        PM_TRY(atom_rows(&p->atoms[k], b->columns[cols[k]], n, keep));
    int64_t cnt = 0;
    for (int64_t r = 0; r < n; r++)
        cnt += (keep[r >> 3] >> (r & 7)) & 1;
    *kept = cnt;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* partitions                                                          */

pm_error *pm_predicate_check_partition(const pm_predicate *p, const pm_type *ptype, const char *what)
{
    for (size_t k = 0; k < p->natoms; k++)
        if (pm_type_field_index_by_id(ptype, p->atoms[k].field_id) < 0)
            return pm_error_new(PM_EINVALID, "%s: column '%s' is not a partition key (the predicate selects "
                                "partitions)", what, p->atoms[k].column);
    return NULL;
}

pm_error *pm_predicate_partition_match(const pm_predicate *p, const pm_type *ptype, const uint8_t *partition,
                                       size_t len, bool *match)
{
    *match = false;
    pm_binrow row;
    PM_TRY(pm_binrow_deserialize(&row, partition, len, (int32_t)ptype->nfields));
    uint8_t keep = 1;
    for (size_t k = 0; k < p->natoms && keep; k++) {
        const pm_pred_atom *a = &p->atoms[k];
        ptrdiff_t i = pm_type_field_index_by_id(ptype, a->field_id);
        if (i < 0)
            return pm_error_new(PM_EINVALID, "filter column '%s' is not a partition key", a->column);
        if (!pm_type_equals_ignore_nullable(ptype->fields[i].type, a->type))
            return pm_error_new(PM_EINVALID, "filter column '%s' has another type in the partition row", a->column);
        pm_column *c = NULL;
        PM_TRY(pm_column_new(&c, a->type));
        pm_error *e = pm_binrow_append_to_column(&row, (int32_t)i, c);
        if (!e)
            e = atom_rows(a, c, 1, &keep);
        pm_column_release(c);
        PM_TRY(e);
    }
    *match = keep & 1;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* files                                                               */

/* The index bytes of f: borrowed from the meta, or read from its sidecar
 * into *owned.  *p = NULL when the file has no index. */
static pm_error *index_bytes(pm_table *t, const char *bucket_dir, const pm_data_file_meta *f, const uint8_t **p,
                             size_t *n, uint8_t **owned)
{
    *p = NULL;
    *owned = NULL;
    if (f->embedded_index.has) {
        *p = f->embedded_index.data;
        *n = f->embedded_index.len;
        return NULL;
    }
    const char *name = NULL;
    for (size_t i = 0; i < f->extra_files.count && !name; i++) {
        size_t l = strlen(f->extra_files.items[i]);
        if (l > 6 && !strcmp(f->extra_files.items[i] + l - 6, ".index"))
            name = f->extra_files.items[i];
    }
    if (!name)
        return NULL;
    PM_TRY(pm_safe_file_name(PM_ECORRUPT, "_EXTRA_FILES of a data file", name));
    char *path = NULL;
    if (f->external_path) {
        char field[512];
        snprintf(field, sizeof field, "_EXTERNAL_PATH of data file %s", f->file_name);
        PM_TRY(pm_table_check_external_path(t, f->schema_id, field, f->external_path));
        const char *local = pm_safe_path_local(f->external_path);
        const char *slash = strrchr(local, '/');
        char *dir = NULL;
        PM_TRY(pm_strndup(&dir, local, slash ? (size_t)(slash - local) : 0));
        path = pm_path_join(dir, name);
        free(dir);
    } else {
        path = pm_path_join(bucket_dir, name);
    }
    if (!path)
        return pm_oom();
    pm_input *in = NULL;
    pm_error *e = pm_input_open(t->fio, path, &in);
    uint64_t size = in ? pm_input_size(in) : 0;
    if (!e && size > INT32_MAX)
        e = pm_error_new(PM_ECORRUPT, "file index %s of %llu bytes is too large", path, (unsigned long long)size);
    if (!e)
        e = pm_calloc(owned, size ? (size_t)size : 1, 1);
    if (!e && size)
        e = pm_input_read_at(in, 0, *owned, (size_t)size);
    pm_input_close(in);
    if (e) {
        free(*owned);
        *owned = NULL;
        e = pm_error_wrap(e, 0, "file index %s", path);
        free(path);
        return e;
    }
    free(path);
    *p = *owned;
    *n = (size_t)size;
    return NULL;
}

pm_error *pm_predicate_file_may_match(const pm_predicate *p, pm_table *t, const char *bucket_dir,
                                      const pm_data_file_meta *f, bool *may)
{
    *may = true;
    if (!p->natoms)
        return NULL;
    const pm_schema *fs = NULL;
    PM_TRY(pm_table_schema_by_id(t, f->schema_id, &fs));
    /* atoms in the file's terms: its column name, the same type */
    pm_fi_atom *atoms;
    PM_TRY(pm_calloc(&atoms, p->natoms, sizeof *atoms));
    size_t n = 0;
    for (size_t k = 0; k < p->natoms; k++) {
        ptrdiff_t i = pm_type_field_index_by_id(fs->row_type, p->atoms[k].field_id);
        if (p->atoms[k].op != PM_PRED_IN || i < 0 ||
            !pm_type_equals_ignore_nullable(fs->row_type->fields[i].type, p->atoms[k].type))
            continue;
        atoms[n++] = (pm_fi_atom){fs->row_type->fields[i].name, p->atoms[k].type, p->atoms[k].values};
    }
    const uint8_t *bytes = NULL;
    size_t len = 0;
    uint8_t *owned = NULL;
    pm_error *e = n ? index_bytes(t, bucket_dir, f, &bytes, &len, &owned) : NULL;
    if (!e && bytes) {
        pm_fi_file fi;
        e = pm_fi_file_parse(bytes, len, &fi);
        if (!e) {
            e = pm_fi_file_may_match(&fi, atoms, n, may);
            pm_fi_file_clear(&fi);
        }
        if (e)
            e = pm_error_wrap(e, 0, "file index of data file %s", f->file_name);
    }
    free(owned);
    free(atoms);
    return e;
}
