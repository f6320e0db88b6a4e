/*
 * meta/manifest_file_merger.c — ManifestFileMerger (contract in
 * manifest_file_merger.h).
 *
 * Steps of pm_manifest_file_merger_merge: read the three options; full
 * compaction (full_merge: collect DELETE entries of the inputs, the
 * identifier set of the deleted files, the PartitionPredicate of their
 * partitions — per partition field the smallest and largest value and the
 * count of nulls, tested against a manifest's partition min/max/null
 * stats as Java's LeafPredicate does — then gather the surviving ADD
 * entries and write them); when it does not apply, minor compaction
 * (minor_merge: runs reaching the target size and a long enough tail,
 * each read through pm_manifest_read_merged and rewritten).
 */
#include "meta/manifest_file_merger.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "meta/manifest.h"
#include "types/binary_row.h"

static bool part_eq(const pm_bytes *a, const pm_bytes *b)
{
    return a->len == b->len && (!a->len || !memcmp(a->data, b->data, a->len));
}

/* ------------------------------------------------------------------ */
/* typed comparison of BinaryRow fields (partition predicate)          */

static int cmp_field(const pm_type *t, const pm_binrow *a, int32_t i, const pm_binrow *b, int32_t j, pm_error **e)
{
    switch (t->id) {
    case PM_TYPE_BOOLEAN: return (int)pm_binrow_bool(a, i) - (int)pm_binrow_bool(b, j);
    case PM_TYPE_TINYINT: return (pm_binrow_i8(a, i) > pm_binrow_i8(b, j)) - (pm_binrow_i8(a, i) < pm_binrow_i8(b, j));
    case PM_TYPE_SMALLINT:
        return (pm_binrow_i16(a, i) > pm_binrow_i16(b, j)) - (pm_binrow_i16(a, i) < pm_binrow_i16(b, j));
    case PM_TYPE_INT:
    case PM_TYPE_DATE:
    case PM_TYPE_TIME:
        return (pm_binrow_i32(a, i) > pm_binrow_i32(b, j)) - (pm_binrow_i32(a, i) < pm_binrow_i32(b, j));
    case PM_TYPE_BIGINT:
        return (pm_binrow_i64(a, i) > pm_binrow_i64(b, j)) - (pm_binrow_i64(a, i) < pm_binrow_i64(b, j));
    case PM_TYPE_FLOAT:
    case PM_TYPE_DOUBLE: {
        double x = t->id == PM_TYPE_FLOAT ? pm_binrow_f32(a, i) : pm_binrow_f64(a, i);
        double y = t->id == PM_TYPE_FLOAT ? pm_binrow_f32(b, j) : pm_binrow_f64(b, j);
        return (x > y) - (x < y);
    }
    case PM_TYPE_DECIMAL: {
        __int128 x = 0, y = 0;
        if (!*e)
            *e = pm_binrow_decimal(a, i, t->precision, &x);
        if (!*e)
            *e = pm_binrow_decimal(b, j, t->precision, &y);
        return (x > y) - (x < y);
    }
    case PM_TYPE_TIMESTAMP:
    case PM_TYPE_TIMESTAMP_LTZ: {
        int64_t xm = 0, ym = 0;
        int32_t xn = 0, yn = 0;
        if (!*e)
            *e = pm_binrow_timestamp(a, i, t->precision, &xm, &xn);
        if (!*e)
            *e = pm_binrow_timestamp(b, j, t->precision, &ym, &yn);
        if (xm != ym)
            return xm < ym ? -1 : 1;
        return (xn > yn) - (xn < yn);
    }
    default: {
        const uint8_t *x = NULL, *y = NULL;
        size_t xn = 0, yn = 0;
        if (!*e)
            *e = pm_binrow_bytes(a, i, &x, &xn);
        if (!*e)
            *e = pm_binrow_bytes(b, j, &y, &yn);
        if (*e)
            return 0;
        size_t n = xn < yn ? xn : yn;
        int c = n ? memcmp(x, y, n) : 0;
        if (c)
            return c < 0 ? -1 : 1;
        return (xn > yn) - (xn < yn);
    }
    }
}

/* PartitionPredicate.fromMultiple(partitions).test(stats of a manifest). */
typedef struct part_pred {
    const pm_type *type;
    size_t nparts;
    pm_binrow *parts;       /* borrowed rows */
    int64_t *nulls;         /* per field: partitions with null */
    size_t *min_of, *max_of; /* per field: index of the partition holding min / max */
} part_pred;

static void part_pred_free(part_pred *p)
{
    free(p->parts);
    free(p->nulls);
    free(p->min_of);
    free(p->max_of);
    memset(p, 0, sizeof *p);
}

static pm_error *part_pred_init(part_pred *p, const pm_type *type, const pm_bytes *const *parts, size_t n)
{
    memset(p, 0, sizeof *p);
    p->type = type;
    p->nparts = n;
    size_t nf = type->nfields ? type->nfields : 1;
    PM_TRY(pm_calloc(&p->parts, n ? n : 1, sizeof *p->parts));
    PM_TRY(pm_calloc(&p->nulls, nf, sizeof *p->nulls));
    PM_TRY(pm_calloc(&p->min_of, nf, sizeof *p->min_of));
    PM_TRY(pm_calloc(&p->max_of, nf, sizeof *p->max_of));
    for (size_t k = 0; k < n; k++)
        PM_TRY(pm_binrow_deserialize(&p->parts[k], parts[k]->data, parts[k]->len, (int32_t)type->nfields));
    pm_error *e = NULL;
    for (size_t f = 0; f < type->nfields; f++) {
        bool have = false;
        for (size_t k = 0; k < n && !e; k++) {
            int32_t i = (int32_t)f;
            if (pm_binrow_is_null(&p->parts[k], i)) {
                p->nulls[f]++;
                continue;
            }
            const pm_type *ft = type->fields[f].type;
            if (!have) {
                p->min_of[f] = p->max_of[f] = k;
                have = true;
                continue;
            }
            if (cmp_field(ft, &p->parts[k], i, &p->parts[p->min_of[f]], i, &e) < 0)
                p->min_of[f] = k;
            if (cmp_field(ft, &p->parts[k], i, &p->parts[p->max_of[f]], i, &e) > 0)
                p->max_of[f] = k;
        }
    }
    return e;
}

/* LeafPredicate.test on stats: kind 0 = isNull, 1 = field >= lit (max), 2 = field <= lit (min). */
static bool leaf_test(int kind, const pm_type *ft, int32_t i, int64_t row_count, const pm_binrow *mn,
                      const pm_binrow *mx, const pm_simple_stats *st, const pm_binrow *lit, pm_error **e)
{
    bool has_nc = (size_t)i < st->null_count_len && st->null_counts[i].has;
    int64_t nc = has_nc ? st->null_counts[i].v : 0;
    bool min_null = pm_binrow_is_null(mn, i), max_null = pm_binrow_is_null(mx, i);
    if (!has_nc || row_count != nc) {
        if (min_null || max_null)
            return true;
    }
    if (kind == 0)
        return !has_nc || nc > 0;
    if (has_nc && row_count == nc)
        return false;
    if (kind == 1)
        return cmp_field(ft, lit, i, mx, i, e) <= 0;
    return cmp_field(ft, lit, i, mn, i, e) >= 0;
}

static bool part_pred_test(const part_pred *p, const pm_manifest_file_meta *m, pm_error **e)
{
    size_t nf = p->type->nfields;
    if (nf == 0)
        return true;
    pm_binrow mn, mx;
    const pm_simple_stats *st = &m->partition_stats;
    if (pm_binrow_deserialize(&mn, st->min_values.data, st->min_values.len, (int32_t)nf) ||
        pm_binrow_deserialize(&mx, st->max_values.data, st->max_values.len, (int32_t)nf))
        return true; /* unknown stats: may match (errors are not fatal here) */
    int64_t rows = m->num_added_files + m->num_deleted_files;
    for (size_t f = 0; f < nf; f++) {
        const pm_type *ft = p->type->fields[f].type;
        int32_t i = (int32_t)f;
        bool tmin, tmax;
        if ((size_t)p->nulls[f] == p->nparts) {
            tmin = tmax = leaf_test(0, ft, i, rows, &mn, &mx, st, NULL, e);
        } else {
            tmin = leaf_test(1, ft, i, rows, &mn, &mx, st, &p->parts[p->min_of[f]], e);
            tmax = leaf_test(2, ft, i, rows, &mn, &mx, st, &p->parts[p->max_of[f]], e);
            if (p->nulls[f] > 0) {
                bool isnull = leaf_test(0, ft, i, rows, &mn, &mx, st, NULL, e);
                tmin = tmin || isnull;
                tmax = tmax || isnull;
            }
        }
        if (!tmin || !tmax)
            return false;
    }
    return true;
}

/* ------------------------------------------------------------------ */
/* merging                                                             */

typedef struct meta_list {
    pm_manifest_file_meta *v;
    size_t n, cap;
} meta_list;

static void meta_list_free(meta_list *l)
{
    pm_manifest_file_metas_free(l->v, l->n);
    memset(l, 0, sizeof *l);
}

static pm_error *meta_list_push(meta_list *l, const pm_manifest_file_meta *m)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        PM_TRY(pm_realloc_array(&l->v, cap, sizeof *l->v));
        l->cap = cap;
    }
    PM_TRY(pm_manifest_file_meta_copy(&l->v[l->n], m));
    l->n++;
    return NULL;
}

static pm_error *meta_list_take(meta_list *l, pm_manifest_file_meta *m, size_t n)
{
    pm_error *e = NULL;
    for (size_t i = 0; i < n && !e; i++)
        e = meta_list_push(l, &m[i]);
    pm_manifest_file_metas_free(m, n);
    return e;
}

/* Write entries as new manifests, telling the caller each file name. */
static pm_error *write_manifests(const pm_manifest_merge_ctx *c, const pm_manifest_entry *e, size_t n,
                                 pm_manifest_file_meta **metas, size_t *nmetas)
{
    PM_TRY(pm_manifest_write(c->fio, c->paths, c->options, c->partition_type, c->schema_id, e, n, metas,
                             nmetas));
    for (size_t i = 0; i < *nmetas && c->written; i++) {
        pm_error *err = c->written(c->written_arg, (*metas)[i].file_name);
        if (!err)
            continue;
        for (size_t k = i; k < *nmetas; k++) { /* not reported: not left behind */
            char *p = NULL;
            if (!pm_path_factory_manifest_path(c->paths, (*metas)[k].file_name, &p))
                pm_error_free(pm_fileio_delete(c->fio, p));
            free(p);
        }
        return err;
    }
    return NULL;
}

static pm_error *merge_candidates(const pm_manifest_merge_ctx *c, const pm_manifest_file_meta *cand, size_t n,
                                  meta_list *out)
{
    if (n == 1)
        return meta_list_push(out, &cand[0]);
    pm_manifest_entry *entries = NULL;
    size_t count = 0;
    PM_TRY(pm_manifest_read_merged(c->fio, c->paths, cand, n, &entries, &count));
    pm_manifest_file_meta *metas = NULL;
    size_t nmetas = 0;
    pm_error *e = count ? write_manifests(c, entries, count, &metas, &nmetas) : NULL;
    pm_manifest_entries_free(entries, count);
    if (!e)
        e = meta_list_take(out, metas, nmetas);
    else
        pm_manifest_file_metas_free(metas, nmetas);
    return e;
}

static pm_error *minor_merge(const pm_manifest_merge_ctx *c, const pm_manifest_file_meta *in, size_t n,
                             int64_t target, int32_t min_count, meta_list *out)
{
    size_t start = 0;
    int64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        total += in[i].file_size;
        if (total >= target) {
            PM_TRY(merge_candidates(c, in + start, i + 1 - start, out));
            start = i + 1;
            total = 0;
        }
    }
    if (n - start >= (size_t)min_count && n > start)
        return merge_candidates(c, in + start, n - start, out);
    for (size_t i = start; i < n; i++)
        PM_TRY(meta_list_push(out, &in[i]));
    return NULL;
}

static pm_error *read_manifest(const pm_manifest_merge_ctx *c, const pm_manifest_file_meta *m,
                               pm_manifest_entry **out, size_t *n)
{
    char *p = NULL;
    PM_TRY(pm_path_factory_manifest_path(c->paths, m->file_name, &p));
    pm_error *e = pm_manifest_read(c->fio, p, out, n);
    free(p);
    return e;
}

/* *done=false when full compaction does not apply (then minor merge runs). */
static pm_error *full_merge(const pm_manifest_merge_ctx *c, const pm_manifest_file_meta *in, size_t n,
                            int64_t target, int64_t threshold, meta_list *out, bool *done)
{
    *done = false;
    int64_t delta_size = 0;
    for (size_t i = 0; i < n; i++)
        if (in[i].num_deleted_files > 0 || in[i].file_size < target)
            delta_size += in[i].file_size;
    if (delta_size < threshold)
        return NULL;

    pm_error *e = NULL;
    pm_manifest_entry_list deletes = {0};   /* DELETE entries of every input (moved out of them) */
    pm_manifest_ident_set del = {0};
    part_pred pred = {0};
    const pm_bytes **parts = NULL;
    size_t nparts = 0;
    bool *merge_it = NULL;      /* file goes through the merge loop */
    pm_manifest_entry_list kept = {0};
    meta_list result = {0};
    PM_TRY_GOTO(e, pm_calloc(&merge_it, n ? n : 1, sizeof *merge_it), done_);
    for (size_t i = 0; i < n && !e; i++) {
        if (!in[i].num_deleted_files)
            continue;
        pm_manifest_entry *en = NULL;
        size_t cnt = 0;
        e = read_manifest(c, &in[i], &en, &cnt);
        for (size_t k = 0; k < cnt && !e; k++)
            if (en[k].kind == PM_FILE_DELETE)
                e = pm_manifest_entry_list_take(&deletes, &en[k]);
        pm_manifest_entries_free(en, cnt);
    }
    for (size_t k = 0; k < deletes.n && !e; k++)
        e = pm_manifest_ident_set_add(&del, &deletes.v[k]);
    if (e)
        goto done_;
    /* partitions of the deletes, for the predicate */
    bool always_false = deletes.n == 0;
    bool always_true = !always_false && c->partition_type->nfields == 0;
    if (!always_false && !always_true) {
        PM_TRY_GOTO(e, pm_calloc(&parts, deletes.n, sizeof *parts), done_);
        for (size_t k = 0; k < deletes.n; k++) {
            bool seen = false;
            for (size_t q = 0; q < nparts && !seen; q++)
                seen = part_eq(parts[q], &deletes.v[k].partition);
            if (!seen)
                parts[nparts++] = &deletes.v[k].partition;
        }
        PM_TRY_GOTO(e, part_pred_init(&pred, c->partition_type, parts, nparts), done_);
    }
    size_t nmerge = 0;
    for (size_t i = 0; i < n; i++) {
        bool must = in[i].num_deleted_files > 0 || in[i].file_size < target;
        bool may = must || always_true;
        if (!must && !always_false && !always_true) {
            may = part_pred_test(&pred, &in[i], &e);
            if (e)
                goto done_;
        }
        merge_it[i] = may;
        if (!may)
            PM_TRY_GOTO(e, meta_list_push(&result, &in[i]), done_);
        else
            nmerge++;
    }
    if (nmerge <= 1)
        goto done_; /* not done: minor merge decides */
    for (size_t i = 0; i < n && !e; i++) {
        if (!merge_it[i])
            continue;
        bool require = in[i].num_deleted_files > 0 || in[i].file_size < target;
        pm_manifest_entry *en = NULL;
        size_t cnt = 0;
        e = read_manifest(c, &in[i], &en, &cnt);
        size_t mark = kept.n;
        for (size_t k = 0; k < cnt && !e; k++) {
            if (en[k].kind != PM_FILE_ADD)
                continue;
            if (pm_manifest_ident_set_has(&del, &en[k]))
                require = true;
            else
                e = pm_manifest_entry_list_take(&kept, &en[k]);
        }
        pm_manifest_entries_free(en, cnt);
        if (!e && !require) {
            /* unchanged: keep the file, drop its entries again */
            while (kept.n > mark)
                pm_manifest_entry_clear(&kept.v[--kept.n]);
            e = meta_list_push(&result, &in[i]);
        }
    }
    if (!e && kept.n) {
        pm_manifest_file_meta *metas = NULL;
        size_t nmetas = 0;
        e = write_manifests(c, kept.v, kept.n, &metas, &nmetas);
        if (!e)
            e = meta_list_take(&result, metas, nmetas);
        else
            pm_manifest_file_metas_free(metas, nmetas);
    }
    if (!e) {
        *out = result;
        memset(&result, 0, sizeof result);
        *done = true;
    }
done_:
    meta_list_free(&result);
    pm_manifest_entry_list_free(&kept);
    free(merge_it);
    free(parts);
    part_pred_free(&pred);
    pm_manifest_ident_set_free(&del);
    pm_manifest_entry_list_free(&deletes);
    return e;
}

pm_error *pm_manifest_file_merger_merge(const pm_manifest_merge_ctx *c, const pm_manifest_file_meta *in, size_t n,
                                        pm_manifest_file_meta **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    const pm_options *o = c->options;
    int64_t target, threshold;
    int32_t min_count;
    PM_TRY(pm_options_memory(o, PM_OPT_MANIFEST_TARGET_FILE_SIZE, NULL, &target));
    PM_TRY(pm_options_memory(o, PM_OPT_MANIFEST_FULL_COMPACTION_THRESHOLD_SIZE, NULL, &threshold));
    PM_TRY(pm_options_int(o, PM_OPT_MANIFEST_MERGE_MIN_COUNT, NULL, &min_count));
    if (threshold <= 0)
        return pm_error_new(PM_EINVALID, "manifest.full-compaction-threshold-size must be positive");
    meta_list res = {0};
    bool done = false;
    pm_error *e = full_merge(c, in, n, target, threshold, &res, &done);
    if (!e && !done)
        e = minor_merge(c, in, n, target, min_count, &res);
    if (e) {
        meta_list_free(&res);
        return pm_error_wrap(e, 0, "merge manifests");
    }
    *out = res.v;
    *nout = res.n;
    return NULL;
}
