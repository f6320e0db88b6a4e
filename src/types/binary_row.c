/*
 * types/binary_row.c — BinaryRow writer and bounds-checked reader (layout
 * in binary_row.h).
 *
 * Writer steps per row: reset sizes the buffer to the fixed part (zeros)
 * and sets RowKind +I; each setter fills its slot; var-length values are
 * appended at the end of the buffer, padded to 8 bytes, and their slot
 * gets (offset << 32) | length.  Non-compact decimals take 16 bytes, the
 * minimal big-endian two's-complement form first; non-compact timestamps
 * take 8 bytes of millis.  The row's bytes are simply the buffer.
 *
 * Reader: a view over borrowed bytes.  pm_binrow_view checks the fixed
 * part fits; every var-length access checks the slot's offset lies at or
 * after the fixed part and offset + length within the row, that inline
 * lengths are <= 7, and that decimal byte lengths are 1..16.
 */
#include "types/binary_row.h"

#include "base/cursor.h"
#include "base/hash.h"
#include "types/temporal.h"

bool pm_binrow_decimal_compact(int32_t precision) { return precision <= 18; }
bool pm_binrow_timestamp_compact(int32_t precision) { return precision <= 3; }

/* ------------------------------------------------------------------ */
/* Writer                                                              */

pm_error *pm_binrow_writer_reset(pm_binrow_writer *w, int32_t arity)
{
    if (arity < 0)
        return pm_error_new(PM_EINVALID, "BinaryRow arity %d is negative", (int)arity);
    w->arity = arity;
    pm_buf_clear(&w->buf);
    return pm_buf_resize(&w->buf, pm_binrow_fixed_len(arity));
}

void pm_binrow_writer_free(pm_binrow_writer *w)
{
    pm_buf_free(&w->buf);
    w->arity = 0;
}

void pm_binrow_set_kind(pm_binrow_writer *w, uint8_t kind) { w->buf.data[0] = kind; }

static inline uint8_t *slot(pm_binrow_writer *w, int32_t i)
{
    return w->buf.data + pm_binrow_null_bytes(w->arity) + 8 * (size_t)i;
}

static inline void clear_null(pm_binrow_writer *w, int32_t i)
{
    int32_t b = i + 8;
    w->buf.data[b >> 3] &= (uint8_t) ~(1u << (b & 7));
}

static inline void put_slot(pm_binrow_writer *w, int32_t i, uint64_t v)
{
    clear_null(w, i);
    pm_store_u64le(slot(w, i), v);
}

static pm_error *check_index(const pm_binrow_writer *w, int32_t i)
{
    if (i < 0 || i >= w->arity)
        return pm_error_new(PM_EINVALID, "BinaryRow field %d out of range (arity %d)", (int)i, (int)w->arity);
    return NULL;
}

/* Reserve `n` zero bytes at the end of the var part; returns their offset. */
static pm_error *reserve_var(pm_binrow_writer *w, size_t n, size_t *offset)
{
    *offset = w->buf.len;
    if (*offset > UINT32_MAX - n)
        return pm_error_new(PM_EUNSUPPORTED, "BinaryRow larger than 4 GiB");
    return pm_buf_append_zeros(&w->buf, n);
}

pm_error *pm_binrow_set_null(pm_binrow_writer *w, int32_t i, const pm_type *type)
{
    PM_TRY(check_index(w, i));
    uint64_t v = 0;
    if (type && ((type->id == PM_TYPE_DECIMAL && !pm_binrow_decimal_compact(type->precision)) ||
                 ((type->id == PM_TYPE_TIMESTAMP || type->id == PM_TYPE_TIMESTAMP_LTZ) &&
                  !pm_binrow_timestamp_compact(type->precision)))) {
        size_t off;
        PM_TRY(reserve_var(w, type->id == PM_TYPE_DECIMAL ? 16 : 8, &off));
        v = (uint64_t)off << 32;
    }
    pm_store_u64le(slot(w, i), v);
    int32_t b = i + 8;
    w->buf.data[b >> 3] |= (uint8_t)(1u << (b & 7));
    return NULL;
}

void pm_binrow_set_bool(pm_binrow_writer *w, int32_t i, bool v) { put_slot(w, i, v ? 1 : 0); }
void pm_binrow_set_i8(pm_binrow_writer *w, int32_t i, int8_t v) { put_slot(w, i, (uint8_t)v); }
void pm_binrow_set_i16(pm_binrow_writer *w, int32_t i, int16_t v) { put_slot(w, i, (uint16_t)v); }
void pm_binrow_set_i32(pm_binrow_writer *w, int32_t i, int32_t v) { put_slot(w, i, (uint32_t)v); }
void pm_binrow_set_i64(pm_binrow_writer *w, int32_t i, int64_t v) { put_slot(w, i, (uint64_t)v); }

void pm_binrow_set_f32(pm_binrow_writer *w, int32_t i, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    put_slot(w, i, u);
}

void pm_binrow_set_f64(pm_binrow_writer *w, int32_t i, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    put_slot(w, i, u);
}

pm_error *pm_binrow_set_bytes(pm_binrow_writer *w, int32_t i, const void *p, size_t n)
{
    PM_TRY(check_index(w, i));
    if (n <= 7) {
        uint8_t s[8] = {0};
        if (n)
            memcpy(s, p, n);
        s[7] = (uint8_t)(0x80 | n);
        clear_null(w, i);
        memcpy(slot(w, i), s, 8);
        return NULL;
    }
    if (n > INT32_MAX)
        return pm_error_new(PM_EUNSUPPORTED, "BinaryRow value of %zu bytes (limit 2^31-1)", n);
    size_t off;
    PM_TRY(reserve_var(w, (n + 7) & ~(size_t)7, &off));
    memcpy(w->buf.data + off, p, n);
    put_slot(w, i, (uint64_t)off << 32 | n);
    return NULL;
}

/* BigInteger.toByteArray(): minimal big-endian two's complement (>= 1 byte). */
static size_t decimal_bytes(__int128 v, uint8_t out[16])
{
    uint8_t be[16];
    unsigned __int128 u = (unsigned __int128)v;
    for (int k = 15; k >= 0; k--) {
        be[k] = (uint8_t)u;
        u >>= 8;
    }
    size_t start = 0;
    while (start < 15 && ((be[start] == 0x00 && !(be[start + 1] & 0x80)) ||
                          (be[start] == 0xff && (be[start + 1] & 0x80))))
        start++;
    memcpy(out, be + start, 16 - start);
    return 16 - start;
}

pm_error *pm_binrow_set_decimal(pm_binrow_writer *w, int32_t i, int32_t precision, __int128 unscaled)
{
    PM_TRY(check_index(w, i));
    if (pm_binrow_decimal_compact(precision)) {
        if (unscaled < INT64_MIN || unscaled > INT64_MAX)
            return pm_error_new(PM_EINVALID, "decimal value does not fit DECIMAL(%d)", (int)precision);
        put_slot(w, i, (uint64_t)(int64_t)unscaled);
        return NULL;
    }
    size_t off;
    PM_TRY(reserve_var(w, 16, &off));
    uint8_t b[16];
    size_t n = decimal_bytes(unscaled, b);
    memcpy(w->buf.data + off, b, n);
    put_slot(w, i, (uint64_t)off << 32 | n);
    return NULL;
}

pm_error *pm_binrow_set_timestamp(pm_binrow_writer *w, int32_t i, int32_t precision, int64_t millis,
                                  int32_t nano_of_milli)
{
    PM_TRY(check_index(w, i));
    if (nano_of_milli < 0 || nano_of_milli > 999999)
        return pm_error_new(PM_EINVALID, "nanoOfMillisecond %d out of range 0..999999", (int)nano_of_milli);
    if (pm_binrow_timestamp_compact(precision)) {
        put_slot(w, i, (uint64_t)millis);
        return NULL;
    }
    size_t off;
    PM_TRY(reserve_var(w, 8, &off));
    pm_store_u64le(w->buf.data + off, (uint64_t)millis);
    put_slot(w, i, (uint64_t)off << 32 | (uint32_t)nano_of_milli);
    return NULL;
}

void pm_timestamp_to_millis_nanos(int64_t value, int32_t precision, int64_t *millis, int32_t *nano_of_milli)
{
    int64_t per_milli = pm_timestamp_units_per_second(precision) / 1000; /* 1, 1000, 1000000 */
    *millis = pm_floor_div(value, per_milli);
    *nano_of_milli = (int32_t)(pm_floor_mod(value, per_milli) * (1000000 / per_milli));
}

pm_error *pm_timestamp_from_millis_nanos(int64_t millis, int32_t nano_of_milli, int32_t precision, int64_t *value)
{
    int64_t per_milli = pm_timestamp_units_per_second(precision) / 1000;
    int64_t frac = nano_of_milli / (1000000 / per_milli), v;
    if (millis < 0 && frac > 0) { /* reach INT64_MIN without an intermediate overflow */
        millis += 1;
        frac -= per_milli;
    }
    if (__builtin_mul_overflow(millis, per_milli, &v) || __builtin_add_overflow(v, frac, &v))
        return pm_error_new(PM_EINVALID, "timestamp %lld ms does not fit TIMESTAMP(%d)", (long long)millis,
                            (int)precision);
    *value = v;
    return NULL;
}

static pm_error *unsupported_field(const pm_type *t)
{
    return pm_error_new(PM_EUNSUPPORTED, "%s fields in BinaryRow", pm_type_id_name(t->id));
}

pm_error *pm_binrow_set_from_column(pm_binrow_writer *w, int32_t i, const pm_column *c, int64_t row)
{
    const pm_type *t = c->type;
    PM_TRY(check_index(w, i));
    if (row < 0 || row >= c->length)
        return pm_error_new(PM_EINVALID, "row %lld out of range (column length %lld)", (long long)row,
                            (long long)c->length);
    if (pm_column_is_null(c, row)) {
        if (pm_type_is_nested(t) || t->id == PM_TYPE_VARIANT)
            return unsupported_field(t);
        return pm_binrow_set_null(w, i, t);
    }
    switch (t->id) {
    case PM_TYPE_BOOLEAN: pm_binrow_set_bool(w, i, pm_column_bool(c, row)); return NULL;
    case PM_TYPE_TINYINT: pm_binrow_set_i8(w, i, pm_column_i8(c, row)); return NULL;
    case PM_TYPE_SMALLINT: pm_binrow_set_i16(w, i, pm_column_i16(c, row)); return NULL;
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME: pm_binrow_set_i32(w, i, pm_column_i32(c, row)); return NULL;
    case PM_TYPE_BIGINT: pm_binrow_set_i64(w, i, pm_column_i64(c, row)); return NULL;
    case PM_TYPE_FLOAT: pm_binrow_set_f32(w, i, pm_column_f32(c, row)); return NULL;
    case PM_TYPE_DOUBLE: pm_binrow_set_f64(w, i, pm_column_f64(c, row)); return NULL;
    case PM_TYPE_DECIMAL: return pm_binrow_set_decimal(w, i, t->precision, pm_column_decimal(c, row));
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: {
        int64_t ms;
        int32_t nanos;
        pm_timestamp_to_millis_nanos(pm_column_i64(c, row), t->precision, &ms, &nanos);
        return pm_binrow_set_timestamp(w, i, t->precision, ms, nanos);
    }
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_BLOB: {
        size_t n;
        const uint8_t *p = pm_column_bytes(c, row, &n);
        return pm_binrow_set_bytes(w, i, p, n);
    }
    default:
        return unsupported_field(t);
    }
}

pm_error *pm_binrow_from_columns(pm_binrow_writer *w, pm_column *const *cols, const size_t *fields, size_t n,
                                 int64_t row)
{
    if (n > INT32_MAX)
        return pm_error_new(PM_EINVALID, "BinaryRow of %zu fields", n);
    PM_TRY(pm_binrow_writer_reset(w, (int32_t)n));
    for (size_t k = 0; k < n; k++) {
        const pm_column *c = cols[fields ? fields[k] : k];
        pm_error *e = pm_binrow_set_from_column(w, (int32_t)k, c, row);
        if (e)
            return pm_error_wrap(e, 0, "BinaryRow field %zu", k);
    }
    return NULL;
}

pm_error *pm_binrow_from_batch_row(pm_binrow_writer *w, const pm_batch *b, int64_t row, const size_t *fields,
                                   size_t n)
{
    for (size_t k = 0; fields && k < n; k++)
        if (fields[k] >= b->ncolumns)
            return pm_error_new(PM_EINVALID, "field index %zu out of range (%zu columns)", fields[k], b->ncolumns);
    if (!fields && n > b->ncolumns)
        return pm_error_new(PM_EINVALID, "%zu fields from a batch of %zu columns", n, b->ncolumns);
    return pm_binrow_from_columns(w, b->columns, fields, n, row);
}

int32_t pm_binrow_hash(const pm_binrow_writer *w) { return pm_hash_bytes_by_words(w->buf.data, w->buf.len); }

pm_error *pm_binrow_serialize(const pm_binrow_writer *w, pm_buf *out)
{
    PM_TRY(pm_buf_reserve(out, 4 + w->buf.len));
    PM_TRY(pm_buf_append_u32be(out, (uint32_t)w->arity));
    return pm_buf_append(out, w->buf.data, w->buf.len);
}

/* ------------------------------------------------------------------ */
/* Reader                                                              */

pm_error *pm_binrow_view(pm_binrow *r, const void *data, size_t len, int32_t arity)
{
    if (arity < 0)
        return pm_error_new(PM_ECORRUPT, "BinaryRow arity %d is negative", (int)arity);
    size_t fixed = pm_binrow_fixed_len(arity);
    if (len < fixed)
        return pm_error_new(PM_ECORRUPT, "BinaryRow of %zu bytes is shorter than its fixed part (%zu bytes for %d fields)",
                            len, fixed, (int)arity);
    r->data = data;
    r->len = len;
    r->arity = arity;
    return NULL;
}

pm_error *pm_binrow_deserialize(pm_binrow *r, const void *data, size_t len, int32_t expect_arity)
{
    pm_cursor c = pm_cursor_make(data, len);
    uint32_t arity;
    PM_TRY(pm_cursor_u32be(&c, &arity, "BinaryRow arity"));
    if (arity > INT32_MAX)
        return pm_error_new(PM_ECORRUPT, "BinaryRow arity %u is negative", arity);
    if (expect_arity >= 0 && (int32_t)arity != expect_arity)
        return pm_error_new(PM_ECORRUPT, "BinaryRow has %u fields, expected %d", arity, (int)expect_arity);
    /* arity is bounded by the bytes present before we compute the fixed part */
    if (arity > pm_cursor_left(&c))
        return pm_error_new(PM_ECORRUPT, "BinaryRow arity %u larger than its %zu bytes", arity, pm_cursor_left(&c));
    return pm_binrow_view(r, c.p, pm_cursor_left(&c), (int32_t)arity);
}

uint64_t pm_binrow_slot(const pm_binrow *r, int32_t i)
{
    return pm_load_u64le(r->data + pm_binrow_null_bytes(r->arity) + 8 * (size_t)i);
}

float pm_binrow_f32(const pm_binrow *r, int32_t i)
{
    uint32_t u = (uint32_t)pm_binrow_slot(r, i);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

double pm_binrow_f64(const pm_binrow *r, int32_t i)
{
    uint64_t u = pm_binrow_slot(r, i);
    double d;
    memcpy(&d, &u, 8);
    return d;
}

static pm_error *check_field(const pm_binrow *r, int32_t i)
{
    if (i < 0 || i >= r->arity)
        return pm_error_new(PM_EINVALID, "BinaryRow field %d out of range (arity %d)", (int)i, (int)r->arity);
    return NULL;
}

/* Check [off, off+n) lies in the var part. */
static pm_error *check_var(const pm_binrow *r, int32_t i, uint64_t off, uint64_t n, const char *what)
{
    if (off < pm_binrow_fixed_len(r->arity) || off > r->len || n > r->len - off)
        return pm_error_new(PM_ECORRUPT, "BinaryRow field %d: %s at offset %llu, %llu bytes, outside the %zu-byte row",
                            (int)i, what, (unsigned long long)off, (unsigned long long)n, r->len);
    return NULL;
}

pm_error *pm_binrow_bytes(const pm_binrow *r, int32_t i, const uint8_t **p, size_t *n)
{
    PM_TRY(check_field(r, i));
    uint64_t s = pm_binrow_slot(r, i);
    const uint8_t *sp = r->data + pm_binrow_null_bytes(r->arity) + 8 * (size_t)i;
    if (s >> 63) {
        size_t len = (size_t)((s >> 56) & 0x7f);
        if (len > 7)
            return pm_error_new(PM_ECORRUPT, "BinaryRow field %d: inline length %zu > 7", (int)i, len);
        *p = sp;
        *n = len;
        return NULL;
    }
    uint64_t off = s >> 32, len = s & 0xffffffffu;
    if (len > INT32_MAX)
        return pm_error_new(PM_ECORRUPT, "BinaryRow field %d: negative length", (int)i);
    PM_TRY(check_var(r, i, off, len, "bytes"));
    *p = r->data + off;
    *n = (size_t)len;
    return NULL;
}

pm_error *pm_binrow_decimal(const pm_binrow *r, int32_t i, int32_t precision, __int128 *out)
{
    PM_TRY(check_field(r, i));
    uint64_t s = pm_binrow_slot(r, i);
    if (pm_binrow_decimal_compact(precision)) {
        *out = (int64_t)s;
        return NULL;
    }
    uint64_t off = s >> 32, n = s & 0xffffffffu;
    if (n < 1 || n > 16)
        return pm_error_new(PM_ECORRUPT, "BinaryRow field %d: decimal of %llu bytes (expected 1..16)", (int)i,
                            (unsigned long long)n);
    PM_TRY(check_var(r, i, off, n, "decimal"));
    const uint8_t *p = r->data + off;
    unsigned __int128 u = (p[0] & 0x80) ? ~(unsigned __int128)0 : 0; /* sign extension */
    for (uint64_t k = 0; k < n; k++)
        u = u << 8 | p[k];
    *out = (__int128)u;
    return NULL;
}

pm_error *pm_binrow_timestamp(const pm_binrow *r, int32_t i, int32_t precision, int64_t *millis,
                              int32_t *nano_of_milli)
{
    PM_TRY(check_field(r, i));
    uint64_t s = pm_binrow_slot(r, i);
    if (pm_binrow_timestamp_compact(precision)) {
        *millis = (int64_t)s;
        *nano_of_milli = 0;
        return NULL;
    }
    uint64_t off = s >> 32, nanos = s & 0xffffffffu;
    if (nanos > 999999)
        return pm_error_new(PM_ECORRUPT, "BinaryRow field %d: nanoOfMillisecond %llu > 999999", (int)i,
                            (unsigned long long)nanos);
    PM_TRY(check_var(r, i, off, 8, "timestamp"));
    *millis = (int64_t)pm_load_u64le(r->data + off);
    *nano_of_milli = (int32_t)nanos;
    return NULL;
}

pm_error *pm_binrow_append_to_column(const pm_binrow *r, int32_t i, pm_column *c)
{
    PM_TRY(check_field(r, i));
    const pm_type *t = c->type;
    if (pm_binrow_is_null(r, i))
        return pm_column_append_null(c);
    switch (t->id) {
    case PM_TYPE_BOOLEAN: return pm_column_append_bool(c, pm_binrow_bool(r, i));
    case PM_TYPE_TINYINT: return pm_column_append_i8(c, pm_binrow_i8(r, i));
    case PM_TYPE_SMALLINT: return pm_column_append_i16(c, pm_binrow_i16(r, i));
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME: return pm_column_append_i32(c, pm_binrow_i32(r, i));
    case PM_TYPE_BIGINT: return pm_column_append_i64(c, pm_binrow_i64(r, i));
    case PM_TYPE_FLOAT: return pm_column_append_f32(c, pm_binrow_f32(r, i));
    case PM_TYPE_DOUBLE: return pm_column_append_f64(c, pm_binrow_f64(r, i));
    case PM_TYPE_DECIMAL: {
        __int128 v;
        PM_TRY(pm_binrow_decimal(r, i, t->precision, &v));
        return pm_column_append_decimal(c, v);
    }
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: {
        int64_t ms, v;
        int32_t nanos;
        PM_TRY(pm_binrow_timestamp(r, i, t->precision, &ms, &nanos));
        PM_TRY(pm_error_wrap(pm_timestamp_from_millis_nanos(ms, nanos, t->precision, &v), PM_EUNSUPPORTED,
                             "BinaryRow field %d", (int)i));
        return pm_column_append_i64(c, v);
    }
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_BLOB: {
        const uint8_t *p;
        size_t n;
        PM_TRY(pm_binrow_bytes(r, i, &p, &n));
        return pm_column_append_bytes(c, p, n);
    }
    default:
        return unsupported_field(t);
    }
}
