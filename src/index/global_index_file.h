/*
 * index/global_index_file.h — the payload files of scalar global indexes
 * as Apache Paimon Java 1.4.2 writes them (`<type>-global-index-<uuid>.index`
 * in the table's index directory, listed in the index manifest with a
 * GlobalIndexMeta: row range [start, end] inclusive, the indexed field id
 * and, for btree, the BTreeIndexMeta bytes).  Row ids in a file are local:
 * global row id − range start.
 *
 * bitmap, two formats (both always read, told apart by the footer magic):
 *   Java 1.4.2 (BitmapGlobalIndex over BitmapFileIndex; written unless
 *   bitmap-index.format=dictionary): the bitmap file index body of
 *   index/fi_bitmap.c (version 2, index-block-size 16 KiB) over the
 *   range's rows in row-id order, so a row's position is its local id; no
 *   index meta; row count = rows of the range;
 *   dictionary (Paimon after 1.4, pypaimon 2.1): index/global_index_dict.h.
 *
 * btree (BTreeIndexWriter over SstFileWriter; integers little-endian,
 * varints 7 bits per byte, low first):
 *   data blocks: per distinct key (ascending) an entry
 *     uvarint key length | key | uvarint value length | value
 *     value = uvarint row count | row count × uvarint local row id;
 *     a block ends with, when every entry has the same size (aligned),
 *     that size i32 | 0x00, else each entry's offset i32, the count i32 |
 *     0x01; a block is closed once its size + 5 (+ 4 per entry when not
 *     aligned) exceeds btree-index.block-size after an entry;
 *   every block is a compressible block (index/global_index_block.h:
 *     trailer compression u8 | CRC-32 i32; compressed with
 *     btree-index.compression when that saves an eighth);
 *   null bitmap (when a null row exists): Roaring64 (global_index_block.h)
 *     | CRC-32 i32 of it;
 *     its handle's size excludes the CRC;
 *   index block (same block format + trailer): per data block its last
 *     key → uvarint offset | uvarint size;
 *   footer, 52 bytes: bloom filter offset i64, size i32, expected entries
 *     i64 (all 0: none) | index block offset i64, size i32 | null bitmap
 *     offset i64, size i32 (0, 0: none) | version i32 1 | magic i32
 *     0x50425449.
 *   Keys (KeySerializer, index/global_index_key.h) compared as values
 *   (strings by unsigned bytes, floats by Float.compare).
 *   Index meta (BTreeIndexMeta): first key length i32 | key | last key
 *   length i32 | key (length 0: none, only nulls) | has nulls u8.
 *   A build sorts the range's rows (nulls first, then by key, then by row
 *   id) and starts a new file every records-per-range × 1.2 rows (Java's
 *   BTreeGlobalIndexBuilder); all files of a range carry the same range.
 *
 * Reading is bounds-checked: every offset, size, varint, count and CRC is
 * validated (PM_ECORRUPT naming the part); zstd and lz4 blocks are read,
 * an lzo block is PM_EUNSUPPORTED naming the codec.
 */
#ifndef PM_INDEX_GLOBAL_INDEX_FILE_H
#define PM_INDEX_GLOBAL_INDEX_FILE_H

#include <roaring/roaring.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "index/global_index_decl.h"
#include "paimon/error.h"
#include "paimon/types.h"

typedef struct pm_column pm_column;

/* A row-ID range, both ends inclusive (GlobalIndexMeta's). */
typedef struct pm_gi_range {
    int64_t from, to;
} pm_gi_range;

/* Sort r[0..*n) by (from, to) and merge ranges that overlap or touch;
 * *n = the ranges left. */
void pm_gi_ranges_merge(pm_gi_range *r, size_t *n);
/* qsort comparator of pm_gi_range by (from, to). */
int pm_gi_range_cmp(const void *a, const void *b);

/* Can a btree key hold values of type t (KeySerializer's types)? */
bool pm_gi_btree_type_ok(const pm_type *t);

/* One payload file of a build. */
typedef struct pm_gi_payload {
    pm_buf bytes;
    pm_buf meta;               /* index meta bytes (btree), len 0 = none */
    bool has_meta;
    int64_t row_count;
} pm_gi_payload;

void pm_gi_payloads_free(pm_gi_payload *p, size_t n);

/* The payload files of one row range of column g: `values` holds the
 * range's rows in row-id order (row i = local row id i), `nrows` of them. */
pm_error *pm_gi_build(const pm_gi_column *g, const pm_column *values, int64_t nrows, pm_gi_payload **out,
                      size_t *nout);

/* Local row ids of file bytes p[0..n) (family f, column type t) whose value
 * is one of the rows of `lits` (a column of type t, no nulls), added to
 * out.  `what` names the file in errors. */
pm_error *pm_gi_query_in(pm_gi_family f, const pm_type *t, const uint8_t *p, size_t n, const pm_column *lits,
                         roaring_bitmap_t *out, const char *what);

#endif
