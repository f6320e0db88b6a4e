/*
 * tests/unit/pkc/test_pkc_page_copy.c — page copies of the primary-key
 * rewrite (compact/pk/pk_page_copy.c): on random overlapping sorted runs
 * (runs start and end at random keys, so stretches start and end inside
 * pages; small pages, several row groups), a full compaction with page
 * copies (the default) and one with compaction.parquet.page-passthrough=
 * false give the same table rows, the same rows in the output files
 * (sequence numbers and row kinds included) and the same file statistics,
 * for deduplicate (with and without dropped deletes), deduplicate with a
 * sequence field, partial-update, aggregation, first-row and deletion
 * vectors; with copies, input data pages appear byte for byte in the
 * output (the pages the rewrite reports as copied, none without); a bad
 * option value is PM_EINVALID.  A third table compacted with
 * compaction.pk.skip-superseded=false (nothing passed over) gives the
 * same rows and files again; on gapless runs (long superseded stretches
 * starting and ending at random keys) deduplicate passes over rows
 * (pk_superseded.c), the other engines and deletion vectors never.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../pk/pk_test_util.h"
#include "compact/compact_internal.h"
#include "compact/compact_run.h"
#include "compact/pk/pk_compact.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/pq_read_index.h"
#include "table/file_read.h"
#include "table/partition.h"

static uint64_t rs = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void)
{
    return pm_test_xorshift64(&rs);
}

/* Rows the last compaction passed over as superseded (pk_superseded.c),
 * its key pre-passes done by the direct scan (pk_prepass_scan.c), its
 * pages copied from lazy offers and its value-column pages never read
 * (pk_page_copy.c, pk_source.c). */
static int64_t last_skipped, last_scans, last_lazy, last_unread;

/* Full compaction (copies and superseded skips: the defaults, else turned
 * off by dynamic options); the data pages the rewrites copied. */
static int64_t compact_full_opts(pm_table *t, bool copies, bool skips)
{
    const char *dyn[2];
    size_t ndyn = 0;
    if (!copies)
        dyn[ndyn++] = "compaction.parquet.page-passthrough=false";
    if (!skips)
        dyn[ndyn++] = "compaction.pk.skip-superseded=false";
    pm_compact_options o = {PM_COMPACT_OPTIONS_VERSION, "u", NULL, 0, true, NULL, dyn, ndyn, NULL, NULL, 0,
                            false, 0, 0, 0};
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &o));
    pm_compact_plan *p = NULL;
    PM_OK_OR_FAIL(pm_compact_plan_new(&p, b));
    pm_compact_builder_free(b);
    assert_true(p->ntasks >= 1);
    pm_compact_result **r = calloc(p->ntasks, sizeof *r);
    int64_t copied = 0;
    last_skipped = 0;
    last_scans = 0;
    last_lazy = 0;
    last_unread = 0;
    for (size_t i = 0; i < p->ntasks; i++) {
        PM_OK_OR_FAIL(pm_compact_execute(&r[i], t, p->tasks[i], NULL));
        copied += pm_pk_part(r[i]->part)->pages_copied;
        last_skipped += pm_pk_part(r[i]->part)->rows_skipped;
        last_scans += pm_pk_part(r[i]->part)->prepass_scans;
        last_lazy += pm_pk_part(r[i]->part)->pages_lazy;
        last_unread += pm_pk_part(r[i]->part)->pages_unread;
    }
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    PM_OK_OR_FAIL(pm_compact_commit(&m, t, NULL, r, p->ntasks));
    for (size_t i = 0; i < p->ntasks; i++)
        pm_compact_result_free(r[i]);
    free(r);
    pm_compact_plan_free(p);
    return copied;
}

static int64_t compact_full(pm_table *t, bool copies) { return compact_full_opts(t, copies, true); }

static char *dir_of(pm_table *t, const pm_bucket_files *bf)
{
    char *dir = NULL;
    PM_OK_OR_FAIL(pm_table_bucket_dir(t, bf->partition.data, bf->partition.len, bf->bucket, &dir));
    return dir;
}

static void bytes_text(pm_buf *out, const char *what, const pm_bytes *b)
{
    PM_OK_OR_FAIL(pm_buf_printf(out, " %s:", what));
    for (size_t i = 0; b->has && i < b->len; i++)
        PM_OK_OR_FAIL(pm_buf_printf(out, "%02x", b->data[i]));
}

static void stats_text(pm_buf *out, const char *what, const pm_simple_stats *s)
{
    PM_OK_OR_FAIL(pm_buf_printf(out, " %s", what));
    bytes_text(out, "min", &s->min_values);
    bytes_text(out, "max", &s->max_values);
    for (size_t i = 0; s->has_null_counts && i < s->null_count_len; i++)
        PM_OK_OR_FAIL(pm_buf_printf(out, " n%lld", s->null_counts[i].has ? (long long)s->null_counts[i].v : -1LL));
}

/* Every row of the live data files (system columns first) and each file's
 * statistics, files in key order; caller frees. */
static char *files_text(pm_table *t)
{
    pm_scan_result *scan = NULL;
    const pm_bucket_files *bf = pk_bucket(t, 0, &scan);
    assert_non_null(bf);
    char *dir = dir_of(t, bf);
    pm_buf out = PM_BUF_INIT, line = PM_BUF_INIT;
    /* key order: the rewrite's files come in the order they were written */
    for (size_t i = 0; i < bf->nfiles; i++) {
        const pm_data_file_meta *f = &bf->files[i];
        PM_OK_OR_FAIL(pm_buf_printf(&out, "file L%d rows %lld seq %lld..%lld del %lld", (int)f->level,
                                    (long long)f->row_count, (long long)f->min_sequence_number,
                                    (long long)f->max_sequence_number,
                                    f->delete_row_count.has ? (long long)f->delete_row_count.v : -1LL));
        bytes_text(&out, "minkey", &f->min_key);
        bytes_text(&out, "maxkey", &f->max_key);
        stats_text(&out, "keys", &f->key_stats);
        stats_text(&out, "values", &f->value_stats);
        PM_OK_OR_FAIL(pm_buf_append_str(&out, "\n"));
        pm_file_read_options fo = {pm_table_schema(t)->row_type, 0, true, NULL};
        pm_file_reader *fr = NULL;
        PM_OK_OR_FAIL(pm_file_reader_open(&fr, t, dir, f, &fo));
        for (;;) {
            const pm_batch *b = NULL;
            PM_OK_OR_FAIL(pm_file_reader_next(fr, &b));
            if (!b)
                break;
            for (int64_t k = 0; k < b->num_rows; k++) {
                pm_buf_clear(&line);
                PM_OK_OR_FAIL(pm_batch_format_row_json(b, k, &line));
                PM_OK_OR_FAIL(pm_buf_append(&out, line.data, line.len));
                PM_OK_OR_FAIL(pm_buf_append_str(&out, "\n"));
            }
        }
        pm_file_reader_free(fr);
    }
    free(dir);
    pm_scan_result_free(scan);
    pm_buf_free(&line);
    const char *s = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&out, &s));
    char *r = strdup(s);
    pm_buf_free(&out);
    return r;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc((size_t)n + 1);
    assert_non_null(d);
    assert_int_equal(fread(d, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return d;
}

typedef struct file_set {
    char *path[64];
    size_t n;
} file_set;

static void live_files(pm_table *t, file_set *fs)
{
    pm_scan_result *scan = NULL;
    const pm_bucket_files *bf = pk_bucket(t, 0, &scan);
    char *dir = dir_of(t, bf);
    fs->n = 0;
    for (size_t i = 0; i < bf->nfiles && fs->n < 64; i++) {
        char p[2048];
        snprintf(p, sizeof p, "%s/%s", dir, bf->files[i].file_name);
        fs->path[fs->n++] = strdup(p);
    }
    free(dir);
    pm_scan_result_free(scan);
}

static void file_set_free(file_set *fs)
{
    for (size_t i = 0; i < fs->n; i++)
        free(fs->path[i]);
    fs->n = 0;
}

static bool in_set(const file_set *fs, const char *path)
{
    for (size_t i = 0; i < fs->n; i++)
        if (!strcmp(fs->path[i], path))
            return true;
    return false;
}

/* Data pages of the inputs found byte for byte (header and body) in the
 * rewritten outputs (not the inputs a full compaction upgrades). */
static size_t pages_found(const file_set *in, const file_set *out)
{
    size_t found = 0;
    uint8_t *od[64];
    size_t ol[64];
    for (size_t o = 0; o < out->n; o++) {
        od[o] = NULL;
        ol[o] = 0;
        if (!in_set(in, out->path[o]))
            od[o] = slurp(out->path[o], &ol[o]);
    }
    for (size_t i = 0; i < in->n; i++) {
        size_t len = 0;
        uint8_t *d = slurp(in->path[i], &len);
        pm_pq_reader_options ro = PM_PQ_READER_OPTIONS_INIT;
        ro.footer_only = true;
        pm_pq_reader *r = NULL;
        PM_OK_OR_FAIL(pm_pq_reader_open_memory(&r, d, len, &ro));
        const pm_pq_file_meta *m = pm_pq_reader_meta(r);
        for (uint32_t g = 0; g < m->num_row_groups; g++)
            for (uint32_t c = 0; c < m->row_groups[g].num_columns; c++) {
                const pq_column_chunk *cc = &m->row_groups[g].columns[c];
                assert_true(cc->has_offset_index);
                pm_arena a;
                pm_arena_init(&a, 0);
                pq_offset_index oi;
                PM_OK_OR_FAIL(pq_offset_index_parse(&oi, d + cc->offset_index_offset,
                                                    (size_t)cc->offset_index_length, &a));
                for (uint32_t p = 0; p < oi.n; p++)
                    for (size_t o = 0; o < out->n; o++)
                        if (od[o] && memmem(od[o], ol[o], d + oi.pages[p].offset, (size_t)oi.pages[p].size)) {
                            found++;
                            break;
                        }
                pm_arena_free(&a);
            }
        pm_pq_reader_free(r);
        free(d);
    }
    for (size_t o = 0; o < out->n; o++)
        free(od[o]);
    return found;
}

/* JSON lines of one sorted run: keys of a random range, some left out
 * (none when gapless), random values with nulls, deletes when asked. */
static char *run_rows(int64_t lo, int64_t len, bool deletes, bool gapless)
{
    pm_buf j = PM_BUF_INIT;
    for (int64_t k = lo; k < lo + len; k++) {
        if (!gapless && rnd() % 100 < 12)
            continue;
        PM_OK_OR_FAIL(pm_buf_printf(&j, "{\"id\":%lld", (long long)k));
        if (rnd() % 10 == 0) {
            PM_OK_OR_FAIL(pm_buf_append_str(&j, ",\"s\":null"));
        } else {
            PM_OK_OR_FAIL(pm_buf_append_str(&j, ",\"s\":\"v"));
            size_t n = rnd() % 24;
            for (size_t i = 0; i < n; i++)
                PM_OK_OR_FAIL(pm_buf_append_byte(&j, (uint8_t)('a' + rnd() % 26)));
            PM_OK_OR_FAIL(pm_buf_append_str(&j, "\""));
        }
        if (rnd() % 8 == 0)
            PM_OK_OR_FAIL(pm_buf_append_str(&j, ",\"v\":null"));
        else
            PM_OK_OR_FAIL(pm_buf_printf(&j, ",\"v\":%lld", (long long)(rnd() % 100000)));
        PM_OK_OR_FAIL(pm_buf_printf(&j, ",\"d\":%d.5", (int)(rnd() % 1000)));
        if (deletes && rnd() % 400 == 0)
            PM_OK_OR_FAIL(pm_buf_append_str(&j, ",\"_ROW_KIND\":\"-D\""));
        PM_OK_OR_FAIL(pm_buf_append_str(&j, "}\n"));
    }
    const char *s = NULL;
    PM_OK_OR_FAIL(pm_buf_cstr(&j, &s));
    char *r = strdup(s);
    pm_buf_free(&j);
    return r;
}

/* a == b, else the first line where they differ is shown. */
static void same_text(const char *what, const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return;
    size_t i = 0, line = 0, start = 0;
    while (a[i] && a[i] == b[i]) {
        if (a[i] == '\n') {
            line++;
            start = i + 1;
        }
        i++;
    }
    fprintf(stderr, "%s differ at line %zu:\n  %.200s\n  %.200s\n", what, line, a + start, b + start);
    fail();
}

/* Row groups of a Parquet file. */
static uint32_t row_groups(const char *path)
{
    size_t len = 0;
    uint8_t *d = slurp(path, &len);
    pm_pq_reader_options ro = PM_PQ_READER_OPTIONS_INIT;
    ro.footer_only = true;
    pm_pq_reader *r = NULL;
    PM_OK_OR_FAIL(pm_pq_reader_open_memory(&r, d, len, &ro));
    uint32_t n = pm_pq_reader_meta(r)->num_row_groups;
    pm_pq_reader_free(r);
    free(d);
    return n;
}

/* Whether the rewritten outputs of two tables (files in key order, the
 * inputs a full compaction upgrades left out) are the same bytes; files of
 * several row groups may differ (a lazy offer's rows count in proportion
 * to its page, pq_page_copy.h, so a row group may end a few rows off) but
 * their rows and statistics may not (the caller compares those). */
static bool same_output_bytes(const file_set *in_a, const file_set *a, const file_set *in_b, const file_set *b)
{
    size_t ia = 0, ib = 0;
    for (;;) {
        while (ia < a->n && in_set(in_a, a->path[ia]))
            ia++;
        while (ib < b->n && in_set(in_b, b->path[ib]))
            ib++;
        if (ia == a->n || ib == b->n)
            return ia == a->n && ib == b->n;
        size_t la = 0, lb = 0;
        uint8_t *da = slurp(a->path[ia], &la), *db = slurp(b->path[ib], &lb);
        bool same = la == lb && memcmp(da, db, la) == 0;
        free(da);
        free(db);
        if (!same && row_groups(a->path[ia]) == 1 && row_groups(b->path[ib]) == 1)
            return false;
        ia++;
        ib++;
    }
}

/* The fault points of PAIMON_FAULT_INJECT with `point` added (static). */
static const char *with_fault(const char *point)
{
    static char v[256];
    const char *old = getenv("PAIMON_FAULT_INJECT");
    snprintf(v, sizeof v, "%s%s%s", old && *old ? old : "", old && *old ? "," : "", point);
    return v;
}

/* Pages copied from lazy offers and value-column pages never read by the
 * first table's compaction of run_case_skips. */
static int64_t case_lazy, case_unread;

/* Tables with and without page copies, and one without superseded skips,
 * from the same random runs (gapless: no keys left out, so superseded
 * stretches are long), compacted fully; compared.  Returns the input pages
 * found in the copied output; *skipped the rows the first table's
 * compaction passed over. */
/* The table type of run_case_skips, and the first compaction's direct
 * key scans. */
static const char *case_type = "ROW<id BIGINT NOT NULL, s STRING, v BIGINT, d DOUBLE>";
static int64_t case_scans;

static size_t run_case_skips(const char *name, const char *const *extra, size_t nextra, bool deletes, int round,
                             bool gapless, int64_t *skipped)
{
    char *dir = pm_test_tmpdir();
    const char *opts[16] = {"bucket=1", "parquet.page.size=2kb", "parquet.block.size=96kb",
                            "num-sorted-run.compaction-trigger=100", "num-sorted-run.stop-trigger=200",
                            "parquet.page.write-checksum.enabled=true"};
    size_t n = 6;
    for (size_t i = 0; i < nextra; i++)
        opts[n++] = extra[i];
    char na[64], nb[64], nc[64];
    snprintf(na, sizeof na, "%s_%d_copy", name, round);
    snprintf(nb, sizeof nb, "%s_%d_plain", name, round);
    snprintf(nc, sizeof nc, "%s_%d_keep", name, round);
    char nd[64];
    snprintf(nd, sizeof nd, "%s_%d_eager", name, round);
    const char *type = case_type;
    pm_table *ta = pk_create(dir, na, type, NULL, "id", opts, n);
    pm_table *tb = pk_create(dir, nb, type, NULL, "id", opts, n);
    pm_table *tc = pk_create(dir, nc, type, NULL, "id", opts, n);
    pm_table *td = pk_create(dir, nd, type, NULL, "id", opts, n);
    size_t runs = 2 + rnd() % 4;
    for (size_t r = 0; r < runs; r++) {
        int64_t lo = (int64_t)(rnd() % 4000), len = 300 + (int64_t)(rnd() % 5000);
        char *rows = run_rows(lo, len, deletes, gapless);
        pk_commit_rows(ta, rows);
        pk_commit_rows(tb, rows);
        pk_commit_rows(tc, rows);
        pk_commit_rows(td, rows);
        free(rows);
    }
    file_set in, ind;
    live_files(ta, &in);
    live_files(td, &ind);
    int64_t copied = compact_full(ta, true);
    *skipped = last_skipped;
    case_scans = last_scans;
    case_lazy = last_lazy;
    case_unread = last_unread;
    assert_true(last_lazy <= copied);
    /* every page offered with its values: the same bytes */
    char *old = getenv("PAIMON_FAULT_INJECT") ? strdup(getenv("PAIMON_FAULT_INJECT")) : NULL;
    setenv("PAIMON_FAULT_INJECT", with_fault("pk-lazy-pages-off"), 1);
    int64_t eager = compact_full(td, true);
    assert_int_equal(last_lazy, 0);
    assert_int_equal(last_unread, 0);
    if (old)
        setenv("PAIMON_FAULT_INJECT", old, 1);
    else
        unsetenv("PAIMON_FAULT_INJECT");
    free(old);
    assert_int_equal(compact_full(tb, false), 0);
    compact_full_opts(tc, true, false);
    assert_int_equal(last_skipped, 0);
    char *ra = pk_read_sorted(ta, 0, NULL, 0), *rb = pk_read_sorted(tb, 0, NULL, 0);
    char *rc = pk_read_sorted(tc, 0, NULL, 0);
    same_text("rows (lazy, no copies)", ra, rb);
    same_text("rows (lazy, no skips)", ra, rc);
    char *rd = pk_read_sorted(td, 0, NULL, 0);
    same_text("rows (lazy, eager)", ra, rd);
    char *fa = files_text(ta), *fb = files_text(tb), *fc = files_text(tc), *fd = files_text(td);
    assert_string_equal(fa, fb);
    assert_string_equal(fa, fc);
    assert_string_equal(fa, fd);
    file_set outa0, outd;
    live_files(ta, &outa0);
    live_files(td, &outd);
    /* the same bytes, unless a row group ended elsewhere (a lazy offer's
     * byte strings count in proportion to its page) */
    assert_true(same_output_bytes(&in, &outa0, &ind, &outd));
    (void)eager;
    file_set_free(&outa0);
    file_set_free(&outd);
    file_set_free(&ind);
    free(rc);
    free(fc);
    free(rd);
    free(fd);
    pm_table_free(tc);
    pm_table_free(td);
    file_set outa, outb;
    live_files(ta, &outa);
    live_files(tb, &outb);
    /* every page counted as copied is an input page in the output, byte for
     * byte (re-encoded pages may equal one too: the same writer and cut) */
    size_t found = pages_found(&in, &outa);
    assert_true((int64_t)found >= copied);
    file_set_free(&in);
    file_set_free(&outa);
    file_set_free(&outb);
    free(ra);
    free(rb);
    free(fa);
    free(fb);
    pm_table_free(ta);
    pm_table_free(tb);
    free(dir);
    return (size_t)copied;
}

static size_t run_case(const char *name, const char *const *extra, size_t nextra, bool deletes, int round)
{
    int64_t skipped = 0;
    return run_case_skips(name, extra, nextra, deletes, round, false, &skipped);
}

/* Value-column pages never decompressed by the rounds of skip_rounds. */
static int64_t rounds_unread;

/* Gapless runs: the rows a compaction passed over as superseded, summed
 * over the rounds. */
static int64_t skip_rounds(const char *name, const char *const *extra, size_t nextra, bool deletes, int rounds)
{
    int64_t total = 0;
    for (int round = 0; round < rounds; round++) {
        int64_t skipped = 0;
        run_case_skips(name, extra, nextra, deletes, round, true, &skipped);
        total += skipped;
        rounds_unread += case_unread;
    }
    return total;
}

/* Deduplicate (plain, dropped deletes, ignore-delete) passes over
 * superseded stretches (with a sequence field too, where they are long); the other engines and deletion vectors
 * read every record; either way the output equals the one without. */
static void test_skip_superseded(void **state)
{
    (void)state;
    rounds_unread = 0;
    assert_true(skip_rounds("skip_dedup", NULL, 0, false, 5) > 0);
    /* value columns read on demand: pages of long superseded stretches and
     * of lazily copied rows are never decompressed (the same rows, stats
     * and bytes as without: run_case_skips) */
    assert_true(rounds_unread > 0);
    assert_true(skip_rounds("skip_del", NULL, 0, true, 3) > 0);
    const char *ign[] = {"ignore-delete=true"};
    assert_true(skip_rounds("skip_ign", ign, 1, true, 3) > 0);
    const char *sf[] = {"sequence.field=v"};
    /* random sequence-field values scatter the winners: stretches are
     * short, whatever is skipped must not change the output */
    skip_rounds("skip_seqf", sf, 1, false, 3);
    const char *pu[] = {"merge-engine=partial-update"};
    assert_int_equal(skip_rounds("skip_pu", pu, 1, false, 2), 0);
    const char *agg[] = {"merge-engine=aggregation", "fields.v.aggregate-function=sum",
                         "fields.d.aggregate-function=sum"};
    assert_int_equal(skip_rounds("skip_agg", agg, 3, true, 2), 0);
    const char *fr[] = {"merge-engine=first-row"};
    assert_int_equal(skip_rounds("skip_fr", fr, 1, false, 2), 0);
    const char *dv[] = {"deletion-vectors.enabled=true"};
    assert_int_equal(skip_rounds("skip_dv", dv, 1, true, 2), 0);
}

/* The key pre-pass's direct scan (one INT or BIGINT key) passes over what
 * the general merge does (PAIMON_FAULT_INJECT=pk-prepass-merge), round for
 * round from the same runs, with and without gaps and deletes; the output
 * equals the one that skips nothing either way (run_case_skips); other
 * keys, a sequence field and ignore-delete never scan. */
static void test_prepass_scan(void **state)
{
    (void)state;
    static const char *types[] = {"ROW<id BIGINT NOT NULL, s STRING, v BIGINT, d DOUBLE>",
                                  "ROW<id INT NOT NULL, s STRING, v BIGINT, d DOUBLE>"};
    int64_t total = 0;
    for (size_t t = 0; t < 2; t++)
        for (int c = 0; c < 4; c++) {
            bool deletes = c & 1, gapless = c & 2;
            case_type = types[t];
            for (int round = 0; round < 3; round++) {
                uint64_t seed = rs;
                char name[64];
                snprintf(name, sizeof name, "scan_%zu_%d", t, c);
                int64_t scanned = 0, merged = 0;
                run_case_skips(name, NULL, 0, deletes, round, gapless, &scanned);
                assert_true(case_scans > 0);
                rs = seed;
                snprintf(name, sizeof name, "merge_%zu_%d", t, c);
                setenv("PAIMON_FAULT_INJECT", "pk-prepass-merge", 1);
                run_case_skips(name, NULL, 0, deletes, round, gapless, &merged);
                unsetenv("PAIMON_FAULT_INJECT");
                assert_int_equal(case_scans, 0);
                assert_int_equal(scanned, merged);
                total += scanned;
            }
        }
    assert_true(total > 0);
    int64_t skipped = 0;
    case_type = "ROW<id SMALLINT NOT NULL, s STRING, v BIGINT, d DOUBLE>";
    run_case_skips("scan_small", NULL, 0, false, 0, true, &skipped);
    assert_int_equal(case_scans, 0);
    case_type = types[0];
    const char *sf[] = {"sequence.field=v"};
    run_case_skips("scan_seqf", sf, 1, false, 0, true, &skipped);
    assert_int_equal(case_scans, 0);
    const char *ign[] = {"ignore-delete=true"};
    run_case_skips("scan_ign", ign, 1, true, 0, true, &skipped);
    assert_int_equal(case_scans, 0);
}

static void test_deduplicate(void **state)
{
    (void)state;
    size_t found = 0;
    int64_t lazy = 0;
    for (int round = 0; round < 6; round++) {
        found += run_case("dedup", NULL, 0, false, round);
        lazy += case_lazy;
    }
    assert_true(found > 0);
    /* copies of lazy offers: the same rows, statistics and bytes as
     * without (run_case_skips) */
    assert_true(lazy > 0);
}

static void test_deduplicate_deletes(void **state)
{
    (void)state;
    size_t found = 0;
    for (int round = 0; round < 4; round++)
        found += run_case("dedup_del", NULL, 0, true, round);
    assert_true(found > 0);
}

static void test_sequence_field(void **state)
{
    (void)state;
    const char *o[] = {"sequence.field=v"};
    for (int round = 0; round < 3; round++)
        run_case("seqf", o, 1, false, round);
}

static void test_partial_update(void **state)
{
    (void)state;
    const char *o[] = {"merge-engine=partial-update"};
    size_t found = 0;
    for (int round = 0; round < 3; round++)
        found += run_case("pu", o, 1, false, round);
    assert_true(found > 0); /* lone records pass unchanged */
}

static void test_aggregation(void **state)
{
    (void)state;
    const char *o[] = {"merge-engine=aggregation", "fields.v.aggregate-function=sum", "fields.d.aggregate-function=sum"};
    for (int round = 0; round < 3; round++)
        run_case("agg", o, 3, true, round);
}

static void test_first_row(void **state)
{
    (void)state;
    const char *o[] = {"merge-engine=first-row"};
    for (int round = 0; round < 3; round++)
        run_case("fr", o, 1, false, round);
}

static void test_deletion_vectors(void **state)
{
    (void)state;
    const char *o[] = {"deletion-vectors.enabled=true"};
    for (int round = 0; round < 3; round++)
        run_case("dv", o, 1, true, round);
}

static void test_bad_option(void **state)
{
    (void)state;
    char *dir = pm_test_tmpdir();
    const char *opts[] = {"bucket=1", "compaction.parquet.page-passthrough=maybe"};
    pm_table *t = pk_create(dir, "bad", "ROW<id INT NOT NULL, v STRING>", NULL, "id", opts, 2);
    pk_commit_rows(t, "{\"id\":1,\"v\":\"a\"}\n");
    pk_commit_rows(t, "{\"id\":1,\"v\":\"b\"}\n");
    pm_compact_options o = {PM_COMPACT_OPTIONS_VERSION, "u", NULL, 0, true, NULL, NULL, 0, NULL, NULL, 0, false, 0, 0, 0};
    pm_compact_builder *b = NULL;
    PM_OK_OR_FAIL(pm_compact_builder_new(&b, t, &o));
    pm_compact_plan *p = NULL;
    pm_error *e = pm_compact_plan_new(&p, b);
    assert_non_null(e);
    assert_int_equal(pm_error_code(e), PM_EINVALID);
    char *msg = pm_error_format(e);
    assert_non_null(strstr(msg, "compaction.parquet.page-passthrough"));
    free(msg);
    pm_error_free(e);
    pm_compact_builder_free(b);
    pm_table_free(t);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deduplicate),      cmocka_unit_test(test_deduplicate_deletes),
        cmocka_unit_test(test_sequence_field),   cmocka_unit_test(test_partial_update),
        cmocka_unit_test(test_aggregation),      cmocka_unit_test(test_first_row),
        cmocka_unit_test(test_deletion_vectors), cmocka_unit_test(test_bad_option),
        cmocka_unit_test(test_skip_superseded),
        cmocka_unit_test(test_prepass_scan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
