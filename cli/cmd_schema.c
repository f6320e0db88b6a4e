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

#include "base/buf.h"
#include "cli.h"
#include "table/table_internal.h"

#define CMD "schema"

static void usage(FILE *f)
{
    fprintf(f, "usage: paimon " CMD " TABLE [--branch B] [--id N] [--json]\n\n"
               "Print the schema of a Paimon table.\n\n"
               "  --branch B  schema of branch B (default main)\n"
               "  --id N      schema N instead of the latest\n"
               "  --json      the schema JSON (schema/schema-N) instead of text\n");
}

static pm_error *list_line(pm_buf *b, const char *label, const pm_str_list *l)
{
    PM_TRY(pm_buf_printf(b, "%s:", label));
    for (size_t i = 0; i < l->count; i++)
        PM_TRY(pm_buf_printf(b, "%s%s", i ? ", " : " ", l->items[i]));
    return pm_buf_append_byte(b, '\n');
}

static pm_error *print_text(const pm_schema *s, pm_buf *b)
{
    PM_TRY(pm_buf_printf(b, "schema id: %" PRId64 "\nfields:\n", s->id));
    for (size_t i = 0; i < s->row_type->nfields; i++) {
        const pm_field *f = &s->row_type->fields[i];
        char *ts = pm_type_to_string(f->type);
        if (!ts)
            return pm_error_new(PM_ENOMEM, "out of memory");
        pm_error *e = pm_buf_printf(b, "  %d\t%s\t%s%s%s\n", (int)f->id, f->name, ts,
                                    f->description ? "\t-- " : "", f->description ? f->description : "");
        free(ts);
        PM_TRY(e);
    }
    PM_TRY(list_line(b, "partition keys", &s->partition_keys));
    PM_TRY(list_line(b, "primary keys", &s->primary_keys));
    PM_TRY(pm_buf_append_str(b, "options:\n"));
    for (size_t i = 0; i < pm_options_count(s->options); i++)
        PM_TRY(pm_buf_printf(b, "  %s = %s\n", pm_options_key_at(s->options, i), pm_options_value_at(s->options, i)));
    if (s->comment)
        PM_TRY(pm_buf_printf(b, "comment: %s\n", s->comment));
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
            char *end;
            long long n = strtoll(argv[++i], &end, 10);
            if (*end || end == argv[i] || n < 0)
                return pm_cli_usage_error(CMD, "--id needs a schema id >= 0, got '%s'", argv[i]);
            id = n;
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
    pm_buf b = PM_BUF_INIT;
    const pm_schema *s = NULL;
    pm_error *e = pm_table_open(&t, table, branch);
    if (!e)
        s = pm_table_schema(t);
    if (!e && id >= 0)
        e = pm_table_schema_by_id(t, id, &s);
    if (!e)
        e = json ? pm_schema_to_json(s, &b) : print_text(s, &b);
    if (!e && json)
        e = pm_buf_append_byte(&b, '\n');
    if (!e)
        fwrite(b.data, 1, b.len, stdout);
    pm_buf_free(&b);
    pm_table_free(t);
    return e ? pm_cli_fail(CMD, e) : 0;
}
