/*
 * format/parquet/rle_encode.c — the RLE / bit-packing hybrid encoder used for
 * definition and repetition levels and for dictionary indices (layout and
 * run-detection rules in pq_encode.h).
 *
 * Hot paths reserve the worst-case output size once per call and then write
 * without further checks: every 8 values produce at most one group
 * (bit_width bytes) or one RLE run (<= 10 header + 4 value bytes), plus a
 * bit-packed run header byte.
 */
#include "format/parquet/pq_encode.h"

#define PQ_NO_RUN SIZE_MAX

void pq_rle_init(pq_rle_encoder *e, pm_buf *out, int bit_width)
{
    e->out = out;
    e->bit_width = bit_width;
    e->byte_width = (bit_width + 7) / 8;
    e->nbuf = 0;
    e->prev = 0;
    e->repeat = 0;
    e->groups = 0;
    e->header_pos = PQ_NO_RUN;
}

/* One packer per width 1..16 with the shifts as constants (the compiler
 * unrolls them); the accumulator's low bytes are the output on a
 * little-endian host. */
#define DEF_PACK(W)                                                                   \
    static void pack8_##W(const uint32_t *v, uint8_t *out)                            \
    {                                                                                 \
        if ((W) <= 8) {                                                               \
            uint64_t acc = 0;                                                         \
            for (int i = 0; i < 8; i++)                                               \
                acc |= (uint64_t)v[i] << (i * (W));                                   \
            memcpy(out, &acc, (W));                                                   \
        } else {                                                                      \
            uint64_t lo = 0, hi = 0; /* values 0..3 and 4..7: 4W <= 64 bits each */  \
            for (int i = 0; i < 4; i++) {                                             \
                lo |= (uint64_t)v[i] << (i * (W));                                    \
                hi |= (uint64_t)v[i + 4] << (i * (W));                                \
            }                                                                         \
            unsigned __int128 acc = (unsigned __int128)hi << (4 * (W)) | lo;          \
            memcpy(out, &acc, (W));                                                   \
        }                                                                             \
    }
DEF_PACK(1) DEF_PACK(2) DEF_PACK(3) DEF_PACK(4) DEF_PACK(5) DEF_PACK(6) DEF_PACK(7) DEF_PACK(8)
DEF_PACK(9) DEF_PACK(10) DEF_PACK(11) DEF_PACK(12) DEF_PACK(13) DEF_PACK(14) DEF_PACK(15) DEF_PACK(16)
static void (*const pack8_tab[17])(const uint32_t *, uint8_t *) = {
    NULL, pack8_1, pack8_2, pack8_3, pack8_4, pack8_5, pack8_6, pack8_7, pack8_8,
    pack8_9, pack8_10, pack8_11, pack8_12, pack8_13, pack8_14, pack8_15, pack8_16};

void pq_pack8(const uint32_t *v, int w, uint8_t *out)
{
    if (w == 0)
        return;
    if (w <= 16) {
        pack8_tab[w](v, out);
        return;
    }
    if (w == 32) {
        memcpy(out, v, 32);
        return;
    }
    uint64_t acc = 0;
    int bits = 0;
    uint8_t *p = out;
    for (int i = 0; i < 8; i++) {
        acc |= (uint64_t)v[i] << bits;
        bits += w;
        while (bits >= 8) {
            *p++ = (uint8_t)acc;
            acc >>= 8;
            bits -= 8;
        }
    }
}

/* Worst-case bytes for n more values (see file comment). */
static size_t worst_case(const pq_rle_encoder *e, uint64_t n)
{
    size_t per_group = (size_t)(e->bit_width > 14 ? e->bit_width : 14) + 2;
    return (size_t)(n / 8 + 3) * per_group + 16;
}

static void end_bitpacked_run(pq_rle_encoder *e)
{
    if (e->header_pos == PQ_NO_RUN)
        return;
    e->out->data[e->header_pos] = (uint8_t)(e->groups << 1 | 1);
    e->header_pos = PQ_NO_RUN;
    e->groups = 0;
}

/* Unchecked: the caller reserved room. */
static void write_rle_run(pq_rle_encoder *e)
{
    end_bitpacked_run(e);
    pm_buf *o = e->out;
    o->len += pq_put_uvarint(o->data + o->len, e->repeat << 1);
    uint32_t v = e->prev;
    for (int i = 0; i < e->byte_width; i++)
        o->data[o->len++] = (uint8_t)(v >> (8 * i));
    e->repeat = 0;
    e->nbuf = 0;
}

/* Bit-pack the group `vals` (8 values) into the open bit-packed run. */
static void write_group_of(pq_rle_encoder *e, const uint32_t *vals)
{
    if (e->groups >= 63)
        end_bitpacked_run(e);
    pm_buf *o = e->out;
    if (e->header_pos == PQ_NO_RUN) {
        e->header_pos = o->len;
        o->data[o->len++] = 0;
    }
    pq_pack8(vals, e->bit_width, o->data + o->len);
    o->len += (size_t)e->bit_width;
    e->nbuf = 0;
    e->repeat = 0;
    e->groups++;
}

static void write_group(pq_rle_encoder *e)
{
    write_group_of(e, e->buf);
}

static inline void put_unchecked(pq_rle_encoder *e, uint32_t v)
{
    if (v == e->prev) {
        if (++e->repeat >= 8)
            return;
    } else {
        if (e->repeat >= 8)
            write_rle_run(e);
        e->repeat = 1;
        e->prev = v;
    }
    e->buf[e->nbuf++] = v;
    if (e->nbuf == 8)
        write_group(e);
}

pm_error *pq_rle_put(pq_rle_encoder *e, uint32_t v)
{
    PM_TRY(pm_buf_reserve(e->out, worst_case(e, 1)));
    put_unchecked(e, v);
    return NULL;
}

pm_error *pq_rle_put_run(pq_rle_encoder *e, uint32_t v, uint64_t n)
{
    if (n == 0)
        return NULL;
    if (v == e->prev && e->repeat >= 8) {
        e->repeat += n;
        return NULL;
    }
    PM_TRY(pm_buf_reserve(e->out, worst_case(e, 16)));
    while (n > 0 && !(v == e->prev && e->repeat >= 8)) {
        put_unchecked(e, v);
        n--;
    }
    e->repeat += n;
    return NULL;
}

pm_error *pq_rle_put_many(pq_rle_encoder *e, const uint32_t *v, size_t n)
{
    PM_TRY(pm_buf_reserve(e->out, worst_case(e, n)));
    size_t i = 0;
    while (i < n) {
        /* Inside an RLE run: the values that continue it only count (what
         * put_unchecked does for each), without a call per value. */
        if (e->repeat >= 8 && v[i] == e->prev) {
            size_t j = i + 1;
            while (j < n && v[j] == e->prev)
                j++;
            e->repeat += j - i;
            i = j;
            continue;
        }
        /* At a group boundary (nbuf == 0, so no run is pending: a run keeps
         * 7 copies buffered) a run can only start if all 8 values of the
         * group are equal; any other group is packed as it is, leaving the
         * state put_unchecked would leave (prev = last value, repeat = 0). */
        if (e->nbuf == 0 && n - i >= 8) {
            const uint32_t *g = v + i;
            uint32_t diff = (g[0] ^ g[1]) | (g[0] ^ g[2]) | (g[0] ^ g[3]) | (g[0] ^ g[4]) | (g[0] ^ g[5]) |
                            (g[0] ^ g[6]) | (g[0] ^ g[7]);
            if (diff) {
                e->prev = g[7];
                write_group_of(e, g);
                i += 8;
                continue;
            }
        }
        put_unchecked(e, v[i]);
        i++;
    }
    return NULL;
}

/* Bytes [byte, min(byte + 8, nbytes)) as a little-endian word. */
static inline uint64_t load_word(const uint8_t *bm, int64_t byte, int64_t nbytes)
{
    if (byte + 8 <= nbytes) {
        uint64_t w;
        memcpy(&w, bm + byte, 8);
        return w;
    }
    uint64_t w = 0;
    for (int64_t i = byte; i < nbytes; i++)
        w |= (uint64_t)bm[i] << (8 * (i - byte));
    return w;
}

/* First index in (i, end) whose bit differs from `bit`, or end. */
static int64_t next_change(const uint8_t *bm, int64_t i, int64_t end, int bit)
{
    int64_t nbytes = (end + 7) >> 3;
    uint64_t flip = bit ? ~(uint64_t)0 : 0;
    while (i < end) {
        int64_t byte = i >> 3;
        int sh = (int)(i & 7);
        uint64_t w = (load_word(bm, byte, nbytes) ^ flip) >> sh;
        int64_t avail = 64 - sh;
        if (w) {
            int64_t pos = __builtin_ctzll(w);
            if (pos < avail)
                return i + pos < end ? i + pos : end;
        }
        i += avail;
    }
    return end;
}

pm_error *pq_rle_put_bitmap(pq_rle_encoder *e, const uint8_t *bm, int64_t start, int64_t n,
                            uint32_t zero, uint32_t one)
{
    int64_t i = start, end = start + n;
    int64_t nbytes = (end + 7) >> 3;
    PM_TRY(pm_buf_reserve(e->out, worst_case(e, (uint64_t)n)));
    while (i < end) {
        /* At a group boundary, 8 bits that are not all equal form a group
         * that cannot start a run (see pq_rle_put_many): pack it at once. */
        if (e->nbuf == 0 && end - i >= 8) {
            uint8_t bits = (uint8_t)(load_word(bm, i >> 3, nbytes) >> (i & 7));
            if (bits != 0 && bits != 0xff) {
                uint32_t g[8];
                for (int k = 0; k < 8; k++)
                    g[k] = (bits >> k) & 1 ? one : zero;
                e->prev = g[7];
                write_group_of(e, g);
                i += 8;
                continue;
            }
        }
        int bit = (bm[i >> 3] >> (i & 7)) & 1;
        int64_t j = next_change(bm, i, end, bit);
        /* inside a group (and no run pending): stop at the group's end so
         * the next group can take the fast path */
        if (e->nbuf && e->repeat < 8 && j - i > 8 - e->nbuf)
            j = i + (8 - e->nbuf);
        PM_TRY(pq_rle_put_run(e, bit ? one : zero, (uint64_t)(j - i)));
        i = j;
    }
    return NULL;
}

pm_error *pq_rle_finish(pq_rle_encoder *e)
{
    PM_TRY(pm_buf_reserve(e->out, worst_case(e, 8)));
    if (e->repeat >= 8) {
        write_rle_run(e);
    } else if (e->nbuf > 0) {
        for (int i = e->nbuf; i < 8; i++)
            e->buf[i] = 0;
        write_group(e);
    }
    end_bitpacked_run(e);
    e->nbuf = 0;
    e->repeat = 0;
    return NULL;
}

pm_error *pq_rle_encode(pm_buf *out, int bit_width, const uint32_t *v, size_t n)
{
    pq_rle_encoder e;
    pq_rle_init(&e, out, bit_width);
    PM_TRY(pq_rle_put_many(&e, v, n));
    return pq_rle_finish(&e);
}
