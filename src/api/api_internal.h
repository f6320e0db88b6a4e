/*
 * api/api_internal.h — the values src/api/ shares between its files: a
 * read split (api_read.c, api_json.c) and a set of commit messages
 * (api_write.c, api_json.c).
 */
#ifndef PM_API_INTERNAL_H
#define PM_API_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "paimon/read.h"
#include "paimon/write.h"
#include "table/commit_message.h"
#include "table/scan.h"

/* One (partition, bucket) of a scanned snapshot, self-contained. */
struct pm_split {
    char *table_path;
    char *branch;              /* whose files these are */
    bool fallback;             /* the scanned branch's fallback branch */
    int64_t snapshot_id;       /* of that branch */
    int64_t schema_id;         /* read schema of that branch */
    char *partition_text;      /* display only */
    int incremental;           /* 0 = a normal scan's, else PM_INCREMENTAL_DELTA / _CHANGELOG */
    pm_bucket_files bf;        /* owned; bf.table is NULL outside a reader;
                                  bf.dvs are rebuilt from bf.index_entries by
                                  every reader (and empty after JSON) */
};

/* What one or more writers prepared for one table. */
struct pm_commit_messages {
    char *table_path;          /* the table the files were written into */
    pm_commit_message *msgs;
    size_t n;
};

/* Every file the messages name is a plain file name, and the messages hold
 * only new data and changelog files (PM_EINVALID naming the field). */
pm_error *pm_commit_messages_check_names(const pm_commit_messages *m);

#endif
