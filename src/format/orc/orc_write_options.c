/*
 * format/orc/orc_write_options.c — ORC writer options from Paimon table
 * options (see pm_orc_writer_options_from_table in orc_writer.h).
 *
 * Parsing follows what the Java side does with the strings: OrcConf's
 * Long.parseLong / Integer.parseInt / Double.parseDouble /
 * Boolean.parseBoolean (anything but "true", any case, is false),
 * CompressionKind.valueOf(upper case), Version.byName,
 * EncodingStrategy.valueOf (exact).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "format/orc/orc_meta.h"
#include "format/orc/orc_writer.h"

static pm_error *bad(const char *key, const char *v, const char *what)
{
    return pm_error_new(PM_EINVALID, "option '%s': '%s' is not %s", key, v, what);
}

static pm_error *parse_long(const char *key, const char *v, int64_t lo, int64_t hi, int64_t *out)
{
    const char *p = v;
    if (*p == '+' || *p == '-')
        p++;
    if (!isdigit((unsigned char)*p))
        return bad(key, v, "an integer");
    for (const char *q = p; *q; q++)
        if (!isdigit((unsigned char)*q))
            return bad(key, v, "an integer");
    errno = 0;
    long long x = strtoll(v, NULL, 10);
    if (errno == ERANGE || x < lo || x > hi)
        return pm_error_new(PM_EINVALID, "option '%s': %s is outside [%lld, %lld]", key, v, (long long)lo,
                            (long long)hi);
    *out = x;
    return NULL;
}

static pm_error *parse_double(const char *key, const char *v, double *out)
{
    while (isspace((unsigned char)*v))
        v++;
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v)
        return bad(key, v, "a number");
    if (*end == 'd' || *end == 'D' || *end == 'f' || *end == 'F')
        end++;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return bad(key, v, "a number");
    *out = d;
    return NULL;
}

static bool parse_bool(const char *v) { return !strcasecmp(v, "true"); }

static pm_error *compression_kind(const char *key, const char *v, uint32_t *out)
{
    static const struct {
        const char *name;
        uint32_t kind;
    } kinds[] = {{"NONE", ORC_COMP_NONE}, {"ZLIB", ORC_COMP_ZLIB}, {"SNAPPY", ORC_COMP_SNAPPY},
                 {"LZ4", ORC_COMP_LZ4},   {"ZSTD", ORC_COMP_ZSTD}};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (!strcasecmp(v, kinds[i].name)) {
            *out = kinds[i].kind;
            return NULL;
        }
    if (!strcasecmp(v, "LZO") || !strcasecmp(v, "BROTLI"))
        return pm_error_new(PM_EUNSUPPORTED, "option '%s': ORC compression %s is not supported", key, v);
    return pm_error_new(PM_EINVALID, "option '%s': '%s' is not an ORC compression (none, zlib, snappy, lz4, zstd)",
                        key, v);
}

/* Comma list → malloc'd names (one block: pointer array, then strings). */
static pm_error *split_names(const char *v, pm_orc_writer_options *o, char **block)
{
    size_t n = 1, len = strlen(v);
    for (const char *p = v; *p; p++)
        n += *p == ',';
    char *mem = malloc(n * sizeof(char *) + len + 1);
    if (!mem)
        return pm_oom();
    char **names = (char **)(void *)mem;
    char *s = mem + n * sizeof(char *);
    memcpy(s, v, len + 1);
    size_t k = 0;
    for (char *tok = s;;) {
        char *comma = strchr(tok, ',');
        if (comma)
            *comma = 0;
        while (isspace((unsigned char)*tok))
            tok++;
        char *e = tok + strlen(tok);
        while (e > tok && isspace((unsigned char)e[-1]))
            *--e = 0;
        if (*tok)
            names[k++] = tok;
        if (!comma)
            break;
        tok = comma + 1;
    }
    o->direct_columns = (const char *const *)names;
    o->ndirect_columns = k;
    *block = mem;
    return NULL;
}

pm_error *pm_orc_writer_options_from_table(pm_orc_writer_options *o, pm_orc_option_lookup lookup, void *ctx,
                                           int64_t block_size_bytes, char **names)
{
    *names = NULL;
    const char *v;
    int64_t x;
#define GET(k) ((v = lookup(ctx, (k))) != NULL)
    if (GET("orc.compress"))
        PM_TRY(compression_kind("orc.compress", v, &o->compression));
    else if (GET("file.compression"))
        PM_TRY(compression_kind("file.compression", v, &o->compression));
    if (GET("orc.compression.zstd.level")) {
        PM_TRY(parse_long("orc.compression.zstd.level", v, INT32_MIN, INT32_MAX, &x));
        o->zstd_level = (int)x;
    } else if (GET("file.compression.zstd-level")) {
        PM_TRY(parse_long("file.compression.zstd-level", v, INT32_MIN, INT32_MAX, &x));
        o->zstd_level = (int)x;
    }
    if (o->compression == ORC_COMP_ZSTD && (o->zstd_level < -131072 || o->zstd_level > 22))
        return pm_error_new(PM_EINVALID, "zstd compression level %d is outside [-131072, 22]", o->zstd_level);
    if (GET("orc.compression.zstd.windowlog")) {
        PM_TRY(parse_long("orc.compression.zstd.windowlog", v, INT32_MIN, INT32_MAX, &x));
        if (x != 0)
            return pm_error_new(PM_EUNSUPPORTED, "option 'orc.compression.zstd.windowlog': only 0 (the default) is "
                                                 "supported");
    }
    if (GET("orc.stripe.size"))
        PM_TRY(parse_long("orc.stripe.size", v, 1, INT64_MAX, &o->stripe_size));
    if (block_size_bytes >= 0) {
        if (block_size_bytes == 0)
            return pm_error_new(PM_EINVALID, "option 'file.block-size' must be positive");
        o->stripe_size = block_size_bytes;
    }
    if (GET("orc.stripe.row.count"))
        PM_TRY(parse_long("orc.stripe.row.count", v, 1, INT64_MAX, &o->stripe_row_count));
    if (GET("orc.block.size"))
        PM_TRY(parse_long("orc.block.size", v, 1, INT64_MAX, &o->block_size));
    if (GET("orc.block.padding"))
        o->block_padding = parse_bool(v);
    if (GET("orc.block.padding.tolerance"))
        PM_TRY(parse_double("orc.block.padding.tolerance", v, &o->padding_tolerance));
    if (GET("orc.row.index.stride")) {
        PM_TRY(parse_long("orc.row.index.stride", v, INT32_MIN, INT32_MAX, &x));
        o->row_index_stride = x < 0 ? 0 : (int32_t)x;
    }
    if (GET("orc.compress.size")) {
        PM_TRY(parse_long("orc.compress.size", v, 1, (1 << 23) - 1, &x));
        o->buffer_size = (int32_t)x;
    }
    if (GET("orc.buffer.size.enforce"))
        o->enforce_buffer_size = parse_bool(v);
    if (GET("orc.dictionary.key.threshold"))
        PM_TRY(parse_double("orc.dictionary.key.threshold", v, &o->dictionary_threshold));
    if (GET("orc.dictionary.early.check"))
        o->dictionary_early_check = parse_bool(v);
    if (GET("orc.write.format")) {
        if (!strcmp(v, "0.11"))
            o->file_version = 11;
        else if (!strcmp(v, "0.12"))
            o->file_version = 12;
        else
            return pm_error_new(strcasecmp(v, "UNSTABLE-PRE-2.0") ? PM_EINVALID : PM_EUNSUPPORTED,
                                "option 'orc.write.format': '%s' is not supported (0.11, 0.12)", v);
    }
    if (GET("orc.encoding.strategy")) {
        if (!strcmp(v, "SPEED"))
            o->encoding_speed = true;
        else if (!strcmp(v, "COMPRESSION"))
            o->encoding_speed = false;
        else
            return bad("orc.encoding.strategy", v, "SPEED or COMPRESSION");
    }
    if (GET("orc.compression.strategy")) {
        if (!strcmp(v, "SPEED"))
            o->compression_speed = true;
        else if (!strcmp(v, "COMPRESSION"))
            o->compression_speed = false;
        else
            return bad("orc.compression.strategy", v, "SPEED or COMPRESSION");
    }
    if (GET("orc.rows.between.memory.checks"))
        PM_TRY(parse_long("orc.rows.between.memory.checks", v, 1, INT64_MAX, &o->rows_between_checks));
    if (GET("write.batch-size")) {
        PM_TRY(parse_long("write.batch-size", v, 1, INT32_MAX, &x));
        o->batch_size = (int32_t)x;
    }
    if (GET("orc.bloom.filter.columns") && *v)
        return pm_error_new(PM_EUNSUPPORTED, "option 'orc.bloom.filter.columns': ORC bloom filters are not supported");
    if (GET("orc.encrypt") || GET("orc.mask"))
        return pm_error_new(PM_EUNSUPPORTED, "ORC column encryption and masks are not supported");
    if (GET("orc.proleptic.gregorian") && parse_bool(v))
        return pm_error_new(PM_EUNSUPPORTED, "option 'orc.proleptic.gregorian': only the hybrid calendar is "
                                             "supported (Paimon's writer rejects proleptic dates too)");
    if (GET("orc.column.encoding.direct") && *v)
        PM_TRY(split_names(v, o, names));
#undef GET
    return NULL;
}
