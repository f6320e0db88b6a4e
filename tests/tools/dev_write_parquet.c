/*
 * tests/tools/dev_write_parquet.c — `paimon-dev write-parquet`: a developer command that
 * writes JSON lines to one Parquet file with the table writer's Parquet
 * encoder (tests and benchmarks use it; tables are written with `paimon
 * write`).
 *
 *   paimon-dev write-parquet --schema 'a INT, b STRING NOT NULL' --input rows.jsonl
 *                        [-o key=value]... [--batch-rows N] [--stats] OUT
 *
 * --schema   field list or ROW<...>; field ids are numbered 0, 1, ... in
 *            pre-order over the whole tree (as Paimon assigns them)
 * --input    JSON lines, one object per row ('-' = stdin)
 * -o         a table option (file.compression, parquet.page.size, ...)
 * --batch-rows  rows per pm_batch handed to the writer (default 65536)
 * --stats    print {"rows","file_size","stats":[...]} as JSON on stdout
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/util.h"
#include "dev.h"
#include "format/parquet/parquet_writer.h"
#include "io/fileio.h"
#include "types/column.h"
#include "types/value.h"

#define CMD "write-parquet"

typedef struct kv_opts {
    char **keys, **values;
    size_t n;
} kv_opts;

static const char *lookup(void *ctx, const char *key)
{
    const kv_opts *o = ctx;
    const char *v = NULL;
    for (size_t i = 0; i < o->n; i++)
        if (!strcmp(o->keys[i], key))
            v = o->values[i];
    return v;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: paimon-dev " CMD " --schema FIELDS --input FILE.jsonl [-o key=value]...\n"
               "                             [--batch-rows N] [--stats] OUT.parquet\n\n"
               "Write JSON lines to one Parquet file as Paimon would (developer command).\n");
}

static pm_error *read_input(const char *path, pm_buf *out)
{
    if (strcmp(path, "-")) {
        pm_fileio *fio;
        PM_TRY(pm_fileio_local_new(&fio));
        pm_error *e = pm_fileio_read_file(fio, path, out);
        pm_fileio_free(fio);
        return e;
    }
    char tmp[65536];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, stdin)) > 0)
        PM_TRY(pm_buf_append(out, tmp, n));
    if (ferror(stdin))
        return pm_error_new(PM_EIO, "read stdin: %s", strerror(errno));
    return NULL;
}

static json_t *real_value(double d)
{
    if (isnan(d))
        return json_string("NaN");
    if (isinf(d))
        return json_string(d > 0 ? "Infinity" : "-Infinity");
    return json_real(d);
}

static json_t *stat_value(const pm_type *t, const pm_pq_value *v)
{
    switch (t->id) {
    case PM_TYPE_BOOLEAN:
        return json_boolean(v->b);
    case PM_TYPE_FLOAT:
        return real_value(v->f);
    case PM_TYPE_DOUBLE:
        return real_value(v->d);
    case PM_TYPE_DECIMAL: {
        pm_buf b = PM_BUF_INIT;
        const char *s;
        json_t *j = NULL;
        if (!pm_decimal_format(&b, v->dec, t->scale) && !pm_buf_cstr(&b, &s))
            j = json_string(s);
        pm_buf_free(&b);
        return j;
    }
    case PM_TYPE_CHAR:
    case PM_TYPE_VARCHAR:
        return json_stringn_nocheck((const char *)v->bytes.data, v->bytes.len);
    case PM_TYPE_BINARY:
    case PM_TYPE_VARBINARY:
    case PM_TYPE_BLOB: {
        pm_buf b = PM_BUF_INIT;
        const char *s;
        json_t *j = NULL;
        if (!pm_base64_encode(&b, v->bytes.data, v->bytes.len) && !pm_buf_cstr(&b, &s))
            j = json_string(s);
        pm_buf_free(&b);
        return j;
    }
    default:
        return json_integer(v->i);
    }
}

static int print_stats(const pm_type *row, const pm_pq_write_result *r)
{
    json_t *o = json_object(), *arr = json_array();
    json_object_set_new(o, "rows", json_integer(r->row_count));
    json_object_set_new(o, "file_size", json_integer((json_int_t)r->file_size));
    for (size_t i = 0; i < r->ncolumns; i++) {
        const pm_pq_column_stats *s = &r->stats[i];
        json_t *c = json_object();
        json_object_set_new(c, "name", json_string(row->fields[i].name));
        if (s->has_stats) {
            json_object_set_new(c, "null_count", json_integer(s->null_count));
            if (s->has_min_max) {
                json_object_set_new(c, "min", stat_value(row->fields[i].type, &s->min));
                json_object_set_new(c, "max", stat_value(row->fields[i].type, &s->max));
            }
        }
        json_array_append_new(arr, c);
    }
    json_object_set_new(o, "stats", arr);
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!text)
        return 1;
    printf("%s\n", text);
    free(text);
    return 0;
}

int pm_cmd_write_parquet(int argc, char **argv)
{
    if (pm_dev_wants_help(argc, argv)) {
        usage(stdout);
        return 0;
    }
    const char *schema = NULL, *input = NULL, *outpath = NULL;
    long long batch_rows = 65536;
    bool want_stats = false;
    kv_opts kv = {0};
    int rc = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "--schema") || !strcmp(a, "--input") || !strcmp(a, "-o") ||
             !strcmp(a, "--option") || !strcmp(a, "--batch-rows")) && i + 1 >= argc) {
            rc = pm_dev_usage_error(CMD, "%s needs a value", a);
            goto done;
        }
        if (!strcmp(a, "--schema")) {
            schema = argv[++i];
        } else if (!strcmp(a, "--input")) {
            input = argv[++i];
        } else if (!strcmp(a, "--stats")) {
            want_stats = true;
        } else if (!strcmp(a, "--batch-rows")) {
            char *end;
            batch_rows = strtoll(argv[++i], &end, 10);
            if (*end || batch_rows <= 0) {
                rc = pm_dev_usage_error(CMD, "--batch-rows needs a positive integer");
                goto done;
            }
        } else if (!strcmp(a, "-o") || !strcmp(a, "--option")) {
            const char *s = argv[++i], *eq = strchr(s, '=');
            if (!eq) {
                rc = pm_dev_usage_error(CMD, "option '%s' is not key=value", s);
                goto done;
            }
            char **k = realloc(kv.keys, (kv.n + 1) * sizeof *k);
            if (k)
                kv.keys = k;
            char **v = realloc(kv.values, (kv.n + 1) * sizeof *v);
            if (v)
                kv.values = v;
            if (!k || !v) {
                rc = pm_dev_fail(CMD, pm_error_new(PM_ENOMEM, "out of memory"));
                goto done;
            }
            kv.keys[kv.n] = strndup(s, (size_t)(eq - s));
            kv.values[kv.n] = strdup(eq + 1);
            kv.n++;
        } else if (a[0] == '-' && a[1]) {
            rc = pm_dev_usage_error(CMD, "unknown option '%s'", a);
            goto done;
        } else if (!outpath) {
            outpath = a;
        } else {
            rc = pm_dev_usage_error(CMD, "unexpected argument '%s'", a);
            goto done;
        }
    }
    if (!schema || !input || !outpath) {
        rc = pm_dev_usage_error(CMD, "--schema, --input and an output path are required");
        goto done;
    }

    pm_error *e = NULL;
    pm_type *row = NULL;
    pm_buf text = PM_BUF_INIT;
    pm_fileio *fio = NULL;
    pm_output *out = NULL;
    pm_pq_writer *w = NULL;
    pm_batch *batch = NULL;
    pm_pq_write_result res = {0};
    pm_pq_writer_options opts;
    pm_pq_writer_options_default(&opts);

    pm_buf st = PM_BUF_INIT;
    const char *s;
    bool wrapped = strncmp(schema, "ROW<", 4) != 0;
    PM_TRY_GOTO(e, pm_buf_printf(&st, wrapped ? "ROW<%s>" : "%s", schema), fail);
    PM_TRY_GOTO(e, pm_buf_cstr(&st, &s), fail);
    PM_TRY_GOTO(e, pm_type_parse(&row, s), fail);
    if (row->id != PM_TYPE_ROW) {
        e = pm_error_new(PM_EINVALID, "schema must be a ROW");
        goto fail;
    }
    row->nullable = false;
    PM_TRY_GOTO(e, pm_pq_writer_options_from_table(&opts, lookup, &kv), fail);
    PM_TRY_GOTO(e, read_input(input, &text), fail);
    PM_TRY_GOTO(e, pm_fileio_local_new(&fio), fail);
    PM_TRY_GOTO(e, pm_output_create(fio, outpath, true, &out), fail);
    PM_TRY_GOTO(e, pm_pq_writer_new(&w, out, row, &opts), fail);

    /* Feed batch_rows lines at a time. */
    const char *p = (const char *)text.data, *end = p + text.len;
    while (p < end) {
        const char *q = p;
        long long lines = 0;
        while (q < end && lines < batch_rows) {
            const char *nl = memchr(q, '\n', (size_t)(end - q));
            q = nl ? nl + 1 : end;
            lines++;
        }
        PM_TRY_GOTO(e, pm_batch_from_json_lines(&batch, row, p, (size_t)(q - p)), fail);
        PM_TRY_GOTO(e, pm_pq_writer_write(w, batch), fail);
        pm_batch_free(batch);
        batch = NULL;
        p = q;
    }
    e = pm_pq_writer_close(w, &res);
    w = NULL;
    if (e)
        goto fail;
    PM_TRY_GOTO(e, pm_output_close(out, false), fail);
    out = NULL;
    rc = want_stats ? print_stats(row, &res) : 0;
fail:
    if (e)
        rc = pm_dev_fail(CMD, e);
    pm_pq_write_result_free(&res);
    pm_batch_free(batch);
    pm_pq_writer_abort(w);
    pm_output_abort(out);
    pm_fileio_free(fio);
    pm_buf_free(&text);
    pm_buf_free(&st);
    pm_type_free(row);
done:
    for (size_t i = 0; i < kv.n; i++) {
        free(kv.keys[i]);
        free(kv.values[i]);
    }
    free(kv.keys);
    free(kv.values);
    return rc;
}
