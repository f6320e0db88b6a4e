/*
 * base/hash.c — Paimon's MurmurHash variant and XXH64 (see hash.h for the
 * steps).
 */
#include "base/hash.h"

static inline uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

static inline uint32_t mix_k1(uint32_t k)
{
    k *= 0xcc9e2d51u;
    k = rotl32(k, 15);
    return k * 0x1b873593u;
}

static inline uint32_t mix_h1(uint32_t h, uint32_t k)
{
    h ^= k;
    h = rotl32(h, 13);
    return h * 5u + 0xe6546b64u;
}

static inline uint32_t fmix(uint32_t h, size_t len)
{
    h ^= (uint32_t)len;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

static uint32_t hash_words(const uint8_t *p, size_t aligned)
{
    uint32_t h = PM_MURMUR_SEED;
    for (size_t i = 0; i < aligned; i += 4) {
        uint32_t k = (uint32_t)p[i] | (uint32_t)p[i + 1] << 8 | (uint32_t)p[i + 2] << 16 | (uint32_t)p[i + 3] << 24;
        h = mix_h1(h, mix_k1(k));
    }
    return h;
}

int32_t pm_hash_bytes_by_words(const void *data, size_t len)
{
    uint32_t h = hash_words(data, len & ~(size_t)3);
    return (int32_t)fmix(h, len);
}

int32_t pm_hash_bytes(const void *data, size_t len)
{
    const uint8_t *p = data;
    size_t aligned = len & ~(size_t)3;
    uint32_t h = hash_words(p, aligned);
    for (size_t i = aligned; i < len; i++)
        h = mix_h1(h, mix_k1((uint32_t)(int32_t)(int8_t)p[i]));
    return (int32_t)fmix(h, len);
}

/* ---- XXH64 ---- */

#define XXP1 0x9E3779B185EBCA87ULL
#define XXP2 0xC2B2AE3D27D4EB4FULL
#define XXP3 0x165667B19E3779F9ULL
#define XXP4 0x85EBCA77C2B2AE63ULL
#define XXP5 0x27D4EB2F165667C5ULL

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static inline uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t xx_round(uint64_t acc, uint64_t lane)
{
    acc += lane * XXP2;
    acc = rotl64(acc, 31);
    return acc * XXP1;
}

static inline uint64_t xx_merge(uint64_t acc, uint64_t v)
{
    acc ^= xx_round(0, v);
    return acc * XXP1 + XXP4;
}

uint64_t pm_xxh64(const void *data, size_t len, uint64_t seed)
{
    const uint8_t *p = data, *end = p + len;
    uint64_t h;
    if (len >= 32) {
        uint64_t v1 = seed + XXP1 + XXP2, v2 = seed + XXP2, v3 = seed, v4 = seed - XXP1;
        const uint8_t *limit = end - 32;
        do {
            v1 = xx_round(v1, le64(p));
            v2 = xx_round(v2, le64(p + 8));
            v3 = xx_round(v3, le64(p + 16));
            v4 = xx_round(v4, le64(p + 24));
            p += 32;
        } while (p <= limit);
        h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
        h = xx_merge(h, v1);
        h = xx_merge(h, v2);
        h = xx_merge(h, v3);
        h = xx_merge(h, v4);
    } else {
        h = seed + XXP5;
    }
    h += (uint64_t)len;
    for (; p + 8 <= end; p += 8) {
        h ^= xx_round(0, le64(p));
        h = rotl64(h, 27) * XXP1 + XXP4;
    }
    if (p + 4 <= end) {
        h ^= (uint64_t)le32(p) * XXP1;
        h = rotl64(h, 23) * XXP2 + XXP3;
        p += 4;
    }
    for (; p < end; p++) {
        h ^= (uint64_t)*p * XXP5;
        h = rotl64(h, 11) * XXP1;
    }
    h ^= h >> 33;
    h *= XXP2;
    h ^= h >> 29;
    h *= XXP3;
    h ^= h >> 32;
    return h;
}
