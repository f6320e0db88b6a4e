/*
 * api/api_rows.c — text rows of paimon/rows.h: the reader wraps the table
 * layer's streaming JSON-lines / CSV parser (table/write_input.h); the
 * writer formats batches.
 *
 * Writer output: JSON lines are pm_batch_format_rows_json's objects, one
 * per line.  CSV: the header of column names, then one line per row; null
 * is an empty cell, an empty string is "" (quoted); strings are written
 * raw; other atomic values as their JSON text without surrounding quotes
 * (so dates, timestamps, decimals and base64 bytes read back); nested
 * values as JSON; cells holding a comma, quote, CR or LF are quoted with
 * doubled quotes.  Output is buffered and handed to the sink in chunks of
 * about 64 KiB.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/mem.h"
#include "paimon/rows.h"
#include "table/write_input.h"
#include "types/column.h"

#define FLUSH_AT (1u << 16)

pm_error *pm_rows_format_parse(pm_rows_format *out, const char *name)
{
    if (name && (!strcasecmp(name, "jsonl") || !strcasecmp(name, "json"))) {
        *out = PM_ROWS_JSONL;
        return NULL;
    }
    if (name && !strcasecmp(name, "csv")) {
        *out = PM_ROWS_CSV;
        return NULL;
    }
    return pm_error_new(PM_EINVALID, "unknown rows format '%s' (jsonl or csv)", name ? name : "(null)");
}

/* ---- reader ---- */

struct pm_rows_reader {
    pm_type *type;
    pm_text_rows *rows;
};

pm_error *pm_rows_reader_new(pm_rows_reader **out, pm_rows_format fmt, const pm_type *row_type, pm_read_fn src,
                             void *ctx, int64_t batch_rows)
{
    *out = NULL;
    if (fmt != PM_ROWS_JSONL && fmt != PM_ROWS_CSV)
        return pm_error_new(PM_EINVALID, "unknown rows format %d", (int)fmt);
    if (!row_type || row_type->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "rows need a ROW type");
    if (!src)
        return pm_error_new(PM_EINVALID, "rows need a byte source");
    if (batch_rows < 0)
        return pm_error_new(PM_EINVALID, "batch_rows %lld is negative", (long long)batch_rows);
    pm_rows_reader *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    pm_error *e = NULL;
    if (!(r->type = pm_type_clone(row_type)))
        e = pm_oom();
    if (!e)
        e = pm_text_rows_new(&r->rows, fmt == PM_ROWS_CSV ? PM_TEXT_CSV : PM_TEXT_JSONL, r->type, src, ctx,
                             batch_rows);
    if (e) {
        pm_rows_reader_free(r);
        return e;
    }
    *out = r;
    return NULL;
}

pm_error *pm_rows_reader_next(const pm_batch **out, pm_rows_reader *r)
{
    pm_batch *b = NULL;
    *out = NULL;
    PM_TRY(pm_text_rows_next(r->rows, &b));
    *out = b;
    return NULL;
}

void pm_rows_reader_free(pm_rows_reader *r)
{
    if (!r)
        return;
    pm_text_rows_free(r->rows);
    pm_type_free(r->type);
    free(r);
}

/* ---- writer ---- */

struct pm_rows_writer {
    pm_rows_format fmt;
    pm_type *type;
    pm_write_fn sink;
    void *ctx;
    pm_buf out;
    pm_buf cell;
};

static pm_error *flush(pm_rows_writer *w)
{
    if (!w->out.len)
        return NULL;
    pm_error *e = w->sink(w->ctx, w->out.data, w->out.len);
    pm_buf_clear(&w->out);
    return e;
}

static pm_error *csv_header(pm_rows_writer *w)
{
    for (size_t i = 0; i < w->type->nfields; i++) {
        if (i)
            PM_TRY(pm_buf_append_byte(&w->out, ','));
        PM_TRY(pm_buf_append_str(&w->out, w->type->fields[i].name));
    }
    return pm_buf_append_byte(&w->out, '\n');
}

pm_error *pm_rows_writer_new(pm_rows_writer **out, pm_rows_format fmt, const pm_type *row_type, pm_write_fn sink,
                             void *ctx)
{
    *out = NULL;
    if (fmt != PM_ROWS_JSONL && fmt != PM_ROWS_CSV)
        return pm_error_new(PM_EINVALID, "unknown rows format %d", (int)fmt);
    if (!row_type || row_type->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "rows need a ROW type");
    if (!sink)
        return pm_error_new(PM_EINVALID, "rows need a byte sink");
    pm_rows_writer *w;
    PM_TRY(pm_calloc(&w, 1, sizeof *w));
    w->fmt = fmt;
    w->sink = sink;
    w->ctx = ctx;
    pm_buf_init(&w->out);
    pm_buf_init(&w->cell);
    pm_error *e = NULL;
    if (!(w->type = pm_type_clone(row_type)))
        e = pm_oom();
    if (!e && fmt == PM_ROWS_CSV)
        e = csv_header(w);
    if (e) {
        pm_rows_writer_free(w);
        return e;
    }
    *out = w;
    return NULL;
}

/* One CSV cell (see the top of this file). */
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

/* The text only depends on column names and value types (not field ids or
 * nullability). */
static bool same_columns(const pm_type *a, const pm_type *b)
{
    if (a->nfields != b->nfields)
        return false;
    for (size_t i = 0; i < a->nfields; i++)
        if (strcmp(a->fields[i].name, b->fields[i].name) ||
            !pm_type_equals_ignore_nullable(a->fields[i].type, b->fields[i].type))
            return false;
    return true;
}

pm_error *pm_rows_writer_write(pm_rows_writer *w, const pm_batch *b, int64_t from, int64_t to)
{
    if (!same_columns(b->type, w->type))
        return pm_error_new(PM_EINVALID, "the batch's columns are not the rows writer's");
    if (from < 0 || to > b->num_rows || from > to)
        return pm_error_new(PM_EINVALID, "rows [%lld, %lld) of a batch of %lld", (long long)from, (long long)to,
                            (long long)b->num_rows);
    if (w->fmt == PM_ROWS_JSONL) {
        for (int64_t r = from; r < to; r += 256) {
            PM_TRY(pm_batch_format_rows_json(b, r, to - r < 256 ? to : r + 256, &w->out));
            if (w->out.len >= FLUSH_AT)
                PM_TRY(flush(w));
        }
        return NULL;
    }
    for (int64_t r = from; r < to; r++) {
        for (size_t i = 0; i < b->ncolumns; i++) {
            if (i)
                PM_TRY(pm_buf_append_byte(&w->out, ','));
            PM_TRY(csv_cell(&w->out, &w->cell, b->columns[i], r));
        }
        PM_TRY(pm_buf_append_byte(&w->out, '\n'));
        if (w->out.len >= FLUSH_AT)
            PM_TRY(flush(w));
    }
    return NULL;
}

pm_error *pm_rows_writer_finish(pm_rows_writer *w) { return flush(w); }

void pm_rows_writer_free(pm_rows_writer *w)
{
    if (!w)
        return;
    pm_buf_free(&w->out);
    pm_buf_free(&w->cell);
    pm_type_free(w->type);
    free(w);
}
