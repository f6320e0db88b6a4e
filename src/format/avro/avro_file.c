/*
 * format/avro/avro_file.c — Avro object container framing (see avro_file.h).
 *
 * Reading, step by step:
 *   1. header: read a window from offset 0 (4 KiB, growing x4 up to the file
 *      size when the metadata map does not fit), check the magic, decode
 *      the metadata map (blocks of key string / value bytes, negative
 *      counts carry a byte size), keep avro.schema and avro.codec, read the
 *      sync marker and parse the schema;
 *   2. per block: read up to 20 bytes for the two varints (count, size),
 *      check that size + 16 fits in the file, read data and sync, compare
 *      the sync marker, then decompress into a reused buffer (snappy: verify
 *      the CRC32 trailer), and check the count against the bytes (every
 *      object needs at least the schema's minimum encoded size).
 * An input source is either a pm_input (reads into a reused buffer) or
 * borrowed memory (zero-copy).
 */
#include "format/avro/avro_file.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/cursor.h"
#include "base/mem.h"
#include "format/avro/avro_binary.h"

#define HEADER_WINDOW 4096
#define MAX_HEADER_BYTES ((size_t)64 << 20)
#define DEFAULT_MAX_BLOCK ((size_t)1 << 30)

typedef struct meta_entry {
    char *key;
    uint8_t *value;
    size_t len;
} meta_entry;

struct pm_avro_file {
    pm_input *in;         /* or NULL for memory */
    const uint8_t *mem;
    uint64_t size;
    char *name;
    size_t max_block;
    uint64_t pos;         /* next block offset */
    uint8_t sync[16];
    meta_entry *meta;
    size_t nmeta;
    char *schema_json;
    char *codec_name;
    pm_codec_id codec;
    pm_avro_schema *schema;
    pm_codec_ctx *cctx;
    pm_buf io;            /* raw bytes read from the input */
    pm_buf block;         /* decompressed block */
};

pm_error *pm_avro_codec_from_name(const char *name, pm_codec_id *out)
{
    if (strcmp(name, "null") == 0)
        *out = PM_CODEC_NONE;
    else if (strcmp(name, "deflate") == 0)
        *out = PM_CODEC_DEFLATE;
    else if (strcmp(name, "snappy") == 0)
        *out = PM_CODEC_SNAPPY;
    else if (strcmp(name, "zstandard") == 0)
        *out = PM_CODEC_ZSTD;
    else if (strcmp(name, "bzip2") == 0 || strcmp(name, "xz") == 0)
        return pm_error_new(PM_EUNSUPPORTED, "avro codec '%s' is not supported", name);
    else
        return pm_error_new(PM_ECORRUPT, "unknown avro codec '%s'", name);
    return NULL;
}

pm_error *pm_avro_codec_name(pm_codec_id id, const char **out)
{
    switch (id) {
    case PM_CODEC_NONE: *out = "null"; return NULL;
    case PM_CODEC_DEFLATE: *out = "deflate"; return NULL;
    case PM_CODEC_SNAPPY: *out = "snappy"; return NULL;
    case PM_CODEC_ZSTD: *out = "zstandard"; return NULL;
    default:
        return pm_error_new(PM_EUNSUPPORTED, "codec %s cannot be used in avro files",
                            pm_codec_name(id));
    }
}

/* n bytes at off: a pointer into memory, or read into f->io. */
static pm_error *src_read(pm_avro_file *f, uint64_t off, size_t n, const uint8_t **out)
{
    if (off > f->size || n > f->size - off)
        return pm_error_new(PM_ECORRUPT, "read past end of file");
    if (f->mem) {
        *out = f->mem + off;
        return NULL;
    }
    pm_buf_clear(&f->io);
    PM_TRY(pm_buf_reserve(&f->io, n ? n : 1));
    PM_TRY(pm_input_read_at(f->in, off, f->io.data, n));
    f->io.len = n;
    *out = f->io.data;
    return NULL;
}

static void free_meta(pm_avro_file *f)
{
    for (size_t i = 0; i < f->nmeta; i++) {
        free(f->meta[i].key);
        free(f->meta[i].value);
    }
    free(f->meta);
    f->meta = NULL;
    f->nmeta = 0;
}

/* Decode magic, metadata and sync from c; *header_len = bytes used. */
static pm_error *parse_header(pm_avro_file *f, pm_cursor *c)
{
    const uint8_t *magic = NULL;
    PM_TRY(pm_cursor_take(c, 4, &magic, "avro magic"));
    if (memcmp(magic, "Obj\x01", 4) != 0)
        return pm_error_new(PM_ECORRUPT, "not an avro object container file (bad magic)");
    size_t cap = 0;
    for (;;) {
        int64_t count = 0;
        PM_TRY(pm_avro_read_block_count(c, 2, &count)); /* key + value: >= 2 bytes */
        if (count == 0)
            break;
        for (int64_t i = 0; i < count; i++) {
            const uint8_t *k, *v;
            size_t kn, vn;
            PM_TRY(pm_avro_read_bytes(c, &k, &kn));
            PM_TRY(pm_avro_read_bytes(c, &v, &vn));
            if (f->nmeta == cap) {
                size_t ncap = cap ? cap * 2 : 4;
                PM_TRY(pm_realloc_array(&f->meta, ncap, sizeof *f->meta));
                cap = ncap;
            }
            meta_entry *m = &f->meta[f->nmeta];
            memset(m, 0, sizeof *m);
            PM_TRY(pm_strndup(&m->key, (const char *)k, kn));
            f->nmeta++;
            m->value = malloc(vn + 1);
            if (!m->value)
                return pm_oom();
            memcpy(m->value, v, vn);
            m->value[vn] = 0;
            m->len = vn;
        }
    }
    const uint8_t *sync = NULL;
    PM_TRY(pm_cursor_take(c, 16, &sync, "avro sync marker"));
    memcpy(f->sync, sync, 16);
    return NULL;
}

const uint8_t *pm_avro_file_meta(const pm_avro_file *f, const char *key, size_t *len)
{
    for (size_t i = 0; i < f->nmeta; i++) {
        if (strcmp(f->meta[i].key, key) == 0) {
            if (len)
                *len = f->meta[i].len;
            return f->meta[i].value;
        }
    }
    return NULL;
}

static pm_error *read_header(pm_avro_file *f)
{
    size_t window = HEADER_WINDOW;
    for (;;) {
        size_t n = f->size < window ? (size_t)f->size : window;
        const uint8_t *p = NULL;
        PM_TRY(src_read(f, 0, n, &p));
        pm_cursor c = pm_cursor_make(p, n);
        free_meta(f);
        pm_error *e = parse_header(f, &c);
        if (!e) {
            f->pos = (uint64_t)(c.p - p);
            break;
        }
        /* Maybe the header is just longer than the window. */
        if (n == f->size || window >= MAX_HEADER_BYTES || pm_error_code(e) != PM_ECORRUPT ||
            n < 4 || memcmp(p, "Obj\x01", 4) != 0)
            return e;
        pm_error_free(e);
        window *= 4;
    }
    size_t slen = 0;
    const uint8_t *schema = pm_avro_file_meta(f, "avro.schema", &slen);
    if (!schema)
        return pm_error_new(PM_ECORRUPT, "avro header has no avro.schema");
    if (memchr(schema, 0, slen))
        return pm_error_new(PM_ECORRUPT, "avro.schema contains a NUL byte");
    PM_TRY(pm_strndup(&f->schema_json, (const char *)schema, slen));
    size_t clen = 0;
    const uint8_t *codec = pm_avro_file_meta(f, "avro.codec", &clen);
    PM_TRY(pm_strndup(&f->codec_name, codec ? (const char *)codec : "null", codec ? clen : 4));
    PM_TRY(pm_avro_codec_from_name(f->codec_name, &f->codec));
    PM_TRY(pm_avro_schema_parse(f->schema_json, slen, &f->schema));
    return NULL;
}

static pm_error *open_common(pm_avro_file *f, const pm_avro_file_options *opt, const char *name)
{
    f->max_block = opt && opt->max_block_bytes ? opt->max_block_bytes : DEFAULT_MAX_BLOCK;
    PM_TRY(pm_strdup(&f->name, name ? name : "(memory)"));
    PM_TRY(pm_codec_ctx_new(&f->cctx));
    return read_header(f);
}

pm_error *pm_avro_file_open(pm_input *in, const pm_avro_file_options *opt, pm_avro_file **out)
{
    *out = NULL;
    pm_avro_file *f = NULL;
    PM_TRY(pm_calloc(&f, 1, sizeof *f));
    f->in = in;
    f->size = pm_input_size(in);
    pm_error *e = open_common(f, opt, pm_input_path(in));
    if (e) {
        e = pm_error_wrap(e, 0, "avro file %s", pm_input_path(in));
        pm_avro_file_close(f);
        return e;
    }
    *out = f;
    return NULL;
}

pm_error *pm_avro_file_open_memory(const uint8_t *data, size_t len, const char *name,
                                   const pm_avro_file_options *opt, pm_avro_file **out)
{
    *out = NULL;
    pm_avro_file *f = NULL;
    PM_TRY(pm_calloc(&f, 1, sizeof *f));
    static const uint8_t empty[1];
    f->mem = data ? data : empty;
    f->size = len;
    pm_error *e = open_common(f, opt, name);
    if (e) {
        e = pm_error_wrap(e, 0, "avro file %s", name ? name : "(memory)");
        pm_avro_file_close(f);
        return e;
    }
    *out = f;
    return NULL;
}

void pm_avro_file_close(pm_avro_file *f)
{
    if (!f)
        return;
    free_meta(f);
    free(f->name);
    free(f->schema_json);
    free(f->codec_name);
    pm_avro_schema_free(f->schema);
    pm_codec_ctx_free(f->cctx);
    pm_buf_free(&f->io);
    pm_buf_free(&f->block);
    free(f);
}

const char *pm_avro_file_schema_json(const pm_avro_file *f) { return f->schema_json; }
const char *pm_avro_file_codec(const pm_avro_file *f) { return f->codec_name; }
const pm_avro_schema *pm_avro_file_schema(const pm_avro_file *f) { return f->schema; }
const char *pm_avro_file_name(const pm_avro_file *f) { return f->name; }

static pm_error *next_block(pm_avro_file *f, const uint8_t **data, size_t *len, int64_t *count)
{
    uint64_t left = f->size - f->pos;
    const uint8_t *p = NULL;
    size_t hn = left < 20 ? (size_t)left : 20;
    PM_TRY(src_read(f, f->pos, hn, &p));
    pm_cursor c = pm_cursor_make(p, hn);
    int64_t cnt, size;
    PM_TRY(pm_avro_read_long(&c, &cnt));
    PM_TRY(pm_avro_read_long(&c, &size));
    if (cnt < 0 || size < 0)
        return pm_error_new(PM_ECORRUPT, "negative block count or size");
    size_t hlen = (size_t)(c.p - p);
    if ((uint64_t)size > left - hlen || left - hlen - (uint64_t)size < 16)
        return pm_error_new(PM_ECORRUPT, "block of %lld bytes runs past the end of the file",
                            (long long)size);
    PM_TRY(src_read(f, f->pos + hlen, (size_t)size + 16, &p));
    if (memcmp(p + size, f->sync, 16) != 0)
        return pm_error_new(PM_ECORRUPT, "sync marker mismatch after block");
    f->pos += hlen + (uint64_t)size + 16;

    const uint8_t *objs = p;
    size_t n = (size_t)size;
    if (f->codec != PM_CODEC_NONE) {
        pm_buf_clear(&f->block);
        size_t clen = n;
        if (f->codec == PM_CODEC_SNAPPY) {
            if (n < 4)
                return pm_error_new(PM_ECORRUPT, "snappy block without its CRC");
            clen = n - 4;
        }
        PM_TRY(pm_codec_decompress_append(f->cctx, f->codec, p, clen, &f->block, f->max_block));
        if (f->codec == PM_CODEC_SNAPPY) {
            uint32_t want = pm_load_u32be(p + clen);
            uLong crc = crc32(0L, Z_NULL, 0);
            size_t done = 0;
            while (done < f->block.len) { /* crc32 takes 32-bit lengths */
                size_t step = f->block.len - done > (1u << 30) ? (1u << 30) : f->block.len - done;
                crc = crc32(crc, f->block.data + done, (uInt)step);
                done += step;
            }
            if ((uint32_t)crc != want)
                return pm_error_new(PM_ECORRUPT, "snappy block CRC mismatch");
        }
        objs = f->block.data;
        n = f->block.len;
    } else if (n > f->max_block) {
        return pm_error_new(PM_ECORRUPT, "block of %zu bytes exceeds the limit of %zu", n,
                            f->max_block);
    }
    size_t min = f->schema->root->min_size;
    if (min > 0 ? (uint64_t)cnt > n / min : cnt > (int64_t)PM_AVRO_MAX_EMPTY_ITEMS * 16)
        return pm_error_new(PM_ECORRUPT, "block claims %lld objects in %zu bytes", (long long)cnt,
                            n);
    *data = objs;
    *len = n;
    *count = cnt;
    return NULL;
}

pm_error *pm_avro_file_next_block(pm_avro_file *f, const uint8_t **data, size_t *len,
                                  int64_t *count)
{
    *data = NULL;
    *len = 0;
    *count = 0;
    for (;;) {
        if (f->pos >= f->size)
            return NULL;
        uint64_t at = f->pos;
        pm_error *e = next_block(f, data, len, count);
        if (e) {
            f->pos = f->size; /* no further blocks after a broken one */
            *data = NULL;
            *len = 0;
            *count = 0;
            return pm_error_wrap(e, 0, "avro file %s: block at offset %llu", f->name,
                                 (unsigned long long)at);
        }
        if (*count > 0)
            return NULL; /* skip empty blocks */
    }
}

/* ---- writing ---- */

static pm_error *put_meta(pm_buf *out, const char *key, const void *v, size_t n)
{
    PM_TRY(pm_avro_put_bytes(out, key, strlen(key)));
    return pm_avro_put_bytes(out, v, n);
}

pm_error *pm_avro_write_header(pm_buf *out, const char *schema_json, size_t schema_len,
                               const char *codec_name, const uint8_t sync[16])
{
    PM_TRY(pm_buf_append(out, "Obj\x01", 4));
    PM_TRY(pm_avro_put_long(out, 2));
    PM_TRY(put_meta(out, "avro.schema", schema_json, schema_len));
    PM_TRY(put_meta(out, "avro.codec", codec_name, strlen(codec_name)));
    PM_TRY(pm_avro_put_long(out, 0));
    return pm_buf_append(out, sync, 16);
}

pm_error *pm_avro_write_block(pm_buf *out, pm_codec_ctx *ctx, pm_codec_id codec, int level,
                              int64_t count, const uint8_t *objects, size_t n,
                              const uint8_t sync[16])
{
    const char *ignored;
    PM_TRY(pm_avro_codec_name(codec, &ignored));
    size_t start = out->len;
    PM_TRY(pm_avro_put_long(out, count));
    /* Compress after a 10-byte gap for the size varint, then close the gap. */
    size_t gap = out->len;
    pm_error *e = pm_buf_append_zeros(out, 10);
    if (!e)
        e = pm_codec_compress(ctx, codec, level, objects, n, out);
    if (!e && codec == PM_CODEC_SNAPPY) {
        uLong crc = crc32(0L, Z_NULL, 0);
        size_t done = 0;
        while (done < n) {
            size_t step = n - done > (1u << 30) ? (1u << 30) : n - done;
            crc = crc32(crc, objects + done, (uInt)step);
            done += step;
        }
        e = pm_buf_append_u32be(out, (uint32_t)crc);
    }
    if (e) {
        out->len = start;
        return e;
    }
    size_t body = out->len - gap - 10;
    uint8_t tmp[10];
    size_t tl = 0;
    uint64_t u = pm_zigzag_encode((int64_t)body);
    while (u >= 0x80) {
        tmp[tl++] = (uint8_t)(u | 0x80);
        u >>= 7;
    }
    tmp[tl++] = (uint8_t)u;
    memmove(out->data + gap + tl, out->data + gap + 10, body);
    memcpy(out->data + gap, tmp, tl);
    out->len = gap + tl + body;
    e = pm_buf_append(out, sync, 16);
    if (e)
        out->len = start;
    return e;
}
