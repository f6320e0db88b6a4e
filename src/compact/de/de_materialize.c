/*
 * compact/de/de_materialize.c — materializing the deletion vectors of a
 * data-evolution table (paimon/compact.h pm_materialize_deletions).
 *
 * One batch:
 *   1. scan the latest snapshot S (partition specs as filter; or the
 *      `where` predicate tested on each bucket's partition); in each
 *      bucket the row-ID groups (table/de_read.h) whose anchor has a
 *      deletion vector are selected in row order until about
 *      batch_vectors vectors (a group is never split); a selected group
 *      with dedicated vector files is PM_EUNSUPPORTED;
 *   2. each selected group is read in the table's schema with the
 *      anchor's deletions applied and written as one new file (rolling
 *      writer that never rolls; with BLOB fields through table/
 *      blob_write.h: the normal file, then its .blob files; file source APPEND, no first row ID,
 *      sequence numbers 0: the commit gives it new row IDs from nextRowId
 *      and the new snapshot's sequence number); a group with no survivor
 *      writes nothing;
 *   3. per bucket a commit message: the groups' files (normal and blob)
 *      replaced by the new ones, the bucket's DV index rewritten without the groups'
 *      vectors (one file holding the rest; the old files removed), the
 *      global index entries whose row range meets a group dropped;
 *   4. one COMPACT commit, validated on every attempt against the latest
 *      snapshot: every selected group's files still live as planned, no
 *      other normal file in their ranges, every removed index file live;
 *      otherwise PM_ECONFLICT, nothing is published and the new files are
 *      deleted.
 * Batches repeat until no selected group is left.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "compact/de/de_compact.h"
#include "dv/dv_apply.h"
#include "dv/dv_index_file.h"
#include "dv/dv_maintainer.h"
#include "meta/index_path.h"
#include "meta/manifest.h"
#include "table/blob_write.h"
#include "table/commit_message.h"
#include "table/de_read.h"
#include "table/de_write.h"
#include "table/partition.h"
#include "table/predicate.h"
#include "table/rolling_file_writer.h"
#include "table/table_commit.h"

#define DV_INDEX_TYPE "DELETION_VECTORS"
#define DEFAULT_BATCH 100000

void pm_materialize_options_init(pm_materialize_options *o)
{
    pm_materialize_options d = PM_MATERIALIZE_OPTIONS_INIT;
    *o = d;
}

void pm_materialize_metrics_init(pm_materialize_metrics *m)
{
    pm_materialize_metrics d = PM_MATERIALIZE_METRICS_INIT;
    *m = d;
}

typedef struct sel_group {
    size_t bucket;
    const pm_de_group *g;
    const pm_deletion_file *dv;
} sel_group;

typedef struct batch {
    pm_table *t;
    const pm_predicate *where;   /* partitions to act on; NULL = all scanned */
    pm_scan_result *scan;
    pm_de_group **groups;
    size_t *ngroups;
    sel_group *sel;
    size_t nsel;
    pm_commit_message *msgs;
    size_t nmsgs;
    int64_t rows_removed, rows_kept;
} batch;

static void batch_free(batch *b)
{
    for (size_t i = 0; b->scan && b->groups && i < b->scan->nbuckets; i++)
        pm_de_groups_free(b->groups[i], b->ngroups[i]);
    free(b->groups);
    free(b->ngroups);
    free(b->sel);
    pm_commit_message_array_free(b->msgs, b->nmsgs);
    pm_scan_result_free(b->scan);
}

static pm_error *select_groups(batch *b, int64_t target)
{
    size_t nb = b->scan->nbuckets;
    PM_TRY(pm_calloc(&b->groups, nb ? nb : 1, sizeof *b->groups));
    PM_TRY(pm_calloc(&b->ngroups, nb ? nb : 1, sizeof *b->ngroups));
    int64_t vectors = 0;
    for (size_t i = 0; i < nb && vectors < target; i++) {
        const pm_bucket_files *bf = &b->scan->buckets[i];
        if (!bf->ndvs)
            continue;
        if (b->where) {
            bool match = false;
            PM_TRY(pm_predicate_partition_match(b->where, b->t->partition_type, bf->partition.data,
                                                bf->partition.len, &match));
            if (!match)
                continue;
        }
        PM_TRY(pm_de_plan_groups(bf->files, bf->nfiles, &b->groups[i], &b->ngroups[i]));
        for (size_t k = 0; k < b->ngroups[i] && vectors < target; k++) {
            const pm_de_group *g = &b->groups[i][k];
            const pm_deletion_file *d = pm_compact_find_dv(bf, g->anchor->file_name);
            if (!d || (d->cardinality.has && d->cardinality.v == 0))
                continue;
            for (size_t f = g->nnormal; f < g->nfiles; f++)
                if (!pm_de_is_blob_file(g->files[f]->file_name))
                    return pm_error_new(PM_EUNSUPPORTED, "materializing deletions of row IDs [%" PRId64 ", %" PRId64
                                        "] is not supported: the group has dedicated vector file %s",
                                        g->first_row_id, g->first_row_id + g->row_count - 1, g->files[f]->file_name);
            PM_TRY(pm_realloc_array(&b->sel, b->nsel + 1, sizeof *b->sel));
            b->sel[b->nsel++] = (sel_group){i, g, d};
            vectors++;
        }
    }
    return NULL;
}

/* The survivors of group s into new files (appended to *files). */
static pm_error *rewrite_group(batch *b, const sel_group *s, const char *dir, pm_data_file_meta **files,
                               size_t *nfiles)
{
    pm_table *t = b->t;
    const pm_bucket_files *bf = &b->scan->buckets[s->bucket];
    const pm_type *row = pm_table_schema(t)->row_type;
    char fmt[32];
    pm_rolling_file_writer_options ro;
    PM_TRY(pm_de_file_writer_options(&ro, t, dir, row, "materialized file", fmt, sizeof fmt));
    pm_rolling_file_writer *w = NULL;
    pm_blob_write *bw = NULL;   /* tables with BLOB fields: normal file + its .blob files */
    pm_de_group_reader *rd = NULL;
    pm_dv *dv = NULL;
    pm_batch *view = NULL;
    uint8_t *keep = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_dv_index_read_one(t->fio, s->dv->index_path, s->dv->offset, s->dv->length, &dv), out);
    if (pm_blob_write_needed(row))
        PM_TRY_GOTO(e, pm_blob_write_new(&bw, &ro), out);
    else
        PM_TRY_GOTO(e, pm_rolling_file_writer_new(&w, &ro), out);
    PM_TRY_GOTO(e, pm_de_group_reader_open(&rd, t, dir, s->g, row, 4096), out);
    PM_TRY_GOTO(e, pm_batch_new(&view, row), out);
    for (;;) {
        const pm_batch *cur = NULL;
        PM_TRY_GOTO(e, pm_de_group_reader_next(rd, &cur), out);
        if (!cur)
            break;
        int64_t n = cur->num_rows, deleted = 0;
        free(keep);
        keep = NULL;
        PM_TRY_GOTO(e, pm_calloc(&keep, (size_t)(n + 7) / 8, 1), out);
        memset(keep, 0xff, (size_t)(n + 7) / 8);
        pm_dv_clear_deleted(dv, pm_de_group_reader_position(rd), n, keep, &deleted);
        const pm_batch *use = cur;
        if (deleted) {
            for (size_t c = 0; c < view->ncolumns; c++) {
                pm_column_release(view->columns[c]);
                view->columns[c] = pm_column_retain(cur->columns[c]);
            }
            view->num_rows = n;
            PM_TRY_GOTO(e, pm_batch_filter(view, keep), out);
            use = view;
        }
        b->rows_removed += deleted;
        b->rows_kept += use->num_rows;
        if (use->num_rows)
            PM_TRY_GOTO(e, bw ? pm_blob_write_write(bw, use) : pm_rolling_file_writer_write(w, use), out);
    }
    pm_data_file_meta *f = NULL;
    size_t nf = 0;
    PM_TRY_GOTO(e, bw ? pm_blob_write_finish(bw, &f, &nf) : pm_rolling_file_writer_finish(w, &f, &nf), out);
    for (size_t k = 0; k < nf; k++) {
        f[k].min_sequence_number = 0;
        f[k].max_sequence_number = 0;
    }
    if (nf) {
        e = pm_realloc_array(files, *nfiles + nf, sizeof **files);
        if (e) {
            pm_data_file_metas_free(f, nf);
            goto out;
        }
        memcpy(*files + *nfiles, f, nf * sizeof *f);
        *nfiles += nf;
    }
    free(f);
    (void)bf;
out:
    if (e) {
        pm_blob_write_abort(bw);
        pm_rolling_file_writer_abort(w);
    } else {
        pm_blob_write_free(bw);
        pm_rolling_file_writer_free(w);
    }
    pm_de_group_reader_free(rd);
    pm_dv_free(dv);
    pm_batch_free(view);
    free(keep);
    return e;
}

static pm_error *push_index(pm_index_manifest_entry **v, size_t *n, const pm_index_manifest_entry *src,
                            pm_file_kind kind)
{
    PM_TRY(pm_realloc_array(v, *n + 1, sizeof **v));
    memset(&(*v)[*n], 0, sizeof **v);
    PM_TRY(pm_index_manifest_entry_copy(&(*v)[*n], src));
    (*v)[(*n)++].kind = kind;
    return NULL;
}

static bool range_meets(int64_t s1, int64_t e1, int64_t s2, int64_t e2) { return s1 <= e2 && s2 <= e1; }

/* One message per bucket with selected groups. */
static pm_error *build_messages(batch *b)
{
    pm_table *t = b->t;
    bool bitmap64 = false;
    int64_t target = 0;
    PM_TRY(pm_dv_options(pm_table_options(t), &bitmap64, &target));
    for (size_t i = 0; i < b->scan->nbuckets; i++) {
        const pm_bucket_files *bf = &b->scan->buckets[i];
        bool any = false;
        for (size_t k = 0; k < b->nsel && !any; k++)
            any = b->sel[k].bucket == i;
        if (!any)
            continue;
        PM_TRY(pm_realloc_array(&b->msgs, b->nmsgs + 1, sizeof *b->msgs));
        pm_commit_message *m = &b->msgs[b->nmsgs++];
        memset(m, 0, sizeof *m);
        m->bucket = bf->bucket;
        m->total_buckets = bf->total_buckets;
        PM_TRY(pm_bytes_set(&m->partition, bf->partition.data, bf->partition.len));
        char *dir = NULL;
        PM_TRY(pm_table_bucket_dir(t, bf->partition.data, bf->partition.len, bf->bucket, &dir));
        pm_dv_maintainer *dm = NULL;
        pm_dv_io io = {t->fio, t->paths, dir};
        pm_error *e = pm_dv_maintainer_new(&io, &bf->partition, bf->bucket, bitmap64, bf->index_entries,
                                           bf->nindex_entries, &dm);
        for (size_t k = 0; !e && k < b->nsel; k++) {
            const sel_group *s = &b->sel[k];
            if (s->bucket != i)
                continue;
            for (size_t f = 0; !e && f < s->g->nfiles; f++) { /* normal and blob files */
                e = pm_realloc_array(&m->compact_before, m->n_compact_before + 1, sizeof *m->compact_before);
                if (!e) {
                    memset(&m->compact_before[m->n_compact_before], 0, sizeof *m->compact_before);
                    e = pm_data_file_meta_copy(&m->compact_before[m->n_compact_before], s->g->files[f]);
                }
                if (!e)
                    m->n_compact_before++;
            }
            if (!e)
                e = rewrite_group(b, s, dir, &m->compact_after, &m->n_compact_after);
            pm_dv_maintainer_remove(dm, s->g->anchor->file_name);
        }
        /* the bucket's DV index: one file with the other vectors */
        if (!e) {
            e = pm_calloc(&m->index_added, 1, sizeof *m->index_added);
            bool written = false;
            if (!e)
                e = pm_dv_maintainer_write(dm, &m->index_added[0], &written);
            if (!e && written)
                m->n_index_added = 1;
        }
        for (size_t k = 0; !e && k < bf->nindex_entries; k++) {
            const pm_index_manifest_entry *ie = &bf->index_entries[k];
            if (ie->kind != PM_FILE_ADD)
                continue;
            bool drop = ie->index_file.index_type && !strcmp(ie->index_file.index_type, DV_INDEX_TYPE);
            for (size_t s = 0; !drop && ie->index_file.has_global_index && s < b->nsel; s++)
                drop = b->sel[s].bucket == i &&
                       range_meets(ie->index_file.global_index.row_range_start, ie->index_file.global_index.row_range_end,
                                   b->sel[s].g->first_row_id, b->sel[s].g->first_row_id + b->sel[s].g->row_count - 1);
            if (drop)
                e = push_index(&m->index_removed, &m->n_index_removed, ie, PM_FILE_DELETE);
        }
        pm_dv_maintainer_free(dm);
        free(dir);
        PM_TRY(e);
    }
    return NULL;
}

/* Commit check: the selected groups are as planned in the latest snapshot. */
static pm_error *check_batch(void *arg, const pm_snapshot *latest, const pm_scan_result *live)
{
    (void)latest;
    batch *b = arg;
    for (size_t m = 0; m < b->nmsgs; m++) {
        const pm_commit_message *msg = &b->msgs[m];
        const pm_bucket_files *bf = pm_compact_find_bucket(live, &msg->partition, msg->bucket);
        for (size_t k = 0; k < msg->n_index_removed; k++) {
            bool ok = false;
            for (size_t j = 0; bf && j < bf->nindex_entries && !ok; j++)
                ok = !strcmp(bf->index_entries[j].index_file.file_name, msg->index_removed[k].index_file.file_name);
            if (!ok)
                return pm_error_new(PM_ECONFLICT, "materialization conflict: index file %s changed since the batch "
                                    "was planned", msg->index_removed[k].index_file.file_name);
        }
    }
    for (size_t s = 0; s < b->nsel; s++) {
        const sel_group *sg = &b->sel[s];
        const pm_bucket_files *pb = &b->scan->buckets[sg->bucket];
        const pm_bucket_files *bf = pm_compact_find_bucket(live, &pb->partition, pb->bucket);
        int64_t lo = sg->g->first_row_id, hi = lo + sg->g->row_count - 1;
        size_t seen = 0;
        for (size_t k = 0; bf && k < bf->nfiles; k++) {
            const pm_data_file_meta *f = &bf->files[k];
            if (!f->first_row_id.has || !range_meets(f->first_row_id.v, f->first_row_id.v + f->row_count - 1, lo, hi))
                continue;
            bool planned = false;
            for (size_t j = 0; j < sg->g->nfiles && !planned; j++)
                planned = !strcmp(sg->g->files[j]->file_name, f->file_name);
            if (!planned)
                return pm_error_new(PM_ECONFLICT, "materialization conflict: data file %s was written into row IDs "
                                    "[%" PRId64 ", %" PRId64 "] after the batch was planned", f->file_name, lo, hi);
            seen++;
        }
        if (seen != sg->g->nfiles)
            return pm_error_new(PM_ECONFLICT, "materialization conflict: files of row IDs [%" PRId64 ", %" PRId64
                                "] were replaced after the batch was planned", lo, hi);
    }
    return NULL;
}

static void delete_outputs(batch *b)
{
    for (size_t m = 0; m < b->nmsgs; m++) {
        const pm_commit_message *msg = &b->msgs[m];
        char *dir = NULL;
        if (pm_table_bucket_dir(b->t, msg->partition.data, msg->partition.len, msg->bucket, &dir))
            continue;
        for (size_t k = 0; k < msg->n_compact_after; k++) {
            char *p = pm_path_join(dir, msg->compact_after[k].file_name);
            if (p)
                pm_error_free(pm_fileio_delete(b->t->fio, p));
            free(p);
        }
        for (size_t k = 0; k < msg->n_index_added; k++) {
            char *p = NULL;
            if (!pm_index_file_path(b->t->paths, dir, &msg->index_added[k].index_file, &p))
                pm_error_free(pm_fileio_delete(b->t->fio, p));
            free(p);
        }
        free(dir);
    }
}

pm_error *pm_materialize_deletions(pm_materialize_metrics *out, pm_table *t, const pm_materialize_options *o)
{
    if (!out || out->version != PM_MATERIALIZE_METRICS_VERSION)
        return pm_error_new(PM_EINVALID, "pm_materialize_metrics must be initialized with PM_MATERIALIZE_METRICS_INIT");
    if (o && (o->version < 1 || o->version > PM_MATERIALIZE_OPTIONS_VERSION))
        return pm_error_new(PM_EINVALID, "pm_materialize_options.version %d is not 1..%d", o->version,
                            PM_MATERIALIZE_OPTIONS_VERSION);
    const char *where = o && o->version >= 2 ? o->where : NULL;
    if (where && o->npartitions)
        return pm_error_new(PM_EINVALID, "materialize deletions: partitions and where are exclusive");
    pm_materialize_metrics m = PM_MATERIALIZE_METRICS_INIT;
    *out = m;
    const pm_options *opts = pm_table_options(t);
    bool de = false, dv = false;
    PM_TRY(pm_options_bool(opts, PM_OPT_DATA_EVOLUTION_ENABLED, &de));
    PM_TRY(pm_options_bool(opts, PM_OPT_DELETION_VECTORS_ENABLED, &dv));
    if (!de)
        return pm_error_new(PM_EINVALID, "materializing deletions needs a data-evolution table "
                                         "(data-evolution.enabled=true): %s", pm_table_path(t));
    if (!dv)
        return pm_error_new(PM_EINVALID, "materializing deletions needs deletion-vectors.enabled=true: %s",
                            pm_table_path(t));
    int64_t target = o && o->batch_vectors > 0 ? o->batch_vectors : DEFAULT_BATCH;
    pm_predicate *pred = NULL;
    if (where) {
        PM_TRY(pm_predicate_parse(&pred, where, pm_table_schema(t)->row_type));
        pm_error *pe = pm_predicate_check_partition(pred, t->partition_type, "where of materialize deletions");
        if (pe) {
            pm_predicate_free(pred);
            return pe;
        }
    }
    pm_partition_spec *specs = NULL;
    size_t nspecs = o ? o->npartitions : 0;
    pm_error *e = NULL;
    if (nspecs && (e = pm_calloc(&specs, nspecs, sizeof *specs))) {
        pm_predicate_free(pred);
        return e;
    }
    for (size_t i = 0; i < nspecs && !e; i++)
        e = pm_partition_spec_parse(o->partitions[i], &specs[i]);
    for (int64_t round = 1; !e; round++) {
        batch b;
        memset(&b, 0, sizeof b);
        b.t = t;
        b.where = pred;
        pm_scan_options so = pm_scan_options_default();
        so.partitions = specs;
        so.npartitions = nspecs;
        e = pm_table_scan(t, &so, &b.scan);
        if (!e)
            e = select_groups(&b, target);
        if (!e && !b.nsel) {
            batch_free(&b);
            break;
        }
        if (!e)
            e = build_messages(&b);
        int64_t sid = 0;
        if (!e) {
            pm_commit_options co;
            memset(&co, 0, sizeof co);
            co.commit_user = o ? o->commit_user : NULL;
            /* one identifier per batch: the snapshot it was planned on */
            co.commit_identifier = b.scan->snapshot ? b.scan->snapshot->id : 0;
            co.kind = PM_COMMIT_COMPACT;
            co.validate = check_batch;
            co.validate_arg = &b;
            e = pm_table_commit(t, &co, b.msgs, b.nmsgs, &sid);
        }
        if (e && pm_error_code(e) != PM_EUNCERTAIN)
            delete_outputs(&b);
        if (!e) {
            out->batches++;
            out->groups += (int64_t)b.nsel;
            out->rows_removed += b.rows_removed;
            out->rows_kept += b.rows_kept;
            out->last_snapshot_id = sid;
            if (o && o->progress)
                o->progress(o->progress_ctx, round, (int64_t)b.nsel, b.rows_removed, sid);
        }
        batch_free(&b);
    }
    for (size_t i = 0; i < nspecs; i++)
        pm_partition_spec_clear(&specs[i]);
    free(specs);
    pm_predicate_free(pred);
    return e ? pm_error_wrap(e, 0, "materialize deletions of %s", pm_table_path(t)) : NULL;
}
