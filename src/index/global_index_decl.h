/*
 * index/global_index_decl.h — the declaration resolver of global indexes:
 * which columns of a table carry which global index family, with which
 * implementation parameters and which consolidation policy.
 *
 * Declarations (for each family F of the seed's list: btree, bitmap,
 * multivalue, fm, full-text, ivf-flat, ivf-sq, ivf-pq, ivf-rq, diskann,
 * and the legacy vector family), first present key wins:
 *   global-index.F.index-columns   comma-separated, each name trimmed
 *   global-index.F.index-column    (DLF singular alias)
 *   pk-F.index.columns             (legacy primary-key namespace)
 * An explicitly empty (blank) preferred key is PM_EINVALID rather than a
 * fall-back to the next one.  Empty names ("a,,b"), a name listed twice,
 * a name that is no top-level field of the row type and one column in two
 * families are PM_EINVALID.  A declared family other than btree and
 * bitmap is PM_EUNSUPPORTED naming the family and its columns.
 *
 * Field parameters (a JSON object per column; first present key wins, so
 * the shared JSON replaces legacy JSON entirely):
 *   fields.C.index-options
 *   fields.C.global-index.F.index-options
 *   fields.C.pk-F.index.options
 * When only the two legacy objects are present they are merged, and one
 * key with two different values is PM_EINVALID (a legacy conflict).
 * Values may be strings, booleans or numbers (their JSON text); arrays,
 * objects and null are PM_EINVALID.  A short key is qualified with the
 * family's implementation prefix (`block-size` → `btree-index.block-size`;
 * bitmap: `bitmap-index.`); keys starting with that prefix or with
 * `global-index.` are taken as they are.  Keys paimon-c acts on:
 *   btree-index.block-size (memory, 64 KiB), btree-index.records-per-range
 *   (1000000; a build splits a range into files of at most 1.2 × that
 *   many rows, as Java), btree-index.compression (none, zstd, lz4; lzo
 *   and others PM_EUNSUPPORTED), btree-index.compression-level (int, 1),
 *   btree-index.cache-size / btree-index.high-priority-pool-ratio (reader
 *   cache sizing of Java; parsed and validated, no effect on results);
 *   bitmap-index.format: file-index (default: Java 1.4.2's BitmapFileIndex
 *   payload) or dictionary (the BGIX format of Paimon after 1.4, the one
 *   pypaimon 2.1 reads and writes; Paimon itself has no switch, its
 *   version decides), bitmap-index.dictionary-block-size (memory, 16 KiB),
 *   bitmap-index.compression (none, zstd, lz4) and -compression-level:
 *   dictionary format only (PM_EINVALID with file-index);
 *   the compression and bitmap-index keys also read the table option of
 *   the same name when the JSON lacks them;
 *   global-index.num-sorted-run.compaction-trigger (5, > 0),
 *   global-index.compaction.size-ratio (1, >= 0),
 *   global-index.compaction.max-size-amplification-percent (200, >= 0),
 *   global-index.row-count-per-shard (> 0);
 * any other key is PM_EINVALID naming it.  The table-level options of the
 * same policy names are the defaults a column's JSON overrides;
 * `fields.C.global-index.row-count-per-shard` overrides the table's
 * `global-index.row-count-per-shard` (100000) for that column, and the
 * JSON key overrides both.
 *
 * Table requirements (pm_gi_decls_check_table): append and data-evolution
 * tables need row tracking on and `bucket` = -1; primary-key tables
 * (source-backed indexes, compact/pk/pk_global_index.h) need a fixed
 * bucket count (`bucket` > 0; dynamic and postpone buckets are
 * PM_EUNSUPPORTED); a table without declarations has no requirement.
 *
 * Ownership: a pm_gi_decls owns its columns' strings and option maps; a
 * column's `type` is borrowed from the row type passed to resolve.
 */
#ifndef PM_INDEX_GLOBAL_INDEX_DECL_H
#define PM_INDEX_GLOBAL_INDEX_DECL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "index/global_index_block.h"
#include "meta/options.h"
#include "paimon/error.h"
#include "paimon/types.h"

typedef enum pm_gi_family { PM_GI_BTREE, PM_GI_BITMAP } pm_gi_family;

/* "btree" / "bitmap": the index type of manifest entries and file names. */
const char *pm_gi_family_name(pm_gi_family f);
/* The family of an index manifest entry's type (false for other types). */
bool pm_gi_family_parse(const char *index_type, pm_gi_family *out);

/* Universal run selection of index ranges (logical row counts). */
typedef struct pm_gi_policy {
    int32_t trigger;           /* global-index.num-sorted-run.compaction-trigger */
    int32_t size_ratio;        /* global-index.compaction.size-ratio (percent) */
    int32_t max_amplification; /* global-index.compaction.max-size-amplification-percent */
} pm_gi_policy;

typedef struct pm_gi_column {
    char *column;              /* trimmed field name */
    int32_t field_id;
    const pm_type *type;       /* borrowed from the resolved row type */
    pm_gi_family family;
    char *declared_by;         /* the option key the declaration came from */
    pm_options *params;        /* qualified parameters from the field JSON */
    int64_t rows_per_shard;
    pm_gi_policy policy;
    int64_t btree_block_size;
    int64_t btree_records_per_range;
    pm_gi_compression compression; /* <family>-index.compression of its blocks */
    int32_t compression_level;     /* <family>-index.compression-level (1) */
    bool bitmap_dictionary;        /* bitmap-index.format = dictionary */
    int64_t bitmap_dict_block_size; /* bitmap-index.dictionary-block-size (16 KiB) */
} pm_gi_column;

typedef struct pm_gi_decls {
    pm_gi_column *cols;        /* families in list order, columns in declaration order */
    size_t n;
} pm_gi_decls;

/* Resolve the declarations of table options o against row_type (a ROW);
 * out is empty without declarations.  Errors as above; nothing is kept on
 * error. */
pm_error *pm_gi_decls_resolve(const pm_options *o, const pm_type *row_type, pm_gi_decls *out);
void pm_gi_decls_clear(pm_gi_decls *d);
/* The declaration of field `field_id`, or NULL. */
const pm_gi_column *pm_gi_decls_find(const pm_gi_decls *d, int32_t field_id);
/* The declaration of column `name`, or NULL. */
const pm_gi_column *pm_gi_decls_find_name(const pm_gi_decls *d, const char *name);
/* Declarations and table mode together: PM_EINVALID / PM_EUNSUPPORTED as
 * above when d is non-empty and the table cannot carry them. */
pm_error *pm_gi_decls_check_table(const pm_gi_decls *d, const pm_options *o, size_t n_primary_keys);
/* Resolve and check in one step (table creation, write). */
pm_error *pm_gi_decls_validate(const pm_options *o, const pm_type *row_type, size_t n_primary_keys);

#endif
