/*
 * format/orc/orc_rle.h — ORC's run-length encodings: byte RLE, boolean
 * (bits in byte RLE), integer RLE v1 and v2, and the unbounded zig-zag
 * varints of decimals; decoders read an orc_in, encoders write an orc_out.
 *
 * Byte RLE: control byte c; 0..127 = a run of c+3 copies of the next byte,
 *   -128..-1 = -c literal bytes.
 * Boolean: bits packed most significant first into bytes, then byte RLE.
 * Integer RLE v1: control 0..127 = run of c+3 values: a signed delta byte,
 *   then the first value as a varint; -128..-1 = -c varints.  Signed
 *   streams zig-zag their varints.
 * Integer RLE v2: the top two bits of the first byte pick
 *   0 SHORT_REPEAT  3 bits width-1 (bytes), 3 bits count-3; one big-endian value
 *   1 DIRECT        5 bits encoded width, 9 bits length-1; big-endian bit-packed values
 *   2 PATCHED_BASE  width, length, 3 bits base bytes-1, 5 bits patch width,
 *                   3 bits gap width-1, 5 bits patch count; base (sign bit in
 *                   its top bit), values, (gap, patch) pairs
 *   3 DELTA         width (0 = fixed delta), length; base varint, delta
 *                   base signed varint, |deltas| bit-packed (sign of delta base)
 *   Widths use the 5-bit table (0..23 → 1..24, 24..31 → 26,28,30,32,40,48,56,64);
 *   signed streams zig-zag every value except in PATCHED_BASE and DELTA.
 *
 * The encoders reproduce orc-core 1.9's writers decision for decision
 * (RunLengthByteWriter, RunLengthIntegerWriter, RunLengthIntegerWriterV2
 * with aligned bit packing for encoding strategy SPEED): the same values
 * give the same bytes.  Positions for the row index are the stream's
 * position plus the values buffered in the encoder (plus bits used in the
 * current byte for booleans).
 */
#ifndef PM_ORC_RLE_H
#define PM_ORC_RLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/orc/orc_stream.h"
#include "paimon/error.h"

/* ---- 5-bit width table and helpers shared by decoder and encoder ---- */
int orc_rle_decode_width(int code);         /* code 0..31 → bits */
int orc_rle_encode_width(int bits);         /* bits → code (rounds up to a table width) */
int orc_rle_closest_width(int bits);        /* round up to a table width (0 → 1) */
int orc_rle_aligned_width(int bits);        /* round up to 1,2,4,8,16,24,...,64 */

/* ---- decoders ---- */
typedef struct orc_byte_dec {
    orc_in *in;
    uint8_t lit[128];
    int n, pos;              /* literal bytes buffered / consumed */
    int run;                 /* run values left */
    uint8_t run_value;
} orc_byte_dec;

void orc_byte_dec_init(orc_byte_dec *d, orc_in *in);
pm_error *orc_byte_dec_next(orc_byte_dec *d, uint8_t *out, size_t n);

typedef struct orc_bool_dec {
    orc_byte_dec bytes;
    uint8_t cur;
    int left;                /* bits of `cur` not yet used */
} orc_bool_dec;

void orc_bool_dec_init(orc_bool_dec *d, orc_in *in);
/* n values as bytes 0/1. */
pm_error *orc_bool_dec_next(orc_bool_dec *d, uint8_t *out, size_t n);

typedef struct orc_int_dec {
    orc_in *in;
    bool is_signed;
    int version;             /* 1 or 2 */
    int64_t *vals;           /* decoded run (512 entries) */
    size_t n, pos;
} orc_int_dec;

pm_error *orc_int_dec_init(orc_int_dec *d, orc_in *in, bool is_signed, int version);
void orc_int_dec_free(orc_int_dec *d);
pm_error *orc_int_dec_next(orc_int_dec *d, int64_t *out, size_t n);

/* Unbounded zig-zag varint of a decimal (at most 128 bits). */
pm_error *orc_read_varint128(orc_in *in, __int128 *out);

/* ---- encoders ---- */
typedef struct orc_byte_enc {
    orc_out *out;
    uint8_t lit[128];
    int n;                   /* values buffered */
    bool repeat;
    int tail;                /* length of the run of equal values at the end */
} orc_byte_enc;

void orc_byte_enc_init(orc_byte_enc *e, orc_out *out);
pm_error *orc_byte_enc_put(orc_byte_enc *e, uint8_t v);
pm_error *orc_byte_enc_flush(orc_byte_enc *e);   /* buffered values + stream */
pm_error *orc_byte_enc_position(const orc_byte_enc *e, orc_positions *pos);

typedef struct orc_bool_enc {
    orc_byte_enc bytes;
    uint8_t cur;
    int used;                /* bits of `cur` already set */
} orc_bool_enc;

void orc_bool_enc_init(orc_bool_enc *e, orc_out *out);
pm_error *orc_bool_enc_put(orc_bool_enc *e, bool v);
pm_error *orc_bool_enc_flush(orc_bool_enc *e);
pm_error *orc_bool_enc_position(const orc_bool_enc *e, orc_positions *pos);

typedef struct orc_int_enc orc_int_enc;
/* version 1 or 2; aligned: v2 bit widths rounded to aligned sizes (SPEED). */
pm_error *orc_int_enc_new(orc_int_enc **e, orc_out *out, bool is_signed, int version, bool aligned);
void orc_int_enc_free(orc_int_enc *e);
pm_error *orc_int_enc_put(orc_int_enc *e, int64_t v);
pm_error *orc_int_enc_flush(orc_int_enc *e);
pm_error *orc_int_enc_position(const orc_int_enc *e, orc_positions *pos);

/* Zig-zag unbounded varint of a 128-bit integer. */
pm_error *orc_write_varint128(orc_out *out, __int128 v);
/* Plain varints (RLE v1 / v2 headers use them too). */
pm_error *orc_write_uvarint(orc_out *out, uint64_t v);

#endif
