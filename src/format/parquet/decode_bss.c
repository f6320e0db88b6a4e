/*
 * format/parquet/decode_bss.c — BYTE_STREAM_SPLIT decoding: a page of N
 * values of w bytes stores byte k of every value as stream k, so byte k of
 * value i is at k*N + i.  Decoding gathers the w streams back into values;
 * widths 4 and 8 (FLOAT, INT32, DOUBLE, INT64) have unrolled loops.
 */
#include "format/parquet/pq_decode.h"

void pqd_bss_get(const uint8_t *stream, size_t count, size_t w, size_t first, size_t n, uint8_t *out)
{
    const uint8_t *s = stream + first;
    if (w == 4) {
        const uint8_t *s0 = s, *s1 = s + count, *s2 = s + 2 * count, *s3 = s + 3 * count;
        for (size_t i = 0; i < n; i++) {
            out[4 * i] = s0[i];
            out[4 * i + 1] = s1[i];
            out[4 * i + 2] = s2[i];
            out[4 * i + 3] = s3[i];
        }
        return;
    }
    if (w == 8) {
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < 8; k++)
                out[8 * i + k] = s[k * count + i];
        return;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < w; k++)
            out[w * i + k] = s[k * count + i];
}
