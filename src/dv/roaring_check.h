/*
 * dv/roaring_check.h — full validation of a 32-bit Roaring bitmap in the
 * portable serialization format before CRoaring is allowed to read it.
 *
 * CRoaring's roaring_bitmap_portable_deserialize_safe (0.2.66) only checks
 * that it stays inside the buffer; it trusts the container contents.  A
 * bitset whose header cardinality differs from its popcount, a run that
 * passes 65535 or unsorted array values make later operations (conversions,
 * unions, iteration) write or read out of bounds.  Deletion vectors come
 * from files, so every bitmap goes through pm_roaring_check first.
 *
 * Portable format (RoaringFormatSpec, little-endian):
 *   cookie u32: 12346 (no run containers), then container count u32; or
 *               low 16 bits 12347 (run containers present), high 16 bits =
 *               count - 1, then a bitset of ceil(count/8) bytes marking run
 *               containers
 *   count × (key u16, cardinality - 1 u16), keys strictly increasing
 *   count × offset u32, present unless run containers exist and count < 4
 *               (ignored by readers, so only skipped here)
 *   containers in key order: run → n u16, n × (start u16, length - 1 u16);
 *               cardinality > 4096 → bitset of 8192 bytes;
 *               otherwise array of cardinality u16 values
 * Accepted only when: count <= 65536; arrays strictly increasing; runs
 * non-empty, sorted, non-overlapping, inside 0..65535 and summing to the
 * header cardinality; bitset popcount equal to the header cardinality.
 */
#ifndef PM_DV_ROARING_CHECK_H
#define PM_DV_ROARING_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "paimon/error.h"

/* Validate the bitmap at the start of [p, p + n).  On success *size is the
 * number of bytes it occupies (<= n) and *cardinality its element count.
 * PM_ECORRUPT naming the defect otherwise. */
pm_error *pm_roaring_check(const uint8_t *p, size_t n, size_t *size, uint64_t *cardinality);

#endif
