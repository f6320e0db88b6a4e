/*
 * index/fi_bitmap.c — the bitmap file index (BitmapFileIndex, versions 1
 * and 2; all integers big-endian, values serialized as fi_value_put).
 *
 * Writer: every row adds its position to the bitmap of its value (nulls
 * to the null bitmap).  Distinct values are laid out in the order Java's
 * HashMap of them iterates (Java hashCode of the value, see fi_java.h).
 * A value with one row stores offset -1 - row and no bitmap; otherwise
 * its run-optimized Roaring bitmap goes to the body and its offset is
 * where it starts (after the null bitmap, which is in the body only when
 * it has more than one row).
 *   V1: version u8 1 | row count i32 | value count i32 | has null u8 |
 *       [null offset i32: -1 - row when one null, else 0] |
 *       value count × (value, offset i32) | body
 *   V2: version u8 2 | row count i32 | value count i32 | has null u8 |
 *       [null offset i32, null bitmap length i32] | block count i32 |
 *       blocks × (first value, block offset i32) | blocks bytes i32 |
 *       blocks: entry count i32, entries × (value, offset i32, length
 *       i32: the bitmap's bytes, -1 for one row) | body
 *     Entries are sorted by value (strings by unsigned bytes, numbers and
 *     booleans naturally, floats by Float.compare) and packed into blocks
 *     of at most index-block-size bytes (4 + per entry 8 + value bytes);
 *     a block's offset counts from the end of the block directory.
 * Types: CHAR/VARCHAR, BOOLEAN, TINYINT..BIGINT, FLOAT, DOUBLE, DATE,
 * TIME, TIMESTAMP(_LTZ) (as millis for p <= 3, else micros).
 * Reading: the entry of each literal (a scan of V1's list, a binary search
 * of V2's blocks and entries) gives its rows.
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "index/fi_internal.h"

typedef struct bitmap_w {
    fv_kind kind;
    int version;
    int64_t block_size;
    uint32_t rows;
    fi_valmap values;
    roaring_bitmap_t *nulls;
} bitmap_w;

static pm_error *bitmap_check(const pm_type *t, const pm_fi_spec *sp)
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
    case PM_TYPE_TIME:
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: return NULL;
    default: return pm_error_new(PM_EUNSUPPORTED, "type %s is not supported by the bitmap index",
                                 pm_type_id_name(t->id));
    }
}

static void bitmap_free(void *st)
{
    bitmap_w *b = st;
    if (!b)
        return;
    fi_valmap_free(&b->values);
    if (b->nulls)
        roaring_bitmap_free(b->nulls);
    free(b);
}

static pm_error *bitmap_new(void **out, const pm_type *t, const pm_fi_spec *sp)
{
    *out = NULL;
    PM_TRY(bitmap_check(t, sp));
    bitmap_w *b;
    PM_TRY(pm_calloc(&b, 1, sizeof *b));
    fi_value_kind(t, &b->kind);
    b->version = sp->bitmap_version;
    b->block_size = sp->bitmap_block_size;
    fi_valmap_init(&b->values, b->kind);
    b->nulls = roaring_bitmap_create();
    if (!b->nulls) {
        bitmap_free(b);
        return pm_oom();
    }
    *out = b;
    return NULL;
}

static pm_error *bitmap_add(void *st, const pm_column *c, int64_t from, int64_t to)
{
    bitmap_w *b = st;
    for (int64_t r = from; r < to; r++, b->rows++) {
        if (b->rows == INT32_MAX)
            return pm_error_new(PM_EUNSUPPORTED, "a bitmap index holds at most 2^31 - 1 rows");
        if (pm_column_is_null(c, r)) {
            roaring_bitmap_add(b->nulls, b->rows);
            continue;
        }
        fi_val v;
        PM_TRY(fi_value_get(c, r, b->kind, &v));
        PM_TRY(fi_valmap_add(&b->values, &v, b->rows));
    }
    return NULL;
}

/* One V2 index block being filled. */
typedef struct block {
    size_t first;     /* first entry (in sorted order) */
    size_t count;
    int64_t offset;
    int64_t bytes;    /* 4 + entries */
} block;

static pm_error *bitmap_finish(void *st, pm_buf *out)
{
    bitmap_w *b = st;
    fi_valmap *m = &b->values;
    size_t *order = NULL, *sorted = NULL;
    int32_t *offsets = NULL, *lengths = NULL;
    block *blocks = NULL;
    pm_buf nullbytes = PM_BUF_INIT, body = PM_BUF_INIT;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, fi_valmap_hash_order(m, &order), done);
    PM_TRY_GOTO(e, pm_calloc(&offsets, m->n ? m->n : 1, sizeof *offsets), done);
    PM_TRY_GOTO(e, pm_calloc(&lengths, m->n ? m->n : 1, sizeof *lengths), done);
    PM_TRY_GOTO(e, fi_bitmap_put(&nullbytes, b->nulls), done);
    uint64_t ncard = roaring_bitmap_get_cardinality(b->nulls);
    int64_t off = ncard <= 1 ? 0 : (int64_t)nullbytes.len;
    if (ncard > 1)
        PM_TRY_GOTO(e, pm_buf_append(&body, nullbytes.data, nullbytes.len), done);
    for (size_t k = 0; k < m->n; k++) {
        fi_entry *en = &m->e[order[k]];
        if (roaring_bitmap_get_cardinality(en->rows) == 1) {
            offsets[order[k]] = -1 - (int32_t)roaring_bitmap_minimum(en->rows);
            lengths[order[k]] = -1;
        } else {
            size_t before = body.len;
            PM_TRY_GOTO(e, fi_bitmap_put(&body, en->rows), done);
            offsets[order[k]] = (int32_t)off;
            lengths[order[k]] = (int32_t)(body.len - before);
            off += (int64_t)(body.len - before);
        }
        if (off > INT32_MAX)
            PM_TRY_GOTO(e, pm_error_new(PM_EINVALID, "bitmap index body exceeds 2 GiB"), done);
    }
    int32_t null_offset = ncard == 1 ? -1 - (int32_t)roaring_bitmap_minimum(b->nulls) : 0;
    bool has_null = ncard > 0;
    PM_TRY_GOTO(e, pm_buf_append_byte(out, (uint8_t)b->version), done);
    PM_TRY_GOTO(e, pm_buf_append_u32be(out, b->rows), done);
    PM_TRY_GOTO(e, pm_buf_append_u32be(out, (uint32_t)m->n), done);
    PM_TRY_GOTO(e, pm_buf_append_byte(out, has_null), done);
    if (b->version == 1) {
        if (has_null)
            PM_TRY_GOTO(e, pm_buf_append_u32be(out, (uint32_t)null_offset), done);
        for (size_t k = 0; k < m->n; k++) {
            PM_TRY_GOTO(e, fi_value_put(out, m->kind, &m->e[order[k]].v), done);
            PM_TRY_GOTO(e, pm_buf_append_u32be(out, (uint32_t)offsets[order[k]]), done);
        }
    } else {
        if (has_null) {
            PM_TRY_GOTO(e, pm_buf_append_u32be(out, (uint32_t)null_offset), done);
            PM_TRY_GOTO(e, pm_buf_append_u32be(out, (uint32_t)nullbytes.len), done);
        }
        PM_TRY_GOTO(e, fi_valmap_sorted_order(m, &sorted), done);
        size_t nb = 0;
        PM_TRY_GOTO(e, pm_calloc(&blocks, m->n ? m->n : 1, sizeof *blocks), done);
        for (size_t k = 0; k < m->n; k++) {
            int64_t bytes = 8 + (int64_t)fi_value_size(m->kind, &m->e[sorted[k]].v);
            if (nb == 0 || blocks[nb - 1].bytes + bytes > b->block_size) {
                if (nb && blocks[nb - 1].count == 0)
                    PM_TRY_GOTO(e, pm_error_new(PM_EINVALID, "a bitmap index entry does not fit index-block-size "
                                                "%lld", (long long)b->block_size), done);
                int64_t boff = nb ? blocks[nb - 1].offset + blocks[nb - 1].bytes : 0;
                blocks[nb++] = (block){k, 0, boff, 4};
                if (4 + bytes > b->block_size)
                    PM_TRY_GOTO(e, pm_error_new(PM_EINVALID, "a bitmap index entry of %lld bytes does not fit "
                                                "index-block-size %lld", (long long)bytes, (long long)b->block_size),
                                done);
            }
            blocks[nb - 1].count++;
            blocks[nb - 1].bytes += bytes;
        }
        PM_TRY_GOTO(e, pm_buf_append_u32be(out, (uint32_t)nb), done);
        int64_t total = 0;
        for (size_t i = 0; i < nb; i++) {
            PM_TRY_GOTO(e, fi_value_put(out, m->kind, &m->e[sorted[blocks[i].first]].v), done);
            PM_TRY_GOTO(e, pm_buf_append_u32be(out, (uint32_t)blocks[i].offset), done);
            total += blocks[i].bytes;
        }
        PM_TRY_GOTO(e, pm_buf_append_u32be(out, (uint32_t)total), done);
        for (size_t i = 0; i < nb; i++) {
            PM_TRY_GOTO(e, pm_buf_append_u32be(out, (uint32_t)blocks[i].count), done);
            for (size_t k = blocks[i].first; k < blocks[i].first + blocks[i].count; k++) {
                PM_TRY_GOTO(e, fi_value_put(out, m->kind, &m->e[sorted[k]].v), done);
                PM_TRY_GOTO(e, pm_buf_append_u32be(out, (uint32_t)offsets[sorted[k]]), done);
                PM_TRY_GOTO(e, pm_buf_append_u32be(out, (uint32_t)lengths[sorted[k]]), done);
            }
        }
    }
    if (body.len)
        PM_TRY_GOTO(e, pm_buf_append(out, body.data, body.len), done);
done:
    free(order);
    free(sorted);
    free(offsets);
    free(lengths);
    free(blocks);
    pm_buf_free(&nullbytes);
    pm_buf_free(&body);
    return e;
}

/* ---- reading ---- */

/* The rows of one entry (offset, body at `body` of `nbody` bytes). */
static pm_error *entry_rows(int32_t offset, const uint8_t *body, size_t nbody, roaring_bitmap_t **out)
{
    if (offset < 0) {
        *out = roaring_bitmap_create();
        if (!*out)
            return pm_oom();
        roaring_bitmap_add(*out, (uint32_t)(-1 - (int64_t)offset));
        return NULL;
    }
    if ((size_t)offset > nbody)
        return pm_error_new(PM_ECORRUPT, "bitmap offset %d passes the body (%zu bytes)", (int)offset, nbody);
    pm_cursor c = pm_cursor_make(body + offset, nbody - (size_t)offset);
    return fi_bitmap_read(&c, out, "bitmap index bitmap");
}

/* V2: the entry of v, if any (*found). */
static pm_error *v2_find(fv_kind k, pm_cursor *dir, uint32_t nblocks, const uint8_t *blocks, size_t nblockbytes,
                         const fi_val *v, bool *found, int32_t *offset)
{
    *found = false;
    /* the last block whose first value <= v */
    int64_t pick = -1;
    uint32_t pick_off = 0;
    for (uint32_t i = 0; i < nblocks; i++) {
        fi_val key;
        uint32_t boff;
        PM_TRY(fi_value_read(dir, k, &key, "bitmap index block key"));
        PM_TRY(pm_cursor_u32be(dir, &boff, "bitmap index block offset"));
        if (fi_value_compare(k, &key, v) <= 0) {
            pick = i;
            pick_off = boff;
        }
    }
    if (pick < 0)
        return NULL;
    if (pick_off > nblockbytes)
        return pm_error_new(PM_ECORRUPT, "bitmap index block at %u passes the blocks (%zu bytes)", pick_off,
                            nblockbytes);
    pm_cursor c = pm_cursor_make(blocks + pick_off, nblockbytes - pick_off);
    uint32_t n;
    PM_TRY(pm_cursor_u32be(&c, &n, "bitmap index entry count"));
    for (uint32_t i = 0; i < n; i++) {
        fi_val key;
        uint32_t off, len;
        PM_TRY(fi_value_read(&c, k, &key, "bitmap index entry value"));
        PM_TRY(pm_cursor_u32be(&c, &off, "bitmap index entry offset"));
        PM_TRY(pm_cursor_u32be(&c, &len, "bitmap index entry length"));
        if (fi_value_compare(k, &key, v) == 0) {
            *found = true;
            *offset = (int32_t)off;
            return NULL;
        }
    }
    return NULL;
}

static pm_error *bitmap_test(const pm_type *t, const uint8_t *p, size_t n, const pm_column *lits, fi_result *out)
{
    out->kind = FI_REMAIN;
    fv_kind k;
    if (bitmap_check(t, NULL) || !fi_value_kind(t, &k))
        return NULL;
    for (int64_t r = 0; r < lits->length; r++)
        if (pm_column_is_null(lits, r))
            return NULL; /* a null literal: cannot exclude */
    pm_cursor c = pm_cursor_make(p, n);
    uint8_t version, has_null;
    uint32_t rows, count, u;
    PM_TRY(pm_cursor_u8(&c, &version, "bitmap index version"));
    if (version != 1 && version != 2)
        return pm_error_new(PM_EUNSUPPORTED, "bitmap index version %u", version);
    PM_TRY(pm_cursor_u32be(&c, &rows, "bitmap index row count"));
    PM_TRY(pm_cursor_u32be(&c, &count, "bitmap index value count"));
    PM_TRY(pm_cursor_u8(&c, &has_null, "bitmap index null flag"));
    if (has_null) {
        PM_TRY(pm_cursor_u32be(&c, &u, "bitmap index null offset"));
        if (version == 2)
            PM_TRY(pm_cursor_u32be(&c, &u, "bitmap index null length"));
    }
    roaring_bitmap_t *acc = roaring_bitmap_create();
    if (!acc)
        return pm_oom();
    pm_error *e = NULL;
    if (version == 1) {
        /* the value list, then the body */
        pm_cursor list = c;
        for (uint32_t i = 0; i < count && !e; i++) {
            fi_val key;
            e = fi_value_read(&c, k, &key, "bitmap index value");
            if (!e)
                e = pm_cursor_u32be(&c, &u, "bitmap index offset");
        }
        const uint8_t *body = c.p;
        size_t nbody = pm_cursor_left(&c);
        for (int64_t r = 0; r < lits->length && !e; r++) {
            fi_val v;
            if ((e = fi_value_get(lits, r, k, &v)))
                break;
            pm_cursor s = list;
            for (uint32_t i = 0; i < count && !e; i++) {
                fi_val key;
                uint32_t off;
                e = fi_value_read(&s, k, &key, "bitmap index value");
                if (!e)
                    e = pm_cursor_u32be(&s, &off, "bitmap index offset");
                if (!e && fi_value_equal(k, &key, &v)) {
                    roaring_bitmap_t *rb = NULL;
                    e = entry_rows((int32_t)off, body, nbody, &rb);
                    if (!e) {
                        roaring_bitmap_or_inplace(acc, rb);
                        roaring_bitmap_free(rb);
                    }
                    break;
                }
            }
        }
    } else {
        uint32_t nblocks, blockbytes;
        e = pm_cursor_u32be(&c, &nblocks, "bitmap index block count");
        pm_cursor dir = c;
        for (uint32_t i = 0; i < nblocks && !e; i++) {
            fi_val key;
            e = fi_value_read(&c, k, &key, "bitmap index block key");
            if (!e)
                e = pm_cursor_u32be(&c, &u, "bitmap index block offset");
        }
        if (!e)
            e = pm_cursor_u32be(&c, &blockbytes, "bitmap index blocks length");
        if (!e && blockbytes > pm_cursor_left(&c))
            e = pm_error_new(PM_ECORRUPT, "bitmap index blocks of %u bytes pass the end", blockbytes);
        const uint8_t *blocks = c.p, *body = c.p + (e ? 0 : blockbytes);
        size_t nbody = e ? 0 : pm_cursor_left(&c) - blockbytes;
        for (int64_t r = 0; r < lits->length && !e; r++) {
            fi_val v;
            if ((e = fi_value_get(lits, r, k, &v)))
                break;
            pm_cursor d = dir;
            bool found = false;
            int32_t off = 0;
            e = v2_find(k, &d, nblocks, blocks, blockbytes, &v, &found, &off);
            if (!e && found) {
                roaring_bitmap_t *rb = NULL;
                e = entry_rows(off, body, nbody, &rb);
                if (!e) {
                    roaring_bitmap_or_inplace(acc, rb);
                    roaring_bitmap_free(rb);
                }
            }
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

const fi_ops pm_fi_bitmap_ops = {"bitmap", bitmap_check, bitmap_new, bitmap_add, bitmap_finish, bitmap_free,
                                 bitmap_test};
