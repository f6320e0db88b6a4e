/*
 * cli/cmd_write.c — `paimon write`: append (or overwrite) rows into a
 * table with one commit per invocation, through paimon/write.h.
 *
 *   paimon write TABLE [--input FILE|-] [--input-format jsonl|csv|parquet]
 *                [--overwrite [--partition k=v[,k2=v2]]...]
 *                [--commit-user U] [--commit-identifier N] [--batch-rows N] [--threads N]
 *
 * Input formats (default: by the file's extension, else jsonl): JSON lines
 * and CSV as paimon/rows.h describes them; Parquet files with columns
 * mapped to table fields by name (types must match).  Primary-key tables
 * take each row's kind from a `_ROW_KIND` column/field (+I, -U, +U, -D;
 * absent or null = +I).  The input streams through in batches, so memory
 * does not grow with the input.
 * With --commit-user, a run whose (user, identifier) already landed writes
 * nothing and only finishes an interrupted automatic compaction round.
 * Prints "snapshot N: R rows in F files" (or "nothing to commit"), then what
 * the automatic compaction round did.  Exit codes: 0 ok; 1 nothing was
 * committed; 2 usage; 3 the data commit succeeded but the compaction round
 * after it failed (a retry would duplicate the rows: do not retry the write).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "paimon/format.h"
#include "paimon/read.h"
#include "paimon/rows.h"
#include "paimon/write.h"

#define CMD "write"

typedef enum { IN_JSONL, IN_CSV, IN_PARQUET } input_format;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: paimon write TABLE [--input FILE|-] [--input-format jsonl|csv|parquet]\n"
            "                    [--overwrite [--partition k=v[,k2=v2]]...]\n"
            "                    [--commit-user U] [--commit-identifier N] [--batch-rows N] [--threads N]\n\n"
            "Write rows into the table at path TABLE (<warehouse>/<db>.db/<table>) as one commit.\n"
            "  --input FILE          rows to write ('-' or absent: stdin)\n"
            "  --input-format F      jsonl (JSON lines, the `paimon cat` encoding), csv (header row,\n"
            "                        empty unquoted cell = null) or parquet (columns by name);\n"
            "                        default: by the file extension, else jsonl\n"
            "  --overwrite           replace the table's rows (OVERWRITE commit) ...\n"
            "  --partition k=v       ... only in these partitions (repeatable)\n"
            "  --commit-user U       commit user (default: a random UUID)\n"
            "  --commit-identifier N commit identifier (default: batch, 9223372036854775807);\n"
            "                        re-running with the same user and identifier is a no-op\n"
            "  --batch-rows N        rows per batch handed to the writer (default 65536)\n"
            "  --threads N           encoding threads (default: CPUs, at most 8); large inputs to an\n"
            "                        unaware-bucket table are then written as N files in parallel\n\n"
            "exit codes: 0 ok, 1 nothing committed, 2 usage error, 3 the data commit succeeded but the\n"
            "automatic compaction after it failed (do not retry the write; run 'paimon compact').\n");
}

static pm_error *file_source(void *ctx, void *buf, size_t cap, size_t *n)
{
    FILE *f = ctx;
    *n = fread(buf, 1, cap, f);
    if (*n == 0 && ferror(f))
        return pm_error_new(PM_EIO, "read input: %s", strerror(errno));
    return NULL;
}

static pm_error *feed_parquet(pm_writer *w, const char *path, int64_t batch_rows)
{
    if (!strcmp(path, "-"))
        return pm_error_new(PM_EINVALID, "Parquet input needs a file (--input FILE), not stdin");
    pm_format_reader *r = NULL;
    pm_format_options o = PM_FORMAT_OPTIONS_INIT;
    o.batch_rows = batch_rows;
    pm_error *e = pm_format_reader_open(&r, path, &o);
    while (!e) {
        const pm_batch *b = NULL;
        e = pm_format_reader_next(&b, r);
        if (e || !b)
            break;
        e = pm_writer_write(w, b);
    }
    pm_format_reader_free(r);
    return e ? pm_error_wrap(e, 0, "Parquet input %s", path) : NULL;
}

static pm_error *feed(pm_writer *w, const char *input, input_format fmt, int64_t batch_rows)
{
    if (fmt == IN_PARQUET)
        return feed_parquet(w, input, batch_rows);
    FILE *in = strcmp(input, "-") ? fopen(input, "rb") : stdin;
    if (!in)
        return pm_error_new(errno == ENOENT ? PM_ENOTFOUND : PM_EIO, "open input %s: %s", input, strerror(errno));
    pm_rows_reader *r = NULL;
    pm_error *e = pm_rows_reader_new(&r, fmt == IN_CSV ? PM_ROWS_CSV : PM_ROWS_JSONL, pm_writer_input_type(w),
                                     file_source, in, batch_rows);
    while (!e) {
        const pm_batch *b = NULL;
        e = pm_rows_reader_next(&b, r);
        if (e || !b)
            break;
        e = pm_writer_write(w, b);
    }
    pm_rows_reader_free(r);
    if (in != stdin)
        fclose(in);
    return e;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcasecmp(s + a - b, suffix);
}

/* Print what the commit did; the exit code. */
static int report(const pm_commit_outcome *out, const pm_write_options *o)
{
    char a[32], b[32];
    if (out->already_committed)
        printf("snapshot %" PRId64 ": already committed by %s with identifier %" PRId64 "\n", out->snapshot_id,
               o->commit_user, o->commit_identifier);
    else if (out->snapshot_id)
        printf("snapshot %" PRId64 ": %" PRId64 " rows in %" PRId64 " files\n", out->snapshot_id, out->rows,
               out->files);
    else
        printf("nothing to commit\n");
    if (out->stall.snapshot_id)
        printf("snapshot %" PRId64 ": write stall, compacted %" PRId64 " files into %" PRId64 " files first\n",
               out->stall.snapshot_id, out->stall.files_removed, out->stall.files_added);
    if (out->compaction.snapshot_id) {
        pm_cli_human_bytes(out->compaction.bytes_read, a, sizeof a);
        pm_cli_human_bytes(out->compaction.bytes_written, b, sizeof b);
        printf("snapshot %" PRId64 ": compacted %" PRId64 " files (%s) into %" PRId64 " files (%s)\n",
               out->compaction.snapshot_id, out->compaction.files_removed, a, out->compaction.files_added, b);
    }
    if (!out->compaction_error)
        return PM_EXIT_OK;
    pm_cli_fail(CMD, pm_error_wrap(out->compaction_error, 0,
                                   "the data commit (snapshot %" PRId64 ") stands; the automatic compaction after "
                                   "it failed",
                                   out->snapshot_id));
    return PM_EXIT_COMPACTION_FAILED;
}

static int run(const char *table, const char *input, input_format fmt, int64_t batch_rows, const pm_write_options *o)
{
    pm_table *t = NULL;
    pm_writer *w = NULL;
    pm_commit_outcome out = PM_COMMIT_OUTCOME_INIT;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_table_open(&t, table, NULL), fail);
    int64_t landed = 0;
    if (o->commit_user)
        PM_TRY_GOTO(e, pm_table_find_commit(&landed, t, o->commit_user, o->commit_identifier), fail);
    if (landed) {
        /* already committed: nothing to write; finish an interrupted round */
        PM_TRY_GOTO(e, pm_commit(&out, t, NULL, o), fail);
    } else {
        PM_TRY_GOTO(e, pm_writer_new(&w, t, o), fail);
        PM_TRY_GOTO(e, feed(w, input, fmt, batch_rows), fail);
        PM_TRY_GOTO(e, pm_writer_commit(&out, w), fail);
    }
    pm_writer_free(w);
    int rc = report(&out, o);
    pm_table_free(t);
    return rc;
fail:
    pm_writer_abort(w); /* removes the files not handed out */
    pm_table_free(t);
    return pm_cli_fail(CMD, e);
}

int pm_cmd_write(int argc, char **argv)
{
    if (pm_cli_wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    const char *table = NULL, *input = "-", *format = NULL;
    pm_write_options o = PM_WRITE_OPTIONS_INIT;
    int64_t threads = (int64_t)pm_cli_cpu_count(), batch_rows = 65536;
    if (threads > 8)
        threads = 8;
    const char **parts = calloc((size_t)argc, sizeof *parts);
    size_t nparts = 0;
    int rc = parts ? 0 : pm_cli_fail(CMD, pm_error_new(PM_ENOMEM, "out of memory"));
    for (int i = 1; i < argc && !rc; i++) {
        const char *a = argv[i];
        bool needs = !strcmp(a, "--input") || !strcmp(a, "--input-format") || !strcmp(a, "--partition") ||
                     !strcmp(a, "--commit-user") || !strcmp(a, "--commit-identifier") || !strcmp(a, "--threads") ||
                     !strcmp(a, "--batch-rows");
        if (needs && i + 1 >= argc) {
            rc = pm_cli_usage_error(CMD, "%s needs a value", a);
        } else if (!strcmp(a, "--input")) {
            input = argv[++i];
        } else if (!strcmp(a, "--input-format")) {
            format = argv[++i];
        } else if (!strcmp(a, "--overwrite")) {
            o.overwrite = true;
        } else if (!strcmp(a, "--partition")) {
            pm_error *e = pm_partition_filter_check(argv[++i]);
            if (e)
                rc = pm_cli_bad_argument(CMD, e);
            else
                parts[nparts++] = argv[i];
        } else if (!strcmp(a, "--commit-user")) {
            o.commit_user = argv[++i];
            if (!*o.commit_user)
                rc = pm_cli_usage_error(CMD, "--commit-user needs a non-empty value");
        } else if (!strcmp(a, "--commit-identifier")) {
            rc = pm_cli_parse_int(CMD, a, argv[++i], INT64_MIN, INT64_MAX, &o.commit_identifier);
        } else if (!strcmp(a, "--threads")) {
            rc = pm_cli_parse_int(CMD, a, argv[++i], 1, 64, &threads);
        } else if (!strcmp(a, "--batch-rows")) {
            rc = pm_cli_parse_int(CMD, a, argv[++i], 1, 1 << 24, &batch_rows);
        } else if (a[0] == '-' && a[1]) {
            rc = pm_cli_usage_error(CMD, "unknown option '%s'", a);
        } else if (!table) {
            table = a;
        } else {
            rc = pm_cli_usage_error(CMD, "unexpected argument '%s'", a);
        }
    }
    if (!rc && !table)
        rc = pm_cli_usage_error(CMD, "TABLE is required");
    if (!rc && nparts && !o.overwrite)
        rc = pm_cli_usage_error(CMD, "--partition only applies with --overwrite");
    input_format fmt = IN_JSONL;
    if (!rc && !format)
        fmt = ends_with(input, ".csv") ? IN_CSV : ends_with(input, ".parquet") ? IN_PARQUET : IN_JSONL;
    else if (!rc && (!strcmp(format, "jsonl") || !strcmp(format, "json")))
        fmt = IN_JSONL;
    else if (!rc && !strcmp(format, "csv"))
        fmt = IN_CSV;
    else if (!rc && !strcmp(format, "parquet"))
        fmt = IN_PARQUET;
    else if (!rc)
        rc = pm_cli_usage_error(CMD, "unknown --input-format '%s' (jsonl, csv, parquet)", format);
    if (!rc) {
        o.overwrite_partitions = parts;
        o.noverwrite_partitions = nparts;
        o.threads = (size_t)threads;
        rc = run(table, input, fmt, batch_rows, &o);
    }
    free(parts);
    return rc;
}
