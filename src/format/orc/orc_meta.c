/*
 * format/orc/orc_meta.c — parsers and serializers of ORC's metadata
 * messages (see orc_meta.h).
 *
 * Parsing a message with repeated fields takes two passes over its bytes:
 * the first counts each repeated field's occurrences (packed fields count
 * their varints), the arrays are then allocated from the arena, and the
 * second pass fills them.  Every count is bounded by the message's length,
 * so a hostile length cannot make us allocate more than a constant times
 * the input.
 */
#include "format/orc/orc_meta.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "format/orc/orc_pb.h"

const char *orc_kind_name(uint32_t kind)
{
    static const char *const names[] = {"boolean", "tinyint", "smallint", "int",    "bigint",
                                        "float",   "double",  "string",   "binary", "timestamp",
                                        "array",   "map",     "struct",   "uniontype", "decimal",
                                        "date",    "varchar", "char",     "timestamp with local time zone"};
    return kind < sizeof names / sizeof *names ? names[kind] : "unknown";
}

const char *orc_stream_kind_name(uint32_t kind)
{
    static const char *const names[] = {"PRESENT",         "DATA",         "LENGTH",      "DICTIONARY_DATA",
                                        "DICTIONARY_COUNT", "SECONDARY",    "ROW_INDEX",   "BLOOM_FILTER",
                                        "BLOOM_FILTER_UTF8", "ENCRYPTED_INDEX", "ENCRYPTED_DATA"};
    return kind < sizeof names / sizeof *names ? names[kind] : "unknown";
}

const char *orc_compression_name(uint32_t kind)
{
    static const char *const names[] = {"NONE", "ZLIB", "SNAPPY", "LZO", "LZ4", "ZSTD"};
    return kind < sizeof names / sizeof *names ? names[kind] : "unknown";
}

/* ------------------------------------------------------------------ */
/* Parsing helpers                                                     */

#define FOR_FIELDS(cur, f, msg)                                                     \
    for (bool more_ = true; more_;)                                                 \
        if ((e = orc_pb_next(&(cur), &(f), &more_, (msg))) != NULL) {               \
            return e;                                                               \
        } else if (!more_) {                                                        \
            break;                                                                  \
        } else

static void *arena_array(pm_arena *a, size_t n, size_t size)
{
    if (n == 0)
        return NULL;
    if (n > SIZE_MAX / size)
        return NULL;
    return pm_arena_calloc(a, n * size, 16);
}

static pm_error *oom_if_null(const void *p, size_t n)
{
    return (n && !p) ? pm_oom() : NULL;
}

static pm_error *copy_str(pm_arena *a, const orc_pb_field *f, pm_orc_str *out, const char *what)
{
    const uint8_t *p;
    size_t n;
    PM_TRY(orc_pb_bytes(f, &p, &n, what));
    char *s = pm_arena_strndup(a, (const char *)p, n);
    if (!s)
        return pm_oom();
    out->data = s;
    out->len = n;
    return NULL;
}

static pm_error *copy_cstr(pm_arena *a, const orc_pb_field *f, const char **out, const char *what)
{
    pm_orc_str s = {NULL, 0};
    PM_TRY(copy_str(a, f, &s, what));
    *out = s.data;
    return NULL;
}

/* Occurrences of field `num` (packed varints count each value when packed). */
static pm_error *count_field(const uint8_t *p, size_t n, uint32_t num, bool packed, size_t *count,
                             const char *msg)
{
    pm_error *e;
    pm_cursor c = pm_cursor_make(p, n);
    orc_pb_field f;
    size_t total = 0;
    FOR_FIELDS(c, f, msg)
    {
        if (f.num != num)
            continue;
        size_t k = 1;
        if (packed)
            PM_TRY(orc_pb_repeated_count(&f, &k, msg));
        total += k;
    }
    *count = total;
    return NULL;
}

/* Fill a packed uint64 array occurrence by occurrence. */
static pm_error *append_packed(const orc_pb_field *f, uint64_t *arr, size_t cap, size_t *at, const char *msg)
{
    size_t k;
    PM_TRY(orc_pb_repeated_count(f, &k, msg));
    if (k == 0)
        return NULL;
    if (k > cap - *at)
        return pm_error_new(PM_EINTERNAL, "%s: packed count changed between passes", msg);
    PM_TRY(orc_pb_repeated_u64(f, arr + *at, k, msg));
    *at += k;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* ColumnStatistics                                                    */

static pm_error *parse_int_stats(const uint8_t *p, size_t n, pm_orc_stats *s)
{
    pm_error *e;
    const char *msg = "IntegerStatistics";
    pm_cursor c = pm_cursor_make(p, n);
    orc_pb_field f;
    s->ints.present = true;
    FOR_FIELDS(c, f, msg)
    {
        switch (f.num) {
        case 1: PM_TRY(orc_pb_s64(&f, &s->ints.min, msg)); s->ints.has_min = true; break;
        case 2: PM_TRY(orc_pb_s64(&f, &s->ints.max, msg)); s->ints.has_max = true; break;
        case 3: PM_TRY(orc_pb_s64(&f, &s->ints.sum, msg)); s->ints.has_sum = true; break;
        default: break;
        }
    }
    return NULL;
}

static pm_error *parse_double_stats(const uint8_t *p, size_t n, pm_orc_stats *s)
{
    pm_error *e;
    const char *msg = "DoubleStatistics";
    pm_cursor c = pm_cursor_make(p, n);
    orc_pb_field f;
    s->dbl.present = true;
    FOR_FIELDS(c, f, msg)
    {
        switch (f.num) {
        case 1: PM_TRY(orc_pb_double(&f, &s->dbl.min, msg)); s->dbl.has_min = true; break;
        case 2: PM_TRY(orc_pb_double(&f, &s->dbl.max, msg)); s->dbl.has_max = true; break;
        case 3: PM_TRY(orc_pb_double(&f, &s->dbl.sum, msg)); s->dbl.has_sum = true; break;
        default: break;
        }
    }
    return NULL;
}

static pm_error *parse_string_stats(pm_arena *a, const uint8_t *p, size_t n, pm_orc_stats *s)
{
    pm_error *e;
    const char *msg = "StringStatistics";
    pm_cursor c = pm_cursor_make(p, n);
    orc_pb_field f;
    s->str.present = true;
    FOR_FIELDS(c, f, msg)
    {
        switch (f.num) {
        case 1: PM_TRY(copy_str(a, &f, &s->str.min, msg)); s->str.has_min = true; break;
        case 2: PM_TRY(copy_str(a, &f, &s->str.max, msg)); s->str.has_max = true; break;
        case 3: PM_TRY(orc_pb_s64(&f, &s->str.sum, msg)); s->str.has_sum = true; break;
        case 4: PM_TRY(copy_str(a, &f, &s->str.lower, msg)); s->str.has_lower = true; break;
        case 5: PM_TRY(copy_str(a, &f, &s->str.upper, msg)); s->str.has_upper = true; break;
        default: break;
        }
    }
    return NULL;
}

static pm_error *parse_bucket_stats(pm_arena *a, const uint8_t *p, size_t n, pm_orc_stats *s)
{
    pm_error *e;
    const char *msg = "BucketStatistics";
    size_t k;
    PM_TRY(count_field(p, n, 1, true, &k, msg));
    s->bucket.present = true;
    s->bucket.count = arena_array(a, k, sizeof(uint64_t));
    PM_TRY(oom_if_null(s->bucket.count, k));
    size_t at = 0;
    pm_cursor c = pm_cursor_make(p, n);
    orc_pb_field f;
    FOR_FIELDS(c, f, msg)
    {
        if (f.num == 1)
            PM_TRY(append_packed(&f, s->bucket.count, k, &at, msg));
    }
    s->bucket.ncount = at;
    return NULL;
}

static pm_error *parse_decimal_stats(pm_arena *a, const uint8_t *p, size_t n, pm_orc_stats *s)
{
    pm_error *e;
    const char *msg = "DecimalStatistics";
    pm_cursor c = pm_cursor_make(p, n);
    orc_pb_field f;
    s->dec.present = true;
    FOR_FIELDS(c, f, msg)
    {
        switch (f.num) {
        case 1: PM_TRY(copy_str(a, &f, &s->dec.min, msg)); s->dec.has_min = true; break;
        case 2: PM_TRY(copy_str(a, &f, &s->dec.max, msg)); s->dec.has_max = true; break;
        case 3: PM_TRY(copy_str(a, &f, &s->dec.sum, msg)); s->dec.has_sum = true; break;
        default: break;
        }
    }
    return NULL;
}

static pm_error *parse_date_stats(const uint8_t *p, size_t n, pm_orc_stats *s)
{
    pm_error *e;
    const char *msg = "DateStatistics";
    pm_cursor c = pm_cursor_make(p, n);
    orc_pb_field f;
    s->date.present = true;
    FOR_FIELDS(c, f, msg)
    {
        switch (f.num) {
        case 1: PM_TRY(orc_pb_s32(&f, &s->date.min, msg)); s->date.has_min = true; break;
        case 2: PM_TRY(orc_pb_s32(&f, &s->date.max, msg)); s->date.has_max = true; break;
        default: break;
        }
    }
    return NULL;
}

static pm_error *parse_binary_stats(const uint8_t *p, size_t n, pm_orc_stats *s)
{
    pm_error *e;
    const char *msg = "BinaryStatistics";
    pm_cursor c = pm_cursor_make(p, n);
    orc_pb_field f;
    s->bin.present = true;
    FOR_FIELDS(c, f, msg)
    {
        if (f.num == 1) {
            PM_TRY(orc_pb_s64(&f, &s->bin.sum, msg));
            s->bin.has_sum = true;
        }
    }
    return NULL;
}

static pm_error *parse_ts_stats(const uint8_t *p, size_t n, pm_orc_stats *s)
{
    pm_error *e;
    const char *msg = "TimestampStatistics";
    pm_cursor c = pm_cursor_make(p, n);
    orc_pb_field f;
    s->ts.present = true;
    FOR_FIELDS(c, f, msg)
    {
        switch (f.num) {
        case 1: PM_TRY(orc_pb_s64(&f, &s->ts.min, msg)); s->ts.has_min = true; break;
        case 2: PM_TRY(orc_pb_s64(&f, &s->ts.max, msg)); s->ts.has_max = true; break;
        case 3: PM_TRY(orc_pb_s64(&f, &s->ts.min_utc, msg)); s->ts.has_min_utc = true; break;
        case 4: PM_TRY(orc_pb_s64(&f, &s->ts.max_utc, msg)); s->ts.has_max_utc = true; break;
        case 5: PM_TRY(orc_pb_i32(&f, &s->ts.min_nanos, msg)); s->ts.has_min_nanos = true; break;
        case 6: PM_TRY(orc_pb_i32(&f, &s->ts.max_nanos, msg)); s->ts.has_max_nanos = true; break;
        default: break;
        }
    }
    return NULL;
}

static pm_error *parse_coll_stats(const uint8_t *p, size_t n, pm_orc_stats *s)
{
    pm_error *e;
    const char *msg = "CollectionStatistics";
    pm_cursor c = pm_cursor_make(p, n);
    orc_pb_field f;
    s->coll.present = true;
    FOR_FIELDS(c, f, msg)
    {
        switch (f.num) {
        case 1: PM_TRY(orc_pb_u64(&f, &s->coll.min, msg)); s->coll.has_min = true; break;
        case 2: PM_TRY(orc_pb_u64(&f, &s->coll.max, msg)); s->coll.has_max = true; break;
        case 3: PM_TRY(orc_pb_u64(&f, &s->coll.total, msg)); s->coll.has_total = true; break;
        default: break;
        }
    }
    return NULL;
}

pm_error *orc_parse_stats(pm_arena *a, const uint8_t *p, size_t n, pm_orc_stats *s)
{
    pm_error *e;
    const char *msg = "ColumnStatistics";
    memset(s, 0, sizeof *s);
    pm_cursor c = pm_cursor_make(p, n);
    orc_pb_field f;
    FOR_FIELDS(c, f, msg)
    {
        const uint8_t *q;
        size_t m;
        switch (f.num) {
        case 1: PM_TRY(orc_pb_u64(&f, &s->count, msg)); s->has_count = true; break;
        case 10: PM_TRY(orc_pb_bool(&f, &s->has_null, msg)); s->has_has_null = true; break;
        case 11: PM_TRY(orc_pb_u64(&f, &s->bytes_on_disk, msg)); s->has_bytes_on_disk = true; break;
        case 2: case 3: case 4: case 5: case 6: case 7: case 8: case 9: case 12:
            PM_TRY(orc_pb_bytes(&f, &q, &m, msg));
            switch (f.num) {
            case 2: PM_TRY(parse_int_stats(q, m, s)); break;
            case 3: PM_TRY(parse_double_stats(q, m, s)); break;
            case 4: PM_TRY(parse_string_stats(a, q, m, s)); break;
            case 5: PM_TRY(parse_bucket_stats(a, q, m, s)); break;
            case 6: PM_TRY(parse_decimal_stats(a, q, m, s)); break;
            case 7: PM_TRY(parse_date_stats(q, m, s)); break;
            case 8: PM_TRY(parse_binary_stats(q, m, s)); break;
            case 9: PM_TRY(parse_ts_stats(q, m, s)); break;
            default: PM_TRY(parse_coll_stats(q, m, s)); break;
            }
            break;
        default: break;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* PostScript                                                          */

pm_error *orc_parse_postscript(const uint8_t *p, size_t n, orc_postscript *ps)
{
    pm_error *e;
    const char *msg = "PostScript";
    memset(ps, 0, sizeof *ps);
    pm_cursor c = pm_cursor_make(p, n);
    orc_pb_field f;
    FOR_FIELDS(c, f, msg)
    {
        switch (f.num) {
        case 1: PM_TRY(orc_pb_u64(&f, &ps->footer_length, msg)); break;
        case 2: PM_TRY(orc_pb_u32(&f, &ps->compression, msg)); break;
        case 3: PM_TRY(orc_pb_u64(&f, &ps->block_size, msg)); ps->has_block_size = true; break;
        case 4: {
            size_t k;
            PM_TRY(orc_pb_repeated_count(&f, &k, msg));
            uint64_t v[64];
            if (k > 64)
                return pm_error_new(PM_ECORRUPT, "PostScript: %zu version numbers", k);
            PM_TRY(orc_pb_repeated_u64(&f, v, k, msg));
            for (size_t i = 0; i < k; i++) {
                if (ps->nversion < 2)
                    ps->version[ps->nversion] = v[i] > UINT32_MAX ? UINT32_MAX : (uint32_t)v[i];
                if (ps->nversion < UINT32_MAX)
                    ps->nversion++;
            }
            break;
        }
        case 5: PM_TRY(orc_pb_u64(&f, &ps->metadata_length, msg)); break;
        case 6: PM_TRY(orc_pb_u32(&f, &ps->writer_version, msg)); ps->has_writer_version = true; break;
        case 7: PM_TRY(orc_pb_u64(&f, &ps->stripe_stats_length, msg)); break;
        case 8000: {
            const uint8_t *q;
            size_t m;
            PM_TRY(orc_pb_bytes(&f, &q, &m, msg));
            ps->has_magic = true;
            ps->magic_ok = m == 3 && !memcmp(q, "ORC", 3);
            break;
        }
        default: break;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Footer                                                              */

static pm_error *parse_type(pm_arena *a, const uint8_t *p, size_t n, orc_type *t)
{
    pm_error *e;
    const char *msg = "Type";
    size_t nsub, nnames, nattrs;
    PM_TRY(count_field(p, n, 2, true, &nsub, msg));
    PM_TRY(count_field(p, n, 3, false, &nnames, msg));
    PM_TRY(count_field(p, n, 7, false, &nattrs, msg));
    if (nsub > UINT32_MAX || nnames > UINT32_MAX || nattrs > UINT32_MAX)
        return pm_error_new(PM_ECORRUPT, "Type: too many entries");
    uint64_t *sub = arena_array(a, nsub, sizeof(uint64_t));
    t->subtypes = arena_array(a, nsub, sizeof(uint32_t));
    t->names = arena_array(a, nnames, sizeof(char *));
    t->attrs = arena_array(a, nattrs, sizeof(orc_attr));
    PM_TRY(oom_if_null(sub, nsub));
    PM_TRY(oom_if_null(t->subtypes, nsub));
    PM_TRY(oom_if_null(t->names, nnames));
    PM_TRY(oom_if_null(t->attrs, nattrs));
    size_t at_sub = 0;
    bool has_kind = false;
    pm_cursor c = pm_cursor_make(p, n);
    orc_pb_field f;
    FOR_FIELDS(c, f, msg)
    {
        switch (f.num) {
        case 1: PM_TRY(orc_pb_u32(&f, &t->kind, msg)); has_kind = true; break;
        case 2: PM_TRY(append_packed(&f, sub, nsub, &at_sub, msg)); break;
        case 3: PM_TRY(copy_cstr(a, &f, &t->names[t->nnames++], msg)); break;
        case 4: PM_TRY(orc_pb_u32(&f, &t->max_length, msg)); t->has_max_length = true; break;
        case 5: PM_TRY(orc_pb_u32(&f, &t->precision, msg)); t->has_precision = true; break;
        case 6: PM_TRY(orc_pb_u32(&f, &t->scale, msg)); t->has_scale = true; break;
        case 7: {
            const uint8_t *q;
            size_t m;
            PM_TRY(orc_pb_bytes(&f, &q, &m, msg));
            orc_attr *at = &t->attrs[t->nattrs++];
            at->key = at->value = "";
            pm_cursor ac = pm_cursor_make(q, m);
            orc_pb_field g;
            FOR_FIELDS(ac, g, "StringPair")
            {
                if (g.num == 1)
                    PM_TRY(copy_cstr(a, &g, &at->key, "StringPair.key"));
                else if (g.num == 2)
                    PM_TRY(copy_cstr(a, &g, &at->value, "StringPair.value"));
            }
            break;
        }
        default: break;
        }
    }
    if (!has_kind)
        return pm_error_new(PM_ECORRUPT, "Type without a kind");
    for (size_t i = 0; i < at_sub; i++) {
        if (sub[i] > UINT32_MAX)
            return pm_error_new(PM_ECORRUPT, "Type: subtype id %llu out of range", (unsigned long long)sub[i]);
        t->subtypes[i] = (uint32_t)sub[i];
    }
    t->nsub = (uint32_t)at_sub;
    return NULL;
}

static pm_error *parse_stripe_info(const uint8_t *p, size_t n, orc_stripe_info *s)
{
    pm_error *e;
    const char *msg = "StripeInformation";
    pm_cursor c = pm_cursor_make(p, n);
    orc_pb_field f;
    FOR_FIELDS(c, f, msg)
    {
        switch (f.num) {
        case 1: PM_TRY(orc_pb_u64(&f, &s->offset, msg)); break;
        case 2: PM_TRY(orc_pb_u64(&f, &s->index_length, msg)); break;
        case 3: PM_TRY(orc_pb_u64(&f, &s->data_length, msg)); break;
        case 4: PM_TRY(orc_pb_u64(&f, &s->footer_length, msg)); break;
        case 5: PM_TRY(orc_pb_u64(&f, &s->rows, msg)); break;
        case 6: s->has_encrypt_id = true; break;
        default: break;
        }
    }
    return NULL;
}

pm_error *orc_parse_footer(pm_arena *a, const uint8_t *p, size_t n, orc_footer *ft)
{
    pm_error *e;
    const char *msg = "Footer";
    memset(ft, 0, sizeof *ft);
    size_t nstripes, ntypes, nmeta, nstats;
    PM_TRY(count_field(p, n, 3, false, &nstripes, msg));
    PM_TRY(count_field(p, n, 4, false, &ntypes, msg));
    PM_TRY(count_field(p, n, 5, false, &nmeta, msg));
    PM_TRY(count_field(p, n, 7, false, &nstats, msg));
    if (nstripes > UINT32_MAX || ntypes > UINT32_MAX || nmeta > UINT32_MAX || nstats > UINT32_MAX)
        return pm_error_new(PM_ECORRUPT, "Footer: too many entries");
    ft->stripes = arena_array(a, nstripes, sizeof *ft->stripes);
    ft->types = arena_array(a, ntypes, sizeof *ft->types);
    ft->meta = arena_array(a, nmeta, sizeof *ft->meta);
    ft->stats = arena_array(a, nstats, sizeof *ft->stats);
    PM_TRY(oom_if_null(ft->stripes, nstripes));
    PM_TRY(oom_if_null(ft->types, ntypes));
    PM_TRY(oom_if_null(ft->meta, nmeta));
    PM_TRY(oom_if_null(ft->stats, nstats));
    pm_cursor c = pm_cursor_make(p, n);
    orc_pb_field f;
    FOR_FIELDS(c, f, msg)
    {
        const uint8_t *q;
        size_t m;
        switch (f.num) {
        case 1: PM_TRY(orc_pb_u64(&f, &ft->header_length, msg)); break;
        case 2: PM_TRY(orc_pb_u64(&f, &ft->content_length, msg)); break;
        case 3:
            PM_TRY(orc_pb_bytes(&f, &q, &m, msg));
            PM_TRY(parse_stripe_info(q, m, &ft->stripes[ft->nstripes++]));
            break;
        case 4:
            PM_TRY(orc_pb_bytes(&f, &q, &m, msg));
            PM_TRY(pm_error_wrap(parse_type(a, q, m, &ft->types[ft->ntypes]), 0, "type %u", ft->ntypes));
            ft->ntypes++;
            break;
        case 5: {
            PM_TRY(orc_pb_bytes(&f, &q, &m, msg));
            orc_user_meta *um = &ft->meta[ft->nmeta++];
            um->name = "";
            um->value.data = "";
            pm_cursor mc = pm_cursor_make(q, m);
            orc_pb_field g;
            FOR_FIELDS(mc, g, "UserMetadataItem")
            {
                if (g.num == 1)
                    PM_TRY(copy_cstr(a, &g, &um->name, "UserMetadataItem.name"));
                else if (g.num == 2)
                    PM_TRY(copy_str(a, &g, &um->value, "UserMetadataItem.value"));
            }
            break;
        }
        case 6: PM_TRY(orc_pb_u64(&f, &ft->rows, msg)); break;
        case 7:
            PM_TRY(orc_pb_bytes(&f, &q, &m, msg));
            PM_TRY(pm_error_wrap(orc_parse_stats(a, q, m, &ft->stats[ft->nstats]), 0, "statistics of column %u",
                                 ft->nstats));
            ft->nstats++;
            break;
        case 8: PM_TRY(orc_pb_u32(&f, &ft->row_index_stride, msg)); break;
        case 9: PM_TRY(orc_pb_u32(&f, &ft->writer, msg)); ft->has_writer = true; break;
        case 10: ft->has_encryption = true; break;
        case 11: PM_TRY(orc_pb_u32(&f, &ft->calendar, msg)); break;
        case 12: PM_TRY(copy_cstr(a, &f, &ft->software_version, msg)); break;
        default: break;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* StripeFooter, Metadata, RowIndex                                    */

pm_error *orc_parse_stripe_footer(pm_arena *a, const uint8_t *p, size_t n, orc_stripe_footer *sf)
{
    pm_error *e;
    const char *msg = "StripeFooter";
    memset(sf, 0, sizeof *sf);
    size_t ns, nc;
    PM_TRY(count_field(p, n, 1, false, &ns, msg));
    PM_TRY(count_field(p, n, 2, false, &nc, msg));
    if (ns > UINT32_MAX || nc > UINT32_MAX)
        return pm_error_new(PM_ECORRUPT, "StripeFooter: too many entries");
    sf->streams = arena_array(a, ns, sizeof *sf->streams);
    sf->encodings = arena_array(a, nc, sizeof *sf->encodings);
    PM_TRY(oom_if_null(sf->streams, ns));
    PM_TRY(oom_if_null(sf->encodings, nc));
    pm_cursor c = pm_cursor_make(p, n);
    orc_pb_field f;
    FOR_FIELDS(c, f, msg)
    {
        const uint8_t *q;
        size_t m;
        switch (f.num) {
        case 1: {
            PM_TRY(orc_pb_bytes(&f, &q, &m, msg));
            orc_stream_info *s = &sf->streams[sf->nstreams++];
            pm_cursor sc = pm_cursor_make(q, m);
            orc_pb_field g;
            FOR_FIELDS(sc, g, "Stream")
            {
                if (g.num == 1)
                    PM_TRY(orc_pb_u32(&g, &s->kind, "Stream.kind"));
                else if (g.num == 2)
                    PM_TRY(orc_pb_u32(&g, &s->column, "Stream.column"));
                else if (g.num == 3)
                    PM_TRY(orc_pb_u64(&g, &s->length, "Stream.length"));
            }
            break;
        }
        case 2: {
            PM_TRY(orc_pb_bytes(&f, &q, &m, msg));
            orc_encoding *en = &sf->encodings[sf->nencodings++];
            pm_cursor ec = pm_cursor_make(q, m);
            orc_pb_field g;
            FOR_FIELDS(ec, g, "ColumnEncoding")
            {
                if (g.num == 1)
                    PM_TRY(orc_pb_u32(&g, &en->kind, "ColumnEncoding.kind"));
                else if (g.num == 2)
                    PM_TRY(orc_pb_u32(&g, &en->dictionary_size, "ColumnEncoding.dictionarySize"));
            }
            break;
        }
        case 3: PM_TRY(copy_cstr(a, &f, &sf->writer_timezone, msg)); break;
        case 4: sf->has_encryption = true; break;
        default: break;
        }
    }
    return NULL;
}

pm_error *orc_parse_metadata(pm_arena *a, const uint8_t *p, size_t n, orc_metadata *md)
{
    pm_error *e;
    const char *msg = "Metadata";
    memset(md, 0, sizeof *md);
    size_t ns;
    PM_TRY(count_field(p, n, 1, false, &ns, msg));
    if (ns > UINT32_MAX)
        return pm_error_new(PM_ECORRUPT, "Metadata: too many stripes");
    md->ncols = arena_array(a, ns, sizeof *md->ncols);
    md->stats = arena_array(a, ns, sizeof *md->stats);
    PM_TRY(oom_if_null(md->ncols, ns));
    PM_TRY(oom_if_null(md->stats, ns));
    pm_cursor c = pm_cursor_make(p, n);
    orc_pb_field f;
    FOR_FIELDS(c, f, msg)
    {
        if (f.num != 1)
            continue;
        const uint8_t *q;
        size_t m, nc;
        PM_TRY(orc_pb_bytes(&f, &q, &m, msg));
        PM_TRY(count_field(q, m, 1, false, &nc, "StripeStatistics"));
        if (nc > UINT32_MAX)
            return pm_error_new(PM_ECORRUPT, "StripeStatistics: too many columns");
        uint32_t s = md->nstripes++;
        md->stats[s] = arena_array(a, nc, sizeof(pm_orc_stats));
        PM_TRY(oom_if_null(md->stats[s], nc));
        pm_cursor sc = pm_cursor_make(q, m);
        orc_pb_field g;
        FOR_FIELDS(sc, g, "StripeStatistics")
        {
            if (g.num != 1)
                continue;
            const uint8_t *r;
            size_t k;
            PM_TRY(orc_pb_bytes(&g, &r, &k, "StripeStatistics"));
            PM_TRY(pm_error_wrap(orc_parse_stats(a, r, k, &md->stats[s][md->ncols[s]]), 0,
                                 "stripe %u column %u", s, md->ncols[s]));
            md->ncols[s]++;
        }
    }
    return NULL;
}

pm_error *orc_parse_row_index(pm_arena *a, const uint8_t *p, size_t n, orc_row_index *ri)
{
    pm_error *e;
    const char *msg = "RowIndex";
    memset(ri, 0, sizeof *ri);
    size_t ne;
    PM_TRY(count_field(p, n, 1, false, &ne, msg));
    if (ne > UINT32_MAX)
        return pm_error_new(PM_ECORRUPT, "RowIndex: too many entries");
    ri->entries = arena_array(a, ne, sizeof *ri->entries);
    PM_TRY(oom_if_null(ri->entries, ne));
    pm_cursor c = pm_cursor_make(p, n);
    orc_pb_field f;
    FOR_FIELDS(c, f, msg)
    {
        if (f.num != 1)
            continue;
        const uint8_t *q;
        size_t m, np;
        PM_TRY(orc_pb_bytes(&f, &q, &m, msg));
        PM_TRY(count_field(q, m, 1, true, &np, "RowIndexEntry"));
        if (np > UINT32_MAX)
            return pm_error_new(PM_ECORRUPT, "RowIndexEntry: too many positions");
        orc_row_index_entry *en = &ri->entries[ri->nentries++];
        en->positions = arena_array(a, np, sizeof(uint64_t));
        PM_TRY(oom_if_null(en->positions, np));
        size_t at = 0;
        pm_cursor ec = pm_cursor_make(q, m);
        orc_pb_field g;
        FOR_FIELDS(ec, g, "RowIndexEntry")
        {
            if (g.num == 1) {
                PM_TRY(append_packed(&g, en->positions, np, &at, "RowIndexEntry.positions"));
            } else if (g.num == 2) {
                const uint8_t *r;
                size_t k;
                PM_TRY(orc_pb_bytes(&g, &r, &k, "RowIndexEntry"));
                PM_TRY(orc_parse_stats(a, r, k, &en->stats));
                en->has_stats = true;
            }
        }
        en->npositions = (uint32_t)at;
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Serializers                                                         */

/* Append field `num` holding the message built by `body` in `tmp`. */
static pm_error *put_sub(pm_buf *b, uint32_t num, pm_buf *tmp)
{
    return orc_pb_put_bytes(b, num, tmp->data ? (const void *)tmp->data : (const void *)"", tmp->len);
}

static pm_error *put_str_field(pm_buf *b, uint32_t num, const pm_orc_str *s)
{
    return orc_pb_put_bytes(b, num, s->data ? s->data : "", s->len);
}

static pm_error *stats_parts(pm_buf *b, const pm_orc_stats *s, pm_buf *tmp)
{
    if (s->has_count)
        PM_TRY(orc_pb_put_u64(b, 1, s->count));
    if (s->ints.present) {
        pm_buf_clear(tmp);
        if (s->ints.has_min)
            PM_TRY(orc_pb_put_s64(tmp, 1, s->ints.min));
        if (s->ints.has_max)
            PM_TRY(orc_pb_put_s64(tmp, 2, s->ints.max));
        if (s->ints.has_sum)
            PM_TRY(orc_pb_put_s64(tmp, 3, s->ints.sum));
        PM_TRY(put_sub(b, 2, tmp));
    }
    if (s->dbl.present) {
        pm_buf_clear(tmp);
        if (s->dbl.has_min)
            PM_TRY(orc_pb_put_double(tmp, 1, s->dbl.min));
        if (s->dbl.has_max)
            PM_TRY(orc_pb_put_double(tmp, 2, s->dbl.max));
        if (s->dbl.has_sum)
            PM_TRY(orc_pb_put_double(tmp, 3, s->dbl.sum));
        PM_TRY(put_sub(b, 3, tmp));
    }
    if (s->str.present) {
        pm_buf_clear(tmp);
        if (s->str.has_min)
            PM_TRY(put_str_field(tmp, 1, &s->str.min));
        if (s->str.has_max)
            PM_TRY(put_str_field(tmp, 2, &s->str.max));
        if (s->str.has_sum)
            PM_TRY(orc_pb_put_s64(tmp, 3, s->str.sum));
        if (s->str.has_lower)
            PM_TRY(put_str_field(tmp, 4, &s->str.lower));
        if (s->str.has_upper)
            PM_TRY(put_str_field(tmp, 5, &s->str.upper));
        PM_TRY(put_sub(b, 4, tmp));
    }
    if (s->bucket.present) {
        pm_buf_clear(tmp);
        PM_TRY(orc_pb_put_packed(tmp, 1, s->bucket.count, s->bucket.ncount));
        PM_TRY(put_sub(b, 5, tmp));
    }
    if (s->dec.present) {
        pm_buf_clear(tmp);
        if (s->dec.has_min)
            PM_TRY(put_str_field(tmp, 1, &s->dec.min));
        if (s->dec.has_max)
            PM_TRY(put_str_field(tmp, 2, &s->dec.max));
        if (s->dec.has_sum)
            PM_TRY(put_str_field(tmp, 3, &s->dec.sum));
        PM_TRY(put_sub(b, 6, tmp));
    }
    if (s->date.present) {
        pm_buf_clear(tmp);
        if (s->date.has_min)
            PM_TRY(orc_pb_put_s64(tmp, 1, s->date.min));
        if (s->date.has_max)
            PM_TRY(orc_pb_put_s64(tmp, 2, s->date.max));
        PM_TRY(put_sub(b, 7, tmp));
    }
    if (s->bin.present) {
        pm_buf_clear(tmp);
        if (s->bin.has_sum)
            PM_TRY(orc_pb_put_s64(tmp, 1, s->bin.sum));
        PM_TRY(put_sub(b, 8, tmp));
    }
    if (s->ts.present) {
        pm_buf_clear(tmp);
        if (s->ts.has_min)
            PM_TRY(orc_pb_put_s64(tmp, 1, s->ts.min));
        if (s->ts.has_max)
            PM_TRY(orc_pb_put_s64(tmp, 2, s->ts.max));
        if (s->ts.has_min_utc)
            PM_TRY(orc_pb_put_s64(tmp, 3, s->ts.min_utc));
        if (s->ts.has_max_utc)
            PM_TRY(orc_pb_put_s64(tmp, 4, s->ts.max_utc));
        if (s->ts.has_min_nanos)
            PM_TRY(orc_pb_put_i64(tmp, 5, s->ts.min_nanos));
        if (s->ts.has_max_nanos)
            PM_TRY(orc_pb_put_i64(tmp, 6, s->ts.max_nanos));
        PM_TRY(put_sub(b, 9, tmp));
    }
    if (s->has_has_null)
        PM_TRY(orc_pb_put_u64(b, 10, s->has_null ? 1 : 0));
    if (s->has_bytes_on_disk)
        PM_TRY(orc_pb_put_u64(b, 11, s->bytes_on_disk));
    if (s->coll.present) {
        pm_buf_clear(tmp);
        if (s->coll.has_min)
            PM_TRY(orc_pb_put_u64(tmp, 1, s->coll.min));
        if (s->coll.has_max)
            PM_TRY(orc_pb_put_u64(tmp, 2, s->coll.max));
        if (s->coll.has_total)
            PM_TRY(orc_pb_put_u64(tmp, 3, s->coll.total));
        PM_TRY(put_sub(b, 12, tmp));
    }
    return NULL;
}

pm_error *orc_put_stats(pm_buf *b, const pm_orc_stats *s)
{
    pm_buf tmp = PM_BUF_INIT;
    pm_error *e = stats_parts(b, s, &tmp);
    pm_buf_free(&tmp);
    return e;
}

pm_error *orc_put_type(pm_buf *b, const orc_type *t)
{
    PM_TRY(orc_pb_put_u64(b, 1, t->kind));
    if (t->nsub) {
        uint64_t stack[16], *v = stack;
        if (t->nsub > 16) {
            PM_TRY(pm_calloc(&v, t->nsub, sizeof *v));
        }
        for (uint32_t i = 0; i < t->nsub; i++)
            v[i] = t->subtypes[i];
        pm_error *e = orc_pb_put_packed(b, 2, v, t->nsub);
        if (v != stack)
            free(v);
        PM_TRY(e);
    }
    for (uint32_t i = 0; i < t->nnames; i++)
        PM_TRY(orc_pb_put_str(b, 3, t->names[i]));
    if (t->has_max_length)
        PM_TRY(orc_pb_put_u64(b, 4, t->max_length));
    if (t->has_precision)
        PM_TRY(orc_pb_put_u64(b, 5, t->precision));
    if (t->has_scale)
        PM_TRY(orc_pb_put_u64(b, 6, t->scale));
    for (uint32_t i = 0; i < t->nattrs; i++) {
        pm_buf tmp = PM_BUF_INIT;
        pm_error *e = orc_pb_put_str(&tmp, 1, t->attrs[i].key);
        if (!e)
            e = orc_pb_put_str(&tmp, 2, t->attrs[i].value);
        if (!e)
            e = put_sub(b, 7, &tmp);
        pm_buf_free(&tmp);
        PM_TRY(e);
    }
    return NULL;
}

pm_error *orc_put_stripe_info(pm_buf *b, const orc_stripe_info *s)
{
    PM_TRY(orc_pb_put_u64(b, 1, s->offset));
    PM_TRY(orc_pb_put_u64(b, 2, s->index_length));
    PM_TRY(orc_pb_put_u64(b, 3, s->data_length));
    PM_TRY(orc_pb_put_u64(b, 4, s->footer_length));
    return orc_pb_put_u64(b, 5, s->rows);
}

pm_error *orc_put_stream_info(pm_buf *b, const orc_stream_info *s)
{
    PM_TRY(orc_pb_put_u64(b, 1, s->kind));
    PM_TRY(orc_pb_put_u64(b, 2, s->column));
    return orc_pb_put_u64(b, 3, s->length);
}

pm_error *orc_put_encoding(pm_buf *b, const orc_encoding *en, bool dictionary)
{
    PM_TRY(orc_pb_put_u64(b, 1, en->kind));
    if (dictionary)
        PM_TRY(orc_pb_put_u64(b, 2, en->dictionary_size));
    return NULL;
}
