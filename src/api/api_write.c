/*
 * api/api_write.c — the write transaction of paimon/write.h: writer →
 * commit messages → commit → automatic compaction round.
 *
 * A pm_writer wraps the table layer's writer (table/table_write.h, which
 * delegates primary-key tables to table/pk_write.h) with the options that
 * belong to the whole transaction: commit user (drawn once, so the stall
 * compaction, the data commit and the round after it share it), commit
 * identifier and overwrite settings.
 *
 * pm_commit, in order (contract in write.h):
 *   1. with a commit user: a snapshot already committed with (user,
 *      identifier) → already_committed; the messages' files are left alone
 *      (after an uncertain outcome they are the files that landed) and the
 *      recovery round runs over that snapshot's buckets;
 *   2. APPEND only: the write stall (compact/compact_auto.h), before the
 *      data commit; a failure deletes the messages' files;
 *   3. the data commit (table/table_commit.h); a failure deletes the
 *      messages' files unless the outcome is PM_EUNCERTAIN;
 *   4. the automatic round over the (partition, bucket) pairs that got new
 *      files; its failure goes to outcome.compaction_error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "meta/index_path.h"
#include "base/mem.h"
#include "base/util.h"
#include "compact/compact_auto.h"
#include "io/fileio.h"
#include "compact/compact_internal.h"
#include "paimon/write.h"
#include "table/commit_message.h"
#include "table/partition.h"
#include "table/pk_write.h"
#include "table/table_commit.h"
#include "table/table_internal.h"
#include "table/de_read.h"
#include "table/de_write.h"
#include "table/table_write.h"
#include "table/write_input.h"

struct pm_writer {
    pm_table *t;                       /* borrowed */
    pm_table_writer *w;
    pm_type *input_type;               /* table fields (+ _ROW_KIND for primary keys) */
    pm_write_options o;                /* strings below are owned copies */
    char *commit_user;
    pm_partition_spec *specs;
    size_t nspecs;
    char **spec_texts;
    int64_t rows;
    pm_compact_triggers *triggers;     /* borrowed: lookup-compact=gentle round counters */
};

void pm_writer_set_compact_triggers(pm_writer *w, pm_compact_triggers *t) { w->triggers = t; }

void pm_write_options_init(pm_write_options *o)
{
    static const pm_write_options init = PM_WRITE_OPTIONS_INIT;
    *o = init;
}

void pm_commit_outcome_init(pm_commit_outcome *o)
{
    static const pm_commit_outcome init = PM_COMMIT_OUTCOME_INIT;
    *o = init;
}

/* ---- options ---- */

static pm_error *check_options(const pm_write_options *o)
{
    if (o->version != PM_WRITE_OPTIONS_VERSION)
        return pm_error_new(PM_EINVALID, "write options version %d (this library knows %d)", o->version,
                            PM_WRITE_OPTIONS_VERSION);
    if (o->noverwrite_partitions && !o->overwrite)
        return pm_error_new(PM_EINVALID, "overwrite partitions are given but overwrite is false");
    if (o->noverwrite_partitions && !o->overwrite_partitions)
        return pm_error_new(PM_EINVALID, "noverwrite_partitions is %zu but overwrite_partitions is NULL",
                            o->noverwrite_partitions);
    if (o->commit_user && !*o->commit_user)
        return pm_error_new(PM_EINVALID, "the commit user is empty");
    if (o->threads > 64)
        return pm_error_new(PM_EINVALID, "threads %zu is above 64", o->threads);
    return NULL;
}

static void free_specs(pm_partition_spec *specs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pm_partition_spec_clear(&specs[i]);
    free(specs);
}

static pm_error *parse_specs(const pm_write_options *o, pm_partition_spec **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!o->noverwrite_partitions)
        return NULL;
    pm_partition_spec *specs;
    PM_TRY(pm_calloc(&specs, o->noverwrite_partitions, sizeof *specs));
    for (size_t i = 0; i < o->noverwrite_partitions; i++) {
        pm_error *e = pm_partition_spec_parse(o->overwrite_partitions[i], &specs[i]);
        if (e) {
            free_specs(specs, i);
            return pm_error_wrap(e, PM_EINVALID, "overwrite partition '%s'", o->overwrite_partitions[i]);
        }
    }
    *out = specs;
    *n = o->noverwrite_partitions;
    return NULL;
}

/* The rows a writer takes: the table's fields, and for primary-key tables
 * `_ROW_KIND` (unless a field of that name exists). */
static pm_error *input_type(pm_table *t, pm_type **out)
{
    const pm_type *rt = pm_table_schema(t)->row_type;
    *out = pm_type_clone(rt);
    if (!*out)
        return pm_oom();
    if (!pm_table_has_primary_key(t) || pm_type_field_index(rt, PM_ROW_KIND_COLUMN) >= 0)
        return NULL;
    pm_type *k = pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true);
    pm_error *e = k ? pm_type_add_field(*out, -1, PM_ROW_KIND_COLUMN, k) : pm_oom();
    if (e) {
        pm_type_free(k);
        pm_type_free(*out);
        *out = NULL;
    }
    return e;
}

/* ---- writer ---- */

pm_error *pm_writer_new(pm_writer **out, pm_table *t, const pm_write_options *o)
{
    *out = NULL;
    pm_write_options defaults = PM_WRITE_OPTIONS_INIT;
    if (!o)
        o = &defaults;
    PM_TRY(check_options(o));
    pm_writer *w;
    PM_TRY(pm_calloc(&w, 1, sizeof *w));
    w->t = t;
    w->o = *o;
    pm_error *e = NULL;
    if (o->commit_user) {
        e = pm_strdup(&w->commit_user, o->commit_user);
    } else {
        char uuid[37];
        e = pm_uuid(uuid);
        if (!e)
            e = pm_strdup(&w->commit_user, uuid);
    }
    w->o.commit_user = w->commit_user;
    w->o.overwrite_partitions = NULL;
    if (!e)
        e = parse_specs(o, &w->specs, &w->nspecs);
    if (!e)
        e = input_type(t, &w->input_type);
    if (!e) {
        pm_table_write_options wo = {0, o->overwrite, o->threads, w->commit_user};
        e = pm_table_writer_new(&w->w, t, &wo);
    }
    if (e) {
        pm_writer_free(w);
        return e;
    }
    *out = w;
    return NULL;
}

const pm_type *pm_writer_input_type(const pm_writer *w) { return w->input_type; }
const char *pm_writer_commit_user(const pm_writer *w) { return w->commit_user; }
int64_t pm_writer_row_count(const pm_writer *w) { return w->rows; }

pm_error *pm_writer_write(pm_writer *w, const pm_batch *b)
{
    PM_TRY(pm_table_writer_write(w->w, b));
    w->rows += pm_batch_num_rows(b);
    return NULL;
}

pm_error *pm_writer_write_arrow(pm_writer *w, const struct ArrowSchema *schema, const struct ArrowArray *array)
{
    pm_batch *b = NULL;
    PM_TRY(pm_error_wrap(pm_batch_import(&b, w->input_type, schema, array), 0, "Arrow input"));
    pm_error *e = pm_writer_write(w, b);
    pm_batch_free(b);
    return e;
}

pm_error *pm_writer_write_arrow_move(pm_writer *w, const struct ArrowSchema *schema, struct ArrowArray *array)
{
    pm_batch *b = NULL;
    PM_TRY(pm_error_wrap(pm_batch_import_move(&b, w->input_type, schema, array), 0, "Arrow input"));
    pm_error *e = pm_writer_write(w, b);
    pm_batch_free(b);
    return e;
}

pm_error *pm_writer_write_arrow_stream(pm_writer *w, struct ArrowArrayStream *stream)
{
    if (!stream || !stream->release)
        return pm_error_new(PM_EINVALID, "the Arrow stream is released or missing");
    struct ArrowSchema schema;
    memset(&schema, 0, sizeof schema);
    pm_error *e = NULL;
    int rc = stream->get_schema(stream, &schema);
    if (rc) {
        const char *msg = stream->get_last_error ? stream->get_last_error(stream) : NULL;
        e = pm_error_new(PM_EINVALID, "Arrow stream: get_schema failed (%d): %s", rc, msg ? msg : "no message");
    }
    while (!e) {
        struct ArrowArray array;
        memset(&array, 0, sizeof array);
        rc = stream->get_next(stream, &array);
        if (rc) {
            const char *msg = stream->get_last_error ? stream->get_last_error(stream) : NULL;
            e = pm_error_new(PM_EINVALID, "Arrow stream: get_next failed (%d): %s", rc, msg ? msg : "no message");
            break;
        }
        if (!array.release)
            break; /* end of stream */
        e = pm_writer_write_arrow_move(w, &schema, &array); /* takes the array */
    }
    if (schema.release)
        schema.release(&schema);
    stream->release(stream);
    return e;
}

pm_error *pm_writer_write_rows(pm_writer *w, pm_rows_format fmt, pm_read_fn src, void *ctx)
{
    if (fmt != PM_ROWS_JSONL && fmt != PM_ROWS_CSV)
        return pm_error_new(PM_EINVALID, "unknown rows format %d", (int)fmt);
    pm_text_rows *r = NULL;
    PM_TRY(pm_text_rows_new(&r, fmt == PM_ROWS_CSV ? PM_TEXT_CSV : PM_TEXT_JSONL, w->input_type, src, ctx, 0));
    pm_error *e = NULL;
    for (;;) {
        pm_batch *b = NULL;
        PM_TRY_GOTO(e, pm_text_rows_next(r, &b), done);
        if (!b)
            break;
        PM_TRY_GOTO(e, pm_writer_write(w, b), done);
    }
done:
    pm_text_rows_free(r);
    return e;
}

pm_error *pm_writer_prepare_commit(pm_commit_messages **out, pm_writer *w)
{
    *out = NULL;
    pm_commit_messages *m;
    PM_TRY(pm_calloc(&m, 1, sizeof *m));
    pm_error *e = pm_strdup(&m->table_path, w->t->path);
    if (!e)
        e = pm_table_writer_prepare_commit(w->w, &m->msgs, &m->n);
    if (e) {
        free(m->table_path);
        free(m);
        return e;
    }
    w->rows = 0;
    *out = m;
    return NULL;
}

static pm_error *commit_messages(pm_commit_outcome *out, pm_table *t, const pm_commit_messages *msgs,
                                 const pm_write_options *o, const pm_partition_spec *specs, size_t nspecs,
                                 pm_compact_triggers *triggers);

pm_error *pm_writer_commit(pm_commit_outcome *out, pm_writer *w)
{
    return pm_writer_commit_as(out, w, w->o.commit_identifier);
}

pm_error *pm_writer_commit_as(pm_commit_outcome *out, pm_writer *w, int64_t commit_identifier)
{
    pm_commit_messages *m = NULL;
    PM_TRY(pm_writer_prepare_commit(&m, w));
    pm_write_options o = w->o;
    o.commit_identifier = commit_identifier;
    pm_error *e = commit_messages(out, w->t, m, &o, w->specs, w->nspecs, w->triggers);
    pm_commit_messages_free(m);
    return e;
}

void pm_writer_abort(pm_writer *w)
{
    if (!w)
        return;
    pm_table_writer_abort(w->w);
    w->w = NULL;
    pm_writer_free(w);
}

void pm_writer_free(pm_writer *w)
{
    if (!w)
        return;
    pm_table_writer_free(w->w);
    pm_type_free(w->input_type);
    free_specs(w->specs, w->nspecs);
    free(w->commit_user);
    free(w);
}

/* ---- commit messages ---- */

size_t pm_commit_messages_count(const pm_commit_messages *m) { return m ? m->n : 0; }

int64_t pm_commit_messages_file_count(const pm_commit_messages *m)
{
    int64_t n = 0;
    for (size_t i = 0; m && i < m->n; i++)
        n += (int64_t)m->msgs[i].n_new_files;
    return n;
}

int64_t pm_commit_messages_row_count(const pm_commit_messages *m)
{
    int64_t n = 0;
    for (size_t i = 0; m && i < m->n; i++)
        for (size_t k = 0; k < m->msgs[i].n_new_files; k++) /* blob files hold rows of a normal file */
            if (!pm_de_is_blob_file(m->msgs[i].new_files[k].file_name))
                n += m->msgs[i].new_files[k].row_count;
    return n;
}

pm_error *pm_commit_messages_merge(pm_commit_messages *dst, pm_commit_messages *src)
{
    if (!src)
        return NULL;
    if (dst->table_path && src->table_path && strcmp(dst->table_path, src->table_path)) {
        pm_error *e = pm_error_new(PM_EINVALID, "commit messages of table %s cannot join those of %s",
                                   src->table_path, dst->table_path);
        pm_commit_messages_free(src);
        return e;
    }
    pm_error *e = pm_realloc_array(&dst->msgs, dst->n + src->n ? dst->n + src->n : 1, sizeof *dst->msgs);
    if (e) {
        pm_commit_messages_free(src);
        return e;
    }
    memcpy(dst->msgs + dst->n, src->msgs, src->n * sizeof *src->msgs);
    dst->n += src->n;
    free(src->msgs);
    free(src->table_path);
    free(src);
    return NULL;
}

void pm_commit_messages_free(pm_commit_messages *m)
{
    if (!m)
        return;
    pm_commit_message_array_free(m->msgs, m->n);
    free(m->table_path);
    free(m);
}

/* Delete the data, changelog and new index files the messages name (best
 * effort). */
static void delete_message_files(pm_table *t, const pm_commit_messages *m)
{
    for (size_t i = 0; m && i < m->n; i++) {
        const pm_commit_message *c = &m->msgs[i];
        char *dir = NULL;
        pm_error *e = pm_table_bucket_dir(t, c->partition.data, c->partition.len, c->bucket, &dir);
        if (e) {
            pm_error_free(e);
            continue;
        }
        for (size_t k = 0; k < c->n_new_files + c->n_changelog; k++) {
            const pm_data_file_meta *f = k < c->n_new_files ? &c->new_files[k] : &c->changelog[k - c->n_new_files];
            char *p = pm_path_join(dir, f->file_name);
            if (p)
                pm_error_free(pm_fileio_delete(t->fio, p));
            free(p);
        }
        for (size_t k = 0; k < c->n_index_added; k++) {
            char *p = NULL;
            if (!pm_index_file_path(t->paths, dir, &c->index_added[k].index_file, &p))
                pm_error_free(pm_fileio_delete(t->fio, p));
            free(p);
        }
        free(dir);
    }
}

/* A write's index changes: HASH files only (dynamic-bucket writes), the
 * new ones plain names without external paths. */
static pm_error *check_index_changes(const char *field, const pm_commit_message *c)
{
    PM_TRY(pm_compact_check_index_files(field, "index_added", c->index_added, c->n_index_added, false, NULL));
    PM_TRY(pm_compact_check_index_files(field, "index_removed", c->index_removed, c->n_index_removed, false, NULL));
    for (size_t k = 0; k < c->n_index_added + c->n_index_removed; k++) {
        const pm_index_manifest_entry *e =
            k < c->n_index_added ? &c->index_added[k] : &c->index_removed[k - c->n_index_added];
        if (!e->index_file.index_type || strcmp(e->index_file.index_type, "HASH"))
            return pm_error_new(PM_EINVALID, "%s: a write's commit message holds a %s index change (writes change "
                                "HASH indexes only)", field, e->index_file.index_type ? e->index_file.index_type : "?");
        if (e->bucket != c->bucket || e->partition.len != c->partition.len ||
            (c->partition.len && memcmp(e->partition.data, c->partition.data, c->partition.len)))
            return pm_error_new(PM_EINVALID, "%s: index file %s is not of the message's partition and bucket", field,
                                e->index_file.file_name);
        if (k < c->n_index_added && e->index_file.external_path)
            return pm_error_new(PM_EINVALID, "%s: new index file %s has an external path; writes never produce one",
                                field, e->index_file.file_name);
    }
    if (c->n_index_added > 1 || c->n_index_removed > c->n_index_added)
        return pm_error_new(PM_EINVALID, "%s: a write replaces at most one HASH index file per bucket", field);
    return NULL;
}

pm_error *pm_commit_messages_check_names(const pm_commit_messages *m)
{
    char field[48];
    for (size_t i = 0; m && i < m->n; i++) {
        const pm_commit_message *c = &m->msgs[i];
        snprintf(field, sizeof field, "messages[%zu]", i);
        PM_TRY(pm_compact_check_data_files(field, "new_files", c->new_files, c->n_new_files, false, NULL));
        PM_TRY(pm_compact_check_data_files(field, "changelog", c->changelog, c->n_changelog, false, NULL));
        for (size_t k = 0; k < c->n_new_files + c->n_changelog; k++) {
            const pm_data_file_meta *f = k < c->n_new_files ? &c->new_files[k] : &c->changelog[k - c->n_new_files];
            if (f->external_path)
                return pm_error_new(PM_EINVALID, "%s: file %s has an external path; writes never produce one",
                                    field, f->file_name);
        }
        if (c->n_compact_before || c->n_compact_after)
            return pm_error_new(PM_EINVALID, "%s: a write's commit message holds compaction changes", field);
        PM_TRY(check_index_changes(field, c));
    }
    return NULL;
}

/* The messages belong to t and every file they add exists with its size
 * (messages may come from another process). */
static pm_error *check_for_table(pm_table *t, const pm_commit_messages *m)
{
    if (!m)
        return NULL;
    if (m->table_path && strcmp(m->table_path, t->path))
        return pm_error_new(PM_EINVALID, "the commit messages were written into table %s, not %s", m->table_path,
                            t->path);
    PM_TRY(pm_commit_messages_check_names(m));
    for (size_t i = 0; i < m->n; i++) {
        const pm_commit_message *c = &m->msgs[i];
        char *dir = NULL;
        PM_TRY(pm_table_bucket_dir(t, c->partition.data, c->partition.len, c->bucket, &dir));
        pm_error *e = NULL;
        for (size_t k = 0; !e && k < c->n_new_files + c->n_changelog; k++) {
            const pm_data_file_meta *f = k < c->n_new_files ? &c->new_files[k] : &c->changelog[k - c->n_new_files];
            char *p = pm_path_join(dir, f->file_name);
            uint64_t size = 0;
            e = p ? pm_fileio_file_size(t->fio, p, &size) : pm_oom();
            if (!e && size != (uint64_t)f->file_size)
                e = pm_error_new(PM_EINVALID, "%s has %llu bytes, its commit message says %lld", p,
                                 (unsigned long long)size, (long long)f->file_size);
            free(p);
        }
        if (!e && (c->n_index_added || c->n_index_removed) &&
            (pm_table_num_buckets(t) != -1 || !pm_table_has_primary_key(t)))
            e = pm_error_new(PM_EINVALID, "HASH index changes belong to dynamic-bucket primary-key tables, table %s "
                             "is not one", t->path);
        for (size_t k = 0; !e && k < c->n_index_added; k++) {
            const pm_index_file_meta *f = &c->index_added[k].index_file;
            char *p = NULL;
            uint64_t size = 0;
            e = pm_index_file_path(t->paths, dir, f, &p);
            if (!e)
                e = pm_fileio_file_size(t->fio, p, &size);
            if (!e && size != (uint64_t)f->file_size)
                e = pm_error_new(PM_EINVALID, "%s has %llu bytes, its commit message says %lld", p,
                                 (unsigned long long)size, (long long)f->file_size);
            free(p);
        }
        free(dir);
        if (e)
            return pm_error_wrap(e, PM_EINVALID, "messages[%zu]: a file to commit", i);
    }
    return NULL;
}

pm_error *pm_commit_messages_abort(pm_table *t, const pm_commit_messages *m)
{
    if (m && m->table_path && strcmp(m->table_path, t->path))
        return pm_error_new(PM_EINVALID, "the commit messages were written into table %s, not %s", m->table_path,
                            t->path);
    PM_TRY(pm_commit_messages_check_names(m));
    delete_message_files(t, m);
    return NULL;
}

/* ---- commit ---- */

/* The (partition, bucket) pairs that got new files, borrowed from msgs;
 * with counts of new files for the write stall. */
typedef struct touched {
    pm_bytes *parts;
    int32_t *buckets;
    size_t *nfiles;
    size_t n;
} touched;

static void touched_free(touched *tc)
{
    free(tc->parts);
    free(tc->buckets);
    free(tc->nfiles);
}

static pm_error *touched_of(const pm_commit_messages *m, touched *tc)
{
    memset(tc, 0, sizeof *tc);
    size_t cap = m && m->n ? m->n : 1;
    pm_error *e = pm_calloc(&tc->parts, cap, sizeof *tc->parts);
    if (!e)
        e = pm_calloc(&tc->buckets, cap, sizeof *tc->buckets);
    if (!e)
        e = pm_calloc(&tc->nfiles, cap, sizeof *tc->nfiles);
    if (e) {
        touched_free(tc);
        return e;
    }
    for (size_t i = 0; m && i < m->n; i++) {
        if (!m->msgs[i].n_new_files)
            continue;
        tc->parts[tc->n] = m->msgs[i].partition;
        tc->buckets[tc->n] = m->msgs[i].bucket;
        tc->nfiles[tc->n++] = m->msgs[i].n_new_files;
    }
    return NULL;
}

/* The automatic round after data snapshot `snapshot` (tc NULL: recovery,
 * the pairs come from the snapshot); its failure is the outcome's. */
static void after_write(pm_commit_outcome *out, pm_table *t, int64_t snapshot, const char *user, const touched *tc,
                        pm_compact_triggers *triggers)
{
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    pm_error *e = pm_compact_after_write(&m, t, snapshot, user, tc && tc->n ? tc->parts : NULL,
                                         tc && tc->n ? tc->buckets : NULL, tc ? tc->n : 0, triggers);
    out->compaction = m;
    out->compaction_error = e;
}

static pm_error *commit_messages(pm_commit_outcome *out, pm_table *t, const pm_commit_messages *msgs,
                                 const pm_write_options *o, const pm_partition_spec *specs, size_t nspecs,
                                 pm_compact_triggers *triggers)
{
    if (!out || out->version != PM_COMMIT_OUTCOME_VERSION)
        return pm_error_new(PM_EINVALID, "commit outcome version %d (this library knows %d): initialize it "
                            "with PM_COMMIT_OUTCOME_INIT", out ? out->version : 0, PM_COMMIT_OUTCOME_VERSION);
    pm_commit_outcome_init(out);
    PM_TRY(check_for_table(t, msgs));
    const char *user = o->commit_user;
    /* 1. already committed by an earlier run */
    if (user) {
        int64_t found = 0;
        PM_TRY(pm_table_commit_find(t, user, o->commit_identifier, 0, &found));
        if (found) {
            /* The messages' files are left alone: after PM_EUNCERTAIN they
             * are the very files that landed. */
            out->snapshot_id = found;
            out->already_committed = true;
            after_write(out, t, found, user, NULL, triggers);
            return NULL;
        }
    }
    touched tc;
    PM_TRY(touched_of(msgs, &tc));
    pm_error *e = NULL;
    /* 2. write stall (primary keys), before the data commit */
    if (!o->overwrite && tc.n) {
        pm_compact_metrics sm = PM_COMPACT_METRICS_INIT;
        e = pm_compact_write_stall(&sm, t, user, tc.parts, tc.buckets, tc.nfiles, tc.n);
        out->stall = sm;
        if (e) {
            delete_message_files(t, msgs);
            goto done;
        }
    }
    /* 3. the data commit */
    pm_commit_options co;
    memset(&co, 0, sizeof co);
    co.commit_user = user;
    co.commit_identifier = o->commit_identifier;
    co.kind = o->overwrite ? PM_COMMIT_OVERWRITE : PM_COMMIT_APPEND;
    co.overwrite = nspecs ? specs : NULL;
    co.noverwrite = nspecs;
    int64_t snapshot = 0;
    e = pm_table_commit(t, &co, msgs ? msgs->msgs : NULL, msgs ? msgs->n : 0, &snapshot);
    if (e) {
        if (pm_error_code(e) != PM_EUNCERTAIN)
            delete_message_files(t, msgs);
        goto done;
    }
    out->snapshot_id = snapshot;
    out->files = pm_commit_messages_file_count(msgs);
    out->rows = pm_commit_messages_row_count(msgs);
    /* 4. the automatic round (a separate snapshot; the data commit stays either way) */
    if (snapshot)
        after_write(out, t, snapshot, user, &tc, triggers);
done:
    touched_free(&tc);
    return e;
}

pm_error *pm_commit(pm_commit_outcome *out, pm_table *t, const pm_commit_messages *msgs, const pm_write_options *o)
{
    pm_write_options defaults = PM_WRITE_OPTIONS_INIT;
    if (!o)
        o = &defaults;
    PM_TRY(check_options(o));
    pm_write_options own = *o;
    char uuid[37];
    if (!own.commit_user) { /* one user for the stall, the commit and the round */
        PM_TRY(pm_uuid(uuid));
        own.commit_user = uuid;
    }
    pm_partition_spec *specs = NULL;
    size_t nspecs = 0;
    PM_TRY(parse_specs(o, &specs, &nspecs));
    pm_error *e = commit_messages(out, t, msgs, &own, specs, nspecs, NULL);
    free_specs(specs, nspecs);
    return e;
}

/* ---- changes by row ID (table/de_write.h) ---- */

static pm_error *row_id_change_prepare(pm_commit_outcome *out, const pm_write_options *o, const char **user,
                                       int64_t *ident)
{
    if (!out || out->version != PM_COMMIT_OUTCOME_VERSION)
        return pm_error_new(PM_EINVALID, "pm_commit_outcome must be initialized with PM_COMMIT_OUTCOME_INIT");
    if (o) /* NULL = defaults */
        PM_TRY(check_options(o));
    pm_commit_outcome_init(out);
    *user = o ? o->commit_user : NULL;
    *ident = o ? o->commit_identifier : PM_BATCH_COMMIT_IDENTIFIER;
    if (o && (o->overwrite || o->noverwrite_partitions))
        return pm_error_new(PM_EINVALID, "changes by row ID cannot overwrite partitions");
    return NULL;
}

static void row_id_change_put(pm_commit_outcome *out, const pm_de_change_result *r)
{
    out->snapshot_id = r->snapshot_id;
    out->already_committed = r->already_committed;
    out->rows = r->rows;
    out->files = r->files;
}

pm_error *pm_table_update_by_row_id(pm_commit_outcome *out, pm_table *t, const pm_batch *rows,
                                    const pm_write_options *o)
{
    const char *user = NULL;
    int64_t ident = 0;
    PM_TRY(row_id_change_prepare(out, o, &user, &ident));
    if (!rows)
        return pm_error_new(PM_EINVALID, "update by row ID: no rows");
    pm_de_change_result r;
    PM_TRY(pm_de_update(t, rows, user, ident, &r));
    row_id_change_put(out, &r);
    /* the update's files are new column versions: the automatic round over
     * the buckets of the snapshot (also after an earlier run committed it) */
    if (r.snapshot_id) {
        char uuid[37];
        if (!user) {
            PM_TRY(pm_uuid(uuid));
            user = uuid;
        }
        after_write(out, t, r.snapshot_id, user, NULL, NULL);
    }
    return NULL;
}

pm_error *pm_table_delete_by_row_id(pm_commit_outcome *out, pm_table *t, const int64_t *row_ids, size_t n,
                                    const pm_write_options *o)
{
    const char *user = NULL;
    int64_t ident = 0;
    PM_TRY(row_id_change_prepare(out, o, &user, &ident));
    if (n && !row_ids)
        return pm_error_new(PM_EINVALID, "delete by row ID: no row IDs");
    pm_de_change_result r;
    PM_TRY(pm_de_delete(t, row_ids, n, user, ident, &r));
    row_id_change_put(out, &r);
    return NULL;
}

pm_error *pm_table_delete_where(pm_commit_outcome *out, pm_table *t, const char *filter, const pm_write_options *o)
{
    const char *user = NULL;
    int64_t ident = 0;
    PM_TRY(row_id_change_prepare(out, o, &user, &ident));
    if (!filter)
        return pm_error_new(PM_EINVALID, "delete where: no filter");
    pm_de_change_result r;
    PM_TRY(pm_de_delete_where(t, filter, user, ident, &r));
    row_id_change_put(out, &r);
    return NULL;
}
