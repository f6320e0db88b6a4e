/*
 * cli/cmd_read.c — `paimon read TABLE`: scan a table (latest snapshot or
 * --snapshot N, optional branch and partition filters, the table's
 * scan.fallback-branch honoured) and print its rows as JSON lines, CSV
 * (paimon/rows.h) or one Parquet file (paimon/format.h, zstd).
 * With --output the result goes to a temporary file beside FILE that is
 * renamed over FILE only when everything succeeded.
 * --incremental-between A,B [--mode auto|delta|changelog]: the changes of
 * snapshots (A, B] instead (read.h's incremental read), with `_ROW_KIND`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "paimon/format.h"
#include "paimon/read.h"
#include "paimon/rows.h"
#include "table_args.h"

#define CMD "read"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: paimon " CMD " TABLE [--snapshot N] [--branch B] [--columns a,b] [--partition k=v]...\n"
            "                   [--where FILTER] [--format jsonl|csv|parquet] [--output FILE] [--limit N]\n"
            "                   [--threads N] [--incremental-between A,B [--mode auto|delta|changelog]]\n\n"
            "Print the rows of a Paimon table.\n\n"
            "  --snapshot N     read snapshot N (time travel; its schema is used), default latest\n"
            "  --branch B       read branch B (default main)\n"
            "  --columns a,b    only these columns, in this order\n"
            "  --partition k=v  only partitions matching k=v[,k2=v2] (repeatable: any of them)\n"
            "  --where FILTER   only rows matching FILTER: col = v (or <>, !=, <, <=, >, >=), col IN (v, ...), joined by AND\n"
            "                   ('strings' in single quotes, numbers, TRUE/FALSE, \"odd names\" in double\n"
            "                   quotes); data files whose file index excludes it are not read (their count\n"
            "                   goes to stderr)\n"
            "  --format F       jsonl (default), csv or parquet\n"
            "  --output FILE    write to FILE (required for parquet) instead of stdout\n"
            "  --limit N        stop after N rows\n"
            "  --threads N      decoding threads (default: CPUs, at most 8)\n"
            "  --incremental-between A,B\n"
            "                   the changes of snapshots A+1..B (Java's incremental-between), every\n"
            "                   record not merged, with a _ROW_KIND column (+I, -U, +U, -D)\n"
            "  --mode M         of an incremental read: delta (files APPEND snapshots added; COMPACT\n"
            "                   ones skipped), changelog (the changelog files: changelog-producer\n"
            "                   input, lookup or full-compaction) or auto (default: changelog when\n"
            "                   the table has a changelog producer, else delta)\n"
            "\nPrimary-key tables are merged on read with the table's merge engine (deletes and\n"
            "update-befores dropped); deletion-vector and first-row tables skip level 0 as Java's\n"
            "batch read does.\n");
}

static pm_error *to_file(void *ctx, const void *data, size_t n)
{
    if (fwrite(data, 1, n, ctx) != n)
        return pm_error_new(PM_EIO, "write failed: %s", strerror(errno));
    return NULL;
}

typedef struct sink {
    bool parquet;
    pm_rows_format fmt;
    FILE *f;                  /* text */
    const char *path;         /* parquet: where the file goes */
} sink;

typedef struct incr_args {
    bool on;
    int64_t from, to;
    pm_incremental_mode mode;
} incr_args;

static pm_error *run(const pm_cli_table_args *ta, const pm_cli_list *cols, const char *where, int64_t limit,
                     size_t threads, const incr_args *ia, sink *s)
{
    pm_table *t = NULL;
    pm_reader *r = NULL;
    pm_rows_writer *rw = NULL;
    pm_format_writer *fw = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_table_open(&t, ta->table, ta->branch), done);
    pm_read_options o;
    pm_cli_table_args_read_options(ta, &o);
    o.columns = (const char *const *)cols->items;
    o.ncolumns = cols->n;
    o.limit = limit;
    o.threads = threads;
    o.filter = where;
    if (ia->on) {
        o.incremental_from = ia->from;
        o.incremental_to = ia->to;
        o.incremental_mode = ia->mode;
    }
    PM_TRY_GOTO(e, pm_table_read(&r, t, &o), done);
    if (where && pm_reader_files_skipped(r))
        fprintf(stderr, "paimon read: %zu data files skipped by their file indexes\n", pm_reader_files_skipped(r));
    const pm_type *type = pm_reader_type(r);
    if (s->parquet)
        PM_TRY_GOTO(e, pm_format_writer_create(&fw, s->path, type, NULL), done);
    else
        PM_TRY_GOTO(e, pm_rows_writer_new(&rw, s->fmt, type, to_file, s->f), done);
    for (;;) {
        const pm_batch *b = NULL;
        PM_TRY_GOTO(e, pm_reader_next(&b, r), done);
        if (!b)
            break;
        if (fw)
            PM_TRY_GOTO(e, pm_format_writer_write(fw, b), done);
        else
            PM_TRY_GOTO(e, pm_rows_writer_write(rw, b, 0, pm_batch_num_rows(b)), done);
    }
    if (fw) {
        e = pm_format_writer_close(fw);
        fw = NULL;
    } else {
        e = pm_rows_writer_finish(rw);
    }
done:
    pm_format_writer_abort(fw);
    pm_rows_writer_free(rw);
    pm_reader_free(r);
    pm_table_free(t);
    return e;
}

int pm_cmd_read(int argc, char **argv)
{
    if (pm_cli_wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    pm_cli_table_args ta = {0};
    pm_cli_list cols = {0};
    const char *output = NULL, *format = "jsonl", *where = NULL;
    int64_t limit = -1, threads = (int64_t)pm_cli_cpu_count();
    if (threads > 8)
        threads = 8;
    int rc = 0;
    sink s = {0};
    char *tmp = NULL;
    incr_args ia = {false, 0, 0, PM_INCREMENTAL_AUTO};
    const char *mode = NULL;
    for (int i = 1; i < argc && !rc; i++) {
        const char *a = argv[i];
        bool v = i + 1 < argc;
        if (!strcmp(a, "--columns") && v) {
            pm_cli_list_free(&cols);
            if (pm_cli_list_split(&cols, argv[++i]))
                rc = pm_cli_usage_error(CMD, "--columns needs column names, got '%s'", argv[i]);
        } else if (!strcmp(a, "--format") && v) {
            format = argv[++i];
        } else if (!strcmp(a, "--where") && v) {
            where = argv[++i];
        } else if (!strcmp(a, "--output") && v) {
            output = argv[++i];
        } else if (!strcmp(a, "--limit") && v) {
            rc = pm_cli_parse_int(CMD, "--limit", argv[++i], 0, INT64_MAX, &limit);
        } else if (!strcmp(a, "--threads") && v) {
            rc = pm_cli_parse_int(CMD, "--threads", argv[++i], 1, 64, &threads);
        } else if (!strcmp(a, "--incremental-between") && v) {
            const char *arg = argv[++i], *comma = strchr(arg, ',');
            char from[32];
            if (!comma || (size_t)(comma - arg) >= sizeof from) {
                rc = pm_cli_usage_error(CMD, "--incremental-between needs two snapshot ids A,B, got '%s'", arg);
            } else {
                snprintf(from, sizeof from, "%.*s", (int)(comma - arg), arg);
                rc = pm_cli_parse_int(CMD, "--incremental-between", from, 0, INT64_MAX, &ia.from);
                if (!rc)
                    rc = pm_cli_parse_int(CMD, "--incremental-between", comma + 1, 0, INT64_MAX, &ia.to);
                if (!rc && ia.to < ia.from)
                    rc = pm_cli_usage_error(CMD, "--incremental-between %s: B must not be below A", arg);
                ia.on = true;
            }
        } else if (!strcmp(a, "--mode") && v) {
            mode = argv[++i];
        } else {
            rc = pm_cli_table_arg(CMD, argc, argv, &i, &ta);
        }
    }
    if (!rc)
        rc = pm_cli_table_args_check(CMD, &ta);
    if (!rc && mode) {
        if (!ia.on)
            rc = pm_cli_usage_error(CMD, "--mode belongs to --incremental-between");
        else if (!strcmp(mode, "auto"))
            ia.mode = PM_INCREMENTAL_AUTO;
        else if (!strcmp(mode, "delta"))
            ia.mode = PM_INCREMENTAL_DELTA;
        else if (!strcmp(mode, "changelog"))
            ia.mode = PM_INCREMENTAL_CHANGELOG;
        else
            rc = pm_cli_usage_error(CMD, "unknown --mode '%s' (auto, delta or changelog)", mode);
    }
    if (!rc && ia.on && ta.snapshot)
        rc = pm_cli_usage_error(CMD, "--incremental-between reads a range: it takes no --snapshot");
    if (!rc && !strcmp(format, "parquet")) {
        s.parquet = true;
        if (!output)
            rc = pm_cli_usage_error(CMD, "--format parquet needs --output FILE");
    } else if (!rc) {
        pm_error *e = pm_rows_format_parse(&s.fmt, format);
        if (e) {
            pm_error_free(e);
            rc = pm_cli_usage_error(CMD, "unknown --format '%s' (jsonl, csv or parquet)", format);
        }
    }
    if (rc)
        goto done;
    if (output) {
        size_t n = strlen(output) + 64;
        if (!(tmp = malloc(n))) {
            rc = pm_cli_fail(CMD, pm_error_new(PM_ENOMEM, "out of memory"));
            goto done;
        }
        snprintf(tmp, n, "%s.tmp-%ld", output, (long)getpid());
        s.path = tmp;
        if (!s.parquet && !(s.f = fopen(tmp, "wx"))) {
            rc = pm_cli_fail(CMD, pm_error_new(PM_EIO, "cannot create %s: %s", tmp, strerror(errno)));
            goto done;
        }
    } else {
        s.f = stdout;
    }
    pm_error *e = run(&ta, &cols, where, limit, (size_t)threads, &ia, &s);
    if (!e && s.f && fflush(s.f))
        e = pm_error_new(PM_EIO, "write failed: %s", strerror(errno));
    if (s.f && s.f != stdout) {
        if (fclose(s.f) && !e)
            e = pm_error_new(PM_EIO, "write failed: %s", strerror(errno));
        s.f = NULL;
    }
    if (!e && tmp && rename(tmp, output))
        e = pm_error_new(PM_EIO, "cannot rename %s to %s: %s", tmp, output, strerror(errno));
    if (e) {
        if (tmp)
            unlink(tmp);
        rc = pm_cli_fail(CMD, e);
    }
done:
    if (s.f && s.f != stdout)
        fclose(s.f);
    pm_cli_table_args_clear(&ta);
    pm_cli_list_free(&cols);
    free(tmp);
    return rc;
}
