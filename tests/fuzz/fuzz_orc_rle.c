/*
 * tests/fuzz/fuzz_orc_rle.c — libFuzzer target for ORC's run-length
 * codecs.  The first byte picks a mode:
 *   0..5  decode the rest as byte RLE, booleans, or integer RLE v1 / v2
 *         (signed / unsigned), optionally through compression framing
 *         (zstd, zlib, snappy, lz4 chunks), until the stream ends;
 *   6..9  read the rest as int64 values, encode them with RLE v1 / v2
 *         (aligned or not, signed or unsigned) and decode them again:
 *         the values must come back (abort otherwise).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/cursor.h"
#include "format/orc/orc_meta.h"
#include "format/orc/orc_rle.h"
#include "format/orc/orc_stream.h"

static void decode(uint8_t mode, uint32_t codec, const uint8_t *p, size_t n)
{
    orc_codec c;
    pm_error *e = orc_codec_init(&c, codec, 1 << 16, NULL);
    if (e) {
        pm_error_free(e);
        return;
    }
    orc_in in;
    orc_in_init(&in, &c, p, n);
    if (mode == 0) {
        orc_byte_dec d;
        orc_byte_dec_init(&d, &in);
        uint8_t v[257];
        while (!(e = orc_byte_dec_next(&d, v, sizeof v)))
            ;
    } else if (mode == 1) {
        orc_bool_dec d;
        orc_bool_dec_init(&d, &in);
        uint8_t v[301];
        while (!(e = orc_bool_dec_next(&d, v, sizeof v)))
            ;
    } else {
        orc_int_dec d;
        e = orc_int_dec_init(&d, &in, mode & 1, mode < 4 ? 1 : 2);
        if (!e) {
            int64_t v[611];
            while (!(e = orc_int_dec_next(&d, v, sizeof v / sizeof *v)))
                ;
            orc_int_dec_free(&d);
        }
    }
    pm_error_free(e);
    orc_in_free(&in);
}

static void roundtrip(uint8_t mode, const uint8_t *p, size_t n)
{
    size_t count = n / 8;
    int64_t *v = malloc((count ? count : 1) * sizeof *v);
    for (size_t i = 0; i < count; i++)
        v[i] = (int64_t)pm_load_u64le(p + 8 * i);
    bool is_signed = mode & 1;
    int version = mode < 8 ? 2 : 1;
    if (!is_signed)
        for (size_t i = 0; i < count; i++)
            v[i] &= INT64_MAX;
    /* narrow values make the interesting runs */
    if (mode & 2)
        for (size_t i = 0; i < count; i++)
            v[i] %= 1000;
    orc_codec c;
    if (orc_codec_init(&c, ORC_COMP_NONE, 0, NULL))
        abort();
    orc_out out;
    orc_out_init(&out, &c);
    orc_int_enc *enc;
    if (orc_int_enc_new(&enc, &out, is_signed, version, mode == 6))
        abort();
    for (size_t i = 0; i < count; i++)
        if (orc_int_enc_put(enc, v[i]))
            abort();
    if (orc_int_enc_flush(enc))
        abort();
    orc_int_enc_free(enc);
    orc_in in;
    orc_in_init(&in, &c, out.out.data, out.out.len);
    orc_int_dec d;
    if (orc_int_dec_init(&d, &in, is_signed, version))
        abort();
    int64_t *back = malloc((count ? count : 1) * sizeof *back);
    if (orc_int_dec_next(&d, back, count) || (count && memcmp(back, v, count * sizeof *v)))
        abort();
    orc_int_dec_free(&d);
    orc_in_free(&in);
    orc_out_free(&out);
    free(back);
    free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    uint8_t mode = data[0] % 10;
    if (mode < 6) {
        static const uint32_t codecs[] = {ORC_COMP_NONE, ORC_COMP_NONE, ORC_COMP_ZSTD, ORC_COMP_ZLIB,
                                          ORC_COMP_SNAPPY, ORC_COMP_LZ4};
        decode(mode, codecs[data[1] % 6], data + 2, size - 2);
    } else {
        roundtrip(mode, data + 1, size - 1);
    }
    return 0;
}
