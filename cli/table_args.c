/*
 * cli/table_args.c — TABLE / --branch / --snapshot / --partition parsing
 * shared by the read-side commands (see table_args.h).
 */
#include "table_args.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"

int pm_cli_table_arg(const char *cmd, int argc, char **argv, int *i, pm_cli_table_args *ta)
{
    const char *a = argv[*i];
    bool v = *i + 1 < argc;
    if (!strcmp(a, "--branch") && v) {
        ta->branch = argv[++*i];
    } else if (!strcmp(a, "--snapshot") && v) {
        return pm_cli_parse_int(cmd, "--snapshot", argv[++*i], 1, INT64_MAX, &ta->snapshot);
    } else if (!strcmp(a, "--partition") && v) {
        const char *spec = argv[++*i];
        pm_error *e = pm_partition_filter_check(spec);
        if (e)
            return pm_cli_bad_argument(cmd, e);
        const char **np = realloc(ta->partitions, (ta->npartitions + 1) * sizeof *np);
        if (!np)
            return pm_cli_fail(cmd, pm_error_new(PM_ENOMEM, "out of memory"));
        ta->partitions = np;
        ta->partitions[ta->npartitions++] = spec;
    } else if (a[0] == '-' && a[1]) {
        return pm_cli_usage_error(cmd, "unknown or incomplete option '%s'", a);
    } else if (!ta->table) {
        ta->table = a;
    } else {
        return pm_cli_usage_error(cmd, "unexpected argument '%s'", a);
    }
    return 0;
}

int pm_cli_table_args_check(const char *cmd, const pm_cli_table_args *ta)
{
    return ta->table ? 0 : pm_cli_usage_error(cmd, "missing TABLE path");
}

void pm_cli_table_args_read_options(const pm_cli_table_args *ta, pm_read_options *o)
{
    pm_read_options_init(o);
    o->snapshot_id = ta->snapshot;
    o->partitions = ta->partitions;
    o->npartitions = ta->npartitions;
}

void pm_cli_table_args_clear(pm_cli_table_args *ta)
{
    free(ta->partitions);
    ta->partitions = NULL;
    ta->npartitions = 0;
}
