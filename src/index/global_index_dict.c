/*
 * index/global_index_dict.c — building and querying dictionary bitmap
 * global index files (layout in global_index_dict.h).
 */
#include "index/global_index_dict.h"

#include <stdlib.h>
#include <string.h>

#include "base/compare.h"
#include "base/cursor.h"
#include "base/mem.h"
#include "index/fi_internal.h"
#include "index/global_index_block.h"
#include "index/global_index_key.h"
#include "types/column.h"

#define DICT_MAGIC 0x42474958u
#define DICT_VERSION 1
#define DICT_FOOTER 48

bool pm_gi_dict_is(const uint8_t *p, size_t n) { return n >= DICT_FOOTER && pm_load_u32be(p + n - 4) == DICT_MAGIC; }

static size_t varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >>= 7)
        n++;
    return n;
}

/* One distinct key: its bytes (into the key buffer) and rows. */
typedef struct dict_key {
    const uint8_t *p;
    size_t n;
    roaring_bitmap_t *rows; /* borrowed from the value map */
} dict_key;

static int cmp_key(const void *a, const void *b)
{
    const dict_key *x = a, *y = b;
    return pm_cmp_bytes(x->p, x->n, y->p, y->n);
}

/* The dictionary block being filled: entries (raw bytes, without the
 * leading count) and their count. */
typedef struct dict_builder {
    pm_buf entries;
    size_t count;
    pm_buf first;
} dict_builder;

/* Flush the dictionary block into f, its first key and handle into idx. */
static pm_error *flush_block(dict_builder *d, const pm_gi_column *g, pm_buf *f, pm_buf *raw, pm_buf *idx,
                             size_t *nblocks)
{
    if (!d->count)
        return NULL;
    pm_buf_clear(raw);
    PM_TRY(pm_buf_append_uvarint(raw, d->count));
    PM_TRY(pm_buf_append(raw, d->entries.data, d->entries.len));
    uint64_t off;
    uint32_t size;
    PM_TRY(pm_gi_block_put(f, raw->data, raw->len, g->compression, g->compression_level, &off, &size));
    PM_TRY(pm_buf_append_uvarint(idx, d->first.len));
    PM_TRY(pm_buf_append(idx, d->first.data, d->first.len));
    PM_TRY(pm_buf_append_uvarint(idx, off));
    PM_TRY(pm_buf_append_uvarint(idx, size));
    (*nblocks)++;
    pm_buf_clear(&d->entries);
    pm_buf_clear(&d->first);
    d->count = 0;
    return NULL;
}

static pm_error *put_bitmap(pm_buf *f, roaring_bitmap_t *bm, uint64_t *off, uint64_t *len)
{
    *off = f->len;
    PM_TRY(pm_gi_roaring64_put(f, bm));
    *len = f->len - *off;
    if (*len > INT32_MAX)
        return pm_error_new(PM_EUNSUPPORTED, "a bitmap global index bitmap above 2 GiB");
    return NULL;
}

static pm_error *put_u64be(pm_buf *f, uint64_t v)
{
    PM_TRY(pm_buf_append_u32be(f, (uint32_t)(v >> 32)));
    return pm_buf_append_u32be(f, (uint32_t)v);
}

static pm_error *put_meta_key(pm_buf *m, fv_kind k, const fi_val *v, pm_buf *tmp)
{
    pm_buf_clear(tmp);
    if (v)
        PM_TRY(pm_gi_key_put(tmp, k, v));
    PM_TRY(pm_buf_append_u32le(m, (uint32_t)tmp->len));
    return pm_buf_append(m, tmp->data, tmp->len);
}

pm_error *pm_gi_dict_build(const pm_gi_column *g, const pm_column *values, int64_t nrows, pm_gi_payload *out)
{
    fv_kind k;
    if (!pm_gi_key_kind(g->type, &k))
        return pm_error_new(PM_EUNSUPPORTED, "dictionary bitmap global index on column %s: type not supported",
                            g->column);
    fi_valmap m;
    fi_valmap_init(&m, k);
    roaring_bitmap_t *nulls = roaring_bitmap_create(), *nonnull = roaring_bitmap_create();
    dict_key *keys = NULL;
    size_t *koff = NULL;
    pm_buf kb = PM_BUF_INIT, raw = PM_BUF_INIT, idx = PM_BUF_INIT, tmp = PM_BUF_INIT, ent = PM_BUF_INIT;
    dict_builder d = {PM_BUF_INIT, 0, PM_BUF_INIT};
    pm_buf *f = &out->bytes;
    pm_error *e = nulls && nonnull ? NULL : pm_oom();
    const fi_val *lo = NULL, *hi = NULL;
    for (int64_t r = 0; r < nrows && !e; r++) {
        if (pm_column_is_null(values, r)) {
            roaring_bitmap_add(nulls, (uint32_t)r);
            continue;
        }
        roaring_bitmap_add(nonnull, (uint32_t)r);
        fi_val v;
        if (!(e = fi_value_get(values, r, k, &v)))
            e = fi_valmap_add(&m, &v, (uint32_t)r);
    }
    if (e)
        goto done;
    /* every distinct key's bytes, then the keys in unsigned byte order */
    PM_TRY_GOTO(e, pm_calloc(&keys, m.n ? m.n : 1, sizeof *keys), done);
    PM_TRY_GOTO(e, pm_calloc(&koff, m.n ? m.n : 1, sizeof *koff), done);
    for (size_t i = 0; i < m.n; i++) {
        koff[i] = kb.len;
        PM_TRY_GOTO(e, pm_gi_key_put(&kb, k, &m.e[i].v), done);
        if (!lo || fi_value_compare(k, &m.e[i].v, lo) < 0)
            lo = &m.e[i].v;
        if (!hi || fi_value_compare(k, &m.e[i].v, hi) > 0)
            hi = &m.e[i].v;
    }
    for (size_t i = 0; i < m.n; i++)
        keys[i] = (dict_key){kb.data + koff[i], (i + 1 < m.n ? koff[i + 1] : kb.len) - koff[i], m.e[i].rows};
    if (m.n)
        qsort(keys, m.n, sizeof *keys, cmp_key);
    size_t nblocks = 0;
    for (size_t i = 0; i < m.n; i++) {
        uint64_t off, len;
        PM_TRY_GOTO(e, put_bitmap(f, keys[i].rows, &off, &len), done);
        size_t esize = varint_size(keys[i].n) + keys[i].n + varint_size(off) + varint_size(len);
        if (d.count && varint_size(d.count + 1) + d.entries.len + esize > (uint64_t)g->bitmap_dict_block_size)
            PM_TRY_GOTO(e, flush_block(&d, g, f, &raw, &idx, &nblocks), done);
        if (!d.count)
            PM_TRY_GOTO(e, pm_buf_append(&d.first, keys[i].p, keys[i].n), done);
        PM_TRY_GOTO(e, pm_buf_append_uvarint(&d.entries, keys[i].n), done);
        PM_TRY_GOTO(e, pm_buf_append(&d.entries, keys[i].p, keys[i].n), done);
        PM_TRY_GOTO(e, pm_buf_append_uvarint(&d.entries, off), done);
        PM_TRY_GOTO(e, pm_buf_append_uvarint(&d.entries, len), done);
        d.count++;
    }
    PM_TRY_GOTO(e, flush_block(&d, g, f, &raw, &idx, &nblocks), done);
    uint64_t noff, nlen, voff, vlen, ioff;
    uint32_t isize;
    PM_TRY_GOTO(e, put_bitmap(f, nulls, &noff, &nlen), done);
    PM_TRY_GOTO(e, put_bitmap(f, nonnull, &voff, &vlen), done);
    PM_TRY_GOTO(e, pm_buf_append_uvarint(&ent, nblocks), done);
    PM_TRY_GOTO(e, pm_buf_append(&ent, idx.data, idx.len), done);
    PM_TRY_GOTO(e, pm_gi_block_put(f, ent.data, ent.len, g->compression, g->compression_level, &ioff, &isize), done);
    PM_TRY_GOTO(e, put_u64be(f, noff), done);
    PM_TRY_GOTO(e, pm_buf_append_u32be(f, (uint32_t)nlen), done);
    PM_TRY_GOTO(e, put_u64be(f, voff), done);
    PM_TRY_GOTO(e, pm_buf_append_u32be(f, (uint32_t)vlen), done);
    PM_TRY_GOTO(e, put_u64be(f, ioff), done);
    PM_TRY_GOTO(e, pm_buf_append_u32be(f, isize), done);
    if (m.n > INT32_MAX)
        PM_TRY_GOTO(e, pm_error_new(PM_EUNSUPPORTED, "a bitmap global index of more than 2^31 values"), done);
    PM_TRY_GOTO(e, pm_buf_append_u32be(f, (uint32_t)m.n), done);
    PM_TRY_GOTO(e, pm_buf_append_u32be(f, DICT_VERSION), done);
    PM_TRY_GOTO(e, pm_buf_append_u32be(f, DICT_MAGIC), done);
    /* SortedIndexFileMeta */
    out->has_meta = true;
    PM_TRY_GOTO(e, put_meta_key(&out->meta, k, lo, &tmp), done);
    PM_TRY_GOTO(e, put_meta_key(&out->meta, k, hi, &tmp), done);
    PM_TRY_GOTO(e, pm_buf_append_byte(&out->meta, roaring_bitmap_is_empty(nulls) ? 0 : 1), done);
    PM_TRY_GOTO(e, pm_buf_append_byte(&out->meta, 1), done);
    PM_TRY_GOTO(e, pm_buf_append_byte(&out->meta, lo ? 0 : 3), done);
    out->row_count = nrows;
done:
    if (nulls)
        roaring_bitmap_free(nulls);
    if (nonnull)
        roaring_bitmap_free(nonnull);
    free(keys);
    free(koff);
    fi_valmap_free(&m);
    pm_buf_free(&kb);
    pm_buf_free(&raw);
    pm_buf_free(&idx);
    pm_buf_free(&tmp);
    pm_buf_free(&ent);
    pm_buf_free(&d.entries);
    pm_buf_free(&d.first);
    return e;
}

/* ---------------------------------------------------------------- */
/* reader                                                            */

typedef struct dict_block {
    const uint8_t *first;
    size_t nfirst;
    uint64_t off, len;
} dict_block;

static pm_error *read_index(const uint8_t *p, size_t body, uint64_t off, uint64_t len, pm_buf *scratch,
                            dict_block **out, size_t *nout, const char *what)
{
    const uint8_t *b;
    size_t n;
    PM_TRY(pm_gi_block_get(p, body, off, len, scratch, &b, &n, what));
    pm_cursor c = pm_cursor_make(b, n);
    uint64_t cnt;
    PM_TRY(pm_cursor_uvarint(&c, &cnt, what));
    if (cnt > n)
        return pm_error_new(PM_ECORRUPT, "%s: bitmap index block of %llu entries in %zu bytes", what,
                            (unsigned long long)cnt, n);
    dict_block *v = NULL;
    PM_TRY(pm_calloc(&v, cnt ? cnt : 1, sizeof *v));
    pm_error *e = NULL;
    for (uint64_t i = 0; i < cnt && !e; i++) {
        uint64_t kl;
        if (!(e = pm_cursor_uvarint(&c, &kl, what)) && !(e = pm_cursor_take(&c, kl, &v[i].first, what)) &&
            !(e = pm_cursor_uvarint(&c, &v[i].off, what)))
            e = pm_cursor_uvarint(&c, &v[i].len, what);
        v[i].nfirst = kl;
        if (!e && i && pm_cmp_bytes(v[i - 1].first, v[i - 1].nfirst, v[i].first, v[i].nfirst) > 0)
            e = pm_error_new(PM_ECORRUPT, "%s: bitmap dictionary blocks out of key order", what);
    }
    if (e) {
        free(v);
        return e;
    }
    *out = v;
    *nout = (size_t)cnt;
    return NULL;
}

/* The bitmap of key[0..kn) in dictionary block blk, ORed into out. */
static pm_error *lookup(const uint8_t *p, size_t body, const dict_block *blk, const uint8_t *key, size_t kn,
                        pm_buf *scratch, roaring_bitmap_t *out, const char *what)
{
    const uint8_t *b;
    size_t n;
    PM_TRY(pm_gi_block_get(p, body, blk->off, blk->len, scratch, &b, &n, what));
    pm_cursor c = pm_cursor_make(b, n);
    uint64_t cnt;
    PM_TRY(pm_cursor_uvarint(&c, &cnt, what));
    for (uint64_t i = 0; i < cnt; i++) {
        uint64_t kl, off, len;
        const uint8_t *kp;
        PM_TRY(pm_cursor_uvarint(&c, &kl, what));
        PM_TRY(pm_cursor_take(&c, kl, &kp, what));
        PM_TRY(pm_cursor_uvarint(&c, &off, what));
        PM_TRY(pm_cursor_uvarint(&c, &len, what));
        int cmp = pm_cmp_bytes(kp, kl, key, kn);
        if (cmp > 0)
            break;
        if (cmp < 0)
            continue;
        if (off > body || len > body - off)
            return pm_error_new(PM_ECORRUPT, "%s: bitmap block [%llu, +%llu) outside the file", what,
                                (unsigned long long)off, (unsigned long long)len);
        return pm_gi_roaring64_or(p + off, (size_t)len, out, what);
    }
    return NULL;
}

pm_error *pm_gi_dict_query_in(const pm_type *t, const uint8_t *p, size_t n, const pm_column *lits,
                              roaring_bitmap_t *out, const char *what)
{
    fv_kind k;
    if (!pm_gi_key_kind(t, &k))
        return pm_error_new(PM_EUNSUPPORTED, "%s: dictionary bitmap global index of type %s", what,
                            pm_type_id_name(t->id));
    if (!pm_gi_dict_is(p, n))
        return pm_error_new(PM_ECORRUPT, "%s: not a dictionary bitmap global index file", what);
    const uint8_t *f = p + n - DICT_FOOTER;
    if (pm_load_u32be(f + 40) != DICT_VERSION)
        return pm_error_new(PM_EUNSUPPORTED, "%s: dictionary bitmap global index version %u", what,
                            pm_load_u32be(f + 40));
    if ((int32_t)pm_load_u32be(f + 36) < 0)
        return pm_error_new(PM_ECORRUPT, "%s: negative bitmap value count", what);
    size_t body = n - DICT_FOOTER;
    pm_buf ibuf = PM_BUF_INIT, dbuf = PM_BUF_INIT, key = PM_BUF_INIT;
    dict_block *blocks = NULL;
    size_t nb = 0;
    pm_error *e = read_index(p, body, pm_load_u64be(f + 24), pm_load_u32be(f + 32), &ibuf, &blocks, &nb, what);
    for (int64_t r = 0; !e && r < lits->length; r++) {
        fi_val x;
        if ((e = fi_value_get(lits, r, k, &x)))
            break;
        pm_buf_clear(&key);
        if ((e = pm_gi_key_put(&key, k, &x)))
            break;
        size_t lo = 0, hi = nb; /* blocks whose first key <= key: [0, lo) */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (pm_cmp_bytes(blocks[mid].first, blocks[mid].nfirst, key.data, key.len) <= 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo)
            e = lookup(p, body, &blocks[lo - 1], key.data, key.len, &dbuf, out, what);
    }
    free(blocks);
    pm_buf_free(&ibuf);
    pm_buf_free(&dbuf);
    pm_buf_free(&key);
    return e;
}
