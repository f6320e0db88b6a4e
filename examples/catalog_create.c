/*
 * examples/catalog_create.c — a warehouse, a database and a table through
 * the public API (paimon/catalog.h, paimon/table.h, paimon/types.h).
 *
 *   catalog_create WAREHOUSE
 *
 * Opens (and so creates, on first use) the filesystem catalog at
 * WAREHOUSE, creates database `shop` and in it the partitioned append table
 * `orders`, lists what the warehouse holds, opens the table again and shows
 * that creating it a second time is refused with PM_EEXIST.  Every call
 * returns a pm_error * (NULL = success) that the caller owns and frees.
 */
#include <stdio.h>
#include <stdlib.h>

#include <paimon/catalog.h>
#include <paimon/error.h>
#include <paimon/table.h>
#include <paimon/types.h>
#include <paimon/version.h>

/* Print the whole cause chain of e, free it and return 1 (the exit code). */
static int report(pm_error *e, const char *what)
{
    char *msg = pm_error_format(e);
    fprintf(stderr, "%s failed (%s): %s\n", what, pm_code_name(pm_error_code(e)), msg ? msg : "?");
    free(msg);
    pm_error_free(e);
    return 1;
}

/* ROW<order_id BIGINT NOT NULL, customer STRING, amount DECIMAL(10, 2), dt STRING>;
 * the field ids (0..3) are the ids Paimon's schema keeps forever. */
static pm_error *order_type(pm_type **out)
{
    pm_type *row = pm_type_new_row(false);
    pm_type *f[4] = {pm_type_new(PM_TYPE_BIGINT, false), pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true),
                     pm_type_new_decimal(10, 2, true), pm_type_new_string(PM_TYPE_VARCHAR, PM_MAX_LENGTH, true)};
    const char *names[4] = {"order_id", "customer", "amount", "dt"};
    pm_error *e = NULL;
    if (!row || !f[0] || !f[1] || !f[2] || !f[3])
        e = pm_error_new(PM_ENOMEM, "building the row type");
    for (int i = 0; i < 4; i++) {
        if (!e) {
            e = pm_type_add_field(row, i, names[i], f[i]); /* takes f[i] */
            f[i] = NULL;
        }
        pm_type_free(f[i]);
    }
    if (e) {
        pm_type_free(row);
        return e;
    }
    *out = row;
    return NULL;
}

static pm_error *print_names(pm_catalog *c, const char *db)
{
    char **names = NULL;
    size_t n = 0;
    PM_TRY(db ? pm_catalog_list_tables(c, db, &names, &n) : pm_catalog_list_databases(c, &names, &n));
    printf("%s:", db ? "tables" : "databases");
    for (size_t i = 0; i < n; i++)
        printf(" %s", names[i]);
    printf("\n");
    pm_catalog_names_free(names, n);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s WAREHOUSE\n", argv[0]);
        return 2;
    }
    printf("libpaimon %s (ABI %d)\n", pm_version(), pm_abi_version());

    pm_catalog *c = NULL;
    pm_type *row = NULL;
    pm_table *t = NULL;
    pm_error *e = pm_catalog_open(&c, argv[1]);
    if (e)
        return report(e, "open catalog");
    int rc = 0;
    if ((e = pm_catalog_create_database(c, "shop", false))) {
        rc = report(e, "create database");
        goto done;
    }
    if ((e = order_type(&row))) {
        rc = report(e, "row type");
        goto done;
    }
    const char *partition_keys[] = {"dt"};
    const char *option_keys[] = {"bucket", "file.format"};
    const char *option_values[] = {"-1", "parquet"};
    pm_table_spec spec = {
        .version = PM_TABLE_SPEC_VERSION,
        .row_type = row,
        .partition_keys = partition_keys,
        .npartition_keys = 1,
        .option_keys = option_keys,
        .option_values = option_values,
        .noptions = 2,
        .comment = "orders of the example shop",
    };
    if ((e = pm_catalog_create_table(c, "shop", "orders", &spec, false))) {
        rc = report(e, "create table");
        goto done;
    }
    if ((e = print_names(c, NULL)) || (e = print_names(c, "shop"))) {
        rc = report(e, "list");
        goto done;
    }
    if ((e = pm_catalog_get_table(c, "shop", "orders", &t))) {
        rc = report(e, "get table");
        goto done;
    }
    printf("table %s (branch %s)\n", pm_table_path(t), pm_table_branch(t));

    /* A second create is refused and changes nothing. */
    e = pm_catalog_create_table(c, "shop", "orders", &spec, false);
    if (!e || pm_error_code(e) != PM_EEXIST) {
        fprintf(stderr, "second create: expected PM_EEXIST\n");
        pm_error_free(e);
        rc = 1;
        goto done;
    }
    printf("second create refused: %s\n", pm_code_name(pm_error_code(e)));
    pm_error_free(e);

done:
    pm_table_free(t);
    pm_type_free(row);
    pm_catalog_free(c);
    return rc;
}
