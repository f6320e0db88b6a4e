/*
 * index/hash_index.c — HASH index files (layout in hash_index.h).
 */
#include "index/hash_index.h"

#include <stdlib.h>
#include <string.h>

#include "base/cursor.h"
#include "base/mem.h"
#include "meta/index_path.h"

pm_error *pm_hash_index_decode(const uint8_t *p, size_t n, int32_t **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    if (n % 4)
        return pm_error_new(PM_ECORRUPT, "hash index: %zu bytes is not a whole number of int32 values", n);
    if (n == 0)
        return NULL;
    int32_t *v;
    PM_TRY(pm_calloc(&v, n / 4, sizeof *v));
    for (size_t i = 0; i < n / 4; i++)
        v[i] = (int32_t)pm_load_u32be(p + 4 * i);
    *out = v;
    *count = n / 4;
    return NULL;
}

pm_error *pm_hash_index_encode(const int32_t *hashes, size_t n, pm_buf *out)
{
    if (n > SIZE_MAX / 4)
        return pm_oom();
    PM_TRY(pm_buf_reserve(out, n * 4));
    for (size_t i = 0; i < n; i++) {
        pm_store_u32be(out->data + out->len, (uint32_t)hashes[i]);
        out->len += 4;
    }
    return NULL;
}

pm_error *pm_hash_index_read(pm_fileio *fio, const char *path, int64_t expected_count,
                             int32_t **out, size_t *count)
{
    pm_buf buf = PM_BUF_INIT;
    *out = NULL;
    *count = 0;
    PM_TRY(pm_fileio_read_file(fio, path, &buf));
    pm_error *e = pm_hash_index_decode(buf.data, buf.len, out, count);
    pm_buf_free(&buf);
    if (!e && expected_count >= 0 && (uint64_t)expected_count != *count) {
        e = pm_error_new(PM_ECORRUPT, "%zu hashes, the index manifest says %lld", *count,
                         (long long)expected_count);
        free(*out);
        *out = NULL;
        *count = 0;
    }
    return pm_error_wrap(e, 0, "hash index file %s", path);
}

pm_error *pm_hash_index_write(pm_fileio *fio, pm_path_factory *pf, const char *dir,
                              const int32_t *hashes, size_t n, pm_index_file_meta *meta)
{
    memset(meta, 0, sizeof *meta);
    pm_buf buf = PM_BUF_INIT;
    char *path = NULL;
    pm_output *o = NULL;
    pm_error *e = NULL;
    PM_TRY_GOTO(e, pm_strdup(&meta->index_type, PM_HASH_INDEX_TYPE), fail);
    PM_TRY_GOTO(e, pm_path_factory_new_index_file_name(pf, &meta->file_name), fail);
    path = pm_path_join(dir, meta->file_name);
    if (!path) {
        e = pm_oom();
        goto fail;
    }
    PM_TRY_GOTO(e, pm_hash_index_encode(hashes, n, &buf), fail);
    PM_TRY_GOTO(e, pm_output_create(fio, path, false, &o), fail);
    PM_TRY_GOTO(e, pm_output_write(o, buf.data, buf.len), fail);
    e = pm_output_close(o, true);
    o = NULL;
    if (e)
        goto fail;
    meta->file_size = (int64_t)buf.len;
    meta->row_count = (int64_t)n;
    free(path);
    pm_buf_free(&buf);
    return NULL;
fail:
    pm_output_abort(o);
    free(path);
    pm_buf_free(&buf);
    pm_index_meta_clear(meta);
    return pm_error_wrap(e, 0, "write hash index file in %s", dir);
}
