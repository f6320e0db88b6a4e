/*
 * meta/snapshot.h — the snapshot file (`snapshot/snapshot-N`): parsed value,
 * JSON reader and a writer identical to Paimon Java's Jackson output.
 *
 * Keys, in the order Java writes them (Snapshot @JsonCreator order), with
 * the null handling of Paimon ≥ 1.4 / 2.x:
 *    version            always (3)            writerVersion   omitted if null
 *    uuid               omitted if null       commitIdentifier, commitKind,
 *    id, schemaId       always                timeMillis       always
 *    baseManifestList   always, even null     totalRecordCount, deltaRecordCount always
 *    baseManifestListSize   omitted if null   changelogRecordCount omitted if null
 *    deltaManifestList  always, even null     watermark, statistics omitted if null
 *    deltaManifestListSize  omitted if null   properties       omitted if null
 *    changelogManifestList  omitted if null   nextRowId        omitted if null
 *    changelogManifestListSize omitted if null operation       omitted if null
 *    indexManifest      omitted if null
 *    commitUser         always, even null
 *
 * Files written by Paimon ≤ 1.3 differ in two ways, both preserved so such
 * a file re-serializes to the same bytes: `changelogManifestList` was
 * written even when null, and `logOffsets` (a map bucket → offset, normally
 * `{ }`) sat between timeMillis and totalRecordCount.  Parsing records both
 * as `legacy_*` fields; a snapshot paimon-c builds leaves them unset and is
 * written in the current layout.
 *
 * Reading ignores unknown keys; optional fields missing or null are absent;
 * a missing `version` means 1 (Paimon ≤ 0.2).  Malformed JSON, a wrong JSON
 * type or an unknown commitKind/operation is PM_ECORRUPT naming the file
 * and field.
 */
#ifndef PM_META_SNAPSHOT_H
#define PM_META_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "meta/options.h"
#include "paimon/error.h"
#include "paimon/snapshot.h"

#define PM_SNAPSHOT_VERSION 3
#define PM_BATCH_COMMIT_IDENTIFIER INT64_MAX

typedef enum pm_commit_kind {
    PM_COMMIT_APPEND,
    PM_COMMIT_COMPACT,
    PM_COMMIT_OVERWRITE,
    PM_COMMIT_ANALYZE
} pm_commit_kind;

typedef enum pm_snapshot_operation {
    PM_SNAPSHOT_OP_NONE = 0, /* absent */
    PM_SNAPSHOT_OP_WRITE,
    PM_SNAPSHOT_OP_OVERWRITE,
    PM_SNAPSHOT_OP_DELETE,
    PM_SNAPSHOT_OP_TRUNCATE,
    PM_SNAPSHOT_OP_UPDATE,
    PM_SNAPSHOT_OP_MERGE,
    PM_SNAPSHOT_OP_CREATE_TABLE_AS_SELECT,
    PM_SNAPSHOT_OP_REPLACE_TABLE_AS_SELECT,
    PM_SNAPSHOT_OP_CREATE_OR_REPLACE_TABLE_AS_SELECT
} pm_snapshot_operation;

typedef struct pm_log_offset {
    int32_t bucket;
    int64_t offset;
} pm_log_offset;

/* Optional long: `has` says whether it is present. */
typedef struct pm_opt_long {
    bool has;
    int64_t v;
} pm_opt_long;

/* All strings are malloc'd and owned by the snapshot; NULL = absent/null. */
typedef struct pm_snapshot {
    int32_t version;
    char *uuid;
    int64_t id;
    int64_t schema_id;
    char *base_manifest_list;
    pm_opt_long base_manifest_list_size;
    char *delta_manifest_list;
    pm_opt_long delta_manifest_list_size;
    char *changelog_manifest_list;
    pm_opt_long changelog_manifest_list_size;
    char *index_manifest;
    char *commit_user;
    char *writer_version;
    int64_t commit_identifier;
    pm_commit_kind commit_kind;
    int64_t time_millis;
    int64_t total_record_count;
    int64_t delta_record_count;
    pm_opt_long changelog_record_count;
    pm_opt_long watermark;
    char *statistics;
    pm_options *properties; /* NULL = absent */
    pm_opt_long next_row_id;
    pm_snapshot_operation operation;

    /* Paimon ≤ 1.3 layout, see top. */
    bool legacy_changelog_list_null;
    bool legacy_has_log_offsets;
    pm_log_offset *legacy_log_offsets;
    size_t legacy_log_offset_count;
} pm_snapshot;

/* A zeroed snapshot with version 3 (caller fills fields; free with pm_snapshot_free). */
pm_error *pm_snapshot_new(pm_snapshot **out);
void pm_snapshot_free(pm_snapshot *s);
pm_error *pm_snapshot_clone(const pm_snapshot *s, pm_snapshot **out);

/* Parse snapshot JSON; `what` names the file in errors. */
pm_error *pm_snapshot_parse(const void *json, size_t len, const char *what, pm_snapshot **out);
/* Append the Java-identical JSON (no trailing newline). */
pm_error *pm_snapshot_to_json(const pm_snapshot *s, pm_buf *out);

const char *pm_commit_kind_name(pm_commit_kind k);
const char *pm_snapshot_operation_name(pm_snapshot_operation op); /* NULL for NONE */

#endif
