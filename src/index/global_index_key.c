/*
 * index/global_index_key.c — KeySerializer of the btree and dictionary
 * bitmap global indexes (the byte forms in global_index_key.h).
 */
#include "index/global_index_key.h"

#include <math.h>
#include <string.h>

#include "base/cursor.h"

bool pm_gi_key_kind(const pm_type *t, fv_kind *k)
{
    if (t->id == PM_TYPE_BINARY || t->id == PM_TYPE_VARBINARY)
        return false;
    if (t->id == PM_TYPE_DECIMAL && t->precision > 18)
        return false;
    if ((t->id == PM_TYPE_TIMESTAMP || t->id == PM_TYPE_TIMESTAMP_LTZ) && t->precision > 3)
        return false;
    return fi_value_kind(t, k);
}

pm_error *pm_gi_key_put(pm_buf *out, fv_kind k, const fi_val *v)
{
    switch (k) {
    case FV_BYTES: return pm_buf_append(out, v->p, v->n);
    case FV_BOOL: return pm_buf_append_byte(out, v->b ? 1 : 0);
    case FV_I8: return pm_buf_append_byte(out, (uint8_t)v->i);
    case FV_I16: {
        uint8_t b[2];
        pm_store_u16le(b, (uint16_t)v->i);
        return pm_buf_append(out, b, 2);
    }
    case FV_I32: return pm_buf_append_u32le(out, (uint32_t)v->i);
    case FV_I64: return pm_buf_append_u64le(out, (uint64_t)v->i);
    case FV_F32: {
        uint32_t u;
        if (isnan(v->f))
            u = 0x7fc00000u; /* floatToIntBits: one NaN */
        else
            memcpy(&u, &v->f, 4);
        return pm_buf_append_u32le(out, u);
    }
    case FV_F64: {
        uint64_t u;
        if (isnan(v->d))
            u = UINT64_C(0x7ff8000000000000);
        else
            memcpy(&u, &v->d, 8);
        return pm_buf_append_u64le(out, u);
    }
    }
    return pm_error_new(PM_EINTERNAL, "btree key kind");
}

/* A serialized key back to a value (bytes borrowed). */
pm_error *pm_gi_key_read(fv_kind k, const uint8_t *p, size_t n, fi_val *v, const char *what)
{
    static const size_t width[] = {[FV_BOOL] = 1, [FV_I8] = 1, [FV_I16] = 2, [FV_I32] = 4,
                                   [FV_I64] = 8,  [FV_F32] = 4, [FV_F64] = 8};
    memset(v, 0, sizeof *v);
    if (k == FV_BYTES) {
        v->p = p;
        v->n = n;
        return NULL;
    }
    if (n != width[k])
        return pm_error_new(PM_ECORRUPT, "%s: btree key of %zu bytes, expected %zu", what, n, width[k]);
    switch (k) {
    case FV_BOOL: v->b = p[0] == 1; break;
    case FV_I8: v->i = (int8_t)p[0]; break;
    case FV_I16: v->i = (int16_t)pm_load_u16le(p); break;
    case FV_I32: v->i = (int32_t)pm_load_u32le(p); break;
    case FV_I64: v->i = (int64_t)pm_load_u64le(p); break;
    case FV_F32: {
        uint32_t u = pm_load_u32le(p);
        memcpy(&v->f, &u, 4);
        break;
    }
    case FV_F64: {
        uint64_t u = pm_load_u64le(p);
        memcpy(&v->d, &u, 8);
        break;
    }
    default: break;
    }
    return NULL;
}
