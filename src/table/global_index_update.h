/*
 * table/global_index_update.h — updates by row ID of columns that global
 * indexes cover (`global-index.column-update-action`, Java's
 * GlobalIndexColumnUpdateAction):
 *   THROW_ERROR (default)  an update of a column with a live btree / bitmap
 *                          entry in the updated partition is PM_EINVALID
 *                          naming the column and the index file, before
 *                          anything is written;
 *   DROP_PARTITION_INDEX   those entries (every global index entry of the
 *                          updated columns in the updated partitions) are
 *                          removed by the update's own snapshot; the next
 *                          maintenance round (automatic with
 *                          write-only=false, else pm_table_build_index)
 *                          rebuilds the coverage from the new values.
 * Any other value is PM_EINVALID naming the option.
 */
#ifndef PM_TABLE_GLOBAL_INDEX_UPDATE_H
#define PM_TABLE_GLOBAL_INDEX_UPDATE_H

#include <stddef.h>

#include "meta/data_file_meta.h"
#include "paimon/error.h"
#include "table/commit_message.h"
#include "table/scan.h"

/* The entries of bucket b that an update of the fields of ROW type
 * `updated` retires, appended (as DELETE entries) to *removed unless the
 * index_removed of one of prev[0..nprev) (the update's earlier messages)
 * lists them; PM_EINVALID under THROW_ERROR. */
pm_error *pm_gi_update_retire(pm_table *t, const pm_bucket_files *b, const pm_type *updated,
                              const pm_commit_message *prev, size_t nprev, pm_index_manifest_entry **removed,
                              size_t *nremoved);

#endif
