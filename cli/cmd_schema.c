/*
 * cli/cmd_schema.c — `paimon schema TABLE [--branch B] [--id N] [--json]`:
 * print a table's latest schema (or schema N): fields with ids and types,
 * partition keys, primary keys, options and comment; --json prints the
 * schema file's JSON exactly as Paimon Java writes it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "paimon/table.h"

#define CMD "schema"

static void usage(FILE *f)
{
    fprintf(f, "usage: paimon " CMD " TABLE [--branch B] [--id N] [--json]\n\n"
               "Print the schema of a Paimon table.\n\n"
               "  --branch B  schema of branch B (default main)\n"
               "  --id N      schema N instead of the latest\n"
               "  --json      the schema JSON (schema/schema-N) instead of text\n");
}

static pm_error *print_text(const pm_schema *s)
{
    printf("schema id: %" PRId64 "\nfields:\n", pm_schema_id(s));
    const pm_type *rt = pm_schema_row_type(s);
    for (size_t i = 0; i < rt->nfields; i++) {
        const pm_field *f = &rt->fields[i];
        char *ts = pm_type_to_string(f->type);
        if (!ts)
            return pm_error_new(PM_ENOMEM, "out of memory");
        printf("  %d\t%s\t%s%s%s\n", (int)f->id, f->name, ts, f->description ? "\t-- " : "",
               f->description ? f->description : "");
        free(ts);
    }
    printf("partition keys:");
    for (size_t i = 0; i < pm_schema_partition_key_count(s); i++)
        printf("%s%s", i ? ", " : " ", pm_schema_partition_key(s, i));
    printf("\nprimary keys:");
    for (size_t i = 0; i < pm_schema_primary_key_count(s); i++)
        printf("%s%s", i ? ", " : " ", pm_schema_primary_key(s, i));
    printf("\noptions:\n");
    for (size_t i = 0; i < pm_schema_option_count(s); i++)
        printf("  %s = %s\n", pm_schema_option_key(s, i), pm_schema_option_value(s, i));
    if (pm_schema_comment(s))
        printf("comment: %s\n", pm_schema_comment(s));
    return NULL;
}

int pm_cmd_schema(int argc, char **argv)
{
    if (pm_cli_wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    const char *table = NULL, *branch = NULL;
    bool json = false;
    int64_t id = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (!strcmp(argv[i], "--branch") && i + 1 < argc) {
            branch = argv[++i];
        } else if (!strcmp(argv[i], "--id") && i + 1 < argc) {
            int rc = pm_cli_parse_int(CMD, "--id", argv[++i], 0, INT32_MAX, &id);
            if (rc)
                return rc;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return pm_cli_usage_error(CMD, "unknown or incomplete option '%s'", argv[i]);
        } else if (!table) {
            table = argv[i];
        } else {
            return pm_cli_usage_error(CMD, "unexpected argument '%s'", argv[i]);
        }
    }
    if (!table)
        return pm_cli_usage_error(CMD, "missing TABLE path");
    pm_table *t = NULL;
    const pm_schema *s = NULL;
    char *text = NULL;
    pm_error *e = pm_table_open(&t, table, branch);
    if (!e)
        s = pm_table_schema(t);
    if (!e && id >= 0)
        e = pm_table_schema_get(&s, t, id);
    if (!e && json) {
        e = pm_schema_to_json_text(&text, s);
        if (!e)
            printf("%s\n", text);
    } else if (!e) {
        e = print_text(s);
    }
    pm_free(text);
    pm_table_free(t);
    return e ? pm_cli_fail(CMD, e) : 0;
}
