/*
 * format/avro/avro_read.c — decode Avro records into pm_batch columns of a
 * requested Paimon row type (rules in avro.h).
 *
 * Steps:
 *   1. open the container (avro_file.c) and parse the writer schema;
 *   2. build a decoding plan once, walking the writer schema and the
 *      requested type together: every writer node gets an operation that
 *      appends exactly one row to a target column (or skips the value),
 *      records map writer fields to target children by name and list the
 *      target children missing from the writer (filled with nulls), unions
 *      get one plan per branch.  Type mismatches fail here, before any data
 *      is read;
 *   3. stream: take the next block, run the record plan once per object
 *      into the batch columns until the batch holds batch_rows rows or the
 *      block is exhausted (then the next block), check that each block's
 *      bytes are consumed exactly.
 * Plans live in an arena freed with the reader.
 */
#include "format/avro/avro.h"

#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/mem.h"
#include "format/avro/avro_binary.h"
#include "types/column.h"
#include "types/temporal.h"

#define DEFAULT_BATCH_ROWS 4096

typedef enum op {
    OP_SKIP,      /* discard the writer value */
    OP_NULL,      /* writer type "null" */
    OP_BOOL,
    OP_INT,       /* int → TINYINT/SMALLINT/INT/DATE/BIGINT/FLOAT/DOUBLE */
    OP_LONG,      /* long → BIGINT/FLOAT/DOUBLE */
    OP_FLOAT,     /* float → FLOAT/DOUBLE */
    OP_DOUBLE,
    OP_BYTES,     /* bytes/string → var-width */
    OP_FIXED,     /* fixed → var-width */
    OP_ENUM,      /* enum → its symbol */
    OP_DEC_BYTES, /* bytes → DECIMAL */
    OP_DEC_FIXED, /* fixed → DECIMAL */
    OP_TIME_MICROS,
    OP_TS,        /* long → TIMESTAMP(_LTZ) with mul/div */
    OP_RECORD,
    OP_ARRAY,
    OP_MAP,       /* avro map → MAP/MULTISET */
    OP_ARRAY_MAP, /* array of {key, value} records → MAP/MULTISET */
    OP_UNION
} op;

typedef struct plan plan;
struct plan {
    op op;
    const pm_avro_node *w;   /* writer node */
    pm_type_id target;       /* target type id (numeric ops) */
    bool target_nullable;
    const char *name;        /* for messages */
    int64_t mul, div;        /* OP_TS */
    /* OP_RECORD: per writer field, the target child (-1 = skip) and its plan */
    int *target_index;
    plan **fields;
    size_t *missing;         /* target children absent from the writer */
    size_t nmissing;
    /* OP_ARRAY: items; OP_MAP: value (key is the map key string);
     * OP_ARRAY_MAP: the item record's key and value plans */
    plan *items;
    plan *key;
    size_t key_field, value_field; /* OP_ARRAY_MAP: fields of the item record */
    /* OP_UNION */
    plan **branches;
};

struct pm_avro_reader {
    pm_avro_file *file;
    pm_type *type;           /* requested row type (owned) */
    pm_batch *batch;
    pm_arena arena;          /* plans */
    plan *root;
    int64_t batch_rows;
    const uint8_t *block;    /* current block */
    size_t block_len;
    pm_cursor cur;
    int64_t left;            /* objects left in the current block */
    bool done;
    pm_error *failed;        /* sticky error (copy returned each call) */
    const pm_avro_node *root_union; /* ["null", record] top schema, else NULL */
};

/* ---- plan building ---- */

typedef struct builder {
    pm_arena *arena;
} builder;

static pm_error *new_plan(builder *b, op o, const pm_avro_node *w, const pm_type *t, plan **out)
{
    plan *p = pm_arena_calloc(b->arena, sizeof *p, _Alignof(plan));
    if (!p)
        return pm_oom();
    p->op = o;
    p->w = w;
    if (t) {
        p->target = t->id;
        p->target_nullable = t->nullable;
    }
    *out = p;
    return NULL;
}

static pm_error *mismatch(const pm_avro_node *w, const pm_type *t)
{
    char *ts = pm_type_to_string(t);
    pm_error *e = pm_error_new(PM_EINVALID, "cannot read avro %s%s%s as %s",
                               pm_avro_kind_name(w->kind), w->name ? " " : "",
                               w->name ? w->name : "", ts ? ts : pm_type_id_name(t->id));
    free(ts);
    return e;
}

/* Units per second of a writer timestamp logical type, 0 when none. */
static int64_t ts_units(pm_avro_logical lt)
{
    switch (lt) {
    case PM_AVRO_LT_TIMESTAMP_MILLIS:
    case PM_AVRO_LT_LOCAL_TIMESTAMP_MILLIS: return 1000;
    case PM_AVRO_LT_TIMESTAMP_MICROS:
    case PM_AVRO_LT_LOCAL_TIMESTAMP_MICROS: return 1000000;
    case PM_AVRO_LT_TIMESTAMP_NANOS:
    case PM_AVRO_LT_LOCAL_TIMESTAMP_NANOS: return 1000000000;
    default: return 0;
    }
}

static pm_error *build(builder *b, const pm_avro_node *w, const pm_type *t, int depth, plan **out);

static pm_error *build_record(builder *b, const pm_avro_node *w, const pm_type *t, int depth,
                              plan *p)
{
    size_t nf = w->n;
    p->target_index = pm_arena_alloc(b->arena, (nf ? nf : 1) * sizeof(int), _Alignof(int));
    p->fields = pm_arena_calloc(b->arena, (nf ? nf : 1) * sizeof(plan *), _Alignof(plan *));
    p->missing = pm_arena_alloc(b->arena, (t->nfields ? t->nfields : 1) * sizeof(size_t),
                                _Alignof(size_t));
    if (!p->target_index || !p->fields || !p->missing)
        return pm_oom();
    for (size_t i = 0; i < nf; i++) {
        const pm_avro_field *f = &w->fields[i];
        ptrdiff_t ti = pm_type_field_index(t, f->name);
        p->target_index[i] = (int)ti;
        if (ti < 0) {
            PM_TRY(new_plan(b, OP_SKIP, f->type, NULL, &p->fields[i]));
            continue;
        }
        pm_error *e = build(b, f->type, t->fields[ti].type, depth + 1, &p->fields[i]);
        if (e)
            return pm_error_wrap(e, 0, "field '%s'", f->name);
        p->fields[i]->name = t->fields[ti].name;
    }
    for (size_t k = 0; k < t->nfields; k++) {
        if (pm_avro_field_index(w, t->fields[k].name) >= 0)
            continue;
        if (!t->fields[k].type->nullable)
            return pm_error_new(PM_EINVALID,
                                "field '%s' is NOT NULL but missing from the file's schema",
                                t->fields[k].name);
        p->missing[p->nmissing++] = k;
    }
    return NULL;
}

/* Item record of an array that stores a map: fields "key" and "value". */
static bool kv_record(const pm_avro_node *items, size_t *k, size_t *v)
{
    if (items->kind != PM_AVRO_RECORD)
        return false;
    ptrdiff_t ki = pm_avro_field_index(items, "key"), vi = pm_avro_field_index(items, "value");
    if (ki < 0 || vi < 0)
        return false;
    *k = (size_t)ki;
    *v = (size_t)vi;
    return true;
}

static pm_error *build(builder *b, const pm_avro_node *w, const pm_type *t, int depth, plan **out)
{
    if (depth > PM_AVRO_MAX_VALUE_DEPTH)
        return pm_error_new(PM_EUNSUPPORTED, "type nested deeper than %d levels",
                            PM_AVRO_MAX_VALUE_DEPTH);
    pm_type_id id = t->id;
    if (id == PM_TYPE_VARIANT)
        return pm_error_new(PM_EUNSUPPORTED, "reading VARIANT from avro is not supported");
    plan *p = NULL;
    switch (w->kind) {
    case PM_AVRO_UNION: {
        PM_TRY(new_plan(b, OP_UNION, w, t, &p));
        p->branches = pm_arena_calloc(b->arena, w->n * sizeof(plan *), _Alignof(plan *));
        if (!p->branches)
            return pm_oom();
        for (size_t i = 0; i < w->n; i++) {
            const pm_avro_node *br = w->branches[i];
            if (br->kind == PM_AVRO_NULL) {
                PM_TRY(new_plan(b, OP_NULL, br, t, &p->branches[i]));
                continue;
            }
            pm_error *e = build(b, br, t, depth + 1, &p->branches[i]);
            if (e)
                return pm_error_wrap(e, 0, "union branch %zu", i);
        }
        *out = p;
        return NULL;
    }
    case PM_AVRO_NULL:
        if (!t->nullable)
            return pm_error_new(PM_EINVALID, "avro type null cannot be read as a NOT NULL column");
        return new_plan(b, OP_NULL, w, t, out);
    case PM_AVRO_BOOLEAN:
        if (id != PM_TYPE_BOOLEAN)
            return mismatch(w, t);
        return new_plan(b, OP_BOOL, w, t, out);
    case PM_AVRO_INT:
        if (id == PM_TYPE_TIME) {
            if (w->logical != PM_AVRO_LT_NONE && w->logical != PM_AVRO_LT_TIME_MILLIS)
                return mismatch(w, t);
            return new_plan(b, OP_INT, w, t, out);
        }
        if (id != PM_TYPE_TINYINT && id != PM_TYPE_SMALLINT && id != PM_TYPE_INT &&
            id != PM_TYPE_DATE && id != PM_TYPE_BIGINT && id != PM_TYPE_FLOAT &&
            id != PM_TYPE_DOUBLE)
            return mismatch(w, t);
        return new_plan(b, OP_INT, w, t, out);
    case PM_AVRO_LONG:
        if (id == PM_TYPE_TIME) {
            if (w->logical != PM_AVRO_LT_TIME_MICROS)
                return mismatch(w, t);
            return new_plan(b, OP_TIME_MICROS, w, t, out);
        }
        if (id == PM_TYPE_TIMESTAMP || id == PM_TYPE_TIMESTAMP_LTZ) {
            int64_t to = pm_timestamp_units_per_second(t->precision);
            int64_t from = ts_units(w->logical);
            if (w->logical != PM_AVRO_LT_NONE && from == 0)
                return mismatch(w, t);
            if (from == 0)
                from = to; /* a plain long is taken in the column's unit */
            PM_TRY(new_plan(b, OP_TS, w, t, &p));
            p->mul = from < to ? to / from : 1;
            p->div = from > to ? from / to : 1;
            *out = p;
            return NULL;
        }
        if (id != PM_TYPE_BIGINT && id != PM_TYPE_FLOAT && id != PM_TYPE_DOUBLE)
            return mismatch(w, t);
        return new_plan(b, OP_LONG, w, t, out);
    case PM_AVRO_FLOAT:
        if (id != PM_TYPE_FLOAT && id != PM_TYPE_DOUBLE)
            return mismatch(w, t);
        return new_plan(b, OP_FLOAT, w, t, out);
    case PM_AVRO_DOUBLE:
        if (id != PM_TYPE_DOUBLE)
            return mismatch(w, t);
        return new_plan(b, OP_DOUBLE, w, t, out);
    case PM_AVRO_BYTES:
    case PM_AVRO_FIXED: {
        bool fixed = w->kind == PM_AVRO_FIXED;
        if (id == PM_TYPE_DECIMAL) {
            if (w->logical == PM_AVRO_LT_DECIMAL && w->scale != t->scale)
                return pm_error_new(PM_EUNSUPPORTED,
                                    "avro decimal scale %d differs from DECIMAL(%d, %d)",
                                    w->scale, t->precision, t->scale);
            if (w->logical != PM_AVRO_LT_DECIMAL && w->logical != PM_AVRO_LT_NONE)
                return mismatch(w, t);
            return new_plan(b, fixed ? OP_DEC_FIXED : OP_DEC_BYTES, w, t, out);
        }
        if (!pm_type_is_varlen(t))
            return mismatch(w, t);
        return new_plan(b, fixed ? OP_FIXED : OP_BYTES, w, t, out);
    }
    case PM_AVRO_STRING:
        if (!pm_type_is_varlen(t))
            return mismatch(w, t);
        return new_plan(b, OP_BYTES, w, t, out);
    case PM_AVRO_ENUM:
        if (id != PM_TYPE_CHAR && id != PM_TYPE_VARCHAR)
            return mismatch(w, t);
        return new_plan(b, OP_ENUM, w, t, out);
    case PM_AVRO_RECORD:
        if (id != PM_TYPE_ROW)
            return mismatch(w, t);
        PM_TRY(new_plan(b, OP_RECORD, w, t, &p));
        PM_TRY(build_record(b, w, t, depth, p));
        *out = p;
        return NULL;
    case PM_AVRO_ARRAY:
        if (id == PM_TYPE_ARRAY) {
            PM_TRY(new_plan(b, OP_ARRAY, w, t, &p));
            PM_TRY(build(b, w->items, t->element, depth + 1, &p->items));
            *out = p;
            return NULL;
        }
        if (id == PM_TYPE_MAP || id == PM_TYPE_MULTISET) {
            size_t kf, vf;
            if (!kv_record(w->items, &kf, &vf))
                return mismatch(w, t);
            const pm_type *kt = id == PM_TYPE_MAP ? t->key : t->element;
            pm_type count = {.id = PM_TYPE_INT, .nullable = false};
            const pm_type *vt = id == PM_TYPE_MAP ? t->value : &count;
            PM_TRY(new_plan(b, OP_ARRAY_MAP, w, t, &p));
            p->key_field = kf;
            p->value_field = vf;
            PM_TRY(build(b, w->items->fields[kf].type, kt, depth + 1, &p->key));
            PM_TRY(build(b, w->items->fields[vf].type, vt, depth + 1, &p->items));
            *out = p;
            return NULL;
        }
        return mismatch(w, t);
    case PM_AVRO_MAP: {
        if (id != PM_TYPE_MAP && id != PM_TYPE_MULTISET)
            return mismatch(w, t);
        const pm_type *kt = id == PM_TYPE_MAP ? t->key : t->element;
        if (!pm_type_is_varlen(kt))
            return pm_error_new(PM_EINVALID, "an avro map has string keys, not %s",
                                pm_type_id_name(kt->id));
        pm_type count = {.id = PM_TYPE_INT, .nullable = false};
        const pm_type *vt = id == PM_TYPE_MAP ? t->value : &count;
        PM_TRY(new_plan(b, OP_MAP, w, t, &p));
        PM_TRY(build(b, w->items, vt, depth + 1, &p->items));
        *out = p;
        return NULL;
    }
    }
    return mismatch(w, t);
}

/* ---- decoding ---- */

static pm_error *null_into(const plan *p, pm_column *c)
{
    if (!c->type->nullable)
        return pm_error_new(PM_ECORRUPT, "null value in NOT NULL column%s%s",
                            p->name ? " " : "", p->name ? p->name : "");
    return pm_column_append_null(c);
}

static pm_error *append_number(pm_column *c, pm_type_id id, int64_t v, double d, bool is_float)
{
    switch (id) {
    case PM_TYPE_TINYINT: return pm_column_append_i8(c, (int8_t)v);
    case PM_TYPE_SMALLINT: return pm_column_append_i16(c, (int16_t)v);
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME: return pm_column_append_i32(c, (int32_t)v);
    case PM_TYPE_BIGINT: return pm_column_append_i64(c, v);
    case PM_TYPE_FLOAT: return pm_column_append_f32(c, is_float ? (float)d : (float)v);
    case PM_TYPE_DOUBLE: return pm_column_append_f64(c, is_float ? d : (double)v);
    default: return pm_error_new(PM_EINTERNAL, "bad numeric target %s", pm_type_id_name(id));
    }
}

/* Big-endian two's complement → int128; more than 16 bytes only as sign extension. */
static pm_error *decimal_from_be(const uint8_t *p, size_t n, __int128 *out)
{
    if (n == 0) {
        *out = 0;
        return NULL;
    }
    uint8_t sign = (p[0] & 0x80) ? 0xff : 0x00;
    while (n > 16) {
        if (p[0] != sign || ((p[1] & 0x80) ? 0xff : 0x00) != sign)
            return pm_error_new(PM_ECORRUPT, "decimal value does not fit 128 bits");
        p++;
        n--;
    }
    unsigned __int128 u = sign ? ~(unsigned __int128)0 : 0;
    for (size_t i = 0; i < n; i++)
        u = (u << 8) | p[i];
    *out = (__int128)u;
    return NULL;
}

static pm_error *decode(const plan *p, pm_cursor *c, pm_column *col);

static pm_error *decode_record_into(const plan *p, pm_cursor *c, pm_column **cols)
{
    for (size_t i = 0; i < p->w->n; i++) {
        int ti = p->target_index[i];
        if (ti < 0) {
            PM_TRY(pm_avro_skip(c, p->w->fields[i].type, 0));
            continue;
        }
        pm_error *e = decode(p->fields[i], c, cols[ti]);
        if (e)
            return pm_error_wrap(e, 0, "field '%s'", p->w->fields[i].name);
    }
    for (size_t k = 0; k < p->nmissing; k++)
        PM_TRY(pm_column_append_null(cols[p->missing[k]]));
    return NULL;
}

static pm_error *decode(const plan *p, pm_cursor *c, pm_column *col)
{
    int32_t i32 = 0;
    int64_t i64 = 0;
    float f = 0;
    double d = 0;
    const uint8_t *bp = NULL;
    size_t bn = 0;
    switch (p->op) {
    case OP_SKIP: return pm_avro_skip(c, p->w, 0);
    case OP_NULL: return null_into(p, col);
    case OP_BOOL: {
        bool v = 0;
        PM_TRY(pm_avro_read_bool(c, &v));
        return pm_column_append_bool(col, v);
    }
    case OP_INT:
        PM_TRY(pm_avro_read_int(c, &i32));
        return append_number(col, p->target, i32, 0, false);
    case OP_LONG:
        PM_TRY(pm_avro_read_long(c, &i64));
        return append_number(col, p->target, i64, 0, false);
    case OP_FLOAT:
        PM_TRY(pm_avro_read_float(c, &f));
        return append_number(col, p->target, 0, f, true);
    case OP_DOUBLE:
        PM_TRY(pm_avro_read_double(c, &d));
        return pm_column_append_f64(col, d);
    case OP_BYTES:
        PM_TRY(pm_avro_read_bytes(c, &bp, &bn));
        return pm_column_append_bytes(col, bp, bn);
    case OP_FIXED:
        PM_TRY(pm_cursor_take(c, p->w->size, &bp, "avro fixed"));
        return pm_column_append_bytes(col, bp, p->w->size);
    case OP_ENUM:
        PM_TRY(pm_avro_read_int(c, &i32));
        if (i32 < 0 || (size_t)i32 >= p->w->n)
            return pm_error_new(PM_ECORRUPT, "enum index %d out of range", i32);
        return pm_column_append_bytes(col, p->w->symbols[i32], strlen(p->w->symbols[i32]));
    case OP_DEC_BYTES:
    case OP_DEC_FIXED: {
        if (p->op == OP_DEC_BYTES)
            PM_TRY(pm_avro_read_bytes(c, &bp, &bn));
        else {
            bn = p->w->size;
            PM_TRY(pm_cursor_take(c, bn, &bp, "avro fixed decimal"));
        }
        __int128 v = 0;
        PM_TRY(decimal_from_be(bp, bn, &v));
        return pm_column_append_decimal(col, v);
    }
    case OP_TIME_MICROS:
        PM_TRY(pm_avro_read_long(c, &i64));
        return pm_column_append_i32(col, (int32_t)pm_floor_div(i64, 1000));
    case OP_TS:
        PM_TRY(pm_avro_read_long(c, &i64));
        if (p->div > 1) {
            i64 = pm_floor_div(i64, p->div);
        } else if (p->mul > 1) {
            if (i64 > INT64_MAX / p->mul || i64 < INT64_MIN / p->mul)
                return pm_error_new(PM_ECORRUPT, "timestamp %lld overflows the column's unit",
                                    (long long)i64);
            i64 *= p->mul;
        }
        return pm_column_append_i64(col, i64);
    case OP_RECORD:
        PM_TRY(decode_record_into(p, c, col->children));
        return pm_column_end_nested(col);
    case OP_ARRAY:
    case OP_MAP:
    case OP_ARRAY_MAP: {
        bool map = p->op == OP_MAP;
        size_t item_min = p->w->items->min_size + (map ? 1 : 0);
        int64_t total = 0;
        for (;;) {
            int64_t n = 0;
            PM_TRY(pm_avro_read_block_count(c, item_min, &n));
            if (n == 0)
                break;
            total += n;
            if (item_min == 0 && total > PM_AVRO_MAX_EMPTY_ITEMS)
                return pm_error_new(PM_ECORRUPT, "avro array of more than %d empty items",
                                    PM_AVRO_MAX_EMPTY_ITEMS);
            for (int64_t i = 0; i < n; i++) {
                if (p->op == OP_ARRAY) {
                    PM_TRY(decode(p->items, c, col->children[0]));
                } else if (map) {
                    PM_TRY(pm_avro_read_bytes(c, &bp, &bn));
                    PM_TRY(pm_column_append_bytes(col->children[0], bp, bn));
                    PM_TRY(decode(p->items, c, col->children[1]));
                } else {
                    /* {key, value} record: other fields skipped, in writer order */
                    const pm_avro_node *rec = p->w->items;
                    for (size_t k = 0; k < rec->n; k++) {
                        if (k == p->key_field)
                            PM_TRY(decode(p->key, c, col->children[0]));
                        else if (k == p->value_field)
                            PM_TRY(decode(p->items, c, col->children[1]));
                        else
                            PM_TRY(pm_avro_skip(c, rec->fields[k].type, 0));
                    }
                }
            }
        }
        return pm_column_end_nested(col);
    }
    case OP_UNION: {
        size_t br = 0;
        PM_TRY(pm_avro_read_branch(c, p->w, &br));
        return decode(p->branches[br], c, col);
    }
    }
    return pm_error_new(PM_EINTERNAL, "bad avro plan op %d", (int)p->op);
}

/* ---- reader ---- */

static pm_error *reader_init(pm_avro_reader *r, const pm_type *read_type,
                             const pm_avro_read_options *opt)
{
    pm_arena_init(&r->arena, 0);
    r->batch_rows = opt && opt->batch_rows > 0 ? opt->batch_rows : DEFAULT_BATCH_ROWS;
    const pm_avro_node *root = pm_avro_file_schema(r->file)->root;
    /* Paimon 0.9 wrote a nullable top row: ["null", record]. */
    if (root->kind == PM_AVRO_UNION && root->n == 2 && root->null_branch >= 0 &&
        root->branches[1 - root->null_branch]->kind == PM_AVRO_RECORD) {
        r->root_union = root;
        root = root->branches[1 - root->null_branch];
    }
    if (root->kind != PM_AVRO_RECORD)
        return pm_error_new(PM_EUNSUPPORTED, "avro file schema is a %s, not a record",
                            pm_avro_kind_name(root->kind));
    if (read_type) {
        if (read_type->id != PM_TYPE_ROW)
            return pm_error_new(PM_EINVALID, "the requested avro row type must be a ROW");
        r->type = pm_type_clone(read_type);
        if (!r->type)
            return pm_oom();
    } else {
        PM_TRY(pm_avro_schema_to_type(root, &r->type));
        r->type->nullable = r->root_union != NULL;
    }
    builder b = {&r->arena};
    PM_TRY(new_plan(&b, OP_RECORD, root, r->type, &r->root));
    PM_TRY(build_record(&b, root, r->type, 0, r->root));
    return pm_batch_new(&r->batch, r->type);
}

static pm_error *open_finish(pm_avro_reader *r, const pm_type *read_type,
                             const pm_avro_read_options *opt, pm_avro_reader **out)
{
    pm_error *e = reader_init(r, read_type, opt);
    if (e) {
        e = pm_error_wrap(e, 0, "avro file %s", pm_avro_file_name(r->file));
        pm_avro_reader_free(r);
        return e;
    }
    *out = r;
    return NULL;
}

pm_error *pm_avro_reader_open(pm_input *in, const pm_type *read_type,
                              const pm_avro_read_options *opt, pm_avro_reader **out)
{
    *out = NULL;
    pm_avro_reader *r = NULL;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    pm_avro_file_options fo = {opt ? opt->max_block_bytes : 0};
    pm_error *e = pm_avro_file_open(in, &fo, &r->file);
    if (e) {
        free(r);
        return e;
    }
    return open_finish(r, read_type, opt, out);
}

pm_error *pm_avro_reader_open_memory(const uint8_t *data, size_t len, const char *name,
                                     const pm_type *read_type, const pm_avro_read_options *opt,
                                     pm_avro_reader **out)
{
    *out = NULL;
    pm_avro_reader *r = NULL;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    pm_avro_file_options fo = {opt ? opt->max_block_bytes : 0};
    pm_error *e = pm_avro_file_open_memory(data, len, name, &fo, &r->file);
    if (e) {
        free(r);
        return e;
    }
    return open_finish(r, read_type, opt, out);
}

static pm_error *fail(pm_avro_reader *r, pm_error *e)
{
    e = pm_error_wrap(e, 0, "avro file %s", pm_avro_file_name(r->file));
    char *msg = pm_error_format(e);
    r->failed = pm_error_new(pm_error_root_code(e), "%s", msg ? msg : "avro read failed");
    free(msg);
    return e;
}

/* One top-level object into the batch columns. */
static pm_error *decode_row(pm_avro_reader *r)
{
    if (r->root_union) {
        size_t br = 0;
        PM_TRY(pm_avro_read_branch(&r->cur, r->root_union, &br));
        if ((int)br == r->root_union->null_branch) {
            /* A null top row: every column null. */
            for (size_t i = 0; i < r->batch->ncolumns; i++) {
                pm_column *c = r->batch->columns[i];
                if (!c->type->nullable)
                    return pm_error_new(PM_ECORRUPT, "null row, but column '%s' is NOT NULL",
                                        r->type->fields[i].name);
                PM_TRY(pm_column_append_null(c));
            }
            return NULL;
        }
    }
    return decode_record_into(r->root, &r->cur, r->batch->columns);
}

pm_error *pm_avro_reader_next(pm_avro_reader *r, pm_batch **out)
{
    *out = NULL;
    if (r->failed)
        return pm_error_new(pm_error_code(r->failed), "%s", pm_error_message(r->failed));
    if (r->done)
        return NULL;
    pm_error *e = pm_batch_reset(r->batch);
    if (e)
        return fail(r, e);
    int64_t rows = 0;
    while (rows < r->batch_rows) {
        if (r->left == 0) {
            if (r->block && pm_cursor_left(&r->cur) != 0)
                return fail(r, pm_error_new(PM_ECORRUPT, "%zu bytes left over after a block's objects",
                                            pm_cursor_left(&r->cur)));
            e = pm_avro_file_next_block(r->file, &r->block, &r->block_len, &r->left);
            if (e)
                return fail(r, e);
            if (r->left == 0) {
                r->done = true;
                break;
            }
            r->cur = pm_cursor_make(r->block, r->block_len);
        }
        e = decode_row(r);
        if (e)
            return fail(r, e);
        r->left--;
        rows++;
    }
    if (rows == 0)
        return NULL;
    e = pm_batch_finish(r->batch, rows);
    if (e)
        return fail(r, e);
    *out = r->batch;
    return NULL;
}

const pm_type *pm_avro_reader_type(const pm_avro_reader *r) { return r->type; }

const pm_avro_file *pm_avro_reader_file(const pm_avro_reader *r) { return r->file; }

void pm_avro_reader_free(pm_avro_reader *r)
{
    if (!r)
        return;
    pm_batch_free(r->batch);
    pm_type_free(r->type);
    pm_arena_free(&r->arena);
    pm_avro_file_close(r->file);
    pm_error_free(r->failed);
    free(r);
}

pm_error *pm_avro_read_file_info(pm_fileio *fio, const char *path, char **schema_json,
                                 char **codec)
{
    *schema_json = NULL;
    *codec = NULL;
    pm_input *in = NULL;
    PM_TRY(pm_input_open(fio, path, &in));
    pm_avro_file *f = NULL;
    pm_error *e = pm_avro_file_open(in, NULL, &f);
    if (!e) {
        e = pm_strdup(schema_json, pm_avro_file_schema_json(f));
        if (!e)
            e = pm_strdup(codec, pm_avro_file_codec(f));
        if (e) {
            free(*schema_json);
            *schema_json = NULL;
        }
        pm_avro_file_close(f);
    }
    pm_input_close(in);
    return e;
}
