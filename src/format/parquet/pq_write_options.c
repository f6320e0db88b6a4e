/*
 * format/parquet/pq_write_options.c — Paimon table options → Parquet writer
 * options (spec §5.2): `parquet.*` keys override the generic `file.*` ones,
 * everything else keeps parquet-java's defaults.  Every rejected value
 * names its option.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <strings.h>

#include "format/parquet/parquet_writer.h"

pm_error *pm_pq_parse_memory_size(const char *text, int64_t *out)
{
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    if (!isdigit((unsigned char)*p))
        return pm_error_new(PM_EINVALID, "'%s' is not a memory size", text);
    uint64_t v = 0;
    while (isdigit((unsigned char)*p)) {
        unsigned d = (unsigned)(*p++ - '0');
        if (v > (UINT64_MAX - d) / 10)
            return pm_error_new(PM_EINVALID, "memory size '%s' is too large", text);
        v = v * 10 + d;
    }
    while (isspace((unsigned char)*p))
        p++;
    const char *unit = p;
    size_t ulen = 0;
    while (unit[ulen] && !isspace((unsigned char)unit[ulen]))
        ulen++;
    p = unit + ulen;
    while (isspace((unsigned char)*p))
        p++;
    if (*p)
        return pm_error_new(PM_EINVALID, "'%s' is not a memory size", text);
    static const struct {
        const char *name;
        int shift;
    } units[] = {
        {"b", 0},  {"bytes", 0}, {"k", 10}, {"kb", 10}, {"kibibytes", 10},
        {"m", 20}, {"mb", 20},   {"mebibytes", 20},     {"g", 30},
        {"gb", 30}, {"gibibytes", 30}, {"t", 40}, {"tb", 40}, {"tebibytes", 40},
    };
    int shift = 0;
    if (ulen) {
        size_t i;
        for (i = 0; i < sizeof units / sizeof units[0]; i++)
            if (strlen(units[i].name) == ulen && !strncasecmp(unit, units[i].name, ulen))
                break;
        if (i == sizeof units / sizeof units[0])
            return pm_error_new(PM_EINVALID, "unknown memory unit in '%s'", text);
        shift = units[i].shift;
    }
    if (v > ((uint64_t)INT64_MAX >> shift))
        return pm_error_new(PM_EINVALID, "memory size '%s' is too large", text);
    *out = (int64_t)(v << shift);
    return NULL;
}

static pm_error *parse_long(const char *key, const char *text, int64_t min, int64_t max, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    while (end && isspace((unsigned char)*end))
        end++;
    if (errno || end == text || *end || v < min || v > max)
        return pm_error_new(PM_EINVALID, "option '%s': '%s' is not an integer in [%lld, %lld]", key,
                            text, (long long)min, (long long)max);
    *out = v;
    return NULL;
}

static pm_error *parse_bool(const char *key, const char *text, bool *out)
{
    if (!strcasecmp(text, "true")) {
        *out = true;
        return NULL;
    }
    if (!strcasecmp(text, "false")) {
        *out = false;
        return NULL;
    }
    return pm_error_new(PM_EINVALID, "option '%s': '%s' is not true or false", key, text);
}

static pm_error *parse_size(const char *key, const char *text, int64_t min, int64_t max, int64_t *out)
{
    int64_t v;
    pm_error *e = pm_pq_parse_memory_size(text, &v);
    if (e)
        return pm_error_wrap(e, PM_EINVALID, "option '%s'", key);
    if (v < min || v > max)
        return pm_error_new(PM_EINVALID, "option '%s': %s is outside [%lld, %lld] bytes", key, text,
                            (long long)min, (long long)max);
    *out = v;
    return NULL;
}

/* Value of the last set key of a list (later keys override earlier ones). */
static const char *lookup_last(pm_pq_option_lookup lookup, void *ctx, const char *const *keys,
                               size_t n, const char **which)
{
    const char *v = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *x = lookup(ctx, keys[i]);
        if (x) {
            v = x;
            *which = keys[i];
        }
    }
    return v;
}

pm_error *pm_pq_writer_options_from_table(pm_pq_writer_options *o, pm_pq_option_lookup lookup,
                                          void *ctx)
{
    const char *key = NULL, *v;

    static const char *const codec_keys[] = {"file.compression", "parquet.compression"};
    v = lookup_last(lookup, ctx, codec_keys, 2, &key);
    if (v) {
        pm_codec_id id;
        pm_error *e = pm_codec_from_name(v, &id);
        if (e)
            return pm_error_wrap(e, 0, "option '%s'", key);
        switch (id) {
        case PM_CODEC_NONE:
        case PM_CODEC_SNAPPY:
        case PM_CODEC_GZIP:
        case PM_CODEC_LZ4:
        case PM_CODEC_ZSTD:
        case PM_CODEC_LZ4_RAW:
            o->codec = id;
            break;
        default:
            return pm_error_new(PM_EUNSUPPORTED, "option '%s': compression '%s' is not supported for Parquet",
                                key, v);
        }
    }

    static const char *const level_keys[] = {"file.compression.zstd-level",
                                             "parquet.compression.codec.zstd.level"};
    v = lookup_last(lookup, ctx, level_keys, 2, &key);
    if (v) {
        int64_t level;
        PM_TRY(parse_long(key, v, -131072, 22, &level));
        o->codec_level = (int)level;
    }

    static const char *const block_keys[] = {"file.block-size", "parquet.block.size"};
    v = lookup_last(lookup, ctx, block_keys, 2, &key);
    if (v)
        PM_TRY(parse_size(key, v, 1, INT64_MAX, &o->row_group_size));

    if ((v = lookup(ctx, "parquet.page.size")))
        PM_TRY(parse_size("parquet.page.size", v, 1, INT32_MAX, &o->page_size));
    if ((v = lookup(ctx, "parquet.dictionary.page.size")))
        PM_TRY(parse_size("parquet.dictionary.page.size", v, 1, INT32_MAX, &o->dictionary_page_size));
    if ((v = lookup(ctx, "parquet.page.row.count.limit")))
        PM_TRY(parse_long("parquet.page.row.count.limit", v, 1, INT32_MAX, &o->page_row_limit));
    if ((v = lookup(ctx, "parquet.enable.dictionary")))
        PM_TRY(parse_bool("parquet.enable.dictionary", v, &o->dictionary));
    if ((v = lookup(ctx, "parquet.page.write-checksum.enabled")))
        PM_TRY(parse_bool("parquet.page.write-checksum.enabled", v, &o->page_crc));
    if ((v = lookup(ctx, "parquet.writer.version"))) {
        if (strcasecmp(v, "v1") && strcasecmp(v, "PARQUET_1_0"))
            return pm_error_new(PM_EUNSUPPORTED,
                                "option 'parquet.writer.version': '%s' is not supported (only v1)", v);
    }
    return NULL;
}
