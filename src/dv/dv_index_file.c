/*
 * dv/dv_index_file.c — reading and writing deletion-vector index files
 * (layout and rules in dv_index_file.h).
 */
#include "dv/dv_index_file.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

pm_error *pm_dv_index_parse(const uint8_t *p, size_t n, const pm_dv_meta *ranges, size_t nranges,
                            const char *what, pm_dv_map *into)
{
    if (n < 1)
        return pm_error_new(PM_ECORRUPT, "DV index file %s: empty", what);
    if (p[0] != PM_DV_INDEX_VERSION)
        return pm_error_new(PM_ECORRUPT, "DV index file %s: version %u, expected %d", what, p[0],
                            PM_DV_INDEX_VERSION);
    for (size_t i = 0; i < nranges; i++) {
        const pm_dv_meta *r = &ranges[i];
        if (r->offset < 1 || (size_t)r->offset >= n)
            return pm_error_new(PM_ECORRUPT, "DV index file %s: entry of %s at offset %d outside the %zu-byte file",
                                what, r->data_file_name, r->offset, n);
        pm_dv *dv;
        pm_error *e = pm_dv_deserialize(p + r->offset, n - (size_t)r->offset, r->length, true, &dv, NULL);
        if (e)
            return pm_error_wrap(e, 0, "DV index file %s: entry of %s at offset %d", what,
                                 r->data_file_name, r->offset);
        if (r->cardinality.has && (uint64_t)r->cardinality.v != pm_dv_cardinality(dv)) {
            uint64_t card = pm_dv_cardinality(dv);
            pm_dv_free(dv);
            return pm_error_new(PM_ECORRUPT, "DV index file %s: %s has %llu deleted rows, the index manifest says %lld",
                                what, r->data_file_name, (unsigned long long)card, (long long)r->cardinality.v);
        }
        PM_TRY(pm_dv_map_put(into, r->data_file_name, dv));
    }
    return NULL;
}

pm_error *pm_dv_index_read(pm_fileio *fio, const char *path, const pm_index_file_meta *meta,
                           pm_dv_map *into)
{
    pm_buf buf = PM_BUF_INIT;
    PM_TRY(pm_fileio_read_file(fio, path, &buf));
    pm_error *e = pm_dv_index_parse(buf.data, buf.len, meta->dv_ranges, meta->dv_range_len, path, into);
    pm_buf_free(&buf);
    return e;
}

pm_error *pm_dv_index_read_one(pm_fileio *fio, const char *path, int64_t offset, int64_t length,
                               pm_dv **out)
{
    *out = NULL;
    pm_input *in;
    PM_TRY(pm_input_open(fio, path, &in));
    pm_error *e = NULL;
    uint8_t head[4];
    uint8_t *entry = NULL;
    uint64_t size = pm_input_size(in);
    size_t n;
    PM_TRY_GOTO(e, pm_input_read_at(in, 0, head, 1), done);
    if (head[0] != PM_DV_INDEX_VERSION) {
        e = pm_error_new(PM_ECORRUPT, "version %u, expected %d", head[0], PM_DV_INDEX_VERSION);
        goto done;
    }
    if (offset < 1 || (uint64_t)offset + 4 > size) {
        e = pm_error_new(PM_ECORRUPT, "entry offset %lld outside the %llu-byte file", (long long)offset,
                         (unsigned long long)size);
        goto done;
    }
    PM_TRY_GOTO(e, pm_input_read_at(in, (uint64_t)offset, head, 4), done);
    PM_TRY_GOTO(e, pm_dv_entry_size(head, 4, &n), done);
    if ((uint64_t)offset + n > size) {
        e = pm_error_new(PM_ECORRUPT, "entry of %zu bytes at offset %lld passes the end of the %llu-byte file",
                         n, (long long)offset, (unsigned long long)size);
        goto done;
    }
    PM_TRY_GOTO(e, pm_calloc(&entry, n, 1), done);
    PM_TRY_GOTO(e, pm_input_read_at(in, (uint64_t)offset, entry, n), done);
    e = pm_dv_deserialize(entry, n, length, true, out, NULL);
done:
    free(entry);
    pm_input_close(in);
    return pm_error_wrap(e, 0, "DV index file %s", path);
}

pm_error *pm_dv_index_serialize(pm_dv_map *dvs, size_t from, size_t to, pm_buf *out,
                                pm_dv_meta *ranges)
{
    size_t base = out->len;
    PM_TRY(pm_buf_append_byte(out, PM_DV_INDEX_VERSION));
    for (size_t i = from; i < to; i++) {
        size_t off = out->len - base;
        int32_t len;
        pm_dv *dv = pm_dv_map_at(dvs, i);
        PM_TRY(pm_dv_serialize(dv, out, &len));
        if (off > INT32_MAX)
            return pm_error_new(PM_EINVALID, "DV index file: entry offset %zu exceeds 2 GiB", off);
        if (ranges) {
            pm_dv_meta *r = &ranges[i - from];
            r->data_file_name = (char *)pm_dv_map_name(dvs, i);
            r->offset = (int32_t)off;
            r->length = len;
            r->cardinality.has = true;
            r->cardinality.v = (int64_t)pm_dv_cardinality(dv);
        }
    }
    return NULL;
}

/* Write entries from *next on into one new file, stopping after the entry
 * that takes the file past `target` (target < 0: never); *next advances. */
static pm_error *write_file(pm_fileio *fio, pm_path_factory *pf, const char *dir, pm_dv_map *dvs,
                            size_t *next, int64_t target, pm_index_file_meta *meta)
{
    memset(meta, 0, sizeof *meta);
    char *name = NULL, *path = NULL;
    pm_output *o = NULL;
    pm_buf scratch = PM_BUF_INIT;
    pm_error *e = NULL;
    size_t count = pm_dv_map_count(dvs), cap = 0;
    PM_TRY_GOTO(e, pm_strdup(&meta->index_type, PM_DV_INDEX_TYPE), fail);
    PM_TRY_GOTO(e, pm_path_factory_new_index_file_name(pf, &name), fail);
    path = pm_path_join(dir, name);
    if (!path) {
        e = pm_oom();
        goto fail;
    }
    meta->file_name = name;
    name = NULL;
    meta->has_dv_ranges = true;
    PM_TRY_GOTO(e, pm_output_create(fio, path, false, &o), fail);
    uint8_t version = PM_DV_INDEX_VERSION;
    PM_TRY_GOTO(e, pm_output_write(o, &version, 1), fail);
    while (*next < count) {
        size_t i = (*next)++;
        uint64_t off = pm_output_pos(o);
        int32_t len;
        pm_dv *dv = pm_dv_map_at(dvs, i);
        pm_buf_clear(&scratch);
        PM_TRY_GOTO(e, pm_dv_serialize(dv, &scratch, &len), fail);
        if (off > INT32_MAX) {
            e = pm_error_new(PM_EINVALID, "entry offset %llu exceeds 2 GiB", (unsigned long long)off);
            goto fail;
        }
        PM_TRY_GOTO(e, pm_output_write(o, scratch.data, scratch.len), fail);
        if (meta->dv_range_len == cap) {
            cap = pm_grow_cap(cap, cap + 1);
            PM_TRY_GOTO(e, pm_realloc_array(&meta->dv_ranges, cap, sizeof *meta->dv_ranges), fail);
        }
        pm_dv_meta *r = &meta->dv_ranges[meta->dv_range_len];
        memset(r, 0, sizeof *r);
        PM_TRY_GOTO(e, pm_strdup(&r->data_file_name, pm_dv_map_name(dvs, i)), fail);
        meta->dv_range_len++;
        r->offset = (int32_t)off;
        r->length = len;
        r->cardinality.has = true;
        r->cardinality.v = (int64_t)pm_dv_cardinality(dv);
        if (target >= 0 && (int64_t)pm_output_pos(o) > target)
            break;
    }
    meta->file_size = (int64_t)pm_output_pos(o);
    meta->row_count = (int64_t)meta->dv_range_len;
    e = pm_output_close(o, true);
    o = NULL;
    if (e)
        goto fail;
    free(path);
    pm_buf_free(&scratch);
    return NULL;
fail:
    pm_output_abort(o);
    free(name);
    free(path);
    pm_buf_free(&scratch);
    pm_index_meta_clear(meta);
    return pm_error_wrap(e, 0, "write DV index file in %s", dir);
}

static void remove_written(pm_fileio *fio, const char *dir, pm_index_file_meta *metas, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *p = pm_path_join(dir, metas[i].file_name);
        if (p)
            pm_error_free(pm_fileio_delete(fio, p));
        free(p);
    }
}

pm_error *pm_dv_index_write_single(pm_fileio *fio, pm_path_factory *pf, const char *dir,
                                   pm_dv_map *dvs, pm_index_file_meta *out)
{
    size_t next = 0;
    return write_file(fio, pf, dir, dvs, &next, -1, out);
}

pm_error *pm_dv_index_write_rolling(pm_fileio *fio, pm_path_factory *pf, const char *dir,
                                    pm_dv_map *dvs, int64_t target_size, pm_index_file_meta **out,
                                    size_t *n)
{
    *out = NULL;
    *n = 0;
    if (target_size <= 0)
        target_size = PM_DV_INDEX_TARGET_SIZE_DEFAULT;
    pm_index_file_meta *metas = NULL;
    size_t nmetas = 0, cap = 0, next = 0;
    pm_error *e = NULL;
    while (next < pm_dv_map_count(dvs)) {
        if (nmetas == cap) {
            cap = pm_grow_cap(cap, cap + 1);
            PM_TRY_GOTO(e, pm_realloc_array(&metas, cap, sizeof *metas), fail);
        }
        PM_TRY_GOTO(e, write_file(fio, pf, dir, dvs, &next, target_size, &metas[nmetas]), fail);
        nmetas++;
    }
    *out = metas;
    *n = nmetas;
    return NULL;
fail:
    remove_written(fio, dir, metas, nmetas);
    pm_index_metas_free(metas, nmetas);
    return e;
}
