/*
 * format/blob/blob_file.c — reading `.blob` files (layout in blob_file.h).
 *
 * Open: the last 5 bytes give the index length; the index is read and
 * decoded into one length per row; record offsets are the running sums of
 * the non-negative lengths, which must end exactly where the index starts.
 * Append: each requested row's record is read at its offset (one read per
 * record), its magic and stored length checked (CRC when asked), and its
 * payload appended; nulls append null.
 */
#include "format/blob/blob_file.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/mem.h"

struct pm_blob_reader {
    pm_input *in;
    char *path;
    bool verify_crc;
    int64_t rows;
    int64_t *lengths;   /* per row: record length, -1 null, -2 placeholder */
    uint64_t *offsets;  /* per row: record offset (meaningless for null) */
    uint8_t *buf;
    size_t cap;
};

static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

static int64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return (int64_t)v;
}

pm_error *pm_blob_parse_index(const uint8_t *p, size_t n, int64_t **lengths, int64_t *rows)
{
    *lengths = NULL;
    *rows = 0;
    size_t cap = 16, cnt = 0;
    int64_t *v = NULL;
    PM_TRY(pm_calloc(&v, cap, sizeof *v));
    int64_t prev = 0;
    size_t i = 0;
    while (i < n) {
        uint64_t u = 0;
        int shift = 0;
        for (;;) {
            if (i >= n || shift > 63) {
                free(v);
                return pm_error_new(PM_ECORRUPT, "blob index: truncated or overlong varint at byte %zu", i);
            }
            uint8_t b = p[i++];
            u |= (uint64_t)(b & 0x7f) << shift;
            shift += 7;
            if (!(b & 0x80))
                break;
        }
        int64_t delta = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
        int64_t val = (int64_t)((uint64_t)prev + (uint64_t)delta);
        if (cnt == cap) {
            cap *= 2;
            pm_error *e = pm_realloc_array(&v, cap, sizeof *v);
            if (e) {
                free(v);
                return e;
            }
        }
        v[cnt++] = val;
        prev = val;
    }
    *lengths = v;
    *rows = (int64_t)cnt;
    return NULL;
}

void pm_blob_reader_free(pm_blob_reader *r)
{
    if (!r)
        return;
    pm_input_close(r->in);
    free(r->path);
    free(r->lengths);
    free(r->offsets);
    free(r->buf);
    free(r);
}

pm_error *pm_blob_reader_open(pm_fileio *fio, const char *path, bool verify_crc, pm_blob_reader **out)
{
    *out = NULL;
    pm_blob_reader *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    r->verify_crc = verify_crc;
    pm_error *e = NULL;
    uint8_t *idx = NULL;
    PM_TRY_GOTO(e, pm_strdup(&r->path, path), fail);
    PM_TRY_GOTO(e, pm_input_open(fio, path, &r->in), fail);
    uint64_t size = pm_input_size(r->in);
    if (size < 5) {
        e = pm_error_new(PM_ECORRUPT, "blob file %s: %" PRIu64 " bytes, too short for a footer", path, size);
        goto fail;
    }
    uint8_t foot[5];
    PM_TRY_GOTO(e, pm_input_read_at(r->in, size - 5, foot, 5), fail);
    if (foot[4] != PM_BLOB_VERSION) {
        e = pm_error_new(PM_ECORRUPT, "blob file %s: unknown version %u (expected %d)", path, foot[4],
                         PM_BLOB_VERSION);
        goto fail;
    }
    uint32_t ilen = le32(foot);
    if ((uint64_t)ilen > size - 5) {
        e = pm_error_new(PM_ECORRUPT, "blob file %s: index length %u exceeds the file", path, ilen);
        goto fail;
    }
    uint64_t records_end = size - 5 - ilen;
    PM_TRY_GOTO(e, pm_calloc(&idx, ilen ? ilen : 1, 1), fail);
    if (ilen)
        PM_TRY_GOTO(e, pm_input_read_at(r->in, records_end, idx, ilen), fail);
    e = pm_blob_parse_index(idx, ilen, &r->lengths, &r->rows);
    if (e) {
        e = pm_error_wrap(e, 0, "blob file %s", path);
        goto fail;
    }
    PM_TRY_GOTO(e, pm_calloc(&r->offsets, r->rows ? (size_t)r->rows : 1, sizeof *r->offsets), fail);
    uint64_t off = 0;
    for (int64_t i = 0; i < r->rows; i++) {
        int64_t l = r->lengths[i];
        r->offsets[i] = off;
        if (l >= 0) {
            if (l < 16 || (uint64_t)l > records_end - off) {
                e = pm_error_new(PM_ECORRUPT, "blob file %s: row %" PRId64 " has record length %" PRId64
                                 " (at offset %" PRIu64 ", records end at %" PRIu64 ")", path, i, l, off, records_end);
                goto fail;
            }
            off += (uint64_t)l;
        } else if (l != -1 && l != -2) {
            e = pm_error_new(PM_ECORRUPT, "blob file %s: row %" PRId64 " has length %" PRId64, path, i, l);
            goto fail;
        }
    }
    if (off != records_end) {
        e = pm_error_new(PM_ECORRUPT, "blob file %s: records end at %" PRIu64 " but the index starts at %" PRIu64,
                         path, off, records_end);
        goto fail;
    }
    free(idx);
    *out = r;
    return NULL;
fail:
    free(idx);
    pm_blob_reader_free(r);
    return e;
}

int64_t pm_blob_reader_rows(const pm_blob_reader *r) { return r->rows; }

pm_error *pm_blob_reader_append(pm_blob_reader *r, int64_t row, int64_t n, pm_column *col)
{
    if (row < 0 || n < 0 || row > r->rows || n > r->rows - row)
        return pm_error_new(PM_EINVALID, "blob file %s: rows [%" PRId64 ", %" PRId64 ") outside its %" PRId64 " rows",
                            r->path, row, row + n, r->rows);
    for (int64_t i = row; i < row + n; i++) {
        int64_t l = r->lengths[i];
        if (l == -1) {
            PM_TRY(pm_column_append_null(col));
            continue;
        }
        if (l == -2)
            return pm_error_new(PM_EUNSUPPORTED, "blob file %s: row %" PRId64 " is a placeholder for a value of an "
                                "older blob file; blob placeholders are not supported", r->path, i);
        if ((size_t)l > r->cap) {
            PM_TRY(pm_realloc_array(&r->buf, (size_t)l, 1));
            r->cap = (size_t)l;
        }
        PM_TRY(pm_input_read_at(r->in, r->offsets[i], r->buf, (size_t)l));
        const uint8_t *p = r->buf;
        if (le32(p) != PM_BLOB_MAGIC)
            return pm_error_new(PM_ECORRUPT, "blob file %s: row %" PRId64 " at offset %" PRIu64 " lacks the record magic",
                                r->path, i, r->offsets[i]);
        if (le64(p + l - 12) != l)
            return pm_error_new(PM_ECORRUPT, "blob file %s: row %" PRId64 " stores length %" PRId64 ", index says %"
                                PRId64, r->path, i, le64(p + l - 12), l);
        if (r->verify_crc) {
            uint32_t want = le32(p + l - 4);
            uint32_t have = (uint32_t)crc32(0L, p, (uInt)(l - 4));
            if (want != have)
                return pm_error_new(PM_ECORRUPT, "blob file %s: row %" PRId64 " fails its CRC32", r->path, i);
        }
        PM_TRY(pm_column_append_bytes(col, p + 4, (size_t)(l - 16)));
    }
    return NULL;
}
