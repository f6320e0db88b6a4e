/*
 * tests/unit/lsm/test_lsm_merge_engine.c — the four merge engines on
 * hand-computed examples: deduplicate (winning retracts, ignore-delete),
 * first-row (retract rejection, ignore-delete), partial-update (non-null
 * merge, NOT NULL fields, ignore-delete with a leading retract,
 * remove-record-on-delete, sequence groups with out-of-order and null
 * ordering values, aggregators inside groups incl. reversed order, group
 * retracts, remove-record-on-sequence-group), aggregation (every function
 * with nulls and retracts, ignore-retract, remove-record-on-delete,
 * sequence fields, decimals, overflow, listagg/collect distinct,
 * merge_map), the single-record pass-through of REDUCE mode vs FULL mode,
 * the persistence restrictions, the emit into a physical layout, and
 * every option validation error.
 *
 * Rows are JSON lines of ROW<_SEQUENCE_NUMBER, _VALUE_KIND, fields...>;
 * results print as "<kind> <seq> {fields}".
 */
#include <stdio.h>

#include "lsm/merge_engine.h"
#include "pm_test.h"
#include "types/value.h"

typedef struct outcome {
    pm_error *err;
    char text[1024];
} outcome;

static pm_options *opts_of(const char *spec)
{
    pm_options *o;
    PM_OK_OR_FAIL(pm_options_new(&o));
    if (!spec)
        return o;
    char *s = strdup(spec), *save = NULL;
    for (char *kv = strtok_r(s, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(kv, '=');
        *eq = 0;
        PM_OK_OR_FAIL(pm_options_set(o, kv, eq + 1));
    }
    free(s);
    return o;
}

static pm_type *parse_type(const char *fields, bool with_system)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "ROW<%s%s>", with_system ? "_SEQUENCE_NUMBER BIGINT NOT NULL, _VALUE_KIND TINYINT NOT NULL, " : "",
             fields);
    pm_type *t;
    PM_OK_OR_FAIL(pm_type_parse(&t, buf));
    return t;
}

/* Create the engine only (for validation tests). */
static pm_error *make(const char *fields, const char *spec, pm_merge_fn_options *eo, pm_merge_fn **out)
{
    pm_type *vt = parse_type(fields, false);
    pm_options *o = opts_of(spec);
    const char *pk[] = {"id"};
    pm_error *e = pm_merge_fn_new(out, vt, pk, 1, o, eo);
    pm_options_free(o);
    pm_type_free(vt);
    return e;
}

static void describe(const pm_batch *out, int64_t row, char *text, size_t cap)
{
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_batch_format_row_json(out, row, &b));
    PM_OK_OR_FAIL(pm_buf_append_byte(&b, 0));
    const char *j = (const char *)b.data;
    const char *rest = strstr(j, ",\"id\"");
    snprintf(text, cap, "%s %lld {%s", pm_kind_name((uint8_t)pm_column_i8(out->columns[1], row)),
             (long long)pm_column_i64(out->columns[0], row), rest + 1);
    pm_buf_free(&b);
}

/* Fold `lines` (all one key) with the engine of `fields` + options. */
static outcome run_eo(const char *fields, const char *spec, const char *lines, pm_merge_mode mode, bool persist)
{
    outcome r;
    memset(&r, 0, sizeof r);
    pm_type *rt = parse_type(fields, true);
    for (size_t i = 2; i < rt->nfields; i++) /* batches may hold nulls the table type forbids */
        rt->fields[i].type->nullable = true;
    pm_batch *in;
    PM_OK_OR_FAIL(pm_batch_from_json_lines(&in, rt, lines, strlen(lines)));
    size_t nv = rt->nfields - 2;
    size_t *vc = malloc(nv * sizeof *vc);
    for (size_t i = 0; i < nv; i++)
        vc[i] = 2 + i;
    size_t kc = 2;
    pm_kv_layout l;
    PM_OK_OR_FAIL(pm_kv_layout_init(&l, &kc, 1, 0, 1, vc, nv));
    pm_merge_fn_options eo = {mode, persist};
    pm_merge_fn *e = NULL;
    r.err = make(fields, spec, &eo, &e);
    if (!r.err) {
        size_t n = (size_t)pm_batch_num_rows(in);
        pm_kv_rec *recs = calloc(n ? n : 1, sizeof *recs);
        for (size_t i = 0; i < n; i++)
            pm_kv_rec_at(&recs[i], in, &l, (int64_t)i);
        pm_merge_result res;
        r.err = pm_merge_fn_fold(e, &l, recs, n, &res);
        if (!r.err && !res.has)
            snprintf(r.text, sizeof r.text, "(none)");
        if (!r.err && res.has) {
            pm_batch *out;
            PM_OK_OR_FAIL(pm_batch_new(&out, rt));
            r.err = pm_merge_fn_emit(e, out, &l);
            if (!r.err) {
                PM_OK_OR_FAIL(pm_batch_finish(out, 1));
                describe(out, 0, r.text, sizeof r.text);
                assert_int_equal(pm_column_i8(out->columns[1], 0), res.kind);
                assert_int_equal(pm_column_i64(out->columns[0], 0), res.seq);
            }
            pm_batch_free(out);
        }
        free(recs);
    }
    pm_merge_fn_free(e);
    pm_kv_layout_clear(&l);
    free(vc);
    pm_batch_free(in);
    pm_type_free(rt);
    return r;
}

static outcome run(const char *fields, const char *spec, const char *lines)
{
    return run_eo(fields, spec, lines, PM_MERGE_REDUCE, false);
}

#define EXPECT(o, want)                                                                              \
    do {                                                                                             \
        outcome o_ = (o);                                                                            \
        if (o_.err) {                                                                                \
            char *s_ = pm_error_format(o_.err);                                                      \
            print_error("%s:%d: unexpected error %s\n", __FILE__, __LINE__, s_);                     \
            free(s_);                                                                                \
            pm_error_free(o_.err);                                                                   \
            fail();                                                                                  \
        }                                                                                            \
        if (strcmp(o_.text, (want)) != 0) {                                                          \
            print_error("%s:%d:\n  got  %s\n  want %s\n", __FILE__, __LINE__, o_.text, (want));      \
            fail();                                                                                  \
        }                                                                                            \
    } while (0)

#define EXPECT_CODE(o, code)                                                                         \
    do {                                                                                             \
        outcome o_ = (o);                                                                            \
        if (!o_.err) {                                                                               \
            print_error("%s:%d: expected an error, got %s\n", __FILE__, __LINE__, o_.text);          \
            fail();                                                                                  \
        }                                                                                            \
        assert_int_equal(pm_error_code(o_.err), (code));                                             \
        pm_error_free(o_.err);                                                                       \
    } while (0)

#define ROW(seq, kind, body) "{\"_SEQUENCE_NUMBER\":" #seq ",\"_VALUE_KIND\":" #kind "," body "}\n"

/* ---------------- deduplicate ---------------- */

static void test_deduplicate(void **state)
{
    (void)state;
    const char *F = "id BIGINT NOT NULL, v INT";
    EXPECT(run(F, NULL, ROW(1, 0, "\"id\":1,\"v\":1") ROW(2, 2, "\"id\":1,\"v\":2")), "+U 2 {\"id\":1,\"v\":2}");
    /* the winning retract is kept */
    EXPECT(run(F, NULL, ROW(1, 0, "\"id\":1,\"v\":1") ROW(2, 3, "\"id\":1,\"v\":1")), "-D 2 {\"id\":1,\"v\":1}");
    EXPECT(run(F, NULL, ROW(1, 3, "\"id\":1,\"v\":1") ROW(5, 0, "\"id\":1,\"v\":7")), "+I 5 {\"id\":1,\"v\":7}");
    /* ignore-delete (and its legacy key) skips retracts */
    EXPECT(run(F, "ignore-delete=true", ROW(1, 0, "\"id\":1,\"v\":1") ROW(2, 3, "\"id\":1,\"v\":1")),
           "+I 1 {\"id\":1,\"v\":1}");
    EXPECT(run(F, "deduplicate.ignore-delete=true", ROW(1, 0, "\"id\":1,\"v\":1") ROW(2, 1, "\"id\":1,\"v\":1")),
           "+I 1 {\"id\":1,\"v\":1}");
    EXPECT(run(F, "ignore-delete=true", ROW(1, 3, "\"id\":1,\"v\":1") ROW(2, 1, "\"id\":1,\"v\":1")), "(none)");
    /* a single record passes through (Java's reducer wrapper), even a retract */
    EXPECT(run(F, "ignore-delete=true", ROW(4, 3, "\"id\":1,\"v\":null")), "-D 4 {\"id\":1,\"v\":null}");
    /* ... unless the function runs on singles too (lookup) */
    EXPECT(run_eo(F, "ignore-delete=true", ROW(4, 3, "\"id\":1,\"v\":null"), PM_MERGE_FULL, false), "(none)");
    /* the input order is the merge order: the last one wins even with a smaller sequence */
    EXPECT(run(F, "sequence.field=v", ROW(9, 0, "\"id\":1,\"v\":1") ROW(3, 0, "\"id\":1,\"v\":5")),
           "+I 3 {\"id\":1,\"v\":5}");
}

/* ---------------- first-row ---------------- */

static void test_first_row(void **state)
{
    (void)state;
    const char *F = "id BIGINT NOT NULL, v STRING";
    const char *S = "merge-engine=first-row";
    EXPECT(run(F, S, ROW(1, 0, "\"id\":1,\"v\":\"a\"") ROW(2, 0, "\"id\":1,\"v\":\"b\"")),
           "+I 1 {\"id\":1,\"v\":\"a\"}");
    EXPECT(run(F, S, ROW(1, 2, "\"id\":1,\"v\":\"a\"") ROW(2, 0, "\"id\":1,\"v\":\"b\"")),
           "+U 1 {\"id\":1,\"v\":\"a\"}");
    EXPECT_CODE(run(F, S, ROW(1, 0, "\"id\":1,\"v\":\"a\"") ROW(2, 3, "\"id\":1,\"v\":\"a\"")), PM_EINVALID);
    EXPECT_CODE(run(F, S, ROW(1, 1, "\"id\":1,\"v\":\"a\"") ROW(2, 0, "\"id\":1,\"v\":\"b\"")), PM_EINVALID);
    EXPECT(run(F, "merge-engine=first-row;ignore-delete=true",
               ROW(1, 3, "\"id\":1,\"v\":\"a\"") ROW(2, 0, "\"id\":1,\"v\":\"b\"") ROW(3, 0, "\"id\":1,\"v\":\"c\"")),
           "+I 2 {\"id\":1,\"v\":\"b\"}");
    EXPECT(run(F, "merge-engine=first-row;first-row.ignore-delete=true",
               ROW(1, 3, "\"id\":1,\"v\":\"a\"") ROW(2, 1, "\"id\":1,\"v\":\"b\"")),
           "(none)");
    /* single retract: passes in REDUCE mode, rejected when folded */
    EXPECT(run(F, S, ROW(1, 3, "\"id\":1,\"v\":\"a\"")), "-D 1 {\"id\":1,\"v\":\"a\"}");
    EXPECT_CODE(run_eo(F, S, ROW(1, 3, "\"id\":1,\"v\":\"a\""), PM_MERGE_FULL, false), PM_EINVALID);
    /* first-row takes no sequence.field */
    pm_merge_fn *e;
    PM_EXPECT_ERR(make(F, "merge-engine=first-row;sequence.field=v", NULL, &e), PM_EINVALID);
}

/* ---------------- partial-update ---------------- */

static void test_partial_update_basic(void **state)
{
    (void)state;
    const char *F = "id BIGINT NOT NULL, a INT, b STRING";
    const char *S = "merge-engine=partial-update";
    EXPECT(run(F, S,
               ROW(1, 0, "\"id\":1,\"a\":1,\"b\":null") ROW(2, 2, "\"id\":1,\"a\":null,\"b\":\"x\"")
                   ROW(3, 0, "\"id\":1,\"a\":3,\"b\":null")),
           "+I 3 {\"id\":1,\"a\":3,\"b\":\"x\"}");
    /* NOT NULL fields must not receive null */
    EXPECT_CODE(run("id BIGINT NOT NULL, a INT NOT NULL", S,
                    ROW(1, 0, "\"id\":1,\"a\":1") ROW(2, 0, "\"id\":1,\"a\":null")),
                PM_EINVALID);
    /* retracts are rejected by default */
    EXPECT_CODE(run(F, S, ROW(1, 0, "\"id\":1,\"a\":1,\"b\":null") ROW(2, 3, "\"id\":1,\"a\":1,\"b\":null")),
                PM_EINVALID);
    /* ignore-delete: a leading retract still initializes the row */
    EXPECT(run(F, "merge-engine=partial-update;ignore-delete=true",
               ROW(1, 3, "\"id\":1,\"a\":9,\"b\":\"old\"") ROW(2, 0, "\"id\":1,\"a\":1,\"b\":null")),
           "+I 2 {\"id\":1,\"a\":1,\"b\":\"old\"}");
    EXPECT(run(F, "merge-engine=partial-update;partial-update.ignore-delete=true",
               ROW(1, 0, "\"id\":1,\"a\":1,\"b\":null") ROW(2, 3, "\"id\":1,\"a\":5,\"b\":null")
                   ROW(3, 0, "\"id\":1,\"a\":null,\"b\":\"y\"")),
           "+I 3 {\"id\":1,\"a\":1,\"b\":\"y\"}");
    /* only ignored retracts: a delete of the first values, sequence 0 */
    EXPECT(run(F, "merge-engine=partial-update;ignore-delete=true",
               ROW(4, 3, "\"id\":1,\"a\":9,\"b\":null") ROW(5, 1, "\"id\":1,\"a\":8,\"b\":\"z\"")),
           "-D 0 {\"id\":1,\"a\":9,\"b\":null}");
    /* remove-record-on-delete */
    const char *R = "merge-engine=partial-update;partial-update.remove-record-on-delete=true";
    EXPECT(run(F, R, ROW(1, 0, "\"id\":1,\"a\":1,\"b\":\"x\"") ROW(2, 3, "\"id\":1,\"a\":null,\"b\":null")),
           "-D 2 {\"id\":1,\"a\":null,\"b\":null}");
    EXPECT(run(F, R,
               ROW(1, 0, "\"id\":1,\"a\":1,\"b\":\"x\"") ROW(2, 3, "\"id\":1,\"a\":7,\"b\":null")
                   ROW(3, 0, "\"id\":1,\"a\":null,\"b\":\"n\"")),
           "+I 3 {\"id\":1,\"a\":7,\"b\":\"n\"}");
    /* -U does not delete, but its sequence counts */
    EXPECT(run(F, R, ROW(1, 0, "\"id\":1,\"a\":1,\"b\":\"x\"") ROW(2, 1, "\"id\":1,\"a\":1,\"b\":\"x\"")),
           "+I 2 {\"id\":1,\"a\":1,\"b\":\"x\"}");
    /* a record of one row: passes unchanged */
    EXPECT(run(F, S, ROW(7, 2, "\"id\":1,\"a\":null,\"b\":\"q\"")), "+U 7 {\"id\":1,\"a\":null,\"b\":\"q\"}");
    EXPECT(run_eo(F, S, ROW(7, 2, "\"id\":1,\"a\":null,\"b\":\"q\""), PM_MERGE_FULL, false),
           "+I 7 {\"id\":1,\"a\":null,\"b\":\"q\"}");
}

static void test_partial_update_sequence_groups(void **state)
{
    (void)state;
    const char *F = "id BIGINT NOT NULL, a INT, b INT, g1 INT, c INT, d INT, g2 INT";
    const char *S = "merge-engine=partial-update;fields.g1.sequence-group=a,b;fields.g2.sequence-group=c,d";
    /* r2 is newer for group 1 (g1 2 > 1, b becomes null) but older for group 2 (g2 0 < 1);
     * r3 has null ordering values: both groups untouched */
    EXPECT(run(F, S,
               ROW(1, 0, "\"id\":1,\"a\":1,\"b\":1,\"g1\":1,\"c\":1,\"d\":1,\"g2\":1")
                   ROW(2, 0, "\"id\":1,\"a\":2,\"b\":null,\"g1\":2,\"c\":2,\"d\":2,\"g2\":0")
                       ROW(3, 0, "\"id\":1,\"a\":3,\"b\":3,\"g1\":null,\"c\":null,\"d\":null,\"g2\":null")),
           "+I 3 {\"id\":1,\"a\":2,\"b\":null,\"g1\":2,\"c\":1,\"d\":1,\"g2\":1}");
    /* equal ordering values update (>=) */
    EXPECT(run(F, S,
               ROW(1, 0, "\"id\":1,\"a\":1,\"b\":1,\"g1\":5,\"c\":null,\"d\":null,\"g2\":null")
                   ROW(2, 0, "\"id\":1,\"a\":9,\"b\":9,\"g1\":5,\"c\":null,\"d\":null,\"g2\":null")),
           "+I 2 {\"id\":1,\"a\":9,\"b\":9,\"g1\":5,\"c\":null,\"d\":null,\"g2\":null}");
    /* two ordering fields: compared in order, nulls first */
    const char *F2 = "id BIGINT NOT NULL, a STRING, x INT, y INT";
    const char *S2 = "merge-engine=partial-update;fields.x,y.sequence-group=a";
    EXPECT(run(F2, S2,
               ROW(1, 0, "\"id\":1,\"a\":\"p\",\"x\":1,\"y\":5") ROW(2, 0, "\"id\":1,\"a\":\"q\",\"x\":1,\"y\":null")
                   ROW(3, 0, "\"id\":1,\"a\":\"r\",\"x\":1,\"y\":6")),
           "+I 3 {\"id\":1,\"a\":\"r\",\"x\":1,\"y\":6}");
    EXPECT(run(F2, S2, ROW(1, 0, "\"id\":1,\"a\":\"p\",\"x\":2,\"y\":0") ROW(2, 0, "\"id\":1,\"a\":\"q\",\"x\":1,\"y\":9")),
           "+I 2 {\"id\":1,\"a\":\"p\",\"x\":2,\"y\":0}");
}

static void test_partial_update_group_aggregators(void **state)
{
    (void)state;
    const char *F = "id BIGINT NOT NULL, a INT, m INT, l INT, g INT, z STRING";
    const char *S = "merge-engine=partial-update;fields.g.sequence-group=a,m;fields.a.aggregate-function=sum;"
                    "fields.m.aggregate-function=max;fields.z.aggregate-function=last_non_null_value";
    /* older record (g 0 < 1) aggregates reversed: sum and max are symmetric */
    EXPECT(run(F, S,
               ROW(1, 0, "\"id\":1,\"a\":1,\"m\":4,\"l\":1,\"g\":1,\"z\":\"a\"")
                   ROW(2, 0, "\"id\":1,\"a\":5,\"m\":9,\"l\":null,\"g\":0,\"z\":null")
                       ROW(3, 0, "\"id\":1,\"a\":2,\"m\":1,\"l\":3,\"g\":3,\"z\":\"c\"")),
           "+I 3 {\"id\":1,\"a\":8,\"m\":9,\"l\":3,\"g\":3,\"z\":\"c\"}");
    /* first_value reversed: the older record's value becomes the first (Java's aggReversed) */
    const char *S2 = "merge-engine=partial-update;fields.g.sequence-group=a;fields.a.aggregate-function=first_value";
    EXPECT(run("id BIGINT NOT NULL, a INT, g INT", S2,
               ROW(1, 0, "\"id\":1,\"a\":10,\"g\":5") ROW(2, 0, "\"id\":1,\"a\":20,\"g\":1")),
           "+I 2 {\"id\":1,\"a\":20,\"g\":5}");
    EXPECT(run("id BIGINT NOT NULL, a INT, g INT", S2,
               ROW(1, 0, "\"id\":1,\"a\":10,\"g\":5") ROW(2, 0, "\"id\":1,\"a\":20,\"g\":7")),
           "+I 2 {\"id\":1,\"a\":10,\"g\":7}");
    /* default function applies to group members only; others need last_non_null_value */
    pm_merge_fn *e;
    PM_EXPECT_ERR(make(F, "merge-engine=partial-update;fields.l.aggregate-function=sum", NULL, &e), PM_EINVALID);
    PM_EXPECT_ERR(make(F, "merge-engine=partial-update;fields.default-aggregate-function=sum", NULL, &e),
                  PM_EINVALID);
    PM_OK_OR_FAIL(make(F,
                       "merge-engine=partial-update;fields.g.sequence-group=a,m,l,z;"
                       "fields.default-aggregate-function=max",
                       NULL, &e));
    pm_merge_fn_free(e);
    PM_OK_OR_FAIL(make(F, "merge-engine=partial-update;fields.default-aggregate-function=last_non_null_value", NULL,
                       &e));
    pm_merge_fn_free(e);
    /* an unknown function name is an error even on a sequence field */
    PM_EXPECT_ERR(make(F, "merge-engine=partial-update;fields.g.sequence-group=a;fields.g.aggregate-function=nope",
                       NULL, &e),
                  PM_EINVALID);
}

static void test_partial_update_group_retracts(void **state)
{
    (void)state;
    const char *F = "id BIGINT NOT NULL, a INT, g INT, b INT, h INT";
    const char *S = "merge-engine=partial-update;fields.g.sequence-group=a;fields.h.sequence-group=b";
    /* newer retract of group g nulls a and moves g; group h untouched (empty) */
    EXPECT(run(F, S,
               ROW(1, 0, "\"id\":1,\"a\":1,\"g\":1,\"b\":7,\"h\":1")
                   ROW(2, 1, "\"id\":1,\"a\":1,\"g\":2,\"b\":null,\"h\":null")),
           "+I 2 {\"id\":1,\"a\":null,\"g\":2,\"b\":7,\"h\":1}");
    /* older retract: no aggregator → nothing changes */
    EXPECT(run(F, S,
               ROW(1, 0, "\"id\":1,\"a\":1,\"g\":5,\"b\":7,\"h\":1")
                   ROW(2, 3, "\"id\":1,\"a\":1,\"g\":2,\"b\":null,\"h\":null")),
           "+I 2 {\"id\":1,\"a\":1,\"g\":5,\"b\":7,\"h\":1}");
    /* retract of an aggregate: sum subtracts whether newer or older */
    const char *SA = "merge-engine=partial-update;fields.g.sequence-group=a;fields.a.aggregate-function=sum;"
                     "fields.h.sequence-group=b";
    EXPECT(run(F, SA,
               ROW(1, 0, "\"id\":1,\"a\":5,\"g\":1,\"b\":null,\"h\":null")
                   ROW(2, 1, "\"id\":1,\"a\":2,\"g\":2,\"b\":null,\"h\":null")),
           "+I 2 {\"id\":1,\"a\":3,\"g\":2,\"b\":null,\"h\":null}");
    EXPECT(run(F, SA,
               ROW(1, 0, "\"id\":1,\"a\":5,\"g\":4,\"b\":null,\"h\":null")
                   ROW(2, 1, "\"id\":1,\"a\":2,\"g\":2,\"b\":null,\"h\":null")),
           "+I 2 {\"id\":1,\"a\":3,\"g\":4,\"b\":null,\"h\":null}");
    /* a retract first: the row starts from it, no insert seen → -D */
    EXPECT(run(F, S, ROW(1, 3, "\"id\":1,\"a\":4,\"g\":1,\"b\":null,\"h\":null") ROW(2, 1, "\"id\":1,\"a\":4,\"g\":2,\"b\":null,\"h\":null")),
           "-D 2 {\"id\":1,\"a\":null,\"g\":2,\"b\":null,\"h\":null}");
    /* remove-record-on-sequence-group: a newer -D of group g deletes the row */
    const char *SD = "merge-engine=partial-update;fields.g.sequence-group=a;fields.h.sequence-group=b;"
                     "partial-update.remove-record-on-sequence-group=g";
    EXPECT(run(F, SD,
               ROW(1, 0, "\"id\":1,\"a\":1,\"g\":1,\"b\":7,\"h\":1")
                   ROW(2, 3, "\"id\":1,\"a\":null,\"g\":2,\"b\":null,\"h\":null")),
           "-D 2 {\"id\":1,\"a\":null,\"g\":2,\"b\":null,\"h\":null}");
    /* ... but a -D of the other group only retracts that group */
    EXPECT(run(F, SD,
               ROW(1, 0, "\"id\":1,\"a\":1,\"g\":1,\"b\":7,\"h\":1")
                   ROW(2, 3, "\"id\":1,\"a\":null,\"g\":null,\"b\":7,\"h\":2")),
           "+I 2 {\"id\":1,\"a\":1,\"g\":1,\"b\":null,\"h\":2}");
    /* an older -D of the deleting group changes nothing */
    EXPECT(run(F, SD,
               ROW(1, 0, "\"id\":1,\"a\":1,\"g\":5,\"b\":7,\"h\":1")
                   ROW(2, 3, "\"id\":1,\"a\":null,\"g\":2,\"b\":null,\"h\":null")),
           "+I 2 {\"id\":1,\"a\":1,\"g\":5,\"b\":7,\"h\":1}");
}

static void test_partial_update_validation(void **state)
{
    (void)state;
    const char *F = "id BIGINT NOT NULL, a INT, g INT, b INT, h INT";
    pm_merge_fn *e;
    PM_EXPECT_ERR(make(F, "merge-engine=partial-update;ignore-delete=true;partial-update.remove-record-on-delete=true",
                       NULL, &e),
                  PM_EINVALID);
    PM_EXPECT_ERR(make(F,
                       "merge-engine=partial-update;ignore-delete=true;fields.g.sequence-group=a;"
                       "partial-update.remove-record-on-sequence-group=g",
                       NULL, &e),
                  PM_EINVALID);
    PM_EXPECT_ERR(make(F,
                       "merge-engine=partial-update;partial-update.remove-record-on-delete=true;"
                       "fields.g.sequence-group=a",
                       NULL, &e),
                  PM_EINVALID);
    PM_EXPECT_ERR(make(F,
                       "merge-engine=partial-update;fields.g.sequence-group=a;"
                       "partial-update.remove-record-on-sequence-group=a",
                       NULL, &e),
                  PM_EINVALID);
    PM_EXPECT_ERR(make(F, "merge-engine=partial-update;fields.g.sequence-group=id", NULL, &e), PM_EINVALID);
    PM_EXPECT_ERR(make(F, "merge-engine=partial-update;fields.id.sequence-group=a", NULL, &e), PM_EINVALID);
    PM_EXPECT_ERR(make(F, "merge-engine=partial-update;fields.g.sequence-group=a;fields.h.sequence-group=a", NULL,
                       &e),
                  PM_EINVALID);
    PM_EXPECT_ERR(make(F, "merge-engine=partial-update;fields.g.sequence-group=nope", NULL, &e), PM_EINVALID);
    PM_EXPECT_ERR(make(F, "merge-engine=partial-update;fields.nope.sequence-group=a", NULL, &e), PM_EINVALID);
    /* Java splits without trimming */
    PM_EXPECT_ERR(make(F, "merge-engine=partial-update;fields.g.sequence-group=a, b", NULL, &e), PM_EINVALID);
    PM_OK_OR_FAIL(make(F, "merge-engine=partial-update;fields.g.sequence-group=a,b", NULL, &e));
    pm_merge_fn_free(e);
    /* ignore-retract conflicts with aggregation.remove-record-on-delete for every aggregator */
    PM_EXPECT_ERR(make(F,
                       "merge-engine=partial-update;fields.g.sequence-group=a;fields.a.aggregate-function=sum;"
                       "fields.a.ignore-retract=true;aggregation.remove-record-on-delete=true",
                       NULL, &e),
                  PM_EINVALID);
}

/* ---------------- aggregation ---------------- */

static void test_aggregation_functions(void **state)
{
    (void)state;
    const char *F = "id BIGINT NOT NULL, s INT, p BIGINT, mn STRING, mx DOUBLE, f INT, fn INT, lv INT, ln INT, "
                    "ba BOOLEAN, bo BOOLEAN, la STRING";
    const char *S = "merge-engine=aggregation;fields.s.aggregate-function=sum;fields.p.aggregate-function=product;"
                    "fields.mn.aggregate-function=min;fields.mx.aggregate-function=max;"
                    "fields.f.aggregate-function=first_value;fields.fn.aggregate-function=first_non_null_value;"
                    "fields.lv.aggregate-function=last_value;fields.ba.aggregate-function=bool_and;"
                    "fields.bo.aggregate-function=bool_or;fields.la.aggregate-function=listagg";
    EXPECT(run(F, S,
               ROW(1, 0, "\"id\":1,\"s\":1,\"p\":2,\"mn\":\"b\",\"mx\":-0.0,\"f\":null,\"fn\":null,\"lv\":1,\"ln\":1,"
                         "\"ba\":true,\"bo\":false,\"la\":\"x\"")
                   ROW(2, 0, "\"id\":1,\"s\":null,\"p\":3,\"mn\":\"ab\",\"mx\":0.0,\"f\":5,\"fn\":6,\"lv\":2,\"ln\":null,"
                             "\"ba\":null,\"bo\":null,\"la\":\"  \"")
                       ROW(3, 0, "\"id\":1,\"s\":4,\"p\":null,\"mn\":null,\"mx\":\"NaN\",\"f\":7,\"fn\":8,\"lv\":null,"
                                 "\"ln\":null,\"ba\":false,\"bo\":true,\"la\":\"y\"")),
           "+I 3 {\"id\":1,\"s\":5,\"p\":6,\"mn\":\"ab\",\"mx\":\"NaN\",\"f\":null,\"fn\":6,\"lv\":null,\"ln\":1,"
           "\"ba\":false,\"bo\":true,\"la\":\"x,y\"}");
    /* first_value state resets per key: fold another key on a fresh run */
    EXPECT(run(F, S,
               ROW(4, 0, "\"id\":2,\"s\":1,\"p\":1,\"mn\":\"z\",\"mx\":1.5,\"f\":9,\"fn\":null,\"lv\":1,\"ln\":1,"
                         "\"ba\":true,\"bo\":false,\"la\":\" \"")
                   ROW(5, 0, "\"id\":2,\"s\":1,\"p\":1,\"mn\":\"z\",\"mx\":1.5,\"f\":8,\"fn\":3,\"lv\":1,\"ln\":1,"
                             "\"ba\":true,\"bo\":false,\"la\":\"q\"")),
           "+I 5 {\"id\":2,\"s\":2,\"p\":1,\"mn\":\"z\",\"mx\":1.5,\"f\":9,\"fn\":3,\"lv\":1,\"ln\":1,\"ba\":true,"
           "\"bo\":false,\"la\":\"q\"}");
    /* default last_non_null_value, and fields.default-aggregate-function */
    EXPECT(run("id BIGINT NOT NULL, a INT, b INT", "merge-engine=aggregation",
               ROW(1, 0, "\"id\":1,\"a\":1,\"b\":1") ROW(2, 0, "\"id\":1,\"a\":null,\"b\":2")),
           "+I 2 {\"id\":1,\"a\":1,\"b\":2}");
    EXPECT(run("id BIGINT NOT NULL, a INT, b INT",
               "merge-engine=aggregation;fields.default-aggregate-function=sum;fields.b.aggregate-function=max",
               ROW(1, 0, "\"id\":1,\"a\":1,\"b\":1") ROW(2, 0, "\"id\":1,\"a\":2,\"b\":2")),
           "+I 2 {\"id\":1,\"a\":3,\"b\":2}");
    /* listagg: delimiter and distinct */
    EXPECT(run("id BIGINT NOT NULL, l STRING",
               "merge-engine=aggregation;fields.l.aggregate-function=listagg;fields.l.list-agg-delimiter=|",
               ROW(1, 0, "\"id\":1,\"l\":\"a\"") ROW(2, 0, "\"id\":1,\"l\":\"b\"")),
           "+I 2 {\"id\":1,\"l\":\"a|b\"}");
    EXPECT(run("id BIGINT NOT NULL, l STRING",
               "merge-engine=aggregation;fields.l.aggregate-function=listagg;fields.l.distinct=true",
               ROW(1, 0, "\"id\":1,\"l\":\"a,b\"") ROW(2, 0, "\"id\":1,\"l\":\"b,c,,a, \"") ROW(3, 0, "\"id\":1,\"l\":\"c,d\"")),
           "+I 3 {\"id\":1,\"l\":\"a,b,c,d\"}");
}

static void test_aggregation_decimals_and_overflow(void **state)
{
    (void)state;
    /* compact decimals add without a precision check; p > 18 overflow gives null */
    EXPECT(run("id BIGINT NOT NULL, d DECIMAL(5, 2), e DECIMAL(20, 2)",
               "merge-engine=aggregation;fields.d.aggregate-function=sum;fields.e.aggregate-function=sum",
               ROW(1, 0, "\"id\":1,\"d\":\"999.99\",\"e\":\"999999999999999999.99\"")
                   ROW(2, 0, "\"id\":1,\"d\":\"999.99\",\"e\":\"0.01\"")),
           "+I 2 {\"id\":1,\"d\":\"1999.98\",\"e\":null}");
    /* product rounds HALF_UP at the scale */
    EXPECT(run("id BIGINT NOT NULL, d DECIMAL(10, 2), e DECIMAL(30, 3)",
               "merge-engine=aggregation;fields.d.aggregate-function=product;fields.e.aggregate-function=product",
               ROW(1, 0, "\"id\":1,\"d\":\"1.25\",\"e\":\"-1.005\"") ROW(2, 0, "\"id\":1,\"d\":\"1.10\",\"e\":\"2.500\"")),
           "+I 2 {\"id\":1,\"d\":\"1.38\",\"e\":\"-2.513\"}");
    /* product retraction divides exactly, else errors */
    EXPECT(run("id BIGINT NOT NULL, d DECIMAL(10, 2), i INT, f DOUBLE",
               "merge-engine=aggregation;fields.d.aggregate-function=product;fields.i.aggregate-function=product;"
               "fields.f.aggregate-function=product",
               ROW(1, 0, "\"id\":1,\"d\":\"3.00\",\"i\":12,\"f\":1.0") ROW(2, 1, "\"id\":1,\"d\":\"0.40\",\"i\":5,\"f\":0.0")),
           "+I 2 {\"id\":1,\"d\":\"7.50\",\"i\":2,\"f\":\"Infinity\"}");
    EXPECT_CODE(run("id BIGINT NOT NULL, d DECIMAL(10, 2)", "merge-engine=aggregation;fields.d.aggregate-function=product",
                    ROW(1, 0, "\"id\":1,\"d\":\"1.00\"") ROW(2, 1, "\"id\":1,\"d\":\"3.00\"")),
                PM_EINVALID);
    EXPECT_CODE(run("id BIGINT NOT NULL, i INT", "merge-engine=aggregation;fields.i.aggregate-function=product",
                    ROW(1, 0, "\"id\":1,\"i\":1") ROW(2, 1, "\"id\":1,\"i\":0")),
                PM_EINVALID);
    /* integer overflow is an error at every width */
    EXPECT_CODE(run("id BIGINT NOT NULL, t TINYINT", "merge-engine=aggregation;fields.t.aggregate-function=sum",
                    ROW(1, 0, "\"id\":1,\"t\":100") ROW(2, 0, "\"id\":1,\"t\":100")),
                PM_EINVALID);
    EXPECT_CODE(run("id BIGINT NOT NULL, t BIGINT", "merge-engine=aggregation;fields.t.aggregate-function=product",
                    ROW(1, 0, "\"id\":1,\"t\":4611686018427387904") ROW(2, 0, "\"id\":1,\"t\":2")),
                PM_EINVALID);
    EXPECT(run("id BIGINT NOT NULL, t SMALLINT, f FLOAT",
               "merge-engine=aggregation;fields.t.aggregate-function=sum;fields.f.aggregate-function=sum",
               ROW(1, 0, "\"id\":1,\"t\":32000,\"f\":0.1") ROW(2, 0, "\"id\":1,\"t\":767,\"f\":0.2")),
           "+I 2 {\"id\":1,\"t\":32767,\"f\":0.3}");
}

static void test_aggregation_retracts(void **state)
{
    (void)state;
    const char *F = "id BIGINT NOT NULL, s INT, lv INT, ln INT";
    const char *S = "merge-engine=aggregation;fields.s.aggregate-function=sum;fields.lv.aggregate-function=last_value";
    EXPECT(run(F, S, ROW(1, 0, "\"id\":1,\"s\":5,\"lv\":1,\"ln\":1") ROW(2, 1, "\"id\":1,\"s\":2,\"lv\":1,\"ln\":1")),
           "+I 2 {\"id\":1,\"s\":3,\"lv\":null,\"ln\":null}");
    EXPECT(run(F, S, ROW(1, 0, "\"id\":1,\"s\":5,\"lv\":1,\"ln\":1") ROW(2, 3, "\"id\":1,\"s\":null,\"lv\":1,\"ln\":null")),
           "+I 2 {\"id\":1,\"s\":5,\"lv\":null,\"ln\":1}");
    /* a lone retract: passed through raw when reducing; folded it negates (the seed's -5) */
    EXPECT(run(F, S, ROW(3, 3, "\"id\":1,\"s\":5,\"lv\":1,\"ln\":1")), "-D 3 {\"id\":1,\"s\":5,\"lv\":1,\"ln\":1}");
    EXPECT(run_eo(F, S, ROW(3, 3, "\"id\":1,\"s\":5,\"lv\":1,\"ln\":1"), PM_MERGE_FULL, false),
           "+I 3 {\"id\":1,\"s\":-5,\"lv\":null,\"ln\":null}");
    /* functions without retraction */
    EXPECT_CODE(run("id BIGINT NOT NULL, m INT", "merge-engine=aggregation;fields.m.aggregate-function=max",
                    ROW(1, 0, "\"id\":1,\"m\":5") ROW(2, 1, "\"id\":1,\"m\":2")),
                PM_EUNSUPPORTED);
    const char *nr[] = {"min", "first_value", "first_non_null_value", "bool_and", "bool_or", "listagg"};
    const char *nt[] = {"INT", "INT", "INT", "BOOLEAN", "BOOLEAN", "STRING"};
    const char *nv[] = {"1", "1", "1", "true", "true", "\"a\""};
    for (int i = 0; i < 6; i++) {
        char fields[128], spec[256], rows[256];
        snprintf(fields, sizeof fields, "id BIGINT NOT NULL, m %s", nt[i]);
        snprintf(spec, sizeof spec, "merge-engine=aggregation;fields.m.aggregate-function=%s", nr[i]);
        snprintf(rows, sizeof rows, ROW(1, 0, "\"id\":1,\"m\":%s") ROW(2, 1, "\"id\":1,\"m\":%s"), nv[i], nv[i]);
        EXPECT_CODE(run(fields, spec, rows), PM_EUNSUPPORTED);
        /* ignore-retract keeps the accumulator */
        snprintf(spec, sizeof spec, "merge-engine=aggregation;fields.m.aggregate-function=%s;fields.m.ignore-retract=true",
                 nr[i]);
        outcome o = run(fields, spec, rows);
        assert_null(o.err);
        char want[64];
        snprintf(want, sizeof want, "{\"id\":1,\"m\":%s}", nv[i]);
        assert_non_null(strstr(o.text, want));
    }
    /* remove-record-on-delete: a -D replaces the state and yields -D; later inserts aggregate onto it */
    const char *R = "merge-engine=aggregation;fields.s.aggregate-function=sum;aggregation.remove-record-on-delete=true";
    EXPECT(run(F, R, ROW(1, 0, "\"id\":1,\"s\":5,\"lv\":1,\"ln\":1") ROW(2, 3, "\"id\":1,\"s\":3,\"lv\":2,\"ln\":null")),
           "-D 2 {\"id\":1,\"s\":3,\"lv\":2,\"ln\":null}");
    EXPECT(run(F, R,
               ROW(1, 0, "\"id\":1,\"s\":5,\"lv\":1,\"ln\":1") ROW(2, 3, "\"id\":1,\"s\":3,\"lv\":2,\"ln\":null")
                   ROW(3, 0, "\"id\":1,\"s\":2,\"lv\":null,\"ln\":4")),
           "+I 3 {\"id\":1,\"s\":5,\"lv\":2,\"ln\":4}");
    /* -U with remove-record-on-delete is an ordinary retract (lv is last_non_null_value here) */
    EXPECT(run(F, R, ROW(1, 0, "\"id\":1,\"s\":5,\"lv\":1,\"ln\":1") ROW(2, 1, "\"id\":1,\"s\":3,\"lv\":2,\"ln\":null")),
           "+I 2 {\"id\":1,\"s\":2,\"lv\":null,\"ln\":1}");
    pm_merge_fn *e;
    PM_EXPECT_ERR(make(F, "merge-engine=aggregation;aggregation.remove-record-on-delete=true;fields.s.ignore-retract=true",
                       NULL, &e),
                  PM_EINVALID);
}

static void test_aggregation_sequence_field(void **state)
{
    (void)state;
    /* sequence fields aggregate with last_value (the merge order already honors them) */
    EXPECT(run("id BIGINT NOT NULL, ts BIGINT, v INT", "merge-engine=aggregation;sequence.field=ts;fields.default-aggregate-function=sum",
               ROW(1, 0, "\"id\":1,\"ts\":1,\"v\":1") ROW(2, 0, "\"id\":1,\"ts\":null,\"v\":2")),
           "+I 2 {\"id\":1,\"ts\":null,\"v\":3}");
    pm_merge_fn *e;
    PM_EXPECT_ERR(make("id BIGINT NOT NULL, ts BIGINT", "merge-engine=aggregation;sequence.field=ts;fields.ts.aggregate-function=max",
                       NULL, &e),
                  PM_EINVALID);
    PM_EXPECT_ERR(make("id BIGINT NOT NULL, ts BIGINT", "sequence.field=nope", NULL, &e), PM_EINVALID);
    PM_EXPECT_ERR(make("id BIGINT NOT NULL, ts BIGINT", "sequence.field=ts,ts", NULL, &e), PM_EINVALID);
    PM_OK_OR_FAIL(make("id BIGINT NOT NULL, ts BIGINT, u INT", "sequence.field=ts,u;sequence.field.sort-order=descending",
                       NULL, &e));
    size_t n;
    bool desc;
    const size_t *sf = pm_merge_fn_seq_fields(e, &n, &desc);
    assert_int_equal(n, 2);
    assert_int_equal(sf[0], 1);
    assert_int_equal(sf[1], 2);
    assert_true(desc);
    assert_int_equal(pm_merge_fn_kind(e), PM_ENGINE_DEDUPLICATE);
    pm_merge_fn_free(e);
}

static void test_collect_and_merge_map(void **state)
{
    (void)state;
    const char *F = "id BIGINT NOT NULL, c ARRAY<INT>, d ARRAY<STRING>, m MAP<STRING, INT>";
    const char *S = "merge-engine=aggregation;fields.c.aggregate-function=collect;fields.d.aggregate-function=collect;"
                    "fields.d.distinct=true;fields.m.aggregate-function=merge_map";
    EXPECT(run(F, S,
               ROW(1, 0, "\"id\":1,\"c\":[1,2],\"d\":[\"a\",\"a\"],\"m\":{\"x\":1,\"y\":2}")
                   ROW(2, 0, "\"id\":1,\"c\":null,\"d\":null,\"m\":null")
                       ROW(3, 0, "\"id\":1,\"c\":[2,null],\"d\":[\"b\",\"a\",null,null],\"m\":{\"y\":5,\"z\":6}")),
           "+I 3 {\"id\":1,\"c\":[1,2,2,null],\"d\":[\"a\",\"b\",null],"
           "\"m\":[{\"key\":\"x\",\"value\":1},{\"key\":\"y\",\"value\":5},{\"key\":\"z\",\"value\":6}]}");
    /* retraction removes one occurrence per element / the keys */
    EXPECT(run(F, S,
               ROW(1, 0, "\"id\":1,\"c\":[1,2,2,3],\"d\":[\"a\"],\"m\":{\"x\":1,\"y\":2}")
                   ROW(2, 1, "\"id\":1,\"c\":[2,9],\"d\":[],\"m\":{\"y\":0,\"q\":1}")),
           "+I 2 {\"id\":1,\"c\":[1,2,3],\"d\":[\"a\"],\"m\":[{\"key\":\"x\",\"value\":1}]}");
    /* distinct of an ARRAY of BYTES: Java compares byte[] by identity, so nothing dedups */
    EXPECT(run("id BIGINT NOT NULL, b ARRAY<BYTES>", "merge-engine=aggregation;fields.b.aggregate-function=collect;fields.b.distinct=true",
               ROW(1, 0, "\"id\":1,\"b\":[\"AQ==\"]") ROW(2, 0, "\"id\":1,\"b\":[\"AQ==\"]")),
           "+I 2 {\"id\":1,\"b\":[\"AQ==\",\"AQ==\"]}");
    /* distinct of ROW elements */
    EXPECT(run("id BIGINT NOT NULL, r ARRAY<ROW<x INT, y STRING>>",
               "merge-engine=aggregation;fields.r.aggregate-function=collect;fields.r.distinct=true",
               ROW(1, 0, "\"id\":1,\"r\":[[1,\"a\"]]") ROW(2, 0, "\"id\":1,\"r\":[[1,\"a\"],[1,\"b\"],[1,\"a\"]]")),
           "+I 2 {\"id\":1,\"r\":[{\"x\":1,\"y\":\"a\"},{\"x\":1,\"y\":\"b\"}]}");
}

static void test_aggregation_validation(void **state)
{
    (void)state;
    pm_merge_fn *e;
    struct {
        const char *fields, *spec;
        pm_code code;
    } bad[] = {
        {"id BIGINT NOT NULL, a INT", "merge-engine=aggregation;fields.a.aggregate-function=count", PM_EUNSUPPORTED},
        {"id BIGINT NOT NULL, a INT", "merge-engine=aggregation;fields.a.aggregate-function=hll_sketch", PM_EUNSUPPORTED},
        {"id BIGINT NOT NULL, a INT", "merge-engine=aggregation;fields.a.aggregate-function=nested_update", PM_EUNSUPPORTED},
        {"id BIGINT NOT NULL, a INT", "merge-engine=aggregation;fields.a.aggregate-function=summ", PM_EINVALID},
        {"id BIGINT NOT NULL, a INT", "merge-engine=aggregation;fields.default-aggregate-function=bogus", PM_EINVALID},
        {"id BIGINT NOT NULL, a STRING", "merge-engine=aggregation;fields.a.aggregate-function=sum", PM_EINVALID},
        {"id BIGINT NOT NULL, a DATE", "merge-engine=aggregation;fields.a.aggregate-function=product", PM_EINVALID},
        {"id BIGINT NOT NULL, a BOOLEAN", "merge-engine=aggregation;fields.a.aggregate-function=max", PM_EINVALID},
        {"id BIGINT NOT NULL, a ARRAY<INT>", "merge-engine=aggregation;fields.a.aggregate-function=min", PM_EINVALID},
        {"id BIGINT NOT NULL, a INT", "merge-engine=aggregation;fields.a.aggregate-function=bool_or", PM_EINVALID},
        {"id BIGINT NOT NULL, a VARCHAR(10)", "merge-engine=aggregation;fields.a.aggregate-function=listagg", PM_EINVALID},
        {"id BIGINT NOT NULL, a CHAR(3)", "merge-engine=aggregation;fields.a.aggregate-function=listagg", PM_EINVALID},
        {"id BIGINT NOT NULL, a INT", "merge-engine=aggregation;fields.a.aggregate-function=collect", PM_EINVALID},
        {"id BIGINT NOT NULL, a ARRAY<INT>", "merge-engine=aggregation;fields.a.aggregate-function=merge_map", PM_EINVALID},
        {"id BIGINT NOT NULL, a INT", "merge-engine=aggregation;fields.b.aggregate-function=sum", PM_EINVALID},
        {"id BIGINT NOT NULL, a INT", "merge-engine=aggregation;fields.a,b.sequence-group=a", PM_EINVALID},
        {"id BIGINT NOT NULL, a INT", "merge-engine=aggregation;fields.a.ignore-retract=maybe", PM_EINVALID},
        {"id BIGINT NOT NULL, r ROW<x INT>", "merge-engine=aggregation;fields.r.x.aggregate-function=sum", PM_EINVALID},
        {"id BIGINT NOT NULL, a INT", "merge-engine=bogus", PM_EINVALID},
        {"id BIGINT NOT NULL, a INT", "ignore-delete=perhaps", PM_EINVALID},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pm_error *err = make(bad[i].fields, bad[i].spec, NULL, &e);
        if (!err || pm_error_code(err) != bad[i].code) {
            print_error("case %zu (%s): got %s\n", i, bad[i].spec, err ? pm_code_name(pm_error_code(err)) : "success");
            fail();
        }
        pm_error_free(err);
    }
    /* valid corner cases */
    const char *good[][2] = {
        {"id BIGINT NOT NULL, a STRING", "merge-engine=aggregation;fields.a.aggregate-function=max"},
        {"id BIGINT NOT NULL, a TIMESTAMP(6)", "merge-engine=aggregation;fields.a.aggregate-function=min"},
        {"id BIGINT NOT NULL, a DECIMAL(38, 10)", "merge-engine=aggregation;fields.a.aggregate-function=product"},
        {"id BIGINT NOT NULL, a INT", "merge-engine=aggregation;fields.a.aggregate-function=first_not_null_value"},
        {"id BIGINT NOT NULL, a INT", "merge-engine=aggregation;fields.default-aggregate-function=sum"},
        {"id BIGINT NOT NULL, a MAP<INT, STRING>", "merge-engine=aggregation;fields.a.aggregate-function=merge_map"},
        {"id BIGINT NOT NULL, a INT", "fields.a.stats-mode=full"},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        PM_OK_OR_FAIL(make(good[i][0], good[i][1], NULL, &e));
        pm_merge_fn_free(e);
    }
    /* primary keys must be fields */
    pm_type *vt = parse_type("a INT", false);
    pm_options *o = opts_of(NULL);
    const char *pk[] = {"id"};
    PM_EXPECT_ERR(pm_merge_fn_new(&e, vt, pk, 1, o, NULL), PM_EINVALID);
    pm_options_free(o);
    pm_type_free(vt);
}

/* ---------------- persistence restrictions ---------------- */

static void test_persist(void **state)
{
    (void)state;
    const char *F = "id BIGINT NOT NULL, c ARRAY<INT>, s INT";
    const char *S = "merge-engine=aggregation;fields.c.aggregate-function=collect;fields.s.aggregate-function=sum";
    const char *rows = ROW(1, 0, "\"id\":1,\"c\":[1],\"s\":1") ROW(2, 1, "\"id\":1,\"c\":[1],\"s\":1");
    EXPECT(run_eo(F, S, rows, PM_MERGE_REDUCE, false), "+I 2 {\"id\":1,\"c\":[],\"s\":0}");
    EXPECT_CODE(run_eo(F, S, rows, PM_MERGE_REDUCE, true), PM_EUNSUPPORTED);
    /* no retract → fine; single retract → passes */
    EXPECT(run_eo(F, S, ROW(1, 0, "\"id\":1,\"c\":[1],\"s\":1") ROW(2, 0, "\"id\":1,\"c\":[2],\"s\":1"), PM_MERGE_REDUCE,
                  true),
           "+I 2 {\"id\":1,\"c\":[1,2],\"s\":2}");
    EXPECT(run_eo(F, S, ROW(2, 1, "\"id\":1,\"c\":[1],\"s\":1"), PM_MERGE_REDUCE, true),
           "-U 2 {\"id\":1,\"c\":[1],\"s\":1}");
    /* partial-update: compound -D with a user aggregator */
    const char *FP = "id BIGINT NOT NULL, a INT, g INT";
    const char *SP = "merge-engine=partial-update;fields.g.sequence-group=a;fields.a.aggregate-function=sum;"
                     "partial-update.remove-record-on-sequence-group=g";
    const char *prow = ROW(1, 0, "\"id\":1,\"a\":1,\"g\":1") ROW(2, 3, "\"id\":1,\"a\":1,\"g\":2");
    EXPECT(run_eo(FP, SP, prow, PM_MERGE_REDUCE, false), "-D 2 {\"id\":1,\"a\":1,\"g\":2}");
    EXPECT_CODE(run_eo(FP, SP, prow, PM_MERGE_REDUCE, true), PM_EUNSUPPORTED);
    /* ignored retracts do not count */
    const char *SI = "merge-engine=partial-update;ignore-delete=true;fields.g.sequence-group=a;"
                     "fields.a.aggregate-function=first_value";
    EXPECT(run_eo(FP, SI, ROW(1, 0, "\"id\":1,\"a\":1,\"g\":1") ROW(2, 3, "\"id\":1,\"a\":5,\"g\":2"), PM_MERGE_REDUCE,
                  true),
           "+I 1 {\"id\":1,\"a\":1,\"g\":1}");
}

/* ---------------- physical layout emit ---------------- */

static void test_emit_physical_layout(void **state)
{
    (void)state;
    /* [_KEY_id, _SEQUENCE_NUMBER, _VALUE_KIND, id, v] */
    pm_type *rt;
    PM_OK_OR_FAIL(pm_type_parse(&rt, "ROW<_KEY_id BIGINT NOT NULL, _SEQUENCE_NUMBER BIGINT NOT NULL, _VALUE_KIND TINYINT "
                                     "NOT NULL, id BIGINT NOT NULL, v INT>"));
    const char *lines = "{\"_KEY_id\":7,\"_SEQUENCE_NUMBER\":1,\"_VALUE_KIND\":0,\"id\":7,\"v\":1}\n"
                        "{\"_KEY_id\":7,\"_SEQUENCE_NUMBER\":2,\"_VALUE_KIND\":0,\"id\":7,\"v\":2}\n";
    pm_batch *in, *out;
    PM_OK_OR_FAIL(pm_batch_from_json_lines(&in, rt, lines, strlen(lines)));
    pm_kv_layout l;
    PM_OK_OR_FAIL(pm_kv_layout_physical(&l, 1, 2));
    pm_merge_fn *e;
    PM_OK_OR_FAIL(make("id BIGINT NOT NULL, v INT", "merge-engine=aggregation;fields.v.aggregate-function=sum", NULL, &e));
    pm_kv_rec recs[2];
    pm_kv_rec_at(&recs[0], in, &l, 0);
    pm_kv_rec_at(&recs[1], in, &l, 1);
    pm_merge_result res;
    PM_OK_OR_FAIL(pm_merge_fn_fold(e, &l, recs, 2, &res));
    PM_OK_OR_FAIL(pm_batch_new(&out, rt));
    PM_OK_OR_FAIL(pm_merge_fn_emit(e, out, &l));
    /* dedup on the same engine object is not possible; emit again to a second row */
    PM_OK_OR_FAIL(pm_merge_fn_emit(e, out, &l));
    PM_OK_OR_FAIL(pm_batch_finish(out, 2));
    pm_buf b = PM_BUF_INIT;
    PM_OK_OR_FAIL(pm_batch_format_row_json(out, 1, &b));
    PM_OK_OR_FAIL(pm_buf_append_byte(&b, 0));
    assert_string_equal((char *)b.data, "{\"_KEY_id\":7,\"_SEQUENCE_NUMBER\":2,\"_VALUE_KIND\":0,\"id\":7,\"v\":3}");
    pm_buf_free(&b);
    /* a wrongly typed input batch is rejected */
    pm_kv_layout bad;
    size_t vc[2] = {3, 1};
    size_t kc = 0;
    PM_OK_OR_FAIL(pm_kv_layout_init(&bad, &kc, 1, 1, 2, vc, 2));
    pm_merge_fn_free(e);
    PM_OK_OR_FAIL(make("id BIGINT NOT NULL, v INT", "merge-engine=aggregation", NULL, &e));
    PM_EXPECT_ERR(pm_merge_fn_fold(e, &bad, recs, 2, &res), PM_EINVALID);
    pm_kv_layout_clear(&bad);
    pm_merge_fn_free(e);
    pm_batch_free(out);
    pm_batch_free(in);
    pm_kv_layout_clear(&l);
    pm_type_free(rt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deduplicate),
        cmocka_unit_test(test_first_row),
        cmocka_unit_test(test_partial_update_basic),
        cmocka_unit_test(test_partial_update_sequence_groups),
        cmocka_unit_test(test_partial_update_group_aggregators),
        cmocka_unit_test(test_partial_update_group_retracts),
        cmocka_unit_test(test_partial_update_validation),
        cmocka_unit_test(test_aggregation_functions),
        cmocka_unit_test(test_aggregation_decimals_and_overflow),
        cmocka_unit_test(test_aggregation_retracts),
        cmocka_unit_test(test_aggregation_sequence_field),
        cmocka_unit_test(test_collect_and_merge_map),
        cmocka_unit_test(test_aggregation_validation),
        cmocka_unit_test(test_persist),
        cmocka_unit_test(test_emit_physical_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
