/*
 * api/api_json.c — the JSON forms of read splits and commit messages, so
 * they travel between processes and machines (paimon/read.h,
 * paimon/write.h).  DataFileMeta and index entries use the compaction
 * JSON's encoding (compact/compact_json.h), read strictly through
 * meta/json.h; every key is always written.
 *
 *   split     {format: 1, kind: "split", table, branch, fallback,
 *              snapshot_id, schema_id, partition (base64 BinaryRow),
 *              partition_text, bucket, total_buckets,
 *              incremental (null, "delta" or "changelog": a split of an
 *              incremental scan),
 *              files [DataFileMeta], index_files [IndexEntry (ADD)]}
 *   messages  {format: 1, kind: "commit_messages", table,
 *              messages [{partition, bucket, total_buckets,
 *                         new_files [DataFileMeta], changelog [DataFileMeta],
 *                         index_added [IndexEntry (ADD)],
 *                         index_removed [IndexEntry (DELETE)]}]}
 *              (index entries: the HASH files of dynamic-bucket writes)
 *
 * Values read are untrusted: file names must be plain names (PM_EINVALID
 * naming the field), external paths and existence are checked when they
 * meet their table (the reader; pm_commit, pm_commit_messages_abort).  A
 * split's deletion vectors are not written: the reader rebuilds them from
 * its index files, as the scan does.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "base/mem.h"
#include "compact/compact_internal.h"
#include "compact/compact_json.h"
#include "meta/manifest.h"

#define FORMAT 1

static pm_error *finish(pm_cjw *b, json_t *root, const char *what, char **out)
{
    *out = NULL;
    if (b->failed || !root) {
        json_decref(root);
        if (b->bad_string)
            return pm_error_new(PM_EINVALID, "%s: string is not valid UTF-8: \"%.80s\"", what, b->bad_string);
        return pm_error_wrap(pm_oom(), PM_ENOMEM, "%s to JSON", what);
    }
    *out = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(root);
    return *out ? NULL : pm_error_wrap(pm_oom(), PM_ENOMEM, "%s to JSON", what);
}

static json_t *head(pm_cjw *b, const char *kind, const char *table)
{
    json_t *o = pm_cjw_take(b, json_object());
    pm_cjw_set(b, o, "format", pm_cjw_long(b, FORMAT));
    pm_cjw_set(b, o, "kind", pm_cjw_str(b, kind));
    pm_cjw_set(b, o, "table", pm_cjw_str(b, table));
    return o;
}

/* format 1 and the kind, else PM_EINVALID / PM_EUNSUPPORTED. */
static pm_error *read_head(const pm_jnode *root, const char *kind, char **table)
{
    int64_t format = 0;
    PM_TRY(pm_json_i64(root, "format", INT64_MIN, INT64_MAX, &format));
    if (format != FORMAT) {
        pm_jnode f;
        pm_json_get(&f, root, "format");
        f.code = PM_EUNSUPPORTED;
        return pm_json_error(&f, "version %" PRId64 " is not supported (expected %d)", format, FORMAT);
    }
    const char *kinds[] = {kind};
    int k;
    PM_TRY(pm_json_enum(root, "kind", kinds, 1, 0, &k));
    return pm_json_str(root, "table", PM_JSON_NONEMPTY, table);
}

/* ---- splits ---- */

pm_error *pm_split_to_json(char **out, const pm_split *s)
{
    pm_cjw b = {0};
    json_t *o = head(&b, "split", s->table_path);
    pm_cjw_set(&b, o, "branch", pm_cjw_str(&b, s->branch));
    pm_cjw_set(&b, o, "fallback", pm_cjw_take(&b, json_boolean(s->fallback)));
    pm_cjw_set(&b, o, "snapshot_id", pm_cjw_long(&b, s->snapshot_id));
    pm_cjw_set(&b, o, "schema_id", pm_cjw_long(&b, s->schema_id));
    pm_cjw_set(&b, o, "partition", pm_cjw_bytes(&b, &s->bf.partition));
    pm_cjw_set(&b, o, "partition_text", pm_cjw_str(&b, s->partition_text));
    pm_cjw_set(&b, o, "bucket", pm_cjw_long(&b, s->bf.bucket));
    pm_cjw_set(&b, o, "total_buckets", pm_cjw_long(&b, s->bf.total_buckets));
    pm_cjw_set(&b, o, "incremental",
               s->incremental ? pm_cjw_str(&b, s->incremental == PM_INCREMENTAL_DELTA ? "delta" : "changelog")
                              : pm_cjw_take(&b, json_null()));
    pm_cjw_set(&b, o, "files", pm_cjw_files(&b, s->bf.files, s->bf.nfiles));
    pm_cjw_set(&b, o, "index_files", pm_cjw_index(&b, s->bf.index_entries, s->bf.nindex_entries));
    return finish(&b, o, "split", out);
}

static const char *const SPLIT_KEYS[] = {"format", "kind", "table", "branch", "fallback", "snapshot_id",
                                         "schema_id", "partition", "partition_text", "bucket", "total_buckets",
                                         "incremental", "files", "index_files", NULL};
/* indexed by pm_incremental_mode: "delta", "changelog" */
static const char *const INCREMENTAL_MODES[] = {"", "delta", "changelog"};

static pm_error *read_split(const pm_jnode *root, pm_split *s)
{
    PM_TRY(pm_json_keys(root, SPLIT_KEYS));
    PM_TRY(read_head(root, "split", &s->table_path));
    PM_TRY(pm_json_str(root, "branch", PM_JSON_NONEMPTY, &s->branch));
    PM_TRY(pm_json_bool(root, "fallback", &s->fallback));
    PM_TRY(pm_json_i64(root, "snapshot_id", 0, INT64_MAX, &s->snapshot_id));
    PM_TRY(pm_json_i64(root, "schema_id", 0, INT32_MAX, &s->schema_id));
    PM_TRY(pm_cjr_bytes(root, "partition", 0, &s->bf.partition));
    PM_TRY(pm_json_str(root, "partition_text", 0, &s->partition_text));
    PM_TRY(pm_json_i32(root, "bucket", -2, INT32_MAX, &s->bf.bucket));
    PM_TRY(pm_json_i32(root, "total_buckets", -2, INT32_MAX, &s->bf.total_buckets));
    pm_jnode inc;
    pm_json_get(&inc, root, "incremental");
    if (!pm_json_is_null(&inc)) {
        int m = 0;
        PM_TRY(pm_json_enum(root, "incremental", INCREMENTAL_MODES, 3, 0, &m));
        if (!m)
            return pm_json_error(&inc, "must be \"delta\", \"changelog\" or null");
        s->incremental = m;
        if (s->fallback)
            return pm_json_error(&inc, "an incremental split of a fallback branch");
    }
    PM_TRY(pm_cjr_files(root, "files", &s->bf.files, &s->bf.nfiles));
    PM_TRY(pm_cjr_index(root, "index_files", PM_FILE_ADD, &s->bf.index_entries, &s->bf.nindex_entries));
    PM_TRY(pm_compact_check_data_files("split", "files", s->bf.files, s->bf.nfiles, false, NULL));
    return pm_compact_check_index_files("split", "index_files", s->bf.index_entries, s->bf.nindex_entries, false,
                                        NULL);
}

pm_error *pm_split_from_json(pm_split **out, const char *json, size_t len)
{
    *out = NULL;
    json_t *tree = NULL;
    pm_jnode root;
    PM_TRY(pm_json_parse_doc(json, len, PM_EINVALID, "split", PM_JSON_NO_DUPLICATES, &tree, &root));
    pm_split *s = NULL;
    pm_error *e = pm_calloc(&s, 1, sizeof *s);
    if (!e)
        e = read_split(&root, s);
    json_decref(tree);
    if (e) {
        pm_split_free(s);
        return e;
    }
    *out = s;
    return NULL;
}

/* ---- commit messages ---- */

pm_error *pm_commit_messages_to_json(char **out, const pm_commit_messages *m)
{
    pm_cjw b = {0};
    json_t *o = head(&b, "commit_messages", m->table_path);
    json_t *arr = pm_cjw_take(&b, json_array());
    for (size_t i = 0; i < m->n; i++) {
        const pm_commit_message *c = &m->msgs[i];
        json_t *x = pm_cjw_take(&b, json_object());
        pm_cjw_set(&b, x, "partition", pm_cjw_bytes(&b, &c->partition));
        pm_cjw_set(&b, x, "bucket", pm_cjw_long(&b, c->bucket));
        pm_cjw_set(&b, x, "total_buckets", pm_cjw_long(&b, c->total_buckets));
        pm_cjw_set(&b, x, "new_files", pm_cjw_files(&b, c->new_files, c->n_new_files));
        pm_cjw_set(&b, x, "changelog", pm_cjw_files(&b, c->changelog, c->n_changelog));
        pm_cjw_set(&b, x, "index_added", pm_cjw_index(&b, c->index_added, c->n_index_added));
        pm_cjw_set(&b, x, "index_removed", pm_cjw_index(&b, c->index_removed, c->n_index_removed));
        pm_cjw_push(&b, arr, x);
    }
    pm_cjw_set(&b, o, "messages", arr);
    return finish(&b, o, "commit messages", out);
}

static const char *const MESSAGES_KEYS[] = {"format", "kind", "table", "messages", NULL};
static const char *const MESSAGE_KEYS[] = {"partition", "bucket", "total_buckets", "new_files", "changelog",
                                           "index_added", "index_removed", NULL};

static pm_error *read_message(const pm_jnode *x, pm_commit_message *c)
{
    PM_TRY(pm_json_as_object(x, 0, NULL));
    PM_TRY(pm_json_keys(x, MESSAGE_KEYS));
    PM_TRY(pm_cjr_bytes(x, "partition", 0, &c->partition));
    PM_TRY(pm_json_i32(x, "bucket", -2, INT32_MAX, &c->bucket));
    PM_TRY(pm_json_i32(x, "total_buckets", -2, INT32_MAX, &c->total_buckets));
    PM_TRY(pm_cjr_files(x, "new_files", &c->new_files, &c->n_new_files));
    PM_TRY(pm_cjr_files(x, "changelog", &c->changelog, &c->n_changelog));
    PM_TRY(pm_cjr_index(x, "index_added", PM_FILE_ADD, &c->index_added, &c->n_index_added));
    PM_TRY(pm_cjr_index(x, "index_removed", PM_FILE_DELETE, &c->index_removed, &c->n_index_removed));
    return NULL;
}

static pm_error *read_messages(const pm_jnode *root, pm_commit_messages *m)
{
    PM_TRY(pm_json_keys(root, MESSAGES_KEYS));
    PM_TRY(read_head(root, "commit_messages", &m->table_path));
    pm_jnode arr;
    size_t n = 0;
    PM_TRY(pm_json_array(root, "messages", 0, &arr, &n));
    if (n)
        PM_TRY(pm_calloc(&m->msgs, n, sizeof *m->msgs));
    for (size_t i = 0; i < n; i++) {
        pm_jnode x;
        pm_json_at(&x, &arr, i);
        m->n = i + 1;
        PM_TRY(read_message(&x, &m->msgs[i]));
    }
    return pm_commit_messages_check_names(m);
}

pm_error *pm_commit_messages_from_json(pm_commit_messages **out, const char *json, size_t len)
{
    *out = NULL;
    json_t *tree = NULL;
    pm_jnode root;
    PM_TRY(pm_json_parse_doc(json, len, PM_EINVALID, "commit messages", PM_JSON_NO_DUPLICATES, &tree, &root));
    pm_commit_messages *m = NULL;
    pm_error *e = pm_calloc(&m, 1, sizeof *m);
    if (!e)
        e = read_messages(&root, m);
    json_decref(tree);
    if (e) {
        pm_commit_messages_free(m);
        return e;
    }
    *out = m;
    return NULL;
}
