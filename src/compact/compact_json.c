/*
 * compact/compact_json.c — JSON form of plans, tasks and results, so a task
 * can run in another process or machine and its result come back.
 *
 * Every document is an object with "format": 1 and "kind": "plan" | "task"
 * | "result".  Every key is always written (nullable values as null), and
 * reading is strict (meta/json.h): an unknown key, a missing key, a wrong
 * JSON type, a number out of range, bad base64 or an unknown enum value is
 * PM_EINVALID naming the field by its path (e.g.
 * `task.files[2].value_stats.null_counts`); another "format" is
 * PM_EUNSUPPORTED.
 * Byte strings (serialized BinaryRows, embedded indexes) are standard
 * base64.  Integers are JSON integers (64-bit); DataFileMeta round-trips
 * exactly, null and empty distinguished.
 *
 *   task   {format, kind, table, plan_id, commit_user, task_index, snapshot_id,
 *           schema_id, mode (a mode name: "append-unaware", "append-bucketed",
 *           "primary-key"), full,
 *           partition, bucket, total_buckets,
 *           output {format, compression, target_file_size, target_file_row_num, level,
 *                   row_group_passthrough, row_group_passthrough_min_size},
 *           files [DataFileMeta], deletion_vectors [DvRef], index_files [IndexEntry],
 *           <part key of every registered mode>: the task mode's part, the
 *           others null (compact_mode.h; primary keys: "pk", pk/pk_json.c)}
 *   result {format, kind, table, plan_id, commit_user, task_index, snapshot_id,
 *           schema_id, partition, bucket, total_buckets, before [DataFileMeta],
 *           after [DataFileMeta], changelog [DataFileMeta], deletion_vectors [DvRef],
 *           index_added [IndexEntry], index_removed [IndexEntry],
 *           counters {rows_read, rows_deleted, rows_written, bytes_read,
 *           bytes_written, duration_ms}, <part keys> as in a task}
 *   plan   {format, kind, table, plan_id, commit_user, snapshot_id, schema_id,
 *           full, tasks [task]}
 *   DataFileMeta, SimpleStats, DvRef, IndexEntry: compact_json_meta.c.
 * Values read are checked further: a task carries its mode's part (which
 * agrees with it), no input twice, DVs only of inputs, plain file names
 * (compact_check.c); a plan's tasks belong to it, in index order.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "compact/compact_json.h"
#include "meta/manifest.h"

/* ================================================================== */
/* writing                                                             */
/* ================================================================== */

static void w_parts(pm_cjw *b, json_t *o, const pm_compact_part *part)
{
    const char *keys[16];
    size_t n = pm_compact_part_keys(keys, 16);
    for (size_t i = 0; i < n; i++) {
        bool mine = part && !strcmp(part->mode->part_key, keys[i]);
        pm_cjw_set(b, o, keys[i], mine ? pm_cjw_take(b, part->mode->part_to_json(part)) : json_null());
    }
}

/* The head of a document: format, kind and the identity tasks and
 * results share (the plan leaves task_index out: index < 0). */
static json_t *w_head(pm_cjw *b, const char *kind, const char *table, const char *plan_id, const char *user,
                      int64_t index, int64_t snapshot_id, int64_t schema_id)
{
    json_t *o = pm_cjw_take(b, json_object());
    pm_cjw_set(b, o, "format", pm_cjw_long(b, PM_COMPACT_FORMAT_VERSION));
    pm_cjw_set(b, o, "kind", pm_cjw_str(b, kind));
    pm_cjw_set(b, o, "table", pm_cjw_str(b, table));
    pm_cjw_set(b, o, "plan_id", pm_cjw_str(b, plan_id));
    pm_cjw_set(b, o, "commit_user", pm_cjw_str(b, user));
    if (index >= 0)
        pm_cjw_set(b, o, "task_index", pm_cjw_long(b, index));
    pm_cjw_set(b, o, "snapshot_id", pm_cjw_long(b, snapshot_id));
    pm_cjw_set(b, o, "schema_id", pm_cjw_long(b, schema_id));
    return o;
}

static void w_location(pm_cjw *b, json_t *o, const pm_bytes *partition, int32_t bucket, int32_t total_buckets)
{
    pm_cjw_set(b, o, "partition", pm_cjw_bytes(b, partition));
    pm_cjw_set(b, o, "bucket", pm_cjw_long(b, bucket));
    pm_cjw_set(b, o, "total_buckets", pm_cjw_long(b, total_buckets));
}

static json_t *w_task(pm_cjw *b, const pm_compact_task *t)
{
    json_t *o = w_head(b, "task", t->table_path, t->plan_id, t->commit_user, t->task_index, t->snapshot_id,
                       t->schema_id);
    pm_cjw_set(b, o, "mode", pm_cjw_str(b, t->mode->name));
    pm_cjw_set(b, o, "full", pm_cjw_take(b, json_boolean(t->full)));
    w_location(b, o, &t->partition, t->bucket, t->total_buckets);
    json_t *out = pm_cjw_take(b, json_object());
    pm_cjw_set(b, out, "format", pm_cjw_str(b, t->output.format));
    pm_cjw_set(b, out, "compression", pm_cjw_str(b, t->output.compression));
    pm_cjw_set(b, out, "target_file_size", pm_cjw_long(b, t->output.target_file_size));
    pm_cjw_set(b, out, "target_file_row_num", pm_cjw_long(b, t->output.target_file_row_num));
    pm_cjw_set(b, out, "level", pm_cjw_long(b, t->output.level));
    pm_cjw_set(b, out, "row_group_passthrough", pm_cjw_take(b, json_boolean(t->output.rg_passthrough)));
    pm_cjw_set(b, out, "row_group_passthrough_min_size", pm_cjw_long(b, t->output.rg_passthrough_min));
    if (t->output.dict_passthrough)
        pm_cjw_set(b, out, "dictionary_passthrough", pm_cjw_take(b, json_true()));
    if (t->output.page_passthrough) {
        pm_cjw_set(b, out, "page_passthrough", pm_cjw_take(b, json_true()));
        pm_cjw_set(b, out, "page_passthrough_reencode_permille", pm_cjw_long(b, t->output.page_reencode_permille));
    }
    if (t->output.keep_superseded)
        pm_cjw_set(b, out, "keep_superseded", pm_cjw_take(b, json_true()));
    pm_cjw_set(b, o, "output", out);
    pm_cjw_set(b, o, "files", pm_cjw_files(b, t->files, t->nfiles));
    pm_cjw_set(b, o, "deletion_vectors", pm_cjw_dvs(b, t->dvs, t->ndvs));
    pm_cjw_set(b, o, "index_files", pm_cjw_index(b, t->dv_index, t->ndv_index));
    w_parts(b, o, t->part);
    return o;
}

static json_t *w_result(pm_cjw *b, const pm_compact_result *r)
{
    json_t *o = w_head(b, "result", r->table_path, r->plan_id, r->commit_user, r->task_index, r->snapshot_id,
                       r->schema_id);
    w_location(b, o, &r->partition, r->bucket, r->total_buckets);
    pm_cjw_set(b, o, "before", pm_cjw_files(b, r->before, r->nbefore));
    pm_cjw_set(b, o, "after", pm_cjw_files(b, r->after, r->nafter));
    pm_cjw_set(b, o, "changelog", pm_cjw_files(b, r->changelog, r->nchangelog));
    pm_cjw_set(b, o, "deletion_vectors", pm_cjw_dvs(b, r->dvs, r->ndvs));
    pm_cjw_set(b, o, "index_added", pm_cjw_index(b, r->index_added, r->nindex_added));
    pm_cjw_set(b, o, "index_removed", pm_cjw_index(b, r->index_removed, r->nindex_removed));
    json_t *c = pm_cjw_take(b, json_object());
    pm_cjw_set(b, c, "rows_read", pm_cjw_long(b, r->counters.rows_read));
    pm_cjw_set(b, c, "rows_deleted", pm_cjw_long(b, r->counters.rows_deleted));
    pm_cjw_set(b, c, "rows_written", pm_cjw_long(b, r->counters.rows_written));
    pm_cjw_set(b, c, "bytes_read", pm_cjw_long(b, r->counters.bytes_read));
    pm_cjw_set(b, c, "bytes_written", pm_cjw_long(b, r->counters.bytes_written));
    pm_cjw_set(b, c, "duration_ms", pm_cjw_long(b, r->counters.duration_ms));
    pm_cjw_set(b, o, "counters", c);
    w_parts(b, o, r->part);
    return o;
}

static json_t *w_plan(pm_cjw *b, const pm_compact_plan *p)
{
    json_t *o = w_head(b, "plan", p->table_path, p->plan_id, p->commit_user, -1, p->snapshot_id, p->schema_id);
    pm_cjw_set(b, o, "full", pm_cjw_take(b, json_boolean(p->full)));
    json_t *a = pm_cjw_take(b, json_array());
    for (size_t i = 0; i < p->ntasks; i++)
        pm_cjw_push(b, a, w_task(b, p->tasks[i]));
    pm_cjw_set(b, o, "tasks", a);
    return o;
}

static pm_error *w_finish(pm_cjw *b, json_t *root, const char *what, char **out)
{
    *out = NULL;
    if (b->failed || !root) {
        json_decref(root);
        if (b->bad_string)
            return pm_error_new(PM_EINVALID, "%s: string is not valid UTF-8: \"%.80s\"", what, b->bad_string);
        return pm_error_wrap(pm_oom(), PM_ENOMEM, "%s to JSON", what);
    }
    char *s = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!s)
        return pm_error_wrap(pm_oom(), PM_ENOMEM, "%s to JSON", what);
    /* jansson allocates with malloc by default: the caller frees with free() */
    *out = s;
    return NULL;
}

pm_error *pm_compact_task_to_json(char **out, const pm_compact_task *t)
{
    pm_cjw b = {0};
    return w_finish(&b, w_task(&b, t), "task", out);
}

pm_error *pm_compact_result_to_json(char **out, const pm_compact_result *r)
{
    pm_cjw b = {0};
    return w_finish(&b, w_result(&b, r), "result", out);
}

pm_error *pm_compact_plan_to_json(char **out, const pm_compact_plan *p)
{
    pm_cjw b = {0};
    return w_finish(&b, w_plan(&b, p), "plan", out);
}

/* ================================================================== */
/* reading                                                             */
/* ================================================================== */

static const char *const KINDS[] = {[PM_COMPACT_DOC_PLAN] = "plan", [PM_COMPACT_DOC_TASK] = "task",
                                    [PM_COMPACT_DOC_RESULT] = "result"};

/* "format" is ours and "kind" one of KINDS. */
static pm_error *r_format_kind(const pm_jnode *o, pm_compact_doc_kind *kind)
{
    PM_TRY(pm_json_as_object(o, 0, NULL));
    pm_jnode f;
    int64_t version = 0;
    pm_json_get(&f, o, "format");
    PM_TRY(pm_json_as_i64(&f, INT64_MIN, INT64_MAX, &version));
    if (version != PM_COMPACT_FORMAT_VERSION) {
        f.code = PM_EUNSUPPORTED;
        return pm_json_error(&f, "version %" PRId64 " is not supported (expected %d)", version,
                             PM_COMPACT_FORMAT_VERSION);
    }
    int k = 0;
    PM_TRY(pm_json_enum(o, "kind", KINDS, sizeof KINDS / sizeof *KINDS, 0, &k));
    *kind = (pm_compact_doc_kind)k;
    return NULL;
}

static pm_error *r_header(const pm_jnode *o, pm_compact_doc_kind want)
{
    pm_compact_doc_kind got;
    PM_TRY(r_format_kind(o, &got));
    if (got == want)
        return NULL;
    pm_jnode k;
    pm_json_get(&k, o, "kind");
    return pm_json_error(&k, "expected \"%s\", got \"%s\"", KINDS[want], KINDS[got]);
}

/* The keys of a document: base keys + every registered part key. */
#define MAX_KEYS 40

static pm_error *r_doc_keys(const pm_jnode *o, const char *const *base)
{
    const char *keys[MAX_KEYS];
    size_t n = 0;
    while (base[n] && n < MAX_KEYS - 17) {
        keys[n] = base[n];
        n++;
    }
    n += pm_compact_part_keys(keys + n, 16);
    keys[n] = NULL;
    return pm_json_keys(o, keys);
}

/* The part under one of the registered part keys (at most one non-null). */
static pm_error *r_part(const pm_jnode *o, pm_compact_part **out)
{
    *out = NULL;
    const char *keys[16];
    size_t n = pm_compact_part_keys(keys, 16);
    for (size_t i = 0; i < n; i++) {
        pm_jnode c;
        pm_json_get(&c, o, keys[i]);
        if (pm_json_is_null(&c))
            continue;
        if (*out)
            return pm_json_error(&c, "a value has at most one mode part (also %s)", (*out)->mode->part_key);
        PM_TRY(pm_compact_part_owner(keys[i])->part_from_json(&c, out));
    }
    return NULL;
}

static const char *const TASK_KEYS[] = {
    "format", "kind", "table", "plan_id", "commit_user", "task_index", "snapshot_id", "schema_id", "mode", "full",
    "partition", "bucket", "total_buckets", "output", "files", "deletion_vectors", "index_files", NULL};
/* with the optional "dictionary_passthrough", "page_passthrough" and
 * "keep_superseded" (each written only when true; absent = false), the
 * second with "page_passthrough_reencode_permille" */
static const char *const OUTPUT_KEYS[] = {"format", "compression", "target_file_size", "target_file_row_num",
                                          "level", "row_group_passthrough", "row_group_passthrough_min_size",
                                          NULL, NULL, NULL, NULL, NULL};
#define OUTPUT_NKEYS 7
static const char *const FORMATS[] = {"parquet", "avro", "orc"};

static pm_error *r_output(const pm_jnode *o, pm_compact_output *out)
{
    pm_jnode p, dp, pp, ks;
    pm_json_get(&p, o, "output");
    pm_json_get(&dp, &p, "dictionary_passthrough");
    pm_json_get(&pp, &p, "page_passthrough");
    pm_json_get(&ks, &p, "keep_superseded");
    bool has_dp = !pm_json_is_null(&dp), has_pp = !pm_json_is_null(&pp), has_ks = !pm_json_is_null(&ks);
    const char *keys[OUTPUT_NKEYS + 5];
    memcpy(keys, OUTPUT_KEYS, sizeof keys);
    size_t nk = OUTPUT_NKEYS;
    if (has_dp)
        keys[nk++] = "dictionary_passthrough";
    if (has_pp) {
        keys[nk++] = "page_passthrough";
        keys[nk++] = "page_passthrough_reencode_permille";
    }
    if (has_ks)
        keys[nk++] = "keep_superseded";
    PM_TRY(pm_json_keys(&p, keys));
    if (has_ks)
        PM_TRY(pm_json_bool(&p, "keep_superseded", &out->keep_superseded));
    if (has_dp)
        PM_TRY(pm_json_bool(&p, "dictionary_passthrough", &out->dict_passthrough));
    if (has_pp) {
        PM_TRY(pm_json_bool(&p, "page_passthrough", &out->page_passthrough));
        PM_TRY(pm_json_i64(&p, "page_passthrough_reencode_permille", 0, 1000, &out->page_reencode_permille));
    }
    int fmt;
    PM_TRY(pm_json_enum(&p, "format", FORMATS, 3, 0, &fmt));
    PM_TRY(pm_strdup(&out->format, FORMATS[fmt]));
    PM_TRY(pm_json_str(&p, "compression", PM_JSON_NONEMPTY, &out->compression));
    PM_TRY(pm_json_i64(&p, "target_file_size", 1, INT64_MAX, &out->target_file_size));
    PM_TRY(pm_json_i64(&p, "target_file_row_num", 1, INT64_MAX, &out->target_file_row_num));
    PM_TRY(pm_json_i32(&p, "level", 0, INT32_MAX, &out->level));
    PM_TRY(pm_json_bool(&p, "row_group_passthrough", &out->rg_passthrough));
    return pm_json_i64(&p, "row_group_passthrough_min_size", 0, INT64_MAX, &out->rg_passthrough_min);
}

/* Every DV belongs to an input file; input names are unique. */
static pm_error *r_task_inputs(const pm_jnode *o, const pm_compact_task *t)
{
    pm_jnode a, el, c;
    pm_json_get(&a, o, "files");
    for (size_t i = 0; i < t->nfiles; i++)
        for (size_t k = i + 1; k < t->nfiles; k++)
            if (!strcmp(t->files[i].file_name, t->files[k].file_name)) {
                pm_json_at(&el, &a, k);
                pm_json_get(&c, &el, "file_name");
                return pm_json_error(&c, "duplicate input file %s", t->files[k].file_name);
            }
    pm_json_get(&a, o, "deletion_vectors");
    for (size_t i = 0; i < t->ndvs; i++) {
        bool found = false;
        for (size_t k = 0; k < t->nfiles && !found; k++)
            found = !strcmp(t->files[k].file_name, t->dvs[i].data_file);
        if (!found) {
            pm_json_at(&el, &a, i);
            pm_json_get(&c, &el, "data_file");
            return pm_json_error(&c, "%s is not an input file of the task", t->dvs[i].data_file);
        }
    }
    return NULL;
}

/* Where r_head and r_location store what tasks, results and plans share. */
typedef struct ident {
    char **table, **plan_id, **commit_user;
    int64_t *task_index;          /* NULL for a plan */
    int64_t *snapshot_id, *schema_id;
    int64_t min_snapshot;         /* 1 for tasks and results, 0 for a plan */
} ident;

static pm_error *r_head(const pm_jnode *o, const ident *id)
{
    PM_TRY(pm_json_str(o, "table", PM_JSON_NONEMPTY, id->table));
    PM_TRY(pm_json_str(o, "plan_id", PM_JSON_NONEMPTY, id->plan_id));
    PM_TRY(pm_json_str(o, "commit_user", PM_JSON_NONEMPTY, id->commit_user));
    if (id->task_index)
        PM_TRY(pm_json_i64(o, "task_index", 0, INT32_MAX, id->task_index));
    PM_TRY(pm_json_i64(o, "snapshot_id", id->min_snapshot, INT64_MAX, id->snapshot_id));
    return pm_json_i64(o, "schema_id", 0, INT64_MAX, id->schema_id);
}

static pm_error *r_location(const pm_jnode *o, pm_bytes *partition, int32_t *bucket, int32_t *total_buckets)
{
    PM_TRY(pm_cjr_bytes(o, "partition", 0, partition));
    PM_TRY(pm_json_i32(o, "bucket", 0, INT32_MAX, bucket));
    return pm_json_i32(o, "total_buckets", INT32_MIN, INT32_MAX, total_buckets);
}

/* The node's document path for messages: "task", "plan.tasks[2]". */
static const char *doc_name(const pm_jnode *o, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s%s%s", o->doc, o->path[0] ? "." : "", o->path);
    return buf;
}

static pm_error *r_task(const pm_jnode *o, pm_compact_task **out)
{
    char path[PM_JSON_PATH_MAX + 32];
    doc_name(o, path, sizeof path);
    *out = NULL;
    PM_TRY(r_header(o, PM_COMPACT_DOC_TASK));
    PM_TRY(r_doc_keys(o, TASK_KEYS));
    pm_compact_task *t;
    PM_TRY(pm_calloc(&t, 1, sizeof *t));
    pm_error *e = NULL;
    char *mode = NULL;
    pm_jnode c;
    ident id = {&t->table_path, &t->plan_id, &t->commit_user, &t->task_index, &t->snapshot_id, &t->schema_id, 1};
    PM_TRY_GOTO(e, r_head(o, &id), fail);
    PM_TRY_GOTO(e, pm_json_str(o, "mode", 0, &mode), fail);
    t->mode = pm_compact_mode_named(mode);
    if (!t->mode) {
        pm_json_get(&c, o, "mode");
        e = pm_json_error(&c, "unknown mode \"%.64s\"", mode);
        goto fail;
    }
    PM_TRY_GOTO(e, pm_json_bool(o, "full", &t->full), fail);
    PM_TRY_GOTO(e, r_location(o, &t->partition, &t->bucket, &t->total_buckets), fail);
    PM_TRY_GOTO(e, r_output(o, &t->output), fail);
    PM_TRY_GOTO(e, pm_cjr_files(o, "files", &t->files, &t->nfiles), fail);
    if (!t->nfiles) {
        pm_json_get(&c, o, "files");
        e = pm_json_error(&c, "a task needs at least one input file");
        goto fail;
    }
    PM_TRY_GOTO(e, pm_cjr_dvs(o, "deletion_vectors", &t->dvs, &t->ndvs), fail);
    PM_TRY_GOTO(e, pm_cjr_index(o, "index_files", PM_FILE_ADD, &t->dv_index, &t->ndv_index), fail);
    PM_TRY_GOTO(e, r_part(o, &t->part), fail);
    PM_TRY_GOTO(e, pm_compact_part_expected(t->mode, t->part, path), fail);
    if (t->part)
        PM_TRY_GOTO(e, t->part->mode->part_check(t, path), fail);
    PM_TRY_GOTO(e, pm_compact_task_check_files(t, path, false, NULL), fail);
    PM_TRY_GOTO(e, r_task_inputs(o, t), fail);
    free(mode);
    *out = t;
    return NULL;
fail:
    free(mode);
    pm_compact_task_free(t);
    return e;
}

static const char *const RESULT_KEYS[] = {
    "format", "kind", "table", "plan_id", "commit_user", "task_index", "snapshot_id", "schema_id", "partition",
    "bucket", "total_buckets", "before", "after", "changelog", "deletion_vectors", "index_added", "index_removed",
    "counters", NULL};
static const char *const COUNTER_KEYS[] = {"rows_read", "rows_deleted", "rows_written", "bytes_read",
                                           "bytes_written", "duration_ms", NULL};

static pm_error *r_counters(const pm_jnode *o, pm_compact_counters *c)
{
    pm_jnode p;
    pm_json_get(&p, o, "counters");
    c->version = PM_COMPACT_COUNTERS_VERSION;
    PM_TRY(pm_json_keys(&p, COUNTER_KEYS));
    PM_TRY(pm_json_i64(&p, "rows_read", 0, INT64_MAX, &c->rows_read));
    PM_TRY(pm_json_i64(&p, "rows_deleted", 0, INT64_MAX, &c->rows_deleted));
    PM_TRY(pm_json_i64(&p, "rows_written", 0, INT64_MAX, &c->rows_written));
    PM_TRY(pm_json_i64(&p, "bytes_read", 0, INT64_MAX, &c->bytes_read));
    PM_TRY(pm_json_i64(&p, "bytes_written", 0, INT64_MAX, &c->bytes_written));
    return pm_json_i64(&p, "duration_ms", 0, INT64_MAX, &c->duration_ms);
}

static pm_error *r_result(const pm_jnode *o, pm_compact_result **out)
{
    *out = NULL;
    PM_TRY(r_header(o, PM_COMPACT_DOC_RESULT));
    PM_TRY(r_doc_keys(o, RESULT_KEYS));
    pm_compact_result *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    pm_error *e = NULL;
    pm_jnode c;
    ident id = {&r->table_path, &r->plan_id, &r->commit_user, &r->task_index, &r->snapshot_id, &r->schema_id, 1};
    PM_TRY_GOTO(e, r_head(o, &id), fail);
    PM_TRY_GOTO(e, r_location(o, &r->partition, &r->bucket, &r->total_buckets), fail);
    PM_TRY_GOTO(e, pm_cjr_files(o, "before", &r->before, &r->nbefore), fail);
    if (!r->nbefore) {
        pm_json_get(&c, o, "before");
        e = pm_json_error(&c, "a result needs at least one input file");
        goto fail;
    }
    PM_TRY_GOTO(e, pm_cjr_files(o, "after", &r->after, &r->nafter), fail);
    PM_TRY_GOTO(e, pm_cjr_files(o, "changelog", &r->changelog, &r->nchangelog), fail);
    PM_TRY_GOTO(e, pm_cjr_dvs(o, "deletion_vectors", &r->dvs, &r->ndvs), fail);
    PM_TRY_GOTO(e, pm_cjr_index(o, "index_added", PM_FILE_ADD, &r->index_added, &r->nindex_added), fail);
    PM_TRY_GOTO(e, pm_cjr_index(o, "index_removed", PM_FILE_DELETE, &r->index_removed, &r->nindex_removed), fail);
    PM_TRY_GOTO(e, r_counters(o, &r->counters), fail);
    PM_TRY_GOTO(e, r_part(o, &r->part), fail);
    PM_TRY_GOTO(e, pm_compact_result_check_files(r, o->doc, false, NULL), fail);
    *out = r;
    return NULL;
fail:
    pm_compact_result_free(r);
    return e;
}

static const char *const PLAN_KEYS[] = {"format", "kind", "table", "plan_id", "commit_user", "snapshot_id",
                                        "schema_id", "full", "tasks", NULL};

/* A task of the plan: same identity, index = position. */
static pm_error *r_plan_task(const pm_jnode *el, const pm_compact_plan *p, size_t i, pm_compact_task **out)
{
    PM_TRY(r_task(el, out));
    const pm_compact_task *t = *out;
    if (strcmp(t->plan_id, p->plan_id) || t->snapshot_id != p->snapshot_id || t->schema_id != p->schema_id ||
        strcmp(t->commit_user, p->commit_user) || strcmp(t->table_path, p->table_path))
        return pm_json_error(el, "task does not belong to the plan (plan id, snapshot, schema, commit user or "
                                 "table differ)");
    if (t->task_index != (int64_t)i) {
        pm_jnode c;
        pm_json_get(&c, el, "task_index");
        return pm_json_error(&c, "expected %zu, got %" PRId64, i, t->task_index);
    }
    return NULL;
}

static pm_error *r_plan(const pm_jnode *o, pm_compact_plan **out)
{
    *out = NULL;
    PM_TRY(r_header(o, PM_COMPACT_DOC_PLAN));
    PM_TRY(pm_json_keys(o, PLAN_KEYS));
    pm_compact_plan *p;
    PM_TRY(pm_calloc(&p, 1, sizeof *p));
    pm_error *e = NULL;
    ident id = {&p->table_path, &p->plan_id, &p->commit_user, NULL, &p->snapshot_id, &p->schema_id, 0};
    PM_TRY_GOTO(e, r_head(o, &id), fail);
    PM_TRY_GOTO(e, pm_json_bool(o, "full", &p->full), fail);
    pm_jnode a;
    size_t n = 0;
    PM_TRY_GOTO(e, pm_json_array(o, "tasks", 0, &a, &n), fail);
    if (n)
        PM_TRY_GOTO(e, pm_calloc(&p->tasks, n, sizeof *p->tasks), fail);
    for (size_t i = 0; i < n; i++) {
        pm_jnode el;
        pm_json_at(&el, &a, i);
        e = r_plan_task(&el, p, i, &p->tasks[i]);
        if (p->tasks[i])
            p->ntasks = i + 1;
        if (e)
            goto fail;
    }
    *out = p;
    return NULL;
fail:
    pm_compact_plan_free(p);
    return e;
}

typedef pm_error *(*doc_reader)(const pm_jnode *root, void **out);

static pm_error *read_doc(const char *json, size_t len, const char *what, doc_reader rd, void **out)
{
    *out = NULL;
    json_t *tree = NULL;
    pm_jnode root;
    PM_TRY(pm_json_parse_doc(json, len, PM_EINVALID, what, PM_JSON_NO_DUPLICATES, &tree, &root));
    pm_error *e = rd(&root, out);
    json_decref(tree);
    return e;
}

static pm_error *rd_task(const pm_jnode *root, void **out) { return r_task(root, (pm_compact_task **)out); }
static pm_error *rd_result(const pm_jnode *root, void **out) { return r_result(root, (pm_compact_result **)out); }
static pm_error *rd_plan(const pm_jnode *root, void **out) { return r_plan(root, (pm_compact_plan **)out); }

pm_error *pm_compact_task_from_json(pm_compact_task **out, const char *json, size_t len)
{
    return read_doc(json, len, "task", rd_task, (void **)out);
}

pm_error *pm_compact_result_from_json(pm_compact_result **out, const char *json, size_t len)
{
    return read_doc(json, len, "result", rd_result, (void **)out);
}

pm_error *pm_compact_plan_from_json(pm_compact_plan **out, const char *json, size_t len)
{
    return read_doc(json, len, "plan", rd_plan, (void **)out);
}

pm_error *pm_compact_doc_kind_of(pm_compact_doc_kind *out, const char *json, size_t len)
{
    json_t *tree = NULL;
    pm_jnode root;
    PM_TRY(pm_json_parse_doc(json, len, PM_EINVALID, "document", PM_JSON_NO_DUPLICATES, &tree, &root));
    pm_error *e = r_format_kind(&root, out);
    json_decref(tree);
    return e;
}
