/*
 * table/write_align.c — input columns matched to the table's fields
 * (write_align.h): unknown names first, then per field the input column
 * (type layout, length, NOT NULL checked) or a cached all-null column.
 */
#include "table/write_align.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "types/temporal.h"

pm_error *pm_write_aligner_init(pm_write_aligner *a, const pm_type *row_type, const char *skip)
{
    memset(a, 0, sizeof *a);
    a->row_type = row_type;
    a->skip = skip;
    size_t nf = row_type->nfields ? row_type->nfields : 1;
    PM_TRY(pm_calloc(&a->aligned, nf, sizeof *a->aligned));
    return pm_calloc(&a->null_cols, nf, sizeof *a->null_cols);
}

void pm_write_aligner_free(pm_write_aligner *a)
{
    if (a->null_cols)
        for (size_t i = 0; i < a->row_type->nfields; i++)
            pm_column_release(a->null_cols[i]);
    free(a->null_cols);
    free(a->aligned);
    memset(a, 0, sizeof *a);
}

/* Same value layout, ignoring nullability, field ids and string lengths. */
static bool compatible(const pm_type *in, const pm_type *want)
{
    if (in->id != want->id)
        return false;
    switch (want->id) {
    case PM_TYPE_DECIMAL:
        return in->precision == want->precision && in->scale == want->scale;
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ:
        return pm_timestamp_units_per_second(in->precision) == pm_timestamp_units_per_second(want->precision);
    case PM_TYPE_ARRAY:
    case PM_TYPE_MULTISET:
        return compatible(in->element, want->element);
    case PM_TYPE_MAP:
        return compatible(in->key, want->key) && compatible(in->value, want->value);
    case PM_TYPE_ROW:
        if (in->nfields != want->nfields)
            return false;
        for (size_t i = 0; i < want->nfields; i++)
            if (strcmp(in->fields[i].name, want->fields[i].name) ||
                !compatible(in->fields[i].type, want->fields[i].type))
                return false;
        return true;
    default:
        return true;
    }
}

static pm_error *null_column(pm_write_aligner *a, size_t i, int64_t n, pm_column **out)
{
    pm_column *c = a->null_cols[i];
    if (!c) {
        PM_TRY(pm_column_new(&c, a->row_type->fields[i].type));
        a->null_cols[i] = c;
    }
    if (c->length != n) {
        pm_column_reset(c);
        PM_TRY(pm_column_reserve(c, n));
        for (int64_t r = 0; r < n; r++)
            PM_TRY(pm_column_append_null(c));
    }
    *out = c;
    return NULL;
}

static pm_error *check_column(const pm_field *f, const pm_column *c, int64_t n)
{
    if (!compatible(c->type, f->type)) {
        char *a = pm_type_to_string(c->type), *b = pm_type_to_string(f->type);
        pm_error *e = pm_error_new(PM_EINVALID, "column '%s' has type %s, the table expects %s", f->name,
                                   a ? a : "?", b ? b : "?");
        free(a);
        free(b);
        return e;
    }
    if (c->length < n)
        return pm_error_new(PM_EINVALID, "column '%s' has %lld rows, the batch %lld", f->name, (long long)c->length,
                            (long long)n);
    if (!f->type->nullable && c->null_count > 0) {
        for (int64_t r = 0; r < n; r++)
            if (pm_column_is_null(c, r))
                return pm_error_new(PM_EINVALID, "column '%s' is NOT NULL, but row %lld is null", f->name,
                                    (long long)r);
    }
    return NULL;
}

pm_error *pm_write_align(pm_write_aligner *a, const pm_batch *in)
{
    const pm_type *rt = a->row_type, *it = in->type;
    int64_t n = in->num_rows;
    for (size_t i = 0; i < it->nfields; i++) {
        const char *name = it->fields[i].name;
        if ((!a->skip || strcmp(name, a->skip)) && pm_type_field_index(rt, name) < 0)
            return pm_error_new(PM_EINVALID, "unknown column '%s' (not a field of the table)", name);
    }
    for (size_t i = 0; i < rt->nfields; i++) {
        const pm_field *f = &rt->fields[i];
        ptrdiff_t k = pm_type_field_index(it, f->name);
        if (k < 0) {
            if (!f->type->nullable && n > 0)
                return pm_error_new(PM_EINVALID, "column '%s' is NOT NULL but missing from the input", f->name);
            PM_TRY(null_column(a, i, n, &a->aligned[i]));
            continue;
        }
        PM_TRY(check_column(f, in->columns[k], n));
        a->aligned[i] = in->columns[k];
    }
    return NULL;
}

void pm_write_aligned_batch(const pm_write_aligner *a, int64_t rows, pm_batch *out)
{
    out->type = (pm_type *)(uintptr_t)a->row_type;
    out->num_rows = rows;
    out->ncolumns = a->row_type->nfields;
    out->columns = a->aligned;
}

pm_error *pm_write_field_indexes(const pm_type *rt, const pm_str_list *names, size_t **out, const char *what)
{
    PM_TRY(pm_calloc(out, names->count ? names->count : 1, sizeof **out));
    for (size_t i = 0; i < names->count; i++) {
        ptrdiff_t k = pm_type_field_index(rt, names->items[i]);
        if (k < 0)
            return pm_error_new(PM_EINVALID, "%s '%s' is not a field of the table", what, names->items[i]);
        if (pm_type_is_nested(rt->fields[k].type))
            return pm_error_new(PM_EUNSUPPORTED, "%s '%s' has a nested type", what, names->items[i]);
        (*out)[i] = (size_t)k;
    }
    return NULL;
}
