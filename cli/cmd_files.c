/*
 * cli/cmd_files.c — `paimon files TABLE [--snapshot N] [--branch B]
 * [--partition k=v]... [--json]`: the live data files of a snapshot, like
 * Paimon's `$files` system table (paimon/files.h): partition (k=v/...),
 * bucket, file path and name, format, schema id, level, record count, size
 * in bytes, min/max sequence number, creation time, delete row count, file
 * source (APPEND / COMPACT), first row id, written columns, external path
 * and the deleted-row count of its deletion vector when it has one.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "paimon/files.h"
#include "table_args.h"

#define CMD "files"

static void usage(FILE *f)
{
    fprintf(f, "usage: paimon " CMD " TABLE [--snapshot N] [--branch B] [--partition k=v]... [--json]\n\n"
               "List the live data files of a Paimon table (like its $files system table).\n\n"
               "  --snapshot N     files of snapshot N (default latest)\n"
               "  --branch B       branch B (default main)\n"
               "  --partition k=v  only partitions matching k=v[,k2=v2] (repeatable)\n"
               "  --json           one JSON array of objects instead of a text table\n");
}

static void print_text(const pm_file_list *l)
{
    printf("partition\tbucket\tfile\tlevel\trows\tbytes\tmin_seq\tmax_seq\tschema_id\tsource\tdelete_rows\t"
           "dv_deleted\n");
    for (size_t i = 0; i < pm_file_list_count(l); i++) {
        const pm_file_info *f = pm_file_list_get(l, i);
        printf("%s\t%d\t%s\t%d\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%" PRId64 "\t%s\t",
               *f->partition ? f->partition : "-", (int)f->bucket, f->file_name, (int)f->level, f->record_count,
               f->file_size, f->min_sequence_number, f->max_sequence_number, f->schema_id,
               f->file_source ? f->file_source : "-");
        if (f->has_delete_row_count)
            printf("%" PRId64, f->delete_row_count);
        else
            putchar('-');
        if (f->has_deleted_rows)
            printf("\t%" PRId64 "\n", f->deleted_rows);
        else
            printf(f->has_deletion_vector ? "\t?\n" : "\t0\n");
    }
}

static pm_error *run(const pm_cli_table_args *ta, bool json)
{
    pm_table *t = NULL;
    pm_file_list *l = NULL;
    char *text = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_table_open(&t, ta->table, ta->branch), done);
    pm_read_options o;
    pm_cli_table_args_read_options(ta, &o);
    PM_TRY_GOTO(e, pm_table_files(&l, t, &o), done);
    if (json) {
        PM_TRY_GOTO(e, pm_file_list_to_json(&text, l), done);
        printf("%s\n", text);
    } else {
        print_text(l);
    }
done:
    pm_free(text);
    pm_file_list_free(l);
    pm_table_free(t);
    return e;
}

int pm_cmd_files(int argc, char **argv)
{
    if (pm_cli_wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    pm_cli_table_args ta = {0};
    bool json = false;
    int rc = 0;
    for (int i = 1; i < argc && !rc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = true;
        else
            rc = pm_cli_table_arg(CMD, argc, argv, &i, &ta);
    }
    if (!rc)
        rc = pm_cli_table_args_check(CMD, &ta);
    if (!rc) {
        pm_error *e = run(&ta, json);
        rc = e ? pm_cli_fail(CMD, e) : 0;
    }
    pm_cli_table_args_clear(&ta);
    return rc;
}
