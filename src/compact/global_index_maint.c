/*
 * compact/global_index_maint.c — one maintenance round of declared global
 * indexes (see global_index_maint.h): plan the missing coverage, read and
 * build it, publish it as one index-only APPEND snapshot, replan on
 * conflicts.
 */
#include "compact/global_index_maint.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/fault.h"
#include "base/log.h"
#include "base/mem.h"
#include "base/util.h"
#include "compact/compact_internal.h"
#include "index/global_index_decl.h"
#include "index/global_index_file.h"
#include "io/fileio.h"
#include "lsm/universal.h"
#include "meta/paths.h"
#include "table/commit_message.h"
#include "table/de_read.h"
#include "table/global_index_epoch.h"
#include "table/partition.h"
#include "table/scan.h"
#include "table/table_commit.h"
#include "table/table_internal.h"
#include "types/column.h"

typedef struct ranges {
    pm_gi_range *r;
    size_t n;
} ranges;

static void ranges_free(ranges *x)
{
    free(x->r);
    x->r = NULL;
    x->n = 0;
}

static pm_error *ranges_push(ranges *x, int64_t from, int64_t to)
{
    PM_TRY(pm_realloc_array(&x->r, x->n + 1, sizeof *x->r));
    x->r[x->n++] = (pm_gi_range){from, to};
    return NULL;
}

/* Sort and merge overlapping or touching ranges. */
static void ranges_merge(ranges *x) { pm_gi_ranges_merge(x->r, &x->n); }

/* out := a − b (both merged), each piece cut at multiples of shard. */
static pm_error *ranges_minus_cut(const ranges *a, const ranges *b, int64_t shard, ranges *out)
{
    for (size_t i = 0; i < a->n; i++) {
        int64_t from = a->r[i].from, to = a->r[i].to;
        for (size_t j = 0; j < b->n && from <= to; j++) {
            if (b->r[j].to < from || b->r[j].from > to)
                continue;
            if (b->r[j].from > from) {
                int64_t s = from, e = b->r[j].from - 1;
                while (s <= e) {
                    int64_t cut = (s / shard + 1) * shard - 1;
                    int64_t pe = cut < e ? cut : e;
                    PM_TRY(ranges_push(out, s, pe));
                    s = pe + 1;
                }
            }
            from = b->r[j].to + 1;
        }
        while (from <= to) {
            int64_t cut = (from / shard + 1) * shard - 1;
            int64_t pe = cut < to ? cut : to;
            PM_TRY(ranges_push(out, from, pe));
            from = pe + 1;
        }
    }
    return NULL;
}

/* ---------------------------------------------------------------- */
/* one round's state                                                  */

typedef struct built {
    const pm_bucket_files *b;   /* in the round's scan */
    int32_t field_id;
    pm_gi_range range;
} built;

typedef struct round_state {
    pm_table *t;
    int64_t schema_id;
    pm_scan_result *scan;
    pm_gi_decls decls;
    pm_commit_message *msgs;    /* one per bucket with changes */
    size_t nmsgs;
    built *built;
    size_t nbuilt;
    char **read_files;          /* data files the round read (borrowed names) */
    size_t nread;
    const char *gi_root;        /* global-index.external-path as written (borrowed), NULL = index/ */
    char *gi_dir;               /* its local directory */
    pm_gi_maint_result res;
} round_state;

static void round_clear(round_state *s, bool delete_files)
{
    if (delete_files)
        for (size_t i = 0; i < s->nmsgs; i++)
            if (s->msgs[i].n_index_added)
                pm_compact_delete_index_files(s->t, s->msgs[i].index_added, s->msgs[i].n_index_added);
    pm_commit_message_array_free(s->msgs, s->nmsgs);
    free(s->built);
    free(s->read_files);
    free(s->gi_dir);
    pm_gi_decls_clear(&s->decls);
    pm_scan_result_free(s->scan);
    memset(s, 0, sizeof *s);
}

static pm_commit_message *msg_for(round_state *s, const pm_bucket_files *b, pm_error **e)
{
    for (size_t i = 0; i < s->nmsgs; i++)
        if (s->msgs[i].bucket == b->bucket && s->msgs[i].partition.len == b->partition.len &&
            !memcmp(s->msgs[i].partition.data, b->partition.data, b->partition.len))
            return &s->msgs[i];
    if ((*e = pm_realloc_array(&s->msgs, s->nmsgs + 1, sizeof *s->msgs)))
        return NULL;
    pm_commit_message *m = &s->msgs[s->nmsgs];
    memset(m, 0, sizeof *m);
    s->nmsgs++;
    if ((*e = pm_bytes_set(&m->partition, b->partition.data, b->partition.len)))
        return NULL;
    m->bucket = b->bucket;
    m->total_buckets = b->total_buckets;
    return m;
}

static pm_error *push_entry(pm_index_manifest_entry **arr, size_t *n, const pm_index_manifest_entry *e)
{
    PM_TRY(pm_realloc_array(arr, *n + 1, sizeof **arr));
    memset(&(*arr)[*n], 0, sizeof **arr);
    PM_TRY(pm_index_manifest_entry_copy(&(*arr)[*n], e));
    (*n)++;
    return NULL;
}

static int cmp_group(const void *a, const void *b)
{
    const pm_de_group *x = *(const pm_de_group *const *)a, *y = *(const pm_de_group *const *)b;
    return x->first_row_id < y->first_row_id ? -1 : x->first_row_id > y->first_row_id;
}

/* Values of column g for row ids [from, to] of bucket b, in row-id order
 * (a row id no group yields is null). */
static pm_error *read_range(round_state *s, const pm_bucket_files *b, pm_de_group **sorted, size_t ng,
                            const pm_gi_column *g, int64_t from, int64_t to, pm_column **out)
{
    *out = NULL;
    pm_type *vt = pm_type_clone(g->type), *rt = pm_type_new_row(false);
    pm_type *ft = pm_type_clone(g->type), *it = pm_type_new(PM_TYPE_BIGINT, false);
    pm_column *col = NULL;
    char *dir = NULL;
    pm_error *e = NULL;
    if (!vt || !rt || !ft || !it) {
        e = pm_oom();
        goto done;
    }
    vt->nullable = true;
    ft->nullable = true;
    PM_TRY_GOTO(e, pm_type_add_field(rt, g->field_id, g->column, ft), done);
    ft = NULL;
    PM_TRY_GOTO(e, pm_type_add_field(rt, PM_ROW_ID_FIELD_ID, PM_ROW_ID_NAME, it), done);
    it = NULL;
    PM_TRY_GOTO(e, pm_column_new(&col, vt), done);
    PM_TRY_GOTO(e, pm_column_reserve(col, to - from + 1), done);
    PM_TRY_GOTO(e, pm_table_bucket_dir(s->t, b->partition.data, b->partition.len, b->bucket, &dir), done);
    int64_t next = from;
    for (size_t k = 0; k < ng && !e; k++) {
        const pm_de_group *gr = sorted[k];
        if (!gr->has_first_row_id || gr->first_row_id > to || gr->first_row_id + gr->row_count - 1 < from)
            continue;
        for (size_t f = 0; f < gr->nfiles; f++) {
            PM_TRY_GOTO(e, pm_realloc_array(&s->read_files, s->nread + 1, sizeof *s->read_files), done);
            s->read_files[s->nread++] = gr->files[f]->file_name;
        }
        pm_de_group_reader *r = NULL;
        PM_TRY_GOTO(e, pm_de_group_reader_open(&r, s->t, dir, gr, rt, 4096), done);
        const pm_batch *bt = NULL;
        while (!e && !(e = pm_de_group_reader_next(r, &bt)) && bt) {
            const pm_column *vc = bt->columns[0], *rc = bt->columns[1];
            for (int64_t i = 0; i < bt->num_rows && !e; i++) {
                int64_t rid = pm_column_i64(rc, i);
                if (rid < from || rid > to)
                    continue;
                if (rid < next) {
                    e = pm_error_new(PM_ECORRUPT, "row id %" PRId64 " read twice while indexing column %s", rid,
                                     g->column);
                    break;
                }
                while (!e && next < rid) {
                    e = pm_column_append_null(col);
                    next++;
                }
                if (!e)
                    e = pm_column_append_from(col, vc, i);
                next++;
            }
        }
        pm_de_group_reader_free(r);
    }
    while (!e && next <= to) {
        e = pm_column_append_null(col);
        next++;
    }
done:
    free(dir);
    pm_type_free(ft);
    pm_type_free(it);
    pm_type_free(rt);
    pm_type_free(vt);
    if (e) {
        pm_column_release(col);
        return e;
    }
    *out = col;
    return NULL;
}

/* Write payloads as files and add their entries to m. */
static pm_error *publish_payloads(round_state *s, pm_commit_message *m, const pm_bucket_files *b,
                                  const pm_gi_column *g, pm_gi_range rg, pm_gi_payload *ps, size_t np)
{
    for (size_t i = 0; i < np; i++) {
        char uuid[37], name[128];
        PM_TRY(pm_uuid(uuid));
        snprintf(name, sizeof name, "%s-global-index-%s.index", pm_gi_family_name(g->family), uuid);
        char *path = NULL, *ext = NULL;
        if (s->gi_dir) {
            /* under the external root; the entry names it in full, as the root is spelled */
            size_t rl = strlen(s->gi_root);
            while (rl > 1 && s->gi_root[rl - 1] == '/')
                rl--;
            size_t el = rl + 1 + strlen(name) + 1;
            path = pm_path_join(s->gi_dir, name);
            ext = malloc(el);
            if (!path || !ext) {
                free(path);
                free(ext);
                return pm_oom();
            }
            snprintf(ext, el, "%.*s/%s", (int)rl, s->gi_root, name);
        } else {
            PM_TRY(pm_path_factory_index_path(s->t->paths, name, &path));
        }
        pm_output *out = NULL;
        bool written = false;
        pm_error *e = pm_output_create(s->t->fio, path, false, &out);
        if (!e)
            e = pm_output_write(out, ps[i].bytes.data, ps[i].bytes.len);
        if (!e) {
            e = pm_output_close(out, true);
            out = NULL;
            written = !e;
        }
        pm_output_abort(out); /* a partial file is removed */
        if (!e && pm_fault("global-index-after-write"))
            e = pm_error_new(PM_EIO, "fault injected: global-index-after-write");
        if (e && written)
            pm_error_free(pm_fileio_delete(s->t->fio, path)); /* written but not yet listed */
        if (e) {
            free(path);
            free(ext);
            return e;
        }
        pm_index_manifest_entry ie;
        memset(&ie, 0, sizeof ie);
        ie.kind = PM_FILE_ADD;
        ie.bucket = b->bucket;
        ie.partition = b->partition; /* borrowed for the copy */
        ie.index_file.index_type = (char *)pm_gi_family_name(g->family);
        ie.index_file.file_name = name;
        ie.index_file.external_path = ext;
        ie.index_file.file_size = (int64_t)ps[i].bytes.len;
        ie.index_file.row_count = ps[i].row_count;
        ie.index_file.has_global_index = true;
        ie.index_file.global_index.row_range_start = rg.from;
        ie.index_file.global_index.row_range_end = rg.to;
        ie.index_file.global_index.index_field_id = g->field_id;
        if (ps[i].has_meta) {
            ie.index_file.global_index.index_meta.has = true;
            ie.index_file.global_index.index_meta.data = ps[i].meta.data;
            ie.index_file.global_index.index_meta.len = ps[i].meta.len;
        }
        e = push_entry(&m->index_added, &m->n_index_added, &ie);
        if (e)
            pm_error_free(pm_fileio_delete(s->t->fio, path));
        free(path);
        free(ext);
        PM_TRY(e);
        s->res.files_added++;
    }
    return NULL;
}

/* Retire entry ie of bucket b in this round's snapshot. */
static pm_error *retire(round_state *s, const pm_bucket_files *b, const pm_index_manifest_entry *ie)
{
    pm_error *e = NULL;
    pm_commit_message *m = msg_for(s, b, &e);
    if (!m)
        return e;
    for (size_t i = 0; i < m->n_index_removed; i++)
        if (!strcmp(m->index_removed[i].index_file.file_name, ie->index_file.file_name))
            return NULL;
    pm_index_manifest_entry del = *ie;
    del.kind = PM_FILE_DELETE;
    PM_TRY(push_entry(&m->index_removed, &m->n_index_removed, &del));
    s->res.files_removed++;
    return NULL;
}

/* Build range rg of column g in bucket b. */
static pm_error *build_range(round_state *s, const pm_bucket_files *b, pm_de_group **sorted, size_t ng,
                             const pm_gi_column *g, pm_gi_range rg)
{
    pm_column *vals = NULL;
    pm_gi_payload *ps = NULL;
    size_t np = 0;
    PM_TRY(read_range(s, b, sorted, ng, g, rg.from, rg.to, &vals));
    pm_error *e = pm_gi_build(g, vals, rg.to - rg.from + 1, &ps, &np);
    pm_column_release(vals);
    pm_commit_message *m = NULL;
    if (!e && np && (m = msg_for(s, b, &e)))
        e = publish_payloads(s, m, b, g, rg, ps, np);
    pm_gi_payloads_free(ps, np);
    if (!e && np) {
        e = pm_realloc_array(&s->built, s->nbuilt + 1, sizeof *s->built);
        if (!e)
            s->built[s->nbuilt++] = (built){b, g->field_id, rg};
        s->res.rows_indexed += rg.to - rg.from + 1;
        s->res.ranges_built++;
    }
    return e;
}

/* A run of index ranges: one existing range (every payload file of it) or
 * one missing piece. */
typedef struct irun {
    pm_gi_range r;
    bool missing;
    bool selected;
} irun;

static int cmp_irun(const void *a, const void *b)
{
    const irun *x = a, *y = b;
    return x->r.from < y->r.from ? -1 : x->r.from > y->r.from;
}

/* Universal run selection (lsm/universal.h) over the connected runs
 * v[0..n) of one shard, sized by logical row counts, newest (highest row
 * ids) first: the selected runs are marked; a single run is never
 * selected alone. */
static pm_error *select_runs(const pm_gi_column *g, irun *v, size_t n)
{
    if (n < 2 || n < (size_t)g->policy.trigger)
        return NULL;
    pm_sorted_run *runs = NULL;
    PM_TRY(pm_calloc(&runs, n, sizeof *runs));
    for (size_t i = 0; i < n; i++) {
        const irun *x = &v[n - 1 - i];
        runs[i] = (pm_sorted_run){(int32_t)i + 1, x->r.to - x->r.from + 1, 1};
    }
    pm_universal_opts uo;
    memset(&uo, 0, sizeof uo);
    uo.max_size_amp = g->policy.max_amplification;
    uo.size_ratio = g->policy.size_ratio;
    uo.run_trigger = g->policy.trigger;
    uo.offpeak_start = -1;
    uo.offpeak_end = -1;
    pm_pick_clock clock = {0};
    pm_compact_unit u = {0};
    pm_error *e = pm_universal_pick(&uo, (int32_t)n + 1, runs, n, &clock, &u);
    if (!e && u.has && u.nruns >= 2)
        for (size_t i = 0; i < u.nruns; i++)
            v[n - 1 - i].selected = true;
    pm_compact_unit_clear(&u);
    free(runs);
    return e;
}

/* Plan and build column g in bucket b: retire payloads that no longer fit
 * (another family, a range crossing a shard boundary, rows no longer
 * there), build the missing pieces, and consolidate runs the universal
 * selection picks (rebuilt together from current data). */
static pm_error *build_bucket_column(round_state *s, const pm_bucket_files *b, pm_de_group **sorted, size_t ng,
                                     const pm_gi_column *g)
{
    ranges data = {0}, cov = {0}, missing = {0};
    irun *runs = NULL;
    size_t nruns = 0;
    pm_error *e = NULL;
    const int64_t S = g->rows_per_shard;
    for (size_t k = 0; k < ng && !e; k++)
        if (sorted[k]->has_first_row_id && sorted[k]->row_count > 0)
            e = ranges_push(&data, sorted[k]->first_row_id, sorted[k]->first_row_id + sorted[k]->row_count - 1);
    if (e)
        goto done;
    ranges_merge(&data);
    pm_gi_stale stale;
    e = pm_gi_stale_find(s->t, g->field_id, &stale);
    for (size_t i = 0; i < b->nindex_entries && !e; i++) {
        const pm_index_manifest_entry *ie = &b->index_entries[i];
        const pm_global_index_meta *gm = &ie->index_file.global_index;
        pm_gi_family fam;
        if (ie->kind != PM_FILE_ADD || !ie->index_file.has_global_index || gm->index_field_id != g->field_id)
            continue;
        bool inside = false;
        for (size_t d = 0; d < data.n && !inside; d++)
            inside = data.r[d].from <= gm->row_range_start && gm->row_range_end <= data.r[d].to;
        if (!pm_gi_family_parse(ie->index_file.index_type, &fam) || fam != g->family || !inside ||
            gm->row_range_start / S != gm->row_range_end / S || pm_gi_stale_has(&stale, ie->index_file.file_name)) {
            /* incompatible, rows removed, a shard-boundary change, or built under another column type */
            e = retire(s, b, ie);
            continue;
        }
        e = ranges_push(&cov, gm->row_range_start, gm->row_range_end);
    }
    pm_gi_stale_clear(&stale);
    if (e)
        goto done;
    /* runs: the distinct existing ranges, then the missing pieces */
    if (cov.n)
        qsort(cov.r, cov.n, sizeof *cov.r, pm_gi_range_cmp);
    for (size_t i = 0; i < cov.n && !e; i++) {
        if (nruns && runs[nruns - 1].r.from == cov.r[i].from && runs[nruns - 1].r.to == cov.r[i].to)
            continue; /* another payload file of the same range */
        if ((e = pm_realloc_array(&runs, nruns + 1, sizeof *runs)))
            break;
        runs[nruns++] = (irun){cov.r[i], false, false};
    }
    ranges merged = {0};
    for (size_t i = 0; i < cov.n && !e; i++)
        e = ranges_push(&merged, cov.r[i].from, cov.r[i].to);
    if (!e) {
        ranges_merge(&merged);
        e = ranges_minus_cut(&data, &merged, S, &missing);
    }
    ranges_free(&merged);
    for (size_t i = 0; i < missing.n && !e; i++) {
        if ((e = pm_realloc_array(&runs, nruns + 1, sizeof *runs)))
            break;
        runs[nruns++] = (irun){missing.r[i], true, false};
    }
    if (e)
        goto done;
    if (nruns)
        qsort(runs, nruns, sizeof *runs, cmp_irun);
    /* groups: one shard, no holes */
    for (size_t i = 0; i < nruns && !e;) {
        size_t j = i + 1;
        while (j < nruns && runs[j].r.from == runs[j - 1].r.to + 1 && runs[j].r.from / S == runs[i].r.from / S)
            j++;
        e = select_runs(g, runs + i, j - i);
        if (e)
            break;
        /* selected runs: one rebuild of their union (they are adjacent) */
        pm_gi_range u = {0, -1};
        for (size_t k = i; k < j; k++) {
            if (!runs[k].selected)
                continue;
            if (u.to < u.from)
                u = runs[k].r;
            else
                u.to = runs[k].r.to;
            if (!runs[k].missing)
                for (size_t x = 0; x < b->nindex_entries && !e; x++) {
                    const pm_index_manifest_entry *ie = &b->index_entries[x];
                    const pm_global_index_meta *gm = &ie->index_file.global_index;
                    if (ie->kind == PM_FILE_ADD && ie->index_file.has_global_index &&
                        gm->index_field_id == g->field_id && gm->row_range_start == runs[k].r.from &&
                        gm->row_range_end == runs[k].r.to)
                        e = retire(s, b, ie);
                }
        }
        if (!e && u.to >= u.from)
            e = build_range(s, b, sorted, ng, g, u);
        for (size_t k = i; k < j && !e; k++)
            if (runs[k].missing && !runs[k].selected)
                e = build_range(s, b, sorted, ng, g, runs[k].r);
        i = j;
    }
done:
    free(runs);
    ranges_free(&data);
    ranges_free(&cov);
    ranges_free(&missing);
    if (e)
        e = pm_error_wrap(e, 0, "global index of column %s", g->column);
    return e;
}

static pm_error *plan_and_build(round_state *s, const char *only)
{
    pm_scan_options so;
    memset(&so, 0, sizeof so);
    so.bucket = PM_SCAN_ALL_BUCKETS;
    PM_TRY(pm_table_scan(s->t, &so, &s->scan));
    if (!s->scan->snapshot)
        return NULL;
    const pm_schema *sc = pm_table_schema(s->t);
    s->schema_id = sc->id;
    bool de = false;
    PM_TRY(pm_options_bool(sc->options, PM_OPT_DATA_EVOLUTION_ENABLED, &de));
    for (size_t bi = 0; bi < s->scan->nbuckets; bi++) {
        const pm_bucket_files *b = &s->scan->buckets[bi];
        pm_de_group *g = NULL;
        size_t ng = 0;
        PM_TRY(de ? pm_de_plan_groups(b->files, b->nfiles, &g, &ng) : pm_de_single_groups(b->files, b->nfiles, &g, &ng));
        pm_de_group **sorted = NULL;
        pm_error *e = pm_calloc(&sorted, ng ? ng : 1, sizeof *sorted);
        for (size_t k = 0; !e && k < ng; k++)
            sorted[k] = &g[k];
        if (!e)
            qsort(sorted, ng, sizeof *sorted, cmp_group);
        for (size_t c = 0; !e && c < s->decls.n; c++)
            if (!only || !strcmp(only, s->decls.cols[c].column))
                e = build_bucket_column(s, b, sorted, ng, &s->decls.cols[c]);
        free(sorted);
        pm_de_groups_free(g, ng);
        PM_TRY(e);
    }
    return NULL;
}

/* ---------------------------------------------------------------- */
/* commit                                                            */

static bool same_partition(const pm_bytes *a, const pm_bytes *b)
{
    return a->len == b->len && (!a->len || !memcmp(a->data, b->data, a->len));
}

static bool retired_here(const round_state *s, const char *name)
{
    for (size_t m = 0; m < s->nmsgs; m++)
        for (size_t i = 0; i < s->msgs[m].n_index_removed; i++)
            if (!strcmp(s->msgs[m].index_removed[i].index_file.file_name, name))
                return true;
    return false;
}

/* A live data file f that the round did not read and that writes column
 * bu's field in rows of bu's range (a column update committed meanwhile):
 * the built payload would be stale, so replan. */
static pm_error *check_new_file(const round_state *s, const built *bu, const pm_data_file_meta *f)
{
    if (!f->first_row_id.has || f->row_count <= 0)
        return NULL;
    int64_t from = f->first_row_id.v, to = from + f->row_count - 1;
    if (from > bu->range.to || to < bu->range.from)
        return NULL;
    for (size_t r = 0; r < s->nread; r++)
        if (!strcmp(s->read_files[r], f->file_name))
            return NULL;
    const pm_gi_column *g = pm_gi_decls_find(&s->decls, bu->field_id);
    bool writes = !f->has_write_cols || !g;
    for (size_t c = 0; !writes && c < f->write_cols.count; c++)
        writes = !strcmp(f->write_cols.items[c], g->column);
    if (!writes)
        return NULL;
    return pm_error_new(PM_ECONFLICT, "data file %s committed meanwhile writes column %s of row ids [%" PRId64
                        ", %" PRId64 "] a global index was built for: replan", f->file_name, g ? g->column : "?",
                        from, to);
}

static pm_error *validate(void *arg, const pm_snapshot *latest, const pm_scan_result *live)
{
    round_state *s = arg;
    if (!latest || latest->id == s->scan->snapshot->id)
        return NULL;
    if (latest->schema_id != s->schema_id)
        return pm_error_new(PM_ECONFLICT, "the schema changed while global indexes were built: replan");
    for (size_t i = 0; i < s->nread; i++) {
        bool found = false;
        for (size_t bi = 0; bi < live->nbuckets && !found; bi++)
            for (size_t f = 0; f < live->buckets[bi].nfiles && !found; f++)
                found = !strcmp(live->buckets[bi].files[f].file_name, s->read_files[i]);
        if (!found)
            return pm_error_new(PM_ECONFLICT, "data file %s read for a global index is no longer live: replan",
                                s->read_files[i]);
    }
    for (size_t k = 0; k < s->nbuilt; k++) {
        const built *bu = &s->built[k];
        for (size_t bi = 0; bi < live->nbuckets; bi++) {
            const pm_bucket_files *lb = &live->buckets[bi];
            if (lb->bucket != bu->b->bucket || !same_partition(&lb->partition, &bu->b->partition))
                continue;
            for (size_t i = 0; i < lb->nindex_entries; i++) {
                const pm_index_file_meta *f = &lb->index_entries[i].index_file;
                if (retired_here(s, f->file_name))
                    continue; /* this round retires it */
                if (f->has_global_index && f->global_index.index_field_id == bu->field_id &&
                    f->global_index.row_range_start <= bu->range.to && f->global_index.row_range_end >= bu->range.from)
                    return pm_error_new(PM_ECONFLICT, "global index file %s now covers row ids [%" PRId64 ", %" PRId64
                                        "]: replan", f->file_name, bu->range.from, bu->range.to);
            }
            for (size_t i = 0; i < lb->nfiles; i++)
                PM_TRY(check_new_file(s, bu, &lb->files[i]));
        }
    }
    return NULL;
}

pm_error *pm_gi_maint_declared(pm_table *t, bool *declared)
{
    const pm_schema *sc = pm_table_schema(t);
    pm_gi_decls d;
    PM_TRY(pm_gi_decls_resolve(sc->options, sc->row_type, &d));
    *declared = d.n > 0;
    pm_gi_decls_clear(&d);
    return NULL;
}

pm_error *pm_gi_maintain(pm_table *t, const pm_gi_maint_options *o, pm_gi_maint_result *out)
{
    memset(out, 0, sizeof *out);
    pm_gi_maint_options def = {0};
    if (!o)
        o = &def;
    int32_t retries = 10;
    bool present;
    PM_TRY(pm_options_int(pm_table_options(t), PM_OPT_COMMIT_MAX_RETRIES, &present, &retries));
    for (int32_t attempt = 0;; attempt++) {
        bool changed = false;
        PM_TRY(pm_table_reload(t, &changed));
        const pm_schema *sc = pm_table_schema(t);
        round_state s;
        memset(&s, 0, sizeof s);
        s.t = t;
        PM_TRY(pm_table_gi_external_root(sc->options, &s.gi_root, &s.gi_dir));
        pm_error *e = pm_gi_decls_resolve(sc->options, sc->row_type, &s.decls);
        if (e) {
            round_clear(&s, false);
            return e;
        }
        e = pm_gi_decls_check_table(&s.decls, sc->options, sc->primary_keys.count);
        if (!e && sc->primary_keys.count && s.decls.n)
            e = pm_error_new(PM_EUNSUPPORTED, "the global indexes of primary-key table %s are source-backed: data "
                             "compaction maintains them (paimon compact), not an index round", t->path);
        if (!e && o->column && !pm_gi_decls_find_name(&s.decls, o->column))
            e = pm_error_new(PM_EINVALID, "column %s has no global index declaration "
                             "(global-index.<type>.index-columns)", o->column);
        if (!e && o->commit_user && o->commit_identifier) {
            int64_t found = 0;
            e = pm_table_commit_find(t, o->commit_user, o->commit_identifier, o->since_snapshot_id, &found);
            if (!e && found) {
                out->snapshot_id = found; /* already published by an earlier run */
                round_clear(&s, false);
                return NULL;
            }
        }
        if (!e && s.decls.n)
            e = plan_and_build(&s, o->column);
        if (e) {
            round_clear(&s, true);
            return e;
        }
        if (!s.nmsgs) {
            round_clear(&s, false);
            return NULL; /* complete coverage: nothing to publish */
        }
        pm_commit_options co;
        memset(&co, 0, sizeof co);
        co.commit_user = o->commit_user;
        co.commit_identifier = o->commit_identifier ? o->commit_identifier : PM_BATCH_COMMIT_IDENTIFIER;
        co.kind = PM_COMMIT_APPEND;
        co.since_snapshot_id = o->since_snapshot_id;
        co.validate = validate;
        co.validate_arg = &s;
        int64_t sid = 0;
        e = pm_table_commit(t, &co, s.msgs, s.nmsgs, &sid);
        if (!e) {
            *out = s.res;
            out->snapshot_id = sid;
            round_clear(&s, false);
            return NULL;
        }
        bool uncertain = pm_error_code(e) == PM_EUNCERTAIN;
        round_clear(&s, !uncertain);
        if (pm_error_code(e) != PM_ECONFLICT || attempt >= retries)
            return pm_error_wrap(e, 0, "global index maintenance");
        pm_log(PM_LOG_INFO, "global-index", "maintenance: %s; replanning", pm_error_message(e));
        pm_error_free(e);
    }
}
