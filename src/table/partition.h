/*
 * table/partition.h — partition rows as the read side needs them: decoding
 * a serialized partition BinaryRow into values, their path strings, the
 * bucket directory of a (partition, bucket), and compiled partition specs
 * (the `--partition k=v` filters of scan.h) with matching and
 * manifest-pruning helpers.
 *
 * Matching rule (superset of plain string equality, so users can type what
 * they see in the directory names or the value itself):
 *   a spec entry k=v matches the partition value x when
 *     - v equals the directory string of x (partition.legacy-name rule,
 *       null or blank → partition.default-name), or
 *     - v equals x CAST to STRING (e.g. "2024-01-01" for a DATE), or
 *     - v parses as a value of k's type (types/value.h text rules) whose
 *       CAST to STRING equals that of x ("007" for INT 7).
 *   v equal to the default name matches null (and blank strings).
 */
#ifndef PM_TABLE_PARTITION_H
#define PM_TABLE_PARTITION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "meta/data_file_meta.h"
#include "meta/paths.h"
#include "table/scan.h"
#include "types/binary_row.h"

/* Decode the serialized partition row (4-byte arity prefix) into one value
 * per field of `ptype` (a ROW); bytes values borrow from `p`.  `vals` has
 * ptype->nfields entries. */
pm_error *pm_partition_decode(const pm_type *ptype, const uint8_t *p, size_t n, pm_part_value *vals);

/* Append "k1=v1/k2=v2" (directory strings, unescaped, no trailing '/')
 * for a serialized partition row; nothing for an unpartitioned table. */
pm_error *pm_partition_display(pm_table *t, const uint8_t *p, size_t n, pm_buf *out);

/* Full path of the bucket directory of (partition, bucket) (malloc'd). */
pm_error *pm_table_bucket_dir(pm_table *t, const uint8_t *partition, size_t n, int32_t bucket,
                              char **out);

/* A spec compiled against the table's partition type. */
typedef struct pm_part_matcher pm_part_matcher;

/* Compile `nspecs` specs (OR); PM_EINVALID when a key is not a partition
 * key.  nspecs == 0 yields a matcher that accepts everything. */
pm_error *pm_part_matcher_new(pm_table *t, const pm_partition_spec *specs, size_t nspecs,
                              pm_part_matcher **out);
void pm_part_matcher_free(pm_part_matcher *m);
bool pm_part_matcher_all(const pm_part_matcher *m);
pm_error *pm_part_matcher_match(pm_part_matcher *m, const uint8_t *partition, size_t n, bool *match);
/* False only when the manifest's partition stats prove that no partition
 * in it can match (conservative: true when unsure). */
bool pm_part_matcher_may_match_stats(pm_part_matcher *m, const pm_simple_stats *stats);

#endif
