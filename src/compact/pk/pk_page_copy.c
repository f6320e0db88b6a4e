/*
 * compact/pk/pk_page_copy.c — page copies of a primary-key rewrite: where
 * the output takes every row of an input data page unchanged and in order
 * (a lone record or a deduplicate winner gathered as it is, pk_rewrite.c),
 * the page's compressed bytes go into the output file instead of the same
 * values compressed again (format/parquet/pq_page_copy.h).
 *
 * Input side, per open file of a run source (pm_pk_pages_open): for every
 * batch column read without a cast from a flat Parquet leaf, its data
 * pages (the chunks' OffsetIndex: file offset, size, first row) and the
 * leaf's schema element and codec.  The source tells for each batch it
 * handed out its file and the file row of its first row
 * (pm_pk_run_source_where; not for batches a deletion vector thinned, nor
 * for batches carrying lookup positions).
 * Stretch (pm_pk_copy_rows, before rows join the output): consecutive rows
 * of one file, in order.  A row that does not continue it (another file, a
 * gap, a merged row: pm_pk_copy_break) ends it: the output rows so far are
 * written and the writer's offers cancelled.  When the stretch reaches the
 * first row of a page of some column, the output is written up to there
 * and that page is offered to the output column(s) its values go to; the
 * writer takes it when its leaf stores values alike and the page is PLAIN
 * with the writer's codec, and copies it when the next rows it is given
 * are the page's rows (they are: the stretch goes on, or it breaks and
 * cancels first).  Rows are never held back: a page whose stretch breaks
 * is encoded as usual.
 * Lazy offers (x->cp.lazy; off with the fault point pk-lazy-pages-off):
 * where the input file's page index follows parquet-java 1.16's rules (or
 * is ours), each page's statistics are read from its ColumnIndex (and
 * OffsetIndex value bytes) and the page is offered with them
 * (pm_pq_writer_offer_lazy): the writer then never looks at the rows'
 * values.  A column whose every output column took the page lazily needs
 * no values for the page's rows: with value columns read on demand
 * (pk_source.c) the rows gathered are checked first (pm_pk_copy_rows) and
 * every lazy column not so covered is read before the rows join the
 * output; a stretch break forgets the cover (the writer decodes what it
 * was given from the page).
 * Engines: any — only rows that pass unchanged are copied; merged rows
 * (partial-update, aggregation, a deduplicate fold) break the stretch.
 * Off with compaction.parquet.page-passthrough=false, in lookup mode and
 * full-compaction changelog sections, and for merges in several passes.
 */
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/mem.h"
#include "compact/pk/pk_exec.h"
#include "format/parquet/pq_page_copy.h"
#include "format/parquet/pq_read_index.h"

void pm_pk_pages_free(pm_pk_file_pages *p)
{
    if (!p)
        return;
    for (size_t j = 0; j < p->ncols; j++)
        free(p->cols[j].pages);
    free(p->cols);
    pm_arena_free(&p->arena);
    free(p);
}

/* Whether the file's page indexes follow the rules of ours
 * (format/parquet/pq_write_index.h: parquet-java 1.16's), so that their
 * statistics are those its writer would compute from the values. */
static bool trusted_index(const pm_pq_file_meta *m)
{
    const char *cb = m->created_by;
    return cb && (strncmp(cb, "parquet-mr version 1.16.", 24) == 0 || strncmp(cb, "paimon-c version ", 17) == 0);
}

/* The statistics of the n pages from `first` on from the chunk's
 * ColumnIndex (and the OffsetIndex's value bytes), copied into the arena;
 * pages without them keep facts = false. */
static pm_error *page_facts(pm_pk_exec *x, pm_input *in, const pq_column_chunk *cc, const pq_offset_index *oi,
                            pm_pk_page *first, uint32_t n, pm_arena *keep)
{
    uint64_t fsize = pm_input_size(in);
    if (!cc->has_column_index || cc->column_index_length <= 0 || cc->column_index_offset < 0 ||
        (uint64_t)cc->column_index_offset > fsize ||
        (uint64_t)cc->column_index_length > fsize - (uint64_t)cc->column_index_offset)
        return NULL;
    pm_arena a;
    pm_arena_init(&a, 0);
    x->cp.page.len = 0;
    pm_error *e = pm_buf_reserve(&x->cp.page, (size_t)cc->column_index_length);
    if (!e)
        e = pm_input_read_at(in, (uint64_t)cc->column_index_offset, x->cp.page.data, (size_t)cc->column_index_length);
    pq_column_index ci;
    if (!e)
        e = pq_column_index_parse(&ci, x->cp.page.data, (size_t)cc->column_index_length, &a);
    if (e) {
        pm_arena_free(&a);
        pm_error_free(e); /* no facts: its pages are offered with their values */
        return NULL;
    }
    bool bytes = cc->meta_data.type == PQ_BYTE_ARRAY;
    for (uint32_t i = 0; !e && ci.n == n && ci.has_null_counts && i < n; i++) {
        pm_pk_page *pg = &first[i];
        if (bytes && !oi->has_unencoded)
            break;
        pg->all_null = ci.null_pages[i];
        pg->nulls = ci.null_counts[i];
        pg->unencoded = bytes ? oi->unencoded[i] : -1;
        pg->min_len = ci.min_len[i];
        pg->max_len = ci.max_len[i];
        uint8_t *mn = NULL, *mx = NULL;
        if (!pg->all_null) {
            mn = pm_arena_alloc(keep, pg->min_len + 1, 1);
            mx = pm_arena_alloc(keep, pg->max_len + 1, 1);
            if (!mn || !mx) {
                e = pm_oom();
                break;
            }
            memcpy(mn, ci.min[i], pg->min_len);
            memcpy(mx, ci.max[i], pg->max_len);
        }
        pg->min = mn;
        pg->max = mx;
        pg->facts = true;
    }
    pm_arena_free(&a);
    return e;
}

/* The pages of leaf `leaf` over every row group; false (and nothing kept)
 * when a chunk has no offset index, another codec, or locations outside
 * the chunk. */
static pm_error *leaf_pages(pm_pk_exec *x, pm_input *in, const pm_pq_file_meta *m, uint32_t leaf,
                            pm_pk_col_pages *c, pm_arena *keep, bool *ok)
{
    *ok = false;
    pm_arena a;
    pm_arena_init(&a, 0);
    pm_error *e = NULL;
    size_t n = 0, cap = 0;
    pm_pk_page *pages = NULL;
    int64_t base = 0;
    uint64_t fsize = pm_input_size(in);
    bool good = m->num_row_groups > 0;
    for (uint32_t g = 0; good && !e && g < m->num_row_groups; g++) {
        const pq_row_group *rg = &m->row_groups[g];
        if (leaf >= rg->num_columns) {
            good = false;
            break;
        }
        const pq_column_chunk *cc = &rg->columns[leaf];
        const pq_column_meta *cm = &cc->meta_data;
        if (!cc->has_meta_data || !cc->has_offset_index || cc->offset_index_length <= 0 ||
            cc->offset_index_offset < 0 || (uint64_t)cc->offset_index_offset > fsize ||
            (uint64_t)cc->offset_index_length > fsize - (uint64_t)cc->offset_index_offset ||
            (g > 0 && cm->codec != (int32_t)c->codec)) {
            good = false;
            break;
        }
        c->codec = (pm_codec_id)cm->codec;
        x->cp.page.len = 0;
        e = pm_buf_reserve(&x->cp.page, (size_t)cc->offset_index_length);
        if (!e)
            e = pm_input_read_at(in, (uint64_t)cc->offset_index_offset, x->cp.page.data,
                                 (size_t)cc->offset_index_length);
        pq_offset_index oi;
        if (!e)
            e = pq_offset_index_parse(&oi, x->cp.page.data, (size_t)cc->offset_index_length, &a);
        if (e)
            break;
        int64_t lo = cm->data_page_offset, hi = cm->data_page_offset + cm->total_compressed_size;
        if (n + oi.n > cap) {
            cap = (n + oi.n) * 2;
            e = pm_realloc_array(&pages, cap, sizeof *pages);
            if (e)
                break;
        }
        for (uint32_t i = 0; i < oi.n && good; i++) {
            const pq_page_location *l = &oi.pages[i];
            int64_t next = i + 1 < oi.n ? oi.pages[i + 1].first_row : rg->num_rows;
            if (l->offset < lo || l->size <= 0 || l->offset + l->size > hi || next <= l->first_row) {
                good = false;
                break;
            }
            memset(&pages[n], 0, sizeof pages[n]);
            pages[n].first_row = base + l->first_row;
            pages[n].rows = next - l->first_row;
            pages[n].offset = l->offset;
            pages[n].size = l->size;
            n++;
        }
        if (good && x->cp.lazy && trusted_index(m))
            e = page_facts(x, in, cc, &oi, pages + n - oi.n, oi.n, keep);
        base += rg->num_rows;
    }
    pm_arena_free(&a);
    if (e || !good) {
        free(pages);
        return e;
    }
    c->pages = pages;
    c->n = n;
    c->next = 0;
    *ok = true;
    return NULL;
}

/* The flat leaf named `name` among the footer's column chunks, or -1. */
static int64_t leaf_named(const pm_pq_file_meta *m, const char *name)
{
    if (!m->num_row_groups)
        return -1;
    const pq_row_group *rg = &m->row_groups[0];
    for (uint32_t k = 0; k < rg->num_columns; k++) {
        const pq_column_meta *cm = &rg->columns[k].meta_data;
        if (cm->path_len == 1 && cm->path_in_schema[0] && strcmp(cm->path_in_schema[0], name) == 0)
            return k;
    }
    return -1;
}

pm_error *pm_pk_pages_open(pm_pk_exec *x, const pm_file_reader *fr, const int32_t *prim, bool by_name,
                           pm_pk_file_pages **out)
{
    *out = NULL;
    if (!x->cp.enabled)
        return NULL;
    size_t nc = x->in_type->nfields;
    pm_pk_file_pages *p;
    PM_TRY(pm_calloc(&p, 1, sizeof *p));
    pm_arena_init(&p->arena, 0);
    pm_error *e = pm_calloc(&p->cols, nc ? nc : 1, sizeof *p->cols);
    p->ncols = nc;
    bool any = false;
    for (size_t j = 0; !e && j < nc; j++) {
        uint32_t leaf = 0;
        pm_input *in = NULL;
        const pm_pq_file_meta *m = NULL;
        if (prim && prim[j] < 0) {
            /* read by its own reader (pk_source.c): the leaf of its name
             * in a file of the current schema (no cast, no rename) */
            uint32_t l0 = 0;
            int64_t l = -1;
            if (by_name && pm_file_reader_parquet_leaf(fr, 0, &l0, &in, &m))
                l = leaf_named(m, x->in_type->fields[j].name);
            if (l < 0)
                continue;
            leaf = (uint32_t)l;
        } else if (!pm_file_reader_parquet_leaf(fr, prim ? (size_t)prim[j] : j, &leaf, &in, &m)) {
            continue;
        }
        if (!m->num_row_groups || leaf >= m->row_groups[0].num_columns)
            continue;
        const pq_column_meta *cm = &m->row_groups[0].columns[leaf].meta_data;
        if (cm->path_len != 1)
            continue;
        const pq_schema_element *el = pq_schema_top_element(m->schema, m->num_schema, cm->path_in_schema[0]);
        if (!el || el->has_num_children)
            continue;
        bool ok = false;
        e = leaf_pages(x, in, m, leaf, &p->cols[j], &p->arena, &ok);
        if (ok) {
            p->cols[j].elem = el;
            p->in = in;
            any = true;
        }
    }
    if (e || !any) {
        pm_pk_pages_free(p);
        return e;
    }
    p->serial = ++x->cp.serials;
    *out = p;
    return NULL;
}

/* No lazy offer of the stretch stands (their columns' values are read). */
static void lazy_forget(pm_pk_copy *c)
{
    for (size_t j = 0; j < c->nlazy; j++)
        c->lazy_end[j] = 0;
}

void pm_pk_copy_begin(pm_pk_exec *x, const pm_kv_source *srcs, size_t n, pm_pk_file_writer *w)
{
    pm_pk_copy *c = &x->cp;
    c->on = c->enabled && w;
    c->srcs = srcs;
    c->nsrcs = n;
    c->w = w;
    c->spages = NULL;
    c->offered = false;
    c->lazy_srcs = false;
    lazy_forget(c);
}

pm_error *pm_pk_copy_end(pm_pk_exec *x)
{
    pm_pk_copy *c = &x->cp;
    pm_error *e = NULL;
    if (c->offered && c->w)
        e = pm_pk_file_writer_cancel_pages(c->w);
    c->on = false;
    c->offered = false;
    c->spages = NULL;
    lazy_forget(c);
    return e;
}

void pm_pk_copy_free(pm_pk_copy *c)
{
    free(c->lazy_start);
    free(c->lazy_end);
    c->lazy_start = c->lazy_end = NULL;
    c->nlazy = 0;
}

pm_error *pm_pk_copy_break(pm_pk_exec *x)
{
    pm_pk_copy *c = &x->cp;
    if (c->offered) {
        /* the offered pages' rows so far complete theirs first */
        PM_TRY(pm_pk_output_drain(x, c->w));
        c->offered = false;
        lazy_forget(c);
        PM_TRY(pm_pk_file_writer_cancel_pages(c->w));
    }
    c->spages = NULL;
    return NULL;
}

/* The first page start of any copied column at or after file row f. */
static int64_t next_start(pm_pk_file_pages *p, int64_t f)
{
    int64_t best = INT64_MAX;
    for (size_t j = 0; j < p->ncols; j++) {
        pm_pk_col_pages *c = &p->cols[j];
        if (!c->elem)
            continue;
        while (c->next < c->n && c->pages[c->next].first_row < f)
            c->next++;
        if (c->next < c->n && c->pages[c->next].first_row < best)
            best = c->pages[c->next].first_row;
    }
    return best;
}

/* Offer every page that starts at file row f to the output columns its
 * values go to (the output is written up to f). */
static pm_error *offer_at(pm_pk_exec *x, pm_pk_file_pages *p, int64_t f)
{
    pm_pk_copy *c = &x->cp;
    size_t nout = x->kv_type->nfields;
    for (size_t j = 0; j < p->ncols; j++) {
        pm_pk_col_pages *cp = &p->cols[j];
        if (!cp->elem || cp->next >= cp->n || cp->pages[cp->next].first_row != f)
            continue;
        const pm_pk_page *pg = &cp->pages[cp->next];
        bool read = false;
        size_t outs = 0, lazy = 0;
        for (size_t i = 0; i < nout; i++) {
            if (x->o.src_col[i] != j)
                continue;
            if (!read) {
                c->page.len = 0;
                PM_TRY(pm_buf_reserve(&c->page, (size_t)pg->size));
                PM_TRY(pm_input_read_at(p->in, (uint64_t)pg->offset, c->page.data, (size_t)pg->size));
                c->page.len = (size_t)pg->size;
                read = true;
            }
            bool taken = false;
            outs++;
            if (pg->facts && c->lazy) {
                pq_page_facts f = {pg->nulls, pg->all_null, pg->min, pg->max, pg->min_len, pg->max_len, pg->unencoded};
                PM_TRY(pm_pk_file_writer_offer_page(c->w, i, cp->elem, c->page.data, c->page.len, cp->codec, pg->rows,
                                                    &f, &taken));
                lazy += taken;
            }
            if (!taken)
                PM_TRY(pm_pk_file_writer_offer_page(c->w, i, cp->elem, c->page.data, c->page.len, cp->codec, pg->rows,
                                                    NULL, &taken));
            if (taken) {
                c->offered = true;
                c->offers++;
            }
        }
        if (j < c->nlazy) {
            /* its rows' values are not read while every output column of it holds a lazy offer */
            c->lazy_start[j] = f;
            c->lazy_end[j] = outs && lazy == outs ? f + pg->rows : 0;
        }
    }
    return NULL;
}

/* The stretch step of pm_pk_copy_rows. */
static pm_error *stretch(pm_pk_exec *x, uint32_t src, const pm_batch *b, int64_t row, int64_t *n)
{
    pm_pk_copy *c = &x->cp;
    if (!c->on)
        return NULL;
    pm_pk_file_pages *p = NULL;
    int64_t row0 = 0;
    if (src >= c->nsrcs || !pm_pk_run_source_where(c->srcs[src].ctx, b, &p, &row0))
        return pm_pk_copy_break(x);
    int64_t f = row0 + row;
    if (!c->spages || p->serial != c->sserial || f != c->next_row) {
        PM_TRY(pm_pk_copy_break(x));
        c->spages = p;
        c->sserial = p->serial;
        c->next_start = next_start(p, f);
    }
    if (f == c->next_start) {
        if (!p->in)
            return pm_pk_copy_break(x); /* its file is closed: no page of it can be read */
        PM_TRY(pm_pk_output_drain(x, c->w));
        PM_TRY(offer_at(x, p, f));
        c->next_start = next_start(p, f + 1);
    }
    if (*n > c->next_start - f)
        *n = c->next_start - f;
    c->next_row = f + *n;
    return NULL;
}

/* Lazy value columns of source src's batch b that rows [row, row + n) need
 * read: every one whose rows are not all inside a lazy offer of the
 * stretch (the rows gathered so far are copied out first: their batches'
 * columns change). */
static pm_error *fill_needed(pm_pk_exec *x, uint32_t src, const pm_batch *b, int64_t row, int64_t n)
{
    pm_pk_copy *c = &x->cp;
    void *ctx = c->srcs[src].ctx;
    int64_t f = -1;
    pm_pk_file_pages *p = NULL;
    int64_t row0 = 0;
    if (c->on && c->offered && c->spages && pm_pk_run_source_where(ctx, b, &p, &row0) && p->serial == c->sserial)
        f = row0 + row;
    bool flushed = false;
    for (size_t j = 0; j < b->ncolumns; j++) {
        if (!pm_pk_run_source_unread(ctx, b, j))
            continue;
        if (f >= 0 && j < c->nlazy && c->lazy_end[j] > 0 && c->lazy_start[j] <= f && f + n <= c->lazy_end[j])
            continue; /* a lazy offer's rows: never read */
        if (!flushed)
            PM_TRY(pm_pk_output_flush(x));
        flushed = true;
        bool filled = false;
        PM_TRY(pm_pk_run_source_fill(ctx, b, j, &filled));
    }
    return NULL;
}

pm_error *pm_pk_copy_rows(pm_pk_exec *x, uint32_t src, const pm_batch *b, int64_t row, int64_t *n)
{
    pm_pk_copy *c = &x->cp;
    if (c->lazy_srcs && c->nlazy < b->ncolumns) {
        PM_TRY(pm_realloc_array(&c->lazy_start, b->ncolumns, sizeof *c->lazy_start));
        PM_TRY(pm_realloc_array(&c->lazy_end, b->ncolumns, sizeof *c->lazy_end));
        for (size_t j = c->nlazy; j < b->ncolumns; j++)
            c->lazy_start[j] = c->lazy_end[j] = 0;
        c->nlazy = b->ncolumns;
    }
    PM_TRY(stretch(x, src, b, row, n));
    if (!c->lazy_srcs || src >= c->nsrcs)
        return NULL;
    return fill_needed(x, src, b, row, *n);
}
