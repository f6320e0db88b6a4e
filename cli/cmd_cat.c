/*
 * cli/cmd_cat.c — `paimon cat FILE [--columns a,b] [--limit N]`: print the
 * rows of a data file as JSON lines, one object per row, in the value
 * encoding of pm_batch_format_row_json (types/value.h).
 *
 * Formats plug in through the table below: each has a name, a detector
 * that looks at the file's first and last bytes (magic numbers), and
 * open / next-batch / close functions over a pm_input.  The first format
 * whose detector accepts the file reads it.  Parquet: "PAR1" at both ends.
 * Avro object container: "Obj\x01" at the start; rows are read with the
 * file's own schema mapped to Paimon types (pm_avro_schema_to_type),
 * projected to --columns.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "cli.h"
#include "format/avro/avro.h"
#include "format/parquet/parquet_reader.h"
#include "io/fileio.h"
#include "types/column.h"

#define CMD "cat"

typedef struct cat_options {
    const char *const *columns;   /* NULL = all */
    size_t ncolumns;
    int64_t batch_rows;
} cat_options;

typedef struct cat_format {
    const char *name;
    /* head/tail: up to 16 first and last bytes of the file. */
    bool (*detect)(const uint8_t *head, size_t nhead, const uint8_t *tail, size_t ntail);
    pm_error *(*open)(void **state, pm_input *in, const cat_options *o);
    /* *out = NULL at the end; the batch is owned by the reader. */
    pm_error *(*next)(void *state, pm_batch **out);
    void (*close)(void *state);
} cat_format;

/* ---- Parquet ---- */

static bool pq_detect(const uint8_t *head, size_t nhead, const uint8_t *tail, size_t ntail)
{
    return nhead >= 4 && !memcmp(head, "PAR1", 4) && ntail >= 4 &&
           (!memcmp(tail + ntail - 4, "PAR1", 4) || !memcmp(tail + ntail - 4, "PARE", 4));
}

static pm_error *pq_open(void **state, pm_input *in, const cat_options *o)
{
    pm_pq_reader_options ro = PM_PQ_READER_OPTIONS_INIT;
    ro.columns = o->columns;
    ro.ncolumns = o->ncolumns;
    ro.batch_rows = o->batch_rows;
    pm_pq_reader *r;
    PM_TRY(pm_pq_reader_open(&r, in, &ro));
    *state = r;
    return NULL;
}

static pm_error *pq_next(void *state, pm_batch **out)
{
    return pm_pq_reader_next_batch(state, out);
}

static void pq_close(void *state)
{
    pm_pq_reader_free(state);
}

/* ---- Avro ---- */

static bool avro_detect(const uint8_t *head, size_t nhead, const uint8_t *tail, size_t ntail)
{
    (void)tail;
    (void)ntail;
    return nhead >= 4 && !memcmp(head, "Obj\x01", 4);
}

/* The file's row type, keeping only `columns` (in that order) when given. */
static pm_error *avro_row_type(pm_input *in, const cat_options *o, pm_type **out)
{
    *out = NULL;
    pm_avro_file *f;
    PM_TRY(pm_avro_file_open(in, NULL, &f));
    pm_type *all = NULL;
    pm_error *e = pm_avro_schema_to_type(pm_avro_file_schema(f)->root, &all);
    pm_avro_file_close(f);
    if (e || !o->columns) {
        *out = all;
        return e;
    }
    if (all->id != PM_TYPE_ROW) {
        pm_type_free(all);
        return pm_error_new(PM_EUNSUPPORTED, "avro file schema is not a record");
    }
    pm_type *row = pm_type_new_row(all->nullable);
    if (!row)
        e = pm_error_new(PM_ENOMEM, "out of memory");
    for (size_t i = 0; !e && i < o->ncolumns; i++) {
        ptrdiff_t k = pm_type_field_index(all, o->columns[i]);
        if (k < 0) {
            e = pm_error_new(PM_EINVALID, "column '%s' is not in the file", o->columns[i]);
            break;
        }
        pm_type *ft = pm_type_clone(all->fields[k].type);
        e = ft ? pm_type_add_field(row, all->fields[k].id, all->fields[k].name, ft)
               : pm_error_new(PM_ENOMEM, "out of memory");
    }
    pm_type_free(all);
    if (e) {
        pm_type_free(row);
        return e;
    }
    *out = row;
    return NULL;
}

static pm_error *avro_open(void **state, pm_input *in, const cat_options *o)
{
    pm_type *t;
    PM_TRY(avro_row_type(in, o, &t));
    pm_avro_read_options ro = {o->batch_rows, 0};
    pm_avro_reader *r;
    pm_error *e = pm_avro_reader_open(in, t, &ro, &r);
    pm_type_free(t);
    PM_TRY(e);
    *state = r;
    return NULL;
}

static pm_error *avro_next(void *state, pm_batch **out)
{
    return pm_avro_reader_next(state, out);
}

static void avro_close(void *state)
{
    pm_avro_reader_free(state);
}

static const cat_format formats[] = {
    {"parquet", pq_detect, pq_open, pq_next, pq_close},
    {"avro", avro_detect, avro_open, avro_next, avro_close},
};

/* ---- command ---- */

static void usage(FILE *f)
{
    fprintf(f, "usage: paimon " CMD " FILE [--columns a,b,...] [--limit N]\n\n"
               "Print the rows of a data file (Parquet or Avro) as JSON lines.\n\n"
               "  --columns a,b   only these top-level columns, in this order\n"
               "  --limit N       stop after N rows\n"
               "\nValues: numbers, \"NaN\"/\"Infinity\" strings, base64 bytes, decimal strings,\n"
               "ISO dates/times/timestamps, arrays, maps as [{\"key\":..,\"value\":..}], rows as objects.\n");
}

static pm_error *split_columns(char *list, char ***out, size_t *n)
{
    size_t cap = 1;
    for (char *p = list; *p; p++)
        cap += *p == ',';
    char **v = calloc(cap, sizeof *v);
    if (!v)
        return pm_error_new(PM_ENOMEM, "out of memory");
    size_t k = 0;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ","))
        if (*tok)
            v[k++] = tok;
    if (k == 0) {
        free(v);
        return pm_error_new(PM_EINVALID, "--columns needs at least one column name");
    }
    *out = v;
    *n = k;
    return NULL;
}

static pm_error *detect(pm_input *in, const cat_format **fmt)
{
    uint64_t size = pm_input_size(in);
    uint8_t head[16], tail[16];
    size_t nh = size < 16 ? (size_t)size : 16, nt = nh;
    if (nh)
        PM_TRY(pm_input_read_at(in, 0, head, nh));
    if (nt)
        PM_TRY(pm_input_read_at(in, size - nt, tail, nt));
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (formats[i].detect(head, nh, tail, nt)) {
            *fmt = &formats[i];
            return NULL;
        }
    return pm_error_new(PM_EUNSUPPORTED, "file %s: unknown data file format (no Parquet or Avro magic)", pm_input_path(in));
}

static pm_error *run(const char *path, const cat_options *o, int64_t limit)
{
    pm_fileio *fio = NULL;
    pm_input *in = NULL;
    const cat_format *fmt = NULL;
    void *st = NULL;
    pm_buf line = PM_BUF_INIT;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_fileio_local_new(&fio), done);
    PM_TRY_GOTO(e, pm_input_open(fio, path, &in), done);
    PM_TRY_GOTO(e, detect(in, &fmt), done);
    PM_TRY_GOTO(e, fmt->open(&st, in, o), done);
    int64_t printed = 0;
    while (limit < 0 || printed < limit) {
        pm_batch *b;
        PM_TRY_GOTO(e, fmt->next(st, &b), done);
        if (!b)
            break;
        int64_t n = pm_batch_num_rows(b);
        for (int64_t i = 0; i < n && (limit < 0 || printed < limit); i++, printed++) {
            pm_buf_clear(&line);
            PM_TRY_GOTO(e, pm_batch_format_row_json(b, i, &line), done);
            PM_TRY_GOTO(e, pm_buf_append_byte(&line, '\n'), done);
            if (fwrite(line.data, 1, line.len, stdout) != line.len) {
                e = pm_error_new(PM_EIO, "writing to stdout: %s", strerror(errno));
                goto done;
            }
        }
    }
    if (fflush(stdout) != 0)
        e = pm_error_new(PM_EIO, "writing to stdout: %s", strerror(errno));
done:
    if (st)
        fmt->close(st);
    pm_input_close(in);
    pm_fileio_free(fio);
    pm_buf_free(&line);
    return e;
}

int pm_cmd_cat(int argc, char **argv)
{
    if (pm_cli_wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    const char *path = NULL;
    char *columns = NULL;
    int64_t limit = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--columns")) {
            if (++i >= argc)
                return pm_cli_usage_error(CMD, "--columns needs a value");
            columns = argv[i];
        } else if (!strcmp(argv[i], "--limit")) {
            if (++i >= argc)
                return pm_cli_usage_error(CMD, "--limit needs a value");
            char *end;
            errno = 0;
            long long v = strtoll(argv[i], &end, 10);
            if (errno || *end || end == argv[i] || v < 0)
                return pm_cli_usage_error(CMD, "--limit needs a non-negative integer, got '%s'", argv[i]);
            limit = v;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return pm_cli_usage_error(CMD, "unknown option '%s'", argv[i]);
        } else if (!path) {
            path = argv[i];
        } else {
            return pm_cli_usage_error(CMD, "more than one FILE given");
        }
    }
    if (!path)
        return pm_cli_usage_error(CMD, "missing FILE");
    cat_options o = {NULL, 0, limit > 0 && limit < 4096 ? limit : 4096};
    char **cols = NULL;
    char *copy = NULL;
    if (columns) {
        copy = strdup(columns);
        if (!copy)
            return pm_cli_fail(CMD, pm_error_new(PM_ENOMEM, "out of memory"));
        pm_error *e = split_columns(copy, &cols, &o.ncolumns);
        if (e) {
            free(copy);
            return pm_cli_fail(CMD, e);
        }
        o.columns = (const char *const *)cols;
    }
    pm_error *e = run(path, &o, limit);
    free(cols);
    free(copy);
    if (e)
        return pm_cli_fail(CMD, e);
    return 0;
}
