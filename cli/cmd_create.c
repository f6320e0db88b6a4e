/*
 * cli/cmd_create.c — `paimon create TABLE --schema '...'`: create a Paimon
 * table (writes schema/schema-0) at a path.
 *
 * The schema is a comma-separated field list in SQL form
 * ('id BIGINT NOT NULL, name STRING, dt STRING', nested types as
 * ROW<..>/ARRAY<..>/MAP<..,..>); field ids are assigned in order, nested
 * fields after their parent, as Java does.  Keys and options go through
 * pm_table_create, which applies Paimon's rules (primary-key fields become
 * NOT NULL, every known option is validated) and publishes schema-0
 * atomically.  A schema, key or option value it refuses is a usage error
 * (exit 2) and leaves nothing on disk.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "paimon/table.h"

#define CMD "create"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: paimon " CMD " TABLE --schema 'id BIGINT NOT NULL, name STRING, dt STRING'\n"
            "                     [--partition-keys a,b] [--primary-keys a,b] [--option k=v]...\n"
            "                     [--comment TEXT] [--ignore-if-exists]\n\n"
            "Create a Paimon table at TABLE (a path, <warehouse>/<db>.db/<table>).\n\n"
            "  --schema S          fields as 'name TYPE [NOT NULL] [\\'comment\\'], ...'\n"
            "  --partition-keys L  comma-separated partition fields\n"
            "  --primary-keys L    comma-separated primary-key fields (become NOT NULL)\n"
            "  --option k=v        table option (repeatable), e.g. bucket=4, file.format=parquet\n"
            "  --comment TEXT      table comment\n"
            "  --ignore-if-exists  succeed without changes when a table is already there\n");
}

int pm_cmd_create(int argc, char **argv)
{
    if (pm_cli_wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    const char *table = NULL, *schema = NULL, *comment = NULL;
    bool ignore = false;
    pm_cli_list pks = {0}, parts = {0}, okeys = {0}, ovals = {0};
    int rc = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_val = i + 1 < argc;
        if (!strcmp(a, "--schema") && has_val) {
            schema = argv[++i];
        } else if (!strcmp(a, "--partition-keys") && has_val) {
            if (pm_cli_list_split(&parts, argv[++i])) {
                rc = pm_cli_usage_error(CMD, "bad --partition-keys '%s'", argv[i]);
                goto done;
            }
        } else if (!strcmp(a, "--primary-keys") && has_val) {
            if (pm_cli_list_split(&pks, argv[++i])) {
                rc = pm_cli_usage_error(CMD, "bad --primary-keys '%s'", argv[i]);
                goto done;
            }
        } else if (!strcmp(a, "--option") && has_val) {
            const char *kv = argv[++i];
            const char *eq = strchr(kv, '=');
            if (!eq || eq == kv) {
                rc = pm_cli_usage_error(CMD, "--option needs k=v, got '%s'", kv);
                goto done;
            }
            if (pm_cli_list_push(&okeys, kv, (size_t)(eq - kv)) || pm_cli_list_push(&ovals, eq + 1, strlen(eq + 1))) {
                rc = pm_cli_fail(CMD, pm_error_new(PM_ENOMEM, "out of memory"));
                goto done;
            }
        } else if (!strcmp(a, "--comment") && has_val) {
            comment = argv[++i];
        } else if (!strcmp(a, "--ignore-if-exists")) {
            ignore = true;
        } else if (a[0] == '-' && a[1]) {
            rc = pm_cli_usage_error(CMD, "unknown or incomplete option '%s'", a);
            goto done;
        } else if (!table) {
            table = a;
        } else {
            rc = pm_cli_usage_error(CMD, "unexpected argument '%s'", a);
            goto done;
        }
    }
    if (!table || !schema) {
        rc = pm_cli_usage_error(CMD, "%s", !table ? "missing TABLE path" : "missing --schema");
        goto done;
    }
    pm_type *rt = NULL;
    size_t tn = strlen(schema) + 8;
    char *text = malloc(tn);
    pm_error *e = text ? NULL : pm_error_new(PM_ENOMEM, "out of memory");
    if (!e) {
        snprintf(text, tn, "ROW<%s>", schema);
        e = pm_error_wrap(pm_type_parse(&rt, text), PM_EINVALID, "bad --schema");
    }
    free(text);
    if (!e && rt->nfields == 0)
        e = pm_error_new(PM_EINVALID, "--schema has no fields");
    bool existed = false;
    if (!e && ignore) {
        pm_table *old = NULL;
        pm_error *oe = pm_table_open(&old, table, NULL);
        existed = !oe;
        pm_error_free(oe);
        pm_table_free(old);
    }
    if (!e) {
        pm_table_spec spec = {PM_TABLE_SPEC_VERSION, rt,
                              (const char *const *)parts.items,
                              parts.n,
                              (const char *const *)pks.items,
                              pks.n,
                              (const char *const *)okeys.items,
                              (const char *const *)ovals.items,
                              okeys.n,
                              comment};
        e = pm_table_create(table, &spec, ignore);
    }
    pm_type_free(rt);
    if (e) {
        /* a schema, key or option the command line got wrong is a usage error */
        rc = pm_error_root_code(e) == PM_EINVALID ? pm_cli_bad_argument(CMD, e) : pm_cli_fail(CMD, e);
        goto done;
    }
    printf(existed ? "table %s already exists\n" : "created table %s\n", table);
    rc = 0;
done:
    pm_cli_list_free(&pks);
    pm_cli_list_free(&parts);
    pm_cli_list_free(&okeys);
    pm_cli_list_free(&ovals);
    return rc;
}
