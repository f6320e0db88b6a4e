/*
 * cli/cmd_write.c — `paimon write`: append (or overwrite) rows into a
 * table with one commit per invocation.
 *
 *   paimon write TABLE [--input FILE|-] [--input-format jsonl|csv|parquet]
 *                [--overwrite [--partition k=v[,k2=v2]]...]
 *                [--commit-user U] [--commit-identifier N] [--batch-rows N]
 *
 * Input formats (default: by the file's extension, else jsonl):
 *   jsonl    one JSON object per line, keys = column names, values in the
 *            `paimon cat` encoding (types/value.h); missing keys are null
 *   csv      a header row of column names, then one row per record
 *            (RFC 4180 quoting); an empty unquoted cell is null, "" is an
 *            empty string; cells use the text forms of types/value.h
 *   parquet  columns mapped to table fields by name (types must match)
 * Unknown columns are errors; NOT NULL columns must be present.
 * The input streams through in batches of --batch-rows rows (default
 * 65536), so memory does not grow with the input.  Steps: open the table,
 * write every batch (data files are private until the commit), commit
 * (APPEND, or OVERWRITE of the whole table / the --partition specs).  On
 * any error before the commit the written files are removed; a failed
 * commit removes its files too, except when its outcome is uncertain
 * (then the files are kept so that re-running with the same
 * --commit-user/--commit-identifier completes it exactly once).
 * Prints "snapshot N: R rows in F files" (or "nothing to commit").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "cli.h"
#include "format/parquet/parquet_reader.h"
#include "table/partition.h"
#include "table/table_commit.h"
#include "table/table_write.h"
#include "types/column.h"
#include "types/value.h"

#define CMD "write"

typedef enum { IN_JSONL, IN_CSV, IN_PARQUET } input_format;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: paimon write TABLE [--input FILE|-] [--input-format jsonl|csv|parquet]\n"
            "                    [--overwrite [--partition k=v[,k2=v2]]...]\n"
            "                    [--commit-user U] [--commit-identifier N] [--batch-rows N]\n\n"
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
            "  --batch-rows N        rows per batch handed to the writer (default 65536)\n");
}

typedef struct write_job {
    pm_table *t;
    pm_table_writer *w;
    int64_t rows;
    int64_t batch_rows;
} write_job;

static pm_error *write_batch(write_job *j, pm_batch *b)
{
    PM_TRY(pm_table_writer_write(j->w, b));
    j->rows += pm_batch_num_rows(b);
    return NULL;
}

/* ---- JSON lines ---- */

/* A block of lines failed to parse: parse it again behind first-1 empty
 * lines (which the parser skips but counts), so that the error names the
 * line number of the whole input. */
static pm_error *reparse_for_line_numbers(const pm_type *rt, const pm_buf *block, int64_t first, pm_error *orig)
{
    pm_buf again = PM_BUF_INIT;
    pm_error *e = NULL;
    if (!pm_buf_reserve(&again, (size_t)(first - 1) + block->len)) {
        memset(again.data, '\n', (size_t)(first - 1));
        again.len = (size_t)(first - 1);
        if (!pm_buf_append(&again, block->data, block->len)) {
            pm_batch *b = NULL;
            e = pm_batch_from_json_lines(&b, rt, (const char *)again.data, again.len);
            pm_batch_free(b);
        }
    }
    pm_buf_free(&again);
    if (!e)
        return pm_error_wrap(orig, 0, "input lines from %lld", (long long)first);
    pm_error_free(orig);
    return pm_error_wrap(e, 0, "input");
}

static pm_error *feed_jsonl(write_job *j, FILE *in)
{
    const pm_type *rt = pm_table_schema(j->t)->row_type;
    pm_buf block = PM_BUF_INIT;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int64_t lines = 0, first = 1, lineno = 0;
    pm_error *e = NULL;
    for (;;) {
        n = getline(&line, &cap, in);
        if (n >= 0) {
            lineno++;
            PM_TRY_GOTO(e, pm_buf_append(&block, line, (size_t)n), done);
            if (n == 0 || line[n - 1] != '\n')
                PM_TRY_GOTO(e, pm_buf_append_byte(&block, '\n'), done);
            lines++;
        }
        bool flush = n < 0 ? lines > 0 : (lines >= j->batch_rows || block.len >= (32u << 20));
        if (flush) {
            pm_batch *b = NULL;
            e = pm_batch_from_json_lines(&b, rt, (const char *)block.data, block.len);
            if (e) {
                e = reparse_for_line_numbers(rt, &block, first, e);
                goto done;
            }
            e = write_batch(j, b);
            pm_batch_free(b);
            if (e)
                goto done;
            pm_buf_clear(&block);
            lines = 0;
            first = lineno + 1;
        }
        if (n < 0)
            break;
    }
    if (ferror(in))
        e = pm_error_new(PM_EIO, "read input: %s", strerror(errno));
done:
    free(line);
    pm_buf_free(&block);
    return e;
}

/* ---- CSV ---- */

typedef struct csv_cell {
    size_t off, len;   /* into the unescaped buffer */
    bool quoted;
} csv_cell;

typedef struct csv_reader {
    FILE *in;
    char *line;
    size_t cap;
    pm_buf rec;        /* raw record (may span lines inside quotes) */
    pm_buf text;       /* unescaped cell bytes */
    csv_cell *cells;
    size_t ncells, capcells;
    int64_t lineno;
} csv_reader;

static pm_error *csv_push(csv_reader *r, size_t off, size_t len, bool quoted)
{
    if (r->ncells == r->capcells) {
        size_t cap = r->capcells ? r->capcells * 2 : 16;
        csv_cell *c = realloc(r->cells, cap * sizeof *c);
        if (!c)
            return pm_error_new(PM_ENOMEM, "out of memory");
        r->cells = c;
        r->capcells = cap;
    }
    r->cells[r->ncells++] = (csv_cell){off, len, quoted};
    return NULL;
}

/* Read the next record into r->cells; *eof when the input is exhausted. */
static pm_error *csv_next(csv_reader *r, bool *eof)
{
    *eof = false;
    pm_buf_clear(&r->rec);
    bool in_quotes = false;
    int64_t start = r->lineno + 1;
    for (;;) {
        ssize_t n = getline(&r->line, &r->cap, r->in);
        if (n < 0) {
            if (ferror(r->in))
                return pm_error_new(PM_EIO, "read input: %s", strerror(errno));
            if (in_quotes)
                return pm_error_new(PM_EINVALID, "CSV line %lld: unterminated quoted field", (long long)start);
            if (r->rec.len == 0) {
                *eof = true;
                return NULL;
            }
            break;
        }
        r->lineno++;
        PM_TRY(pm_buf_append(&r->rec, r->line, (size_t)n));
        for (ssize_t i = 0; i < n; i++)
            if (r->line[i] == '"')
                in_quotes = !in_quotes;
        if (!in_quotes)
            break;
    }
    /* strip the line end */
    size_t len = r->rec.len;
    if (len && r->rec.data[len - 1] == '\n')
        len--;
    if (len && r->rec.data[len - 1] == '\r')
        len--;
    pm_buf_clear(&r->text);
    r->ncells = 0;
    const char *p = (const char *)r->rec.data;
    size_t i = 0;
    for (;;) {
        size_t off = r->text.len;
        bool quoted = false;
        if (i < len && p[i] == '"') {
            quoted = true;
            i++;
            for (;;) {
                if (i >= len)
                    return pm_error_new(PM_EINVALID, "CSV line %lld: unterminated quoted field", (long long)start);
                if (p[i] == '"') {
                    if (i + 1 < len && p[i + 1] == '"') {
                        PM_TRY(pm_buf_append_byte(&r->text, '"'));
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                PM_TRY(pm_buf_append_byte(&r->text, (uint8_t)p[i]));
                i++;
            }
            if (i < len && p[i] != ',')
                return pm_error_new(PM_EINVALID, "CSV line %lld: text after a closing quote", (long long)start);
        } else {
            size_t s = i;
            while (i < len && p[i] != ',') {
                if (p[i] == '"')
                    return pm_error_new(PM_EINVALID, "CSV line %lld: quote inside an unquoted field",
                                        (long long)start);
                i++;
            }
            PM_TRY(pm_buf_append(&r->text, p + s, i - s));
        }
        PM_TRY(csv_push(r, off, r->text.len - off, quoted));
        if (i >= len)
            break;
        i++; /* the comma */
    }
    return NULL;
}

static pm_error *feed_csv(write_job *j, FILE *in)
{
    const pm_type *rt = pm_table_schema(j->t)->row_type;
    csv_reader r = {0};
    r.in = in;
    pm_error *e = NULL;
    pm_type *row = NULL;
    pm_batch *b = NULL;
    size_t ncols = 0;
    bool eof;
    PM_TRY_GOTO(e, csv_next(&r, &eof), done);
    if (eof)
        goto done; /* empty input */
    ncols = r.ncells;
    row = pm_type_new_row(false);
    if (!row) {
        e = pm_error_new(PM_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t c = 0; c < ncols; c++) {
        char *name = strndup((const char *)r.text.data + r.cells[c].off, r.cells[c].len);
        if (!name) {
            e = pm_error_new(PM_ENOMEM, "out of memory");
            goto done;
        }
        ptrdiff_t k = pm_type_field_index(rt, name);
        if (k < 0) {
            e = pm_error_new(PM_EINVALID, "CSV header: unknown column '%s' (not a field of the table)", name);
            free(name);
            goto done;
        }
        if (pm_type_field_index(row, name) >= 0) {
            e = pm_error_new(PM_EINVALID, "CSV header: column '%s' appears twice", name);
            free(name);
            goto done;
        }
        pm_type *ft = pm_type_clone(rt->fields[k].type);
        e = ft ? pm_type_add_field(row, rt->fields[k].id, name, ft) : pm_error_new(PM_ENOMEM, "out of memory");
        free(name);
        if (e)
            goto done;
    }
    PM_TRY_GOTO(e, pm_batch_new(&b, row), done);
    int64_t nrows = 0;
    for (;;) {
        PM_TRY_GOTO(e, csv_next(&r, &eof), done);
        if (!eof) {
            if (r.ncells == 1 && r.cells[0].len == 0 && !r.cells[0].quoted && ncols != 1)
                continue; /* blank line */
            if (r.ncells != ncols) {
                e = pm_error_new(PM_EINVALID, "CSV line %lld: %zu cells, the header has %zu", (long long)r.lineno,
                                 r.ncells, ncols);
                goto done;
            }
            for (size_t c = 0; c < ncols; c++) {
                pm_column *col = pm_batch_column(b, c);
                const csv_cell *cell = &r.cells[c];
                pm_error *ce = !cell->len && !cell->quoted
                                   ? pm_column_append_null(col)
                                   : pm_column_append_text(col, (const char *)r.text.data + cell->off, cell->len);
                if (ce) {
                    e = pm_error_wrap(ce, 0, "CSV line %lld, column '%s'", (long long)r.lineno,
                                      row->fields[c].name);
                    goto done;
                }
            }
            nrows++;
        }
        if ((eof && nrows) || nrows >= j->batch_rows) {
            PM_TRY_GOTO(e, pm_batch_finish(b, nrows), done);
            PM_TRY_GOTO(e, write_batch(j, b), done);
            PM_TRY_GOTO(e, pm_batch_reset(b), done);
            nrows = 0;
        }
        if (eof)
            break;
    }
done:
    pm_batch_free(b);
    pm_type_free(row);
    free(r.line);
    free(r.cells);
    pm_buf_free(&r.rec);
    pm_buf_free(&r.text);
    return e;
}

/* ---- Parquet ---- */

static pm_error *feed_parquet(write_job *j, const char *path)
{
    if (!strcmp(path, "-"))
        return pm_error_new(PM_EINVALID, "Parquet input needs a file (--input FILE), not stdin");
    pm_fileio *fio = NULL;
    pm_input *in = NULL;
    pm_pq_reader *r = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_fileio_local_new(&fio), done);
    PM_TRY_GOTO(e, pm_input_open(fio, path, &in), done);
    pm_pq_reader_options o = PM_PQ_READER_OPTIONS_INIT;
    o.batch_rows = j->batch_rows;
    PM_TRY_GOTO(e, pm_pq_reader_open(&r, in, &o), done);
    for (;;) {
        pm_batch *b = NULL;
        PM_TRY_GOTO(e, pm_pq_reader_next_batch(r, &b), done);
        if (!b)
            break;
        PM_TRY_GOTO(e, write_batch(j, b), done);
    }
done:
    pm_pq_reader_free(r);
    pm_input_close(in);
    pm_fileio_free(fio);
    return e ? pm_error_wrap(e, 0, "Parquet input %s", path) : NULL;
}

/* ---- the command ---- */

static void delete_message_files(pm_table *t, const pm_commit_message *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *dir = NULL;
        pm_error *e = pm_table_bucket_dir(t, m[i].partition.data, m[i].partition.len, m[i].bucket, &dir);
        if (e) {
            pm_error_free(e);
            continue;
        }
        for (size_t k = 0; k < m[i].n_new_files; k++) {
            char *p = pm_path_join(dir, m[i].new_files[k].file_name);
            if (p)
                pm_error_free(pm_fileio_delete(t->fio, p));
            free(p);
        }
        free(dir);
    }
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcasecmp(s + a - b, suffix);
}

int pm_cmd_write(int argc, char **argv)
{
    if (pm_cli_wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    const char *table = NULL, *input = "-", *format = NULL, *user = NULL;
    bool overwrite = false;
    int64_t ident = PM_BATCH_COMMIT_IDENTIFIER, batch_rows = 65536;
    pm_partition_spec *specs = NULL;
    size_t nspecs = 0;
    int rc = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool needs = !strcmp(a, "--input") || !strcmp(a, "--input-format") || !strcmp(a, "--partition") ||
                     !strcmp(a, "--commit-user") || !strcmp(a, "--commit-identifier") || !strcmp(a, "--batch-rows");
        if (needs && i + 1 >= argc) {
            rc = pm_cli_usage_error(CMD, "%s needs a value", a);
            goto out;
        }
        if (!strcmp(a, "--input")) {
            input = argv[++i];
        } else if (!strcmp(a, "--input-format")) {
            format = argv[++i];
        } else if (!strcmp(a, "--overwrite")) {
            overwrite = true;
        } else if (!strcmp(a, "--partition")) {
            pm_partition_spec *s = realloc(specs, (nspecs + 1) * sizeof *s);
            if (!s) {
                rc = pm_cli_fail(CMD, pm_error_new(PM_ENOMEM, "out of memory"));
                goto out;
            }
            specs = s;
            pm_error *e = pm_partition_spec_parse(argv[++i], &specs[nspecs]);
            if (e) {
                rc = pm_cli_fail(CMD, e);
                goto out;
            }
            nspecs++;
        } else if (!strcmp(a, "--commit-user")) {
            user = argv[++i];
        } else if (!strcmp(a, "--commit-identifier") || !strcmp(a, "--batch-rows")) {
            const char *v = argv[++i];
            char *end;
            errno = 0;
            long long x = strtoll(v, &end, 10);
            if (!*v || *end || errno) {
                rc = pm_cli_usage_error(CMD, "%s needs an integer, got '%s'", a, v);
                goto out;
            }
            if (!strcmp(a, "--batch-rows")) {
                if (x <= 0) {
                    rc = pm_cli_usage_error(CMD, "--batch-rows must be positive");
                    goto out;
                }
                batch_rows = x;
            } else {
                ident = x;
            }
        } else if (a[0] == '-' && a[1]) {
            rc = pm_cli_usage_error(CMD, "unknown option '%s'", a);
            goto out;
        } else if (!table) {
            table = a;
        } else {
            rc = pm_cli_usage_error(CMD, "unexpected argument '%s'", a);
            goto out;
        }
    }
    if (!table) {
        rc = pm_cli_usage_error(CMD, "TABLE is required");
        goto out;
    }
    if (nspecs && !overwrite) {
        rc = pm_cli_usage_error(CMD, "--partition only applies with --overwrite");
        goto out;
    }
    input_format fmt;
    if (!format)
        fmt = ends_with(input, ".csv") ? IN_CSV : ends_with(input, ".parquet") ? IN_PARQUET : IN_JSONL;
    else if (!strcmp(format, "jsonl") || !strcmp(format, "json"))
        fmt = IN_JSONL;
    else if (!strcmp(format, "csv"))
        fmt = IN_CSV;
    else if (!strcmp(format, "parquet"))
        fmt = IN_PARQUET;
    else {
        rc = pm_cli_usage_error(CMD, "unknown --input-format '%s' (jsonl, csv, parquet)", format);
        goto out;
    }

    pm_error *e = NULL;
    write_job j = {NULL, NULL, 0, batch_rows};
    FILE *in = NULL;
    pm_commit_message *msgs = NULL;
    size_t nmsgs = 0;
    int64_t snapshot = 0;
    PM_TRY_GOTO(e, pm_table_open(&j.t, table, NULL), fail);
    if (user) {
        /* already committed by an earlier run: nothing to write */
        PM_TRY_GOTO(e, pm_table_commit_find(j.t, user, ident, 0, &snapshot), fail);
        if (snapshot) {
            printf("snapshot %lld: already committed by %s with identifier %lld\n", (long long)snapshot, user,
                   (long long)ident);
            rc = 0;
            goto fail;
        }
    }
    pm_table_write_options wo = {0, overwrite};
    PM_TRY_GOTO(e, pm_table_writer_new(&j.w, j.t, &wo), fail);
    if (fmt != IN_PARQUET) {
        in = strcmp(input, "-") ? fopen(input, "rb") : stdin;
        if (!in) {
            e = pm_error_new(errno == ENOENT ? PM_ENOTFOUND : PM_EIO, "open input %s: %s", input, strerror(errno));
            goto fail;
        }
    }
    if (fmt == IN_JSONL)
        PM_TRY_GOTO(e, feed_jsonl(&j, in), fail);
    else if (fmt == IN_CSV)
        PM_TRY_GOTO(e, feed_csv(&j, in), fail);
    else
        PM_TRY_GOTO(e, feed_parquet(&j, input), fail);
    PM_TRY_GOTO(e, pm_table_writer_prepare_commit(j.w, &msgs, &nmsgs), fail);
    pm_commit_options co = {0};
    co.commit_user = user;
    co.commit_identifier = ident;
    co.kind = overwrite ? PM_COMMIT_OVERWRITE : PM_COMMIT_APPEND;
    co.overwrite = nspecs ? specs : NULL;
    co.noverwrite = nspecs;
    e = pm_table_commit(j.t, &co, msgs, nmsgs, &snapshot);
    if (e) {
        if (pm_error_code(e) != PM_EUNCERTAIN)
            delete_message_files(j.t, msgs, nmsgs);
        goto fail;
    }
    size_t files = 0;
    for (size_t i = 0; i < nmsgs; i++)
        files += msgs[i].n_new_files;
    if (snapshot)
        printf("snapshot %lld: %lld rows in %zu files\n", (long long)snapshot, (long long)j.rows, files);
    else
        printf("nothing to commit\n");
    rc = 0;
fail:
    if (e) {
        rc = pm_cli_fail(CMD, e);
        pm_table_writer_abort(j.w); /* removes files not handed out */
        j.w = NULL;
    }
    if (in && in != stdin)
        fclose(in);
    pm_commit_messages_free(msgs, nmsgs);
    pm_table_writer_free(j.w);
    pm_table_free(j.t);
out:
    for (size_t i = 0; i < nspecs; i++)
        pm_partition_spec_clear(&specs[i]);
    free(specs);
    return rc;
}
