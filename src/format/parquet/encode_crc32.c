/*
 * format/parquet/encode_crc32.c — CRC-32 (the gzip/zlib polynomial, as
 * Parquet page headers use it) with carry-less multiplication on x86-64,
 * falling back to zlib's crc32 elsewhere.
 *
 * Folding (reflected bit order, P = 0x104C11DB7):
 *   - the running CRC (inverted) is XORed into the first 16 bytes; four
 *     128-bit lanes take 64 bytes at a time, each lane folded forward by
 *     512 bits: lane = lo64(lane) * K1 ^ hi64(lane) * K2 ^ next 16 bytes
 *     (K1, K2: powers of x modulo P for that distance, bit-reflected);
 *   - the four lanes fold into one by 128-bit steps (K3, K4), as do the
 *     remaining whole 16-byte blocks;
 *   - 128 bits reduce to 64 (K4), to 32 (K5), and a Barrett reduction with
 *     mu = floor(x^64 / P) and P itself gives the 32-bit remainder;
 *   - fewer than 16 trailing bytes (and inputs under 64 bytes) go through
 *     zlib, continuing from the folded CRC.
 * The constants are the standard ones for this polynomial; the unit tests
 * compare against zlib on every length from 0 to 1 KiB and on large
 * misaligned buffers.
 */
#include "format/parquet/pq_encode.h"

#include <zlib.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define PQ_CRC_CLMUL 1

__attribute__((target("pclmul,sse4.1"))) static uint32_t crc32_clmul(uint32_t crc, const uint8_t *p,
                                                                      size_t n, size_t *done)
{
    const __m128i k12 = _mm_set_epi64x(0x1c6e41596ll, 0x154442bd4ll);
    const __m128i k34 = _mm_set_epi64x(0x0ccaa009ell, 0x1751997d0ll);
    const __m128i k5 = _mm_set_epi64x(0, 0x163cd6124ll);
    const __m128i poly_mu = _mm_set_epi64x(0x1f7011641ll, 0x1db710641ll);
    const __m128i mask32 = _mm_set_epi32(0, 0, 0, -1);
    const uint8_t *start = p;

    __m128i x0 = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(const void *)(p + 32));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(const void *)(p + 48));
    x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)~crc));
    p += 64;
    n -= 64;
    while (n >= 64) {
#define FOLD(x, k, d)                                                                   \
    _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), d)
        x0 = FOLD(x0, k12, _mm_loadu_si128((const __m128i *)(const void *)p));
        x1 = FOLD(x1, k12, _mm_loadu_si128((const __m128i *)(const void *)(p + 16)));
        x2 = FOLD(x2, k12, _mm_loadu_si128((const __m128i *)(const void *)(p + 32)));
        x3 = FOLD(x3, k12, _mm_loadu_si128((const __m128i *)(const void *)(p + 48)));
        p += 64;
        n -= 64;
    }
    __m128i x = FOLD(x0, k34, x1);
    x = FOLD(x, k34, x2);
    x = FOLD(x, k34, x3);
    while (n >= 16) {
        x = FOLD(x, k34, _mm_loadu_si128((const __m128i *)(const void *)p));
        p += 16;
        n -= 16;
    }
#undef FOLD
    /* 128 → 64 bits */
    __m128i t = _mm_srli_si128(x, 8);
    x = _mm_xor_si128(_mm_clmulepi64_si128(x, k34, 0x10), t);
    /* 64 → 32 bits */
    t = _mm_srli_si128(x, 4);
    x = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x, mask32), k5, 0x00), t);
    /* Barrett reduction */
    t = x;
    x = _mm_clmulepi64_si128(_mm_and_si128(x, mask32), poly_mu, 0x10);
    x = _mm_clmulepi64_si128(_mm_and_si128(x, mask32), poly_mu, 0x00);
    x = _mm_xor_si128(x, t);
    *done = (size_t)(p - start);
    return ~(uint32_t)_mm_extract_epi32(x, 1);
}

static int clmul_state;   /* 0 unknown, 1 available, -1 not */

static bool have_clmul(void)
{
    int s = __atomic_load_n(&clmul_state, __ATOMIC_RELAXED);
    if (s == 0) {
        __builtin_cpu_init();
        s = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1") ? 1 : -1;
        __atomic_store_n(&clmul_state, s, __ATOMIC_RELAXED);
    }
    return s > 0;
}
#endif

uint32_t pq_crc32_portable(uint32_t crc, const uint8_t *p, size_t n)
{
    while (n > 0) {   /* zlib takes uInt lengths */
        uInt k = n > 0x40000000u ? 0x40000000u : (uInt)n;
        crc = (uint32_t)crc32(crc, p, k);
        p += k;
        n -= k;
    }
    return crc;
}

uint32_t pq_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
#ifdef PQ_CRC_CLMUL
    if (n >= 64 && have_clmul()) {
        size_t done;
        crc = crc32_clmul(crc, p, n, &done);
        p += done;
        n -= done;
    }
#endif
    return pq_crc32_portable(crc, p, n);
}
