/*
 * table/de_read.h — reading row-tracking and data-evolution buckets: files
 * grouped by row-ID range and merged column by column
 * (DataEvolutionSplitRead's rules).  CONTRACT (de_read.c).
 *
 * Groups (pm_de_plan_groups): a file covers row IDs [firstRowId,
 * firstRowId + rowCount - 1]; files whose ranges overlap form one group.
 * In a group
 *   - normal files (Parquet/Avro) must all cover the same range; they are
 *     ordered by _MAX_SEQUENCE_NUMBER descending (then by name), so the
 *     newest version of a column comes first;
 *   - dedicated files (`.blob`) are ordered by firstRowId, then
 *     _MAX_SEQUENCE_NUMBER descending; per BLOB field they form one bunch
 *     whose files tile the group's range (an older file overlapping a
 *     newer one is shadowed and skipped);
 *   - the anchor is the oldest normal file (smallest _MAX_SEQUENCE_NUMBER,
 *     then name): its deletion vector, with positions relative to the
 *     group's first row ID, deletes rows of the whole group.
 * Vector-store files are PM_EUNSUPPORTED; a file without _FIRST_ROW_ID,
 * normal files with different ranges, a group without a normal file or a
 * blob bunch that does not tile the range are PM_ECORRUPT.
 *
 * Fields (pm_de_group_reader): each requested field (by field id) comes
 * from the first bunch that has it — a normal file has the fields of its
 * own schema (`_SCHEMA_ID`) that `_WRITE_COLS` lists (all but BLOB fields
 * when it lists none) plus `_ROW_ID` and `_SEQUENCE_NUMBER`; a blob bunch
 * has its one field.  A field no bunch has reads as null (PM_EINVALID when
 * it is NOT NULL).  `_ROW_ID` is the file's column where it is physical
 * and not null, else firstRowId + position; `_SEQUENCE_NUMBER` likewise,
 * else the providing file's _MAX_SEQUENCE_NUMBER.  The bunches are read
 * in lockstep; a batch is the column-wise concatenation of equal row
 * slices (columns are shared when a bunch's batch is used whole).
 */
#ifndef PM_TABLE_DE_READ_H
#define PM_TABLE_DE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "meta/data_file_meta.h"
#include "paimon/batch.h"
#include "paimon/error.h"
#include "table/table_internal.h"

/* One group of files sharing a row-ID range (files borrowed). */
typedef struct pm_de_group {
    const pm_data_file_meta **files; /* normal files (newest first), then dedicated files */
    size_t nfiles;
    size_t nnormal;
    int64_t first_row_id;            /* meaningless when !has_first_row_id */
    bool has_first_row_id;           /* false: a row-tracking file without one (its _ROW_ID is physical) */
    int64_t row_count;
    const pm_data_file_meta *anchor; /* the deletion-vector anchor (a normal file) */
} pm_de_group;

/* Is `name` a dedicated blob file (`.blob`)? */
bool pm_de_is_blob_file(const char *name);

/* PM_ECORRUPT unless f has a first row ID and [first, first + rows) is a
 * valid range of non-negative row IDs (no overflow). */
pm_error *pm_de_check_row_range(const pm_data_file_meta *f);
/* Groups of files[0..n) in row-ID order (see top). */
pm_error *pm_de_plan_groups(const pm_data_file_meta *files, size_t n, pm_de_group **out, size_t *ngroups);
/* One group per file (row-tracking tables without data evolution, read
 * file by file as Java's plain append read does; files without a first
 * row ID keep their physical _ROW_ID). */
pm_error *pm_de_single_groups(const pm_data_file_meta *files, size_t n, pm_de_group **out, size_t *ngroups);
void pm_de_groups_free(pm_de_group *g, size_t n);

typedef struct pm_de_group_reader pm_de_group_reader;

/* `g` and read_type (fields of the table's schema by id, plus `_ROW_ID` /
 * `_SEQUENCE_NUMBER` by their reserved ids) must outlive the reader. */
pm_error *pm_de_group_reader_open(pm_de_group_reader **out, pm_table *t, const char *bucket_dir,
                                  const pm_de_group *g, const pm_type *read_type, int64_t batch_rows);
/* *out = NULL at the end.  Batches are owned by the reader. */
pm_error *pm_de_group_reader_next(pm_de_group_reader *r, const pm_batch **out);
/* Position (relative to the group's first row ID) of the last batch's first row. */
int64_t pm_de_group_reader_position(const pm_de_group_reader *r);
void pm_de_group_reader_free(pm_de_group_reader *r);

#endif
