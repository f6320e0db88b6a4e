/*
 * format/blob/blob_writer.c — writing `.blob` files (layout in
 * blob_file.h).
 *
 * add: the record (magic, payload, record length, CRC32 over the three)
 * goes to the output at once; its length (4 + payload + 8 + 4) joins the
 * row lengths (-1 for a null row, which writes no bytes).
 * finish: the lengths delta-encoded against the previous one (the first
 * against 0), ZigZag, as unsigned LEB128 varints; then the index length
 * (int32 LE) and the version byte.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/buf.h"
#include "base/cursor.h"
#include "base/mem.h"
#include "format/blob/blob_file.h"

struct pm_blob_writer {
    pm_output *out;
    int64_t *lengths;
    size_t n, cap;
    uint64_t bytes;
};

pm_error *pm_blob_writer_new(pm_output *out, pm_blob_writer **w)
{
    *w = NULL;
    pm_blob_writer *b;
    PM_TRY(pm_calloc(&b, 1, sizeof *b));
    b->out = out;
    *w = b;
    return NULL;
}

static pm_error *push_length(pm_blob_writer *w, int64_t len)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 64;
        PM_TRY(pm_realloc_array(&w->lengths, cap, sizeof *w->lengths));
        w->cap = cap;
    }
    w->lengths[w->n++] = len;
    return NULL;
}

pm_error *pm_blob_writer_add(pm_blob_writer *w, const uint8_t *p, size_t n)
{
    if (n > (size_t)INT64_MAX - 16)
        return pm_error_new(PM_EINVALID, "blob value of %zu bytes is too large", n);
    PM_TRY(push_length(w, (int64_t)n + 16));
    uint8_t head[4], tail[12];
    pm_store_u32le(head, PM_BLOB_MAGIC);
    pm_store_u64le(tail, (uint64_t)n + 16);
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, head, 4);
    for (size_t off = 0; off < n;) { /* zlib takes uInt lengths */
        uInt part = n - off > (1u << 30) ? (1u << 30) : (uInt)(n - off);
        crc = crc32(crc, p + off, part);
        off += part;
    }
    crc = crc32(crc, tail, 8);
    pm_store_u32le(tail + 8, (uint32_t)crc);
    pm_error *e = pm_output_write(w->out, head, 4);
    if (!e && n)
        e = pm_output_write(w->out, p, n);
    if (!e)
        e = pm_output_write(w->out, tail, 12);
    if (e) {
        w->n--;
        return e;
    }
    w->bytes += (uint64_t)n + 16;
    return NULL;
}

pm_error *pm_blob_writer_add_null(pm_blob_writer *w) { return push_length(w, -1); }

int64_t pm_blob_writer_rows(const pm_blob_writer *w) { return (int64_t)w->n; }

uint64_t pm_blob_writer_bytes(const pm_blob_writer *w) { return w->bytes; }

pm_error *pm_blob_writer_finish(pm_blob_writer *w)
{
    pm_buf idx = {0};
    pm_error *e = NULL;
    int64_t prev = 0;
    for (size_t i = 0; i < w->n && !e; i++) {
        e = pm_buf_append_uvarint(&idx, pm_zigzag_encode((int64_t)((uint64_t)w->lengths[i] - (uint64_t)prev)));
        prev = w->lengths[i];
    }
    if (!e && idx.len > INT32_MAX)
        e = pm_error_new(PM_EINVALID, "blob index of %zu bytes is too large", idx.len);
    if (!e)
        e = pm_buf_append_u32le(&idx, (uint32_t)(idx.len));
    if (!e)
        e = pm_buf_append_byte(&idx, PM_BLOB_VERSION);
    if (!e)
        e = pm_output_write(w->out, idx.data, idx.len);
    pm_buf_free(&idx);
    return e;
}

void pm_blob_writer_free(pm_blob_writer *w)
{
    if (!w)
        return;
    free(w->lengths);
    free(w);
}
