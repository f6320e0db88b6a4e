/*
 * paimon/snapshot.h — one snapshot of a table (`snapshot/snapshot-N`): the
 * table's state after one commit, like Paimon's `$snapshots` system table.
 *
 * A pm_snapshot is an immutable value the caller owns (pm_table_snapshot);
 * release it with pm_snapshot_free.  Strings returned by getters are owned
 * by the snapshot and live as long as it does; NULL means the field is
 * absent in the snapshot file.
 */
#ifndef PAIMON_SNAPSHOT_H
#define PAIMON_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/error.h"
#include "paimon/version.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pm_snapshot pm_snapshot;

PM_API void pm_snapshot_free(pm_snapshot *s);

PM_API int64_t pm_snapshot_id(const pm_snapshot *s);
PM_API int64_t pm_snapshot_schema_id(const pm_snapshot *s);
/* "APPEND", "COMPACT", "OVERWRITE" or "ANALYZE". */
PM_API const char *pm_snapshot_commit_kind(const pm_snapshot *s);
/* Commit time, epoch milliseconds. */
PM_API int64_t pm_snapshot_time_millis(const pm_snapshot *s);
PM_API const char *pm_snapshot_commit_user(const pm_snapshot *s);
PM_API int64_t pm_snapshot_commit_identifier(const pm_snapshot *s);
PM_API int64_t pm_snapshot_total_record_count(const pm_snapshot *s);
PM_API int64_t pm_snapshot_delta_record_count(const pm_snapshot *s);
/* Changelog record count; false when the snapshot has none recorded. */
PM_API bool pm_snapshot_changelog_record_count(const pm_snapshot *s, int64_t *out);
/* Manifest list file names (in manifest/), NULL when absent. */
PM_API const char *pm_snapshot_base_manifest_list(const pm_snapshot *s);
PM_API const char *pm_snapshot_delta_manifest_list(const pm_snapshot *s);
PM_API const char *pm_snapshot_changelog_manifest_list(const pm_snapshot *s);
PM_API const char *pm_snapshot_index_manifest(const pm_snapshot *s);
/* Watermark and next row id (row tracking); false when absent. */
PM_API bool pm_snapshot_watermark(const pm_snapshot *s, int64_t *out);
PM_API bool pm_snapshot_next_row_id(const pm_snapshot *s, int64_t *out);
/* The operation that produced it ("WRITE", "OVERWRITE", ...), NULL when absent. */
PM_API const char *pm_snapshot_write_operation(const pm_snapshot *s);
/* The snapshot file's JSON as Apache Paimon Java writes it (malloc'd;
 * release with pm_free). */
PM_API pm_error *pm_snapshot_to_json_text(char **out, const pm_snapshot *s);

#ifdef __cplusplus
}
#endif
#endif
