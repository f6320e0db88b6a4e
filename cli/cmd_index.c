/*
 * cli/cmd_index.c — paimon index TABLE [--column C] [--json]: build the
 * missing row-ID coverage of the table's declared global indexes
 * (paimon/index.h) as one snapshot.  Text output: one summary line;
 * --json: one object.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "paimon/index.h"
#include "paimon/table.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: paimon index TABLE [--column C] [--json]\n\n"
               "Build the missing row-ID coverage of the global indexes the table declares\n"
               "(global-index.btree.index-columns, global-index.bitmap.index-columns) as new btree /\n"
               "bitmap index files, published in one snapshot (nothing when everything is covered).\n\n"
               "  --column C   only the index of column C\n"
               "  --json       print the result as one JSON object\n");
}

int pm_cmd_index(int argc, char **argv)
{
    const char *cmd = "index";
    if (pm_cli_wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    pm_index_options o = PM_INDEX_OPTIONS_INIT;
    const char *path = NULL;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--column") && i + 1 < argc)
            o.column = argv[++i];
        else if (!strcmp(a, "--json"))
            json = true;
        else if (a[0] == '-')
            return pm_cli_usage_error(cmd, "unknown option or missing value: %s", a);
        else if (!path)
            path = a;
        else
            return pm_cli_usage_error(cmd, "unexpected argument: %s", a);
    }
    if (!path)
        return pm_cli_usage_error(cmd, "missing TABLE");
    pm_table *t = NULL;
    pm_error *e = pm_table_open(&t, path, NULL);
    if (e)
        return pm_cli_fail(cmd, e);
    pm_index_result r = PM_INDEX_RESULT_INIT;
    e = pm_table_build_index(&r, t, &o);
    pm_table_free(t);
    if (e)
        return pm_cli_fail(cmd, e);
    if (json)
        printf("{\"snapshot_id\":%" PRId64 ",\"files_added\":%" PRId64 ",\"files_removed\":%" PRId64
               ",\"ranges_built\":%" PRId64 ",\"rows_indexed\":%" PRId64 "}\n",
               r.snapshot_id, r.files_added, r.files_removed, r.ranges_built, r.rows_indexed);
    else if (r.snapshot_id)
        printf("snapshot %" PRId64 ": %" PRId64 " index files added (%" PRId64 " ranges, %" PRId64
               " rows), %" PRId64 " retired\n",
               r.snapshot_id, r.files_added, r.ranges_built, r.rows_indexed, r.files_removed);
    else
        printf("global indexes already cover every row: nothing to publish\n");
    return 0;
}
