/*
 * format/orc/orc_pb.c — protobuf wire reader and writer (see orc_pb.h).
 */
#include "format/orc/orc_pb.h"

#include <string.h>

static const char *wire_name(uint8_t w)
{
    switch (w) {
    case ORC_PB_VARINT: return "varint";
    case ORC_PB_I64: return "fixed64";
    case ORC_PB_LEN: return "length-delimited";
    case ORC_PB_I32: return "fixed32";
    default: return "group";
    }
}

pm_error *orc_pb_next(pm_cursor *c, orc_pb_field *f, bool *more, const char *msg)
{
    *more = false;
    if (pm_cursor_left(c) == 0)
        return NULL;
    uint64_t key;
    PM_TRY(pm_cursor_uvarint(c, &key, msg));
    uint64_t num = key >> 3;
    if (num == 0 || num > 536870911u)
        return pm_error_new(PM_ECORRUPT, "%s: invalid field number %llu", msg, (unsigned long long)num);
    f->num = (uint32_t)num;
    f->wire = (uint8_t)(key & 7);
    f->v = 0;
    f->p = NULL;
    f->len = 0;
    switch (f->wire) {
    case ORC_PB_VARINT:
        PM_TRY(pm_cursor_uvarint(c, &f->v, msg));
        break;
    case ORC_PB_I64:
        PM_TRY(pm_cursor_u64le(c, &f->v, msg));
        break;
    case ORC_PB_I32: {
        uint32_t v;
        PM_TRY(pm_cursor_u32le(c, &v, msg));
        f->v = v;
        break;
    }
    case ORC_PB_LEN: {
        uint64_t n;
        PM_TRY(pm_cursor_uvarint(c, &n, msg));
        if (n > pm_cursor_left(c))
            return pm_error_new(PM_ECORRUPT, "%s: field %u declares %llu bytes, %zu left", msg, f->num,
                                (unsigned long long)n, pm_cursor_left(c));
        f->len = (size_t)n;
        PM_TRY(pm_cursor_take(c, f->len, &f->p, msg));
        break;
    }
    default:
        return pm_error_new(PM_ECORRUPT, "%s: field %u has unsupported wire type %u", msg, f->num, f->wire);
    }
    *more = true;
    return NULL;
}

static pm_error *want(const orc_pb_field *f, uint8_t wire, const char *what)
{
    if (f->wire == wire)
        return NULL;
    return pm_error_new(PM_ECORRUPT, "%s: field %u is %s, expected %s", what, f->num, wire_name(f->wire),
                        wire_name(wire));
}

pm_error *orc_pb_u64(const orc_pb_field *f, uint64_t *out, const char *what)
{
    PM_TRY(want(f, ORC_PB_VARINT, what));
    *out = f->v;
    return NULL;
}

pm_error *orc_pb_u32(const orc_pb_field *f, uint32_t *out, const char *what)
{
    PM_TRY(want(f, ORC_PB_VARINT, what));
    if (f->v > UINT32_MAX)
        return pm_error_new(PM_ECORRUPT, "%s: value %llu does not fit 32 bits", what, (unsigned long long)f->v);
    *out = (uint32_t)f->v;
    return NULL;
}

pm_error *orc_pb_s64(const orc_pb_field *f, int64_t *out, const char *what)
{
    PM_TRY(want(f, ORC_PB_VARINT, what));
    *out = pm_zigzag_decode(f->v);
    return NULL;
}

pm_error *orc_pb_s32(const orc_pb_field *f, int32_t *out, const char *what)
{
    int64_t v;
    PM_TRY(orc_pb_s64(f, &v, what));
    if (v < INT32_MIN || v > INT32_MAX)
        return pm_error_new(PM_ECORRUPT, "%s: value %lld does not fit 32 bits", what, (long long)v);
    *out = (int32_t)v;
    return NULL;
}

pm_error *orc_pb_i32(const orc_pb_field *f, int32_t *out, const char *what)
{
    PM_TRY(want(f, ORC_PB_VARINT, what));
    /* int32 is sign-extended to 64 bits on the wire; Java truncates. */
    *out = (int32_t)(uint32_t)f->v;
    return NULL;
}

pm_error *orc_pb_bool(const orc_pb_field *f, bool *out, const char *what)
{
    PM_TRY(want(f, ORC_PB_VARINT, what));
    *out = f->v != 0;
    return NULL;
}

pm_error *orc_pb_double(const orc_pb_field *f, double *out, const char *what)
{
    PM_TRY(want(f, ORC_PB_I64, what));
    memcpy(out, &f->v, 8);
    return NULL;
}

pm_error *orc_pb_bytes(const orc_pb_field *f, const uint8_t **p, size_t *len, const char *what)
{
    PM_TRY(want(f, ORC_PB_LEN, what));
    *p = f->p;
    *len = f->len;
    return NULL;
}

pm_error *orc_pb_repeated_count(const orc_pb_field *f, size_t *count, const char *what)
{
    if (f->wire == ORC_PB_VARINT) {
        *count = 1;
        return NULL;
    }
    PM_TRY(want(f, ORC_PB_LEN, what));
    size_t n = 0;
    for (size_t i = 0; i < f->len; i++)
        if (!(f->p[i] & 0x80))
            n++;
    if (f->len && (f->p[f->len - 1] & 0x80))
        return pm_error_new(PM_ECORRUPT, "%s: packed field %u ends inside a varint", what, f->num);
    *count = n;
    return NULL;
}

pm_error *orc_pb_repeated_u64(const orc_pb_field *f, uint64_t *out, size_t count, const char *what)
{
    if (f->wire == ORC_PB_VARINT) {
        if (count != 1)
            return pm_error_new(PM_EINTERNAL, "%s: unpacked field holds one value", what);
        out[0] = f->v;
        return NULL;
    }
    pm_cursor c = pm_cursor_make(f->p, f->len);
    for (size_t i = 0; i < count; i++)
        PM_TRY(pm_cursor_uvarint(&c, &out[i], what));
    if (pm_cursor_left(&c))
        return pm_error_new(PM_ECORRUPT, "%s: %zu stray bytes after packed field %u", what, pm_cursor_left(&c),
                            f->num);
    return NULL;
}

/* ---- writer ---- */

pm_error *orc_pb_put_uvarint(pm_buf *b, uint64_t v)
{
    uint8_t tmp[10];
    return pm_buf_append(b, tmp, orc_uvarint_encode(tmp, v));
}

static pm_error *put_key(pm_buf *b, uint32_t num, uint8_t wire)
{
    return orc_pb_put_uvarint(b, (uint64_t)num << 3 | wire);
}

pm_error *orc_pb_put_u64(pm_buf *b, uint32_t num, uint64_t v)
{
    PM_TRY(put_key(b, num, ORC_PB_VARINT));
    return orc_pb_put_uvarint(b, v);
}

pm_error *orc_pb_put_s64(pm_buf *b, uint32_t num, int64_t v)
{
    return orc_pb_put_u64(b, num, pm_zigzag_encode(v));
}

pm_error *orc_pb_put_i64(pm_buf *b, uint32_t num, int64_t v)
{
    return orc_pb_put_u64(b, num, (uint64_t)v);
}

pm_error *orc_pb_put_double(pm_buf *b, uint32_t num, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    PM_TRY(put_key(b, num, ORC_PB_I64));
    uint8_t tmp[8];
    pm_store_u64le(tmp, bits);
    return pm_buf_append(b, tmp, 8);
}

pm_error *orc_pb_put_bytes(pm_buf *b, uint32_t num, const void *p, size_t n)
{
    PM_TRY(put_key(b, num, ORC_PB_LEN));
    PM_TRY(orc_pb_put_uvarint(b, n));
    return pm_buf_append(b, p, n);
}

pm_error *orc_pb_put_str(pm_buf *b, uint32_t num, const char *s)
{
    if (!s)
        s = "";
    return orc_pb_put_bytes(b, num, s, strlen(s));
}

static size_t uvarint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

pm_error *orc_pb_put_packed(pm_buf *b, uint32_t num, const uint64_t *v, size_t n)
{
    if (n == 0)
        return NULL;
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += uvarint_len(v[i]);
    PM_TRY(put_key(b, num, ORC_PB_LEN));
    PM_TRY(orc_pb_put_uvarint(b, len));
    PM_TRY(pm_buf_reserve(b, len));
    for (size_t i = 0; i < n; i++)
        PM_TRY(orc_pb_put_uvarint(b, v[i]));
    return NULL;
}
