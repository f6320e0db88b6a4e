/*
 * table/de_write.c — updates and deletes by row ID (de_write.h).
 *
 * Both start from a scan of the latest snapshot S: every bucket's files
 * become row-ID groups (table/de_read.h), collected into one array sorted
 * by first row ID, so each row ID finds its group by binary search.
 * Update: per touched group the current values of the updated columns
 * are read (group reader), overlaid row by row with the new ones (a
 * gather from two sources) and written as one file (rolling writer that
 * never rolls) in the group's bucket directory.  Delete: per bucket a DV
 * maintainer over S's DV index files takes the new positions and writes
 * the bucket's one new file.  The commit (APPEND) validates against the
 * latest snapshot on every attempt that each touched group's anchor is
 * still a live file with the same range and that each replaced DV index
 * file is still live.
 */
#include "table/de_write.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "dv/dv_maintainer.h"
#include "meta/index_path.h"
#include "meta/manifest.h"
#include "table/commit_message.h"
#include "table/de_read.h"
#include "table/global_index_update.h"
#include "table/partition.h"
#include "table/predicate.h"
#include "table/rolling_file_writer.h"
#include "table/scan.h"
#include "table/table_commit.h"
#include "table/table_read.h"
#include "types/column.h"

#define DV_INDEX_TYPE "DELETION_VECTORS"

typedef struct slot {
    size_t bucket;               /* index in the scan's buckets */
    const pm_de_group *g;
} slot;

typedef struct state {
    pm_table *t;
    pm_scan_result *scan;
    pm_de_group **groups;        /* per bucket */
    size_t *ngroups;
    slot *slots;
    size_t nslots;
} state;

static void state_free(state *s)
{
    for (size_t i = 0; s->scan && i < s->scan->nbuckets; i++)
        if (s->groups)
            pm_de_groups_free(s->groups[i], s->ngroups[i]);
    free(s->groups);
    free(s->ngroups);
    free(s->slots);
    pm_scan_result_free(s->scan);
}

static int cmp_slot(const void *x, const void *y)
{
    const slot *a = x, *b = y;
    return a->g->first_row_id < b->g->first_row_id ? -1 : a->g->first_row_id > b->g->first_row_id;
}

static pm_error *state_load(state *s, pm_table *t)
{
    memset(s, 0, sizeof *s);
    s->t = t;
    bool de = false;
    PM_TRY(pm_options_bool(pm_table_options(t), PM_OPT_DATA_EVOLUTION_ENABLED, &de));
    if (!de)
        return pm_error_new(PM_EINVALID, "changes by row ID need a data-evolution table (data-evolution.enabled=true)");
    pm_scan_options so = pm_scan_options_default();
    PM_TRY(pm_table_scan(t, &so, &s->scan));
    size_t nb = s->scan->nbuckets;
    PM_TRY(pm_calloc(&s->groups, nb ? nb : 1, sizeof *s->groups));
    PM_TRY(pm_calloc(&s->ngroups, nb ? nb : 1, sizeof *s->ngroups));
    size_t total = 0;
    for (size_t i = 0; i < nb; i++) {
        const pm_bucket_files *b = &s->scan->buckets[i];
        PM_TRY(pm_de_plan_groups(b->files, b->nfiles, &s->groups[i], &s->ngroups[i]));
        total += s->ngroups[i];
    }
    PM_TRY(pm_calloc(&s->slots, total ? total : 1, sizeof *s->slots));
    for (size_t i = 0; i < nb; i++)
        for (size_t k = 0; k < s->ngroups[i]; k++)
            s->slots[s->nslots++] = (slot){i, &s->groups[i][k]};
    qsort(s->slots, s->nslots, sizeof *s->slots, cmp_slot);
    return NULL;
}

static const slot *find_slot(const state *s, int64_t row)
{
    size_t lo = 0, hi = s->nslots;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->slots[mid].g->first_row_id <= row)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo)
        return NULL;
    const slot *c = &s->slots[lo - 1];
    return row < c->g->first_row_id + c->g->row_count ? c : NULL;
}

/* ------------------------------------------------------------------ */
/* commit validation                                                   */

typedef struct anchor_ref {
    const pm_bytes *partition;
    int32_t bucket;
    const char *file;            /* the group's anchor at prepare time */
    int64_t first, rows;
} anchor_ref;

typedef struct check_ctx {
    anchor_ref *a;
    size_t n;
    const pm_commit_message *msgs;
    size_t nmsgs;
} check_ctx;

static pm_error *stale(const char *what, const char *name)
{
    return pm_error_new(PM_ECONFLICT, "%s %s changed since the change was prepared (a compaction or another change "
                        "committed first): prepare again from the latest snapshot", what, name);
}

static pm_error *check_prepared(void *arg, const pm_snapshot *latest, const pm_scan_result *live)
{
    (void)latest;
    check_ctx *c = arg;
    for (size_t i = 0; i < c->n; i++) {
        const anchor_ref *a = &c->a[i];
        const pm_bucket_files *bf = NULL;
        for (size_t k = 0; k < live->nbuckets && !bf; k++)
            if (live->buckets[k].bucket == a->bucket && live->buckets[k].partition.len == a->partition->len &&
                (!a->partition->len || !memcmp(live->buckets[k].partition.data, a->partition->data, a->partition->len)))
                bf = &live->buckets[k];
        bool ok = false;
        for (size_t k = 0; bf && k < bf->nfiles && !ok; k++) {
            const pm_data_file_meta *f = &bf->files[k];
            ok = !strcmp(f->file_name, a->file) && f->first_row_id.has && f->first_row_id.v == a->first &&
                 f->row_count == a->rows;
        }
        if (!ok)
            return stale("data file", a->file);
        for (size_t m = 0; m < c->nmsgs; m++) {
            const pm_commit_message *msg = &c->msgs[m];
            if (msg->bucket != a->bucket)
                continue;
            for (size_t k = 0; k < msg->n_index_removed; k++) {
                bool live_idx = false;
                for (size_t j = 0; j < bf->nindex_entries && !live_idx; j++)
                    live_idx = !strcmp(bf->index_entries[j].index_file.file_name,
                                       msg->index_removed[k].index_file.file_name);
                if (!live_idx)
                    return stale("deletion-vector index file", msg->index_removed[k].index_file.file_name);
            }
        }
    }
    return NULL;
}

static pm_error *add_anchor(anchor_ref **v, size_t *n, const pm_bucket_files *b, const pm_de_group *g)
{
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i].file == g->anchor->file_name)
            return NULL;
    PM_TRY(pm_realloc_array(v, *n + 1, sizeof **v));
    (*v)[(*n)++] = (anchor_ref){&b->partition, b->bucket, g->anchor->file_name, g->first_row_id, g->row_count};
    return NULL;
}

static void delete_new_files(pm_table *t, const pm_commit_message *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *dir = NULL;
        if (pm_table_bucket_dir(t, m[i].partition.data, m[i].partition.len, m[i].bucket, &dir))
            continue;
        for (size_t k = 0; k < m[i].n_new_files; k++) {
            char *p = pm_path_join(dir, m[i].new_files[k].file_name);
            if (p)
                pm_error_free(pm_fileio_delete(t->fio, p));
            free(p);
        }
        for (size_t k = 0; k < m[i].n_index_added; k++) {
            char *p = NULL;
            if (!pm_index_file_path(t->paths, dir, &m[i].index_added[k].index_file, &p))
                pm_error_free(pm_fileio_delete(t->fio, p));
            free(p);
        }
        free(dir);
    }
}

static pm_error *commit(pm_table *t, pm_commit_message *msgs, size_t n, check_ctx *cc, const char *user,
                        int64_t identifier, pm_de_change_result *out)
{
    pm_commit_options co;
    memset(&co, 0, sizeof co);
    co.commit_user = user;
    co.commit_identifier = identifier;
    co.kind = PM_COMMIT_APPEND;
    co.validate = check_prepared;
    co.validate_arg = cc;
    if (user) {
        int64_t found = 0;
        PM_TRY(pm_table_commit_find(t, user, identifier, 0, &found));
        if (found) {
            delete_new_files(t, msgs, n);
            out->snapshot_id = found;
            out->already_committed = true;
            return NULL;
        }
    }
    pm_error *e = pm_table_commit(t, &co, msgs, n, &out->snapshot_id);
    if (e && pm_error_code(e) != PM_EUNCERTAIN)
        delete_new_files(t, msgs, n);
    return e;
}

/* ------------------------------------------------------------------ */
/* update                                                              */

typedef struct upd_row {
    int64_t row_id;
    int64_t input;               /* row of the input batch */
} upd_row;

static int cmp_upd(const void *x, const void *y)
{
    const upd_row *a = x, *b = y;
    return a->row_id < b->row_id ? -1 : a->row_id > b->row_id;
}

/* The updated columns: input column index → table field (current schema). */
static pm_error *update_columns(pm_table *t, const pm_batch *rows, ptrdiff_t *rid_col, pm_type **utype,
                                size_t **incol)
{
    const pm_schema *s = pm_table_schema(t);
    *rid_col = -1;
    pm_type *ut = pm_type_new_row(false);
    if (!ut)
        return pm_oom();
    pm_error *e = NULL;
    size_t *ic = NULL;
    PM_TRY_GOTO(e, pm_calloc(&ic, rows->ncolumns ? rows->ncolumns : 1, sizeof *ic), fail);
    for (size_t i = 0; i < rows->ncolumns; i++) {
        const pm_field *in = &rows->type->fields[i];
        if (!strcmp(in->name, PM_ROW_ID_NAME)) {
            if (in->type->id != PM_TYPE_BIGINT) {
                e = pm_error_new(PM_EINVALID, "column _ROW_ID must be BIGINT, not %s", pm_type_id_name(in->type->id));
                goto fail;
            }
            *rid_col = (ptrdiff_t)i;
            continue;
        }
        ptrdiff_t k = pm_type_field_index(s->row_type, in->name);
        if (k < 0) {
            e = pm_error_new(PM_EINVALID, "column '%s' is not a field of table %s", in->name, t->path);
            goto fail;
        }
        const pm_field *f = &s->row_type->fields[k];
        for (size_t p = 0; p < s->partition_keys.count; p++)
            if (!strcmp(s->partition_keys.items[p], f->name)) {
                e = pm_error_new(PM_EINVALID, "partition column '%s' cannot be updated by row ID", f->name);
                goto fail;
            }
        if (f->type->id == PM_TYPE_BLOB) {
            e = pm_error_new(PM_EUNSUPPORTED, "updating BLOB column '%s' (dedicated blob files) is not supported",
                             f->name);
            goto fail;
        }
        if (!pm_type_equals_ignore_nullable(in->type, f->type)) {
            e = pm_error_new(PM_EINVALID, "column '%s' has type %s, the table's is %s", f->name,
                             pm_type_id_name(in->type->id), pm_type_id_name(f->type->id));
            goto fail;
        }
        if (pm_type_field_index_by_id(ut, f->id) >= 0) {
            e = pm_error_new(PM_EINVALID, "column '%s' given twice", f->name);
            goto fail;
        }
        pm_type *ft = pm_type_clone(f->type);
        e = ft ? pm_type_add_field(ut, f->id, f->name, ft) : pm_oom();
        if (e) {
            pm_type_free(ft);
            goto fail;
        }
        ic[ut->nfields - 1] = i;
    }
    if (*rid_col < 0) {
        e = pm_error_new(PM_EINVALID, "the rows of an update by row ID need a _ROW_ID column");
        goto fail;
    }
    if (!ut->nfields) {
        e = pm_error_new(PM_EINVALID, "an update by row ID needs at least one column besides _ROW_ID");
        goto fail;
    }
    *utype = ut;
    *incol = ic;
    return NULL;
fail:
    free(ic);
    pm_type_free(ut);
    return e;
}

/* Write the new version of group g: current values overlaid with u[0..n). */
pm_error *pm_de_file_writer_options(pm_rolling_file_writer_options *ro, pm_table *t, const char *dir,
                                    const pm_type *type, const char *what, char *fmt, size_t fmtlen)
{
    const pm_options *o = pm_table_options(t);
    memset(ro, 0, sizeof *ro);
    PM_TRY(pm_options_file_format(o, fmt, fmtlen));
    PM_TRY(pm_options_string(o, PM_OPT_FILE_COMPRESSION, &ro->compression));
    ro->fio = t->fio;
    ro->dir = dir;
    ro->file_type = type;
    ro->options = o;
    ro->format = fmt;
    ro->target_size = INT64_MAX;
    ro->target_rows = INT64_MAX;
    ro->check = PM_ROLL_CHECK_WRITE;
    ro->schema_id = pm_table_schema(t)->id;
    ro->source = PM_FILE_SOURCE_APPEND;
    ro->what = what;
    return NULL;
}

static pm_error *write_group(pm_table *t, const pm_bucket_files *b, const pm_de_group *g, const pm_type *ut,
                             const size_t *incol, const pm_batch *rows, const upd_row *u, size_t n,
                             pm_data_file_meta **files, size_t *nfiles)
{
    char fmt[32];
    char *dir = NULL;
    PM_TRY(pm_table_bucket_dir(t, b->partition.data, b->partition.len, b->bucket, &dir));
    pm_rolling_file_writer_options ro;
    pm_error *oe = pm_de_file_writer_options(&ro, t, dir, ut, "update file", fmt, sizeof fmt);
    if (oe) {
        free(dir);
        return oe;
    }
    pm_rolling_file_writer *w = NULL;
    pm_de_group_reader *rd = NULL;
    pm_batch *outb = NULL;
    int64_t *ri = NULL;
    uint16_t *which = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_rolling_file_writer_new(&w, &ro), out);
    PM_TRY_GOTO(e, pm_de_group_reader_open(&rd, t, dir, g, ut, 4096), out);
    PM_TRY_GOTO(e, pm_batch_new(&outb, ut), out);
    size_t next = 0;
    for (;;) {
        const pm_batch *cur = NULL;
        PM_TRY_GOTO(e, pm_de_group_reader_next(rd, &cur), out);
        if (!cur)
            break;
        int64_t pos = g->first_row_id + pm_de_group_reader_position(rd), m = cur->num_rows;
        free(ri);
        free(which);
        ri = NULL;
        which = NULL;
        PM_TRY_GOTO(e, pm_calloc(&ri, (size_t)m ? (size_t)m : 1, sizeof *ri), out);
        PM_TRY_GOTO(e, pm_calloc(&which, (size_t)m ? (size_t)m : 1, sizeof *which), out);
        for (int64_t i = 0; i < m; i++) {
            if (next < n && u[next].row_id == pos + i) {
                which[i] = 1;
                ri[i] = u[next++].input;
            } else {
                ri[i] = i;
            }
        }
        PM_TRY_GOTO(e, pm_batch_reset(outb), out);
        for (size_t c = 0; c < ut->nfields; c++) {
            const pm_column *srcs[2] = {cur->columns[c], rows->columns[incol[c]]};
            PM_TRY_GOTO(e, pm_column_append_gather(outb->columns[c], srcs, which, ri, m), out);
        }
        PM_TRY_GOTO(e, pm_batch_finish(outb, m), out);
        PM_TRY_GOTO(e, pm_rolling_file_writer_write(w, outb), out);
    }
    PM_TRY_GOTO(e, pm_rolling_file_writer_finish(w, files, nfiles), out);
    for (size_t k = 0; k < *nfiles && !e; k++) {
        pm_data_file_meta *f = &(*files)[k];
        f->first_row_id = (pm_opt_long){true, g->first_row_id};
        f->min_sequence_number = 0;
        f->max_sequence_number = 0;
        e = pm_data_file_meta_set_write_cols(f, ut);
    }
out:
    if (e)
        pm_rolling_file_writer_abort(w);
    else
        pm_rolling_file_writer_free(w);
    pm_de_group_reader_free(rd);
    pm_batch_free(outb);
    free(ri);
    free(which);
    free(dir);
    return e;
}

pm_error *pm_de_update(pm_table *t, const pm_batch *rows, const char *commit_user, int64_t identifier,
                       pm_de_change_result *out)
{
    memset(out, 0, sizeof *out);
    ptrdiff_t rid = -1;
    pm_type *ut = NULL;
    size_t *incol = NULL;
    PM_TRY(update_columns(t, rows, &rid, &ut, &incol));
    state s;
    upd_row *u = NULL;
    pm_commit_message *msgs = NULL;
    size_t nmsgs = 0;
    anchor_ref *anchors = NULL;
    size_t nanchors = 0;
    pm_error *e = state_load(&s, t);
    int64_t n = rows->num_rows;
    if (!e)
        e = pm_calloc(&u, (size_t)n ? (size_t)n : 1, sizeof *u);
    const pm_column *rc = rows->columns[rid];
    for (int64_t i = 0; !e && i < n; i++) {
        if (pm_column_is_null(rc, i))
            e = pm_error_new(PM_EINVALID, "row %" PRId64 " of the update has a null _ROW_ID", i);
        else
            u[i] = (upd_row){pm_column_i64(rc, i), i};
    }
    if (!e)
        qsort(u, (size_t)n, sizeof *u, cmp_upd);
    for (int64_t i = 1; !e && i < n; i++)
        if (u[i].row_id == u[i - 1].row_id)
            e = pm_error_new(PM_EINVALID, "_ROW_ID %" PRId64 " appears twice in the update", u[i].row_id);
    for (int64_t i = 0; !e && i < n; i++)
        if (!find_slot(&s, u[i].row_id))
            e = pm_error_new(PM_EINVALID, "_ROW_ID %" PRId64 " is not a row of table %s", u[i].row_id, t->path);
    for (int64_t i = 0; !e && i < n;) {
        const slot *sl = find_slot(&s, u[i].row_id);
        int64_t j = i;
        while (j < n && u[j].row_id < sl->g->first_row_id + sl->g->row_count)
            j++;
        const pm_bucket_files *b = &s.scan->buckets[sl->bucket];
        e = pm_realloc_array(&msgs, nmsgs + 1, sizeof *msgs);
        if (e)
            break;
        pm_commit_message *m = &msgs[nmsgs++];
        memset(m, 0, sizeof *m);
        m->bucket = b->bucket;
        m->total_buckets = b->total_buckets;
        e = pm_bytes_set(&m->partition, b->partition.data, b->partition.len);
        /* global indexes of updated columns (before any file is written) */
        if (!e)
            e = pm_gi_update_retire(t, b, ut, msgs, nmsgs - 1, &m->index_removed, &m->n_index_removed);
        if (!e)
            e = write_group(t, b, sl->g, ut, incol, rows, u + i, (size_t)(j - i), &m->new_files, &m->n_new_files);
        if (!e)
            e = add_anchor(&anchors, &nanchors, b, sl->g);
        out->files += (int64_t)m->n_new_files;
        i = j;
    }
    out->rows = e ? 0 : n;
    if (!e && nmsgs) {
        check_ctx cc = {anchors, nanchors, msgs, nmsgs};
        e = commit(t, msgs, nmsgs, &cc, commit_user, identifier, out);
    } else if (e) {
        delete_new_files(t, msgs, nmsgs);
    }
    pm_commit_message_array_free(msgs, nmsgs);
    free(anchors);
    free(u);
    state_free(&s);
    pm_type_free(ut);
    free(incol);
    return e ? pm_error_wrap(e, 0, "update table %s by row ID", t->path) : NULL;
}

/* ------------------------------------------------------------------ */
/* delete                                                              */

static pm_error *check_dv(pm_table *t)
{
    bool dv = false;
    PM_TRY(pm_options_bool(pm_table_options(t), PM_OPT_DELETION_VECTORS_ENABLED, &dv));
    if (!dv)
        return pm_error_new(PM_EINVALID, "delete from table %s needs deletion-vectors.enabled=true", t->path);
    return NULL;
}

/* The deletes of row_ids against the loaded state s (de_write.h). */
static pm_error *delete_rows(const state *s, pm_table *t, const int64_t *row_ids, size_t n, const char *commit_user,
                             int64_t identifier, pm_de_change_result *out)
{
    bool bitmap64 = false;
    int64_t target = 0;
    pm_error *e = pm_dv_options(pm_table_options(t), &bitmap64, &target);
    for (size_t i = 0; !e && i < n; i++)
        if (!find_slot(s, row_ids[i]))
            e = pm_error_new(PM_EINVALID, "_ROW_ID %" PRId64 " is not a row of table %s", row_ids[i], t->path);
    size_t nb = e ? 0 : s->scan->nbuckets;
    pm_dv_maintainer **ms = NULL;
    char **dirs = NULL;
    if (!e)
        e = pm_calloc(&ms, nb ? nb : 1, sizeof *ms);
    if (!e)
        e = pm_calloc(&dirs, nb ? nb : 1, sizeof *dirs);
    anchor_ref *anchors = NULL;
    size_t nanchors = 0;
    for (size_t i = 0; !e && i < n; i++) {
        const slot *sl = find_slot(s, row_ids[i]);
        const pm_bucket_files *b = &s->scan->buckets[sl->bucket];
        if (!ms[sl->bucket]) {
            e = pm_table_bucket_dir(t, b->partition.data, b->partition.len, b->bucket, &dirs[sl->bucket]);
            if (!e) {
                pm_dv_io io = {t->fio, t->paths, dirs[sl->bucket]};
                e = pm_dv_maintainer_new(&io, &b->partition, b->bucket, bitmap64, b->index_entries, b->nindex_entries,
                                         &ms[sl->bucket]);
            }
        }
        int64_t pos = row_ids[i] - sl->g->first_row_id;
        const pm_dv *old = e ? NULL : pm_dv_maintainer_get(ms[sl->bucket], sl->g->anchor->file_name);
        if (!e && !(old && pm_dv_contains(old, pos))) {
            e = pm_dv_maintainer_delete_row(ms[sl->bucket], sl->g->anchor->file_name, pos);
            out->rows++;
        }
        if (!e)
            e = add_anchor(&anchors, &nanchors, b, sl->g);
    }
    pm_commit_message *msgs = NULL;
    size_t nmsgs = 0;
    for (size_t i = 0; !e && i < nb; i++) {
        if (!ms[i] || !pm_dv_maintainer_modified(ms[i]))
            continue;
        const pm_bucket_files *b = &s->scan->buckets[i];
        e = pm_realloc_array(&msgs, nmsgs + 1, sizeof *msgs);
        if (e)
            break;
        pm_commit_message *m = &msgs[nmsgs++];
        memset(m, 0, sizeof *m);
        m->bucket = b->bucket;
        m->total_buckets = b->total_buckets;
        e = pm_bytes_set(&m->partition, b->partition.data, b->partition.len);
        if (!e)
            e = pm_calloc(&m->index_added, 1, sizeof *m->index_added);
        bool written = false;
        if (!e)
            e = pm_dv_maintainer_write(ms[i], &m->index_added[0], &written);
        if (!e && written)
            m->n_index_added = 1;
        for (size_t k = 0; !e && k < b->nindex_entries; k++) {
            const pm_index_manifest_entry *ie = &b->index_entries[k];
            if (ie->kind != PM_FILE_ADD || !ie->index_file.index_type ||
                strcmp(ie->index_file.index_type, DV_INDEX_TYPE))
                continue;
            e = pm_realloc_array(&m->index_removed, m->n_index_removed + 1, sizeof *m->index_removed);
            if (!e) {
                memset(&m->index_removed[m->n_index_removed], 0, sizeof *m->index_removed);
                e = pm_index_manifest_entry_copy(&m->index_removed[m->n_index_removed], ie);
            }
            if (!e)
                m->index_removed[m->n_index_removed++].kind = PM_FILE_DELETE;
        }
        out->files += (int64_t)m->n_index_added;
    }
    if (!e && nmsgs) {
        check_ctx cc = {anchors, nanchors, msgs, nmsgs};
        e = commit(t, msgs, nmsgs, &cc, commit_user, identifier, out);
    } else if (e) {
        delete_new_files(t, msgs, nmsgs);
    }
    pm_commit_message_array_free(msgs, nmsgs);
    for (size_t i = 0; ms && i < nb; i++) {
        pm_dv_maintainer_free(ms[i]);
        free(dirs[i]);
    }
    free(ms);
    free(dirs);
    free(anchors);
    if (e)
        out->rows = 0;
    return e;
}

pm_error *pm_de_delete(pm_table *t, const int64_t *row_ids, size_t n, const char *commit_user, int64_t identifier,
                       pm_de_change_result *out)
{
    memset(out, 0, sizeof *out);
    pm_error *e = check_dv(t);
    state s;
    memset(&s, 0, sizeof s);
    if (!e)
        e = state_load(&s, t);
    if (!e)
        e = delete_rows(&s, t, row_ids, n, commit_user, identifier, out);
    state_free(&s);
    return e ? pm_error_wrap(e, 0, "delete from table %s by row ID", t->path) : NULL;
}

/* The live row IDs of s's snapshot whose rows satisfy `filter`. */
static pm_error *matching_row_ids(pm_table *t, const state *s, const char *filter, int64_t **ids, size_t *n)
{
    *ids = NULL;
    *n = 0;
    pm_predicate *p = NULL;
    const pm_schema *sch = s->scan->schema ? s->scan->schema : pm_table_schema(t);
    PM_TRY(pm_predicate_parse(&p, filter, sch->row_type));
    const char *cols[] = {PM_ROW_ID_NAME};
    pm_table_read_options ro = {cols, 1, 0, p};
    pm_table_reader *r = NULL;
    pm_error *e = pm_table_reader_new(&r, t, s->scan, &ro);
    size_t cap = 0;
    for (;;) {
        const pm_batch *b = NULL;
        if (e || (e = pm_table_reader_next(r, &b)) || !b)
            break;
        const pm_column *c = b->columns[0];
        if ((size_t)b->num_rows > cap - *n) {
            cap = (*n + (size_t)b->num_rows) * 2;
            if ((e = pm_realloc_array(ids, cap, sizeof **ids)))
                break;
        }
        for (int64_t i = 0; i < b->num_rows; i++) {
            if (pm_column_is_null(c, i)) {
                e = pm_error_new(PM_ECORRUPT, "a row of table %s without _ROW_ID", t->path);
                break;
            }
            (*ids)[(*n)++] = pm_column_i64(c, i);
        }
    }
    pm_table_reader_free(r);
    pm_predicate_free(p);
    if (e) {
        free(*ids);
        *ids = NULL;
        *n = 0;
    }
    return e;
}

pm_error *pm_de_delete_where(pm_table *t, const char *filter, const char *commit_user, int64_t identifier,
                             pm_de_change_result *out)
{
    memset(out, 0, sizeof *out);
    if (!filter)
        return pm_error_new(PM_EINVALID, "delete from table %s: no filter", t->path);
    pm_error *e = check_dv(t);
    state s;
    memset(&s, 0, sizeof s);
    if (!e)
        e = state_load(&s, t);
    int64_t *ids = NULL;
    size_t n = 0;
    if (!e)
        e = matching_row_ids(t, &s, filter, &ids, &n);
    if (!e)
        e = delete_rows(&s, t, ids, n, commit_user, identifier, out);
    free(ids);
    state_free(&s);
    return e ? pm_error_wrap(e, 0, "delete from table %s where %s", t->path, filter) : NULL;
}
