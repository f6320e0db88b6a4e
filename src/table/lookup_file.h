/*
 * table/lookup_file.h — Lookup Files and the bounded local cache that
 * keeps them: point lookups of keys in the higher-level files of a
 * primary-key bucket (compaction's retained levels), instead of reading
 * every retained file in step with the merge.
 *
 * A Lookup File holds one data file's records in key order — key, complete
 * KV row (row kind, sequence number, the fields in the reader's schema)
 * and the row's position in the data file (deletion vectors are applied
 * by the caller, so positions stay physical) — in blocks:
 *   <dir>/<id>.lkp   blocks, each an Avro container of up to 1024 rows
 *                    (or 256 KiB), compressed with
 *                    lookup.cache-spill-compression (none, zstd default,
 *                    lz4), CRC-32 per block;
 *   <dir>/<id>.lki   the block index: magic "PMLK", version 1, codec, the
 *                    .lkp size, the data file's name and size, block
 *                    count, then per block its offset, compressed and
 *                    uncompressed sizes, rows, CRC-32 and first key (the
 *                    sort key's key part, lsm/kv.h); CRC-32 of the index
 *                    last.
 * <id> is a hash of the table path, the data file, the schema and the
 * row type read, so another executor (or process) reading the same file
 * the same way reuses it.  A file is built on first access by streaming
 * the data file through the file reader (schema evolution by field id)
 * into temporary names, then renamed (.lkp first, .lki last: an index
 * names only a complete block file).  A missing, short or corrupt file
 * or block (CRC, sizes, index) is rebuilt once; failing again is
 * PM_ECORRUPT — never a "missing key".  A failed build removes what it
 * wrote.
 *
 * The cache (`local-cache.enabled`): `local-cache.dir` (default
 * $TMPDIR/paimon-local-cache, else /tmp/...), `local-cache.max-size` (disk,
 * default unlimited; least recently used files are evicted, and a file
 * that cannot fit alone is PM_EUNSUPPORTED "cannot retain"),
 * `lookup.cache-max-memory-size` (default 256 MiB per executor: the block
 * indexes of open files, one decoded block per open file and the batches
 * of a build; exceeding it is PM_EUNSUPPORTED naming the option),
 * `lookup.cache-spill-compression`.  `lookup.cache-max-disk-size` is
 * PM_EINVALID pointing to local-cache.max-size.  Test fault point:
 * "lookup-file-write" (a build fails as on a full disk).
 */
#ifndef PM_TABLE_LOOKUP_FILE_H
#define PM_TABLE_LOOKUP_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codec/codec.h"
#include "lsm/kv.h"
#include "meta/data_file_meta.h"
#include "meta/options.h"
#include "table/table_internal.h"

typedef struct pm_lookup_cache_options {
    char *dir;                /* local-cache.dir (owned) */
    int64_t max_size;         /* local-cache.max-size, bytes; 0 = unlimited */
    int64_t memory;           /* lookup.cache-max-memory-size, bytes */
    pm_codec_id codec;        /* lookup.cache-spill-compression */
} pm_lookup_cache_options;

/* The cache options of o; *enabled = local-cache.enabled.  Errors name the
 * option. */
pm_error *pm_lookup_cache_options_parse(const pm_options *o, bool *enabled, pm_lookup_cache_options *out);
void pm_lookup_cache_options_clear(pm_lookup_cache_options *o);

typedef struct pm_lookup_cache pm_lookup_cache;

/* One executor's view of the cache (its memory budget); the directory is
 * created on first use.  o is copied. */
pm_error *pm_lookup_cache_new(pm_lookup_cache **out, const pm_lookup_cache_options *o);
void pm_lookup_cache_free(pm_lookup_cache *c);
/* Bytes of memory held now, the most ever held, files built, rebuilt. */
typedef struct pm_lookup_cache_stats {
    int64_t memory, peak_memory;
    int64_t built, rebuilt, reused, evicted;
} pm_lookup_cache_stats;
void pm_lookup_cache_stats_get(const pm_lookup_cache *c, pm_lookup_cache_stats *out);

typedef struct pm_lookup_file pm_lookup_file;

/* The Lookup File of data file f (in bucket_dir) of table t: its rows read
 * as `fields` (a ROW of table fields; file_read.h with system columns),
 * stored as [_SEQUENCE_NUMBER, _VALUE_KIND, fields..., _POS]; `layout`
 * places the key in that type (its sort key orders the file).  Built when
 * missing. */
pm_error *pm_lookup_file_open(pm_lookup_file **out, pm_lookup_cache *c, pm_table *t, const char *bucket_dir,
                              const pm_data_file_meta *f, const pm_type *fields, const pm_kv_layout *layout);
/* The record of key (sort-key key part bytes): *found, and when found the
 * batch [_SEQUENCE_NUMBER, _VALUE_KIND, fields..., _POS BIGINT] and row
 * holding it (owned by lf, valid until the next call). */
pm_error *pm_lookup_file_get(pm_lookup_file *lf, const uint8_t *key, size_t len, bool *found, const pm_batch **b,
                             int64_t *row);
/* The file's first key (false when it has no rows); owned by lf. */
bool pm_lookup_file_first_key(const pm_lookup_file *lf, const uint8_t **key, size_t *len);
void pm_lookup_file_close(pm_lookup_file *lf);

#endif
