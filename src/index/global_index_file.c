/*
 * index/global_index_file.c — btree and bitmap global index payloads
 * (layouts in global_index_file.h): building a range's files and the
 * bounds-checked point / IN lookup of one file.
 */
#include "index/global_index_file.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/cursor.h"
#include "base/mem.h"
#include "index/fi_internal.h"
#include "index/global_index_block.h"
#include "index/global_index_dict.h"
#include "index/global_index_key.h"
#include "types/column.h"

#define BT_MAGIC 0x50425449u
#define BT_FOOTER 52

void pm_gi_payloads_free(pm_gi_payload *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        pm_buf_free(&p[i].bytes);
        pm_buf_free(&p[i].meta);
    }
    free(p);
}

int pm_gi_range_cmp(const void *a, const void *b)
{
    const pm_gi_range *x = a, *y = b;
    return x->from < y->from ? -1 : x->from > y->from ? 1 : (x->to < y->to ? -1 : x->to > y->to);
}

void pm_gi_ranges_merge(pm_gi_range *r, size_t *n)
{
    if (*n)
        qsort(r, *n, sizeof *r, pm_gi_range_cmp);
    size_t k = 0;
    for (size_t i = 0; i < *n; i++) {
        if (k && r[i].from <= r[k - 1].to + 1) {
            if (r[i].to > r[k - 1].to)
                r[k - 1].to = r[i].to;
        } else {
            r[k++] = r[i];
        }
    }
    *n = k;
}

bool pm_gi_btree_type_ok(const pm_type *t)
{
    fv_kind k;
    return pm_gi_key_kind(t, &k);
}

/* ---------------------------------------------------------------- */
/* btree writer (SstFileWriter + BlockWriter)                        */

typedef struct bt_block {
    pm_buf data;
    uint32_t *pos;
    size_t n, cap;
    int32_t aligned_size;
    bool aligned;
} bt_block;

static void block_reset(bt_block *b)
{
    pm_buf_clear(&b->data);
    b->n = 0;
    b->aligned_size = 0;
    b->aligned = true;
}

static pm_error *block_add(bt_block *b, const uint8_t *k, size_t kn, const uint8_t *v, size_t vn)
{
    size_t start = b->data.len;
    PM_TRY(pm_buf_append_uvarint(&b->data, kn));
    PM_TRY(pm_buf_append(&b->data, k, kn));
    PM_TRY(pm_buf_append_uvarint(&b->data, vn));
    PM_TRY(pm_buf_append(&b->data, v, vn));
    if (b->data.len > INT32_MAX)
        return pm_error_new(PM_EUNSUPPORTED, "a btree index block above 2 GiB");
    if (b->n == b->cap) {
        size_t nc = pm_grow_cap(b->cap, b->n + 1);
        PM_TRY(pm_realloc_array(&b->pos, nc, sizeof *b->pos));
        b->cap = nc;
    }
    b->pos[b->n++] = (uint32_t)start;
    int32_t size = (int32_t)(b->data.len - start);
    if (b->aligned) {
        if (!b->aligned_size)
            b->aligned_size = size;
        else
            b->aligned = b->aligned_size == size;
    }
    return NULL;
}

static size_t block_memory(const bt_block *b) { return b->data.len + 5 + (b->aligned ? 0 : b->n * 4); }

/* How blocks of one file are stored (btree-index.compression, -level). */
typedef struct bt_codec {
    pm_gi_compression c;
    int level;
} bt_codec;

/* Finish block b into out (block bytes + trailer, compressed as z says);
 * *off, *size = its handle. */
static pm_error *block_write(bt_block *b, const bt_codec *z, pm_buf *out, uint64_t *off, uint32_t *size)
{
    if (!b->n)
        b->aligned = false;
    if (b->aligned) {
        PM_TRY(pm_buf_append_u32le(&b->data, (uint32_t)b->aligned_size));
    } else {
        for (size_t i = 0; i < b->n; i++)
            PM_TRY(pm_buf_append_u32le(&b->data, b->pos[i]));
        PM_TRY(pm_buf_append_u32le(&b->data, (uint32_t)b->n));
    }
    PM_TRY(pm_buf_append_byte(&b->data, b->aligned ? 0 : 1));
    PM_TRY(pm_gi_block_put(out, b->data.data, b->data.len, z->c, z->level, off, size));
    block_reset(b);
    return NULL;
}

/* SstFileWriter.flush: the data block into f, its last key → handle into
 * the index block. */
static pm_error *flush_data(bt_block *data, bt_block *index, const bt_codec *z, pm_buf *f, const pm_buf *last,
                            pm_buf *handle)
{
    uint64_t off;
    uint32_t size;
    PM_TRY(block_write(data, z, f, &off, &size));
    pm_buf_clear(handle);
    PM_TRY(pm_buf_append_uvarint(handle, off));
    PM_TRY(pm_buf_append_uvarint(handle, size));
    return block_add(index, last->data, last->len, handle->data, handle->len);
}

typedef struct bt_row {
    fi_val v;
    uint32_t row;
} bt_row;

/* One btree file of rows[0..n) (sorted) plus nulls. */
static pm_error *bt_file(fv_kind k, int64_t block_size, const bt_codec *z, const bt_row *rows, size_t n,
                         const uint32_t *nulls, size_t nnulls, pm_gi_payload *out)
{
    pm_buf *f = &out->bytes;
    bt_block data = {0}, index = {0};
    block_reset(&data);
    block_reset(&index);
    pm_buf key = PM_BUF_INIT, last = PM_BUF_INIT, val = PM_BUF_INIT, handle = PM_BUF_INIT, first = PM_BUF_INIT;
    roaring_bitmap_t *nb = NULL;
    pm_error *e = NULL;
    for (size_t i = 0; i < n && !e;) {
        size_t j = i + 1;
        while (j < n && fi_value_compare(k, &rows[j].v, &rows[i].v) == 0)
            j++;
        pm_buf_clear(&key);
        pm_buf_clear(&val);
        PM_TRY_GOTO(e, pm_gi_key_put(&key, k, &rows[i].v), done);
        PM_TRY_GOTO(e, pm_buf_append_uvarint(&val, j - i), done);
        for (size_t r = i; r < j; r++)
            PM_TRY_GOTO(e, pm_buf_append_uvarint(&val, rows[r].row), done);
        PM_TRY_GOTO(e, block_add(&data, key.data, key.len, val.data, val.len), done);
        if (i == 0)
            PM_TRY_GOTO(e, pm_buf_append(&first, key.data, key.len), done);
        pm_buf_clear(&last);
        PM_TRY_GOTO(e, pm_buf_append(&last, key.data, key.len), done);
        if ((int64_t)block_memory(&data) > block_size)
            PM_TRY_GOTO(e, flush_data(&data, &index, z, f, &last, &handle), done);
        i = j;
    }
    if (data.n)
        PM_TRY_GOTO(e, flush_data(&data, &index, z, f, &last, &handle), done);
    uint64_t null_off = 0, null_size = 0;
    if (nnulls) {
        if (!(nb = roaring_bitmap_of_ptr(nnulls, nulls)))
            PM_TRY_GOTO(e, pm_oom(), done);
        pm_buf bm = PM_BUF_INIT;
        e = pm_gi_roaring64_put(&bm, nb);
        if (!e) {
            null_off = f->len;
            null_size = bm.len;
            e = pm_buf_append(f, bm.data, bm.len);
        }
        if (!e)
            e = pm_buf_append_u32le(f, (uint32_t)crc32(0L, bm.data, (uInt)bm.len));
        pm_buf_free(&bm);
        if (e)
            goto done;
    }
    uint64_t ioff;
    uint32_t isize;
    PM_TRY_GOTO(e, block_write(&index, z, f, &ioff, &isize), done);
    /* footer */
    PM_TRY_GOTO(e, pm_buf_append_u64le(f, 0), done);
    PM_TRY_GOTO(e, pm_buf_append_u32le(f, 0), done);
    PM_TRY_GOTO(e, pm_buf_append_u64le(f, 0), done);
    PM_TRY_GOTO(e, pm_buf_append_u64le(f, ioff), done);
    PM_TRY_GOTO(e, pm_buf_append_u32le(f, isize), done);
    PM_TRY_GOTO(e, pm_buf_append_u64le(f, null_off), done);
    PM_TRY_GOTO(e, pm_buf_append_u32le(f, (uint32_t)null_size), done);
    PM_TRY_GOTO(e, pm_buf_append_u32le(f, 1), done);
    PM_TRY_GOTO(e, pm_buf_append_u32le(f, BT_MAGIC), done);
    /* BTreeIndexMeta */
    out->has_meta = true;
    PM_TRY_GOTO(e, pm_buf_append_u32le(&out->meta, (uint32_t)first.len), done);
    PM_TRY_GOTO(e, pm_buf_append(&out->meta, first.data, first.len), done);
    PM_TRY_GOTO(e, pm_buf_append_u32le(&out->meta, (uint32_t)last.len), done);
    PM_TRY_GOTO(e, pm_buf_append(&out->meta, last.data, last.len), done);
    PM_TRY_GOTO(e, pm_buf_append_byte(&out->meta, nnulls ? 1 : 0), done);
    out->row_count = (int64_t)(n + nnulls);
done:
    if (nb)
        roaring_bitmap_free(nb);
    pm_buf_free(&data.data);
    pm_buf_free(&index.data);
    free(data.pos);
    free(index.pos);
    pm_buf_free(&key);
    pm_buf_free(&last);
    pm_buf_free(&val);
    pm_buf_free(&handle);
    pm_buf_free(&first);
    return e;
}

/* Stable merge sort of rows[0..n) by key: equal keys keep their order
 * (row ids ascending when filled in row order). */
static void bt_sort(fv_kind k, bt_row *rows, bt_row *tmp, size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    bt_sort(k, rows, tmp, h);
    bt_sort(k, rows + h, tmp, n - h);
    if (fi_value_compare(k, &rows[h - 1].v, &rows[h].v) <= 0)
        return; /* the halves are already in order */
    size_t i = 0, j = h, o = 0;
    while (i < h && j < n)
        tmp[o++] = fi_value_compare(k, &rows[j].v, &rows[i].v) < 0 ? rows[j++] : rows[i++];
    while (i < h)
        tmp[o++] = rows[i++];
    while (j < n)
        tmp[o++] = rows[j++];
    memcpy(rows, tmp, n * sizeof *rows);
}

static pm_error *build_btree(const pm_gi_column *g, const pm_column *values, int64_t nrows, pm_gi_payload **out,
                             size_t *nout)
{
    fv_kind k;
    if (!pm_gi_key_kind(g->type, &k))
        return pm_error_new(PM_EUNSUPPORTED, "btree global index on column %s: type not supported", g->column);
    bt_row *rows = NULL, *tmp = NULL;
    uint32_t *nulls = NULL;
    size_t n = 0, nn = 0;
    pm_gi_payload *ps = NULL;
    size_t np = 0;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_calloc(&rows, (size_t)nrows, sizeof *rows), done);
    PM_TRY_GOTO(e, pm_calloc(&nulls, (size_t)nrows, sizeof *nulls), done);
    /* rows by (key, row id): filled in row order (values borrowed from the
     * column), then a stable sort by key; no per-key row sets */
    for (int64_t r = 0; r < nrows; r++) {
        if (pm_column_is_null(values, r)) {
            nulls[nn++] = (uint32_t)r;
            continue;
        }
        PM_TRY_GOTO(e, fi_value_get(values, r, k, &rows[n].v), done);
        rows[n++].row = (uint32_t)r;
    }
    PM_TRY_GOTO(e, pm_calloc(&tmp, n ? n : 1, sizeof *tmp), done);
    bt_sort(k, rows, tmp, n);
    free(tmp);
    tmp = NULL;
    /* nulls first, then keys; a new file every records-per-range × 1.2 rows */
    bt_codec z = {g->compression, g->compression_level};
    int64_t per = (int64_t)((double)g->btree_records_per_range * 1.2);
    if (per < 1)
        per = 1;
    size_t total = n + nn, at = 0;
    while (at < total) {
        size_t end = at + (size_t)per < total ? at + (size_t)per : total;
        size_t nul_from = at < nn ? at : nn, nul_to = end < nn ? end : nn;
        size_t key_from = at > nn ? at - nn : 0, key_to = end > nn ? end - nn : 0;
        PM_TRY_GOTO(e, pm_realloc_array(&ps, np + 1, sizeof *ps), done);
        memset(&ps[np], 0, sizeof ps[np]);
        np++;
        PM_TRY_GOTO(e, bt_file(k, g->btree_block_size, &z, rows + key_from, key_to - key_from, nulls + nul_from,
                               nul_to - nul_from, &ps[np - 1]),
                    done);
        at = end;
    }
done:
    free(rows);
    free(tmp);
    free(nulls);
    if (e) {
        pm_gi_payloads_free(ps, np);
        return e;
    }
    *out = ps;
    *nout = np;
    return NULL;
}

static pm_error *build_bitmap(const pm_gi_column *g, const pm_column *values, int64_t nrows, pm_gi_payload **out,
                              size_t *nout)
{
    if (g->bitmap_dictionary) {
        pm_gi_payload *d = NULL;
        PM_TRY(pm_calloc(&d, 1, sizeof *d));
        pm_error *e = pm_gi_dict_build(g, values, nrows, d);
        if (e) {
            pm_gi_payloads_free(d, 1);
            return e;
        }
        *out = d;
        *nout = 1;
        return NULL;
    }
    pm_fi_spec spec = {0};
    spec.kind = PM_FI_BITMAP;
    spec.bitmap_version = 2;
    spec.bitmap_block_size = 16 * 1024;
    void *st = NULL;
    pm_gi_payload *p = NULL;
    PM_TRY(pm_error_wrap(pm_fi_bitmap_ops.writer_new(&st, g->type, &spec), 0, "bitmap global index on column %s",
                         g->column));
    pm_error *e = pm_calloc(&p, 1, sizeof *p);
    if (!e)
        e = pm_fi_bitmap_ops.add(st, values, 0, nrows);
    if (!e)
        e = pm_fi_bitmap_ops.finish(st, &p->bytes);
    pm_fi_bitmap_ops.writer_free(st);
    if (e) {
        pm_gi_payloads_free(p, p ? 1 : 0);
        return e;
    }
    p->row_count = nrows;
    *out = p;
    *nout = 1;
    return NULL;
}

pm_error *pm_gi_build(const pm_gi_column *g, const pm_column *values, int64_t nrows, pm_gi_payload **out,
                      size_t *nout)
{
    *out = NULL;
    *nout = 0;
    if (nrows <= 0)
        return NULL; /* Java writes no file for an empty range */
    if (nrows > UINT32_MAX)
        return pm_error_new(PM_EUNSUPPORTED, "a global index range of more than 2^32 rows");
    return g->family == PM_GI_BTREE ? build_btree(g, values, nrows, out, nout)
                                    : build_bitmap(g, values, nrows, out, nout);
}

/* ---------------------------------------------------------------- */
/* btree reader                                                      */

typedef struct bt_view {
    const uint8_t *p;     /* block bytes (without trailer) */
    size_t n;
    uint32_t count;
    bool aligned;
    uint32_t aligned_size;
    const uint8_t *pos;   /* unaligned: count × i32 */
} bt_view;

/* The btree block at handle (off, size), decompressed into *scratch when
 * stored compressed. */
static pm_error *block_open(const uint8_t *file, size_t flen, uint64_t off, uint64_t size, pm_buf *scratch,
                            bt_view *v, const char *what)
{
    const uint8_t *b;
    PM_TRY(pm_gi_block_get(file, flen, off, size, scratch, &b, &size, what));
    if (size < 5)
        return pm_error_new(PM_ECORRUPT, "%s: btree block at %llu of %zu bytes", what, (unsigned long long)off,
                            (size_t)size);
    v->p = b;
    uint8_t kind = b[size - 1];
    if (kind == 0) {
        v->aligned = true;
        v->aligned_size = pm_load_u32le(b + size - 5);
        v->n = size - 5;
        if (!v->aligned_size || v->n % v->aligned_size)
            return pm_error_new(PM_ECORRUPT, "%s: aligned btree block of entry size %u", what, v->aligned_size);
        v->count = (uint32_t)(v->n / v->aligned_size);
    } else if (kind == 1) {
        v->aligned = false;
        v->count = pm_load_u32le(b + size - 5);
        if ((uint64_t)v->count * 4 > size - 5)
            return pm_error_new(PM_ECORRUPT, "%s: btree block of %u entries too short", what, v->count);
        v->n = size - 5 - (size_t)v->count * 4;
        v->pos = b + v->n;
    } else {
        return pm_error_new(PM_ECORRUPT, "%s: btree block kind %u", what, kind);
    }
    return NULL;
}

/* Entry i of a block: key and value slices. */
static pm_error *block_entry(const bt_view *v, uint32_t i, const uint8_t **k, size_t *kn, const uint8_t **val,
                             size_t *vn, const char *what)
{
    size_t at = v->aligned ? (size_t)i * v->aligned_size : pm_load_u32le(v->pos + (size_t)i * 4);
    if (at >= v->n)
        return pm_error_new(PM_ECORRUPT, "%s: btree entry offset %zu outside the block", what, at);
    pm_cursor c = pm_cursor_make(v->p + at, v->n - at);
    uint64_t l;
    PM_TRY(pm_cursor_uvarint(&c, &l, what));
    PM_TRY(pm_cursor_take(&c, l, k, what));
    *kn = l;
    PM_TRY(pm_cursor_uvarint(&c, &l, what));
    PM_TRY(pm_cursor_take(&c, l, val, what));
    *vn = l;
    return NULL;
}

/* First entry of block v whose key >= x: *idx (count when none). */
static pm_error *block_lower_bound(const bt_view *v, fv_kind k, const fi_val *x, uint32_t *idx, const char *what)
{
    uint32_t lo = 0, hi = v->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const uint8_t *kp, *vp;
        size_t kn, vn;
        fi_val key;
        PM_TRY(block_entry(v, mid, &kp, &kn, &vp, &vn, what));
        PM_TRY(pm_gi_key_read(k, kp, kn, &key, what));
        if (fi_value_compare(k, &key, x) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *idx = lo;
    return NULL;
}

static pm_error *rows_of_value(const uint8_t *p, size_t n, roaring_bitmap_t *out, const char *what)
{
    pm_cursor c = pm_cursor_make(p, n);
    uint64_t cnt;
    PM_TRY(pm_cursor_uvarint(&c, &cnt, what));
    if (cnt > n)
        return pm_error_new(PM_ECORRUPT, "%s: btree row list of %llu ids in %zu bytes", what,
                            (unsigned long long)cnt, n);
    for (uint64_t i = 0; i < cnt; i++) {
        uint64_t r;
        PM_TRY(pm_cursor_uvarint(&c, &r, what));
        if (r > UINT32_MAX)
            return pm_error_new(PM_EUNSUPPORTED, "%s: local row id %llu above 2^32", what, (unsigned long long)r);
        roaring_bitmap_add(out, (uint32_t)r);
    }
    return NULL;
}

static pm_error *btree_query(const pm_type *t, const uint8_t *p, size_t n, const pm_column *lits,
                             roaring_bitmap_t *out, pm_buf *ibuf, pm_buf *dbuf, const char *what)
{
    fv_kind k;
    if (!pm_gi_key_kind(t, &k))
        return pm_error_new(PM_EUNSUPPORTED, "%s: btree global index of type %s", what, pm_type_id_name(t->id));
    if (n < BT_FOOTER)
        return pm_error_new(PM_ECORRUPT, "%s: btree index file of %zu bytes is shorter than its footer", what, n);
    const uint8_t *f = p + n - BT_FOOTER;
    if (pm_load_u32le(f + 48) != BT_MAGIC)
        return pm_error_new(PM_ECORRUPT, "%s: not a btree index file (bad magic number)", what);
    if (pm_load_u32le(f + 44) != 1)
        return pm_error_new(PM_EUNSUPPORTED, "%s: btree index file version %u", what, pm_load_u32le(f + 44));
    uint64_t ioff = pm_load_u64le(f + 20);
    uint32_t isize = pm_load_u32le(f + 28);
    size_t body = n - BT_FOOTER;
    bt_view index;
    PM_TRY(block_open(p, body, ioff, isize, ibuf, &index, what));
    for (int64_t r = 0; r < lits->length; r++) {
        fi_val x;
        PM_TRY(fi_value_get(lits, r, k, &x));
        uint32_t bi;
        PM_TRY(block_lower_bound(&index, k, &x, &bi, what));
        if (bi == index.count)
            continue; /* above the last key */
        const uint8_t *kp, *hp;
        size_t kn, hn;
        PM_TRY(block_entry(&index, bi, &kp, &kn, &hp, &hn, what));
        pm_cursor hc = pm_cursor_make(hp, hn);
        uint64_t doff, dsize;
        PM_TRY(pm_cursor_uvarint(&hc, &doff, what));
        PM_TRY(pm_cursor_uvarint(&hc, &dsize, what));
        bt_view data;
        PM_TRY(block_open(p, body, doff, dsize, dbuf, &data, what));
        uint32_t ei;
        PM_TRY(block_lower_bound(&data, k, &x, &ei, what));
        if (ei == data.count)
            continue;
        const uint8_t *vp;
        size_t vn;
        fi_val key;
        PM_TRY(block_entry(&data, ei, &kp, &kn, &vp, &vn, what));
        PM_TRY(pm_gi_key_read(k, kp, kn, &key, what));
        if (fi_value_compare(k, &key, &x) == 0)
            PM_TRY(rows_of_value(vp, vn, out, what));
    }
    return NULL;
}

/* ---------------------------------------------------------------- */

pm_error *pm_gi_query_in(pm_gi_family fam, const pm_type *t, const uint8_t *p, size_t n, const pm_column *lits,
                         roaring_bitmap_t *out, const char *what)
{
    if (fam == PM_GI_BTREE) {
        pm_buf ibuf = PM_BUF_INIT, dbuf = PM_BUF_INIT; /* decompressed index and data blocks */
        pm_error *e = btree_query(t, p, n, lits, out, &ibuf, &dbuf, what);
        pm_buf_free(&ibuf);
        pm_buf_free(&dbuf);
        return e;
    }
    if (pm_gi_dict_is(p, n))
        return pm_gi_dict_query_in(t, p, n, lits, out, what);
    fi_result r = {0};
    PM_TRY(pm_error_wrap(pm_fi_bitmap_ops.test_in(t, p, n, lits, &r), PM_ECORRUPT, "%s", what));
    if (r.kind == FI_ROWS)
        roaring_bitmap_or_inplace(out, r.rows);
    else if (r.kind == FI_REMAIN) {
        fi_result_clear(&r);
        return pm_error_new(PM_ECORRUPT, "%s: bitmap global index gave no answer", what);
    }
    fi_result_clear(&r);
    return NULL;
}
