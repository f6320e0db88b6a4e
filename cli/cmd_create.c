/*
 * cli/cmd_create.c — `paimon create TABLE --schema '...'`: create a Paimon
 * table (writes schema/schema-0) at a path.
 *
 * The schema is a comma-separated field list in SQL form
 * ('id BIGINT NOT NULL, name STRING, dt STRING', nested types as
 * ROW<..>/ARRAY<..>/MAP<..,..>); field ids are assigned in order, nested
 * fields after their parent, as Java does.  Keys and options go through
 * pm_table_create, which applies Paimon's rules (primary-key fields become
 * NOT NULL, options are validated) and publishes schema-0 atomically.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
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

typedef struct list {
    char **v;
    size_t n;
} list;

static void list_free(list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

static int list_push(list *l, const char *s, size_t n)
{
    char **v = realloc(l->v, (l->n + 1) * sizeof *v);
    if (!v)
        return -1;
    l->v = v;
    char *c = malloc(n + 1);
    if (!c)
        return -1;
    memcpy(c, s, n);
    c[n] = 0;
    l->v[l->n++] = c;
    return 0;
}

/* Split "a,b" into trimmed names; empty names are an error. */
static int split_names(const char *s, list *out)
{
    const char *p = s;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        while (n && (*p == ' ' || *p == '\t'))
            p++, n--;
        while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
            n--;
        if (!n || list_push(out, p, n))
            return -1;
        if (!end)
            return 0;
        p = end + 1;
    }
}

int pm_cmd_create(int argc, char **argv)
{
    if (pm_cli_wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    const char *table = NULL, *schema = NULL, *comment = NULL;
    bool ignore = false;
    list pks = {0}, parts = {0}, okeys = {0}, ovals = {0};
    int rc = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_val = i + 1 < argc;
        if (!strcmp(a, "--schema") && has_val) {
            schema = argv[++i];
        } else if (!strcmp(a, "--partition-keys") && has_val) {
            if (split_names(argv[++i], &parts)) {
                rc = pm_cli_usage_error(CMD, "bad --partition-keys '%s'", argv[i]);
                goto done;
            }
        } else if (!strcmp(a, "--primary-keys") && has_val) {
            if (split_names(argv[++i], &pks)) {
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
            if (list_push(&okeys, kv, (size_t)(eq - kv)) || list_push(&ovals, eq + 1, strlen(eq + 1))) {
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
    pm_buf text = PM_BUF_INIT;
    pm_type *rt = NULL;
    pm_error *e = pm_buf_printf(&text, "ROW<%s>", schema);
    const char *s = NULL;
    if (!e)
        e = pm_buf_cstr(&text, &s);
    if (!e)
        e = pm_error_wrap(pm_type_parse(&rt, s), PM_EINVALID, "bad --schema");
    pm_buf_free(&text);
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
        pm_table_spec spec = {rt,
                              (const char *const *)parts.v,
                              parts.n,
                              (const char *const *)pks.v,
                              pks.n,
                              (const char *const *)okeys.v,
                              (const char *const *)ovals.v,
                              okeys.n,
                              comment};
        e = pm_table_create(table, &spec, ignore);
    }
    pm_type_free(rt);
    if (e) {
        rc = pm_cli_fail(CMD, e);
        goto done;
    }
    printf(existed ? "table %s already exists\n" : "created table %s\n", table);
    rc = 0;
done:
    list_free(&pks);
    list_free(&parts);
    list_free(&okeys);
    list_free(&ovals);
    return rc;
}
