/*
 * dv/deletion_vector.h — a deletion vector: the set of deleted row
 * positions (0-based ordinals) of one data file, and its serialized entry
 * in a DV index file (BitmapDeletionVector / Bitmap64DeletionVector in
 * Paimon Java).
 *
 * Two variants, chosen by the table option `deletion-vectors.bitmap64`:
 *   32-bit (default): one RoaringBitmap; positions 0 .. 2147483647.
 *   64-bit: an array of 32-bit RoaringBitmaps indexed by key = position >> 32
 *           (Java's OptimizedRoaringBitmap64); positions 0 ..
 *           0x7FFFFFFE80000000.  The array is dense: adding a position with
 *           key k grows it to k + 1 bitmaps, and every bitmap (empty ones
 *           too) is serialized.  Here only non-empty or file-given keys are
 *           stored; `width` keeps the Java array length.
 *
 * Entry bytes (what DeletionVector.serializeTo writes; every bitmap
 * run-optimized and serialized as Java does, dv/roaring_java.h):
 *   V1 (32-bit): size i32 BE (= 4 + bitmap bytes) | magic i32 BE 1581511376
 *                | portable RoaringBitmap | CRC32 i32 BE over magic+bitmap
 *   V2 (64-bit): size i32 BE (= 4 + bitmap bytes) | magic i32 LE 1681511377
 *                | count i64 LE | count × (key i32 LE | portable bitmap)
 *                | CRC32 i32 BE over magic+bitmap
 * DeletionVectorMeta.length recorded for the entry: V1 = size, V2 = the
 * whole entry (4 + size + 4).
 *
 * Reading (DeletionVector.read): size BE, magic read BE; magic == V1 →
 * V1, byte-swapped magic == V2 → V2, else corrupt.  When the expected
 * length is known it must match (V1: size, V2: size + 8).  Here, unlike
 * Java, the bitmap must fill exactly size - 4 bytes, every bitmap is fully
 * validated (dv/roaring_check.h), V2 keys must be ascending in 0 ..
 * 2147483646, and the CRC bytes must be present (checked on request; Java
 * skips them).
 */
#ifndef PM_DV_DELETION_VECTOR_H
#define PM_DV_DELETION_VECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "paimon/error.h"

#define PM_DV_MAGIC_V1 1581511376
#define PM_DV_MAGIC_V2 1681511377
#define PM_DV_MAX_POS32 INT64_C(2147483647)
#define PM_DV_MAX_POS64 INT64_C(0x7FFFFFFE80000000)

typedef struct pm_dv pm_dv;

/* Empty vector; bitmap64 picks the 64-bit variant. */
pm_error *pm_dv_new(bool bitmap64, pm_dv **out);
void pm_dv_free(pm_dv *dv);
/* Deep copy. */
pm_error *pm_dv_copy(const pm_dv *dv, pm_dv **out);
bool pm_dv_is_bitmap64(const pm_dv *dv);

/* Mark `pos` deleted.  PM_EINVALID when pos is negative or above the
 * variant's maximum.  *added (may be NULL) = whether it was new. */
pm_error *pm_dv_add(pm_dv *dv, int64_t pos, bool *added);
/* Mark [start, end) deleted. */
pm_error *pm_dv_add_range(pm_dv *dv, int64_t start, int64_t end);
/* False for positions outside the variant's range. */
bool pm_dv_contains(const pm_dv *dv, int64_t pos);
uint64_t pm_dv_cardinality(const pm_dv *dv);
bool pm_dv_is_empty(const pm_dv *dv);
/* dst |= src.  Both must be the same variant (PM_EINVALID otherwise, as
 * in Java). */
pm_error *pm_dv_merge(pm_dv *dst, const pm_dv *src);
/* A 64-bit copy of a 32-bit vector (Bitmap64DeletionVector.
 * fromBitmapDeletionVector); a 64-bit input is copied. */
pm_error *pm_dv_to_bitmap64(const pm_dv *dv, pm_dv **out);
/* Same positions (variants may differ). */
bool pm_dv_equal(const pm_dv *a, const pm_dv *b);

/* Call fn for every deleted position in ascending order until it returns
 * false. */
typedef bool (*pm_dv_visit_fn)(int64_t pos, void *ctx);
void pm_dv_foreach(const pm_dv *dv, pm_dv_visit_fn fn, void *ctx);
/* All positions, ascending (malloc'd, caller frees; NULL when empty). */
pm_error *pm_dv_positions(const pm_dv *dv, int64_t **out, size_t *n);

/* Deleted positions in [start, start + n): clears bit (pos - start) of
 * `keep` (n bits, LSB first, set by the caller) for each, and returns
 * their count in *ndeleted (may be NULL). */
void pm_dv_clear_deleted(const pm_dv *dv, int64_t start, int64_t n, uint8_t *keep,
                         int64_t *ndeleted);

/* Entry size pm_dv_serialize would produce now (before run-optimizing, so
 * an upper bound for vectors not yet optimized). */
uint64_t pm_dv_serialized_size(const pm_dv *dv);

/* Append the entry bytes to `out`; *meta_length (may be NULL) gets the
 * DeletionVectorMeta length (see top).  Run-optimizes the bitmaps first
 * (hence non-const).  PM_EINVALID when the entry would exceed 2 GiB. */
pm_error *pm_dv_serialize(pm_dv *dv, pm_buf *out, int32_t *meta_length);

/* Number of entry bytes that start at p[0] (4 + size + 4), from its size
 * field, checked against n; what the reader needs to fetch. */
pm_error *pm_dv_entry_size(const uint8_t *p, size_t n, size_t *entry_size);

/* Decode the entry at the start of [p, p + n).  expected_length < 0 skips
 * the length check; otherwise it is DeletionVectorMeta.length.
 * verify_crc compares the stored CRC.  *consumed (may be NULL) = entry
 * bytes read.  PM_ECORRUPT on any defect. */
pm_error *pm_dv_deserialize(const uint8_t *p, size_t n, int64_t expected_length, bool verify_crc,
                            pm_dv **out, size_t *consumed);

#endif
