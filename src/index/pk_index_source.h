/*
 * index/pk_index_source.h — the source metadata of a primary-key table's
 * source-backed global index payload (Apache Paimon's
 * PrimaryKeyIndexSourceMeta, stored in GlobalIndexMeta._SOURCE_META of the
 * payload's index manifest entry), and the rule that says which payload
 * is current for a level.
 *
 * A payload (index type `btree` or `bitmap`, the partition and bucket of
 * its data, row range [0, rows − 1], the indexed field id, the family's
 * index meta) indexes one positive level of one bucket for one column: the
 * complete file set of that level sorted by file name; payload row
 * ordinals concatenate the files' physical rows in that order (retract
 * rows and rows marked in deletion vectors keep their positions).
 *
 * Bytes (big-endian, Java DataOutput):
 *   version i32 (1) | data level i32 (> 0) | source file count i32 (> 0) |
 *   per file: name length u16 | name bytes (Java writeUTF; paimon-c names
 *   are ASCII, where modified UTF-8 is plain ASCII) | row count i64 (>= 0)
 * and nothing after.  Decoding checks every count against the bytes left
 * (PM_ECORRUPT naming the part); a version other than 1 is PM_EUNSUPPORTED.
 *
 * Ownership: a pm_pk_source owns its names.
 */
#ifndef PM_INDEX_PK_INDEX_SOURCE_H
#define PM_INDEX_PK_INDEX_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "meta/data_file_meta.h"
#include "paimon/error.h"

typedef struct pm_pk_source_file {
    char *name;
    int64_t row_count;
} pm_pk_source_file;

typedef struct pm_pk_source {
    int32_t level;
    pm_pk_source_file *files;   /* sorted by name (as written) */
    size_t nfiles;
} pm_pk_source;

void pm_pk_source_clear(pm_pk_source *s);

/* The source of level `level` (> 0) from data files f[0..n) of that level
 * (any order; sorted by name here).  PM_EINVALID for n = 0, a non-positive
 * level or a file at another level. */
pm_error *pm_pk_source_from_files(int32_t level, const pm_data_file_meta *const *f, size_t n, pm_pk_source *out);

/* Append the bytes of s to out. */
pm_error *pm_pk_source_encode(const pm_pk_source *s, pm_buf *out);
/* Decode bytes p[0..n) into out (cleared on error). */
pm_error *pm_pk_source_decode(const uint8_t *p, size_t n, pm_pk_source *out);

/* Sum of the files' row counts (the payload's rows); PM_ECORRUPT on
 * overflow. */
pm_error *pm_pk_source_rows(const pm_pk_source *s, int64_t *out);

/* Same level and the same files (names and row counts) in the same order? */
bool pm_pk_source_equal(const pm_pk_source *a, const pm_pk_source *b);

/* Is index manifest entry ie a source-backed payload (global index meta
 * with source metadata)?  Decodes it into *out when so (out may be NULL);
 * PM_ECORRUPT when its source metadata does not decode or its row range is
 * not [0, rows − 1]. */
pm_error *pm_pk_source_of_entry(const pm_index_manifest_entry *ie, bool *is_pk, pm_pk_source *out);

#endif
