/*
 * cli/cmd_meta.c — `paimon meta FILE`: print a Parquet file's footer as one
 * JSON object (paimon/format.h pm_parquet_footer_json: row groups, column
 * chunks with types, field ids, encodings, codec, sizes and statistics).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "paimon/format.h"

#define CMD "meta"

static void usage(FILE *f)
{
    fprintf(f, "usage: paimon " CMD " FILE\n\n"
               "Print the footer of a Parquet file as JSON: rows, row groups, columns\n"
               "(path, types, field id, encodings, codec, sizes) and statistics.\n");
}

int pm_cmd_meta(int argc, char **argv)
{
    if (pm_cli_wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1])
            return pm_cli_usage_error(CMD, "unknown option '%s'", argv[i]);
        if (path)
            return pm_cli_usage_error(CMD, "more than one FILE given");
        path = argv[i];
    }
    if (!path)
        return pm_cli_usage_error(CMD, "missing FILE");
    char *text = NULL;
    pm_error *e = pm_parquet_footer_json(&text, path);
    if (e)
        return pm_cli_fail(CMD, e);
    printf("%s\n", text);
    pm_free(text);
    return 0;
}
