/*
 * index/global_index_dict.h — the dictionary bitmap global index format
 * of Apache Paimon after 1.4 (BitmapGlobalIndexFormat; the only bitmap
 * payload pypaimon 2.1 reads and writes), next to Java 1.4.2's
 * BitmapFileIndex payload (index/global_index_file.h).
 *
 * Layout (blocks from global_index_block.h; keys are KeySerializer bytes,
 * global_index_key.h; row ids local to the manifest range):
 *   per distinct non-null key, in unsigned byte order of the key bytes:
 *     its bitmap block: Roaring64 of the key's rows (no trailer);
 *   dictionary blocks (compressible): uvarint entry count | per entry
 *     uvarint key length | key | uvarint bitmap offset | uvarint bitmap
 *     length; a block is flushed before an entry that would take its
 *     estimated size (uvarint count + entries) above
 *     bitmap-index.dictionary-block-size, and a block has >= 1 entry;
 *   null-rows bitmap block, non-null-rows bitmap block (Roaring64);
 *   index block (compressible): uvarint block count | per dictionary block
 *     uvarint first key length | first key | uvarint offset | uvarint
 *     length (lengths exclude trailers);
 *   footer, 48 bytes big-endian: null rows offset i64, length i32 |
 *     non-null rows offset i64, length i32 | index block offset i64,
 *     length i32 | distinct value count i32 | version i32 (1) | magic i32
 *     0x42474958 ("BGIX").
 * We write Java's order (bitmaps and dictionary blocks interleaved, then
 * the two row bitmaps); readers follow offsets only.
 * Index meta (SortedIndexFileMeta): first key length i32 LE | key | last
 * key length i32 LE | key | has nulls u8 | format version u8 (1) | null
 * key flags u8 (1: no first key, 2: no last key); first / last = the
 * smallest / largest value (value order, as the btree meta).
 * Row count = rows of the range (nulls included).
 */
#ifndef PM_INDEX_GLOBAL_INDEX_DICT_H
#define PM_INDEX_GLOBAL_INDEX_DICT_H

#include <roaring/roaring.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "index/global_index_file.h"

/* Does p[0..n) end with the dictionary format's footer magic? */
bool pm_gi_dict_is(const uint8_t *p, size_t n);

/* The one payload of a range in the dictionary format (out zeroed by the
 * caller; values as pm_gi_build's). */
pm_error *pm_gi_dict_build(const pm_gi_column *g, const pm_column *values, int64_t nrows, pm_gi_payload *out);

/* Local row ids of dictionary-format file p[0..n) whose value is one of
 * the rows of lits (type t, no nulls), added to out; bounds-checked
 * (PM_ECORRUPT naming `what` and the part). */
pm_error *pm_gi_dict_query_in(const pm_type *t, const uint8_t *p, size_t n, const pm_column *lits,
                              roaring_bitmap_t *out, const char *what);

#endif
