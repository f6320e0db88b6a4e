/*
 * cli/cmd_read.c — `paimon read TABLE`: scan a table (latest snapshot or
 * --snapshot N, optional branch and partition filters, the table's
 * scan.fallback-branch honoured) and print its rows as JSON lines, CSV or
 * one Parquet file.
 *
 * JSON lines use the `paimon cat` value encoding (pm_batch_format_row_json).
 * CSV: a header of column names, then one line per row; null is an empty
 * cell, an empty string is "" (quoted), strings are written raw, other
 * atomic values as their JSON text without the surrounding quotes (so
 * dates, timestamps, decimals and base64 bytes read back with
 * `paimon write --input-format csv`), nested values as JSON; cells holding
 * a comma, quote, CR or LF are quoted with doubled quotes.
 * Parquet: one file written by the paimon-c Parquet writer (zstd).
 * With --output the result goes to a temporary file beside FILE that is
 * renamed over FILE only when everything succeeded.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/pool.h"
#include "cli.h"
#include "table_args.h"
#include "format/parquet/parquet_writer.h"
#include "io/fileio.h"
#include "table/scan.h"
#include "table/table_read.h"
#include "types/column.h"

#define CMD "read"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: paimon " CMD " TABLE [--snapshot N] [--branch B] [--columns a,b] [--partition k=v]...\n"
            "                   [--format jsonl|csv|parquet] [--output FILE] [--limit N]\n\n"
            "Print the rows of a Paimon table.\n\n"
            "  --snapshot N     read snapshot N (time travel; its schema is used), default latest\n"
            "  --branch B       read branch B (default main)\n"
            "  --columns a,b    only these columns, in this order\n"
            "  --partition k=v  only partitions matching k=v[,k2=v2] (repeatable: any of them)\n"
            "  --format F       jsonl (default), csv or parquet\n"
            "  --output FILE    write to FILE (required for parquet) instead of stdout\n"
            "  --limit N        stop after N rows\n"
            "\nPrimary-key tables are merged on read with the table's merge engine (deletes and\n"
            "update-befores dropped); deletion-vector and first-row tables skip level 0 as Java's\n"
            "batch read does.\n");
}

typedef enum out_fmt { OUT_JSONL, OUT_CSV, OUT_PARQUET } out_fmt;

typedef struct sink {
    out_fmt fmt;
    FILE *f;              /* jsonl / csv */
    pm_fileio *fio;       /* parquet */
    pm_output *out;
    pm_pq_writer *pq;
    pm_buf line;
    pm_buf cell;
    pm_batch *slice;      /* parquet: the first rows of a batch (limit) */
} sink;

static pm_error *csv_cell(pm_buf *line, pm_buf *cell, const pm_column *c, int64_t row)
{
    if (pm_column_is_null(c, row))
        return NULL;
    const pm_type *t = c->type;
    pm_buf_clear(cell);
    if (t->id == PM_TYPE_CHAR || t->id == PM_TYPE_VARCHAR) {
        size_t n;
        const uint8_t *p = pm_column_bytes(c, row, &n);
        if (n == 0)
            return pm_buf_append_str(line, "\"\"");
        PM_TRY(pm_buf_append(cell, p, n));
    } else {
        PM_TRY(pm_column_format_json(c, row, cell));
        if (!pm_type_is_nested(t) && cell->len >= 2 && cell->data[0] == '"' && cell->data[cell->len - 1] == '"' &&
            !memchr(cell->data + 1, '\\', cell->len - 2)) {
            memmove(cell->data, cell->data + 1, cell->len - 2);
            cell->len -= 2;
        }
    }
    bool quote = false;
    for (size_t i = 0; i < cell->len && !quote; i++)
        quote = cell->data[i] == ',' || cell->data[i] == '"' || cell->data[i] == '\n' || cell->data[i] == '\r';
    if (!quote)
        return pm_buf_append(line, cell->data, cell->len);
    PM_TRY(pm_buf_append_byte(line, '"'));
    for (size_t i = 0; i < cell->len; i++) {
        if (cell->data[i] == '"')
            PM_TRY(pm_buf_append_byte(line, '"'));
        PM_TRY(pm_buf_append_byte(line, cell->data[i]));
    }
    return pm_buf_append_byte(line, '"');
}

static pm_error *write_bytes(sink *s, const pm_buf *b)
{
    if (b->len && fwrite(b->data, 1, b->len, s->f) != b->len)
        return pm_error_new(PM_EIO, "write failed: %s", strerror(errno));
    return NULL;
}

static pm_error *sink_header(sink *s, const pm_type *type)
{
    if (s->fmt != OUT_CSV)
        return NULL;
    pm_buf_clear(&s->line);
    for (size_t i = 0; i < type->nfields; i++) {
        if (i)
            PM_TRY(pm_buf_append_byte(&s->line, ','));
        PM_TRY(pm_buf_append_str(&s->line, type->fields[i].name));
    }
    PM_TRY(pm_buf_append_byte(&s->line, '\n'));
    return write_bytes(s, &s->line);
}

/* Write the first `rows` rows of b. */
static pm_error *sink_write(sink *s, const pm_batch *b, int64_t rows)
{
    if (s->fmt == OUT_PARQUET) {
        if (rows == b->num_rows)
            return pm_pq_writer_write(s->pq, b);
        if (!s->slice)
            PM_TRY(pm_batch_new(&s->slice, b->type));
        PM_TRY(pm_batch_reset(s->slice));
        for (size_t i = 0; i < b->ncolumns; i++)
            for (int64_t r = 0; r < rows; r++)
                PM_TRY(pm_column_append_from(s->slice->columns[i], b->columns[i], r));
        PM_TRY(pm_batch_finish(s->slice, rows));
        return pm_pq_writer_write(s->pq, s->slice);
    }
    pm_buf_clear(&s->line);
    if (s->fmt == OUT_JSONL) {
        for (int64_t r = 0; r < rows; r += 256) {
            PM_TRY(pm_batch_format_rows_json(b, r, rows - r < 256 ? rows : r + 256, &s->line));
            if (s->line.len >= 1 << 16) {
                PM_TRY(write_bytes(s, &s->line));
                pm_buf_clear(&s->line);
            }
        }
        return write_bytes(s, &s->line);
    }
    for (int64_t r = 0; r < rows; r++) {
        for (size_t i = 0; i < b->ncolumns; i++) {
            if (i)
                PM_TRY(pm_buf_append_byte(&s->line, ','));
            PM_TRY(csv_cell(&s->line, &s->cell, b->columns[i], r));
        }
        PM_TRY(pm_buf_append_byte(&s->line, '\n'));
        if (s->line.len >= 1 << 16) {
            PM_TRY(write_bytes(s, &s->line));
            pm_buf_clear(&s->line);
        }
    }
    return write_bytes(s, &s->line);
}

static pm_error *run(const char *path, const char *branch, int64_t snapshot, char **cols, size_t ncols,
                     pm_partition_spec *specs, size_t nspecs, sink *s, int64_t limit, const char *outpath)
{
    pm_table *t = NULL;
    pm_scan_result *scan = NULL;
    pm_table_reader *rd = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_table_open(&t, path, branch), done);
    pm_scan_options so = pm_scan_options_default();
    so.snapshot_id = snapshot;
    so.partitions = specs;
    so.npartitions = nspecs;
    so.fallback_branch = true;
    PM_TRY_GOTO(e, pm_table_scan(t, &so, &scan), done);
    pm_table_read_options ro = {(const char *const *)cols, ncols, 0};
    PM_TRY_GOTO(e, pm_table_reader_new(&rd, t, scan, &ro), done);
    /* files are read ahead on up to 8 threads; rows come out in the same order */
    pm_table_reader_set_threads(rd, pm_cpu_count() < 8 ? pm_cpu_count() : 8);
    const pm_type *type = pm_table_reader_type(rd);
    if (s->fmt == OUT_PARQUET) {
        pm_pq_writer_options po;
        pm_pq_writer_options_default(&po);
        PM_TRY_GOTO(e, pm_fileio_local_new(&s->fio), done);
        PM_TRY_GOTO(e, pm_output_create(s->fio, outpath, false, &s->out), done);
        PM_TRY_GOTO(e, pm_pq_writer_new(&s->pq, s->out, type, &po), done);
    }
    PM_TRY_GOTO(e, sink_header(s, type), done);
    int64_t total = 0;
    while (limit < 0 || total < limit) {
        const pm_batch *b = NULL;
        PM_TRY_GOTO(e, pm_table_reader_next(rd, &b), done);
        if (!b)
            break;
        int64_t rows = b->num_rows;
        if (limit >= 0 && rows > limit - total)
            rows = limit - total;
        PM_TRY_GOTO(e, sink_write(s, b, rows), done);
        total += rows;
    }
    if (s->fmt == OUT_PARQUET) {
        e = pm_pq_writer_close(s->pq, NULL);
        s->pq = NULL;
        if (e)
            pm_output_abort(s->out);
        else
            e = pm_output_close(s->out, true);
        s->out = NULL;
    }
done:
    pm_table_reader_free(rd);
    pm_scan_result_free(scan);
    pm_table_free(t);
    return e;
}

static int parse_i64(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < 0)
        return -1;
    *out = v;
    return 0;
}

int pm_cmd_read(int argc, char **argv)
{
    if (pm_cli_wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    pm_cli_table_args ta = {0};
    const char *output = NULL, *format = "jsonl";
    char *colbuf = NULL;
    char **cols = NULL;
    size_t ncols = 0;
    int64_t limit = -1;
    int rc = 2;
    sink s = {0};
    char *tmp = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool v = i + 1 < argc;
        if (!strcmp(a, "--columns") && v) {
            free(colbuf);
            free(cols);
            cols = NULL;
            ncols = 0;
            colbuf = strdup(argv[++i]);
            if (!colbuf)
                goto oom;
            cols = calloc(strlen(colbuf) / 2 + 2, sizeof *cols);
            if (!cols)
                goto oom;
            for (char *tok = strtok(colbuf, ","); tok; tok = strtok(NULL, ","))
                if (*tok)
                    cols[ncols++] = tok;
            if (!ncols) {
                rc = pm_cli_usage_error(CMD, "--columns needs at least one column name");
                goto done;
            }
        } else if (!strcmp(a, "--format") && v) {
            format = argv[++i];
        } else if (!strcmp(a, "--output") && v) {
            output = argv[++i];
        } else if (!strcmp(a, "--limit") && v) {
            if (parse_i64(argv[++i], &limit)) {
                rc = pm_cli_usage_error(CMD, "--limit needs a number >= 0, got '%s'", argv[i]);
                goto done;
            }
        } else if ((rc = pm_cli_table_arg(CMD, argc, argv, &i, &ta))) {
            goto done;
        }
    }
    if ((rc = pm_cli_table_args_check(CMD, &ta)))
        goto done;
    rc = 2;
    if (!strcmp(format, "jsonl") || !strcmp(format, "json")) {
        s.fmt = OUT_JSONL;
    } else if (!strcmp(format, "csv")) {
        s.fmt = OUT_CSV;
    } else if (!strcmp(format, "parquet")) {
        s.fmt = OUT_PARQUET;
        if (!output) {
            rc = pm_cli_usage_error(CMD, "--format parquet needs --output FILE");
            goto done;
        }
    } else {
        rc = pm_cli_usage_error(CMD, "unknown --format '%s' (jsonl, csv or parquet)", format);
        goto done;
    }
    if (output) {
        size_t n = strlen(output) + 64;
        tmp = malloc(n);
        if (!tmp)
            goto oom;
        snprintf(tmp, n, "%s.tmp-%ld", output, (long)getpid());
        if (s.fmt != OUT_PARQUET) {
            s.f = fopen(tmp, "wx");
            if (!s.f) {
                rc = pm_cli_fail(CMD, pm_error_new(PM_EIO, "cannot create %s: %s", tmp, strerror(errno)));
                goto done;
            }
        }
    } else {
        s.f = stdout;
    }
    pm_error *e = run(ta.table, ta.branch, ta.snapshot, cols, ncols, ta.specs, ta.nspecs, &s, limit, tmp);
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
        goto done;
    }
    rc = 0;
    goto done;
oom:
    rc = pm_cli_fail(CMD, pm_error_new(PM_ENOMEM, "out of memory"));
done:
    if (s.f && s.f != stdout)
        fclose(s.f);
    pm_pq_writer_abort(s.pq);
    pm_output_abort(s.out);
    pm_fileio_free(s.fio);
    pm_batch_free(s.slice);
    pm_buf_free(&s.line);
    pm_buf_free(&s.cell);
    pm_cli_table_args_clear(&ta);
    free(cols);
    free(colbuf);
    free(tmp);
    return rc;
}
