/*
 * examples/write_read.c — write rows into a table and read them back with
 * libpaimon's public API only.
 *
 *   write_read WAREHOUSE
 *
 * Creates <WAREHOUSE>/shop.db/orders (primary key order_id, partitioned by
 * dt, 2 buckets), writes JSON rows in one commit and an update plus a
 * delete in a second one, then scans the latest snapshot, prints its splits,
 * and reads the merged rows through an Arrow C stream.  Exit 0 on success,
 * 1 on an error (printed with its code and cause chain).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <paimon/catalog.h>
#include <paimon/read.h>
#include <paimon/rows.h>
#include <paimon/write.h>

static int failed(const char *what, pm_error *e)
{
    char *msg = pm_error_format(e);
    fprintf(stderr, "%s failed (%s): %s\n", what, pm_code_name(pm_error_root_code(e)), msg ? msg : "?");
    free(msg);
    pm_error_free(e);
    return 1;
}

/* One commit of JSON lines; prints what it did. */
static pm_error *commit_rows(pm_table *t, const char *jsonl)
{
    pm_writer *w = NULL;
    pm_error *e = pm_writer_new(&w, t, NULL);
    if (e)
        return e;
    pm_mem_source src = {jsonl, strlen(jsonl), 0, 0};
    e = pm_writer_write_rows(w, PM_ROWS_JSONL, pm_mem_source_read, &src);
    pm_commit_outcome out = PM_COMMIT_OUTCOME_INIT;
    if (!e)
        e = pm_writer_commit(&out, w);
    if (e) {
        pm_writer_abort(w);
        return e;
    }
    pm_writer_free(w);
    printf("snapshot %lld: %lld rows in %lld files\n", (long long)out.snapshot_id, (long long)out.rows,
           (long long)out.files);
    if (out.compaction_error) /* the data commit stands; report the round */
        return out.compaction_error;
    return NULL;
}

static pm_error *to_stdout(void *ctx, const void *data, size_t n)
{
    (void)ctx;
    return fwrite(data, 1, n, stdout) == n ? NULL : pm_error_new(PM_EIO, "stdout");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: write_read WAREHOUSE\n");
        return 2;
    }
    pm_catalog *c = NULL;
    pm_table *t = NULL;
    pm_error *e = pm_catalog_open(&c, argv[1]);
    if (!e)
        e = pm_catalog_create_database(c, "shop", true);
    if (e)
        return failed("open the warehouse", e);

    pm_type *row = NULL;
    e = pm_type_parse(&row, "ROW<order_id BIGINT, item STRING, amount DECIMAL(10, 2), dt STRING>");
    const char *pks[] = {"order_id", "dt"}, *parts[] = {"dt"};
    const char *keys[] = {"bucket"}, *vals[] = {"2"};
    pm_table_spec spec = PM_TABLE_SPEC_INIT;
    spec.row_type = row;
    spec.primary_keys = pks;
    spec.nprimary_keys = 2;
    spec.partition_keys = parts;
    spec.npartition_keys = 1;
    spec.option_keys = keys;
    spec.option_values = vals;
    spec.noptions = 1;
    if (!e)
        e = pm_catalog_create_table(c, "shop", "orders", &spec, false);
    pm_type_free(row);
    if (!e)
        e = pm_catalog_get_table(c, "shop", "orders", &t);
    if (e) {
        pm_catalog_free(c);
        return failed("create the table", e);
    }

    e = commit_rows(t, "{\"order_id\":1,\"item\":\"tea\",\"amount\":\"3.50\",\"dt\":\"2024-06-01\"}\n"
                       "{\"order_id\":2,\"item\":\"cake\",\"amount\":\"4.20\",\"dt\":\"2024-06-01\"}\n"
                       "{\"order_id\":3,\"item\":\"milk\",\"amount\":\"1.10\",\"dt\":\"2024-06-02\"}\n");
    if (!e) /* an update of order 1 and a delete of order 3 (row kinds) */
        e = commit_rows(t, "{\"order_id\":1,\"item\":\"tea\",\"amount\":\"3.90\",\"dt\":\"2024-06-01\"}\n"
                           "{\"order_id\":3,\"dt\":\"2024-06-02\",\"_ROW_KIND\":\"-D\"}\n");

    pm_scan *scan = NULL;
    if (!e)
        e = pm_scan_new(&scan, t, NULL);
    for (size_t i = 0; !e && i < pm_scan_split_count(scan); i++) {
        const pm_split *s = pm_scan_split(scan, i);
        printf("split %s bucket %d: %zu files, %lld rows\n", pm_split_partition(s), (int)pm_split_bucket(s),
               pm_split_file_count(s), (long long)pm_split_row_count(s));
    }
    pm_reader *r = NULL;
    const pm_split **splits = NULL;
    size_t n = scan ? pm_scan_split_count(scan) : 0;
    if (!e && !(splits = calloc(n ? n : 1, sizeof *splits)))
        e = pm_error_new(PM_ENOMEM, "out of memory");
    for (size_t i = 0; !e && i < n; i++)
        splits[i] = pm_scan_split(scan, i);
    pm_read_options ro = PM_READ_OPTIONS_INIT;
    const char *cols[] = {"order_id", "item", "amount"};
    ro.columns = cols;
    ro.ncolumns = 3;
    if (!e)
        e = pm_reader_new(&r, t, splits, n, &ro);
    free(splits);
    /* The rows through the Arrow C stream interface, as an Arrow consumer sees them. */
    struct ArrowArrayStream stream;
    if (!e)
        e = pm_reader_to_arrow_stream(&stream, r);
    long long rows = 0;
    if (!e) {
        struct ArrowSchema schema;
        if (stream.get_schema(&stream, &schema) == 0) {
            printf("arrow schema: %s with %lld columns\n", schema.format, (long long)schema.n_children);
            schema.release(&schema);
        }
        for (;;) {
            struct ArrowArray a;
            if (stream.get_next(&stream, &a) != 0) {
                e = pm_error_new(PM_EIO, "stream: %s", stream.get_last_error(&stream));
                break;
            }
            if (!a.release)
                break;
            rows += a.length;
            a.release(&a);
        }
        stream.release(&stream);
        printf("read %lld rows through the Arrow stream\n", rows);
    }
    /* And as JSON lines. */
    if (!e)
        e = pm_table_read(&r, t, &ro);
    pm_rows_writer *w = NULL;
    if (!e)
        e = pm_rows_writer_new(&w, PM_ROWS_JSONL, pm_reader_type(r), to_stdout, NULL);
    while (!e) {
        const pm_batch *b = NULL;
        e = pm_reader_next(&b, r);
        if (e || !b)
            break;
        e = pm_rows_writer_write(w, b, 0, pm_batch_num_rows(b));
    }
    if (!e)
        e = pm_rows_writer_finish(w);
    pm_rows_writer_free(w);
    pm_reader_free(r);
    pm_scan_free(scan);
    pm_table_free(t);
    pm_catalog_free(c);
    return e ? failed("write and read", e) : 0;
}
