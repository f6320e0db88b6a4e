/*
 * index/global_index_block.h — the pieces shared by the btree and the
 * dictionary bitmap global index files (index/global_index_file.h):
 * compressible blocks with their trailer, and Roaring64 bitmaps.
 *
 * A compressible block as Apache Paimon writes it (SstFileWriter and the
 * dictionary bitmap writer alike):
 *   stored bytes | trailer: compression u8 | CRC-32 (zlib polynomial) i32
 *   little-endian of the stored bytes followed by the compression byte.
 * Its handle (offset, size) covers the stored bytes, not the trailer.
 * Compression ids (BlockCompressionType): 0 none, 1 zstd, 2 lz4, 3 lzo.
 * Compressed stored bytes are uvarint uncompressed length | payload:
 *   zstd: one zstd frame;
 *   lz4:  compressed length i32 LE | uncompressed length i32 LE | one raw
 *         LZ4 block.
 * A writer keeps the compressed form only when it is smaller than
 * length − length / 8 (Java's rule), else stores the block uncompressed
 * with id 0.  lzo is recognized and PM_EUNSUPPORTED (no codec here).
 *
 * Roaring64 (portable, as CRoaring and Java's RoaringNavigableMap64
 * serialize): u64 LE bucket count | per bucket u32 LE high 32 bits |
 * 32-bit portable Roaring bitmap of the low bits.  Local row ids of a
 * global index file are below 2^32, so one bucket (high 0) at most.
 */
#ifndef PM_INDEX_GLOBAL_INDEX_BLOCK_H
#define PM_INDEX_GLOBAL_INDEX_BLOCK_H

#include <roaring/roaring.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "paimon/error.h"

#define PM_GI_BLOCK_TRAILER 5

/* BlockCompressionType ids. */
typedef enum pm_gi_compression {
    PM_GI_COMPRESS_NONE = 0,
    PM_GI_COMPRESS_ZSTD = 1,
    PM_GI_COMPRESS_LZ4 = 2,
    PM_GI_COMPRESS_LZO = 3
} pm_gi_compression;

/* An option value (none, zstd, lz4; case-insensitive) to its id; lzo and
 * others are PM_EUNSUPPORTED naming `key`. */
pm_error *pm_gi_compression_parse(const char *v, const char *key, pm_gi_compression *out);
const char *pm_gi_compression_name(pm_gi_compression c);

/* Append raw[0..n) to out as a compressible block (compressed with c at
 * `level` when that saves an eighth) plus its trailer; *off, *size = the
 * block's handle. */
pm_error *pm_gi_block_put(pm_buf *out, const uint8_t *raw, size_t n, pm_gi_compression c, int level, uint64_t *off,
                          uint32_t *size);

/* The block at handle (off, size) of file[0..flen) (its trailer follows):
 * CRC checked, decompressed into *scratch when compressed; *data, *n =
 * the block's bytes (into file or scratch).  `what` names the file. */
pm_error *pm_gi_block_get(const uint8_t *file, size_t flen, uint64_t off, uint64_t size, pm_buf *scratch,
                          const uint8_t **data, size_t *n, const char *what);

/* Append bm (32-bit row ids, high bits 0) as a Roaring64 bitmap. */
pm_error *pm_gi_roaring64_put(pm_buf *out, roaring_bitmap_t *bm);
/* OR the Roaring64 bitmap p[0..n) into out; ids at or above 2^32 are
 * PM_ECORRUPT (a local row id of an index file is below 2^32). */
pm_error *pm_gi_roaring64_or(const uint8_t *p, size_t n, roaring_bitmap_t *out, const char *what);

#endif
