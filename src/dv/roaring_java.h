/*
 * dv/roaring_java.h — a 32-bit Roaring bitmap serialized exactly as Java's
 * RoaringBitmap writes it after runOptimize() (Paimon's RoaringBitmap32
 * serialize and its deletion vectors), whatever container kinds CRoaring
 * holds.
 *
 * Containers (one per 16-bit high key, cardinality c, r runs of
 * consecutive values) take Java's runOptimize choice: c <= 4096 (an array
 * container) becomes a run container when 2c > 2 + 4r; c > 4096 (a
 * bitmap container) when 8192 > 2 + 4r.  (CRoaring's own run_optimize
 * also converts on a tie, which Java does not.)
 * Portable layout (RoaringFormatSpec, little-endian): with runs, cookie
 * 12347 | (count - 1) << 16 then a bitset of ceil(count / 8) bytes
 * marking run containers; else cookie 12346 and count u32.  Then count ×
 * (key u16, c - 1 u16); then count × offset u32 (bytes from the start)
 * unless runs exist and count < 4; then the containers: array c × u16;
 * bitmap 1024 × u64; run: r u16, r × (start u16, length - 1 u16).
 */
#ifndef PM_DV_ROARING_JAVA_H
#define PM_DV_ROARING_JAVA_H

#include <roaring/roaring.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "paimon/error.h"

/* Bytes of the serialization. */
size_t pm_roaring_java_size(const roaring_bitmap_t *bm);
/* Append the serialization to out. */
pm_error *pm_roaring_java_put(pm_buf *out, const roaring_bitmap_t *bm);

#endif
