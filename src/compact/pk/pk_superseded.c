/*
 * compact/pk/pk_superseded.c — the superseded stretches of a section's
 * input files (pk_exec.h), found before the section is merged so that the
 * merge never decompresses the pages of records whose values no output
 * row takes.
 *
 * Pre-pass: one source per sorted run reading only the key fields and the
 * `sequence.field` columns (with _SEQUENCE_NUMBER, _VALUE_KIND and each
 * row's _POS and _FILE: the file's index in the section, runs in order;
 * without ignore-delete, when any two key-overlapping files of different
 * runs have disjoint sequence ranges, the system columns are not read:
 * each row takes its file's max sequence number, which orders a key's
 * records the same way),
 * merged in the merge's order (lsm/merge_reader.h, passes through the
 * spill like the real merge; for one INT or BIGINT key with the system
 * columns not read, the direct scan of pk_prepass_scan.c instead, which
 * compares the key values themselves and passes over lone stretches
 * without a merge step).  Per key group the record the deduplicate
 * engine keeps (pm_pk_pass_through: the last one, or the last that is not
 * an ignored retract) is the winner; every other record is superseded.
 * Per file, consecutive superseded rows (in file order: a run's records
 * come out in order) grow a stretch; stretches of at least
 * PM_PK_SKIP_MIN rows are kept as [start, end) ranges in file rows.
 * Lone records and runs of them are nothing superseded.
 * The real merge (pk_source.c) passes over a range when its file reader
 * stands in it (pm_file_reader_skip: Parquet pages wholly inside it are
 * never decompressed).  Correctness does not depend on the ranges being
 * complete: a superseded record that is read anyway loses to its winner
 * again, and a winner is never inside a range.
 * Only where a superseded record's values are never read: the
 * deduplicate engine in reducer mode (plain sections, no lookup, no
 * full-compaction changelog: pk_rewrite.c decides).  Partial-update and
 * aggregation fold every version of a key, first-row runs in lookup mode:
 * they read every record as before.
 * Memory: the pre-pass merge holds key-only batches (within half the
 * task's budget like the real merge, which opens after it is freed); the
 * ranges are 16 bytes per stretch of at least PM_PK_SKIP_MIN rows.
 * Off with compaction.pk.skip-superseded=false (paimon-c's own key).
 */
#include <stdlib.h>
#include <string.h>

#include "base/fault.h"
#include "base/mem.h"
#include "compact/pk/pk_exec.h"

void pm_pk_skips_free(pm_pk_file_skips *s, size_t n)
{
    if (!s)
        return;
    for (size_t i = 0; i < n; i++)
        free(s[i].r);
    free(s);
}

pm_error *pm_pk_skips_mark(pm_pk_file_skips *f, int64_t pos)
{
    if (f->cur_end == pos && f->cur_end > f->cur_start) {
        f->cur_end++;
        return NULL;
    }
    if (f->cur_end - f->cur_start >= PM_PK_SKIP_MIN) {
        if (f->n == f->cap) {
            size_t cap = f->cap ? 2 * f->cap : 8;
            PM_TRY(pm_realloc_array(&f->r, cap, sizeof *f->r));
            f->cap = cap;
        }
        /* a run's records come in file order: stretches never overlap */
        f->r[f->n++] = (pm_pk_skip){f->cur_start, f->cur_end};
    }
    f->cur_start = pos;
    f->cur_end = pos + 1;
    return NULL;
}

/* The pre-pass read type (key fields, then sequence fields not among
 * them), its merge type with _POS and _FILE, and the layout over it. */
static pm_error *prepass_types(const pm_pk_exec *x, pm_type **fields, pm_type **type, pm_kv_layout *l)
{
    const pm_type *rt = x->schema->row_type;
    const pm_kv_layout *in = &x->in_layout;
    pm_type *ft = pm_type_new_row(false);
    if (!ft)
        return pm_oom();
    size_t *kc = NULL, *sc = NULL;
    pm_error *e = pm_calloc(&kc, in->nkey ? in->nkey : 1, sizeof *kc);
    if (!e)
        e = pm_calloc(&sc, in->nseqf ? in->nseqf : 1, sizeof *sc);
    /* column c of the input type (2 + field) → column of the pre-pass type */
    for (size_t k = 0; !e && k < in->nkey; k++) {
        const pm_field *f = &rt->fields[in->key_cols[k] - 2];
        e = pm_pk_add_field(ft, f->id, f->name, pm_type_clone(f->type));
        kc[k] = 2 + k;
    }
    for (size_t i = 0; !e && i < in->nseqf; i++) {
        size_t at = SIZE_MAX;
        for (size_t k = 0; k < in->nkey && at == SIZE_MAX; k++)
            if (in->key_cols[k] == in->seqf_cols[i])
                at = 2 + k;
        for (size_t j = 0; j < i && at == SIZE_MAX; j++)
            if (in->seqf_cols[j] == in->seqf_cols[i])
                at = sc[j];
        if (at == SIZE_MAX) {
            const pm_field *f = &rt->fields[in->seqf_cols[i] - 2];
            e = pm_pk_add_field(ft, f->id, f->name, pm_type_clone(f->type));
            at = 2 + ft->nfields - 1;
        }
        sc[i] = at;
    }
    pm_type *t = NULL;
    if (!e)
        e = pm_pk_system_type(ft, &t);
    if (!e)
        e = pm_pk_add_field(t, PM_PK_POS_ID, "_POS", pm_type_new(PM_TYPE_BIGINT, false));
    if (!e)
        e = pm_pk_add_field(t, PM_PK_FILE_ID, "_FILE", pm_type_new(PM_TYPE_INT, false));
    if (!e)
        e = pm_kv_layout_init(l, kc, in->nkey, 0, 1, NULL, 0);
    if (!e && in->nseqf)
        e = pm_kv_layout_set_seq_fields(l, sc, in->nseqf, in->seqf_descending);
    if (!e)
        e = pm_kv_layout_check(l, t);
    free(kc);
    free(sc);
    if (e) {
        pm_type_free(ft);
        pm_type_free(t);
        return e;
    }
    *fields = ft;
    *type = t;
    return NULL;
}

/* Whether the files' sequence ranges alone order every key's records:
 * any two files of different runs whose key ranges overlap have disjoint
 * sequence number ranges (level-0 files of successive commits do). */
static bool files_order_records(const pm_iv_section *sec, size_t nfiles)
{
    if (nfiles > 4096)
        return false; /* not worth the pairwise check */
    for (size_t i = 0; i < sec->nruns; i++)
        for (size_t j = i + 1; j < sec->nruns; j++)
            for (size_t a = 0; a < sec->runs[i].nfiles; a++)
                for (size_t b = 0; b < sec->runs[j].nfiles; b++) {
                    const pm_lsm_file *p = sec->runs[i].files[a], *q = sec->runs[j].files[b];
                    if (pm_kv_keycmp(p->max_key, p->max_len, q->min_key, q->min_len) < 0 ||
                        pm_kv_keycmp(q->max_key, q->max_len, p->min_key, p->min_len) < 0)
                        continue;
                    if (p->meta.max_sequence_number >= q->meta.min_sequence_number &&
                        q->meta.max_sequence_number >= p->meta.min_sequence_number)
                        return false;
                }
    return true;
}

/* One run source per sorted run of the section over the pre-pass type
 * (synthesized sequence numbers when synth); *nsrc = sources opened. */
static pm_error *open_sources(pm_pk_exec *x, const pm_iv_section *sec, const pm_type *fields, const pm_type *type,
                              bool synth, pm_kv_source *srcs, size_t *nsrc)
{
    *nsrc = 0;
    int32_t base = 0;
    for (size_t i = 0; i < sec->nruns; i++) {
        const pm_iv_run *run = &sec->runs[i];
        PM_TRY(pm_pk_run_source(x, fields, (const pm_lsm_file *const *)run->files, run->nfiles, false, type, base,
                                &srcs[*nsrc]));
        if (synth)
            pm_pk_run_source_synth_seq(&srcs[*nsrc]);
        (*nsrc)++;
        base += (int32_t)run->nfiles;
    }
    return NULL;
}

/* Whether the direct scan (pk_prepass_scan.c) applies: records ordered by
 * the files' sequence ranges, no sequence field, one INT or BIGINT key, its
 * batches (one per run, at most the merge fan-in of runs) within half the
 * budget; *wide = BIGINT. */
static bool scan_applies(const pm_pk_exec *x, const pm_type *type, const pm_kv_layout *l, bool synth, size_t nruns,
                         bool *wide)
{
    if (!synth || l->nseqf || l->nkey != 1 || nruns > PM_MERGE_MAX_FAN_IN || pm_fault("pk-prepass-merge"))
        return false;
    pm_type_id id = type->fields[l->key_cols[0]].type->id;
    if (id != PM_TYPE_BIGINT && id != PM_TYPE_INT)
        return false;
    *wide = id == PM_TYPE_BIGINT;
    /* key, _SEQUENCE_NUMBER, _VALUE_KIND, _POS, _FILE per row, and slack */
    uint64_t batch = (uint64_t)PM_PK_READ_ROWS * 40;
    return x->budget <= 0 || batch * nruns <= (uint64_t)x->budget / 2;
}

pm_error *pm_pk_superseded_find(pm_pk_exec *x, const pm_iv_section *sec, pm_pk_file_skips **out)
{
    *out = NULL;
    size_t nfiles = 0;
    for (size_t i = 0; i < sec->nruns; i++)
        nfiles += sec->runs[i].nfiles;
    if (sec->nruns < 2 || nfiles > INT32_MAX)
        return NULL;
    pm_type *fields = NULL, *type = NULL;
    pm_kv_layout l;
    memset(&l, 0, sizeof l);
    PM_TRY(prepass_types(x, &fields, &type, &l));
    pm_pk_file_skips *sk = NULL;
    pm_kv_source *srcs = NULL;
    size_t nsrc = 0;
    pm_merge_reader *mr = NULL;
    pm_error *e = pm_calloc(&sk, nfiles, sizeof *sk);
    if (!e)
        e = pm_calloc(&srcs, sec->nruns, sizeof *srcs);
    /* without ignore-delete the winner is the last record whatever its
     * kind: when the files' sequence ranges order the records, neither
     * system column is read */
    bool synth = !x->ignore_delete && files_order_records(sec, nfiles);
    size_t pos_col = type->nfields - 2, file_col = type->nfields - 1;
    bool wide = false, merge = true;
    if (!e && scan_applies(x, type, &l, synth, sec->nruns, &wide)) {
        e = open_sources(x, sec, fields, type, synth, srcs, &nsrc);
        bool declined = false;
        if (!e) {
            e = pm_pk_prepass_scan(srcs, nsrc, &l, pos_col, file_col, wide,
                                   x->budget > 0 ? (size_t)(x->budget / 2) : 0, sk, nfiles, &declined);
            nsrc = 0; /* the scan closes them, also on failure */
            merge = declined;
        }
        pm_compact_pk *rp = pm_pk_part(x->r->part);
        if (!e && !declined && rp)
            rp->prepass_scans++;
        if (!e && declined) {
            /* the general merge reads again from the start (and reports
             * what made the scan decline) */
            for (size_t f = 0; f < nfiles; f++) {
                free(sk[f].r);
                memset(&sk[f], 0, sizeof sk[f]);
            }
        }
    }
    if (!e && merge)
        e = open_sources(x, sec, fields, type, synth, srcs, &nsrc);
    bool budgeted = x->budget > 0;
    if (!e && merge && (nsrc > PM_MERGE_MAX_FAN_IN || budgeted) && !x->spill)
        e = pm_pk_spill_new(&x->spill, NULL);
    const pm_kv_spill *spill = NULL;
    if (!e && merge && x->spill)
        e = pm_pk_spill_callbacks(x->spill, &spill);
    if (!e && merge) {
        pm_merge_options mo = {type, &l, 0, spill, PM_PK_READ_ROWS};
        e = pm_merge_reader_new(&mr, srcs, nsrc, &mo);
        nsrc = 0; /* the reader closes them, also on failure */
        if (!e && budgeted)
            pm_merge_reader_set_memory_budget(mr, (size_t)(x->budget / 2));
    }
    while (!e && merge) {
        pm_kv_group g;
        bool eof = false;
        int64_t run = 0;
        e = pm_merge_reader_next_run(mr, &g, &run, &eof);
        if (e || eof)
            break;
        if (run || g.n < 2)
            continue;
        bool none = false;
        const pm_kv_rec *win = pm_pk_pass_through(x, &g, &none);
        for (size_t j = 0; !e && j < g.n; j++) {
            const pm_kv_rec *r = &g.recs[j];
            if (r == win)
                continue;
            int32_t f = pm_column_i32(r->batch->columns[file_col], r->row);
            if (f < 0 || (size_t)f >= nfiles) {
                e = pm_error_new(PM_EINTERNAL, "pre-pass record of file %d outside the section's %zu", f, nfiles);
                break;
            }
            e = pm_pk_skips_mark(&sk[f], pm_column_i64(r->batch->columns[pos_col], r->row));
        }
    }
    if (e && mr && pm_merge_reader_over_budget(mr))
        e = pm_error_wrap(e, 0, "the task's memory budget of %lld bytes is too small for the key pre-pass",
                          (long long)x->budget);
    pm_merge_reader_free(mr);
    for (size_t i = 0; i < nsrc; i++)
        srcs[i].close(srcs[i].ctx);
    free(srcs);
    for (size_t f = 0; !e && f < nfiles; f++)
        e = pm_pk_skips_mark(&sk[f], -1); /* the last stretch */
    pm_kv_layout_clear(&l);
    pm_type_free(type);
    pm_type_free(fields);
    if (e) {
        pm_pk_skips_free(sk, nfiles);
        return pm_error_wrap(e, 0, "finding superseded records");
    }
    *out = sk;
    return NULL;
}
