/*
 * format/parquet/thrift.c — thrift compact protocol reader and writer (see
 * thrift.h for the wire format).
 *
 * The reader never trusts the input: varints are length-limited by the
 * cursor, i16/i32 values are range-checked after zig-zag decoding, every
 * length or element count is compared with the bytes left before use, and
 * nesting (structs, lists, sets, maps) is bounded by PQ_THRIFT_MAX_DEPTH so
 * skipping hostile input cannot overflow the stack.
 */
#include "format/parquet/thrift.h"

#include <string.h>

/* ---- reader ---- */

pm_error *pq_thrift_struct_enter(pq_thrift_reader *r)
{
    if (r->depth >= PQ_THRIFT_MAX_DEPTH)
        return pm_error_new(PM_ECORRUPT, "thrift nesting deeper than %d levels", PQ_THRIFT_MAX_DEPTH);
    r->depth++;
    return NULL;
}

pm_error *pq_thrift_i16(pq_thrift_reader *r, int16_t *out)
{
    int64_t v;
    PM_TRY(pm_cursor_svarint(&r->cur, &v, "thrift i16"));
    if (v < INT16_MIN || v > INT16_MAX)
        return pm_error_new(PM_ECORRUPT, "thrift i16 out of range: %lld", (long long)v);
    *out = (int16_t)v;
    return NULL;
}

pm_error *pq_thrift_i32(pq_thrift_reader *r, int32_t *out)
{
    int64_t v;
    PM_TRY(pm_cursor_svarint(&r->cur, &v, "thrift i32"));
    if (v < INT32_MIN || v > INT32_MAX)
        return pm_error_new(PM_ECORRUPT, "thrift i32 out of range: %lld", (long long)v);
    *out = (int32_t)v;
    return NULL;
}

pm_error *pq_thrift_i64(pq_thrift_reader *r, int64_t *out)
{
    return pm_cursor_svarint(&r->cur, out, "thrift i64");
}

pm_error *pq_thrift_i8(pq_thrift_reader *r, int8_t *out)
{
    uint8_t b;
    PM_TRY(pm_cursor_u8(&r->cur, &b, "thrift i8"));
    *out = (int8_t)b;
    return NULL;
}

pm_error *pq_thrift_double(pq_thrift_reader *r, double *out)
{
    uint64_t bits;
    PM_TRY(pm_cursor_u64le(&r->cur, &bits, "thrift double"));
    memcpy(out, &bits, sizeof *out);
    return NULL;
}

pm_error *pq_thrift_binary(pq_thrift_reader *r, const uint8_t **p, uint32_t *len)
{
    uint64_t n;
    PM_TRY(pm_cursor_uvarint(&r->cur, &n, "thrift binary length"));
    if (n > pm_cursor_left(&r->cur))
        return pm_error_new(PM_ECORRUPT, "thrift binary length %llu exceeds the %zu bytes left",
                            (unsigned long long)n, pm_cursor_left(&r->cur));
    *len = (uint32_t)n;
    return pm_cursor_take(&r->cur, (size_t)n, p, "thrift binary");
}

pm_error *pq_thrift_bool_elem(pq_thrift_reader *r, bool *out)
{
    uint8_t b;
    PM_TRY(pm_cursor_u8(&r->cur, &b, "thrift bool"));
    /* Compact protocol writes 1 for true; accept 0 or 2 for false. */
    if (b > 2)
        return pm_error_new(PM_ECORRUPT, "thrift bool element has byte %u", b);
    *out = b == 1;
    return NULL;
}

static bool valid_elem_type(uint8_t t)
{
    return t >= PQ_TT_BOOL_TRUE && t <= PQ_TT_UUID;
}

pm_error *pq_thrift_list(pq_thrift_reader *r, uint8_t *elem_type, uint32_t *count)
{
    uint8_t h;
    PM_TRY(pm_cursor_u8(&r->cur, &h, "thrift list header"));
    uint64_t n = h >> 4;
    if (n == 15)
        PM_TRY(pm_cursor_uvarint(&r->cur, &n, "thrift list size"));
    uint8_t t = h & 0x0f;
    if (!valid_elem_type(t))
        return pm_error_new(PM_ECORRUPT, "thrift list has invalid element type %u", t);
    /* Every element takes at least one byte. */
    if (n > pm_cursor_left(&r->cur))
        return pm_error_new(PM_ECORRUPT, "thrift list of %llu elements exceeds the %zu bytes left",
                            (unsigned long long)n, pm_cursor_left(&r->cur));
    *elem_type = t;
    *count = (uint32_t)n;
    return NULL;
}

pm_error *pq_thrift_list_of(pq_thrift_reader *r, uint8_t t, uint8_t want, uint32_t *count, const char *what)
{
    PM_TRY(pq_thrift_expect(t, PQ_TT_LIST, what));
    uint8_t et;
    PM_TRY(pq_thrift_list(r, &et, count));
    bool is_bool = want == PQ_TT_BOOL_TRUE || want == PQ_TT_BOOL_FALSE;
    bool ok = et == want || (is_bool && (et == PQ_TT_BOOL_TRUE || et == PQ_TT_BOOL_FALSE)) || *count == 0;
    if (!ok)
        return pm_error_new(PM_ECORRUPT, "thrift list %s has element type %u, expected %u", what, et, want);
    return NULL;
}

pm_error *pq_thrift_map(pq_thrift_reader *r, uint8_t *key_type, uint8_t *value_type, uint32_t *count)
{
    uint64_t n;
    PM_TRY(pm_cursor_uvarint(&r->cur, &n, "thrift map size"));
    if (n == 0) {
        *key_type = *value_type = 0;
        *count = 0;
        return NULL;
    }
    uint8_t kv;
    PM_TRY(pm_cursor_u8(&r->cur, &kv, "thrift map types"));
    uint8_t kt = kv >> 4, vt = kv & 0x0f;
    if (!valid_elem_type(kt) || !valid_elem_type(vt))
        return pm_error_new(PM_ECORRUPT, "thrift map has invalid key/value types %u/%u", kt, vt);
    if (n > pm_cursor_left(&r->cur) / 2)
        return pm_error_new(PM_ECORRUPT, "thrift map of %llu entries exceeds the %zu bytes left",
                            (unsigned long long)n, pm_cursor_left(&r->cur));
    *key_type = kt;
    *value_type = vt;
    *count = (uint32_t)n;
    return NULL;
}

pm_error *pq_thrift_field_full(pq_thrift_reader *r, int16_t *last_id, uint8_t *type, int16_t *id)
{
    uint8_t h;
    PM_TRY(pm_cursor_u8(&r->cur, &h, "thrift field header"));
    uint8_t t = h & 0x0f;
    if (t == PQ_TT_STOP) {
        if (h != 0)
            return pm_error_new(PM_ECORRUPT, "thrift STOP byte with field delta (0x%02x)", h);
        *type = PQ_TT_STOP;
        *id = 0;
        return NULL;
    }
    if (!valid_elem_type(t))
        return pm_error_new(PM_ECORRUPT, "thrift field has invalid type %u", t);
    uint8_t delta = h >> 4;
    int16_t fid;
    if (delta) {
        int32_t v = (int32_t)*last_id + delta;
        if (v > INT16_MAX)
            return pm_error_new(PM_ECORRUPT, "thrift field id overflows i16");
        fid = (int16_t)v;
    } else {
        PM_TRY(pq_thrift_i16(r, &fid));
    }
    *last_id = fid;
    *type = t;
    *id = fid;
    return NULL;
}

pm_error *pq_thrift_int_any_full(pq_thrift_reader *r, uint8_t type, int64_t *out, const char *what)
{
    switch (type) {
    case PQ_TT_I8: {
        int8_t v;
        PM_TRY(pq_thrift_i8(r, &v));
        *out = v;
        return NULL;
    }
    case PQ_TT_I16:
    case PQ_TT_I32:
    case PQ_TT_I64:
        return pm_cursor_svarint(&r->cur, out, what);
    default:
        return pm_error_new(PM_ECORRUPT, "thrift field %s has type %u, expected an integer", what, type);
    }
}

pm_error *pq_thrift_field_bool(uint8_t type, bool *out, const char *what)
{
    if (type != PQ_TT_BOOL_TRUE && type != PQ_TT_BOOL_FALSE)
        return pm_error_new(PM_ECORRUPT, "thrift field %s has type %u, expected a bool", what, type);
    *out = type == PQ_TT_BOOL_TRUE;
    return NULL;
}

pm_error *pq_thrift_expect(uint8_t got, uint8_t want, const char *what)
{
    /* A bool field carries its value in the type nibble. */
    if (want == PQ_TT_BOOL_TRUE && got == PQ_TT_BOOL_FALSE)
        return NULL;
    if (got != want)
        return pm_error_new(PM_ECORRUPT, "thrift field %s has type %u, expected %u", what, got, want);
    return NULL;
}

static pm_error *skip_struct(pq_thrift_reader *r);

static pm_error *skip_value(pq_thrift_reader *r, uint8_t type, bool in_container)
{
    switch (type) {
    case PQ_TT_BOOL_TRUE:
    case PQ_TT_BOOL_FALSE:
        /* In a field the value is the type; in a container it is one byte. */
        if (in_container) {
            bool b;
            return pq_thrift_bool_elem(r, &b);
        }
        return NULL;
    case PQ_TT_I8:
        return pm_cursor_skip(&r->cur, 1, "thrift i8");
    case PQ_TT_I16:
    case PQ_TT_I32:
    case PQ_TT_I64: {
        uint64_t v;
        return pm_cursor_uvarint(&r->cur, &v, "thrift integer");
    }
    case PQ_TT_DOUBLE:
        return pm_cursor_skip(&r->cur, 8, "thrift double");
    case PQ_TT_UUID:
        return pm_cursor_skip(&r->cur, 16, "thrift uuid");
    case PQ_TT_BINARY: {
        const uint8_t *p = NULL;
        uint32_t n;
        return pq_thrift_binary(r, &p, &n);
    }
    case PQ_TT_LIST:
    case PQ_TT_SET: {
        uint8_t et;
        uint32_t n;
        PM_TRY(pq_thrift_list(r, &et, &n));
        PM_TRY(pq_thrift_struct_enter(r));
        for (uint32_t i = 0; i < n; i++)
            PM_TRY(skip_value(r, et, true));
        pq_thrift_struct_leave(r);
        return NULL;
    }
    case PQ_TT_MAP: {
        uint8_t kt, vt;
        uint32_t n;
        PM_TRY(pq_thrift_map(r, &kt, &vt, &n));
        PM_TRY(pq_thrift_struct_enter(r));
        for (uint32_t i = 0; i < n; i++) {
            PM_TRY(skip_value(r, kt, true));
            PM_TRY(skip_value(r, vt, true));
        }
        pq_thrift_struct_leave(r);
        return NULL;
    }
    case PQ_TT_STRUCT:
        return skip_struct(r);
    default:
        return pm_error_new(PM_ECORRUPT, "thrift value has invalid type %u", type);
    }
}

static pm_error *skip_struct(pq_thrift_reader *r)
{
    PM_TRY(pq_thrift_struct_enter(r));
    int16_t last = 0;
    for (;;) {
        uint8_t t;
        int16_t id;
        PM_TRY(pq_thrift_field(r, &last, &t, &id));
        if (t == PQ_TT_STOP)
            break;
        PM_TRY(skip_value(r, t, false));
    }
    pq_thrift_struct_leave(r);
    return NULL;
}

pm_error *pq_thrift_skip(pq_thrift_reader *r, uint8_t type)
{
    return skip_value(r, type, false);
}

/* ---- writer ---- */

static pm_error *w_uvarint(pq_thrift_writer *w, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    while (v >= 0x80) {
        tmp[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    tmp[n++] = (uint8_t)v;
    return pm_buf_append(w->out, tmp, n);
}

pm_error *pq_thrift_w_struct_begin(pq_thrift_writer *w)
{
    if (w->depth >= PQ_THRIFT_MAX_DEPTH)
        return pm_error_new(PM_EINTERNAL, "thrift writer nesting deeper than %d levels", PQ_THRIFT_MAX_DEPTH);
    w->last_id[++w->depth] = 0;
    return NULL;
}

pm_error *pq_thrift_w_struct_end(pq_thrift_writer *w)
{
    if (w->depth <= 0)
        return pm_error_new(PM_EINTERNAL, "thrift writer: struct end without begin");
    w->depth--;
    return pm_buf_append_byte(w->out, PQ_TT_STOP);
}

pm_error *pq_thrift_w_field(pq_thrift_writer *w, int16_t id, uint8_t type)
{
    int16_t *last = &w->last_id[w->depth];
    int32_t delta = (int32_t)id - *last;
    *last = id;
    if (delta > 0 && delta <= 15)
        return pm_buf_append_byte(w->out, (uint8_t)(delta << 4 | type));
    PM_TRY(pm_buf_append_byte(w->out, type));
    return w_uvarint(w, pm_zigzag_encode(id));
}

pm_error *pq_thrift_w_field_bool(pq_thrift_writer *w, int16_t id, bool v)
{
    return pq_thrift_w_field(w, id, v ? PQ_TT_BOOL_TRUE : PQ_TT_BOOL_FALSE);
}

pm_error *pq_thrift_w_field_i32(pq_thrift_writer *w, int16_t id, int32_t v)
{
    PM_TRY(pq_thrift_w_field(w, id, PQ_TT_I32));
    return pq_thrift_w_i32(w, v);
}

pm_error *pq_thrift_w_field_i64(pq_thrift_writer *w, int16_t id, int64_t v)
{
    PM_TRY(pq_thrift_w_field(w, id, PQ_TT_I64));
    return pq_thrift_w_i64(w, v);
}

pm_error *pq_thrift_w_field_binary(pq_thrift_writer *w, int16_t id, const void *p, size_t n)
{
    PM_TRY(pq_thrift_w_field(w, id, PQ_TT_BINARY));
    return pq_thrift_w_binary(w, p, n);
}

pm_error *pq_thrift_w_field_string(pq_thrift_writer *w, int16_t id, const char *s)
{
    return pq_thrift_w_field_binary(w, id, s, strlen(s));
}

pm_error *pq_thrift_w_i8(pq_thrift_writer *w, int8_t v)
{
    return pm_buf_append_byte(w->out, (uint8_t)v);
}

pm_error *pq_thrift_w_i16(pq_thrift_writer *w, int16_t v)
{
    return w_uvarint(w, pm_zigzag_encode(v));
}

pm_error *pq_thrift_w_i32(pq_thrift_writer *w, int32_t v)
{
    return w_uvarint(w, pm_zigzag_encode(v));
}

pm_error *pq_thrift_w_i64(pq_thrift_writer *w, int64_t v)
{
    return w_uvarint(w, pm_zigzag_encode(v));
}

pm_error *pq_thrift_w_double(pq_thrift_writer *w, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return pm_buf_append_u64le(w->out, bits);
}

pm_error *pq_thrift_w_binary(pq_thrift_writer *w, const void *p, size_t n)
{
    PM_TRY(w_uvarint(w, n));
    return pm_buf_append(w->out, p, n);
}

pm_error *pq_thrift_w_bool_elem(pq_thrift_writer *w, bool v)
{
    return pm_buf_append_byte(w->out, v ? 1 : 2);
}

pm_error *pq_thrift_w_list(pq_thrift_writer *w, uint8_t elem_type, uint32_t count)
{
    if (count < 15)
        return pm_buf_append_byte(w->out, (uint8_t)(count << 4 | elem_type));
    PM_TRY(pm_buf_append_byte(w->out, (uint8_t)(0xf0 | elem_type)));
    return w_uvarint(w, count);
}

pm_error *pq_thrift_w_map(pq_thrift_writer *w, uint8_t key_type, uint8_t value_type, uint32_t count)
{
    PM_TRY(w_uvarint(w, count));
    if (count == 0)
        return NULL;
    return pm_buf_append_byte(w->out, (uint8_t)(key_type << 4 | value_type));
}
