/*
 * index/pk_index_source.c — source metadata of primary-key source-backed
 * global index payloads (see pk_index_source.h).
 */
#include "index/pk_index_source.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/cursor.h"
#include "base/mem.h"

#define PK_SOURCE_VERSION 1

void pm_pk_source_clear(pm_pk_source *s)
{
    for (size_t i = 0; s->files && i < s->nfiles; i++)
        free(s->files[i].name);
    free(s->files);
    memset(s, 0, sizeof *s);
}

static int cmp_file(const void *a, const void *b)
{
    return strcmp(((const pm_pk_source_file *)a)->name, ((const pm_pk_source_file *)b)->name);
}

pm_error *pm_pk_source_from_files(int32_t level, const pm_data_file_meta *const *f, size_t n, pm_pk_source *out)
{
    memset(out, 0, sizeof *out);
    if (level <= 0 || !n)
        return pm_error_new(PM_EINVALID, "a primary-key index source needs a positive level and files (level %" PRId32
                            ", %zu files)", level, n);
    PM_TRY(pm_calloc(&out->files, n, sizeof *out->files));
    out->level = level;
    for (size_t i = 0; i < n; i++) {
        if (f[i]->level != level) {
            pm_pk_source_clear(out);
            return pm_error_new(PM_EINVALID, "data file %s is at level %" PRId32 ", not %" PRId32, f[i]->file_name,
                                f[i]->level, level);
        }
        out->files[i].name = strdup(f[i]->file_name);
        out->files[i].row_count = f[i]->row_count;
        out->nfiles = i + 1;
        if (!out->files[i].name) {
            pm_pk_source_clear(out);
            return pm_oom();
        }
    }
    qsort(out->files, n, sizeof *out->files, cmp_file);
    return NULL;
}

pm_error *pm_pk_source_encode(const pm_pk_source *s, pm_buf *out)
{
    if (s->nfiles > INT32_MAX)
        return pm_error_new(PM_EINVALID, "a primary-key index source of %zu files", s->nfiles);
    PM_TRY(pm_buf_append_u32be(out, PK_SOURCE_VERSION));
    PM_TRY(pm_buf_append_u32be(out, (uint32_t)s->level));
    PM_TRY(pm_buf_append_u32be(out, (uint32_t)s->nfiles));
    for (size_t i = 0; i < s->nfiles; i++) {
        size_t len = strlen(s->files[i].name);
        if (len > UINT16_MAX)
            return pm_error_new(PM_EINVALID, "data file name of %zu bytes in a primary-key index source", len);
        uint8_t b[8];
        b[0] = (uint8_t)(len >> 8);
        b[1] = (uint8_t)len;
        PM_TRY(pm_buf_append(out, b, 2));
        PM_TRY(pm_buf_append(out, s->files[i].name, len));
        pm_store_u64be(b, (uint64_t)s->files[i].row_count);
        PM_TRY(pm_buf_append(out, b, 8));
    }
    return NULL;
}

pm_error *pm_pk_source_decode(const uint8_t *p, size_t n, pm_pk_source *out)
{
    memset(out, 0, sizeof *out);
    pm_cursor c = pm_cursor_make(p, n);
    uint32_t version = 0, level = 0, count = 0;
    PM_TRY(pm_cursor_u32be(&c, &version, "primary-key index source version"));
    if (version != PK_SOURCE_VERSION)
        return pm_error_new(PM_EUNSUPPORTED, "primary-key index source version %" PRIu32 " (only 1 is supported)",
                            version);
    PM_TRY(pm_cursor_u32be(&c, &level, "primary-key index source level"));
    PM_TRY(pm_cursor_u32be(&c, &count, "primary-key index source file count"));
    if ((int32_t)level <= 0)
        return pm_error_new(PM_ECORRUPT, "primary-key index source level %" PRId32 " (must be positive)",
                            (int32_t)level);
    if ((int32_t)count <= 0 || count > pm_cursor_left(&c) / 10)
        return pm_error_new(PM_ECORRUPT, "primary-key index source file count %" PRId32 " for %zu bytes left",
                            (int32_t)count, pm_cursor_left(&c));
    PM_TRY(pm_calloc(&out->files, count, sizeof *out->files));
    out->level = (int32_t)level;
    pm_error *e = NULL;
    for (uint32_t i = 0; i < count && !e; i++) {
        const uint8_t *lb = NULL, *nb = NULL;
        uint64_t rows = 0;
        e = pm_cursor_take(&c, 2, &lb, "primary-key index source file name length");
        size_t len = e ? 0 : (size_t)(lb[0] << 8 | lb[1]);
        if (!e)
            e = pm_cursor_take(&c, len, &nb, "primary-key index source file name");
        if (!e)
            e = pm_cursor_u64be(&c, &rows, "primary-key index source row count");
        if (!e && (int64_t)rows < 0)
            e = pm_error_new(PM_ECORRUPT, "primary-key index source row count %" PRId64, (int64_t)rows);
        if (!e && (!len || memchr(nb, 0, len)))
            e = pm_error_new(PM_ECORRUPT, "primary-key index source file name %" PRIu32 " is empty or holds NUL", i);
        if (!e && !(out->files[i].name = malloc(len + 1)))
            e = pm_oom();
        if (!e) {
            memcpy(out->files[i].name, nb, len);
            out->files[i].name[len] = 0;
            out->files[i].row_count = (int64_t)rows;
            out->nfiles = i + 1;
        }
    }
    if (!e && pm_cursor_left(&c))
        e = pm_error_new(PM_ECORRUPT, "%zu trailing bytes after the primary-key index source", pm_cursor_left(&c));
    if (e)
        pm_pk_source_clear(out);
    return e;
}

pm_error *pm_pk_source_rows(const pm_pk_source *s, int64_t *out)
{
    int64_t n = 0;
    for (size_t i = 0; i < s->nfiles; i++) {
        if (s->files[i].row_count > INT64_MAX - n)
            return pm_error_new(PM_ECORRUPT, "primary-key index source rows overflow");
        n += s->files[i].row_count;
    }
    *out = n;
    return NULL;
}

bool pm_pk_source_equal(const pm_pk_source *a, const pm_pk_source *b)
{
    if (a->level != b->level || a->nfiles != b->nfiles)
        return false;
    for (size_t i = 0; i < a->nfiles; i++)
        if (a->files[i].row_count != b->files[i].row_count || strcmp(a->files[i].name, b->files[i].name))
            return false;
    return true;
}

pm_error *pm_pk_source_of_entry(const pm_index_manifest_entry *ie, bool *is_pk, pm_pk_source *out)
{
    *is_pk = false;
    if (out)
        memset(out, 0, sizeof *out);
    const pm_index_file_meta *f = &ie->index_file;
    if (!f->has_global_index || !f->global_index.source_meta.has)
        return NULL;
    pm_pk_source s;
    pm_error *e = pm_pk_source_decode(f->global_index.source_meta.data, f->global_index.source_meta.len, &s);
    int64_t rows = 0;
    if (!e)
        e = pm_pk_source_rows(&s, &rows);
    if (!e && (f->global_index.row_range_start != 0 || f->global_index.row_range_end != rows - 1))
        e = pm_error_new(PM_ECORRUPT, "row range [%" PRId64 ", %" PRId64 "] of a payload over %" PRId64 " source rows",
                         f->global_index.row_range_start, f->global_index.row_range_end, rows);
    if (e) {
        pm_pk_source_clear(&s);
        return pm_error_wrap(e, 0, "index file %s", f->file_name);
    }
    *is_pk = true;
    if (out)
        *out = s;
    else
        pm_pk_source_clear(&s);
    return NULL;
}
