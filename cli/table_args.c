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
        const char *s = argv[++*i];
        char *end;
        long long n = strtoll(s, &end, 10);
        if (*end || end == s || n <= 0)
            return pm_cli_usage_error(cmd, "--snapshot needs a positive id, got '%s'", s);
        ta->snapshot = n;
    } else if (!strcmp(a, "--partition") && v) {
        pm_partition_spec *ns = realloc(ta->specs, (ta->nspecs + 1) * sizeof *ta->specs);
        if (!ns)
            return pm_cli_fail(cmd, pm_error_new(PM_ENOMEM, "out of memory"));
        ta->specs = ns;
        pm_error *e = pm_partition_spec_parse(argv[++*i], &ta->specs[ta->nspecs]);
        if (e)
            return pm_cli_bad_argument(cmd, e);
        ta->nspecs++;
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

void pm_cli_table_args_clear(pm_cli_table_args *ta)
{
    for (size_t k = 0; k < ta->nspecs; k++)
        pm_partition_spec_clear(&ta->specs[k]);
    free(ta->specs);
    ta->specs = NULL;
    ta->nspecs = 0;
}
