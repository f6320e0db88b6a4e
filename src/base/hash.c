/*
 * base/hash.c — Paimon's MurmurHash variant (see hash.h for the steps).
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
