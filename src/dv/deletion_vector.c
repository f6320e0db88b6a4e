/*
 * dv/deletion_vector.c — deletion vectors over CRoaring bitmaps and their
 * V1/V2 entry encodings (layout and rules in deletion_vector.h).
 *
 * Representation: a sorted array of (key, 32-bit bitmap) slots, key =
 * position >> 32.  The 32-bit variant always has exactly the slot for key
 * 0.  The 64-bit variant stores only the keys it was given (by add, merge
 * or a file) and remembers Java's dense array length in `width`, so
 * serialization writes the same bitmaps Java would: keys 0 .. width - 1,
 * absent ones as empty bitmaps.
 */
#include "dv/deletion_vector.h"

#include <roaring/roaring.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/cursor.h"
#include "dv/roaring_check.h"
#include "dv/roaring_java.h"

/* Portable serialization of an empty bitmap: no-run cookie, zero containers. */
static const uint8_t EMPTY_BITMAP[8] = {0x3A, 0x30, 0, 0, 0, 0, 0, 0};
#define MAX_KEY64 UINT32_C(0x7FFFFFFE) /* Integer.MAX_VALUE - 1 */

typedef struct dv_slot {
    uint32_t key;
    roaring_bitmap_t *bm;
} dv_slot;

struct pm_dv {
    bool bitmap64;
    size_t n, cap;
    dv_slot *slots; /* ascending keys */
    uint64_t width; /* 64-bit: Java bitmap array length (> every key) */
};

static pm_error *oom(void) { return pm_error_new(PM_ENOMEM, "deletion vector: out of memory"); }

static int64_t max_pos(const pm_dv *dv) { return dv->bitmap64 ? PM_DV_MAX_POS64 : PM_DV_MAX_POS32; }

/* Index of the slot with `key`, or where it would go (*found false). */
static size_t slot_find(const pm_dv *dv, uint32_t key, bool *found)
{
    size_t lo = 0, hi = dv->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (dv->slots[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < dv->n && dv->slots[lo].key == key;
    return lo;
}

/* Insert a slot for `key` owning `bm` at index i (bm freed on failure). */
static pm_error *slot_insert(pm_dv *dv, size_t i, uint32_t key, roaring_bitmap_t *bm)
{
    if (!bm)
        return oom();
    if (dv->n == dv->cap) {
        size_t cap = dv->cap ? dv->cap * 2 : 2;
        dv_slot *s = realloc(dv->slots, cap * sizeof *s);
        if (!s) {
            roaring_bitmap_free(bm);
            return oom();
        }
        dv->slots = s;
        dv->cap = cap;
    }
    memmove(dv->slots + i + 1, dv->slots + i, (dv->n - i) * sizeof *dv->slots);
    dv->slots[i].key = key;
    dv->slots[i].bm = bm;
    dv->n++;
    if (dv->bitmap64 && (uint64_t)key + 1 > dv->width)
        dv->width = (uint64_t)key + 1;
    return NULL;
}

static pm_error *slot_get(pm_dv *dv, uint32_t key, roaring_bitmap_t **bm)
{
    bool found;
    size_t i = slot_find(dv, key, &found);
    if (!found)
        PM_TRY(slot_insert(dv, i, key, roaring_bitmap_create()));
    *bm = dv->slots[i].bm;
    return NULL;
}

static const roaring_bitmap_t *slot_peek(const pm_dv *dv, uint32_t key)
{
    bool found;
    size_t i = slot_find(dv, key, &found);
    return found ? dv->slots[i].bm : NULL;
}

pm_error *pm_dv_new(bool bitmap64, pm_dv **out)
{
    *out = NULL;
    pm_dv *dv = calloc(1, sizeof *dv);
    if (!dv)
        return oom();
    dv->bitmap64 = bitmap64;
    if (!bitmap64) {
        pm_error *e = slot_insert(dv, 0, 0, roaring_bitmap_create());
        if (e) {
            free(dv);
            return e;
        }
    }
    *out = dv;
    return NULL;
}

void pm_dv_free(pm_dv *dv)
{
    if (!dv)
        return;
    for (size_t i = 0; i < dv->n; i++)
        roaring_bitmap_free(dv->slots[i].bm);
    free(dv->slots);
    free(dv);
}

/* An empty vector of the same variant without the 32-bit default slot. */
static pm_error *dv_new_bare(bool bitmap64, pm_dv **out)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return oom();
    (*out)->bitmap64 = bitmap64;
    return NULL;
}

pm_error *pm_dv_copy(const pm_dv *dv, pm_dv **out)
{
    pm_dv *c;
    PM_TRY(dv_new_bare(dv->bitmap64, &c));
    for (size_t i = 0; i < dv->n; i++) {
        pm_error *e = slot_insert(c, i, dv->slots[i].key, roaring_bitmap_copy(dv->slots[i].bm));
        if (e) {
            pm_dv_free(c);
            return e;
        }
    }
    c->width = dv->width;
    *out = c;
    return NULL;
}

bool pm_dv_is_bitmap64(const pm_dv *dv) { return dv->bitmap64; }

static pm_error *check_pos(const pm_dv *dv, int64_t pos)
{
    if (pos < 0 || pos > max_pos(dv))
        return pm_error_new(PM_EINVALID,
                            "deletion vector: position %lld outside 0..%lld (%s bitmap)",
                            (long long)pos, (long long)max_pos(dv), dv->bitmap64 ? "64-bit" : "32-bit");
    return NULL;
}

pm_error *pm_dv_add(pm_dv *dv, int64_t pos, bool *added)
{
    roaring_bitmap_t *bm;
    PM_TRY(check_pos(dv, pos));
    PM_TRY(slot_get(dv, (uint32_t)((uint64_t)pos >> 32), &bm));
    bool a = roaring_bitmap_add_checked(bm, (uint32_t)pos);
    if (added)
        *added = a;
    return NULL;
}

pm_error *pm_dv_add_range(pm_dv *dv, int64_t start, int64_t end)
{
    if (start >= end)
        return start == end ? NULL
                            : pm_error_new(PM_EINVALID, "deletion vector: range [%lld, %lld) reversed",
                                           (long long)start, (long long)end);
    PM_TRY(check_pos(dv, start));
    PM_TRY(check_pos(dv, end - 1));
    uint64_t s = (uint64_t)start, last = (uint64_t)end - 1;
    for (uint64_t key = s >> 32; key <= last >> 32; key++) {
        roaring_bitmap_t *bm;
        PM_TRY(slot_get(dv, (uint32_t)key, &bm));
        uint32_t lo = key == s >> 32 ? (uint32_t)s : 0;
        uint32_t hi = key == last >> 32 ? (uint32_t)last : UINT32_MAX;
        roaring_bitmap_add_range_closed(bm, lo, hi);
    }
    return NULL;
}

bool pm_dv_contains(const pm_dv *dv, int64_t pos)
{
    if (pos < 0 || pos > max_pos(dv))
        return false;
    const roaring_bitmap_t *bm = slot_peek(dv, (uint32_t)((uint64_t)pos >> 32));
    return bm && roaring_bitmap_contains(bm, (uint32_t)pos);
}

uint64_t pm_dv_cardinality(const pm_dv *dv)
{
    uint64_t c = 0;
    for (size_t i = 0; i < dv->n; i++)
        c += roaring_bitmap_get_cardinality(dv->slots[i].bm);
    return c;
}

bool pm_dv_is_empty(const pm_dv *dv)
{
    for (size_t i = 0; i < dv->n; i++)
        if (!roaring_bitmap_is_empty(dv->slots[i].bm))
            return false;
    return true;
}

pm_error *pm_dv_merge(pm_dv *dst, const pm_dv *src)
{
    if (dst->bitmap64 != src->bitmap64)
        return pm_error_new(PM_EINVALID, "deletion vector: cannot merge a %s vector into a %s one",
                            src->bitmap64 ? "64-bit" : "32-bit", dst->bitmap64 ? "64-bit" : "32-bit");
    for (size_t i = 0; i < src->n; i++) {
        roaring_bitmap_t *bm;
        PM_TRY(slot_get(dst, src->slots[i].key, &bm));
        roaring_bitmap_or_inplace(bm, src->slots[i].bm);
    }
    if (src->width > dst->width)
        dst->width = src->width;
    return NULL;
}

pm_error *pm_dv_to_bitmap64(const pm_dv *dv, pm_dv **out)
{
    PM_TRY(pm_dv_copy(dv, out));
    if (!dv->bitmap64) {
        (*out)->bitmap64 = true;
        (*out)->width = 1; /* Java wraps the 32-bit bitmap as the only array element */
    }
    return NULL;
}

bool pm_dv_equal(const pm_dv *a, const pm_dv *b)
{
    size_t i = 0, j = 0;
    for (;;) {
        while (i < a->n && roaring_bitmap_is_empty(a->slots[i].bm))
            i++;
        while (j < b->n && roaring_bitmap_is_empty(b->slots[j].bm))
            j++;
        if (i == a->n || j == b->n)
            return i == a->n && j == b->n;
        if (a->slots[i].key != b->slots[j].key || !roaring_bitmap_equals(a->slots[i].bm, b->slots[j].bm))
            return false;
        i++;
        j++;
    }
}

typedef struct visit_ctx {
    pm_dv_visit_fn fn;
    void *ctx;
} visit_ctx;

static bool visit64(uint64_t v, void *p)
{
    visit_ctx *v_ = p;
    return v_->fn((int64_t)v, v_->ctx);
}

void pm_dv_foreach(const pm_dv *dv, pm_dv_visit_fn fn, void *ctx)
{
    visit_ctx v = {fn, ctx};
    for (size_t i = 0; i < dv->n; i++)
        if (!roaring_iterate64(dv->slots[i].bm, visit64, (uint64_t)dv->slots[i].key << 32, &v))
            return;
}

typedef struct collect_ctx {
    int64_t *out;
    size_t n;
} collect_ctx;

static bool collect(int64_t pos, void *p)
{
    collect_ctx *c = p;
    c->out[c->n++] = pos;
    return true;
}

pm_error *pm_dv_positions(const pm_dv *dv, int64_t **out, size_t *n)
{
    uint64_t card = pm_dv_cardinality(dv);
    *out = NULL;
    *n = 0;
    if (card == 0)
        return NULL;
    if (card > SIZE_MAX / sizeof(int64_t))
        return oom();
    collect_ctx c = {malloc((size_t)card * sizeof(int64_t)), 0};
    if (!c.out)
        return oom();
    pm_dv_foreach(dv, collect, &c);
    *out = c.out;
    *n = c.n;
    return NULL;
}

void pm_dv_clear_deleted(const pm_dv *dv, int64_t start, int64_t n, uint8_t *keep, int64_t *ndeleted)
{
    int64_t count = 0;
    if (start >= 0 && n > 0) {
        uint64_t s = (uint64_t)start, end = s + (uint64_t)n; /* exclusive */
        bool found;
        for (size_t i = slot_find(dv, (uint32_t)(s >> 32), &found); i < dv->n; i++) {
            uint64_t base = (uint64_t)dv->slots[i].key << 32;
            if (base >= end)
                break;
            roaring_uint32_iterator_t it;
            roaring_init_iterator(dv->slots[i].bm, &it);
            if (s > base)
                roaring_move_uint32_iterator_equalorlarger(&it, (uint32_t)(s - base));
            while (it.has_value) {
                uint64_t pos = base + it.current_value;
                if (pos >= end)
                    break;
                uint64_t bit = pos - s;
                keep[bit >> 3] &= (uint8_t)~(1u << (bit & 7));
                count++;
                roaring_advance_uint32_iterator(&it);
            }
        }
    }
    if (ndeleted)
        *ndeleted = count;
}

/* ---- serialization ---- */

/* Java's runOptimize + serialize (dv/roaring_java.h); the buffer is reserved. */
static pm_error *put_bitmap(pm_buf *out, const roaring_bitmap_t *bm) { return pm_roaring_java_put(out, bm); }

static uint32_t entry_crc(const uint8_t *p, size_t n)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    while (n > 0) {
        uInt step = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = crc32(crc, p, step);
        p += step;
        n -= step;
    }
    return (uint32_t)crc;
}

/* Bytes between the size field and the CRC (magic + bitmap data). */
static uint64_t body_size(const pm_dv *dv)
{
    uint64_t body = 4; /* magic */
    if (!dv->bitmap64)
        return body + pm_roaring_java_size(dv->slots[0].bm);
    uint64_t present = 0;
    for (size_t i = 0; i < dv->n; i++)
        present += pm_roaring_java_size(dv->slots[i].bm);
    return body + 8 + 4 * dv->width + present + sizeof EMPTY_BITMAP * (dv->width - dv->n);
}

uint64_t pm_dv_serialized_size(const pm_dv *dv) { return 4 + body_size(dv) + 4; }

pm_error *pm_dv_serialize(pm_dv *dv, pm_buf *out, int32_t *meta_length)
{
    uint64_t body = body_size(dv);
    if (4 + body + 4 > INT32_MAX)
        return pm_error_new(PM_EINVALID, "deletion vector: entry of %llu bytes exceeds 2 GiB",
                            (unsigned long long)(body + 8));
    size_t start = out->len;
    PM_TRY(pm_buf_reserve(out, (size_t)body + 8));
    uint8_t *p = out->data + out->len;
    pm_store_u32be(p, (uint32_t)body);
    out->len += 4;
    p = out->data + out->len;
    if (!dv->bitmap64) {
        pm_store_u32be(p, PM_DV_MAGIC_V1);
        out->len += 4;
        PM_TRY(put_bitmap(out, dv->slots[0].bm));
    } else {
        pm_store_u32le(p, PM_DV_MAGIC_V2);
        pm_store_u64le(p + 4, dv->width);
        out->len += 12;
        size_t s = 0;
        for (uint64_t key = 0; key < dv->width; key++) {
            pm_store_u32le(out->data + out->len, (uint32_t)key);
            out->len += 4;
            if (s < dv->n && dv->slots[s].key == key) {
                PM_TRY(put_bitmap(out, dv->slots[s].bm));
                s++;
            } else {
                pm_buf_put(out, EMPTY_BITMAP, sizeof EMPTY_BITMAP);
            }
        }
    }
    uint32_t crc = entry_crc(out->data + start + 4, (size_t)body);
    pm_store_u32be(out->data + out->len, crc);
    out->len += 4;
    if (meta_length)
        *meta_length = (int32_t)(dv->bitmap64 ? body + 8 : body);
    return NULL;
}

pm_error *pm_dv_entry_size(const uint8_t *p, size_t n, size_t *entry_size)
{
    if (n < 4)
        return pm_error_new(PM_ECORRUPT, "deletion vector entry: %zu bytes, need 4 for its size", n);
    uint32_t size = pm_load_u32be(p);
    if (size < 4 || size > INT32_MAX - 8)
        return pm_error_new(PM_ECORRUPT, "deletion vector entry: bad size %d", (int32_t)size);
    *entry_size = (size_t)size + 8;
    return NULL;
}

/* Validate and load one portable bitmap filling [p, p + n) from its start;
 * *used = its size. */
static pm_error *load_bitmap(const uint8_t *p, size_t n, roaring_bitmap_t **out, size_t *used)
{
    uint64_t card;
    PM_TRY(pm_roaring_check(p, n, used, &card));
    *out = roaring_bitmap_portable_deserialize_safe((const char *)p, *used);
    if (!*out)
        return pm_error_new(PM_ECORRUPT, "deletion vector: roaring bitmap rejected by the decoder");
    if (roaring_bitmap_get_cardinality(*out) != card) {
        roaring_bitmap_free(*out);
        *out = NULL;
        return pm_error_new(PM_ECORRUPT, "deletion vector: roaring bitmap cardinality mismatch");
    }
    return NULL;
}

static pm_error *read_v1(pm_dv *dv, const uint8_t *p, size_t n)
{
    roaring_bitmap_t *bm;
    size_t used;
    PM_TRY(load_bitmap(p, n, &bm, &used));
    if (used != n) {
        roaring_bitmap_free(bm);
        return pm_error_new(PM_ECORRUPT, "deletion vector: bitmap uses %zu of %zu bytes", used, n);
    }
    return slot_insert(dv, 0, 0, bm);
}

static pm_error *read_v2(pm_dv *dv, const uint8_t *p, size_t n)
{
    pm_cursor c = pm_cursor_make(p, n);
    uint64_t count;
    PM_TRY(pm_cursor_u64le(&c, &count, "64-bit deletion vector bitmap count"));
    if (count > INT32_MAX || count > pm_cursor_left(&c) / 12)
        return pm_error_new(PM_ECORRUPT, "64-bit deletion vector: bad bitmap count %llu",
                            (unsigned long long)count);
    int64_t last = -1;
    for (uint64_t i = 0; i < count; i++) {
        uint32_t key;
        PM_TRY(pm_cursor_u32le(&c, &key, "64-bit deletion vector key"));
        if (key > MAX_KEY64 || (int64_t)key <= last)
            return pm_error_new(PM_ECORRUPT, "64-bit deletion vector: key %d invalid or not ascending",
                                (int32_t)key);
        last = key;
        roaring_bitmap_t *bm;
        size_t used;
        PM_TRY(load_bitmap(c.p, pm_cursor_left(&c), &bm, &used));
        c.p += used;
        if (key == (uint32_t)(PM_DV_MAX_POS64 >> 32) && !roaring_bitmap_is_empty(bm) &&
            roaring_bitmap_maximum(bm) > (uint32_t)PM_DV_MAX_POS64) {
            roaring_bitmap_free(bm);
            return pm_error_new(PM_ECORRUPT, "64-bit deletion vector: a position above the largest (%lld)",
                                (long long)PM_DV_MAX_POS64);
        }
        if (roaring_bitmap_is_empty(bm))
            roaring_bitmap_free(bm);
        else
            PM_TRY(slot_insert(dv, dv->n, key, bm));
    }
    if (pm_cursor_left(&c))
        return pm_error_new(PM_ECORRUPT, "64-bit deletion vector: %zu trailing bytes", pm_cursor_left(&c));
    dv->width = (uint64_t)(last + 1);
    return NULL;
}

pm_error *pm_dv_deserialize(const uint8_t *p, size_t n, int64_t expected_length, bool verify_crc,
                            pm_dv **out, size_t *consumed)
{
    *out = NULL;
    size_t entry;
    PM_TRY(pm_dv_entry_size(p, n, &entry));
    size_t size = entry - 8;
    if (n < 8)
        return pm_error_new(PM_ECORRUPT, "deletion vector entry: %zu bytes, need 8", n);
    uint32_t magic = pm_load_u32be(p + 4);
    bool v2;
    if (magic == PM_DV_MAGIC_V1) {
        v2 = false;
        if (expected_length >= 0 && (int64_t)size != expected_length)
            return pm_error_new(PM_ECORRUPT, "deletion vector: size %zu, index manifest says %lld", size,
                                (long long)expected_length);
    } else if (__builtin_bswap32(magic) == PM_DV_MAGIC_V2) {
        v2 = true;
        if (expected_length >= 0 && (int64_t)entry != expected_length)
            return pm_error_new(PM_ECORRUPT, "64-bit deletion vector: entry of %zu bytes, index manifest says %lld",
                                entry, (long long)expected_length);
    } else {
        return pm_error_new(PM_ECORRUPT, "deletion vector: unknown magic number %d (V1 %d, V2 %d)",
                            (int32_t)magic, PM_DV_MAGIC_V1, PM_DV_MAGIC_V2);
    }
    if (n < entry)
        return pm_error_new(PM_ECORRUPT, "deletion vector entry: needs %zu bytes, %zu available", entry, n);
    if (verify_crc) {
        uint32_t want = pm_load_u32be(p + 4 + size), got = entry_crc(p + 4, size);
        if (want != got)
            return pm_error_new(PM_ECORRUPT, "deletion vector: CRC32 0x%08x, stored 0x%08x", got, want);
    }
    pm_dv *dv;
    PM_TRY(dv_new_bare(v2, &dv));
    pm_error *e = v2 ? read_v2(dv, p + 8, size - 4) : read_v1(dv, p + 8, size - 4);
    if (e) {
        pm_dv_free(dv);
        return e;
    }
    *out = dv;
    if (consumed)
        *consumed = entry;
    return NULL;
}
