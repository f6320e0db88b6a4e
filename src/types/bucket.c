/*
 * types/bucket.c — bucket functions (see bucket.h for the rules).
 */
#include "types/bucket.h"

#include <strings.h>

pm_error *pm_bucket_fn_parse(const char *s, pm_bucket_fn *out)
{
    if (!strcasecmp(s, "default"))
        *out = PM_BUCKET_FN_DEFAULT;
    else if (!strcasecmp(s, "mod"))
        *out = PM_BUCKET_FN_MOD;
    else if (!strcasecmp(s, "hive"))
        *out = PM_BUCKET_FN_HIVE;
    else
        return pm_error_new(PM_EINVALID, "bucket-function.type '%s' is not one of default, mod, hive", s);
    return NULL;
}

int32_t pm_hive_hash_bytes(const uint8_t *p, size_t n)
{
    uint32_t r = 0;
    for (size_t i = 0; i < n; i++)
        r = r * 31u + (uint32_t)(int32_t)(int8_t)p[i];
    return (int32_t)r;
}

static int32_t long_hash(uint64_t v) { return (int32_t)(uint32_t)(v ^ (v >> 32)); }

int32_t pm_hive_hash_decimal(__int128 unscaled, int32_t scale)
{
    /* normalize: strip trailing zeros while scale > 0; zero is 0 at scale 0 */
    if (unscaled == 0)
        return 0;
    while (scale > 0 && unscaled % 10 == 0) {
        unscaled /= 10;
        scale--;
    }
    int signum = unscaled < 0 ? -1 : 1;
    unsigned __int128 mag = unscaled < 0 ? (unsigned __int128)0 - (unsigned __int128)unscaled
                                         : (unsigned __int128)unscaled;
    uint32_t words[4];
    int nw = 0;
    for (int k = 3; k >= 0; k--) {
        uint32_t w = (uint32_t)(mag >> (32 * k));
        if (nw || w)
            words[nw++] = w;
    }
    uint32_t h = 0;
    for (int k = 0; k < nw; k++)
        h = 31u * h + words[k];
    h = (uint32_t)signum * h;
    return (int32_t)(31u * h + (uint32_t)scale);
}

pm_error *pm_hive_hash_value(const pm_column *c, int64_t row, int32_t *out)
{
    const pm_type *t = c->type;
    if (pm_column_is_null(c, row)) {
        *out = 0;
        return NULL;
    }
    switch (t->id) {
    case PM_TYPE_BOOLEAN: *out = pm_column_bool(c, row) ? 1 : 0; return NULL;
    case PM_TYPE_TINYINT: *out = pm_column_i8(c, row); return NULL;
    case PM_TYPE_SMALLINT: *out = pm_column_i16(c, row); return NULL;
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME: *out = pm_column_i32(c, row); return NULL;
    case PM_TYPE_BIGINT: *out = long_hash((uint64_t)pm_column_i64(c, row)); return NULL;
    case PM_TYPE_FLOAT: {
        float f = pm_column_f32(c, row);
        uint32_t u;
        if (f == 0.0f)
            u = 0;
        else if (f != f)
            u = 0x7fc00000u; /* floatToIntBits canonical NaN */
        else
            memcpy(&u, &f, 4);
        *out = (int32_t)u;
        return NULL;
    }
    case PM_TYPE_DOUBLE: {
        double d = pm_column_f64(c, row);
        uint64_t u;
        if (d == 0.0)
            u = 0;
        else if (d != d)
            u = 0x7ff8000000000000ull;
        else
            memcpy(&u, &d, 8);
        *out = long_hash(u);
        return NULL;
    }
    case PM_TYPE_DECIMAL: *out = pm_hive_hash_decimal(pm_column_decimal(c, row), t->scale); return NULL;
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_BLOB: {
        size_t n;
        const uint8_t *p = pm_column_bytes(c, row, &n);
        *out = pm_hive_hash_bytes(p, n);
        return NULL;
    }
    default:
        return pm_error_new(PM_EUNSUPPORTED, "%s as a hive bucket key", pm_type_id_name(t->id));
    }
}

pm_error *pm_bucket_of_row(pm_bucket_fn fn, int32_t nbuckets, pm_binrow_writer *scratch, pm_column *const *cols,
                           const size_t *fields, size_t n, int64_t row, int32_t *out)
{
    if (nbuckets <= 0)
        return pm_error_new(PM_EINVALID, "bucket count %d must be positive", (int)nbuckets);
    switch (fn) {
    case PM_BUCKET_FN_DEFAULT:
        PM_TRY(pm_binrow_from_columns(scratch, cols, fields, n, row));
        *out = pm_bucket_default(pm_binrow_hash(scratch), nbuckets);
        return NULL;
    case PM_BUCKET_FN_MOD: {
        const pm_column *c = n == 1 ? cols[fields ? fields[0] : 0] : NULL;
        if (!c || (c->type->id != PM_TYPE_INT && c->type->id != PM_TYPE_BIGINT))
            return pm_error_new(PM_EINVALID, "bucket-function.type mod needs exactly one INT or BIGINT bucket key");
        int64_t v = pm_column_is_null(c, row) ? 0
                    : c->type->id == PM_TYPE_INT ? pm_column_i32(c, row)
                                                 : pm_column_i64(c, row);
        *out = pm_bucket_mod(v, nbuckets);
        return NULL;
    }
    case PM_BUCKET_FN_HIVE: {
        uint32_t h = 0;
        for (size_t k = 0; k < n; k++) {
            int32_t fh;
            PM_TRY(pm_hive_hash_value(cols[fields ? fields[k] : k], row, &fh));
            h = 31u * h + (uint32_t)fh;
        }
        *out = (int32_t)((h & 0x7fffffffu) % (uint32_t)nbuckets);
        return NULL;
    }
    }
    return pm_error_new(PM_EINVALID, "unknown bucket function %d", (int)fn);
}
