/*
 * tests/unit/lsm/test_lsm_merge_reader.c — the loser-tree merge: a worked
 * example; a seeded model test (thousands of random run sets, with
 * duplicate keys inside runs, equal sequence numbers across runs, empty
 * and one-row batches, user sequence fields ascending/descending with
 * nulls) against sort-then-group, checking the exact record order through
 * a per-record tag; multi-pass merges (fan-in 2 and 3, and 300 runs at the
 * default 256) equal to single pass; string keys with nulls and zero
 * bytes; the memory bound (batches held ≤ sources + group size); errors
 * (unsorted input, failing source, bad batch) and that every source is
 * closed exactly once.
 */
#include <stdio.h>

#include "lsm_test_util.h"

typedef struct ref_rec {
    lt_rec r;
    size_t src;
    size_t pos;
    char tag[48];
} ref_rec;

static int seq_order = 0; /* 0: no sequence field; 1: v ascending; -1: v descending */
static bool use_runs = false; /* read through pm_merge_reader_next_run */
static int64_t runs_seen = 0;  /* records that came in runs */

static int cmp_ref(const void *x, const void *y)
{
    const ref_rec *a = x, *b = y;
    if (a->r.k != b->r.k)
        return a->r.k < b->r.k ? -1 : 1;
    if (seq_order) {
        if (a->r.v_null != b->r.v_null)
            return a->r.v_null ? -1 : 1; /* nulls first either way */
        if (!a->r.v_null && a->r.v != b->r.v)
            return (a->r.v < b->r.v ? -1 : 1) * seq_order;
    }
    if (a->r.seq != b->r.seq)
        return a->r.seq < b->r.seq ? -1 : 1;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static int cmp_lt_in_run(const void *x, const void *y)
{
    ref_rec a = {*(const lt_rec *)x, 0, 0, ""}, b = {*(const lt_rec *)y, 0, 0, ""};
    return cmp_ref(&a, &b);
}

static const char *rec_tag(const pm_kv_rec *r)
{
    size_t n;
    static char buf[64];
    const uint8_t *p = pm_column_bytes(r->batch->columns[5], r->row, &n);
    memcpy(buf, p, n < 63 ? n : 63);
    buf[n < 63 ? n : 63] = 0;
    return buf;
}

/* One random case: returns records merged and compared. */
static void run_case(uint64_t seed, size_t nruns, size_t fan_in, bool seqf, int order)
{
    lt_seed(seed);
    seq_order = seqf ? order : 0;
    pm_type *t = lt_row_type();
    size_t keyspace = 1 + lt_below(60);
    bool dup_in_run = lt_below(4) == 0;
    size_t total = 0, cap = 0;
    ref_rec *all = NULL;
    pm_kv_source *srcs = calloc(nruns ? nruns : 1, sizeof *srcs);
    int closes = 0;
    for (size_t s = 0; s < nruns; s++) {
        size_t n = lt_below(2 * keyspace + 1);
        if (!dup_in_run && n > keyspace)
            n = keyspace;
        lt_rec *r = calloc(n ? n : 1, sizeof *r);
        char **tags = calloc(n ? n : 1, sizeof *tags);
        for (size_t i = 0; i < n; i++) {
            r[i].k = (int64_t)lt_below(keyspace) - (int64_t)keyspace / 2;
            if (!dup_in_run)
                r[i].k = (int64_t)i - (int64_t)keyspace / 2; /* unique keys, chosen below */
            r[i].seq = (int64_t)lt_below(1000); /* ties across runs happen */
            r[i].kind = (uint8_t)lt_below(4);
            r[i].v_null = lt_below(5) == 0;
            r[i].v = (int64_t)lt_below(7) - 3;
        }
        if (!dup_in_run) { /* a random subset of the key space: shuffle offsets */
            for (size_t i = 0; i < n; i++)
                r[i].k = (int64_t)lt_below(keyspace);
            /* make unique */
            qsort(r, n, sizeof *r, cmp_lt_in_run);
            size_t u = 0;
            for (size_t i = 0; i < n; i++)
                if (u == 0 || r[u - 1].k != r[i].k)
                    r[u++] = r[i];
            n = u;
        }
        if (n)
            qsort(r, n, sizeof *r, cmp_lt_in_run);
        for (size_t i = 0; i < n; i++) {
            tags[i] = malloc(48);
            snprintf(tags[i], 48, "%zu/%zu", s % 100000, i % 100000);
            r[i].s = tags[i];
            if (total == cap) {
                cap = cap ? 2 * cap : 256;
                all = realloc(all, cap * sizeof *all);
            }
            all[total].r = r[i];
            all[total].src = s;
            all[total].pos = i;
            snprintf(all[total].tag, sizeof all[total].tag, "%s", tags[i]);
            total++;
        }
        size_t per = 1 + lt_below(lt_below(2) ? 3 : 40);
        srcs[s] = lt_source_of(t, r, n, per, lt_below(3) == 0, &closes);
        for (size_t i = 0; i < n; i++)
            free(tags[i]);
        free(tags);
        free(r);
    }
    if (total)
        qsort(all, total, sizeof *all, cmp_ref);

    pm_kv_layout l;
    lt_layout(&l);
    if (seqf) {
        size_t c = 4;
        PM_OK_OR_FAIL(pm_kv_layout_set_seq_fields(&l, &c, 1, order < 0));
    }
    pm_merge_options o = {t, &l, fan_in, NULL, (int64_t)(1 + lt_below(50))};
    pm_merge_reader *m;
    PM_OK_OR_FAIL(pm_merge_reader_new(&m, srcs, nruns, &o));
    size_t at = 0;
    for (;;) {
        pm_kv_group g;
        bool eof;
        int64_t run = 0;
        if (use_runs)
            PM_OK_OR_FAIL(pm_merge_reader_next_run(m, &g, &run, &eof));
        else
            PM_OK_OR_FAIL(pm_merge_reader_next(m, &g, &eof));
        if (eof)
            break;
        assert_true(g.n >= 1);
        assert_true(pm_merge_reader_live_batches(m) <= nruns + g.n);
        if (run) {
            /* rows of one batch, each the only record of its key */
            assert_int_equal(g.n, 1);
            assert_true(g.recs[0].row + run < g.recs[0].batch->num_rows);
            runs_seen += run;
            for (int64_t j = 0; j < run; j++, at++) {
                assert_true(at < total);
                pm_kv_rec got;
                pm_kv_rec_at(&got, g.recs[0].batch, &l, g.recs[0].row + j);
                if (strcmp(rec_tag(&got), all[at].tag) != 0) {
                    print_error("seed %llu: record %zu is %s, expected %s (run)\n", (unsigned long long)seed, at,
                                rec_tag(&got), all[at].tag);
                    fail();
                }
                assert_int_equal(got.seq, all[at].r.seq);
                assert_int_equal(got.kind, all[at].r.kind);
                assert_true(at == 0 || all[at - 1].r.k != all[at].r.k);
                assert_true(at + 1 == total || all[at + 1].r.k != all[at].r.k);
            }
            continue;
        }
        for (size_t i = 0; i < g.n; i++) {
            assert_true(at < total);
            const ref_rec *want = &all[at];
            const pm_kv_rec *got = &g.recs[i];
            if (strcmp(rec_tag(got), want->tag) != 0) {
                print_error("seed %llu: record %zu is %s, expected %s\n", (unsigned long long)seed, at,
                            rec_tag(got), want->tag);
                fail();
            }
            assert_int_equal(got->seq, want->r.seq);
            assert_int_equal(got->kind, want->r.kind);
            assert_int_equal(pm_column_i64(got->batch->columns[0], got->row), want->r.k);
            /* group boundary = key change in the reference */
            if (i > 0)
                assert_int_equal(want->r.k, all[at - 1].r.k);
            at++;
        }
        if (at < total)
            assert_true(all[at].r.k != all[at - 1].r.k);
    }
    assert_int_equal(at, total);
    if (nruns > (fan_in ? fan_in : 256))
        assert_true(pm_merge_reader_passes(m) >= 1);
    else
        assert_int_equal(pm_merge_reader_passes(m), 0);
    pm_merge_reader_free(m);
    assert_int_equal(closes, (int)nruns);
    pm_kv_layout_clear(&l);
    pm_type_free(t);
    free(srcs);
    free(all);
}

static void test_worked_example(void **state)
{
    (void)state;
    pm_type *t = lt_row_type();
    lt_rec a[] = {{1, 5, 0, 10, false, "a1"}, {3, 1, 0, 30, false, "a3"}, {4, 9, 3, 0, true, "a4"}};
    lt_rec b[] = {{1, 2, 0, 11, false, "b1"}, {2, 3, 0, 20, false, "b2"}, {4, 8, 0, 40, false, "b4"}};
    lt_rec c[] = {{1, 7, 2, 12, false, "c1"}};
    int closes = 0;
    pm_kv_source s[3] = {lt_source_of(t, a, 3, 2, false, &closes), lt_source_of(t, b, 3, 1, true, &closes),
                         lt_source_of(t, c, 1, 5, false, &closes)};
    pm_kv_layout l;
    lt_layout(&l);
    pm_merge_options o = {t, &l, 0, NULL, 0};
    pm_merge_reader *m;
    PM_OK_OR_FAIL(pm_merge_reader_new(&m, s, 3, &o));
    const char *want[] = {"b1,a1,c1", "b2", "a3", "b4,a4"};
    for (size_t gi = 0; gi < 4; gi++) {
        pm_kv_group g;
        bool eof;
        PM_OK_OR_FAIL(pm_merge_reader_next(m, &g, &eof));
        assert_false(eof);
        char buf[64] = "";
        for (size_t i = 0; i < g.n; i++) {
            strcat(buf, i ? "," : "");
            strcat(buf, rec_tag(&g.recs[i]));
        }
        assert_string_equal(buf, want[gi]);
    }
    pm_kv_group g;
    bool eof;
    PM_OK_OR_FAIL(pm_merge_reader_next(m, &g, &eof));
    assert_true(eof);
    assert_int_equal(g.n, 0);
    PM_OK_OR_FAIL(pm_merge_reader_next(m, &g, &eof));
    assert_true(eof);
    pm_merge_reader_free(m);
    assert_int_equal(closes, 3);
    /* no sources at all */
    PM_OK_OR_FAIL(pm_merge_reader_new(&m, NULL, 0, &o));
    PM_OK_OR_FAIL(pm_merge_reader_next(m, &g, &eof));
    assert_true(eof);
    pm_merge_reader_free(m);
    pm_kv_layout_clear(&l);
    pm_type_free(t);
}

static void test_model_random(void **state)
{
    (void)state;
    for (uint64_t i = 1; i <= 3000; i++) {
        size_t nruns = 1 + (size_t)(i * 7919 % 12);
        bool seqf = i % 3 == 0;
        int order = i % 2 ? 1 : -1;
        size_t fan = i % 5 == 0 ? 2 + (size_t)(i % 3) : 0; /* some multi-pass with small fan-in */
        run_case(i * 0x9e3779b97f4a7c15ull, nruns, fan, seqf, order);
    }
}

/* The same cases through pm_merge_reader_next_run: the same records in the
 * same order, runs only of records alone with their key. */
static void test_model_random_runs(void **state)
{
    (void)state;
    use_runs = true;
    runs_seen = 0;
    for (uint64_t i = 1; i <= 3000; i++) {
        size_t nruns = 1 + (size_t)(i * 7919 % 12);
        bool seqf = i % 3 == 0;
        int order = i % 2 ? 1 : -1;
        size_t fan = i % 5 == 0 ? 2 + (size_t)(i % 3) : 0;
        run_case(i * 0x9e3779b97f4a7c15ull, nruns, fan, seqf, order);
    }
    run_case(77, 300, 0, false, 1);
    run_case(79, 40, 2, false, 1);
    assert_true(runs_seen > 1000);
    use_runs = false;
}

static void test_memory_budget(void **state)
{
    (void)state;
    pm_type *t = lt_row_type();
    pm_kv_layout l;
    lt_layout(&l);
    /* 30 runs of 10-row batches; a budget for about 4 inputs forces passes */
    pm_kv_source s[30];
    lt_rec r[40];
    for (int i = 0; i < 30; i++) {
        for (int k = 0; k < 40; k++)
            r[k] = (lt_rec){k, i, 0, k, false, "abcdefgh"};
        s[i] = lt_source_of(t, r, 40, 10, false, NULL);
    }
    pm_merge_options o = {t, &l, 0, NULL, 0};
    pm_merge_reader *m;
    PM_OK_OR_FAIL(pm_merge_reader_new(&m, s, 30, &o));
    pm_merge_reader_set_memory_budget(m, 4 * 2 * 1200);
    size_t groups = 0, recs = 0;
    for (;;) {
        pm_kv_group g;
        bool eof;
        PM_OK_OR_FAIL(pm_merge_reader_next(m, &g, &eof));
        if (eof)
            break;
        groups++;
        recs += g.n;
        for (size_t i = 1; i < g.n; i++)
            assert_true(g.recs[i].seq > g.recs[i - 1].seq);
    }
    assert_int_equal(groups, 40);
    assert_int_equal(recs, 1200);
    assert_true(pm_merge_reader_fan_in(m) >= 2 && pm_merge_reader_fan_in(m) < 30);
    assert_true(pm_merge_reader_passes(m) >= 1);
    pm_merge_reader_free(m);
    /* a generous budget keeps one pass */
    for (int i = 0; i < 30; i++) {
        for (int k = 0; k < 40; k++)
            r[k] = (lt_rec){k, i, 0, k, false, "x"};
        s[i] = lt_source_of(t, r, 40, 10, false, NULL);
    }
    PM_OK_OR_FAIL(pm_merge_reader_new(&m, s, 30, &o));
    pm_merge_reader_set_memory_budget(m, 1 << 30);
    pm_kv_group g;
    bool eof;
    PM_OK_OR_FAIL(pm_merge_reader_next(m, &g, &eof));
    assert_int_equal(g.n, 30);
    assert_int_equal(pm_merge_reader_passes(m), 0);
    assert_int_equal(pm_merge_reader_fan_in(m), 256);
    pm_merge_reader_free(m);
    pm_kv_layout_clear(&l);
    pm_type_free(t);
}

static void test_many_runs(void **state)
{
    (void)state;
    run_case(77, 300, 0, false, 1);       /* > 256: two-level merge at the default fan-in */
    run_case(78, 300, 0, true, -1);
    run_case(79, 40, 2, false, 1);        /* several passes */
    run_case(80, 257, 0, false, 1);
    run_case(81, 256, 0, false, 1);       /* exactly at the limit: single pass */
}

/* ---- string keys ---- */

static pm_type *str_row_type(void)
{
    pm_type *t = pm_type_new_row(false);
    pm_type_add_field(t, 1073741823, "_KEY_s", pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true));
    pm_type_add_field(t, 2147483646, "_SEQUENCE_NUMBER", pm_type_new(PM_TYPE_BIGINT, false));
    pm_type_add_field(t, 2147483645, "_VALUE_KIND", pm_type_new(PM_TYPE_TINYINT, false));
    pm_type_add_field(t, 0, "s", pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true));
    return t;
}

typedef struct skey {
    bool null;
    uint8_t b[32];
    size_t n;
    int64_t seq;
} skey;

static int cmp_skey(const void *x, const void *y)
{
    const skey *a = x, *b = y;
    if (a->null != b->null)
        return a->null ? -1 : 1;
    if (!a->null) {
        size_t n = a->n < b->n ? a->n : b->n;
        int c = n ? memcmp(a->b, b->b, n) : 0;
        if (c)
            return c;
        if (a->n != b->n)
            return a->n < b->n ? -1 : 1;
    }
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void string_keys(bool runs, size_t prefix)
{
    static const uint8_t alpha[] = {0x00, 'a', 'b', 0xff};
    pm_type *t = str_row_type();
    pm_kv_layout l;
    PM_OK_OR_FAIL(pm_kv_layout_physical(&l, 1, 1));
    for (int iter = 0; iter < 300; iter++) {
        lt_seed(1000 + (uint64_t)iter);
        size_t nruns = 1 + lt_below(6);
        skey all[400];
        size_t total = 0;
        pm_kv_source srcs[8];
        for (size_t s = 0; s < nruns; s++) {
            skey r[60];
            size_t n = lt_below(60);
            for (size_t i = 0; i < n; i++) {
                r[i].null = lt_below(8) == 0;
                r[i].n = prefix + lt_below(4);
                for (size_t j = 0; j < r[i].n; j++)
                    r[i].b[j] = j < prefix ? (uint8_t)('A' + j % 3) : alpha[lt_below(4)];
                r[i].seq = (int64_t)(s * 1000 + i);
            }
            qsort(r, n, sizeof *r, cmp_skey);
            pm_batch *b;
            PM_OK_OR_FAIL(pm_batch_new(&b, t));
            for (size_t i = 0; i < n; i++) {
                for (int c = 0; c < 4; c += 3) {
                    if (r[i].null)
                        PM_OK_OR_FAIL(pm_column_append_null(b->columns[c]));
                    else
                        PM_OK_OR_FAIL(pm_column_append_bytes(b->columns[c], r[i].b, r[i].n));
                }
                PM_OK_OR_FAIL(pm_column_append_i64(b->columns[1], r[i].seq));
                PM_OK_OR_FAIL(pm_column_append_i8(b->columns[2], 0));
                all[total++] = r[i];
            }
            PM_OK_OR_FAIL(pm_batch_finish(b, (int64_t)n));
            pm_batch **arr = malloc(sizeof *arr);
            arr[0] = b;
            srcs[s] = lt_source(arr, 1, NULL);
        }
        qsort(all, total, sizeof *all, cmp_skey);
        pm_merge_options o = {t, &l, 0, NULL, 0};
        pm_merge_reader *m;
        PM_OK_OR_FAIL(pm_merge_reader_new(&m, srcs, nruns, &o));
        size_t at = 0;
        for (;;) {
            pm_kv_group g;
            bool eof;
            int64_t run = 0;
            if (runs)
                PM_OK_OR_FAIL(pm_merge_reader_next_run(m, &g, &run, &eof));
            else
                PM_OK_OR_FAIL(pm_merge_reader_next(m, &g, &eof));
            if (eof)
                break;
            for (int64_t j = 0; j < run; j++, at++) {
                pm_kv_rec got;
                pm_kv_rec_at(&got, g.recs[0].batch, &l, g.recs[0].row + j);
                assert_int_equal(got.seq, all[at].seq);
                for (int d = -1; d <= 1; d += 2) { /* alone with its key */
                    if ((d < 0 && at == 0) || (d > 0 && at + 1 == total))
                        continue;
                    skey a = all[at], b = all[at + (size_t)d];
                    a.seq = b.seq = 0;
                    assert_true(cmp_skey(&a, &b) != 0);
                }
                runs_seen++;
            }
            if (run)
                continue;
            for (size_t i = 0; i < g.n; i++, at++) {
                assert_int_equal(g.recs[i].seq, all[at].seq);
                if (i) { /* same key as the previous record */
                    skey a = all[at], b = all[at - 1];
                    a.seq = b.seq = 0;
                    assert_int_equal(cmp_skey(&a, &b), 0);
                }
            }
            /* the next record (if any) has a different key */
            if (at < total) {
                skey a = all[at], b = all[at - 1];
                a.seq = b.seq = 0;
                assert_true(cmp_skey(&a, &b) != 0);
            }
        }
        assert_int_equal(at, total);
        pm_merge_reader_free(m);
    }
    pm_kv_layout_clear(&l);
    pm_type_free(t);
}

static void test_string_keys(void **state)
{
    (void)state;
    string_keys(false, 0);
    string_keys(false, 20); /* keys longer than the 16 bytes kept in a head */
    runs_seen = 0;
    string_keys(true, 0);
    string_keys(true, 20);
    assert_true(runs_seen > 100);
}

/* ---- errors ---- */

static void test_errors(void **state)
{
    (void)state;
    pm_type *t = lt_row_type();
    pm_kv_layout l;
    lt_layout(&l);
    pm_merge_options o = {t, &l, 0, NULL, 0};
    int closes = 0;
    /* unsorted input */
    lt_rec bad[] = {{2, 1, 0, 0, false, "x"}, {1, 2, 0, 0, false, "y"}};
    lt_rec ok[] = {{0, 1, 0, 0, false, "z"}};
    pm_kv_source s[2] = {lt_source_of(t, bad, 2, 1, false, &closes), lt_source_of(t, ok, 1, 1, false, &closes)};
    pm_merge_reader *m;
    PM_OK_OR_FAIL(pm_merge_reader_new(&m, s, 2, &o));
    pm_kv_group g;
    bool eof;
    pm_error *e = NULL;
    for (int i = 0; i < 5 && !e; i++) {
        e = pm_merge_reader_next(m, &g, &eof);
        if (!e && eof)
            break;
    }
    assert_non_null(e);
    assert_int_equal(pm_error_code(e), PM_ECORRUPT);
    pm_error_free(e);
    PM_EXPECT_ERR(pm_merge_reader_next(m, &g, &eof), PM_ECORRUPT); /* sticky */
    pm_merge_reader_free(m);
    assert_int_equal(closes, 2);
    /* unsorted inside one batch */
    closes = 0;
    s[0] = lt_source_of(t, bad, 2, 2, false, &closes);
    PM_OK_OR_FAIL(pm_merge_reader_new(&m, s, 1, &o));
    /* found while completing the first group (key 2 is followed by key 1) */
    PM_EXPECT_ERR(pm_merge_reader_next(m, &g, &eof), PM_ECORRUPT);
    pm_merge_reader_free(m);
    assert_int_equal(closes, 1);
    /* failing source */
    closes = 0;
    s[0] = lt_source_of(t, ok, 1, 1, false, &closes);
    ((lt_src *)s[0].ctx)->fail_at = 0;
    s[1] = lt_source_of(t, ok, 1, 1, false, &closes);
    PM_OK_OR_FAIL(pm_merge_reader_new(&m, s, 2, &o));
    PM_EXPECT_ERR(pm_merge_reader_next(m, &g, &eof), PM_EIO);
    pm_merge_reader_free(m);
    assert_int_equal(closes, 2);
    /* failing source inside a multi-pass chunk */
    closes = 0;
    pm_kv_source many[7];
    for (int i = 0; i < 7; i++)
        many[i] = lt_source_of(t, ok, 1, 1, false, &closes);
    ((lt_src *)many[4].ctx)->fail_at = 0;
    pm_merge_options o2 = {t, &l, 2, NULL, 0};
    PM_OK_OR_FAIL(pm_merge_reader_new(&m, many, 7, &o2));
    PM_EXPECT_ERR(pm_merge_reader_next(m, &g, &eof), PM_EIO);
    pm_merge_reader_free(m);
    assert_int_equal(closes, 7);
    /* bad kind value */
    closes = 0;
    lt_rec kind9[] = {{1, 1, 9, 0, false, "k"}};
    s[0] = lt_source_of(t, kind9, 1, 1, false, &closes);
    PM_OK_OR_FAIL(pm_merge_reader_new(&m, s, 1, &o));
    PM_EXPECT_ERR(pm_merge_reader_next(m, &g, &eof), PM_ECORRUPT);
    pm_merge_reader_free(m);
    /* batch of another type */
    pm_type *other = pm_type_new_row(false);
    pm_type_add_field(other, 0, "x", pm_type_new(PM_TYPE_INT, false));
    pm_batch **arr = malloc(sizeof *arr);
    PM_OK_OR_FAIL(pm_batch_new(&arr[0], other));
    PM_OK_OR_FAIL(pm_column_append_i32(arr[0]->columns[0], 1));
    PM_OK_OR_FAIL(pm_batch_finish(arr[0], 1));
    s[0] = lt_source(arr, 1, &closes);
    PM_OK_OR_FAIL(pm_merge_reader_new(&m, s, 1, &o));
    PM_EXPECT_ERR(pm_merge_reader_next(m, &g, &eof), PM_EINVALID);
    pm_merge_reader_free(m);
    assert_int_equal(closes, 2);
    /* bad options still close the sources */
    closes = 0;
    s[0] = lt_source_of(t, ok, 1, 1, false, &closes);
    pm_merge_options bado = {t, &l, 1, NULL, 0};
    PM_EXPECT_ERR(pm_merge_reader_new(&m, s, 1, &bado), PM_EINVALID);
    assert_int_equal(closes, 1);
    s[0] = lt_source_of(t, ok, 1, 1, false, &closes);
    pm_kv_layout badl;
    PM_OK_OR_FAIL(pm_kv_layout_physical(&badl, 2, 0)); /* kind column would be a BIGINT */
    pm_merge_options bado2 = {t, &badl, 0, NULL, 0};
    PM_EXPECT_ERR(pm_merge_reader_new(&m, s, 1, &bado2), PM_EINVALID);
    assert_int_equal(closes, 2);
    pm_kv_layout_clear(&badl);
    pm_type_free(other);
    pm_kv_layout_clear(&l);
    pm_type_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_example),
        cmocka_unit_test(test_model_random),
        cmocka_unit_test(test_model_random_runs),
        cmocka_unit_test(test_many_runs),
        cmocka_unit_test(test_memory_budget),
        cmocka_unit_test(test_string_keys),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
