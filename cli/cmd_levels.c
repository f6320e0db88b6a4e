/*
 * cli/cmd_levels.c — `paimon levels TABLE [--snapshot N] [--branch B]
 * [--partition k=v]... [--files] [--json]`: the sorted runs of every bucket
 * of a primary-key table (paimon/files.h pm_table_levels) as a chart:
 *
 *   dt=2024-01-01 bucket 0: 3 runs, 5 files, 1200 rows, 41.2 KiB
 *       L0     1 file         200 rows     8.0 KiB  ####................  seq 1001..1200  keys [1] .. [200]
 *       L5     4 files       1000 rows    33.2 KiB  ####################  seq 1..1000  keys [1] .. [999]
 *
 * Level-0 runs come newest first, then one run per non-empty level.  The
 * bar is the run's size relative to the largest run of the bucket; keys
 * are shortened to 48 bytes.  --files lists each run's files; --json
 * prints the view as JSON instead.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "paimon/files.h"
#include "table_args.h"

#define CMD "levels"
#define BAR 20
#define KEY_TEXT_MAX 48

static void usage(FILE *f)
{
    fprintf(f, "usage: paimon " CMD " TABLE [--snapshot N] [--branch B] [--partition k=v]... [--files] [--json]\n\n"
               "Print the sorted runs of every bucket of a primary-key table: level-0 files (each its\n"
               "own run, newest first), then each non-empty level, with file counts, rows, sizes,\n"
               "sequence numbers, key ranges and a size bar.\n\n"
               "  --snapshot N     snapshot N (default latest)\n"
               "  --branch B       branch B (default main)\n"
               "  --partition k=v  only partitions matching k=v[,k2=v2] (repeatable)\n"
               "  --files          also list the files of each run\n"
               "  --json           the runs as JSON\n");
}

/* A key text shortened to KEY_TEXT_MAX bytes (at a UTF-8 boundary) + "...". */
static void print_key(const char *k)
{
    if (!k) {
        fputs("-", stdout);
        return;
    }
    size_t n = strlen(k);
    if (n <= KEY_TEXT_MAX) {
        fputs(k, stdout);
        return;
    }
    n = KEY_TEXT_MAX;
    while (n > 0 && ((unsigned char)k[n] & 0xc0) == 0x80)
        n--;
    printf("%.*s...", (int)n, k);
}

static void file_line(const pm_file_info *f)
{
    char size[32];
    pm_cli_human_bytes(f->file_size, size, sizeof size);
    printf("        %s  L%d  %" PRId64 " rows  %s  seq %" PRId64 "..%" PRId64, f->file_name, (int)f->level,
           f->record_count, size, f->min_sequence_number, f->max_sequence_number);
    if (f->has_delete_row_count && f->delete_row_count)
        printf("  deletes %" PRId64, f->delete_row_count);
    fputs("  keys ", stdout);
    print_key(f->min_key);
    fputs(" .. ", stdout);
    print_key(f->max_key);
    putchar('\n');
}

static void print_bucket(const pm_bucket_levels *b, bool files)
{
    char size[32];
    pm_cli_human_bytes(b->size, size, sizeof size);
    printf("%s%sbucket %d: %zu runs, %zu files, %" PRId64 " rows, %s\n", b->partition, *b->partition ? " " : "",
           (int)b->bucket, b->nruns, b->nfiles, b->record_count, size);
    if (b->error) {
        printf("    (no valid LSM shape: %s)\n", b->error);
        for (size_t i = 0; i < b->nfiles; i++)
            file_line(b->files[i]);
        return;
    }
    int64_t biggest = 1;
    for (size_t i = 0; i < b->nruns; i++)
        if (b->runs[i].size > biggest)
            biggest = b->runs[i].size;
    for (size_t i = 0; i < b->nruns; i++) {
        const pm_run_info *r = &b->runs[i];
        char bar[BAR + 1];
        int w = (int)((r->size * BAR + biggest - 1) / biggest);
        w = w < 1 ? 1 : w > BAR ? BAR : w;
        for (int c = 0; c < BAR; c++)
            bar[c] = c < w ? '#' : '.';
        bar[BAR] = 0;
        pm_cli_human_bytes(r->size, size, sizeof size);
        printf("    L%-2d %4zu file%s %10" PRId64 " rows %11s  %s  seq %" PRId64 "..%" PRId64 "  keys ",
               (int)r->level, r->nfiles, r->nfiles == 1 ? " " : "s", r->record_count, size, bar,
               r->min_sequence_number, r->max_sequence_number);
        print_key(r->min_key);
        fputs(" .. ", stdout);
        print_key(r->max_key);
        putchar('\n');
        for (size_t f = 0; files && f < r->nfiles; f++)
            if (r->files[f])
                file_line(r->files[f]);
    }
}

static pm_error *run(const pm_cli_table_args *ta, bool files, bool json)
{
    pm_table *t = NULL;
    pm_level_list *l = NULL;
    char *text = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_table_open(&t, ta->table, ta->branch), done);
    pm_read_options o;
    pm_cli_table_args_read_options(ta, &o);
    PM_TRY_GOTO(e, pm_table_levels(&l, t, &o), done);
    if (json) {
        PM_TRY_GOTO(e, pm_level_list_to_json(&text, l), done);
        printf("%s\n", text);
        goto done;
    }
    if (!pm_level_list_count(l))
        printf(pm_level_list_snapshot_id(l) ? "no files\n" : "no snapshot\n");
    for (size_t i = 0; i < pm_level_list_count(l); i++)
        print_bucket(pm_level_list_get(l, i), files);
done:
    pm_free(text);
    pm_level_list_free(l);
    pm_table_free(t);
    return e;
}

int pm_cmd_levels(int argc, char **argv)
{
    if (pm_cli_wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    pm_cli_table_args ta = {0};
    bool files = false, json = false;
    int rc = 0;
    for (int i = 1; i < argc && !rc; i++) {
        if (!strcmp(argv[i], "--files"))
            files = true;
        else if (!strcmp(argv[i], "--json"))
            json = true;
        else
            rc = pm_cli_table_arg(CMD, argc, argv, &i, &ta);
    }
    if (!rc)
        rc = pm_cli_table_args_check(CMD, &ta);
    if (!rc) {
        pm_error *e = run(&ta, files, json);
        rc = e ? pm_cli_fail(CMD, e) : 0;
    }
    pm_cli_table_args_clear(&ta);
    return rc;
}
