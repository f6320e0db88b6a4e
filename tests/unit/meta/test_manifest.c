/*
 * tests/unit/meta/test_manifest.c — manifests, manifest lists and index
 * manifests: every Java-written file reads; per snapshot the manifest-list
 * rows agree with the manifests they describe (sizes, counts, buckets,
 * levels, schema ids, row ids and partition stats recomputed byte for
 * byte), merged entries give the snapshot's record counts; our writer's
 * Avro schemas equal Java's; write → read round trips; merge semantics;
 * live keys read manifest by manifest equal the merged answer; entry lists
 * of views and of moved entries; rolling; codecs; ORC manifests are
 * unsupported.
 */
#include "meta_fixtures.h"

#include <inttypes.h>
#include <string.h>

#include "pm_test.h"
#include "meta/manifest.h"
#include "meta/schema.h"
#include "meta/snapshot_store.h"
#include "meta/stats.h"
#include "types/binary_row.h"

static pm_fileio *fio;
static char *tmp;

static int setup(void **state)
{
    (void)state;
    tmp = pm_test_tmpdir();
    return pm_fileio_local_new(&fio) == NULL && tmp ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    pm_test_rmtree(tmp);
    free(tmp);
    pm_fileio_free(fio);
    return 0;
}

/* ---------------- equality helpers ---------------- */

static bool bytes_eq(const pm_bytes *a, const pm_bytes *b)
{
    return a->has == b->has && a->len == b->len && (!a->len || !memcmp(a->data, b->data, a->len));
}

static bool list_eq(const pm_str_list *a, const pm_str_list *b)
{
    if (a->count != b->count)
        return false;
    for (size_t i = 0; i < a->count; i++)
        if (strcmp(a->items[i], b->items[i]))
            return false;
    return true;
}

static bool olong_eq(pm_opt_long a, pm_opt_long b) { return a.has == b.has && (!a.has || a.v == b.v); }
static bool oint_eq(pm_opt_int a, pm_opt_int b) { return a.has == b.has && (!a.has || a.v == b.v); }
static bool str_eq(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

static bool stats_eq(const pm_simple_stats *a, const pm_simple_stats *b)
{
    if (!bytes_eq(&a->min_values, &b->min_values) || !bytes_eq(&a->max_values, &b->max_values) ||
        a->has_null_counts != b->has_null_counts || a->null_count_len != b->null_count_len)
        return false;
    for (size_t i = 0; i < a->null_count_len; i++)
        if (!olong_eq(a->null_counts[i], b->null_counts[i]))
            return false;
    return true;
}

static bool file_eq(const pm_data_file_meta *a, const pm_data_file_meta *b)
{
    return str_eq(a->file_name, b->file_name) && a->file_size == b->file_size &&
           a->row_count == b->row_count && bytes_eq(&a->min_key, &b->min_key) &&
           bytes_eq(&a->max_key, &b->max_key) && stats_eq(&a->key_stats, &b->key_stats) &&
           stats_eq(&a->value_stats, &b->value_stats) &&
           a->min_sequence_number == b->min_sequence_number &&
           a->max_sequence_number == b->max_sequence_number && a->schema_id == b->schema_id &&
           a->level == b->level && list_eq(&a->extra_files, &b->extra_files) &&
           olong_eq(a->creation_time, b->creation_time) &&
           olong_eq(a->delete_row_count, b->delete_row_count) &&
           bytes_eq(&a->embedded_index, &b->embedded_index) && oint_eq(a->file_source, b->file_source) &&
           a->has_value_stats_cols == b->has_value_stats_cols &&
           list_eq(&a->value_stats_cols, &b->value_stats_cols) &&
           str_eq(a->external_path, b->external_path) && olong_eq(a->first_row_id, b->first_row_id) &&
           a->has_write_cols == b->has_write_cols && list_eq(&a->write_cols, &b->write_cols);
}

static bool entry_eq(const pm_manifest_entry *a, const pm_manifest_entry *b)
{
    return a->kind == b->kind && bytes_eq(&a->partition, &b->partition) && a->bucket == b->bucket &&
           a->total_buckets == b->total_buckets && file_eq(&a->file, &b->file);
}

/* Our meta (a) against Java's (b); fields that b's Paimon version did not
 * write yet (bucket/level before 1.1, row ids before 1.4) are skipped. */
static bool meta_matches_java(const pm_manifest_file_meta *a, const pm_manifest_file_meta *b)
{
    return a->num_added_files == b->num_added_files && a->num_deleted_files == b->num_deleted_files &&
           stats_eq(&a->partition_stats, &b->partition_stats) && a->schema_id == b->schema_id &&
           (!b->min_bucket.has || (oint_eq(a->min_bucket, b->min_bucket) &&
                                   oint_eq(a->max_bucket, b->max_bucket) &&
                                   oint_eq(a->min_level, b->min_level) &&
                                   oint_eq(a->max_level, b->max_level))) &&
           (!b->min_row_id.has || (olong_eq(a->min_row_id, b->min_row_id) &&
                                   olong_eq(a->max_row_id, b->max_row_id)));
}

static bool meta_eq_but_name(const pm_manifest_file_meta *a, const pm_manifest_file_meta *b)
{
    return a->num_added_files == b->num_added_files && a->num_deleted_files == b->num_deleted_files &&
           stats_eq(&a->partition_stats, &b->partition_stats) && a->schema_id == b->schema_id &&
           oint_eq(a->min_bucket, b->min_bucket) && oint_eq(a->max_bucket, b->max_bucket) &&
           oint_eq(a->min_level, b->min_level) && oint_eq(a->max_level, b->max_level) &&
           olong_eq(a->min_row_id, b->min_row_id) && olong_eq(a->max_row_id, b->max_row_id);
}

static bool index_eq(const pm_index_manifest_entry *a, const pm_index_manifest_entry *b)
{
    const pm_index_file_meta *x = &a->index_file, *y = &b->index_file;
    if (a->kind != b->kind || !bytes_eq(&a->partition, &b->partition) || a->bucket != b->bucket ||
        !str_eq(x->index_type, y->index_type) || !str_eq(x->file_name, y->file_name) ||
        x->file_size != y->file_size || x->row_count != y->row_count ||
        x->has_dv_ranges != y->has_dv_ranges || x->dv_range_len != y->dv_range_len ||
        !str_eq(x->external_path, y->external_path) || x->has_global_index != y->has_global_index)
        return false;
    for (size_t i = 0; i < x->dv_range_len; i++)
        if (!str_eq(x->dv_ranges[i].data_file_name, y->dv_ranges[i].data_file_name) ||
            x->dv_ranges[i].offset != y->dv_ranges[i].offset ||
            x->dv_ranges[i].length != y->dv_ranges[i].length ||
            !olong_eq(x->dv_ranges[i].cardinality, y->dv_ranges[i].cardinality))
            return false;
    if (x->has_global_index) {
        const pm_global_index_meta *g = &x->global_index, *h = &y->global_index;
        if (g->row_range_start != h->row_range_start || g->row_range_end != h->row_range_end ||
            g->index_field_id != h->index_field_id || g->has_extra_field_ids != h->has_extra_field_ids ||
            g->extra_field_id_len != h->extra_field_id_len || !bytes_eq(&g->index_meta, &h->index_meta) ||
            !bytes_eq(&g->source_meta, &h->source_meta))
            return false;
        for (size_t i = 0; i < g->extra_field_id_len; i++)
            if (g->extra_field_ids[i] != h->extra_field_ids[i])
                return false;
    }
    return true;
}

/* ---------------- fixture walk ---------------- */

static char *avro_schema_of(const char *path)
{
    char *schema = NULL, *codec = NULL;
    PM_OK_OR_FAIL(pm_avro_read_file_info(fio, path, &schema, &codec));
    free(codec);
    return schema;
}

static void check_manifest_meta(const char *root, const pm_type *ptype, const pm_manifest_file_meta *m,
                                int64_t *added_rows, int64_t *deleted_rows)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/manifest/%s", root, m->file_name);
    uint64_t size;
    PM_OK_OR_FAIL(pm_fileio_file_size(fio, path, &size));
    assert_int_equal((int64_t)size, m->file_size);
    pm_manifest_entry *e;
    size_t n;
    PM_OK_OR_FAIL(pm_manifest_read(fio, path, &e, &n));
    int64_t add = 0, del = 0, schema_id = INT64_MIN;
    int32_t minb = INT32_MAX, maxb = INT32_MIN, minl = INT32_MAX, maxl = INT32_MIN;
    pm_stats_collector *sc;
    PM_OK_OR_FAIL(pm_stats_collector_new(&sc, ptype));
    for (size_t i = 0; i < n; i++) {
        const pm_manifest_entry *x = &e[i];
        if (x->kind == PM_FILE_ADD) {
            add++;
            *added_rows += x->file.row_count;
        } else {
            del++;
            *deleted_rows += x->file.row_count;
        }
        if (x->file.schema_id > schema_id)
            schema_id = x->file.schema_id;
        minb = x->bucket < minb ? x->bucket : minb;
        maxb = x->bucket > maxb ? x->bucket : maxb;
        minl = x->file.level < minl ? x->file.level : minl;
        maxl = x->file.level > maxl ? x->file.level : maxl;
        assert_true(x->file.row_count >= 0);
        assert_non_null(x->file.file_name);
        PM_OK_OR_FAIL(pm_stats_collector_add(sc, x->partition.data, x->partition.len));
    }
    assert_int_equal(add, m->num_added_files);
    assert_int_equal(del, m->num_deleted_files);
    if (n)
        assert_int_equal(schema_id, m->schema_id);
    if (m->min_bucket.has) {
        assert_int_equal(minb, m->min_bucket.v);
        assert_int_equal(maxb, m->max_bucket.v);
        assert_int_equal(minl, m->min_level.v);
        assert_int_equal(maxl, m->max_level.v);
    }
    /* Java's partition stats, recomputed from the entries */
    pm_simple_stats st;
    PM_OK_OR_FAIL(pm_stats_collector_result(sc, &st));
    if (!stats_eq(&st, &m->partition_stats)) {
        print_error("%s: partition stats differ from the manifest list's\n", path);
        fail();
    }
    pm_simple_stats_clear(&st);
    pm_stats_collector_free(sc);

    /* write the same entries with our writer, as Avro and as ORC: identical
     * ManifestFileMeta but name/size, and the same entries read back */
    for (int orc = 0; orc < 2; orc++) {
    pm_path_factory *pf;
    pm_options *o;
    PM_OK_OR_FAIL(pm_options_new(&o));
    if (orc)
        PM_OK_OR_FAIL(pm_options_set(o, "manifest.format", "orc"));
    PM_OK_OR_FAIL(pm_path_factory_new(&pf, tmp, ptype, o));
    if (n) {
        pm_manifest_file_meta *mine;
        size_t nm;
        PM_OK_OR_FAIL(pm_manifest_write(fio, pf, o, ptype, 0, e, n, &mine, &nm));
        assert_int_equal(nm, 1);
        if (!meta_matches_java(&mine[0], m)) {
            print_error("%s: our ManifestFileMeta differs from Java's\n", path);
            fail();
        }
        char *mp;
        PM_OK_OR_FAIL(pm_path_factory_manifest_path(pf, mine[0].file_name, &mp));
        PM_OK_OR_FAIL(pm_fileio_file_size(fio, mp, &size));
        assert_int_equal((int64_t)size, mine[0].file_size);
        {
            char magic[4] = {0};
            FILE *mf = fopen(mp, "rb");
            assert_non_null(mf);
            assert_int_equal(fread(magic, 1, 4, mf), 4);
            fclose(mf);
            assert_memory_equal(magic, orc ? "ORC" : "Obj\x01", orc ? 3 : 4);
        }
        pm_manifest_entry *back;
        size_t nb;
        PM_OK_OR_FAIL(pm_manifest_read(fio, mp, &back, &nb));
        assert_int_equal(nb, n);
        for (size_t i = 0; i < n; i++)
            if (!entry_eq(&back[i], &e[i])) {
                print_error("%s: entry %zu differs after write/read\n", path, i);
                fail();
            }
        pm_manifest_entries_free(back, nb);
        PM_OK_OR_FAIL(pm_fileio_delete(fio, mp));
        free(mp);
        pm_manifest_file_metas_free(mine, nm);
    }
    pm_path_factory_free(pf);
    pm_options_free(o);
    }
    pm_manifest_entries_free(e, n);
}

/* Every snapshot of one table (or branch) root: lists, manifests, merge. */
static size_t check_table(const char *table_root, const char *branch_root)
{
    pm_schema *schema;
    PM_OK_OR_FAIL(pm_schema_load_latest(fio, branch_root, &schema));
    assert_non_null(schema);
    pm_type *ptype;
    PM_OK_OR_FAIL(pm_schema_partition_type(schema, &ptype));
    pm_options *o;
    PM_OK_OR_FAIL(pm_options_new(&o));
    pm_path_factory *pf;
    PM_OK_OR_FAIL(pm_path_factory_new(&pf, table_root, ptype, schema->options));
    bool index_in_data_dir = pm_path_factory_index_in_data_dir(pf);
    pm_snapshot_store *st;
    PM_OK_OR_FAIL(pm_snapshot_store_open(&st, fio, branch_root, NULL));
    int64_t *ids;
    size_t nids;
    PM_OK_OR_FAIL(pm_snapshot_store_list_ids(st, &ids, &nids));
    size_t checked = 0;
    for (size_t k = 0; k < nids; k++) {
        pm_snapshot *s;
        PM_OK_OR_FAIL(pm_snapshot_store_load(st, ids[k], &s));
        pm_manifest_file_meta *metas;
        size_t nm;
        PM_OK_OR_FAIL(pm_snapshot_data_manifests(fio, pf, s, &metas, &nm));
        /* list sizes recorded in the snapshot */
        const char *lists[2] = {s->base_manifest_list, s->delta_manifest_list};
        pm_opt_long sizes[2] = {s->base_manifest_list_size, s->delta_manifest_list_size};
        for (int l = 0; l < 2; l++) {
            char *p;
            uint64_t size;
            PM_OK_OR_FAIL(pm_path_factory_manifest_path(pf, lists[l], &p));
            PM_OK_OR_FAIL(pm_fileio_file_size(fio, p, &size));
            if (sizes[l].has)
                assert_int_equal((int64_t)size, sizes[l].v);
            free(p);
        }
        /* delta manifests give deltaRecordCount */
        char *dp;
        pm_manifest_file_meta *delta;
        size_t nd;
        PM_OK_OR_FAIL(pm_path_factory_manifest_path(pf, s->delta_manifest_list, &dp));
        PM_OK_OR_FAIL(pm_manifest_list_read(fio, dp, &delta, &nd));
        free(dp);
        int64_t add = 0, del = 0;
        for (size_t i = 0; i < nd; i++)
            check_manifest_meta(table_root, ptype, &delta[i], &add, &del);
        assert_int_equal(add - del, s->delta_record_count);
        pm_manifest_file_metas_free(delta, nd);
        /* merged base + delta gives totalRecordCount */
        pm_manifest_entry *live;
        size_t nl;
        PM_OK_OR_FAIL(pm_manifest_read_merged(fio, pf, metas, nm, &live, &nl));
        int64_t total = 0;
        for (size_t i = 0; i < nl; i++) {
            assert_int_equal(live[i].kind, PM_FILE_ADD); /* a full snapshot has no dangling DELETE */
            total += live[i].file.row_count;
            /* the data file sits where our partition path rules put it */
            char *bp, *fp;
            PM_OK_OR_FAIL(pm_path_factory_bucket_path_binrow(pf, live[i].partition.data,
                                                             live[i].partition.len, live[i].bucket, &bp));
            fp = pm_path_join(bp, live[i].file.file_name);
            if (live[i].file.external_path) {
                /* written elsewhere: the external path ends with the same relative path */
                const char *rel = fp + strlen(table_root) + 1;
                const char *ext = live[i].file.external_path;
                size_t rl = strlen(rel), el = strlen(ext);
                if (el < rl + 1 || strcmp(ext + el - rl, rel) || ext[el - rl - 1] != '/') {
                    print_error("external path %s does not end with /%s\n", ext, rel);
                    fail();
                }
            } else {
                bool exists;
                PM_OK_OR_FAIL(pm_fileio_exists(fio, fp, &exists));
                if (!exists) {
                    print_error("data file missing: %s\n", fp);
                    fail();
                }
            }
            free(fp);
            free(bp);
        }
        assert_int_equal(total, s->total_record_count);
        /* index manifest */
        if (s->index_manifest) {
            char *ip;
            pm_index_manifest_entry *ie;
            size_t ni;
            PM_OK_OR_FAIL(pm_path_factory_manifest_path(pf, s->index_manifest, &ip));
            PM_OK_OR_FAIL(pm_index_manifest_read(fio, ip, &ie, &ni));
            for (size_t i = 0; i < ni; i++) {
                assert_int_equal(ie[i].kind, PM_FILE_ADD); /* full state file */
                assert_non_null(ie[i].index_file.index_type);
                char *xp = NULL;
                if (ie[i].index_file.external_path) {
                    /* next to external data files: same relative bucket directory */
                    char *bp;
                    PM_OK_OR_FAIL(pm_path_factory_bucket_path_binrow(pf, ie[i].partition.data,
                                                                     ie[i].partition.len, ie[i].bucket, &bp));
                    char *mine = pm_path_join(bp, ie[i].index_file.file_name);
                    const char *rel = mine + strlen(table_root) + 1, *ext = ie[i].index_file.external_path;
                    size_t rl = strlen(rel), el = strlen(ext);
                    assert_true(el > rl && !strcmp(ext + el - rl, rel) && ext[el - rl - 1] == '/');
                    free(mine);
                    free(bp);
                    continue;
                } else if (index_in_data_dir) {
                    char *bp;
                    PM_OK_OR_FAIL(pm_path_factory_bucket_path_binrow(pf, ie[i].partition.data,
                                                                     ie[i].partition.len, ie[i].bucket, &bp));
                    xp = pm_path_join(bp, ie[i].index_file.file_name);
                    free(bp);
                } else {
                    PM_OK_OR_FAIL(pm_path_factory_index_path(pf, ie[i].index_file.file_name, &xp));
                }
                bool exists;
                PM_OK_OR_FAIL(pm_fileio_exists(fio, xp, &exists));
                if (!exists) {
                    print_error("index file missing: %s\n", xp);
                    fail();
                }
                free(xp);
            }
            /* write → read */
            char *name;
            int64_t size;
            PM_OK_OR_FAIL(pm_index_manifest_write(fio, pf, o, ie, ni, &name, &size));
            char *mine;
            PM_OK_OR_FAIL(pm_path_factory_manifest_path(pf, name, &mine));
            pm_index_manifest_entry *back;
            size_t nb;
            PM_OK_OR_FAIL(pm_index_manifest_read(fio, mine, &back, &nb));
            assert_int_equal(nb, ni);
            for (size_t i = 0; i < ni; i++)
                assert_true(index_eq(&back[i], &ie[i]));
            pm_index_manifest_entries_free(back, nb);
            PM_OK_OR_FAIL(pm_fileio_delete(fio, mine));
            free(mine);
            free(name);
            pm_index_manifest_entries_free(ie, ni);
            free(ip);
        }
        pm_manifest_entries_free(live, nl);
        pm_manifest_file_metas_free(metas, nm);
        pm_snapshot_free(s);
        checked++;
    }
    free(ids);
    pm_snapshot_store_free(st);
    pm_path_factory_free(pf);
    pm_options_free(o);
    pm_type_free(ptype);
    pm_schema_free(schema);
    return checked;
}

/* The tests write into tmp/manifest via path factories rooted at tmp. */
static void test_fixture_tables(void **state)
{
    (void)state;
    meta_paths latest = meta_find_files("snapshot", "LATEST");
    size_t tables = 0, snaps = 0;
    size_t orc_tables = 0;
    for (size_t i = 0; i < latest.count; i++) {
        orc_tables += strstr(latest.paths[i], "java-written-orc-manifests") != NULL;
        char *branch_root = strdup(latest.paths[i]);
        *strrchr(branch_root, '/') = 0;
        *strrchr(branch_root, '/') = 0;
        char *table_root = strdup(branch_root);
        char *b = strstr(table_root, "/branch/branch-");
        if (b)
            *b = 0;
        snaps += check_table(table_root, branch_root);
        tables++;
        free(table_root);
        free(branch_root);
    }
    assert_true(tables >= 37);
    assert_int_equal(orc_tables, 7);
    assert_true(snaps >= 100);
    meta_paths_free(&latest);
}

static void test_loose_fixture_files(void **state)
{
    (void)state;
    /* manifests and lists of Paimon 0.9 and 1.1 outside a table */
    const char *dir = PM_FIXTURES_DIR "/java-written/avro-format/manifest";
    const char *lists[] = {"avro_manifest_list_09", "avro_manifest_list_11"};
    const char *mans[] = {"avro_manifest_09", "avro_manifest_11", "manifest"};
    char p[1024];
    for (size_t i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, lists[i]);
        pm_manifest_file_meta *m;
        size_t n;
        PM_OK_OR_FAIL(pm_manifest_list_read(fio, p, &m, &n));
        assert_true(n > 0);
        assert_true(m[0].file_size > 0);
        assert_false(m[0].min_row_id.has);
        pm_manifest_file_metas_free(m, n);
    }
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, mans[i]);
        pm_manifest_entry *e;
        size_t n;
        PM_OK_OR_FAIL(pm_manifest_read(fio, p, &e, &n));
        assert_true(n > 0);
        assert_false(e[0].file.first_row_id.has);
        assert_true(e[0].file.creation_time.has);
        pm_manifest_entries_free(e, n);
    }
    /* ORC manifest lists Java wrote (Paimon 0.9 to 1.x field sets): every
     * list reads, its files are the table's manifests, older lists lack
     * the bucket/level/row id ranges (null) */
    meta_paths orc = meta_find_files("manifest", "manifest-list-");
    size_t seen = 0, old = 0;
    for (size_t i = 0; i < orc.count; i++) {
        if (!strstr(orc.paths[i], "java-written-orc-manifests"))
            continue;
        pm_manifest_file_meta *m;
        size_t n;
        PM_OK_OR_FAIL(pm_manifest_list_read(fio, orc.paths[i], &m, &n));
        for (size_t k = 0; k < n; k++) {
            assert_int_equal(strncmp(m[k].file_name, "manifest-", 9), 0);
            assert_true(m[k].file_size > 0);
            assert_true(m[k].num_added_files + m[k].num_deleted_files > 0);
            old += !m[k].min_bucket.has;
        }
        pm_manifest_file_metas_free(m, n);
        seen++;
    }
    assert_true(seen >= 14);
    assert_true(old > 0);
    meta_paths_free(&orc);
    /* a Parquet manifest is named as unsupported */
    snprintf(p, sizeof p, "%s/pq-manifest", tmp);
    PM_OK_OR_FAIL(pm_fileio_overwrite_atomic(fio, p, "PAR1....PAR1", 12));
    {
        pm_manifest_file_meta *m;
        size_t n;
        PM_EXPECT_ERR(pm_manifest_list_read(fio, p, &m, &n), PM_EUNSUPPORTED);
    }
    /* not Avro at all */
    snprintf(p, sizeof p, "%s/junk", tmp);
    PM_OK_OR_FAIL(pm_fileio_overwrite_atomic(fio, p, "hello", 5));
    pm_manifest_entry *e;
    size_t n;
    PM_EXPECT_ERR(pm_manifest_read(fio, p, &e, &n), PM_ECORRUPT);
}

/* Our writer's Avro schema equals what Java writes for the same field set. */
static void test_schema_text(void **state)
{
    (void)state;
    meta_paths ms = meta_find_files("manifest", "manifest-");
    char *java_entry = NULL, *java_list = NULL, *java_index = NULL;
    for (size_t i = 0; i < ms.count; i++) {
        const char *name = strrchr(ms.paths[i], '/') + 1;
        if (strstr(ms.paths[i], "java-written-orc-manifests"))
            continue;
        char *s = avro_schema_of(ms.paths[i]);
        if (!java_entry && !strncmp(name, "manifest-", 9) && strncmp(name, "manifest-list-", 14) &&
            strstr(s, "\"_WRITE_COLS\"")) {
            java_entry = s;
        } else if (!java_list && !strncmp(name, "manifest-list-", 14) && strstr(s, "\"_MAX_ROW_ID\"")) {
            java_list = s;
        } else {
            free(s);
        }
    }
    meta_paths_free(&ms);
    meta_paths im = meta_find_files("manifest", "index-manifest-");
    for (size_t i = 0; i < im.count && !java_index; i++) {
        char *s = avro_schema_of(im.paths[i]);
        if (strstr(s, "_GLOBAL_INDEX"))
            java_index = s;
        else
            free(s);
    }
    meta_paths_free(&im);
    assert_non_null(java_entry);
    assert_non_null(java_list);
    assert_non_null(java_index);

    pm_options *o;
    PM_OK_OR_FAIL(pm_options_new(&o));
    pm_type *none;
    PM_OK_OR_FAIL(pm_type_parse(&none, "ROW<>"));
    pm_path_factory *pf;
    PM_OK_OR_FAIL(pm_path_factory_new(&pf, tmp, none, o));
    /* one entry, one list row, one index entry */
    pm_manifest_entry e = {0};
    e.kind = PM_FILE_ADD;
    static const uint8_t empty_row[12] = {0};
    PM_OK_OR_FAIL(pm_bytes_set(&e.partition, empty_row, 12));
    e.file.file_name = strdup("data-x-0.parquet");
    PM_OK_OR_FAIL(pm_bytes_set(&e.file.min_key, empty_row, 12));
    PM_OK_OR_FAIL(pm_bytes_set(&e.file.max_key, empty_row, 12));
    PM_OK_OR_FAIL(pm_simple_stats_empty(&e.file.key_stats));
    PM_OK_OR_FAIL(pm_simple_stats_empty(&e.file.value_stats));
    pm_manifest_file_meta *metas;
    size_t nm;
    PM_OK_OR_FAIL(pm_manifest_write(fio, pf, o, none, 0, &e, 1, &metas, &nm));
    char *p;
    PM_OK_OR_FAIL(pm_path_factory_manifest_path(pf, metas[0].file_name, &p));
    char *ours = avro_schema_of(p);
    assert_string_equal(ours, java_entry);
    free(ours);
    free(p);
    char *name;
    int64_t size;
    PM_OK_OR_FAIL(pm_manifest_list_write(fio, pf, o, metas, nm, &name, &size));
    PM_OK_OR_FAIL(pm_path_factory_manifest_path(pf, name, &p));
    ours = avro_schema_of(p);
    assert_string_equal(ours, java_list);
    free(ours);
    free(p);
    free(name);
    PM_OK_OR_FAIL(pm_index_manifest_write(fio, pf, o, NULL, 0, &name, &size));
    PM_OK_OR_FAIL(pm_path_factory_manifest_path(pf, name, &p));
    ours = avro_schema_of(p);
    /* 2.0 adds _SOURCE_META to the global index record (the fixture is 1.4) */
    const char *anchor = "{\"name\":\"_INDEX_META\",\"type\":[\"null\",\"bytes\"],\"default\":null}";
    char *at = strstr(java_index, anchor);
    assert_non_null(at);
    size_t head = (size_t)(at - java_index) + strlen(anchor);
    char want[8192];
    snprintf(want, sizeof want, "%.*s,{\"name\":\"_SOURCE_META\",\"type\":[\"null\",\"bytes\"],"
             "\"default\":null}%s", (int)head, java_index, java_index + head);
    assert_string_equal(ours, want);
    free(ours);
    free(p);
    free(name);
    pm_manifest_file_metas_free(metas, nm);
    pm_manifest_entry_clear(&e);
    free(java_entry);
    free(java_list);
    free(java_index);
    pm_path_factory_free(pf);
    pm_type_free(none);
    pm_options_free(o);
}

/* ---------------- synthetic entries ---------------- */

static void make_entry(pm_manifest_entry *e, pm_file_kind kind, const char *file, int32_t bucket,
                       int32_t level, int32_t part)
{
    memset(e, 0, sizeof *e);
    e->kind = kind;
    uint8_t row[4 + 16] = {0, 0, 0, 1};
    memcpy(row + 4 + 8, &part, 4); /* INT partition field, little-endian slot */
    PM_OK_OR_FAIL(pm_bytes_set(&e->partition, row, sizeof row));
    e->bucket = bucket;
    e->total_buckets = 4;
    e->file.file_name = strdup(file);
    e->file.file_size = 100;
    e->file.row_count = 10;
    e->file.level = level;
    e->file.schema_id = 0;
    static const uint8_t empty_row[12] = {0};
    PM_OK_OR_FAIL(pm_bytes_set(&e->file.min_key, empty_row, 12));
    PM_OK_OR_FAIL(pm_bytes_set(&e->file.max_key, empty_row, 12));
    PM_OK_OR_FAIL(pm_simple_stats_empty(&e->file.key_stats));
    PM_OK_OR_FAIL(pm_simple_stats_empty(&e->file.value_stats));
}

static void test_merge(void **state)
{
    (void)state;
    pm_manifest_entry *e = calloc(8, sizeof *e);
    make_entry(&e[0], PM_FILE_ADD, "a", 0, 0, 1);
    make_entry(&e[1], PM_FILE_ADD, "b", 0, 0, 1);
    make_entry(&e[2], PM_FILE_DELETE, "c", 0, 0, 1);  /* ADD lives in an older manifest */
    make_entry(&e[3], PM_FILE_DELETE, "a", 0, 0, 1);  /* removes e[0] */
    make_entry(&e[4], PM_FILE_ADD, "a", 0, 1, 1);     /* same name, other level: other file */
    make_entry(&e[5], PM_FILE_ADD, "b", 1, 0, 1);     /* other bucket */
    make_entry(&e[6], PM_FILE_ADD, "b", 0, 0, 2);     /* other partition */
    make_entry(&e[7], PM_FILE_DELETE, "b", 0, 0, 1);  /* removes e[1] */
    size_t n = 8;
    PM_OK_OR_FAIL(pm_manifest_entries_merge(e, &n));
    assert_int_equal(n, 4);
    assert_string_equal(e[0].file.file_name, "c");
    assert_int_equal(e[0].kind, PM_FILE_DELETE);
    assert_int_equal(e[1].file.level, 1);
    assert_int_equal(e[2].bucket, 1);
    assert_int_equal(e[3].partition.data[12], 2);
    pm_manifest_entries_free(e, n);

    /* re-adding after the pair is gone appends at the end (LinkedHashMap order) */
    e = calloc(4, sizeof *e);
    make_entry(&e[0], PM_FILE_ADD, "a", 0, 0, 1);
    make_entry(&e[1], PM_FILE_ADD, "b", 0, 0, 1);
    make_entry(&e[2], PM_FILE_DELETE, "a", 0, 0, 1);
    make_entry(&e[3], PM_FILE_ADD, "a", 0, 0, 1);
    n = 4;
    PM_OK_OR_FAIL(pm_manifest_entries_merge(e, &n));
    assert_int_equal(n, 2);
    assert_string_equal(e[0].file.file_name, "b");
    assert_string_equal(e[1].file.file_name, "a");
    pm_manifest_entries_free(e, n);

    /* duplicate ADD, and ADD after a kept DELETE: corrupt, nothing leaks */
    e = calloc(3, sizeof *e);
    make_entry(&e[0], PM_FILE_ADD, "a", 0, 0, 1);
    make_entry(&e[1], PM_FILE_ADD, "a", 0, 0, 1);
    make_entry(&e[2], PM_FILE_ADD, "z", 0, 0, 1);
    n = 3;
    PM_EXPECT_ERR(pm_manifest_entries_merge(e, &n), PM_ECORRUPT);
    assert_int_equal(n, 3);
    pm_manifest_entries_free(e, n);
    e = calloc(2, sizeof *e);
    make_entry(&e[0], PM_FILE_DELETE, "a", 0, 0, 1);
    make_entry(&e[1], PM_FILE_ADD, "a", 0, 0, 1);
    n = 2;
    PM_EXPECT_ERR(pm_manifest_entries_merge(e, &n), PM_ECORRUPT);
    pm_manifest_entries_free(e, n);

    /* extra files, embedded index and external path are part of the key */
    e = calloc(4, sizeof *e);
    make_entry(&e[0], PM_FILE_ADD, "a", 0, 0, 1);
    make_entry(&e[1], PM_FILE_DELETE, "a", 0, 0, 1);
    e[1].file.external_path = strdup("/ext/a");
    make_entry(&e[2], PM_FILE_DELETE, "a", 0, 0, 1);
    PM_OK_OR_FAIL(pm_bytes_set(&e[2].file.embedded_index, "x", 1));
    make_entry(&e[3], PM_FILE_DELETE, "a", 0, 0, 1);
    PM_OK_OR_FAIL(pm_parse_list("a.index", &e[3].file.extra_files));
    n = 4;
    PM_OK_OR_FAIL(pm_manifest_entries_merge(e, &n));
    assert_int_equal(n, 4);
    pm_manifest_entries_free(e, n);
}

/* pm_manifest_keys_live reads manifests one at a time and answers, for every
 * key, what holding the merged entries (pm_manifest_read_merged) answers. */
static void test_keys_live(void **state)
{
    (void)state;
    pm_options *o;
    PM_OK_OR_FAIL(pm_options_new(&o));
    PM_OK_OR_FAIL(pm_options_set(o, "manifest.compression", "null"));
    pm_type *ptype;
    PM_OK_OR_FAIL(pm_type_parse(&ptype, "ROW<p INT>"));
    char *dir = pm_path_join(tmp, "keys-live");
    pm_path_factory *pf;
    PM_OK_OR_FAIL(pm_path_factory_new(&pf, dir, ptype, o));
    /* M1: ADD a b c; M2: DELETE b, ADD d; M3: ADD b again, DELETE c */
    struct { pm_file_kind k; const char *name; int m; } spec[] = {
        {PM_FILE_ADD, "a", 0}, {PM_FILE_ADD, "b", 0}, {PM_FILE_ADD, "c", 0}, {PM_FILE_DELETE, "b", 1},
        {PM_FILE_ADD, "d", 1}, {PM_FILE_ADD, "b", 2}, {PM_FILE_DELETE, "c", 2},
    };
    pm_manifest_file_meta metas[3];
    size_t nmetas = 0;
    for (int m = 0; m < 3; m++) {
        pm_manifest_entry e[4];
        size_t n = 0;
        for (size_t i = 0; i < sizeof spec / sizeof spec[0]; i++)
            if (spec[i].m == m)
                make_entry(&e[n++], spec[i].k, spec[i].name, 0, 0, 1);
        pm_manifest_file_meta *one;
        size_t none;
        PM_OK_OR_FAIL(pm_manifest_write(fio, pf, o, ptype, 0, e, n, &one, &none));
        assert_int_equal(none, 1);
        metas[nmetas++] = one[0];
        free(one);
        for (size_t i = 0; i < n; i++)
            pm_manifest_entry_clear(&e[i]);
    }
    /* keys: kinds do not matter, identifiers do (a at level 1 is another file) */
    const char *names[] = {"a", "b", "c", "d", "e", "a", "a"};
    bool want[] = {true, true, false, true, false, true, false};
    pm_manifest_entry keys[7];
    for (int i = 0; i < 7; i++)
        make_entry(&keys[i], i % 2 ? PM_FILE_ADD : PM_FILE_DELETE, names[i], 0, i == 6 ? 1 : 0, 1);
    bool live[7];
    PM_OK_OR_FAIL(pm_manifest_keys_live(fio, pf, metas, nmetas, keys, 7, live));
    /* the same answers from the merged entries */
    pm_manifest_entry *all;
    size_t nall;
    PM_OK_OR_FAIL(pm_manifest_read_merged(fio, pf, metas, nmetas, &all, &nall));
    pm_manifest_ident_set set = {0};
    for (size_t i = 0; i < nall; i++)
        if (all[i].kind == PM_FILE_ADD)
            PM_OK_OR_FAIL(pm_manifest_ident_set_add(&set, &all[i]));
    for (int i = 0; i < 7; i++) {
        assert_int_equal(live[i], want[i]);
        assert_int_equal(live[i], pm_manifest_ident_set_has(&set, &keys[i]));
        assert_true(pm_manifest_ident_set_find(&set, &keys[i]) == NULL || live[i]);
    }
    pm_manifest_ident_set_free(&set);
    pm_manifest_entries_free(all, nall);
    /* no manifests: nothing is live; no keys: nothing to do */
    PM_OK_OR_FAIL(pm_manifest_keys_live(fio, pf, metas, 0, keys, 7, live));
    for (int i = 0; i < 7; i++)
        assert_false(live[i]);
    PM_OK_OR_FAIL(pm_manifest_keys_live(fio, pf, metas, nmetas, keys, 0, live));
    /* a missing manifest is an error, not "not live" */
    char *p;
    PM_OK_OR_FAIL(pm_path_factory_manifest_path(pf, metas[1].file_name, &p));
    assert_int_equal(remove(p), 0);
    free(p);
    pm_error *err = pm_manifest_keys_live(fio, pf, metas, nmetas, keys, 7, live);
    assert_non_null(err);
    pm_error_free(err);

    /* entry lists: views borrow, take moves, the two kinds do not mix */
    pm_manifest_entry_list views = {0}, owned = {0};
    for (int i = 0; i < 3; i++)
        PM_OK_OR_FAIL(pm_manifest_entry_list_push_view(&views, PM_FILE_DELETE, &keys[i].partition, keys[i].bucket,
                                                       keys[i].total_buckets, &keys[i].file));
    assert_true(views.borrowed);
    assert_ptr_equal(views.v[1].file.file_name, keys[1].file.file_name);
    assert_int_equal(views.v[1].kind, PM_FILE_DELETE);
    views.v[1].file.first_row_id = (pm_opt_long){true, 42}; /* the view's scalars are its own */
    assert_false(keys[1].file.first_row_id.has);
    PM_EXPECT_ERR(pm_manifest_entry_list_push(&views, PM_FILE_ADD, &keys[0].partition, 0, 4, &keys[0].file),
                  PM_EINVALID);
    assert_int_equal(views.n, 3);
    pm_manifest_entry_list_free(&views); /* frees no string of keys (ASan) */
    assert_string_equal(keys[2].file.file_name, "c");
    const char *moved = keys[3].file.file_name;
    PM_OK_OR_FAIL(pm_manifest_entry_list_take(&owned, &keys[3]));
    assert_ptr_equal(owned.v[0].file.file_name, moved);
    assert_null(keys[3].file.file_name);
    assert_null(keys[3].partition.data);
    PM_EXPECT_ERR(pm_manifest_entry_list_push_view(&owned, PM_FILE_ADD, &keys[0].partition, 0, 4, &keys[0].file),
                  PM_EINVALID);
    PM_OK_OR_FAIL(pm_manifest_entry_list_push(&owned, PM_FILE_ADD, &keys[0].partition, 0, 4, &keys[0].file));
    assert_true(owned.v[1].file.file_name != keys[0].file.file_name);
    pm_manifest_entry_list_free(&owned);
    for (int i = 0; i < 7; i++)
        pm_manifest_entry_clear(&keys[i]);
    for (size_t i = 0; i < nmetas; i++)
        pm_manifest_file_meta_clear(&metas[i]);
    pm_test_rmtree(dir);
    free(dir);
    pm_path_factory_free(pf);
    pm_type_free(ptype);
    pm_options_free(o);
}

/* Options that roll a manifest after every entry's block (one-byte target
 * size; `compression` unless NULL), an INT partition type and the path
 * factory of tmp. */
static void rolling_setup(const char *compression, pm_options **o, pm_type **ptype, pm_path_factory **pf)
{
    PM_OK_OR_FAIL(pm_options_new(o));
    PM_OK_OR_FAIL(pm_options_set(*o, "manifest.target-file-size", "1 b"));
    if (compression)
        PM_OK_OR_FAIL(pm_options_set(*o, "manifest.compression", compression));
    PM_OK_OR_FAIL(pm_type_parse(ptype, "ROW<p INT>"));
    PM_OK_OR_FAIL(pm_path_factory_new(pf, tmp, *ptype, *o));
}

static void test_write_rolling_and_stats(void **state)
{
    (void)state;
    pm_options *o;
    pm_type *ptype;
    pm_path_factory *pf;
    rolling_setup("null", &o, &ptype, &pf);
    size_t n = 2500;
    pm_manifest_entry *e = calloc(n, sizeof *e);
    for (size_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "data-%zu.parquet", i);
        make_entry(&e[i], i % 7 ? PM_FILE_ADD : PM_FILE_DELETE, name, (int32_t)(i % 4),
                   (int32_t)(i % 3), (int32_t)(i % 11) - 5);
        e[i].file.schema_id = (int64_t)(i % 5);
        e[i].file.first_row_id = (pm_opt_long){true, (int64_t)i * 10};
    }
    e[2100].file.first_row_id.has = false; /* third file: no row ids */
    pm_manifest_file_meta *m;
    size_t nm;
    PM_OK_OR_FAIL(pm_manifest_write(fio, pf, o, ptype, 7, e, n, &m, &nm));
    assert_int_equal(nm, 3);
    int64_t total = 0;
    for (size_t k = 0; k < nm; k++) {
        total += m[k].num_added_files + m[k].num_deleted_files;
        assert_int_equal(m[k].schema_id, 4);
        assert_int_equal(m[k].min_bucket.v, 0);
        assert_int_equal(m[k].max_bucket.v, 3);
        assert_int_equal(m[k].max_level.v, 2);
        char *p;
        PM_OK_OR_FAIL(pm_path_factory_manifest_path(pf, m[k].file_name, &p));
        char *codec = NULL, *schema = NULL;
        PM_OK_OR_FAIL(pm_avro_read_file_info(fio, p, &schema, &codec));
        assert_string_equal(codec, "null");
        free(codec);
        free(schema);
        free(p);
        /* partition stats: p in -5..5, no nulls */
        pm_binrow r;
        PM_OK_OR_FAIL(pm_binrow_deserialize(&r, m[k].partition_stats.min_values.data,
                                            m[k].partition_stats.min_values.len, 1));
        assert_int_equal(pm_binrow_i32(&r, 0), -5);
        PM_OK_OR_FAIL(pm_binrow_deserialize(&r, m[k].partition_stats.max_values.data,
                                            m[k].partition_stats.max_values.len, 1));
        assert_int_equal(pm_binrow_i32(&r, 0), 5);
        assert_int_equal(m[k].partition_stats.null_count_len, 1);
        assert_int_equal(m[k].partition_stats.null_counts[0].v, 0);
    }
    assert_int_equal(total, 2500);
    assert_int_equal(m[0].num_added_files + m[0].num_deleted_files, 1000);
    assert_int_equal(m[2].num_added_files + m[2].num_deleted_files, 500);
    assert_true(m[0].min_row_id.has);
    assert_int_equal(m[0].min_row_id.v, 0);
    assert_int_equal(m[0].max_row_id.v, 999 * 10 + 9);
    assert_false(m[2].min_row_id.has);
    /* read back through a manifest list */
    char *list;
    int64_t size;
    PM_OK_OR_FAIL(pm_manifest_list_write(fio, pf, o, m, nm, &list, &size));
    char *lp;
    PM_OK_OR_FAIL(pm_path_factory_manifest_path(pf, list, &lp));
    pm_manifest_file_meta *back;
    size_t nb;
    PM_OK_OR_FAIL(pm_manifest_list_read(fio, lp, &back, &nb));
    assert_int_equal(nb, nm);
    for (size_t k = 0; k < nm; k++) {
        assert_string_equal(back[k].file_name, m[k].file_name);
        assert_int_equal(back[k].file_size, m[k].file_size);
        assert_true(meta_eq_but_name(&back[k], &m[k]));
    }
    pm_manifest_entry *all;
    size_t na;
    PM_OK_OR_FAIL(pm_manifest_read_merged(fio, pf, back, nb, &all, &na));
    assert_int_equal(na, n); /* distinct keys: nothing cancels */
    for (size_t i = 0; i < n; i++)
        assert_true(entry_eq(&all[i], &e[i]));
    pm_manifest_entries_free(all, na);
    pm_manifest_file_metas_free(back, nb);
    free(lp);
    free(list);

    /* an empty manifest list is still a file; empty entries write no manifest */
    PM_OK_OR_FAIL(pm_manifest_list_write(fio, pf, o, NULL, 0, &list, &size));
    assert_true(size > 0);
    free(list);
    pm_manifest_file_meta *none;
    size_t nn;
    PM_OK_OR_FAIL(pm_manifest_write(fio, pf, o, ptype, 7, e, 0, &none, &nn));
    assert_int_equal(nn, 0);
    /* a bad entry aborts the write and leaves no files behind */
    pm_name_list before, after;
    char *mdir = pm_path_join(tmp, "manifest");
    PM_OK_OR_FAIL(pm_fileio_list(fio, mdir, &before));
    free(e[1500].file.file_name);
    e[1500].file.file_name = NULL;
    PM_EXPECT_ERR(pm_manifest_write(fio, pf, o, ptype, 7, e, n, &none, &nn), PM_EINVALID);
    PM_OK_OR_FAIL(pm_fileio_list(fio, mdir, &after));
    assert_int_equal(before.count, after.count);
    pm_fileio_list_free(&before);
    pm_fileio_list_free(&after);
    free(mdir);
    pm_manifest_file_metas_free(m, nm);
    pm_manifest_entries_free(e, n);
    pm_path_factory_free(pf);
    pm_type_free(ptype);
    pm_options_free(o);
}

/* pm_manifest_write_each: entries handed out one at a time through the
 * scratch view make the same manifests as the array (names aside). */
typedef struct each_ctx {
    const pm_manifest_entry *v;
    size_t next; /* the index asked next: calls come in order */
    bool out_of_order;
} each_ctx;

static const pm_manifest_entry *each_at(void *arg, size_t i, pm_manifest_entry *scratch)
{
    each_ctx *c = arg;
    if (i != c->next)
        c->out_of_order = true;
    c->next = i + 1;
    *scratch = c->v[i]; /* a view */
    return scratch;
}

static void test_write_each(void **state)
{
    (void)state;
    pm_options *o;
    pm_type *ptype;
    pm_path_factory *pf;
    rolling_setup(NULL, &o, &ptype, &pf);
    size_t n = 2100;
    pm_manifest_entry *e = calloc(n, sizeof *e);
    for (size_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "each-%zu.parquet", i);
        make_entry(&e[i], i % 3 ? PM_FILE_ADD : PM_FILE_DELETE, name, (int32_t)(i % 2), (int32_t)(i % 5),
                   (int32_t)(i % 9) - 4);
        /* the identifier of a file in (partition, bucket) is the entry's */
        assert_true(pm_manifest_file_ident_hash(&e[i].partition, e[i].bucket, &e[i].file) ==
                    pm_manifest_entry_ident_hash(&e[i]));
        assert_true(pm_manifest_file_ident_eq(&e[i].partition, e[i].bucket, &e[i].file, &e[i].partition,
                                              e[i].bucket, &e[i].file));
    }
    assert_false(pm_manifest_file_ident_eq(&e[0].partition, e[0].bucket, &e[0].file, &e[1].partition, e[1].bucket,
                                           &e[1].file));
    pm_manifest_file_meta *ma, *mb;
    size_t na, nb;
    PM_OK_OR_FAIL(pm_manifest_write(fio, pf, o, ptype, 3, e, n, &ma, &na));
    each_ctx c = {e, 0, false};
    PM_OK_OR_FAIL(pm_manifest_write_each(fio, pf, o, ptype, 3, each_at, &c, n, &mb, &nb));
    assert_false(c.out_of_order);
    assert_int_equal(c.next, n);
    assert_int_equal(na, 3);
    assert_int_equal(nb, na);
    for (size_t k = 0; k < na; k++) {
        assert_true(meta_eq_but_name(&ma[k], &mb[k]));
        assert_int_equal(ma[k].file_size, mb[k].file_size);
    }
    pm_manifest_entry *back;
    size_t nback;
    PM_OK_OR_FAIL(pm_manifest_read_merged(fio, pf, mb, nb, &back, &nback));
    assert_int_equal(nback, n);
    for (size_t i = 0; i < n; i++)
        assert_true(entry_eq(&back[i], &e[i]));
    pm_manifest_entries_free(back, nback);
    pm_manifest_file_metas_free(ma, na);
    pm_manifest_file_metas_free(mb, nb);
    pm_manifest_entries_free(e, n);
    pm_path_factory_free(pf);
    pm_type_free(ptype);
    pm_options_free(o);
}

static void test_codec_options(void **state)
{
    (void)state;
    pm_options *o;
    PM_OK_OR_FAIL(pm_options_new(&o));
    pm_avro_write_options a;
    PM_OK_OR_FAIL(pm_manifest_avro_options(o, &a));
    assert_int_equal(a.codec, PM_CODEC_ZSTD);
    assert_int_equal(a.level, 1);
    PM_OK_OR_FAIL(pm_options_set(o, "file.compression.zstd-level", "9"));
    PM_OK_OR_FAIL(pm_options_set(o, "manifest.compression", "ZSTD"));
    PM_OK_OR_FAIL(pm_manifest_avro_options(o, &a));
    assert_int_equal(a.level, 9);
    PM_OK_OR_FAIL(pm_options_set(o, "manifest.compression", "snappy"));
    PM_OK_OR_FAIL(pm_manifest_avro_options(o, &a));
    assert_int_equal(a.codec, PM_CODEC_SNAPPY);
    PM_OK_OR_FAIL(pm_options_set(o, "manifest.compression", "zstandard"));
    PM_OK_OR_FAIL(pm_manifest_avro_options(o, &a));
    assert_int_equal(a.codec, PM_CODEC_ZSTD);
    assert_int_equal(a.level, 3);
    PM_OK_OR_FAIL(pm_options_set(o, "manifest.compression", "xz"));
    PM_EXPECT_ERR(pm_manifest_avro_options(o, &a), PM_EUNSUPPORTED);
    PM_OK_OR_FAIL(pm_options_set(o, "manifest.compression", "lz4"));
    PM_EXPECT_ERR(pm_manifest_avro_options(o, &a), PM_EINVALID);
    PM_OK_OR_FAIL(pm_options_set(o, "avro.codec", "deflate")); /* overrides */
    PM_OK_OR_FAIL(pm_manifest_avro_options(o, &a));
    assert_int_equal(a.codec, PM_CODEC_DEFLATE);
    pm_options_free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_tables),
        cmocka_unit_test(test_loose_fixture_files),
        cmocka_unit_test(test_schema_text),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_keys_live),
        cmocka_unit_test(test_write_rolling_and_stats),
        cmocka_unit_test(test_write_each),
        cmocka_unit_test(test_codec_options),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
