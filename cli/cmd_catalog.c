/*
 * cli/cmd_catalog.c — catalog commands on a warehouse directory:
 *   paimon databases WAREHOUSE
 *   paimon create-database WAREHOUSE DB [--ignore-if-exists]
 *   paimon drop-database WAREHOUSE DB [--cascade] [--ignore-if-not-exists]
 *   paimon tables WAREHOUSE DB
 *   paimon drop-table WAREHOUSE DB TABLE [--ignore-if-not-exists]
 * (Tables themselves are created with `paimon create TABLE_PATH`.)
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "paimon/catalog.h"

typedef struct flags {
    bool cascade, ignore;
    const char *pos[3];
    int npos;
} flags;

static int parse(const char *cmd, int argc, char **argv, int want, flags *f, const char *usage)
{
    memset(f, 0, sizeof *f);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cascade"))
            f->cascade = true;
        else if (!strcmp(argv[i], "--ignore-if-exists") || !strcmp(argv[i], "--ignore-if-not-exists"))
            f->ignore = true;
        else if (argv[i][0] == '-' && argv[i][1])
            return pm_cli_usage_error(cmd, "unknown option '%s'", argv[i]);
        else if (f->npos < 3)
            f->pos[f->npos++] = argv[i];
        else
            return pm_cli_usage_error(cmd, "too many arguments");
    }
    if (f->npos != want)
        return pm_cli_usage_error(cmd, "expected %s", usage);
    return 0;
}

static int with_catalog(const char *cmd, const char *wh, pm_catalog **c)
{
    pm_error *e = pm_catalog_open(c, wh);
    return e ? pm_cli_fail(cmd, e) : 0;
}

static int print_names(const char *cmd, pm_error *e, char **names, size_t n)
{
    if (e)
        return pm_cli_fail(cmd, e);
    for (size_t i = 0; i < n; i++)
        printf("%s\n", names[i]);
    pm_catalog_names_free(names, n);
    return 0;
}

static bool help(int argc, char **argv, const char *text)
{
    if (!pm_cli_wants_help(argc, argv))
        return false;
    fputs(text, stdout);
    return true;
}

int pm_cmd_databases(int argc, char **argv)
{
    if (help(argc, argv, "usage: paimon databases WAREHOUSE\n\nList the databases (<name>.db directories) of a warehouse.\n"))
        return 0;
    flags f;
    int rc = parse("databases", argc, argv, 1, &f, "WAREHOUSE");
    pm_catalog *c = NULL;
    if (rc || (rc = with_catalog("databases", f.pos[0], &c)))
        return rc;
    char **names = NULL;
    size_t n = 0;
    pm_error *e = pm_catalog_list_databases(c, &names, &n);
    rc = print_names("databases", e, names, n);
    pm_catalog_free(c);
    return rc;
}

int pm_cmd_tables(int argc, char **argv)
{
    if (help(argc, argv, "usage: paimon tables WAREHOUSE DB\n\nList the tables of a database.\n"))
        return 0;
    flags f;
    int rc = parse("tables", argc, argv, 2, &f, "WAREHOUSE DB");
    pm_catalog *c = NULL;
    if (rc || (rc = with_catalog("tables", f.pos[0], &c)))
        return rc;
    char **names = NULL;
    size_t n = 0;
    pm_error *e = pm_catalog_list_tables(c, f.pos[1], &names, &n);
    rc = print_names("tables", e, names, n);
    pm_catalog_free(c);
    return rc;
}

int pm_cmd_create_database(int argc, char **argv)
{
    if (help(argc, argv, "usage: paimon create-database WAREHOUSE DB [--ignore-if-exists]\n\n"
                         "Create the database directory <WAREHOUSE>/<DB>.db.\n"))
        return 0;
    flags f;
    int rc = parse("create-database", argc, argv, 2, &f, "WAREHOUSE DB");
    pm_catalog *c = NULL;
    if (rc || (rc = with_catalog("create-database", f.pos[0], &c)))
        return rc;
    pm_error *e = pm_catalog_create_database(c, f.pos[1], f.ignore);
    pm_catalog_free(c);
    return e ? pm_cli_fail("create-database", e) : 0;
}

int pm_cmd_drop_database(int argc, char **argv)
{
    if (help(argc, argv, "usage: paimon drop-database WAREHOUSE DB [--cascade] [--ignore-if-not-exists]\n\n"
                         "Drop a database; one that still holds tables needs --cascade.\n"))
        return 0;
    flags f;
    int rc = parse("drop-database", argc, argv, 2, &f, "WAREHOUSE DB");
    pm_catalog *c = NULL;
    if (rc || (rc = with_catalog("drop-database", f.pos[0], &c)))
        return rc;
    pm_error *e = pm_catalog_drop_database(c, f.pos[1], f.ignore, f.cascade);
    pm_catalog_free(c);
    return e ? pm_cli_fail("drop-database", e) : 0;
}

int pm_cmd_drop_table(int argc, char **argv)
{
    if (help(argc, argv, "usage: paimon drop-table WAREHOUSE DB TABLE [--ignore-if-not-exists]\n\n"
                         "Drop a table: its directory (data, manifests, snapshots, schemas) is removed.\n"))
        return 0;
    flags f;
    int rc = parse("drop-table", argc, argv, 3, &f, "WAREHOUSE DB TABLE");
    pm_catalog *c = NULL;
    if (rc || (rc = with_catalog("drop-table", f.pos[0], &c)))
        return rc;
    pm_error *e = pm_catalog_drop_table(c, f.pos[1], f.pos[2], f.ignore);
    pm_catalog_free(c);
    return e ? pm_cli_fail("drop-table", e) : 0;
}
