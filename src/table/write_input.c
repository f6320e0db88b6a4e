/*
 * table/write_input.c — JSON lines and CSV rows → batches (write_input.h).
 *
 * Both readers pull bytes from the source into one buffer and consume
 * whole lines / records from it; the buffer is compacted before each
 * refill, so memory is one batch of text plus one batch of columns.
 * CSV: a record is found by scanning for a line feed while tracking
 * whether the scan is inside quotes (each '"' toggles, so '""' escapes
 * cancel out); the record is then split into cells with unescaping into a
 * scratch buffer.
 */
#include "table/write_input.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "types/column.h"
#include "types/value.h"

#define READ_CHUNK (1u << 20)
#define MAX_BLOCK_BYTES (32u << 20)

typedef struct csv_cell {
    size_t off, len;   /* into the scratch buffer */
    bool quoted;
} csv_cell;

struct pm_text_rows {
    pm_text_format fmt;
    const pm_type *rt;
    pm_byte_source src;
    void *ctx;
    int64_t batch_rows;
    pm_buf buf;
    size_t pos;
    bool eof;
    int64_t line;          /* lines consumed */
    pm_batch *batch;
    /* CSV */
    bool header_done;
    pm_type *csv_type;
    size_t ncols;
    pm_buf text;
    csv_cell *cells;
    size_t ncells, capcells;
};

pm_error *pm_mem_source_read(void *ctx, void *buf, size_t cap, size_t *n)
{
    pm_mem_source *m = ctx;
    size_t left = m->len - m->pos;
    size_t k = cap < left ? cap : left;
    if (m->chunk && k > m->chunk)
        k = m->chunk;
    if (k)
        memcpy(buf, (const uint8_t *)m->data + m->pos, k);
    m->pos += k;
    *n = k;
    return NULL;
}

pm_error *pm_text_rows_new(pm_text_rows **out, pm_text_format fmt, const pm_type *row_type,
                           pm_byte_source src, void *ctx, int64_t batch_rows)
{
    *out = NULL;
    if (!row_type || row_type->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "text rows need a ROW type");
    pm_text_rows *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    r->fmt = fmt;
    r->rt = row_type;
    r->src = src;
    r->ctx = ctx;
    r->batch_rows = batch_rows > 0 ? batch_rows : 65536;
    *out = r;
    return NULL;
}

void pm_text_rows_free(pm_text_rows *r)
{
    if (!r)
        return;
    pm_buf_free(&r->buf);
    pm_buf_free(&r->text);
    pm_batch_free(r->batch);
    pm_type_free(r->csv_type);
    free(r->cells);
    free(r);
}

/* Move the unread bytes to the front and read more; sets eof. */
static pm_error *fill(pm_text_rows *r)
{
    if (r->pos) {
        size_t left = r->buf.len - r->pos;
        if (left)
            memmove(r->buf.data, r->buf.data + r->pos, left);
        r->buf.len = left;
        r->pos = 0;
    }
    PM_TRY(pm_buf_reserve(&r->buf, READ_CHUNK));
    size_t n = 0;
    PM_TRY(r->src(r->ctx, r->buf.data + r->buf.len, r->buf.cap - r->buf.len, &n));
    if (n == 0)
        r->eof = true;
    r->buf.len += n;
    return NULL;
}

/* ---------------------------------------------------------------- */
/* JSON lines                                                        */

/* A block failed: parse it again behind (first - 1) empty lines, which the
 * parser skips but counts, so the error names the input's line number. */
static pm_error *absolute_lines(const pm_type *rt, const uint8_t *p, size_t n, int64_t first, pm_error *orig)
{
    pm_buf again = PM_BUF_INIT;
    pm_error *e = NULL;
    if (first > 1 && (uint64_t)first < (uint64_t)SIZE_MAX / 2 && !pm_buf_reserve(&again, (size_t)first + n)) {
        memset(again.data, '\n', (size_t)(first - 1));
        again.len = (size_t)(first - 1);
        if (!pm_buf_append(&again, p, n)) {
            pm_batch *b = NULL;
            e = pm_batch_from_json_lines(&b, rt, (const char *)again.data, again.len);
            pm_batch_free(b);
        }
    }
    pm_buf_free(&again);
    if (!e)
        return first > 1 ? pm_error_wrap(orig, 0, "input lines from %lld", (long long)first) : orig;
    pm_error_free(orig);
    return e;
}

static pm_error *next_jsonl(pm_text_rows *r, pm_batch **out)
{
    size_t scan = r->pos;
    int64_t lines = 0;
    for (;;) {
        uint8_t *nl = scan < r->buf.len ? memchr(r->buf.data + scan, '\n', r->buf.len - scan) : NULL;
        if (nl) {
            scan = (size_t)(nl - r->buf.data) + 1;
            if (++lines >= r->batch_rows || scan - r->pos >= MAX_BLOCK_BYTES)
                break;
            continue;
        }
        if (r->eof) {
            if (scan < r->buf.len) {
                scan = r->buf.len;
                lines++;
            }
            break;
        }
        size_t off = scan - r->pos;
        PM_TRY(fill(r));
        scan = r->pos + off;
    }
    if (scan == r->pos)
        return NULL; /* end */
    const uint8_t *p = r->buf.data + r->pos;
    size_t n = scan - r->pos;
    int64_t first = r->line + 1;
    pm_batch *b = NULL;
    pm_error *e = pm_batch_from_json_lines(&b, r->rt, (const char *)p, n);
    if (e)
        return pm_error_wrap(absolute_lines(r->rt, p, n, first, e), 0, "input");
    r->pos = scan;
    r->line += lines;
    *out = b;
    return NULL;
}

/* ---------------------------------------------------------------- */
/* CSV                                                               */

/* Find the next record: [*start, *end) in buf; *found=false at the end. */
static pm_error *csv_record(pm_text_rows *r, size_t *start, size_t *end, bool *found)
{
    *found = false;
    size_t i = r->pos;
    bool q = false;
    for (;;) {
        while (i < r->buf.len) {
            uint8_t c = r->buf.data[i];
            if (c == '"') {
                q = !q;
            } else if (c == '\n' && !q) {
                *start = r->pos;
                *end = i;
                r->pos = i + 1;
                *found = true;
                return NULL;
            }
            i++;
        }
        if (r->eof) {
            if (r->pos < r->buf.len) {
                *start = r->pos;
                *end = r->buf.len;
                r->pos = r->buf.len;
                *found = true;
            }
            return NULL;
        }
        size_t off = i - r->pos;
        PM_TRY(fill(r));
        i = r->pos + off;
    }
}

static pm_error *csv_push(pm_text_rows *r, size_t off, size_t len, bool quoted)
{
    if (r->ncells == r->capcells) {
        size_t cap = r->capcells ? r->capcells * 2 : 16;
        PM_TRY(pm_realloc_array(&r->cells, cap, sizeof *r->cells));
        r->capcells = cap;
    }
    r->cells[r->ncells++] = (csv_cell){off, len, quoted};
    return NULL;
}

/* Split record bytes into cells; line = the record's first line. */
static pm_error *csv_split(pm_text_rows *r, const uint8_t *p, size_t len, int64_t line)
{
    if (len && p[len - 1] == '\r')
        len--;
    pm_buf_clear(&r->text);
    r->ncells = 0;
    size_t i = 0;
    for (;;) {
        size_t off = r->text.len;
        bool quoted = false;
        if (i < len && p[i] == '"') {
            quoted = true;
            i++;
            for (;;) {
                if (i >= len)
                    return pm_error_new(PM_EINVALID, "CSV line %lld: unterminated quoted field", (long long)line);
                if (p[i] == '"') {
                    if (i + 1 < len && p[i + 1] == '"') {
                        PM_TRY(pm_buf_append_byte(&r->text, '"'));
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                size_t s = i;
                while (i < len && p[i] != '"')
                    i++;
                PM_TRY(pm_buf_append(&r->text, p + s, i - s));
            }
            if (i < len && p[i] != ',')
                return pm_error_new(PM_EINVALID, "CSV line %lld: text after a closing quote", (long long)line);
        } else {
            size_t s = i;
            while (i < len && p[i] != ',') {
                if (p[i] == '"')
                    return pm_error_new(PM_EINVALID, "CSV line %lld: quote inside an unquoted field",
                                        (long long)line);
                i++;
            }
            PM_TRY(pm_buf_append(&r->text, p + s, i - s));
        }
        PM_TRY(csv_push(r, off, r->text.len - off, quoted));
        if (i >= len)
            return NULL;
        i++; /* the comma */
    }
}

/* Bytes of a cell (the scratch buffer may be unallocated when all cells are empty). */
static const char *cell_text(const pm_text_rows *r, const csv_cell *c)
{
    return r->text.data ? (const char *)r->text.data + c->off : "";
}

static int64_t count_lines(const uint8_t *p, size_t n)
{
    int64_t k = 1;
    for (size_t i = 0; i < n; i++)
        k += p[i] == '\n';
    return k;
}

static pm_error *csv_header(pm_text_rows *r, const uint8_t *p, size_t n)
{
    PM_TRY(csv_split(r, p, n, 1));
    r->csv_type = pm_type_new_row(false);
    if (!r->csv_type)
        return pm_oom();
    for (size_t c = 0; c < r->ncells; c++) {
        char *name;
        PM_TRY(pm_strndup(&name, cell_text(r, &r->cells[c]), r->cells[c].len));
        pm_error *e = NULL;
        ptrdiff_t k = pm_type_field_index(r->rt, name);
        if (k < 0)
            e = pm_error_new(PM_EINVALID, "CSV header: unknown column '%s' (not a field of the table)", name);
        else if (pm_type_field_index(r->csv_type, name) >= 0)
            e = pm_error_new(PM_EINVALID, "CSV header: column '%s' appears twice", name);
        if (!e) {
            pm_type *ft = pm_type_clone(r->rt->fields[k].type);
            e = ft ? pm_type_add_field(r->csv_type, r->rt->fields[k].id, name, ft) : pm_oom();
        }
        free(name);
        PM_TRY(e);
    }
    r->ncols = r->ncells;
    r->header_done = true;
    return pm_batch_new(&r->batch, r->csv_type);
}

static pm_error *next_csv(pm_text_rows *r, pm_batch **out)
{
    size_t s, e;
    bool found;
    if (!r->header_done) {
        for (;;) {
            PM_TRY(csv_record(r, &s, &e, &found));
            if (!found)
                return NULL; /* empty input */
            int64_t lines = count_lines(r->buf.data + s, e - s);
            bool blank = e == s || (e - s == 1 && r->buf.data[s] == '\r');
            r->line += lines;
            if (!blank) {
                PM_TRY(csv_header(r, r->buf.data + s, e - s));
                break;
            }
        }
    }
    PM_TRY(pm_batch_reset(r->batch));
    int64_t rows = 0;
    while (rows < r->batch_rows) {
        PM_TRY(csv_record(r, &s, &e, &found));
        if (!found)
            break;
        int64_t line = r->line + 1;
        r->line += count_lines(r->buf.data + s, e - s);
        if (e == s || (e - s == 1 && r->buf.data[s] == '\r'))
            continue; /* blank line */
        PM_TRY(csv_split(r, r->buf.data + s, e - s, line));
        if (r->ncells != r->ncols)
            return pm_error_new(PM_EINVALID, "CSV line %lld: %zu cells, the header has %zu", (long long)line,
                                r->ncells, r->ncols);
        for (size_t c = 0; c < r->ncols; c++) {
            pm_column *col = pm_batch_column(r->batch, c);
            const csv_cell *cell = &r->cells[c];
            if (!cell->len && !cell->quoted && !r->csv_type->fields[c].type->nullable)
                return pm_error_new(PM_EINVALID, "CSV line %lld: column '%s' is NOT NULL but the cell is empty",
                                    (long long)line, r->csv_type->fields[c].name);
            pm_error *ce = !cell->len && !cell->quoted
                               ? pm_column_append_null(col)
                               : pm_column_append_text(col, cell_text(r, cell), cell->len);
            if (ce)
                return pm_error_wrap(ce, 0, "CSV line %lld, column '%s'", (long long)line,
                                     r->csv_type->fields[c].name);
        }
        rows++;
    }
    if (!rows)
        return NULL;
    PM_TRY(pm_batch_finish(r->batch, rows));
    *out = r->batch;
    return NULL;
}

pm_error *pm_text_rows_next(pm_text_rows *r, pm_batch **out)
{
    *out = NULL;
    if (r->fmt == PM_TEXT_CSV)
        return next_csv(r, out);
    pm_batch_free(r->batch);
    r->batch = NULL;
    PM_TRY(next_jsonl(r, &r->batch));
    *out = r->batch;
    return NULL;
}
