/*
 * format/orc/orc_rle_encode.c — encoders of ORC's run-length encodings
 * (formats in orc_rle.h), making orc-core 1.9's choices.
 *
 * Byte RLE: values collect as literals; when the last three are equal the
 * literals before them are written and a run starts; runs end at 130
 * values or at a different value, literal groups at 128 values.
 *
 * Integer RLE v1: the same with runs of a constant delta in [-128, 127].
 *
 * Integer RLE v2 (RunLengthIntegerWriterV2): values collect while the
 * writer tracks the current run of equal values (`fixed`) and of other
 * values (`var`).  Three equal values end a variable run: the variable
 * part is encoded, the three stay.  A run of equal values ends at a
 * different value (SHORT_REPEAT for 3..10 values, else DELTA with delta 0)
 * or at 512 values.  A variable run ends at 512 values or at a flush and
 * is encoded by determine():
 *   - at most 3 values: DIRECT;
 *   - max - min overflows: DIRECT;
 *   - all equal or a constant delta: DELTA with a fixed delta;
 *   - first delta non-zero and monotonic: DELTA, widths of |delta|;
 *   - zig-zag widths: 100th minus 90th percentile > 1 and the base-reduced
 *     values' 100th and 95th percentile differ (|min| < 2^56):
 *     PATCHED_BASE with the 95th percentile width and patches for the
 *     values above it; otherwise DIRECT with the 100th percentile width.
 * Percentiles bucket values by the width table and walk down from the
 * widest bucket (SerializationUtils.percentileBits), in double arithmetic
 * as Java does.  Aligned bit packing (encoding strategy SPEED) rounds
 * DIRECT and DELTA widths to 1, 2, 4, 8, 16, 24, ... 64.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cursor.h"
#include "base/mem.h"
#include "format/orc/orc_pb.h"
#include "format/orc/orc_rle.h"

#define MAX_RUN 512
#define MIN_REPEAT 3
#define MAX_SHORT_REPEAT 10

enum { SHORT_REPEAT = 0, DIRECT = 1, PATCHED_BASE = 2, DELTA = 3 };

pm_error *orc_write_uvarint(orc_out *out, uint64_t v)
{
    uint8_t tmp[10];
    return orc_out_write(out, tmp, orc_uvarint_encode(tmp, v));
}

static pm_error *write_varint(orc_out *out, bool is_signed, int64_t v)
{
    return orc_write_uvarint(out, is_signed ? pm_zigzag_encode(v) : (uint64_t)v);
}

pm_error *orc_write_varint128(orc_out *out, __int128 v)
{
    unsigned __int128 u = ((unsigned __int128)v << 1) ^ (unsigned __int128)(v >> 127);
    uint8_t tmp[20];
    size_t n = 0;
    while (u >= 0x80) {
        tmp[n++] = (uint8_t)(u | 0x80);
        u >>= 7;
    }
    tmp[n++] = (uint8_t)u;
    return orc_out_write(out, tmp, n);
}

/* ------------------------------------------------------------------ */
/* Byte RLE                                                            */

void orc_byte_enc_init(orc_byte_enc *e, orc_out *out)
{
    memset(e, 0, sizeof *e);
    e->out = out;
}

static pm_error *byte_emit(orc_byte_enc *e)
{
    if (e->n == 0)
        return NULL;
    if (e->repeat) {
        PM_TRY(orc_out_byte(e->out, (uint8_t)(e->n - MIN_REPEAT)));
        PM_TRY(orc_out_byte(e->out, e->lit[0]));
    } else {
        PM_TRY(orc_out_byte(e->out, (uint8_t)-e->n));
        PM_TRY(orc_out_write(e->out, e->lit, (size_t)e->n));
    }
    e->repeat = false;
    e->tail = 0;
    e->n = 0;
    return NULL;
}

pm_error *orc_byte_enc_put(orc_byte_enc *e, uint8_t v)
{
    if (e->n == 0) {
        e->lit[e->n++] = v;
        e->tail = 1;
        return NULL;
    }
    if (e->repeat) {
        if (v == e->lit[0]) {
            if (++e->n == 127 + MIN_REPEAT)
                return byte_emit(e);
            return NULL;
        }
        PM_TRY(byte_emit(e));
        e->lit[e->n++] = v;
        e->tail = 1;
        return NULL;
    }
    e->tail = v == e->lit[e->n - 1] ? e->tail + 1 : 1;
    if (e->tail == MIN_REPEAT) {
        if (e->n + 1 == MIN_REPEAT) {
            e->repeat = true;
            e->n++;
        } else {
            e->n -= MIN_REPEAT - 1;
            PM_TRY(byte_emit(e));
            e->lit[0] = v;
            e->repeat = true;
            e->n = MIN_REPEAT;
        }
        return NULL;
    }
    e->lit[e->n++] = v;
    if (e->n == 128)
        return byte_emit(e);
    return NULL;
}

pm_error *orc_byte_enc_flush(orc_byte_enc *e)
{
    PM_TRY(byte_emit(e));
    return orc_out_flush(e->out);
}

pm_error *orc_byte_enc_position(const orc_byte_enc *e, orc_positions *pos)
{
    PM_TRY(orc_out_position(e->out, pos));
    return orc_positions_add(pos, (uint64_t)e->n);
}

/* ------------------------------------------------------------------ */
/* Booleans                                                            */

void orc_bool_enc_init(orc_bool_enc *e, orc_out *out)
{
    memset(e, 0, sizeof *e);
    orc_byte_enc_init(&e->bytes, out);
}

pm_error *orc_bool_enc_put(orc_bool_enc *e, bool v)
{
    if (v)
        e->cur |= (uint8_t)(0x80u >> e->used);
    if (++e->used == 8) {
        PM_TRY(orc_byte_enc_put(&e->bytes, e->cur));
        e->cur = 0;
        e->used = 0;
    }
    return NULL;
}

pm_error *orc_bool_enc_flush(orc_bool_enc *e)
{
    if (e->used) {
        PM_TRY(orc_byte_enc_put(&e->bytes, e->cur));
        e->cur = 0;
        e->used = 0;
    }
    return orc_byte_enc_flush(&e->bytes);
}

pm_error *orc_bool_enc_position(const orc_bool_enc *e, orc_positions *pos)
{
    PM_TRY(orc_byte_enc_position(&e->bytes, pos));
    return orc_positions_add(pos, (uint64_t)e->used);
}

/* ------------------------------------------------------------------ */
/* Integers                                                            */

struct orc_int_enc {
    orc_out *out;
    bool is_signed;
    int version;
    bool aligned;
    int64_t lit[MAX_RUN];
    int n;
    /* v1 */
    bool v1_repeat;
    int v1_tail;
    int64_t v1_delta;
    /* v2 run tracking */
    int64_t prev_delta;
    int fixed, var;
    /* v2 analysis of the run being written */
    int enc;
    bool fixed_delta_run;
    int64_t fixed_delta;
    int64_t min;
    int zz100, br95, br100, delta_bits;
    int patch_width, patch_gap_width, npatches;
    uint64_t zz[MAX_RUN];
    uint64_t reduced[MAX_RUN];
    uint64_t adj[MAX_RUN];
    uint64_t patches[32];
};

pm_error *orc_int_enc_new(orc_int_enc **out, orc_out *o, bool is_signed, int version, bool aligned)
{
    orc_int_enc *e;
    PM_TRY(pm_calloc(&e, 1, sizeof *e));
    e->out = o;
    e->is_signed = is_signed;
    e->version = version;
    e->aligned = aligned;
    *out = e;
    return NULL;
}

void orc_int_enc_free(orc_int_enc *e)
{
    free(e);
}

/* Bits needed by v (Long.SIZE - numberOfLeadingZeros). */
static int num_bits(uint64_t v)
{
    return v ? 64 - __builtin_clzll(v) : 0;
}

static int closest_bits(uint64_t v)
{
    return orc_rle_closest_width(num_bits(v));
}

/* Big-endian bit packing of n values of `width` bits. */
static pm_error *write_packed(orc_out *out, const uint64_t *v, int n, int width)
{
    if (n <= 0)
        return NULL;
    uint8_t cur = 0;
    int left = 8;
    for (int i = 0; i < n; i++) {
        uint64_t x = width == 64 ? v[i] : v[i] & (((uint64_t)1 << width) - 1);
        int need = width;
        while (need > left) {
            cur |= (uint8_t)(x >> (need - left));
            need -= left;
            x &= need == 64 ? UINT64_MAX : (((uint64_t)1 << need) - 1);
            PM_TRY(orc_out_byte(out, cur));
            cur = 0;
            left = 8;
        }
        left -= need;
        cur |= (uint8_t)(x << left);
        if (left == 0) {
            PM_TRY(orc_out_byte(out, cur));
            cur = 0;
            left = 8;
        }
    }
    if (left != 8)
        PM_TRY(orc_out_byte(out, cur));
    return NULL;
}

/* SerializationUtils.percentileBits. */
static int percentile_bits(const uint64_t *v, int n, double p)
{
    int hist[32] = {0};
    for (int i = 0; i < n; i++)
        hist[orc_rle_encode_width(num_bits(v[i]))]++;
    int left = (int)(n * (1.0 - p));
    for (int i = 31; i >= 0; i--) {
        left -= hist[i];
        if (left < 0)
            return orc_rle_decode_width(i);
    }
    return 0;
}

/* ---- v1 ---- */

static pm_error *v1_emit(orc_int_enc *e)
{
    if (e->n == 0)
        return NULL;
    if (e->v1_repeat) {
        PM_TRY(orc_out_byte(e->out, (uint8_t)(e->n - MIN_REPEAT)));
        PM_TRY(orc_out_byte(e->out, (uint8_t)(int8_t)e->v1_delta));
        PM_TRY(write_varint(e->out, e->is_signed, e->lit[0]));
    } else {
        PM_TRY(orc_out_byte(e->out, (uint8_t)-e->n));
        for (int i = 0; i < e->n; i++)
            PM_TRY(write_varint(e->out, e->is_signed, e->lit[i]));
    }
    e->v1_repeat = false;
    e->n = 0;
    e->v1_tail = 0;
    return NULL;
}

static int v1_tail_after(int64_t delta)
{
    return delta < -128 || delta > 127 ? 1 : 2;
}

static pm_error *v1_put(orc_int_enc *e, int64_t v)
{
    if (e->n == 0) {
        e->lit[e->n++] = v;
        e->v1_tail = 1;
        return NULL;
    }
    if (e->v1_repeat) {
        if ((uint64_t)v == (uint64_t)e->lit[0] + (uint64_t)e->v1_delta * (uint64_t)e->n) {
            if (++e->n == 127 + MIN_REPEAT)
                return v1_emit(e);
            return NULL;
        }
        PM_TRY(v1_emit(e));
        e->lit[e->n++] = v;
        e->v1_tail = 1;
        return NULL;
    }
    int64_t last = e->lit[e->n - 1];
    int64_t d = (int64_t)((uint64_t)v - (uint64_t)last);
    if (e->v1_tail == 1) {
        e->v1_delta = d;
        e->v1_tail = v1_tail_after(d);
    } else if (d == e->v1_delta) {
        e->v1_tail++;
    } else {
        e->v1_delta = d;
        e->v1_tail = v1_tail_after(d);
    }
    if (e->v1_tail == MIN_REPEAT) {
        if (e->n + 1 == MIN_REPEAT) {
            e->v1_repeat = true;
            e->n++;
        } else {
            e->n -= MIN_REPEAT - 1;
            int64_t base = e->lit[e->n];
            PM_TRY(v1_emit(e));
            e->lit[0] = base;
            e->v1_repeat = true;
            e->n = MIN_REPEAT;
        }
        return NULL;
    }
    e->lit[e->n++] = v;
    if (e->n == 128)
        return v1_emit(e);
    return NULL;
}

/* ---- v2 ---- */

static const uint64_t *direct_values(orc_int_enc *e)
{
    if (!e->is_signed)
        return (const uint64_t *)e->lit;
    for (int i = 0; i < e->n; i++)
        e->zz[i] = pm_zigzag_encode(e->lit[i]);
    return e->zz;
}

static void prepare_direct(orc_int_enc *e)
{
    e->zz100 = percentile_bits(direct_values(e), e->n, 1.0);
}

/* preparePatchedBlob; false when the patches do not fit (then DIRECT). */
static bool prepare_patches(orc_int_enc *e)
{
    int n = e->n;
    int max_patches = (int)ceil(n * 0.05);
    e->patch_width = orc_rle_closest_width(e->br100 - e->br95);
    if (e->patch_width == 64) {
        e->patch_width = 56;
        e->br95 = 8;
    }
    uint64_t mask = ((uint64_t)1 << e->br95) - 1;
    int gaps[32];
    uint64_t pvals[32];
    int np = 0, prev = 0, max_gap = 0;
    for (int i = 0; i < n; i++) {
        if (e->reduced[i] > mask) {
            if (np == max_patches)
                return false;
            int gap = i - prev;
            if (gap > max_gap)
                max_gap = gap;
            prev = i;
            gaps[np] = gap;
            pvals[np] = e->reduced[i] >> e->br95;
            np++;
        }
    }
    if (max_gap == 0 && np != 0)
        e->patch_gap_width = 1;
    else
        e->patch_gap_width = closest_bits((uint64_t)max_gap);
    int total = np;
    if (e->patch_gap_width > 8) {
        e->patch_gap_width = 8;
        total += max_gap == 511 ? 2 : 1;
    }
    if (total > 31)
        return false;
    for (int i = 0; i < n; i++)
        if (e->reduced[i] > mask)
            e->reduced[i] &= mask;
    int out = 0;
    for (int k = 0; k < np && out < total; k++) {
        uint64_t g = (uint64_t)gaps[k];
        while (g > 255 && out < total) {
            e->patches[out++] = (uint64_t)255 << e->patch_width;
            g -= 255;
        }
        if (out < total)
            e->patches[out++] = g << e->patch_width | pvals[k];
    }
    e->npatches = total;
    return true;
}

static bool safe_subtract(int64_t a, int64_t b)
{
    int64_t r;
    return !__builtin_sub_overflow(a, b, &r);
}

static void determine(orc_int_enc *e)
{
    int n = e->n;
    e->fixed_delta_run = true;
    if (n <= MIN_REPEAT) {
        prepare_direct(e);
        e->enc = DIRECT;
        return;
    }
    bool inc = true, dec = true;
    int64_t min = e->lit[0], max = e->lit[0];
    int64_t first = (int64_t)((uint64_t)e->lit[1] - (uint64_t)e->lit[0]);
    int64_t cur = 0;
    uint64_t delta_max = 0;
    e->adj[0] = (uint64_t)first;
    for (int i = 1; i < n; i++) {
        int64_t a = e->lit[i - 1], b = e->lit[i];
        cur = (int64_t)((uint64_t)b - (uint64_t)a);
        if (b < min)
            min = b;
        if (b > max)
            max = b;
        inc &= a <= b;
        dec &= a >= b;
        e->fixed_delta_run &= cur == first;
        if (i > 1) {
            uint64_t mag = cur < 0 ? (uint64_t)0 - (uint64_t)cur : (uint64_t)cur;
            e->adj[i - 1] = mag;
            /* Math.max on longs: a |delta| of 2^63 stays negative in Java */
            if ((int64_t)mag > (int64_t)delta_max)
                delta_max = mag;
        }
    }
    e->min = min;
    if (!safe_subtract(max, min)) {
        prepare_direct(e);
        e->enc = DIRECT;
        return;
    }
    if (min == max) {
        e->fixed_delta = 0;
        e->enc = DELTA;
        return;
    }
    if (e->fixed_delta_run) {
        e->fixed_delta = cur;
        e->enc = DELTA;
        return;
    }
    if (first != 0) {
        e->delta_bits = closest_bits(delta_max);
        if (inc || dec) {
            e->enc = DELTA;
            return;
        }
    }
    prepare_direct(e);
    const uint64_t *zz = e->is_signed ? e->zz : (const uint64_t *)e->lit;
    int zz90 = percentile_bits(zz, n, 0.9);
    e->enc = DIRECT;
    if (e->zz100 - zz90 > 1) {
        for (int i = 0; i < n; i++)
            e->reduced[i] = (uint64_t)e->lit[i] - (uint64_t)min;
        e->br95 = percentile_bits(e->reduced, n, 0.95);
        e->br100 = percentile_bits(e->reduced, n, 1.0);
        bool small_base = min > -((int64_t)1 << 56) && min < ((int64_t)1 << 56);
        if (e->br100 - e->br95 != 0 && small_base && prepare_patches(e))
            e->enc = PATCHED_BASE;
    }
}

static pm_error *header2(orc_int_enc *e, int kind, int width_code, int len)
{
    int l = len - 1;
    PM_TRY(orc_out_byte(e->out, (uint8_t)(kind << 6 | width_code << 1 | ((l >> 8) & 1))));
    return orc_out_byte(e->out, (uint8_t)(l & 0xff));
}

static pm_error *write_short_repeat(orc_int_enc *e)
{
    uint64_t v = e->is_signed ? pm_zigzag_encode(e->lit[0]) : (uint64_t)e->lit[0];
    int bits = closest_bits(v);
    int bytes = (bits + 7) / 8;
    PM_TRY(orc_out_byte(e->out, (uint8_t)(SHORT_REPEAT << 6 | (bytes - 1) << 3 | (e->fixed - MIN_REPEAT))));
    for (int i = bytes - 1; i >= 0; i--)
        PM_TRY(orc_out_byte(e->out, (uint8_t)(v >> (i * 8))));
    e->fixed = 0;
    return NULL;
}

static pm_error *write_direct(orc_int_enc *e)
{
    int width = e->aligned ? orc_rle_aligned_width(e->zz100) : e->zz100;
    PM_TRY(header2(e, DIRECT, orc_rle_encode_width(width), e->n));
    const uint64_t *v = e->is_signed ? e->zz : (const uint64_t *)e->lit;
    PM_TRY(write_packed(e->out, v, e->n, width));
    e->var = 0;
    return NULL;
}

static pm_error *write_patched(orc_int_enc *e)
{
    PM_TRY(header2(e, PATCHED_BASE, orc_rle_encode_width(e->br95), e->n));
    bool neg = e->min < 0;
    uint64_t base = neg ? (uint64_t)0 - (uint64_t)e->min : (uint64_t)e->min;
    int base_width = closest_bits(base) + 1;
    int base_bytes = (base_width + 7) / 8;
    if (neg)
        base |= (uint64_t)1 << (base_bytes * 8 - 1);
    PM_TRY(orc_out_byte(e->out, (uint8_t)((base_bytes - 1) << 5 | orc_rle_encode_width(e->patch_width))));
    PM_TRY(orc_out_byte(e->out, (uint8_t)((e->patch_gap_width - 1) << 5 | e->npatches)));
    for (int i = base_bytes - 1; i >= 0; i--)
        PM_TRY(orc_out_byte(e->out, (uint8_t)(base >> (i * 8))));
    PM_TRY(write_packed(e->out, e->reduced, e->n, orc_rle_closest_width(e->br95)));
    PM_TRY(write_packed(e->out, e->patches, e->npatches, orc_rle_closest_width(e->patch_gap_width + e->patch_width)));
    e->var = 0;
    return NULL;
}

static pm_error *write_delta(orc_int_enc *e)
{
    int width = e->delta_bits;
    int code = 0, len;
    if (e->aligned)
        width = orc_rle_aligned_width(width);
    if (e->fixed_delta_run) {
        if (e->fixed > MIN_REPEAT) {
            len = e->fixed;
            e->fixed = 0;
        } else {
            len = e->var;
            e->var = 0;
        }
    } else {
        if (width == 1)
            width = 2;
        code = orc_rle_encode_width(width);
        len = e->var;
        e->var = 0;
    }
    PM_TRY(header2(e, DELTA, code, len));
    PM_TRY(write_varint(e->out, e->is_signed, e->lit[0]));
    if (e->fixed_delta_run)
        return write_varint(e->out, true, e->fixed_delta);
    PM_TRY(write_varint(e->out, true, (int64_t)e->adj[0]));
    return write_packed(e->out, e->adj + 1, e->n - 2, width);
}

static void clear_run(orc_int_enc *e)
{
    e->n = 0;
    e->prev_delta = 0;
    e->fixed_delta = 0;
    e->zz100 = e->br95 = e->br100 = e->delta_bits = 0;
    e->patch_width = e->patch_gap_width = e->npatches = 0;
    e->min = 0;
    e->fixed_delta_run = true;
}

static pm_error *v2_emit(orc_int_enc *e)
{
    if (e->n == 0)
        return NULL;
    pm_error *err;
    switch (e->enc) {
    case SHORT_REPEAT: err = write_short_repeat(e); break;
    case DIRECT: err = write_direct(e); break;
    case PATCHED_BASE: err = write_patched(e); break;
    default: err = write_delta(e); break;
    }
    clear_run(e);
    return err;
}

static void v2_start(orc_int_enc *e, int64_t v)
{
    e->lit[e->n++] = v;
    e->fixed = 1;
    e->var = 1;
}

/* A run of equal values ended: encode it as SHORT_REPEAT or fixed DELTA. */
static pm_error *v2_emit_repeat(orc_int_enc *e)
{
    e->enc = e->fixed <= MAX_SHORT_REPEAT ? SHORT_REPEAT : DELTA;
    e->fixed_delta_run = true;
    return v2_emit(e);
}

static pm_error *v2_put(orc_int_enc *e, int64_t v)
{
    if (e->n == 0) {
        v2_start(e, v);
        return NULL;
    }
    if (e->n == 1) {
        e->prev_delta = (int64_t)((uint64_t)v - (uint64_t)e->lit[0]);
        e->lit[e->n++] = v;
        if (v == e->lit[0]) {
            e->fixed = 2;
            e->var = 0;
        } else {
            e->fixed = 0;
            e->var = 2;
        }
        return NULL;
    }
    int64_t delta = (int64_t)((uint64_t)v - (uint64_t)e->lit[e->n - 1]);
    if (e->prev_delta == 0 && delta == 0) {
        e->lit[e->n++] = v;
        if (e->var > 0)
            e->fixed = 2;
        e->fixed++;
        if (e->fixed >= MIN_REPEAT && e->var > 0) {
            /* the last three values start a repeat: write what precedes */
            int64_t tail[MIN_REPEAT];
            e->n -= MIN_REPEAT;
            e->var -= MIN_REPEAT - 1;
            memcpy(tail, e->lit + e->n, sizeof tail);
            determine(e);
            PM_TRY(v2_emit(e));
            for (int i = 0; i < MIN_REPEAT; i++)
                e->lit[e->n++] = tail[i];
        }
        if (e->fixed == MAX_RUN)
            return v2_emit_repeat(e);
        return NULL;
    }
    if (e->fixed >= MIN_REPEAT)
        PM_TRY(v2_emit_repeat(e));
    if (e->fixed > 0 && e->fixed < MIN_REPEAT && v != e->lit[e->n - 1]) {
        e->var = e->fixed;
        e->fixed = 0;
    }
    if (e->n == 0) {
        v2_start(e, v);
        return NULL;
    }
    e->prev_delta = (int64_t)((uint64_t)v - (uint64_t)e->lit[e->n - 1]);
    e->lit[e->n++] = v;
    if (++e->var == MAX_RUN) {
        determine(e);
        return v2_emit(e);
    }
    return NULL;
}

static pm_error *v2_finish(orc_int_enc *e)
{
    if (e->n == 0)
        return NULL;
    if (e->var != 0) {
        determine(e);
        return v2_emit(e);
    }
    if (e->fixed == 0)
        return NULL;
    if (e->fixed < MIN_REPEAT) {
        e->var = e->fixed;
        e->fixed = 0;
        determine(e);
        return v2_emit(e);
    }
    return v2_emit_repeat(e);
}

pm_error *orc_int_enc_put(orc_int_enc *e, int64_t v)
{
    return e->version == 1 ? v1_put(e, v) : v2_put(e, v);
}

pm_error *orc_int_enc_flush(orc_int_enc *e)
{
    PM_TRY(e->version == 1 ? v1_emit(e) : v2_finish(e));
    return orc_out_flush(e->out);
}

pm_error *orc_int_enc_position(const orc_int_enc *e, orc_positions *pos)
{
    PM_TRY(orc_out_position(e->out, pos));
    return orc_positions_add(pos, (uint64_t)e->n);
}
