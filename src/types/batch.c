/*
 * types/batch.c — pm_batch: one column per field of a ROW type, all with
 * num_rows rows.  The batch holds one reference on each column; Arrow
 * exports take their own, so resetting a batch whose columns are still
 * exported swaps in other columns instead of clearing shared buffers.
 * Spares (pm_batch_keep_spares): the columns swapped out stay in a few
 * slots per column; a later reset takes back one whose other holders have
 * all released it (its reference count is the slot's alone) and clears
 * it, keeping its buffers, so a consumer that holds batches for a while
 * costs no allocation per batch once as many are in flight as there are
 * slots.
 */
#include <stdlib.h>

#include "base/mem.h"
#include "types/column.h"

pm_error *pm_batch_new(pm_batch **out, const pm_type *row_type)
{
    *out = NULL;
    if (!row_type || row_type->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "a batch needs a ROW type, got %s",
                            row_type ? pm_type_id_name(row_type->id) : "NULL");
    pm_batch *b = calloc(1, sizeof *b);
    if (!b)
        return pm_oom();
    pm_error *e = NULL;
    b->type = pm_type_clone(row_type);
    if (!b->type) {
        e = pm_oom();
        goto fail;
    }
    if (row_type->nfields) {
        e = pm_calloc(&b->columns, row_type->nfields, sizeof *b->columns);
        if (e)
            goto fail;
    }
    for (size_t i = 0; i < row_type->nfields; i++) {
        e = pm_column_new(&b->columns[i], row_type->fields[i].type);
        if (e) {
            e = pm_error_wrap(e, 0, "column '%s'", row_type->fields[i].name);
            goto fail;
        }
        b->ncolumns = i + 1;
    }
    *out = b;
    return NULL;
fail:
    pm_batch_free(b);
    return e;
}

void pm_batch_free(pm_batch *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->ncolumns; i++)
        pm_column_release(b->columns[i]);
    for (size_t i = 0; i < b->ncolumns * b->nspares; i++)
        pm_column_release(b->spares[i]);
    free(b->spares);
    free(b->columns);
    pm_type_free(b->type);
    free(b);
}

pm_error *pm_batch_keep_spares(pm_batch *b, size_t per_column)
{
    if (b->num_rows)
        return pm_error_new(PM_EINVALID, "pm_batch_keep_spares on a batch with %lld rows", (long long)b->num_rows);
    pm_column **s = NULL;
    if (per_column && b->ncolumns) {
        if (per_column > SIZE_MAX / sizeof *s / b->ncolumns)
            return pm_error_new(PM_EINVALID, "pm_batch_keep_spares: %zu spares per column", per_column);
        PM_TRY(pm_calloc(&s, b->ncolumns * per_column, sizeof *s));
    }
    for (size_t i = 0; i < b->ncolumns * b->nspares; i++)
        pm_column_release(b->spares[i]);
    free(b->spares);
    b->spares = s;
    b->nspares = s ? per_column : 0;
    return NULL;
}

/* Column i is held elsewhere: put in its place a spare nobody else holds
 * (the held one takes its slot), else a fresh column (the held one takes
 * an empty slot, or is released when every slot is busy). */
static pm_error *replace_held(pm_batch *b, size_t i)
{
    pm_column *c = b->columns[i];
    pm_column **slot = b->spares ? b->spares + i * b->nspares : NULL;
    pm_column **empty = NULL;
    for (size_t j = 0; j < b->nspares; j++) {
        if (!slot[j]) {
            if (!empty)
                empty = &slot[j];
        } else if (atomic_load(&slot[j]->refs) == 1) {
            /* only the slot holds it: no one else can retain it any more */
            pm_column *s = slot[j];
            pm_column_reset(s);
            slot[j] = c;
            b->columns[i] = s;
            b->columns_reused++;
            return NULL;
        }
    }
    pm_column *fresh;
    PM_TRY(pm_column_new(&fresh, c->type));
    if (empty)
        *empty = c; /* the batch's reference moves to the slot */
    else
        pm_column_release(c);
    b->columns[i] = fresh;
    b->columns_fresh++;
    return NULL;
}

int64_t pm_batch_num_rows(const pm_batch *b) { return b->num_rows; }

const pm_type *pm_batch_type(const pm_batch *b) { return b->type; }

pm_error *pm_batch_reset(pm_batch *b)
{
    for (size_t i = 0; i < b->ncolumns; i++) {
        pm_column *c = b->columns[i];
        if (atomic_load(&c->refs) > 1) {
            PM_TRY(replace_held(b, i));
        } else {
            pm_column_reset(c);
        }
    }
    b->num_rows = 0;
    return NULL;
}

pm_error *pm_batch_finish(pm_batch *b, int64_t num_rows)
{
    for (size_t i = 0; i < b->ncolumns; i++)
        if (b->columns[i]->length != num_rows)
            return pm_error_new(PM_EINVALID, "column '%s' has %lld rows, the batch %lld",
                                b->type->fields[i].name, (long long)b->columns[i]->length,
                                (long long)num_rows);
    b->num_rows = num_rows;
    return NULL;
}
