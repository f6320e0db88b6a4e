/*
 * base/hash.h — Paimon's MurmurHash3 (x86, 32-bit) variant with seed 42
 * (MurmurHashUtils): the hash behind BinaryRow.hashCode(), bucket
 * assignment and the dynamic-bucket index.
 *
 * Steps: h = 42; for every 4-byte little-endian word k of the input:
 * k *= 0xcc9e2d51, k = rotl(k, 15), k *= 0x1b873593; h ^= k, h = rotl(h, 13),
 * h = h*5 + 0xe6546b64.  Tail (hashBytes only): each remaining byte, sign-
 * extended to an int, is mixed like a whole word (unlike reference Murmur3,
 * which packs the tail into one word).  Finish: h ^= length in bytes, then
 * fmix32 (h ^= h>>>16; h *= 0x85ebca6b; h ^= h>>>13; h *= 0xc2b2ae35;
 * h ^= h>>>16).  Results are Java ints (signed).
 *
 * XXH64 (Yann Collet's 64-bit xxHash, as the zero-allocation-hashing
 * library's LongHashFunction.xx() computes it with seed 0): the hash of
 * string and binary values in Paimon's bloom-filter file index.
 */
#ifndef PM_BASE_HASH_H
#define PM_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define PM_MURMUR_SEED 42

/* hashBytesByWords: `len` must be a multiple of 4 (a BinaryRow always is a
 * multiple of 8); any tail bytes are ignored, as in Java. */
int32_t pm_hash_bytes_by_words(const void *data, size_t len);
/* hashBytes: words, then every tail byte mixed separately. */
int32_t pm_hash_bytes(const void *data, size_t len);
/* XXH64 of the bytes with `seed`. */
uint64_t pm_xxh64(const void *data, size_t len, uint64_t seed);

#endif
