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

#include <stddef.h>
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

/*
 * The typed parts of ColumnStatistics, as tables: for each part its field
 * number in ColumnStatistics and, per member, (field number, wire form,
 * where the value and its presence flag live in pm_orc_stats).  One parser
 * and one serializer walk them.
 */
enum { M_S64, M_S32, M_I32, M_U64, M_DBL, M_STR };

typedef struct member {
    uint32_t num;
    uint8_t kind;
    size_t val, has;
} member;

typedef struct part {
    uint32_t num;        /* field of ColumnStatistics */
    size_t present;      /* offset of the part's `present` flag */
    const member *m;
    size_t nm;
    const char *name;
} part;

#define MB(n, k, v, h) {n, k, offsetof(pm_orc_stats, v), offsetof(pm_orc_stats, h)}
static const member int_m[] = {MB(1, M_S64, ints.min, ints.has_min), MB(2, M_S64, ints.max, ints.has_max),
                               MB(3, M_S64, ints.sum, ints.has_sum)};
static const member dbl_m[] = {MB(1, M_DBL, dbl.min, dbl.has_min), MB(2, M_DBL, dbl.max, dbl.has_max),
                               MB(3, M_DBL, dbl.sum, dbl.has_sum)};
static const member str_m[] = {MB(1, M_STR, str.min, str.has_min), MB(2, M_STR, str.max, str.has_max),
                               MB(3, M_S64, str.sum, str.has_sum), MB(4, M_STR, str.lower, str.has_lower),
                               MB(5, M_STR, str.upper, str.has_upper)};
static const member dec_m[] = {MB(1, M_STR, dec.min, dec.has_min), MB(2, M_STR, dec.max, dec.has_max),
                               MB(3, M_STR, dec.sum, dec.has_sum)};
static const member date_m[] = {MB(1, M_S32, date.min, date.has_min), MB(2, M_S32, date.max, date.has_max)};
static const member bin_m[] = {MB(1, M_S64, bin.sum, bin.has_sum)};
static const member ts_m[] = {MB(1, M_S64, ts.min, ts.has_min),         MB(2, M_S64, ts.max, ts.has_max),
                              MB(3, M_S64, ts.min_utc, ts.has_min_utc), MB(4, M_S64, ts.max_utc, ts.has_max_utc),
                              MB(5, M_I32, ts.min_nanos, ts.has_min_nanos),
                              MB(6, M_I32, ts.max_nanos, ts.has_max_nanos)};
static const member coll_m[] = {MB(1, M_U64, coll.min, coll.has_min), MB(2, M_U64, coll.max, coll.has_max),
                                MB(3, M_U64, coll.total, coll.has_total)};
#undef MB

#define PART(n, field, arr, name) {n, offsetof(pm_orc_stats, field.present), arr, sizeof arr / sizeof *arr, name}
/* in field-number order (bucket, 5, and the base fields are apart) */
static const part parts[] = {
    PART(2, ints, int_m, "IntegerStatistics"),  PART(3, dbl, dbl_m, "DoubleStatistics"),
    PART(4, str, str_m, "StringStatistics"),    PART(6, dec, dec_m, "DecimalStatistics"),
    PART(7, date, date_m, "DateStatistics"),    PART(8, bin, bin_m, "BinaryStatistics"),
    PART(9, ts, ts_m, "TimestampStatistics"),   PART(12, coll, coll_m, "CollectionStatistics"),
};
#undef PART

static pm_error *parse_part(pm_arena *a, const part *pt, const uint8_t *p, size_t n, pm_orc_stats *s)
{
    pm_error *e;
    char *base = (char *)s;
    *(bool *)(base + pt->present) = true;
    pm_cursor c = pm_cursor_make(p, n);
    orc_pb_field f;
    FOR_FIELDS(c, f, pt->name)
    {
        for (size_t i = 0; i < pt->nm; i++) {
            const member *m = &pt->m[i];
            if (m->num != f.num)
                continue;
            void *v = base + m->val;
            switch (m->kind) {
            case M_S64: PM_TRY(orc_pb_s64(&f, v, pt->name)); break;
            case M_S32: PM_TRY(orc_pb_s32(&f, v, pt->name)); break;
            case M_I32: PM_TRY(orc_pb_i32(&f, v, pt->name)); break;
            case M_U64: PM_TRY(orc_pb_u64(&f, v, pt->name)); break;
            case M_DBL: PM_TRY(orc_pb_double(&f, v, pt->name)); break;
            default: PM_TRY(copy_str(a, &f, v, pt->name)); break;
            }
            *(bool *)(base + m->has) = true;
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
        if (f.num == 1) {
            PM_TRY(orc_pb_u64(&f, &s->count, msg));
            s->has_count = true;
        } else if (f.num == 10) {
            PM_TRY(orc_pb_bool(&f, &s->has_null, msg));
            s->has_has_null = true;
        } else if (f.num == 11) {
            PM_TRY(orc_pb_u64(&f, &s->bytes_on_disk, msg));
            s->has_bytes_on_disk = true;
        } else if (f.num == 5) {
            PM_TRY(orc_pb_bytes(&f, &q, &m, msg));
            PM_TRY(parse_bucket_stats(a, q, m, s));
        } else {
            for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
                if (parts[i].num == f.num) {
                    PM_TRY(orc_pb_bytes(&f, &q, &m, msg));
                    PM_TRY(parse_part(a, &parts[i], q, m, s));
                }
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

static pm_error *put_part(pm_buf *b, const part *pt, const pm_orc_stats *s, pm_buf *tmp)
{
    const char *base = (const char *)s;
    pm_buf_clear(tmp);
    for (size_t i = 0; i < pt->nm; i++) {
        const member *m = &pt->m[i];
        if (!*(const bool *)(base + m->has))
            continue;
        const void *v = base + m->val;
        switch (m->kind) {
        case M_S64: PM_TRY(orc_pb_put_s64(tmp, m->num, *(const int64_t *)v)); break;
        case M_S32: PM_TRY(orc_pb_put_s64(tmp, m->num, *(const int32_t *)v)); break;
        case M_I32: PM_TRY(orc_pb_put_i64(tmp, m->num, *(const int32_t *)v)); break;
        case M_U64: PM_TRY(orc_pb_put_u64(tmp, m->num, *(const uint64_t *)v)); break;
        case M_DBL: PM_TRY(orc_pb_put_double(tmp, m->num, *(const double *)v)); break;
        default: PM_TRY(put_str_field(tmp, m->num, v)); break;
        }
    }
    return put_sub(b, pt->num, tmp);
}

/* Fields in number order: 1 count, 2-4 parts, 5 bucket, 6-9 parts,
 * 10 hasNull, 11 bytesOnDisk, 12 collection. */
static pm_error *stats_parts(pm_buf *b, const pm_orc_stats *s, pm_buf *tmp)
{
    const char *base = (const char *)s;
    if (s->has_count)
        PM_TRY(orc_pb_put_u64(b, 1, s->count));
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        const part *pt = &parts[i];
        if (pt->num == 6 && s->bucket.present) {
            pm_buf_clear(tmp);
            PM_TRY(orc_pb_put_packed(tmp, 1, s->bucket.count, s->bucket.ncount));
            PM_TRY(put_sub(b, 5, tmp));
        }
        if (pt->num == 12) {
            if (s->has_has_null)
                PM_TRY(orc_pb_put_u64(b, 10, s->has_null ? 1 : 0));
            if (s->has_bytes_on_disk)
                PM_TRY(orc_pb_put_u64(b, 11, s->bytes_on_disk));
        }
        if (*(const bool *)(base + pt->present))
            PM_TRY(put_part(b, pt, s, tmp));
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
