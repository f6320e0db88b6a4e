/*
 * index/fi_internal.h — what the file-index container (file_index.c) and
 * the index types (fi_bloom.c, fi_bitmap.c, fi_bsi.c, fi_range.c) share:
 * the per-type operations, values as Paimon's index writers see them,
 * index results, and Roaring bitmaps as Paimon serializes them.
 *
 * Values (Java's objects of each type, after the index's value mapper):
 *   CHAR/VARCHAR → bytes (BinaryString); BINARY/VARBINARY → bytes;
 *   BOOLEAN → bool; TINYINT/SMALLINT/INT/DATE/TIME → i (i8/i16/i32 kind);
 *   BIGINT → i (i64); FLOAT → f; DOUBLE → d; DECIMAL → i (unscaled, when
 *   it fits 64 bits); TIMESTAMP(_LTZ)(p) → i = epoch millis for p <= 3,
 *   epoch micros (floor) above (Timestamp.getMillisecond / toMicros).
 */
#ifndef PM_INDEX_FI_INTERNAL_H
#define PM_INDEX_FI_INTERNAL_H

#include <roaring/roaring.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/cursor.h"
#include "index/file_index.h"
#include "types/column.h"

typedef enum fv_kind { FV_BYTES, FV_BOOL, FV_I8, FV_I16, FV_I32, FV_I64, FV_F32, FV_F64 } fv_kind;

typedef struct fi_val {
    int64_t i;
    float f;
    double d;
    bool b;
    const uint8_t *p; /* bytes (borrowed from the column) */
    size_t n;
} fi_val;

/* The kind a column type maps to; false for types outside the mapping. */
bool fi_value_kind(const pm_type *t, fv_kind *out);
/* Row `row` of column c (not null) as a value of kind k; PM_EUNSUPPORTED
 * for a decimal whose unscaled value needs more than 64 bits. */
pm_error *fi_value_get(const pm_column *c, int64_t row, fv_kind k, fi_val *v);
/* Java's hashCode of the boxed value, equality (Object.equals) and the
 * natural order (compareTo; strings by unsigned bytes). */
int32_t fi_value_hash(fv_kind k, const fi_val *v);
bool fi_value_equal(fv_kind k, const fi_val *a, const fi_val *b);
int fi_value_compare(fv_kind k, const fi_val *a, const fi_val *b);
/* Big-endian serialized size / bytes (strings: i32 length + bytes; bool 1
 * byte; numbers their width). */
size_t fi_value_size(fv_kind k, const fi_val *v);
pm_error *fi_value_put(pm_buf *out, fv_kind k, const fi_val *v);
/* Read one serialized value (strings borrow from the input). */
pm_error *fi_value_read(pm_cursor *c, fv_kind k, fi_val *v, const char *what);

/* ---- distinct values and their rows ---- */
typedef struct fi_entry {
    fi_val v;                  /* bytes owned by the map */
    int32_t hash;              /* Java hashCode */
    roaring_bitmap_t *rows;
} fi_entry;

typedef struct fi_valmap {
    fv_kind kind;
    fi_entry *e;               /* in insertion (first occurrence) order */
    size_t n, ecap;
    uint32_t *slots;           /* 1 + entry index, 0 = empty */
    size_t cap;
    pm_arena arena;
} fi_valmap;

void fi_valmap_init(fi_valmap *m, fv_kind kind);
void fi_valmap_free(fi_valmap *m);
/* Row `row` holds value v. */
pm_error *fi_valmap_add(fi_valmap *m, const fi_val *v, uint32_t row);
/* Entry indexes in the order of a java.util.HashMap filled by
 * computeIfAbsent / in value order (malloc'd). */
pm_error *fi_valmap_hash_order(const fi_valmap *m, size_t **order);
pm_error *fi_valmap_sorted_order(const fi_valmap *m, size_t **order);

/* ---- results ---- */
typedef enum fi_result_kind { FI_REMAIN, FI_SKIP, FI_ROWS } fi_result_kind;
typedef struct fi_result {
    fi_result_kind kind;
    roaring_bitmap_t *rows; /* FI_ROWS: the rows that may match (owned) */
} fi_result;
void fi_result_clear(fi_result *r);
/* r := r AND x (x consumed). */
void fi_result_and(fi_result *r, fi_result *x);

/* ---- Roaring bitmaps in Paimon's serialization ---- */
/* RoaringBitmap32.serialize: run-optimized as Java does, portable format
 * (dv/roaring_java.h). */
pm_error *fi_bitmap_put(pm_buf *out, roaring_bitmap_t *bm);
/* A validated bitmap at the cursor (dv/roaring_check.h), advancing it. */
pm_error *fi_bitmap_read(pm_cursor *c, roaring_bitmap_t **out, const char *what);

/* ---- one index type ---- */
typedef struct fi_ops {
    const char *name;                 /* "bloom-filter", "bitmap", "bsi", "range-bitmap" */
    /* Is the column type supported?  NULL = yes, else PM_EUNSUPPORTED naming it. */
    pm_error *(*check)(const pm_type *t, const pm_fi_spec *spec);
    pm_error *(*writer_new)(void **st, const pm_type *t, const pm_fi_spec *spec);
    pm_error *(*add)(void *st, const pm_column *c, int64_t from, int64_t to);
    pm_error *(*finish)(void *st, pm_buf *out);   /* the index bytes */
    void (*writer_free)(void *st);
    /* Rows of an index (bytes of the column's entry) that may hold one of
     * the literal values (rows of `lits`, not null). */
    pm_error *(*test_in)(const pm_type *t, const uint8_t *p, size_t n, const pm_column *lits, fi_result *out);
} fi_ops;

extern const fi_ops pm_fi_bloom_ops;
extern const fi_ops pm_fi_bitmap_ops;
extern const fi_ops pm_fi_bsi_ops;
extern const fi_ops pm_fi_range_ops;

#endif
