/*
 * table/lookup_file.c — Lookup Files and the local cache (layout and
 * rules in lookup_file.h).
 *
 * Build: file reader batches → rows with _POS → blocks of up to 1024 rows
 * or 256 KiB (Avro container bytes made in memory, then compressed) →
 * <id>.lkp.<uuid> and the index → <id>.lki.<uuid>; rename both.  Open:
 * read and check the index (magic, version, codec, sizes, CRC), keep it in
 * memory (charged to the budget).  Get: binary search of the first keys →
 * the block (read, CRC, decompress, decode; kept as the file's one
 * decoded block with its sort keys) → binary search of the keys.
 * Eviction: after a build, while the cache's files exceed max-size, the
 * least recently used (mtime, touched on every open) pair goes.
 */
#include "table/lookup_file.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "base/buf.h"
#include "base/cursor.h"
#include "base/fault.h"
#include "base/mem.h"
#include "base/util.h"
#include "format/avro/avro.h"
#include "format/parquet/pq_encode.h"
#include "io/fileio_impl.h"
#include "table/file_read.h"

#define MAGIC "PMLK"
#define VERSION 1
#define BLOCK_ROWS 1024
#define BLOCK_BYTES (256 << 10)
#define POS_ID 2147483600
#define SEQ_ID 2147483646
#define KIND_ID 2147483645

/* Append field (id, name, t) to row; t is taken, also on failure. */
static pm_error *add_field(pm_type *row, int32_t id, const char *name, pm_type *t)
{
    if (!t)
        return pm_oom();
    pm_error *e = pm_type_add_field(row, id, name, t);
    if (e)
        pm_type_free(t);
    return e;
}

/* ------------------------------------------------------------------ */
/* options                                                             */

void pm_lookup_cache_options_clear(pm_lookup_cache_options *o)
{
    free(o->dir);
    memset(o, 0, sizeof *o);
}

static pm_error *opt_memory(const pm_options *o, const char *key, int64_t def, int64_t *out)
{
    const char *v = pm_options_get(o, key);
    *out = def;
    if (!v)
        return NULL;
    PM_TRY(pm_error_wrap(pm_parse_memory_size(v, out), PM_EINVALID, "option %s=%s", key, v));
    if (*out < 0)
        return pm_error_new(PM_EINVALID, "option %s=%s must not be negative", key, v);
    return NULL;
}

pm_error *pm_lookup_cache_options_parse(const pm_options *o, bool *enabled, pm_lookup_cache_options *out)
{
    memset(out, 0, sizeof *out);
    *enabled = false;
    if (pm_options_get(o, "lookup.cache-max-disk-size"))
        return pm_error_new(PM_EINVALID, "option lookup.cache-max-disk-size is not supported: the local cache's "
                                         "disk budget is local-cache.max-size");
    const char *v = pm_options_get(o, "local-cache.enabled");
    if (v)
        PM_TRY(pm_error_wrap(pm_parse_bool(v, enabled), PM_EINVALID, "option local-cache.enabled=%s", v));
    PM_TRY(opt_memory(o, "local-cache.max-size", 0, &out->max_size));
    PM_TRY(opt_memory(o, "lookup.cache-max-memory-size", 256LL << 20, &out->memory));
    if (out->memory < (1 << 20))
        return pm_error_new(PM_EINVALID, "option lookup.cache-max-memory-size must be at least 1 mb");
    out->codec = PM_CODEC_ZSTD;
    v = pm_options_get(o, "lookup.cache-spill-compression");
    if (v) {
        if (!strcasecmp(v, "none"))
            out->codec = PM_CODEC_NONE;
        else if (!strcasecmp(v, "zstd"))
            out->codec = PM_CODEC_ZSTD;
        else if (!strcasecmp(v, "lz4"))
            out->codec = PM_CODEC_LZ4;
        else if (!strcasecmp(v, "lzo"))
            return pm_error_new(PM_EUNSUPPORTED, "option lookup.cache-spill-compression=lzo is not supported (none, "
                                                 "zstd, lz4)");
        else
            return pm_error_new(PM_EINVALID, "option lookup.cache-spill-compression=%s: none, zstd or lz4", v);
    }
    v = pm_options_get(o, "local-cache.dir");
    if (v && *v)
        return pm_strdup(&out->dir, v);
    const char *tmp = getenv("TMPDIR");
    char buf[1024];
    snprintf(buf, sizeof buf, "%s/paimon-local-cache", tmp && *tmp ? tmp : "/tmp");
    return pm_strdup(&out->dir, buf);
}

/* ------------------------------------------------------------------ */
/* the cache                                                           */

struct pm_lookup_cache {
    pm_lookup_cache_options o;
    pm_fileio *fio;
    pm_codec_ctx *codec;
    bool dir_ready;
    pm_lookup_cache_stats st;
};

pm_error *pm_lookup_cache_new(pm_lookup_cache **out, const pm_lookup_cache_options *o)
{
    *out = NULL;
    pm_lookup_cache *c;
    PM_TRY(pm_calloc(&c, 1, sizeof *c));
    c->o = *o;
    c->o.dir = NULL;
    pm_error *e = pm_strdup(&c->o.dir, o->dir);
    if (!e)
        e = pm_fileio_local_new(&c->fio);
    if (!e)
        e = pm_codec_ctx_new(&c->codec);
    if (e) {
        pm_lookup_cache_free(c);
        return e;
    }
    *out = c;
    return NULL;
}

void pm_lookup_cache_free(pm_lookup_cache *c)
{
    if (!c)
        return;
    pm_lookup_cache_options_clear(&c->o);
    pm_fileio_free(c->fio);
    pm_codec_ctx_free(c->codec);
    free(c);
}

void pm_lookup_cache_stats_get(const pm_lookup_cache *c, pm_lookup_cache_stats *out) { *out = c->st; }

static pm_error *charge(pm_lookup_cache *c, int64_t bytes, const char *what)
{
    if (c->st.memory + bytes > c->o.memory)
        return pm_error_new(PM_EUNSUPPORTED, "%s needs %lld bytes, above lookup.cache-max-memory-size (%lld bytes, "
                            "%lld in use); raise it or lower read.batch-size", what, (long long)bytes,
                            (long long)c->o.memory, (long long)c->st.memory);
    c->st.memory += bytes;
    if (c->st.memory > c->st.peak_memory)
        c->st.peak_memory = c->st.memory;
    return NULL;
}

static void uncharge(pm_lookup_cache *c, int64_t bytes) { c->st.memory -= bytes; }

static int64_t batch_bytes(const pm_batch *b)
{
    int64_t n = 0;
    for (size_t i = 0; b && i < b->ncolumns; i++) {
        const pm_column *c = b->columns[i];
        n += (int64_t)(c->values.cap + c->data.cap + c->offsets.cap + c->validity.cap);
    }
    return n;
}

/* Bytes the rows of b use (a reset batch keeps its capacity). */
static int64_t batch_used_bytes(const pm_batch *b)
{
    int64_t n = 0;
    for (size_t i = 0; b && i < b->ncolumns; i++) {
        const pm_column *c = b->columns[i];
        n += (int64_t)(c->values.len + c->data.len + c->offsets.len + c->validity.len);
    }
    return n;
}

/* ------------------------------------------------------------------ */
/* memory output (an Avro container of one block, in memory)          */

typedef struct mem_output {
    pm_output base;
    pm_buf *buf;
} mem_output;

static pm_error *mem_write(pm_output *o, const void *p, size_t n) { return pm_buf_append(((mem_output *)o)->buf, p, n); }
static pm_error *mem_close(pm_output *o, bool sync)
{
    (void)sync;
    free(o->path);
    free(o);
    return NULL;
}
static void mem_abort(pm_output *o)
{
    free(o->path);
    free(o);
}
static const pm_output_ops MEM_OPS = {mem_write, mem_close, mem_abort};

static pm_error *mem_output_new(pm_buf *buf, pm_output **out)
{
    mem_output *m;
    PM_TRY(pm_calloc(&m, 1, sizeof *m));
    m->base.ops = &MEM_OPS;
    m->buf = buf;
    *out = &m->base;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* the index                                                           */

typedef struct block_ref {
    uint64_t off;
    uint32_t clen, ulen, rows, crc;
    uint8_t *first;              /* first key */
    uint32_t first_len;
} block_ref;

struct pm_lookup_file {
    pm_lookup_cache *c;
    pm_table *t;                 /* for a rebuild */
    char *dir;
    pm_data_file_meta meta;
    pm_type *fields;
    bool rebuilt;                /* one rebuild per open */
    pm_type *type;               /* [_SEQ, _KIND, fields..., _POS] */
    pm_kv_layout layout;         /* key of `type` (copied) */
    pm_kv_keyenc *enc;
    char *lkp, *lki;             /* paths */
    pm_input *in;
    block_ref *blocks;
    size_t nblocks;
    int64_t index_bytes;         /* charged */
    /* the decoded block */
    size_t cur;                  /* block index, SIZE_MAX = none */
    pm_avro_reader *rd;
    pm_batch *batch;             /* owned copy of the block's rows */
    pm_buf keys;
    uint32_t *off, *klen;
    int64_t block_bytes;         /* charged */
    pm_buf raw, plain;
};

static void blocks_free(block_ref *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(b[i].first);
    free(b);
}

static void put_u32(pm_buf *b, uint32_t v, pm_error **e)
{
    uint8_t x[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    if (!*e)
        *e = pm_buf_append(b, x, 4);
}

static void put_u64(pm_buf *b, uint64_t v, pm_error **e)
{
    put_u32(b, (uint32_t)(v >> 32), e);
    put_u32(b, (uint32_t)v, e);
}

static void put_str(pm_buf *b, const char *s, pm_error **e)
{
    size_t n = strlen(s);
    put_u32(b, (uint32_t)n, e);
    if (!*e)
        *e = pm_buf_append(b, s, n);
}

static pm_error *index_encode(const block_ref *bl, size_t n, pm_codec_id codec, uint64_t lkp_size,
                              const pm_data_file_meta *f, pm_buf *out)
{
    pm_error *e = pm_buf_append(out, MAGIC, 4);
    put_u32(out, VERSION, &e);
    put_u32(out, (uint32_t)codec, &e);
    put_u64(out, lkp_size, &e);
    put_str(out, f->file_name, &e);
    put_u64(out, (uint64_t)f->file_size, &e);
    put_u64(out, n, &e);
    for (size_t i = 0; i < n && !e; i++) {
        put_u64(out, bl[i].off, &e);
        put_u32(out, bl[i].clen, &e);
        put_u32(out, bl[i].ulen, &e);
        put_u32(out, bl[i].rows, &e);
        put_u32(out, bl[i].crc, &e);
        put_u32(out, bl[i].first_len, &e);
        if (!e)
            e = pm_buf_append(out, bl[i].first, bl[i].first_len);
    }
    put_u32(out, pq_crc32(0, out->data, out->len), &e);
    return e;
}

/* PM_ECORRUPT for anything that is not a sound index of f. */
static pm_error *index_decode(pm_lookup_file *lf, const uint8_t *p, size_t n, const pm_data_file_meta *f,
                              uint64_t lkp_size)
{
    if (n < 8 || memcmp(p, MAGIC, 4))
        return pm_error_new(PM_ECORRUPT, "not a lookup index");
    uint32_t crc = pm_load_u32be(p + n - 4);
    if (pq_crc32(0, p, n - 4) != crc)
        return pm_error_new(PM_ECORRUPT, "lookup index checksum mismatch");
    pm_cursor cur = pm_cursor_make(p + 4, n - 8);
    uint32_t version = 0, codec = 0, nlen = 0;
    uint64_t size = 0, fsize = 0, nb = 0;
    PM_TRY(pm_cursor_u32be(&cur, &version, "lookup index"));
    PM_TRY(pm_cursor_u32be(&cur, &codec, "lookup index"));
    PM_TRY(pm_cursor_u64be(&cur, &size, "lookup index"));
    PM_TRY(pm_cursor_u32be(&cur, &nlen, "lookup index"));
    const uint8_t *name = NULL;
    PM_TRY(pm_cursor_take(&cur, nlen, &name, "lookup index"));
    PM_TRY(pm_cursor_u64be(&cur, &fsize, "lookup index"));
    PM_TRY(pm_cursor_u64be(&cur, &nb, "lookup index"));
    if (version != VERSION || codec != (uint32_t)lf->c->o.codec || size != lkp_size ||
        nlen != strlen(f->file_name) || memcmp(name, f->file_name, nlen) || fsize != (uint64_t)f->file_size ||
        nb > n / 24)
        return pm_error_new(PM_ECORRUPT, "lookup index of another file, codec or size");
    PM_TRY(charge(lf->c, (int64_t)(nb * sizeof *lf->blocks + n), "the lookup index"));
    lf->index_bytes = (int64_t)(nb * sizeof *lf->blocks + n);
    PM_TRY(pm_calloc(&lf->blocks, nb ? nb : 1, sizeof *lf->blocks));
    for (uint64_t i = 0; i < nb; i++) {
        block_ref *b = &lf->blocks[i];
        const uint8_t *fk = NULL;
        PM_TRY(pm_cursor_u64be(&cur, &b->off, "lookup index"));
        PM_TRY(pm_cursor_u32be(&cur, &b->clen, "lookup index"));
        PM_TRY(pm_cursor_u32be(&cur, &b->ulen, "lookup index"));
        PM_TRY(pm_cursor_u32be(&cur, &b->rows, "lookup index"));
        PM_TRY(pm_cursor_u32be(&cur, &b->crc, "lookup index"));
        PM_TRY(pm_cursor_u32be(&cur, &b->first_len, "lookup index"));
        PM_TRY(pm_cursor_take(&cur, b->first_len, &fk, "lookup index"));
        PM_TRY(pm_calloc(&b->first, b->first_len ? b->first_len : 1, 1));
        memcpy(b->first, fk, b->first_len);
        lf->nblocks = i + 1;
        if (b->off + b->clen > lkp_size)
            return pm_error_new(PM_ECORRUPT, "lookup block %llu lies outside its file", (unsigned long long)i);
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* building                                                            */

typedef struct builder {
    pm_lookup_file *lf;
    pm_output *out;
    pm_batch *pending;
    block_ref *bl;
    size_t nbl;
    pm_buf avro, comp, kb;
    int64_t charged;
} builder;

static pm_error *flush_block(builder *b)
{
    pm_lookup_file *lf = b->lf;
    pm_batch *p = b->pending;
    if (!p || !p->num_rows)
        return NULL;
    pm_buf_clear(&b->avro);
    pm_buf_clear(&b->comp);
    pm_output *mo = NULL;
    pm_avro_writer *aw = NULL;
    pm_avro_write_options ao = {PM_CODEC_NONE, 0, 0, SIZE_MAX / 2};
    PM_TRY(mem_output_new(&b->avro, &mo));
    pm_error *e = pm_avro_writer_open(mo, lf->type, &ao, &aw);
    if (!e)
        e = pm_avro_writer_write(aw, p);
    if (!e)
        e = pm_avro_writer_finish(aw);
    pm_avro_writer_free(aw);
    pm_output_abort(mo);
    if (!e)
        e = pm_codec_compress(lf->c->codec, lf->c->o.codec, 0, b->avro.data, b->avro.len, &b->comp);
    uint32_t kl = 0;
    pm_buf_clear(&b->kb);
    if (!e)
        e = pm_kv_keyenc_row(lf->enc, p, 0, false, &b->kb, &kl);
    if (!e)
        e = pm_realloc_array(&b->bl, b->nbl + 1, sizeof *b->bl);
    if (e)
        return e;
    block_ref *r = &b->bl[b->nbl];
    memset(r, 0, sizeof *r);
    r->off = pm_output_pos(b->out);
    r->clen = (uint32_t)b->comp.len;
    r->ulen = (uint32_t)b->avro.len;
    r->rows = (uint32_t)p->num_rows;
    r->crc = pq_crc32(0, b->comp.data, b->comp.len);
    r->first_len = kl;
    PM_TRY(pm_calloc(&r->first, kl ? kl : 1, 1));
    memcpy(r->first, b->kb.data, kl);
    b->nbl++;
    if (pm_fault("lookup-file-write"))
        return pm_error_new(PM_EIO, "injected fault: lookup-file-write (no space left on device)");
    PM_TRY(pm_output_write(b->out, b->comp.data, b->comp.len));
    return pm_batch_reset(p);
}

/* Rows of batch `in` (file rows [_SEQ, _KIND, fields...]) with their
 * positions into the pending block. */
static pm_error *add_rows(builder *b, const pm_batch *in, int64_t pos)
{
    pm_lookup_file *lf = b->lf;
    if (!b->pending)
        PM_TRY(pm_batch_new(&b->pending, lf->type));
    for (int64_t r = 0; r < in->num_rows; r++) {
        for (size_t c = 0; c < in->ncolumns; c++)
            PM_TRY(pm_column_append_from(b->pending->columns[c], in->columns[c], r));
        PM_TRY(pm_column_append_i64(b->pending->columns[in->ncolumns], pos + r));
        PM_TRY(pm_batch_finish(b->pending, b->pending->num_rows + 1));
        if (b->pending->num_rows >= BLOCK_ROWS || batch_used_bytes(b->pending) >= BLOCK_BYTES)
            PM_TRY(flush_block(b));
    }
    return NULL;
}

static pm_error *mkdir_cache(pm_lookup_cache *c)
{
    if (c->dir_ready)
        return NULL;
    PM_TRY(pm_error_wrap(pm_fileio_mkdirs(c->fio, c->o.dir), 0, "local-cache.dir %s", c->o.dir));
    c->dir_ready = true;
    return NULL;
}

/* Stream data file f into a new Lookup File (tmp names, then renamed). */
static pm_error *build(pm_lookup_file *lf, pm_table *t, const char *bucket_dir, const pm_data_file_meta *f,
                       const pm_type *fields, uint64_t *lkp_size)
{
    pm_lookup_cache *c = lf->c;
    PM_TRY(mkdir_cache(c));
    char id[40], *tlkp = NULL, *tlki = NULL;
    PM_TRY(pm_uuid(id));
    size_t n = strlen(lf->lkp) + 48;
    PM_TRY(pm_calloc(&tlkp, n, 1));
    pm_error *e = pm_calloc(&tlki, n, 1);
    if (e) {
        free(tlkp);
        return e;
    }
    snprintf(tlkp, n, "%s.%s.tmp", lf->lkp, id);
    snprintf(tlki, n, "%s.%s.tmp", lf->lki, id);
    builder b;
    memset(&b, 0, sizeof b);
    b.lf = lf;
    pm_file_reader *fr = NULL;
    pm_type *rt = pm_type_clone(fields);
    pm_file_read_options fo = {rt, 1024, true, NULL};
    e = rt ? pm_output_create(c->fio, tlkp, true, &b.out) : pm_oom();
    if (!e)
        e = pm_file_reader_open(&fr, t, bucket_dir, f, &fo);
    while (!e) {
        const pm_batch *in = NULL;
        e = pm_file_reader_next(fr, &in);
        if (e || !in)
            break;
        int64_t bytes = batch_bytes(in);
        e = charge(c, bytes, "a batch of the file to look up");
        if (e)
            break;
        e = add_rows(&b, in, pm_file_reader_position(fr));
        uncharge(c, bytes);
    }
    if (!e)
        e = flush_block(&b);
    pm_file_reader_free(fr);
    pm_type_free(rt);
    pm_buf idx = PM_BUF_INIT;
    if (!e) {
        *lkp_size = pm_output_pos(b.out);
        e = pm_output_close(b.out, false);
        b.out = NULL;
    }
    if (!e)
        e = index_encode(b.bl, b.nbl, c->o.codec, *lkp_size, f, &idx);
    if (!e)
        e = pm_fileio_overwrite_atomic(c->fio, tlki, idx.data, idx.len);
    if (!e)
        e = pm_fileio_rename(c->fio, tlkp, lf->lkp);
    if (!e)
        e = pm_fileio_rename(c->fio, tlki, lf->lki);
    pm_output_abort(b.out);
    if (e) {
        pm_error_free(pm_fileio_delete(c->fio, tlkp));
        pm_error_free(pm_fileio_delete(c->fio, tlki));
    }
    pm_buf_free(&idx);
    pm_batch_free(b.pending);
    blocks_free(b.bl, b.nbl);
    pm_buf_free(&b.avro);
    pm_buf_free(&b.comp);
    pm_buf_free(&b.kb);
    free(tlkp);
    free(tlki);
    if (!e)
        c->st.built++;
    return e ? pm_error_wrap(e, 0, "build the lookup file of %s in %s", f->file_name, c->o.dir) : NULL;
}

/* ------------------------------------------------------------------ */
/* eviction                                                            */

typedef struct cached {
    char *name;                  /* <id> */
    int64_t size;
    time_t used;
} cached;

static int cmp_used(const void *x, const void *y)
{
    const cached *a = x, *b = y;
    return a->used < b->used ? -1 : a->used > b->used;
}

/* Files of the cache over max-size: evict the least recently used pairs
 * except `keep`; PM_EUNSUPPORTED when `keep` alone is too large. */
static pm_error *evict(pm_lookup_cache *c, const char *keep)
{
    if (!c->o.max_size)
        return NULL;
    DIR *d = opendir(c->o.dir);
    if (!d)
        return pm_error_new(PM_EIO, "local-cache.dir %s: %s", c->o.dir, strerror(errno));
    cached *v = NULL;
    size_t n = 0, cap = 0;
    int64_t total = 0;
    pm_error *e = NULL;
    for (struct dirent *de; !e && (de = readdir(d));) {
        size_t len = strlen(de->d_name);
        if (len < 5 || (strcmp(de->d_name + len - 4, ".lkp") && strcmp(de->d_name + len - 4, ".lki")))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", c->o.dir, de->d_name);
        struct stat st;
        if (stat(path, &st))
            continue;
        total += st.st_size;
        size_t k = 0;
        for (; k < n && (strlen(v[k].name) != len - 4 || strncmp(v[k].name, de->d_name, len - 4)); k++) {
        }
        if (k == n) {
            if (n == cap) {
                cap = cap ? cap * 2 : 16;
                e = pm_realloc_array(&v, cap, sizeof *v);
                if (e)
                    break;
            }
            v[n].size = 0;
            v[n].used = st.st_mtime;
            e = pm_strndup(&v[n].name, de->d_name, len - 4);
            if (e)
                break;
            n++;
        }
        v[k].size += st.st_size;
        if (st.st_mtime > v[k].used)
            v[k].used = st.st_mtime;
    }
    closedir(d);
    if (!e && n > 1)
        qsort(v, n, sizeof *v, cmp_used);
    for (size_t i = 0; !e && i < n && total > c->o.max_size; i++) {
        if (!strcmp(v[i].name, keep))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.lki", c->o.dir, v[i].name);
        unlink(path);
        snprintf(path, sizeof path, "%s/%s.lkp", c->o.dir, v[i].name);
        unlink(path);
        total -= v[i].size;
        c->st.evicted++;
    }
    if (!e && total > c->o.max_size)
        e = pm_error_new(PM_EUNSUPPORTED, "the local cache cannot retain a lookup file of %lld bytes within "
                         "local-cache.max-size (%lld bytes)", (long long)total, (long long)c->o.max_size);
    for (size_t i = 0; i < n; i++)
        free(v[i].name);
    free(v);
    return e;
}

/* ------------------------------------------------------------------ */
/* open / get / close                                                  */

static void release_block(pm_lookup_file *lf)
{
    pm_avro_reader_free(lf->rd);
    lf->rd = NULL;
    pm_batch_free(lf->batch);
    lf->batch = NULL;
    uncharge(lf->c, lf->block_bytes);
    lf->block_bytes = 0;
    lf->cur = SIZE_MAX;
}

void pm_lookup_file_close(pm_lookup_file *lf)
{
    if (!lf)
        return;
    release_block(lf);
    uncharge(lf->c, lf->index_bytes);
    pm_input_close(lf->in);
    blocks_free(lf->blocks, lf->nblocks);
    pm_kv_keyenc_free(lf->enc);
    pm_kv_layout_clear(&lf->layout);
    pm_type_free(lf->type);
    pm_type_free(lf->fields);
    free(lf->dir);
    pm_data_file_meta_clear(&lf->meta);
    free(lf->lkp);
    free(lf->lki);
    pm_buf_free(&lf->keys);
    free(lf->off);
    free(lf->klen);
    pm_buf_free(&lf->raw);
    pm_buf_free(&lf->plain);
    free(lf);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* The cache entry id of (table, file, schema, row type). */
static pm_error *entry_id(pm_table *t, const pm_data_file_meta *f, const pm_type *type, char out[40])
{
    uint64_t h = 1469598103934665603ULL;
    const char *tp = pm_table_path(t);
    h = fnv(h, tp, strlen(tp) + 1);
    h = fnv(h, f->file_name, strlen(f->file_name) + 1);
    h = fnv(h, &f->file_size, sizeof f->file_size);
    for (size_t i = 0; i < type->nfields; i++) {
        char *ts = pm_type_to_string(type->fields[i].type);
        if (!ts)
            return pm_oom();
        h = fnv(h, &type->fields[i].id, sizeof type->fields[i].id);
        h = fnv(h, ts, strlen(ts) + 1);
        free(ts);
    }
    snprintf(out, 40, "lookup-%016llx", (unsigned long long)h);
    return NULL;
}

/* Read the index of an existing pair (PM_ENOTFOUND when missing). */
static pm_error *load(pm_lookup_file *lf, const pm_data_file_meta *f)
{
    pm_lookup_cache *c = lf->c;
    bool a = false, b = false;
    PM_TRY(pm_fileio_exists(c->fio, lf->lki, &a));
    PM_TRY(pm_fileio_exists(c->fio, lf->lkp, &b));
    if (!a || !b)
        return pm_error_new(PM_ENOTFOUND, "no lookup file");
    PM_TRY(pm_input_open(c->fio, lf->lkp, &lf->in));
    pm_buf idx = PM_BUF_INIT;
    pm_error *e = pm_fileio_read_file(c->fio, lf->lki, &idx);
    if (!e)
        e = index_decode(lf, idx.data, idx.len, f, pm_input_size(lf->in));
    pm_buf_free(&idx);
    if (!e) {
        utime(lf->lki, NULL); /* recently used */
        utime(lf->lkp, NULL);
    }
    return e;
}

static void unload(pm_lookup_file *lf)
{
    release_block(lf);
    uncharge(lf->c, lf->index_bytes);
    lf->index_bytes = 0;
    pm_input_close(lf->in);
    lf->in = NULL;
    blocks_free(lf->blocks, lf->nblocks);
    lf->blocks = NULL;
    lf->nblocks = 0;
}

/* Build the pair again (a missing or corrupt one) and load its index. */
static pm_error *rebuild(pm_lookup_file *lf, bool missing)
{
    unload(lf);
    pm_error_free(pm_fileio_delete(lf->c->fio, lf->lki));
    pm_error_free(pm_fileio_delete(lf->c->fio, lf->lkp));
    if (!missing)
        lf->c->st.rebuilt++;
    uint64_t size = 0;
    PM_TRY(build(lf, lf->t, lf->dir, &lf->meta, lf->fields, &size));
    const char *slash = strrchr(lf->lkp, '/');
    char id[64];
    snprintf(id, sizeof id, "%.*s", (int)(strlen(slash + 1) - 4), slash + 1);
    PM_TRY(evict(lf->c, id));
    return load(lf, &lf->meta);
}

pm_error *pm_lookup_file_open(pm_lookup_file **out, pm_lookup_cache *c, pm_table *t, const char *bucket_dir,
                              const pm_data_file_meta *f, const pm_type *fields, const pm_kv_layout *layout)
{
    *out = NULL;
    pm_lookup_file *lf;
    PM_TRY(pm_calloc(&lf, 1, sizeof *lf));
    lf->c = c;
    lf->cur = SIZE_MAX;
    char id[40];
    pm_error *e = NULL;
    /* [_SEQUENCE_NUMBER, _VALUE_KIND, fields..., _POS] */
    lf->type = pm_type_new_row(false);
    if (!lf->type)
        e = pm_oom();
    if (!e)
        e = add_field(lf->type, SEQ_ID, "_SEQUENCE_NUMBER", pm_type_new(PM_TYPE_BIGINT, false));
    if (!e)
        e = add_field(lf->type, KIND_ID, "_VALUE_KIND", pm_type_new(PM_TYPE_TINYINT, false));
    for (size_t i = 0; !e && i < fields->nfields; i++)
        e = add_field(lf->type, fields->fields[i].id, fields->fields[i].name, pm_type_clone(fields->fields[i].type));
    if (!e)
        e = add_field(lf->type, POS_ID, "_POS", pm_type_new(PM_TYPE_BIGINT, false));
    if (!e)
        e = pm_kv_layout_copy(&lf->layout, layout);
    if (!e)
        e = pm_kv_keyenc_new(&lf->enc, &lf->layout, lf->type);
    if (!e)
        e = entry_id(t, f, lf->type, id);
    if (!e) {
        size_t n = strlen(c->o.dir) + 64;
        e = pm_calloc(&lf->lkp, n, 1);
        if (!e)
            e = pm_calloc(&lf->lki, n, 1);
        if (!e) {
            snprintf(lf->lkp, n, "%s/%s.lkp", c->o.dir, id);
            snprintf(lf->lki, n, "%s/%s.lki", c->o.dir, id);
        }
    }
    lf->t = t;
    if (!e)
        e = pm_strdup(&lf->dir, bucket_dir);
    if (!e)
        e = pm_data_file_meta_copy(&lf->meta, f);
    if (!e)
        e = (lf->fields = pm_type_clone(fields)) ? NULL : pm_oom();
    if (!e) {
        pm_error *le = load(lf, f);
        if (!le) {
            c->st.reused++;
        } else {
            bool missing = pm_error_code(le) == PM_ENOTFOUND;
            pm_error_free(le);
            if (!missing)
                lf->rebuilt = true;
            e = rebuild(lf, missing);
        }
    }
    if (e) {
        pm_lookup_file_close(lf);
        return pm_error_wrap(e, 0, "lookup file of %s", f->file_name);
    }
    *out = lf;
    return NULL;
}

bool pm_lookup_file_first_key(const pm_lookup_file *lf, const uint8_t **key, size_t *len)
{
    if (!lf->nblocks)
        return false;
    *key = lf->blocks[0].first;
    *len = lf->blocks[0].first_len;
    return true;
}

/* Decode block i into lf->batch with its sort keys. */
static pm_error *decode_block(pm_lookup_file *lf, size_t i)
{
    const block_ref *b = &lf->blocks[i];
    release_block(lf);
    PM_TRY(charge(lf->c, (int64_t)b->clen + (int64_t)b->ulen * 3, "a lookup block"));
    lf->block_bytes = (int64_t)b->clen + (int64_t)b->ulen * 3;
    pm_buf_clear(&lf->raw);
    pm_buf_clear(&lf->plain);
    PM_TRY(pm_buf_reserve(&lf->raw, b->clen));
    PM_TRY(pm_input_read_at(lf->in, b->off, lf->raw.data, b->clen));
    lf->raw.len = b->clen;
    if (pq_crc32(0, lf->raw.data, b->clen) != b->crc)
        return pm_error_new(PM_ECORRUPT, "lookup block %zu of %s: checksum mismatch", i, lf->lkp);
    PM_TRY(pm_codec_decompress_append(lf->c->codec, lf->c->o.codec, lf->raw.data, b->clen, &lf->plain,
                                      (size_t)b->ulen + 1));
    if (lf->plain.len != b->ulen)
        return pm_error_new(PM_ECORRUPT, "lookup block %zu of %s: %zu bytes, the index says %u", i, lf->lkp,
                            lf->plain.len, b->ulen);
    pm_avro_read_options ro = {(int64_t)b->rows + 1, 0};
    PM_TRY(pm_avro_reader_open_memory(lf->plain.data, lf->plain.len, lf->lkp, lf->type, &ro, &lf->rd));
    pm_batch *got = NULL;
    PM_TRY(pm_avro_reader_next(lf->rd, &got));
    if (!got || got->num_rows != (int64_t)b->rows)
        return pm_error_new(PM_ECORRUPT, "lookup block %zu of %s: %lld rows, the index says %u", i, lf->lkp,
                            got ? (long long)got->num_rows : 0LL, b->rows);
    lf->batch = NULL;
    PM_TRY(pm_kv_batch_share(got, &lf->batch));
    PM_TRY(pm_realloc_array(&lf->off, (size_t)b->rows + 1, sizeof *lf->off));
    PM_TRY(pm_realloc_array(&lf->klen, (size_t)b->rows + 1, sizeof *lf->klen));
    PM_TRY(pm_kv_keyenc_batch(lf->enc, lf->batch, &lf->keys, lf->off, lf->klen));
    lf->cur = i;
    return NULL;
}

pm_error *pm_lookup_file_get(pm_lookup_file *lf, const uint8_t *key, size_t len, bool *found, const pm_batch **b,
                             int64_t *row)
{
    *found = false;
    *b = NULL;
    *row = -1;
    /* the last block whose first key <= key */
    size_t lo = 0, hi = lf->nblocks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pm_kv_keycmp(lf->blocks[mid].first, lf->blocks[mid].first_len, key, len) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo)
        return NULL;
    size_t blk = lo - 1;
    if (lf->cur != blk) {
        pm_error *e = decode_block(lf, blk);
        if (e && pm_error_code(e) == PM_ECORRUPT && !lf->rebuilt) {
            /* a damaged block: build the file again, once */
            pm_error_free(e);
            lf->rebuilt = true;
            PM_TRY(pm_error_wrap(rebuild(lf, false), 0, "rebuild the lookup file of %s", lf->meta.file_name));
            return pm_lookup_file_get(lf, key, len, found, b, row);
        }
        PM_TRY(e);
    }
    int64_t l = 0, h = lf->batch->num_rows;
    while (l < h) {
        int64_t mid = l + (h - l) / 2;
        int c = pm_kv_keycmp(lf->keys.data + lf->off[mid], lf->klen[mid], key, len);
        if (c == 0) {
            *found = true;
            *b = lf->batch;
            *row = mid;
            return NULL;
        }
        if (c < 0)
            l = mid + 1;
        else
            h = mid;
    }
    return NULL;
}
