/*
 * index/fi_range.c — the range-bitmap file index (RangeBitmapFileIndex:
 * RangeBitmap over a ChunkedDictionary and a BitSliceIndexBitmap; all
 * integers big-endian).
 *
 * Writer: the distinct non-null values, sorted (strings by unsigned bytes,
 * numbers naturally, floats by Float.compare), get codes 0..n-1; every row
 * with a value gets its code in the bit-sliced index.
 *   range bitmap: header length i32 | version u8 1 | rows i32 | cardinality
 *     i32 (distinct values) | [min key, max key when cardinality > 0] |
 *     dictionary length i32 | dictionary | bsi
 *   dictionary: header length i32 (13) | version u8 1 | chunk count i32 |
 *     offsets length i32 | chunks length i32 | offsets (i32 per chunk:
 *     where it starts in chunks) | chunks | keys
 *     Keys in code order fill chunks: a chunk is opened by a key (kept in
 *     the chunk itself) and takes the following keys while they fit its
 *     limit (chunk-size; 16kb, 0b for BOOLEAN, TINYINT, SMALLINT, whose
 *     chunks then hold one key each).
 *     fixed-width chunk: version u8 1 | first key | first code i32 | keys
 *       offset i32 | key count i32 | keys length i32 | key width i32;
 *       keys: the further keys, back to back (at most limit bytes)
 *     string chunk: version u8 1 | first key | first code i32 | keys offset
 *       i32 | key count i32 | offsets length i32 | keys length i32; keys:
 *       i32 offset of each further key, then the keys (each buffer at most
 *       limit bytes)
 *   bsi: header length i32 | version u8 1 | slice count u8 | existence
 *     bitmap length i32 | indexes length i32 | per slice (offset i32 after
 *     the existence bitmap, length i32) | existence bitmap | slices; the
 *     slice count is the bit length of n - 1, at least 1 (64 when there
 *     are no values: Java takes the bit length of -1).
 *   Keys: strings i32 length + bytes; BOOLEAN/TINYINT 1 byte; SMALLINT 2;
 *   INT/DATE/TIME 4; FLOAT/DOUBLE their raw IEEE bits; BIGINT, DECIMAL
 *   (precision <= 18, unscaled) and TIMESTAMP(_LTZ) (precision <= 6; millis
 *   for p <= 3, else micros) 8.
 * Reading `= v`: outside [min, max] → no rows; min = max = v → every row
 * with a value; else the code of v in the dictionary (none → no rows) and
 * the rows whose bits equal the code.
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "index/fi_internal.h"
#include "index/fi_java.h"

typedef struct range_w {
    fv_kind kind;
    int64_t limit;
    uint32_t rows;
    fi_valmap values;
} range_w;

static pm_error *range_check(const pm_type *t, const pm_fi_spec *sp)
{
    (void)sp;
    switch (t->id) {
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
    case PM_TYPE_BOOLEAN:
    case PM_TYPE_TINYINT:
    case PM_TYPE_SMALLINT:
    case PM_TYPE_INT:
    case PM_TYPE_BIGINT:
    case PM_TYPE_FLOAT:
    case PM_TYPE_DOUBLE:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME: return NULL;
    case PM_TYPE_DECIMAL:
        if (t->precision <= 18)
            return NULL;
        return pm_error_new(PM_EUNSUPPORTED, "the range-bitmap index only supports DECIMAL with a precision in "
                            "[0, 18]");
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ:
        if (t->precision <= 6)
            return NULL;
        return pm_error_new(PM_EUNSUPPORTED, "the range-bitmap index only supports TIMESTAMP with a precision in "
                            "[0, 6]");
    default: return pm_error_new(PM_EUNSUPPORTED, "type %s is not supported by the range-bitmap index",
                                 pm_type_id_name(t->id));
    }
}

static void range_free(void *st)
{
    range_w *r = st;
    if (!r)
        return;
    fi_valmap_free(&r->values);
    free(r);
}

static pm_error *range_new(void **out, const pm_type *t, const pm_fi_spec *sp)
{
    *out = NULL;
    PM_TRY(range_check(t, sp));
    range_w *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    fi_value_kind(t, &r->kind);
    bool tiny = t->id == PM_TYPE_BOOLEAN || t->id == PM_TYPE_TINYINT || t->id == PM_TYPE_SMALLINT;
    r->limit = sp->has_chunk_size ? sp->chunk_size : tiny ? 0 : 16 * 1024;
    fi_valmap_init(&r->values, r->kind);
    *out = r;
    return NULL;
}

static pm_error *range_add(void *st, const pm_column *c, int64_t from, int64_t to)
{
    range_w *r = st;
    for (int64_t i = from; i < to; i++, r->rows++) {
        if (r->rows == INT32_MAX)
            return pm_error_new(PM_EUNSUPPORTED, "a range-bitmap index holds at most 2^31 - 1 rows");
        if (pm_column_is_null(c, i))
            continue;
        fi_val v;
        PM_TRY(fi_value_get(c, i, r->kind, &v));
        PM_TRY(fi_valmap_add(&r->values, &v, r->rows));
    }
    return NULL;
}

/* ByteBuffer key bytes (floats: raw bits). */
static pm_error *key_put(pm_buf *out, fv_kind k, const fi_val *v)
{
    uint32_t u;
    uint64_t u64;
    uint8_t b8[8];
    switch (k) {
    case FV_F32:
        memcpy(&u, &v->f, 4);
        return pm_buf_append_u32be(out, u);
    case FV_F64:
        memcpy(&u64, &v->d, 8);
        pm_store_u64be(b8, u64);
        return pm_buf_append(out, b8, 8);
    default: return fi_value_put(out, k, v);
    }
}

/* The open chunk of the dictionary appender. */
typedef struct chunk {
    bool open;
    const fi_val *key;
    int32_t code;
    int32_t offset;      /* keys offset */
    int32_t count;
    pm_buf offsets;      /* string chunks */
    pm_buf keys;
    int32_t width;       /* fixed chunks */
} chunk;

typedef struct dict_w {
    fv_kind kind;
    int64_t limit;
    pm_buf offsets, chunks, keys;
    int32_t chunks_offset, keys_offset, size;
    chunk c;
} dict_w;

static pm_error *dict_flush(dict_w *d)
{
    chunk *c = &d->c;
    pm_buf *ch = &d->chunks;
    size_t start = ch->len;
    PM_TRY(pm_buf_append_byte(ch, 1));
    PM_TRY(key_put(ch, d->kind, c->key));
    PM_TRY(pm_buf_append_u32be(ch, (uint32_t)c->code));
    PM_TRY(pm_buf_append_u32be(ch, (uint32_t)c->offset));
    PM_TRY(pm_buf_append_u32be(ch, (uint32_t)c->count));
    size_t keybytes;
    if (d->kind == FV_BYTES) {
        PM_TRY(pm_buf_append_u32be(ch, (uint32_t)c->offsets.len));
        PM_TRY(pm_buf_append_u32be(ch, (uint32_t)c->keys.len));
        if (c->offsets.len)
            PM_TRY(pm_buf_append(&d->keys, c->offsets.data, c->offsets.len));
        keybytes = c->offsets.len + c->keys.len;
    } else {
        PM_TRY(pm_buf_append_u32be(ch, (uint32_t)c->keys.len));
        PM_TRY(pm_buf_append_u32be(ch, (uint32_t)c->width));
        keybytes = c->keys.len;
    }
    if (c->keys.len)
        PM_TRY(pm_buf_append(&d->keys, c->keys.data, c->keys.len));
    PM_TRY(pm_buf_append_u32be(&d->offsets, (uint32_t)d->chunks_offset));
    d->chunks_offset += (int32_t)(ch->len - start);
    d->keys_offset += (int32_t)keybytes;
    d->size++;
    c->open = false;
    pm_buf_clear(&c->offsets);
    pm_buf_clear(&c->keys);
    return NULL;
}

static bool chunk_try_add(dict_w *d, const fi_val *v)
{
    chunk *c = &d->c;
    size_t len = fi_value_size(d->kind, v);
    if (d->kind == FV_BYTES) {
        if ((int64_t)(c->keys.len + len) > d->limit || (int64_t)(c->offsets.len + 4) > d->limit)
            return false;
    } else if ((int64_t)(c->keys.len + (size_t)c->width) > d->limit) {
        return false;
    }
    return true;
}

static pm_error *dict_append(dict_w *d, const fi_val *v, int32_t code)
{
    chunk *c = &d->c;
    if (c->open) {
        if (chunk_try_add(d, v)) {
            if (d->kind == FV_BYTES)
                PM_TRY(pm_buf_append_u32be(&c->offsets, (uint32_t)c->keys.len));
            PM_TRY(key_put(&c->keys, d->kind, v));
            c->count++;
            return NULL;
        }
        PM_TRY(dict_flush(d));
    }
    c->open = true;
    c->key = v;
    c->code = code;
    c->offset = d->keys_offset;
    c->count = 0;
    c->width = (int32_t)fi_value_size(d->kind, v);
    return NULL;
}

static void dict_free(dict_w *d)
{
    pm_buf_free(&d->offsets);
    pm_buf_free(&d->chunks);
    pm_buf_free(&d->keys);
    pm_buf_free(&d->c.offsets);
    pm_buf_free(&d->c.keys);
}

static pm_error *dict_serialize(dict_w *d, pm_buf *out)
{
    if (d->c.open)
        PM_TRY(dict_flush(d));
    PM_TRY(pm_buf_append_u32be(out, 13));
    PM_TRY(pm_buf_append_byte(out, 1));
    PM_TRY(pm_buf_append_u32be(out, (uint32_t)d->size));
    PM_TRY(pm_buf_append_u32be(out, (uint32_t)d->offsets.len));
    PM_TRY(pm_buf_append_u32be(out, (uint32_t)d->chunks.len));
    PM_TRY(pm_buf_append(out, d->offsets.data, d->offsets.len));
    PM_TRY(pm_buf_append(out, d->chunks.data, d->chunks.len));
    return d->keys.len ? pm_buf_append(out, d->keys.data, d->keys.len) : NULL;
}

static int bit_length(uint64_t v)
{
    int n = 0;
    while (v) {
        n++;
        v >>= 1;
    }
    return n;
}

static pm_error *bsi_serialize(const range_w *r, const size_t *sorted, pm_buf *out)
{
    const fi_valmap *m = &r->values;
    int64_t max = (int64_t)m->n - 1;
    int nslices = bit_length((uint64_t)max);
    if (nslices < 1)
        nslices = 1;
    roaring_bitmap_t *ebm = roaring_bitmap_create(), *slices[64] = {0};
    pm_buf body = PM_BUF_INIT;
    pm_error *e = ebm ? NULL : pm_oom();
    for (int i = 0; !e && i < nslices; i++)
        if (!(slices[i] = roaring_bitmap_create()))
            e = pm_oom();
    for (size_t code = 0; !e && code < m->n; code++) {
        const roaring_bitmap_t *rows = m->e[sorted[code]].rows;
        roaring_bitmap_or_inplace(ebm, rows);
        for (int i = 0; i < nslices; i++)
            if ((code >> i) & 1)
                roaring_bitmap_or_inplace(slices[i], rows);
    }
    size_t ebm_len = 0;
    if (!e)
        e = fi_bitmap_put(&body, ebm);
    ebm_len = body.len;
    uint32_t index_len = (uint32_t)(8 * nslices);
    if (!e)
        e = pm_buf_append_u32be(out, 1 + 1 + 4 + 4 + index_len);
    if (!e)
        e = pm_buf_append_byte(out, 1);
    if (!e)
        e = pm_buf_append_byte(out, (uint8_t)nslices);
    if (!e)
        e = pm_buf_append_u32be(out, (uint32_t)ebm_len);
    if (!e)
        e = pm_buf_append_u32be(out, index_len);
    size_t off = 0;
    for (int i = 0; !e && i < nslices; i++) {
        size_t before = body.len;
        e = fi_bitmap_put(&body, slices[i]);
        if (!e)
            e = pm_buf_append_u32be(out, (uint32_t)off);
        if (!e)
            e = pm_buf_append_u32be(out, (uint32_t)(body.len - before));
        off += body.len - before;
    }
    if (!e)
        e = pm_buf_append(out, body.data, body.len);
    if (ebm)
        roaring_bitmap_free(ebm);
    for (int i = 0; i < nslices; i++)
        if (slices[i])
            roaring_bitmap_free(slices[i]);
    pm_buf_free(&body);
    return e;
}

static pm_error *range_finish(void *st, pm_buf *out)
{
    range_w *r = st;
    const fi_valmap *m = &r->values;
    size_t *sorted = NULL;
    dict_w d;
    memset(&d, 0, sizeof d);
    d.kind = r->kind;
    d.limit = r->limit;
    pm_buf dict = PM_BUF_INIT, head = PM_BUF_INIT;
    pm_error *e = fi_valmap_sorted_order(m, &sorted);
    for (size_t i = 0; !e && i < m->n; i++)
        e = dict_append(&d, &m->e[sorted[i]].v, (int32_t)i);
    if (!e)
        e = dict_serialize(&d, &dict);
    /* header */
    if (!e)
        e = pm_buf_append_byte(&head, 1);
    if (!e)
        e = pm_buf_append_u32be(&head, r->rows);
    if (!e)
        e = pm_buf_append_u32be(&head, (uint32_t)m->n);
    if (!e && m->n) {
        e = key_put(&head, r->kind, &m->e[sorted[0]].v);
        if (!e)
            e = key_put(&head, r->kind, &m->e[sorted[m->n - 1]].v);
    }
    if (!e)
        e = pm_buf_append_u32be(&head, (uint32_t)dict.len);
    if (!e)
        e = pm_buf_append_u32be(out, (uint32_t)head.len);
    if (!e)
        e = pm_buf_append(out, head.data, head.len);
    if (!e)
        e = pm_buf_append(out, dict.data, dict.len);
    if (!e)
        e = bsi_serialize(r, sorted, out);
    free(sorted);
    dict_free(&d);
    pm_buf_free(&dict);
    pm_buf_free(&head);
    return e;
}

/* ---- reading ---- */

static pm_error *key_read(pm_cursor *c, fv_kind k, fi_val *v, const char *what)
{
    uint32_t u;
    uint64_t u64;
    switch (k) {
    case FV_F32:
        PM_TRY(pm_cursor_u32be(c, &u, what));
        memcpy(&v->f, &u, 4);
        return NULL;
    case FV_F64:
        PM_TRY(pm_cursor_u64be(c, &u64, what));
        memcpy(&v->d, &u64, 8);
        return NULL;
    default: return fi_value_read(c, k, v, what);
    }
}

/* The code of v in the dictionary at [p, p + n), or -1. */
static pm_error *dict_find(const uint8_t *p, size_t n, fv_kind k, const fi_val *v, int64_t *code)
{
    *code = -1;
    pm_cursor c = pm_cursor_make(p, n);
    uint32_t hl, size, offlen, chlen;
    uint8_t version;
    PM_TRY(pm_cursor_u32be(&c, &hl, "range-bitmap dictionary header length"));
    if (hl < 13 || hl > pm_cursor_left(&c))
        return pm_error_new(PM_ECORRUPT, "range-bitmap dictionary header length %u", hl);
    pm_cursor h = pm_cursor_make(c.p, hl);
    PM_TRY(pm_cursor_u8(&h, &version, "range-bitmap dictionary version"));
    if (version != 1)
        return pm_error_new(PM_EUNSUPPORTED, "range-bitmap dictionary version %u", version);
    PM_TRY(pm_cursor_u32be(&h, &size, "range-bitmap dictionary size"));
    PM_TRY(pm_cursor_u32be(&h, &offlen, "range-bitmap dictionary offsets length"));
    PM_TRY(pm_cursor_u32be(&h, &chlen, "range-bitmap dictionary chunks length"));
    c.p += hl;
    if ((uint64_t)size * 4 != offlen || (uint64_t)offlen + chlen > pm_cursor_left(&c))
        return pm_error_new(PM_ECORRUPT, "range-bitmap dictionary of %u chunks does not fit", size);
    const uint8_t *offs = c.p, *chunks = c.p + offlen, *keys = c.p + offlen + chlen;
    size_t nkeys = pm_cursor_left(&c) - offlen - chlen;
    for (uint32_t i = 0; i < size; i++) {
        uint32_t start = pm_load_u32be(offs + 4 * i);
        uint32_t end = i + 1 < size ? pm_load_u32be(offs + 4 * (i + 1)) : chlen;
        if (start > end || end > chlen)
            return pm_error_new(PM_ECORRUPT, "range-bitmap dictionary chunk %u at %u..%u", i, start, end);
        pm_cursor ch = pm_cursor_make(chunks + start, end - start);
        uint8_t cv;
        fi_val first;
        uint32_t fcode, koff, count, a, b;
        PM_TRY(pm_cursor_u8(&ch, &cv, "range-bitmap chunk version"));
        if (cv != 1)
            return pm_error_new(PM_EUNSUPPORTED, "range-bitmap chunk version %u", cv);
        PM_TRY(key_read(&ch, k, &first, "range-bitmap chunk key"));
        PM_TRY(pm_cursor_u32be(&ch, &fcode, "range-bitmap chunk code"));
        PM_TRY(pm_cursor_u32be(&ch, &koff, "range-bitmap chunk offset"));
        PM_TRY(pm_cursor_u32be(&ch, &count, "range-bitmap chunk size"));
        PM_TRY(pm_cursor_u32be(&ch, &a, "range-bitmap chunk length"));
        PM_TRY(pm_cursor_u32be(&ch, &b, "range-bitmap chunk length"));
        if (fi_value_compare(k, &first, v) == 0) {
            *code = fcode;
            return NULL;
        }
        /* fixed: a = keys length, b = width; strings: a = offsets length, b = keys length */
        uint64_t total = k == FV_BYTES ? (uint64_t)a + b : a;
        if ((uint64_t)koff + total > nkeys)
            return pm_error_new(PM_ECORRUPT, "range-bitmap chunk %u keys pass the end", i);
        pm_cursor kc = pm_cursor_make(keys + koff, (size_t)total);
        if (k == FV_BYTES) {
            if ((uint64_t)count * 4 != a)
                return pm_error_new(PM_ECORRUPT, "range-bitmap chunk %u offsets length", i);
            kc.p += a;
        } else if ((uint64_t)count * b != a || b != fi_value_size(k, &first)) {
            return pm_error_new(PM_ECORRUPT, "range-bitmap chunk %u keys length", i);
        }
        for (uint32_t j = 0; j < count; j++) {
            fi_val key;
            PM_TRY(key_read(&kc, k, &key, "range-bitmap key"));
            if (fi_value_compare(k, &key, v) == 0) {
                *code = (int64_t)fcode + 1 + j;
                return NULL;
            }
        }
    }
    return NULL;
}

/* Rows with code `code` in the bsi at [p, p + n). */
static pm_error *bsi_eq(const uint8_t *p, size_t n, int64_t code, roaring_bitmap_t **out)
{
    *out = NULL;
    pm_cursor c = pm_cursor_make(p, n);
    uint32_t hl, ebm_len, idx_len;
    uint8_t version, nslices;
    PM_TRY(pm_cursor_u32be(&c, &hl, "range-bitmap bsi header length"));
    if (hl > pm_cursor_left(&c))
        return pm_error_new(PM_ECORRUPT, "range-bitmap bsi header length %u", hl);
    pm_cursor h = pm_cursor_make(c.p, hl);
    c.p += hl;
    PM_TRY(pm_cursor_u8(&h, &version, "range-bitmap bsi version"));
    if (version != 1)
        return pm_error_new(PM_EUNSUPPORTED, "range-bitmap bsi version %u", version);
    PM_TRY(pm_cursor_u8(&h, &nslices, "range-bitmap bsi slice count"));
    PM_TRY(pm_cursor_u32be(&h, &ebm_len, "range-bitmap existence bitmap length"));
    PM_TRY(pm_cursor_u32be(&h, &idx_len, "range-bitmap indexes length"));
    if (nslices > 64 || idx_len != 8u * nslices || pm_cursor_left(&h) < idx_len || ebm_len > pm_cursor_left(&c))
        return pm_error_new(PM_ECORRUPT, "range-bitmap bsi header");
    const uint8_t *idx = h.p;
    pm_cursor ec = pm_cursor_make(c.p, ebm_len);
    roaring_bitmap_t *state = NULL;
    PM_TRY(fi_bitmap_read(&ec, &state, "range-bitmap existence bitmap"));
    const uint8_t *body = c.p + ebm_len;
    size_t nbody = pm_cursor_left(&c) - ebm_len;
    for (uint32_t i = 0; i < nslices && !roaring_bitmap_is_empty(state); i++) {
        uint32_t off = pm_load_u32be(idx + 8 * i), len = pm_load_u32be(idx + 8 * i + 4);
        if ((uint64_t)off + len > nbody) {
            roaring_bitmap_free(state);
            return pm_error_new(PM_ECORRUPT, "range-bitmap slice %u passes the end", i);
        }
        pm_cursor sc = pm_cursor_make(body + off, len);
        roaring_bitmap_t *slice = NULL;
        pm_error *e = fi_bitmap_read(&sc, &slice, "range-bitmap slice");
        if (e) {
            roaring_bitmap_free(state);
            return e;
        }
        if ((code >> i) & 1)
            roaring_bitmap_and_inplace(state, slice);
        else
            roaring_bitmap_andnot_inplace(state, slice);
        roaring_bitmap_free(slice);
    }
    if (nslices < 63 && code >> nslices)
        roaring_bitmap_clear(state); /* a code past the slices matches nothing */
    *out = state;
    return NULL;
}

static pm_error *range_test(const pm_type *t, const uint8_t *p, size_t n, const pm_column *lits, fi_result *out)
{
    out->kind = FI_REMAIN;
    fv_kind k;
    if (range_check(t, NULL) || !fi_value_kind(t, &k))
        return NULL;
    for (int64_t r = 0; r < lits->length; r++)
        if (pm_column_is_null(lits, r))
            return NULL;
    pm_cursor c = pm_cursor_make(p, n);
    uint32_t hl, rows, card, dict_len;
    uint8_t version;
    fi_val min = {0}, max = {0};
    PM_TRY(pm_cursor_u32be(&c, &hl, "range-bitmap header length"));
    if (hl > pm_cursor_left(&c))
        return pm_error_new(PM_ECORRUPT, "range-bitmap header length %u", hl);
    pm_cursor h = pm_cursor_make(c.p, hl);
    c.p += hl;
    PM_TRY(pm_cursor_u8(&h, &version, "range-bitmap version"));
    if (version != 1)
        return pm_error_new(PM_EUNSUPPORTED, "range-bitmap version %u", version);
    PM_TRY(pm_cursor_u32be(&h, &rows, "range-bitmap row count"));
    PM_TRY(pm_cursor_u32be(&h, &card, "range-bitmap cardinality"));
    if (card > 0) {
        PM_TRY(key_read(&h, k, &min, "range-bitmap min"));
        PM_TRY(key_read(&h, k, &max, "range-bitmap max"));
    }
    PM_TRY(pm_cursor_u32be(&h, &dict_len, "range-bitmap dictionary length"));
    if (dict_len > pm_cursor_left(&c))
        return pm_error_new(PM_ECORRUPT, "range-bitmap dictionary of %u bytes passes the end", dict_len);
    const uint8_t *dict = c.p, *bsi = c.p + dict_len;
    size_t nbsi = pm_cursor_left(&c) - dict_len;
    roaring_bitmap_t *acc = roaring_bitmap_create();
    if (!acc)
        return pm_oom();
    pm_error *e = NULL;
    for (int64_t r = 0; card > 0 && r < lits->length && !e; r++) {
        fi_val v;
        pm_error *ve = fi_value_get(lits, r, k, &v);
        if (ve) {
            pm_error_free(ve);
            roaring_bitmap_free(acc);
            return NULL; /* not representable: cannot exclude */
        }
        int lo = fi_value_compare(k, &v, &min), hi = fi_value_compare(k, &v, &max);
        if (lo < 0 || hi > 0)
            continue;
        int64_t code = lo == 0 && hi == 0 ? 0 : -2;
        if (code == -2)
            e = dict_find(dict, dict_len, k, &v, &code);
        if (e || code < 0)
            continue;
        roaring_bitmap_t *rb = NULL;
        e = bsi_eq(bsi, nbsi, code, &rb);
        if (!e) {
            roaring_bitmap_or_inplace(acc, rb);
            roaring_bitmap_free(rb);
        }
    }
    if (e) {
        roaring_bitmap_free(acc);
        return e;
    }
    out->kind = FI_ROWS;
    out->rows = acc;
    return NULL;
}

const fi_ops pm_fi_range_ops = {"range-bitmap", range_check, range_new, range_add, range_finish, range_free,
                                range_test};
