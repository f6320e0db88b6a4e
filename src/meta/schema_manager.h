/*
 * meta/schema_manager.h — schema changes (Paimon's SchemaManager): the
 * next schema of a table from the latest one and a list of changes.
 *
 * Only option changes (SET / RESET) are supported here.  The rules, once
 * the table has a snapshot (Java's checkAlterTableOption /
 * checkResetTableOption):
 *   - immutable options never change: bucket-key, bucket-function.type,
 *     data-file.path-directory, merge-engine,
 *     aggregation.remove-record-on-delete,
 *     partial-update.remove-record-on-delete,
 *     partial-update.remove-record-on-sequence-group, rowkind.field,
 *     primary-key, partition, force-lookup, row-tracking.enabled,
 *     data-evolution.enabled, index-file-in-data-file-dir,
 *     blob-descriptor-field, blob-external-storage-path,
 *     blob-external-storage-field, pk-clustering-override; nor `path`;
 *   - `bucket` cannot change when it is -1, cannot become -1, cannot be reset;
 *   - deletion-vectors.enabled changes only with
 *     deletion-vectors.modifiable=true;
 *   - ignore-delete and ignore-update-before cannot go from true to false.
 * Violations are PM_EUNSUPPORTED naming the option.  Before the first
 * snapshot every change is allowed.  The result is validated like a new
 * table's schema (options, keys): PM_EINVALID otherwise.
 */
#ifndef PM_META_SCHEMA_MANAGER_H
#define PM_META_SCHEMA_MANAGER_H

#include <stdbool.h>
#include <stddef.h>

#include "meta/schema.h"

/* *out = schema latest->id + 1 with the options set and reset (new value,
 * caller frees), stamped with the current time. */
pm_error *pm_schema_alter_options(const pm_schema *latest, bool has_snapshot, const char *const *set_keys,
                                  const char *const *set_values, size_t nset, const char *const *reset_keys,
                                  size_t nreset, pm_schema **out);

#endif
