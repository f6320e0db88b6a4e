/*
 * tests/unit/dv/test_dv_maintainer.c — DV maintainers: bucketed (one file
 * per bucket rewritten on change, ADD entries, empty files, restore from
 * index manifest entries including a Java-written table) and bucket-unaware
 * append (merge with previous vectors, rewrite of touched files, DELETE +
 * ADD entries, rolling).
 */
#include <string.h>

#include "dv/dv_index_file.h"
#include "dv/dv_maintainer.h"
#include "meta/index_path.h"
#include "meta/manifest.h"
#include "pm_test.h"

typedef struct env {
    char *tmp;
    pm_fileio *fio;
    pm_path_factory *pf;
    pm_type *ptype;
    pm_options *opts;
    pm_dv_io io;
} env;

static void env_init(env *v)
{
    v->tmp = pm_test_tmpdir();
    PM_OK_OR_FAIL(pm_fileio_local_new(&v->fio));
    v->ptype = pm_type_new_row(true);
    PM_OK_OR_FAIL(pm_options_new(&v->opts));
    PM_OK_OR_FAIL(pm_path_factory_new(&v->pf, v->tmp, v->ptype, v->opts));
    v->io.fio = v->fio;
    v->io.pf = v->pf;
    v->io.bucket_dir = NULL;
}

static void env_free(env *v)
{
    pm_path_factory_free(v->pf);
    pm_options_free(v->opts);
    pm_type_free(v->ptype);
    pm_fileio_free(v->fio);
    pm_test_rmtree(v->tmp);
    free(v->tmp);
}

static const uint8_t PART[] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0};
static const pm_bytes PARTITION = {true, (uint8_t *)PART, sizeof PART};

static pm_dv *dv_of(bool bitmap64, const int64_t *pos, size_t n)
{
    pm_dv *dv;
    PM_OK_OR_FAIL(pm_dv_new(bitmap64, &dv));
    for (size_t i = 0; i < n; i++)
        PM_OK_OR_FAIL(pm_dv_add(dv, pos[i], NULL));
    return dv;
}
#define DV(b64, ...) dv_of(b64, (const int64_t[]){__VA_ARGS__}, sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))

static void expect_positions(const pm_dv *dv, const int64_t *want, size_t nwant)
{
    assert_non_null(dv);
    int64_t *got;
    size_t n;
    PM_OK_OR_FAIL(pm_dv_positions(dv, &got, &n));
    assert_int_equal(n, nwant);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(got[i], want[i]);
    free(got);
}
#define EXPECT(dv, ...) expect_positions(dv, (const int64_t[]){__VA_ARGS__}, sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))

/* Vectors of one entry's file. */
static pm_dv_map *read_entry(env *v, const pm_index_manifest_entry *e)
{
    pm_dv_map *m;
    PM_OK_OR_FAIL(pm_dv_map_new(&m));
    char *path;
    PM_OK_OR_FAIL(pm_index_file_path(v->pf, NULL, &e->index_file, &path));
    PM_OK_OR_FAIL(pm_dv_index_read(v->fio, path, &e->index_file, m));
    free(path);
    return m;
}

static void test_bucketed(void **state)
{
    (void)state;
    env v;
    env_init(&v);
    pm_dv_maintainer *m;
    PM_OK_OR_FAIL(pm_dv_maintainer_new(&v.io, &PARTITION, 1, false, NULL, 0, &m));
    assert_false(pm_dv_maintainer_modified(m));
    PM_OK_OR_FAIL(pm_dv_maintainer_delete_row(m, "f1", 5));
    PM_OK_OR_FAIL(pm_dv_maintainer_delete_row(m, "f1", 0));
    PM_OK_OR_FAIL(pm_dv_maintainer_delete_row(m, "f2", 3));
    PM_EXPECT_ERR(pm_dv_maintainer_delete_row(m, "f2", INT64_C(1) << 31), PM_EINVALID);
    assert_true(pm_dv_maintainer_modified(m));
    pm_index_manifest_entry e1;
    bool written;
    PM_OK_OR_FAIL(pm_dv_maintainer_write(m, &e1, &written));
    assert_true(written);
    assert_false(pm_dv_maintainer_modified(m));
    assert_int_equal(e1.kind, PM_FILE_ADD);
    assert_int_equal(e1.bucket, 1);
    assert_int_equal(e1.partition.len, sizeof PART);
    assert_memory_equal(e1.partition.data, PART, sizeof PART);
    assert_string_equal(e1.index_file.index_type, "DELETION_VECTORS");
    assert_int_equal(e1.index_file.row_count, 2);
    pm_index_manifest_entry none;
    PM_OK_OR_FAIL(pm_dv_maintainer_write(m, &none, &written));
    assert_false(written);
    pm_dv_maintainer_free(m);

    /* Restore among unrelated entries: other bucket, other partition, HASH. */
    pm_index_manifest_entry entries[4];
    PM_OK_OR_FAIL(pm_index_manifest_entry_copy(&entries[0], &e1));
    entries[0].bucket = 0;
    PM_OK_OR_FAIL(pm_index_manifest_entry_copy(&entries[1], &e1));
    entries[1].partition.data[12] = 11;
    PM_OK_OR_FAIL(pm_index_manifest_entry_copy(&entries[2], &e1));
    free(entries[2].index_file.index_type);
    entries[2].index_file.index_type = strdup("HASH");
    PM_OK_OR_FAIL(pm_index_manifest_entry_copy(&entries[3], &e1));
    PM_OK_OR_FAIL(pm_dv_maintainer_new(&v.io, &PARTITION, 1, false, entries, 4, &m));
    assert_int_equal(pm_dv_map_count(pm_dv_maintainer_vectors(m)), 2);
    EXPECT(pm_dv_maintainer_get(m, "f1"), 0, 5);
    EXPECT(pm_dv_maintainer_get(m, "f2"), 3);
    assert_null(pm_dv_maintainer_get(m, "f3"));
    PM_OK_OR_FAIL(pm_dv_maintainer_delete_row(m, "f1", 5)); /* already deleted */
    assert_false(pm_dv_maintainer_modified(m));
    pm_dv_maintainer_remove(m, "nope");
    assert_false(pm_dv_maintainer_modified(m));
    PM_OK_OR_FAIL(pm_dv_maintainer_delete_row(m, "f1", 6));
    pm_dv_maintainer_remove(m, "f2");
    pm_dv *extra = DV(false, 1, 2);
    PM_OK_OR_FAIL(pm_dv_maintainer_merge(m, "f3", extra)); /* copied */
    PM_OK_OR_FAIL(pm_dv_maintainer_merge(m, "f1", extra)); /* merged */
    pm_dv *wide = DV(true, 1);
    PM_EXPECT_ERR(pm_dv_maintainer_merge(m, "f1", wide), PM_EINVALID);
    pm_dv_free(wide);
    pm_dv_free(extra);
    PM_OK_OR_FAIL(pm_dv_maintainer_put(m, "f4", DV(false, 9)));
    pm_index_manifest_entry e2;
    PM_OK_OR_FAIL(pm_dv_maintainer_write(m, &e2, &written));
    assert_true(written);
    assert_string_not_equal(e2.index_file.file_name, e1.index_file.file_name);
    pm_dv_map *got = read_entry(&v, &e2);
    assert_int_equal(pm_dv_map_count(got), 3);
    EXPECT(pm_dv_map_get(got, "f1"), 0, 1, 2, 5, 6);
    EXPECT(pm_dv_map_get(got, "f3"), 1, 2);
    EXPECT(pm_dv_map_get(got, "f4"), 9);
    pm_dv_map_free(got);

    /* Everything compacted away: an empty file still replaces the old one. */
    pm_dv_maintainer_remove(m, "f1");
    pm_dv_maintainer_remove(m, "f3");
    pm_dv_maintainer_remove(m, "f4");
    pm_index_manifest_entry e3;
    PM_OK_OR_FAIL(pm_dv_maintainer_write(m, &e3, &written));
    assert_true(written);
    assert_int_equal(e3.index_file.file_size, 1);
    assert_int_equal(e3.index_file.row_count, 0);
    pm_dv_maintainer_free(m);

    for (int i = 0; i < 4; i++)
        pm_index_manifest_entry_clear(&entries[i]);
    pm_index_manifest_entry_clear(&e1);
    pm_index_manifest_entry_clear(&e2);
    pm_index_manifest_entry_clear(&e3);
    env_free(&v);
}

/* Restore a bucket of a Java-written table (its index files copied). */
static void test_bucketed_java_restore(void **state)
{
    (void)state;
    env v;
    env_init(&v);
    const char *root = PM_FIXTURES_DIR "/java-written/parquet/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv";
    char src[600], dst[600];
    pm_name_list names;
    snprintf(src, sizeof src, "%s/index", root);
    PM_OK_OR_FAIL(pm_fileio_list(v.fio, src, &names));
    snprintf(dst, sizeof dst, "%s/index", v.tmp);
    PM_OK_OR_FAIL(pm_fileio_mkdirs(v.fio, dst));
    for (size_t i = 0; i < names.count; i++) {
        pm_buf b = PM_BUF_INIT;
        snprintf(src, sizeof src, "%s/index/%s", root, names.names[i]);
        snprintf(dst, sizeof dst, "%s/index/%s", v.tmp, names.names[i]);
        PM_OK_OR_FAIL(pm_fileio_read_file(v.fio, src, &b));
        PM_OK_OR_FAIL(pm_fileio_overwrite_atomic(v.fio, dst, b.data, b.len));
        pm_buf_free(&b);
    }
    pm_fileio_list_free(&names);
    snprintf(src, sizeof src, "%s/manifest", root);
    PM_OK_OR_FAIL(pm_fileio_list(v.fio, src, &names));
    pm_index_manifest_entry *e = NULL;
    size_t n = 0;
    for (size_t i = 0; i < names.count; i++)
        if (!strncmp(names.names[i], "index-manifest-", 15)) {
            snprintf(src, sizeof src, "%s/manifest/%s", root, names.names[i]);
            PM_OK_OR_FAIL(pm_index_manifest_read(v.fio, src, &e, &n));
        }
    pm_fileio_list_free(&names);
    assert_int_equal(n, 2);
    for (int32_t b = 0; b < 2; b++) {
        pm_dv_maintainer *m;
        PM_OK_OR_FAIL(pm_dv_maintainer_new(&v.io, &e[0].partition, b, false, e, n, &m));
        const pm_dv_map *dvs = pm_dv_maintainer_vectors(m);
        assert_int_equal(pm_dv_map_count(dvs), 1);
        if (b == 0)
            EXPECT(pm_dv_map_at(dvs, 0), 0);
        else
            EXPECT(pm_dv_map_at(dvs, 0), 4);
        /* Delete one more row and rewrite: the new file holds both. */
        const char *name = pm_dv_map_name(dvs, 0);
        char *keep = strdup(name);
        PM_OK_OR_FAIL(pm_dv_maintainer_delete_row(m, keep, 2));
        pm_index_manifest_entry added;
        bool written;
        PM_OK_OR_FAIL(pm_dv_maintainer_write(m, &added, &written));
        assert_true(written);
        pm_dv_map *got = read_entry(&v, &added);
        if (b == 0)
            EXPECT(pm_dv_map_get(got, keep), 0, 2);
        else
            EXPECT(pm_dv_map_get(got, keep), 2, 4);
        pm_dv_map_free(got);
        free(keep);
        pm_index_manifest_entry_clear(&added);
        pm_dv_maintainer_free(m);
    }
    pm_index_manifest_entries_free(e, n);
    env_free(&v);
}

/* state = index manifest entries after applying `changes` (file-name keyed). */
static void apply(pm_index_manifest_entry **state, size_t *n, const pm_index_manifest_entry *changes,
                  size_t nc)
{
    for (size_t i = 0; i < nc; i++) {
        if (changes[i].kind == PM_FILE_DELETE) {
            size_t k;
            for (k = 0; k < *n; k++)
                if (!strcmp((*state)[k].index_file.file_name, changes[i].index_file.file_name))
                    break;
            assert_true(k < *n);
            pm_index_manifest_entry_clear(&(*state)[k]);
            memmove(*state + k, *state + k + 1, (*n - k - 1) * sizeof **state);
            (*n)--;
        } else {
            *state = realloc(*state, (*n + 1) * sizeof **state);
            PM_OK_OR_FAIL(pm_index_manifest_entry_copy(&(*state)[(*n)++], &changes[i]));
        }
    }
}

static void test_append(void **state)
{
    (void)state;
    env v;
    env_init(&v);
    pm_index_manifest_entry *st = NULL, *ch;
    size_t nst = 0, nch;

    pm_dv_append_maintainer *m;
    PM_OK_OR_FAIL(pm_dv_append_maintainer_new(&v.io, &PARTITION, 0, NULL, 0, &m));
    PM_OK_OR_FAIL(pm_dv_append_maintainer_add(m, "fA", DV(false, 1, 2)));
    PM_OK_OR_FAIL(pm_dv_append_maintainer_add(m, "fB", DV(false, 5)));
    PM_OK_OR_FAIL(pm_dv_append_maintainer_add(m, "fB", DV(false, 6))); /* merged in memory */
    PM_OK_OR_FAIL(pm_dv_append_maintainer_persist(m, &ch, &nch));
    pm_dv_append_maintainer_free(m);
    assert_int_equal(nch, 1);
    assert_int_equal(ch[0].kind, PM_FILE_ADD);
    assert_int_equal(ch[0].bucket, 0);
    assert_int_equal(ch[0].index_file.row_count, 2);
    const char *first_file = ch[0].index_file.file_name;
    char *first = strdup(first_file);
    apply(&st, &nst, ch, nch);
    pm_index_manifest_entries_free(ch, nch);

    /* New vector for fA: merged with {1,2}; fA's file is touched, fB moves. */
    PM_OK_OR_FAIL(pm_dv_append_maintainer_new(&v.io, &PARTITION, 0, st, nst, &m));
    pm_dv *cur;
    PM_OK_OR_FAIL(pm_dv_append_maintainer_get(m, "fB", &cur));
    EXPECT(cur, 5, 6);
    pm_dv_free(cur);
    PM_OK_OR_FAIL(pm_dv_append_maintainer_get(m, "fZ", &cur));
    assert_null(cur);
    PM_OK_OR_FAIL(pm_dv_append_maintainer_add(m, "fA", DV(false, 3)));
    PM_OK_OR_FAIL(pm_dv_append_maintainer_get(m, "fA", &cur));
    EXPECT(cur, 1, 2, 3);
    pm_dv_free(cur);
    PM_EXPECT_ERR(pm_dv_append_maintainer_add(m, "fB", DV(true, 3)), PM_EINVALID);
    PM_OK_OR_FAIL(pm_dv_append_maintainer_persist(m, &ch, &nch));
    pm_dv_append_maintainer_free(m);
    assert_int_equal(nch, 3);
    assert_int_equal(ch[0].kind, PM_FILE_ADD); /* fB rewritten */
    assert_int_equal(ch[1].kind, PM_FILE_DELETE);
    assert_string_equal(ch[1].index_file.file_name, first);
    assert_int_equal(ch[2].kind, PM_FILE_ADD); /* fA */
    pm_dv_map *a = read_entry(&v, &ch[0]), *b = read_entry(&v, &ch[2]);
    assert_int_equal(pm_dv_map_count(a), 1);
    EXPECT(pm_dv_map_get(a, "fB"), 5, 6);
    assert_int_equal(pm_dv_map_count(b), 1);
    EXPECT(pm_dv_map_get(b, "fA"), 1, 2, 3);
    pm_dv_map_free(a);
    pm_dv_map_free(b);
    apply(&st, &nst, ch, nch);
    pm_index_manifest_entries_free(ch, nch);
    assert_int_equal(nst, 2);

    /* fB compacted away: its file is deleted, nothing else written. */
    PM_OK_OR_FAIL(pm_dv_append_maintainer_new(&v.io, &PARTITION, 0, st, nst, &m));
    pm_dv_append_maintainer_remove(m, "fB");
    PM_OK_OR_FAIL(pm_dv_append_maintainer_get(m, "fB", &cur));
    assert_null(cur);
    PM_OK_OR_FAIL(pm_dv_append_maintainer_persist(m, &ch, &nch));
    pm_dv_append_maintainer_free(m);
    assert_int_equal(nch, 1);
    assert_int_equal(ch[0].kind, PM_FILE_DELETE);
    apply(&st, &nst, ch, nch);
    pm_index_manifest_entries_free(ch, nch);
    assert_int_equal(nst, 1);

    /* Rolling at a tiny target: one file per vector. */
    PM_OK_OR_FAIL(pm_dv_append_maintainer_new(&v.io, &PARTITION, 1, st, nst, &m));
    for (int i = 0; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "g%d", i);
        PM_OK_OR_FAIL(pm_dv_append_maintainer_add(m, name, DV(true, i, (INT64_C(1) << 33) + i)));
    }
    PM_OK_OR_FAIL(pm_dv_append_maintainer_persist(m, &ch, &nch));
    pm_dv_append_maintainer_free(m);
    assert_int_equal(nch, 5);
    for (size_t i = 0; i < nch; i++) {
        assert_int_equal(ch[i].kind, PM_FILE_ADD);
        assert_int_equal(ch[i].index_file.row_count, 1);
        pm_dv_map *g = read_entry(&v, &ch[i]);
        EXPECT(pm_dv_map_at(g, 0), (int64_t)i, (INT64_C(1) << 33) + (int64_t)i);
        pm_dv_map_free(g);
    }
    pm_index_manifest_entries_free(ch, nch);

    free(first);
    pm_index_manifest_entries_free(st, nst);
    env_free(&v);
}

static void test_options(void **state)
{
    (void)state;
    pm_options *o;
    PM_OK_OR_FAIL(pm_options_new(&o));
    bool b64 = true;
    int64_t target = 0;
    PM_OK_OR_FAIL(pm_dv_options(o, &b64, &target));
    assert_false(b64);
    assert_int_equal(target, 2 * 1024 * 1024);
    PM_OK_OR_FAIL(pm_options_set(o, "deletion-vectors.bitmap64", "true"));
    PM_OK_OR_FAIL(pm_options_set(o, "deletion-vector.index-file.target-size", "64 kb"));
    PM_OK_OR_FAIL(pm_dv_options(o, &b64, &target));
    assert_true(b64);
    assert_int_equal(target, 64 * 1024);
    PM_OK_OR_FAIL(pm_options_set(o, "deletion-vectors.bitmap64", "maybe"));
    PM_EXPECT_ERR(pm_dv_options(o, &b64, &target), PM_EINVALID);
    pm_options_free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bucketed),
        cmocka_unit_test(test_bucketed_java_restore),
        cmocka_unit_test(test_append),
        cmocka_unit_test(test_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
