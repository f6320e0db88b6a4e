/*
 * tests/unit/compact/test_compact_json.c — plan/task/result JSON: exact
 * round trips of every DataFileMeta field (stats bytes, null vs empty,
 * null counts with null items, optional fields), index entries with DV
 * ranges and global index metadata; strict parsing (unknown / missing
 * fields, wrong types, ranges, bad base64, format version, kind, duplicate
 * keys, malformed text) with errors naming the field; the commit
 * identifier (order independent, subset sensitive).
 */
#include <string.h>

#include "base/mem.h"
#include "compact/compact_internal.h"
#include "meta/manifest.h"
#include "pm_test.h"

static void set_bytes(pm_bytes *b, const char *s, size_t n) { PM_OK_OR_FAIL(pm_bytes_set(b, s, n)); }

static void str_list(pm_str_list *l, int n, const char *prefix)
{
    l->count = (size_t)n;
    l->items = n ? calloc((size_t)n, sizeof(char *)) : NULL;
    for (int i = 0; i < n; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "%s%d", prefix, i);
        l->items[i] = strdup(buf);
    }
}

/* A file with every field set in a different way. */
static void fill_file(pm_data_file_meta *f, int variant)
{
    memset(f, 0, sizeof *f);
    char name[64];
    snprintf(name, sizeof name, "data-%d-é.parquet", variant);
    f->file_name = strdup(name);
    f->file_size = 1234567890123LL + variant;
    f->row_count = 42 + variant;
    set_bytes(&f->min_key, "\0\0\0\0\0\0\0\0\0\0\0\0", 12);
    if (variant % 2)
        set_bytes(&f->max_key, "", 0); /* empty, not null */
    set_bytes(&f->value_stats.min_values, "\x00\x00\x00\x02\xff\x01\x02", 7);
    set_bytes(&f->value_stats.max_values, "\x00\x00\x00\x02\xfe", 5);
    f->value_stats.has_null_counts = true;
    f->value_stats.null_count_len = 3;
    f->value_stats.null_counts = calloc(3, sizeof(pm_opt_long));
    f->value_stats.null_counts[0] = (pm_opt_long){true, 0};
    f->value_stats.null_counts[2] = (pm_opt_long){true, 7};
    PM_OK_OR_FAIL(pm_simple_stats_empty(&f->key_stats));
    f->min_sequence_number = -5 + variant;
    f->max_sequence_number = INT64_MAX - variant;
    f->schema_id = 3;
    f->level = variant;
    str_list(&f->extra_files, variant, "extra-");
    if (variant) {
        f->creation_time = (pm_opt_long){true, 1700000000123LL};
        f->delete_row_count = (pm_opt_long){true, 0};
        set_bytes(&f->embedded_index, "idx\0x", 5);
        f->file_source = (pm_opt_int){true, variant % 2};
        f->has_value_stats_cols = true;
        str_list(&f->value_stats_cols, 2, "c");
        f->external_path = strdup("s3://bucket/x y/\"quoted\"");
        f->first_row_id = (pm_opt_long){true, INT64_MIN};
        f->has_write_cols = true;
        str_list(&f->write_cols, 0, "w");
        f->has_write_cols_sequences = true;
        f->write_cols_sequence_len = 2;
        f->write_cols_sequences = calloc(2, sizeof(int64_t));
        f->write_cols_sequences[0] = -1;
        f->write_cols_sequences[1] = 99;
    }
}

static pm_compact_task *make_task(void)
{
    pm_compact_task *t = calloc(1, sizeof *t);
    t->table_path = strdup("/tmp/wh/db.db/t");
    t->plan_id = strdup("plan-1");
    t->commit_user = strdup("user-1");
    t->task_index = 3;
    t->snapshot_id = 17;
    t->schema_id = 2;
    t->mode = pm_compact_mode_named("append-bucketed");
    t->full = true;
    set_bytes(&t->partition, "\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00",
              20);
    t->bucket = 4;
    t->total_buckets = 8;
    t->output.format = strdup("parquet");
    t->output.compression = strdup("zstd");
    t->output.target_file_size = 256LL << 20;
    t->output.target_file_row_num = INT64_MAX;
    t->nfiles = 3;
    t->files = calloc(3, sizeof *t->files);
    for (int i = 0; i < 3; i++)
        fill_file(&t->files[i], i);
    t->ndvs = 1;
    t->dvs = calloc(1, sizeof *t->dvs);
    t->dvs[0].data_file = strdup(t->files[1].file_name);
    t->dvs[0].index_file = strdup("index-abc-0");
    t->dvs[0].offset = 1;
    t->dvs[0].length = 30;
    t->ndv_index = 1;
    t->dv_index = calloc(1, sizeof *t->dv_index);
    pm_index_manifest_entry *ie = &t->dv_index[0];
    ie->kind = PM_FILE_ADD;
    set_bytes(&ie->partition, "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00", 12);
    ie->bucket = 4;
    ie->index_file.index_type = strdup("DELETION_VECTORS");
    ie->index_file.file_name = strdup("index-abc-0");
    ie->index_file.file_size = 31;
    ie->index_file.row_count = 1;
    ie->index_file.has_dv_ranges = true;
    ie->index_file.dv_range_len = 1;
    ie->index_file.dv_ranges = calloc(1, sizeof(pm_dv_meta));
    ie->index_file.dv_ranges[0].data_file_name = strdup(t->files[1].file_name);
    ie->index_file.dv_ranges[0].offset = 1;
    ie->index_file.dv_ranges[0].length = 30;
    ie->index_file.dv_ranges[0].cardinality = (pm_opt_long){true, 4};
    ie->index_file.has_global_index = true;
    ie->index_file.global_index.row_range_start = 0;
    ie->index_file.global_index.row_range_end = 10;
    ie->index_file.global_index.index_field_id = 2;
    ie->index_file.global_index.has_extra_field_ids = true;
    ie->index_file.global_index.extra_field_id_len = 1;
    ie->index_file.global_index.extra_field_ids = calloc(1, sizeof(int32_t));
    ie->index_file.global_index.extra_field_ids[0] = 7;
    set_bytes(&ie->index_file.global_index.source_meta, "sm", 2);
    return t;
}

static void assert_tasks_equal(const pm_compact_task *a, const pm_compact_task *b)
{
    assert_string_equal(a->table_path, b->table_path);
    assert_string_equal(a->plan_id, b->plan_id);
    assert_string_equal(a->commit_user, b->commit_user);
    assert_int_equal(a->task_index, b->task_index);
    assert_int_equal(a->snapshot_id, b->snapshot_id);
    assert_int_equal(a->schema_id, b->schema_id);
    assert_int_equal(a->mode, b->mode);
    assert_int_equal(a->full, b->full);
    assert_true(pm_compact_bytes_equal(&a->partition, &b->partition));
    assert_int_equal(a->bucket, b->bucket);
    assert_int_equal(a->total_buckets, b->total_buckets);
    assert_string_equal(a->output.format, b->output.format);
    assert_string_equal(a->output.compression, b->output.compression);
    assert_int_equal(a->output.rg_passthrough, b->output.rg_passthrough);
    assert_int_equal(a->output.dict_passthrough, b->output.dict_passthrough);
    assert_int_equal(a->output.target_file_size, b->output.target_file_size);
    assert_true(a->output.target_file_row_num == b->output.target_file_row_num);
    assert_int_equal(a->nfiles, b->nfiles);
    for (size_t i = 0; i < a->nfiles; i++)
        assert_true(pm_data_file_meta_equal(&a->files[i], &b->files[i]));
    assert_int_equal(a->ndvs, b->ndvs);
    for (size_t i = 0; i < a->ndvs; i++) {
        assert_string_equal(a->dvs[i].data_file, b->dvs[i].data_file);
        assert_string_equal(a->dvs[i].index_file, b->dvs[i].index_file);
        assert_int_equal(a->dvs[i].offset, b->dvs[i].offset);
        assert_int_equal(a->dvs[i].length, b->dvs[i].length);
        assert_int_equal(a->dvs[i].cardinality.has, b->dvs[i].cardinality.has);
    }
    assert_int_equal(a->ndv_index, b->ndv_index);
}

static void test_task_round_trip(void **state)
{
    (void)state;
    pm_compact_task *t = make_task();
    char *j1 = NULL, *j2 = NULL;
    PM_OK_OR_FAIL(pm_compact_task_to_json(&j1, t));
    pm_compact_task *u = NULL;
    PM_OK_OR_FAIL(pm_compact_task_from_json(&u, j1, strlen(j1)));
    assert_tasks_equal(t, u);
    /* null stays null, empty stays empty */
    assert_false(u->files[0].max_key.has);
    assert_true(u->files[1].max_key.has);
    assert_int_equal(u->files[1].max_key.len, 0);
    assert_false(u->files[0].value_stats.null_counts[1].has);
    assert_true(u->files[1].has_write_cols);
    assert_int_equal(u->files[1].write_cols.count, 0);
    assert_false(u->files[0].has_write_cols);
    assert_true(u->files[2].first_row_id.v == INT64_MIN);
    assert_int_equal(u->files[2].embedded_index.len, 5);
    assert_memory_equal(u->files[2].embedded_index.data, "idx\0x", 5);
    const pm_index_manifest_entry *ie = &u->dv_index[0];
    assert_int_equal(ie->index_file.dv_ranges[0].cardinality.v, 4);
    assert_int_equal(ie->index_file.global_index.extra_field_ids[0], 7);
    assert_false(ie->index_file.global_index.index_meta.has);
    assert_int_equal(ie->index_file.global_index.source_meta.len, 2);
    PM_OK_OR_FAIL(pm_compact_task_to_json(&j2, u));
    assert_string_equal(j1, j2);
    /* copies are equal too */
    pm_compact_task *c = NULL;
    PM_OK_OR_FAIL(pm_compact_task_copy(&c, t));
    assert_tasks_equal(t, c);
    pm_compact_task_free(c);
    free(j1);
    free(j2);
    pm_compact_task_free(t);
    pm_compact_task_free(u);
}

static pm_compact_result *make_result(void)
{
    pm_compact_task *t = make_task();
    pm_compact_result *r = NULL;
    PM_OK_OR_FAIL(pm_compact_result_new_for_task(&r, t));
    r->nafter = 1;
    r->after = calloc(1, sizeof *r->after);
    fill_file(&r->after[0], 5);
    PM_OK_OR_FAIL(pm_index_entries_copy(&r->index_added, t->dv_index, 1));
    r->nindex_added = 1;
    PM_OK_OR_FAIL(pm_index_entries_copy(&r->index_removed, t->dv_index, 1));
    r->index_removed[0].kind = PM_FILE_DELETE;
    r->nindex_removed = 1;
    r->counters = (pm_compact_counters){PM_COMPACT_COUNTERS_VERSION, 10, 2, 8, 1000, 900, 12};
    pm_compact_task_free(t);
    return r;
}

static void test_result_round_trip(void **state)
{
    (void)state;
    pm_compact_result *r = make_result();
    char *j1 = NULL, *j2 = NULL;
    PM_OK_OR_FAIL(pm_compact_result_to_json(&j1, r));
    pm_compact_result *u = NULL;
    PM_OK_OR_FAIL(pm_compact_result_from_json(&u, j1, strlen(j1)));
    assert_int_equal(u->nbefore, 3);
    assert_int_equal(u->nafter, 1);
    for (size_t i = 0; i < 3; i++)
        assert_true(pm_data_file_meta_equal(&u->before[i], &r->before[i]));
    assert_true(pm_data_file_meta_equal(&u->after[0], &r->after[0]));
    assert_int_equal(u->index_removed[0].kind, PM_FILE_DELETE);
    assert_int_equal(u->counters.rows_deleted, 2);
    assert_int_equal(u->counters.bytes_written, 900);
    PM_OK_OR_FAIL(pm_compact_result_to_json(&j2, u));
    assert_string_equal(j1, j2);
    /* a result is not a task */
    pm_compact_task *t = NULL;
    PM_EXPECT_ERR(pm_compact_task_from_json(&t, j1, strlen(j1)), PM_EINVALID);
    free(j1);
    free(j2);
    pm_compact_result_free(r);
    pm_compact_result_free(u);
}

static void test_plan_round_trip(void **state)
{
    (void)state;
    pm_compact_plan *p = calloc(1, sizeof *p);
    p->table_path = strdup("/tmp/wh/db.db/t");
    p->plan_id = strdup("plan-1");
    p->commit_user = strdup("user-1");
    p->snapshot_id = 17;
    p->schema_id = 2;
    p->full = true;
    p->ntasks = 2;
    p->tasks = calloc(2, sizeof *p->tasks);
    for (int i = 0; i < 2; i++) {
        p->tasks[i] = make_task();
        p->tasks[i]->task_index = i;
    }
    char *j1 = NULL, *j2 = NULL;
    PM_OK_OR_FAIL(pm_compact_plan_to_json(&j1, p));
    pm_compact_plan *u = NULL;
    PM_OK_OR_FAIL(pm_compact_plan_from_json(&u, j1, strlen(j1)));
    assert_int_equal(pm_compact_plan_task_count(u), 2);
    assert_int_equal(pm_compact_plan_snapshot_id(u), 17);
    assert_string_equal(pm_compact_plan_id(u), "plan-1");
    assert_string_equal(pm_compact_plan_commit_user(u), "user-1");
    assert_tasks_equal(pm_compact_plan_task(u, 1), p->tasks[1]);
    assert_null(pm_compact_plan_task(u, 2));
    PM_OK_OR_FAIL(pm_compact_plan_to_json(&j2, u));
    assert_string_equal(j1, j2);
    pm_compact_plan_free(u);
    free(j2);
    /* a task that belongs to another plan is rejected */
    free(p->tasks[1]->plan_id);
    p->tasks[1]->plan_id = strdup("plan-2");
    free(j1);
    PM_OK_OR_FAIL(pm_compact_plan_to_json(&j1, p));
    PM_EXPECT_ERR(pm_compact_plan_from_json(&u, j1, strlen(j1)), PM_EINVALID);
    free(j1);
    pm_compact_plan_free(p);
}

/* Replace the first occurrence of `from` in json by `to` and parse as task;
 * expect `code` and a message containing `needle`. */
static void expect_task_error(const char *json, const char *from, const char *to, pm_code code, const char *needle)
{
    const char *at = strstr(json, from);
    assert_non_null(at);
    size_t n = strlen(json) - strlen(from) + strlen(to);
    char *s = malloc(n + 1);
    size_t pre = (size_t)(at - json);
    memcpy(s, json, pre);
    memcpy(s + pre, to, strlen(to));
    strcpy(s + pre + strlen(to), at + strlen(from));
    pm_compact_task *t = NULL;
    pm_error *e = pm_compact_task_from_json(&t, s, strlen(s));
    if (!e) {
        print_error("accepted: %s → %s\n", from, to);
        fail();
    }
    char *msg = pm_error_format(e);
    if (!strstr(msg, needle)) {
        print_error("message '%s' lacks '%s'\n", msg, needle);
        fail();
    }
    assert_int_equal(pm_error_code(e), code);
    assert_null(t);
    free(msg);
    pm_error_free(e);
    free(s);
}

static void test_task_strict(void **state)
{
    (void)state;
    pm_compact_task *t = make_task();
    char *j = NULL;
    PM_OK_OR_FAIL(pm_compact_task_to_json(&j, t));
    pm_compact_task_free(t);

    expect_task_error(j, "\"format\":1", "\"format\":2", PM_EUNSUPPORTED, "task.format");
    expect_task_error(j, "\"format\":1", "\"format\":\"1\"", PM_EINVALID, "task.format");
    expect_task_error(j, "\"kind\":\"task\"", "\"kind\":\"plan\"", PM_EINVALID, "task.kind");
    expect_task_error(j, "\"plan_id\":", "\"surprise\":1,\"plan_id\":", PM_EINVALID, "unknown field 'surprise'");
    expect_task_error(j, "\"commit_user\":\"user-1\",", "", PM_EINVALID, "task.commit_user: missing");
    expect_task_error(j, "\"task_index\":3", "\"task_index\":-1", PM_EINVALID, "task.task_index");
    expect_task_error(j, "\"mode\":\"append-bucketed\"", "\"mode\":\"pk\"", PM_EINVALID, "task.mode");
    expect_task_error(j, "\"full\":true", "\"full\":1", PM_EINVALID, "task.full");
    expect_task_error(j, "\"bucket\":4", "\"bucket\":4294967296", PM_EINVALID, "task.bucket");
    expect_task_error(j, "\"partition\":\"", "\"partition\":\"!", PM_EINVALID, "task.partition");
    expect_task_error(j, "\"partition\":\"", "\"partition\":null,\"x\":\"", PM_EINVALID, "task");
    expect_task_error(j, "\"file_size\":1234567890123", "\"file_size\":-1", PM_EINVALID,
                      "task.files[0].file_size");
    expect_task_error(j, "\"row_count\":43", "\"row_count\":4.5", PM_EINVALID, "task.files[1].row_count");
    expect_task_error(j, "\"null_counts\":[0,null,7]", "\"null_counts\":[0,\"x\",7]", PM_EINVALID,
                      "task.files[0].value_stats.null_counts[1]");
    expect_task_error(j, "\"file_source\":1", "\"file_source\":2", PM_EINVALID, "task.files[1].file_source");
    expect_task_error(j, "\"target_file_size\":", "\"target_file_size\":0,\"y\":", PM_EINVALID, "task.output");
    expect_task_error(j, "\"format\":\"parquet\"", "\"format\":\"csv\"", PM_EINVALID, "task.output.format");
    expect_task_error(j, "\"index_file\":\"index-abc-0\"", "\"index_file\":\"\"", PM_EINVALID,
                      "task.deletion_vectors[0].index_file");
    expect_task_error(j, "\"kind\":0", "\"kind\":1", PM_EINVALID, "task.index_files[0].kind");
    expect_task_error(j, "\"snapshot_id\":17", "\"snapshot_id\":17,\"snapshot_id\":18", PM_EINVALID,
                      "duplicate");
    expect_task_error(j, "}", "", PM_EINVALID, "malformed JSON");
    /* a DV naming a file that is not an input */
    expect_task_error(j, "\"data_file\":\"data-1-", "\"data_file\":\"other-1-", PM_EINVALID,
                      "task.deletion_vectors[0].data_file");
    /* no input file at all */
    const char *files = strstr(j, "\"files\":[");
    const char *dvs = strstr(j, ",\"deletion_vectors\"");
    assert_non_null(files);
    assert_non_null(dvs);
    char *cut = malloc(strlen(j) + 1);
    size_t pre = (size_t)(files - j) + strlen("\"files\":[");
    memcpy(cut, j, pre);
    strcpy(cut + pre, "]");
    strcat(cut, ",\"deletion_vectors\":[],\"index_files\":[]}");
    pm_compact_task *u = NULL;
    PM_EXPECT_ERR(pm_compact_task_from_json(&u, cut, strlen(cut)), PM_EINVALID);
    free(cut);
    PM_EXPECT_ERR(pm_compact_task_from_json(&u, "[]", 2), PM_EINVALID);
    PM_EXPECT_ERR(pm_compact_task_from_json(&u, NULL, 0), PM_EINVALID);
    free(j);
}

/* ORC outputs; dictionary passthrough: written only when on, read with or
 * without it, a boolean. */
static void test_task_output_options(void **state)
{
    (void)state;
    pm_compact_task *t = make_task();
    char *j = NULL;
    PM_OK_OR_FAIL(pm_compact_task_to_json(&j, t));
    assert_null(strstr(j, "dictionary_passthrough"));
    pm_compact_task *u = NULL;
    PM_OK_OR_FAIL(pm_compact_task_from_json(&u, j, strlen(j)));
    assert_false(u->output.dict_passthrough);
    pm_compact_task_free(u);
    free(j);
    t->output.dict_passthrough = true;
    free(t->output.format);
    t->output.format = strdup("orc");
    PM_OK_OR_FAIL(pm_compact_task_to_json(&j, t));
    assert_non_null(strstr(j, "\"dictionary_passthrough\":true"));
    PM_OK_OR_FAIL(pm_compact_task_from_json(&u, j, strlen(j)));
    assert_true(u->output.dict_passthrough);
    assert_string_equal(u->output.format, "orc");
    assert_tasks_equal(t, u);
    pm_compact_task_free(u);
    expect_task_error(j, "\"dictionary_passthrough\":true", "\"dictionary_passthrough\":1", PM_EINVALID,
                      "dictionary_passthrough");
    free(j);
    pm_compact_task_free(t);
}

static void test_commit_identifier(void **state)
{
    (void)state;
    int64_t a[] = {3, 1, 2}, b[] = {1, 2, 3}, c[] = {1, 2}, d[] = {1, 2, 4};
    int64_t ia = pm_compact_commit_identifier("p", a, 3);
    assert_true(ia > 0 && ia < INT64_MAX);
    assert_true(ia == pm_compact_commit_identifier("p", b, 3));
    assert_true(ia != pm_compact_commit_identifier("p", c, 2));
    assert_true(ia != pm_compact_commit_identifier("p", d, 3));
    assert_true(ia != pm_compact_commit_identifier("q", b, 3));
    int64_t big[100];
    for (int i = 0; i < 100; i++)
        big[i] = 99 - i;
    int64_t i1 = pm_compact_commit_identifier("p", big, 100);
    for (int i = 0; i < 100; i++)
        big[i] = i;
    assert_true(i1 == pm_compact_commit_identifier("p", big, 100));
}

static void test_data_file_meta_equal(void **state)
{
    (void)state;
    pm_data_file_meta a, b;
    fill_file(&a, 2);
    fill_file(&b, 2);
    assert_true(pm_data_file_meta_equal(&a, &b));
    b.value_stats.null_counts[1] = (pm_opt_long){true, 0};
    assert_false(pm_data_file_meta_equal(&a, &b));
    b.value_stats.null_counts[1].has = false;
    assert_true(pm_data_file_meta_equal(&a, &b));
    b.creation_time.v++;
    assert_false(pm_data_file_meta_equal(&a, &b));
    b.creation_time.v--;
    b.has_write_cols = false;
    assert_false(pm_data_file_meta_equal(&a, &b));
    pm_data_file_meta_clear(&a);
    pm_data_file_meta_clear(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_task_round_trip),  cmocka_unit_test(test_result_round_trip),
        cmocka_unit_test(test_plan_round_trip),  cmocka_unit_test(test_task_strict),
        cmocka_unit_test(test_task_output_options),
        cmocka_unit_test(test_commit_identifier), cmocka_unit_test(test_data_file_meta_equal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
