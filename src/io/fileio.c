/*
 * io/fileio.c — the public file I/O API (fileio.h) as thin dispatch over
 * the backend vtables (fileio_impl.h), plus the backend-independent parts:
 * bounds checks on reads, memory inputs (a small file read whole at open:
 * pm_input_open_whole, for backends without their own), output position
 * tracking, whole-file reads,
 * sorting of directory listings and path joining.
 */
#include "io/fileio.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "io/fileio_impl.h"

void pm_fileio_free(pm_fileio *fio)
{
    if (fio)
        fio->ops->destroy(fio);
}

pm_error *pm_input_open(pm_fileio *fio, const char *path, pm_input **out)
{
    *out = NULL;
    return fio->ops->open_input(fio, path, out);
}

typedef struct mem_input {
    pm_input base;
    uint8_t *bytes; /* owned */
} mem_input;

static pm_error *mem_read_at(pm_input *in, uint64_t off, void *buf, size_t n)
{
    memcpy(buf, in->data + off, n);
    return NULL;
}

static void mem_close(pm_input *in)
{
    free(((mem_input *)in)->bytes);
    free(in->path);
    free(in);
}

static const pm_input_ops mem_input_ops = {mem_read_at, mem_close};

pm_error *pm_input_new_memory(const char *path, uint8_t *data, uint64_t size, pm_input **out)
{
    *out = NULL;
    mem_input *m;
    pm_error *e = pm_calloc(&m, 1, sizeof *m);
    if (!e) {
        e = pm_strdup(&m->base.path, path);
        if (e)
            free(m);
    }
    if (e) {
        free(data);
        return e;
    }
    m->bytes = data;
    m->base.ops = &mem_input_ops;
    m->base.size = size;
    m->base.data = data;
    *out = &m->base;
    return NULL;
}

pm_error *pm_input_open_whole(pm_fileio *fio, const char *path, uint64_t size_hint, uint64_t max, pm_input **out)
{
    *out = NULL;
    if (fio->ops->open_input_whole)
        return fio->ops->open_input_whole(fio, path, size_hint, max, out);
    pm_input *in;
    PM_TRY(pm_input_open(fio, path, &in));
    uint64_t size = pm_input_size(in);
    if (size > max || size > SIZE_MAX - 1) {
        *out = in;
        return NULL;
    }
    uint8_t *data = malloc(size ? (size_t)size : 1);
    pm_error *e = data ? pm_input_read_at(in, 0, data, (size_t)size) : pm_oom();
    pm_input_close(in);
    if (e) {
        free(data);
        return e;
    }
    return pm_input_new_memory(path, data, size, out);
}

uint64_t pm_input_size(const pm_input *in) { return in->size; }

const uint8_t *pm_input_data(const pm_input *in) { return in->data; }

const char *pm_input_path(const pm_input *in) { return in->path; }

pm_error *pm_input_read_at(pm_input *in, uint64_t off, void *buf, size_t n)
{
    if (off > in->size || n > in->size - off)
        return pm_error_new(PM_ECORRUPT,
                            "file %s: read of %zu bytes at offset %llu past its end (size %llu)",
                            in->path, n, (unsigned long long)off, (unsigned long long)in->size);
    if (n == 0)
        return NULL;
    return in->ops->read_at(in, off, buf, n);
}

void pm_input_close(pm_input *in)
{
    if (in)
        in->ops->close(in);
}

pm_error *pm_output_create(pm_fileio *fio, const char *path, bool overwrite, pm_output **out)
{
    *out = NULL;
    PM_TRY(fio->ops->create_output(fio, path, overwrite, out));
    (*out)->pos = 0;
    return NULL;
}

pm_error *pm_output_write(pm_output *o, const void *p, size_t n)
{
    if (n == 0)
        return NULL;
    PM_TRY(o->ops->write(o, p, n));
    o->pos += n;
    return NULL;
}

uint64_t pm_output_pos(const pm_output *o) { return o->pos; }

pm_error *pm_output_close(pm_output *o, bool sync) { return o->ops->close(o, sync); }

void pm_output_abort(pm_output *o)
{
    if (o)
        o->ops->abort(o);
}

pm_error *pm_fileio_read_file(pm_fileio *fio, const char *path, pm_buf *out)
{
    pm_input *in;
    PM_TRY(pm_input_open(fio, path, &in));
    pm_error *e = NULL;
    uint64_t size = pm_input_size(in);
    if (size > SIZE_MAX) {
        e = pm_error_new(PM_EUNSUPPORTED, "file %s is too large to read whole", path);
        goto done;
    }
    PM_TRY_GOTO(e, pm_buf_reserve(out, (size_t)size), done);
    PM_TRY_GOTO(e, pm_input_read_at(in, 0, out->data + out->len, (size_t)size), done);
    out->len += (size_t)size;
done:
    pm_input_close(in);
    return e;
}

pm_error *pm_fileio_publish_if_absent(pm_fileio *fio, const char *path, const void *p, size_t n,
                                      bool *published)
{
    *published = false;
    return fio->ops->publish_if_absent(fio, path, p, n, published);
}

pm_error *pm_fileio_overwrite_atomic(pm_fileio *fio, const char *path, const void *p, size_t n)
{
    return fio->ops->overwrite_atomic(fio, path, p, n);
}

pm_error *pm_fileio_exists(pm_fileio *fio, const char *path, bool *exists)
{
    return fio->ops->exists(fio, path, exists);
}

pm_error *pm_fileio_is_dir(pm_fileio *fio, const char *path, bool *is_dir)
{
    return fio->ops->is_dir(fio, path, is_dir);
}

pm_error *pm_fileio_file_size(pm_fileio *fio, const char *path, uint64_t *size)
{
    return fio->ops->file_size(fio, path, size);
}

pm_error *pm_fileio_modified_ms(pm_fileio *fio, const char *path, int64_t *ms)
{
    return fio->ops->modified_ms(fio, path, ms);
}

pm_error *pm_fileio_mkdirs(pm_fileio *fio, const char *path)
{
    return fio->ops->mkdirs(fio, path);
}

pm_error *pm_fileio_delete(pm_fileio *fio, const char *path)
{
    return fio->ops->delete_file(fio, path);
}

pm_error *pm_fileio_delete_tree(pm_fileio *fio, const char *path)
{
    return fio->ops->delete_tree(fio, path);
}

pm_error *pm_fileio_rmdir(pm_fileio *fio, const char *path, bool *removed)
{
    bool r = false;
    pm_error *e = fio->ops->rmdir(fio, path, &r);
    if (removed)
        *removed = !e && r;
    return e;
}

pm_error *pm_fileio_mkdtemp(pm_fileio *fio, const char *parent, const char *prefix, char **out)
{
    *out = NULL;
    if (!prefix || strchr(prefix, '/'))
        return pm_error_new(PM_EINVALID, "temporary directory prefix '%s' is not a plain name",
                            prefix ? prefix : "(null)");
    return fio->ops->mkdtemp(fio, parent, prefix, out);
}

pm_error *pm_fileio_rename(pm_fileio *fio, const char *from, const char *to)
{
    return fio->ops->rename(fio, from, to);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

pm_error *pm_fileio_list(pm_fileio *fio, const char *dir, pm_name_list *out)
{
    out->names = NULL;
    out->count = 0;
    PM_TRY(fio->ops->list(fio, dir, out));
    if (out->count > 1)
        qsort(out->names, out->count, sizeof *out->names, cmp_names);
    return NULL;
}

void pm_fileio_list_free(pm_name_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->count; i++)
        free(l->names[i]);
    free(l->names);
    l->names = NULL;
    l->count = 0;
}

char *pm_path_join(const char *a, const char *b)
{
    size_t la = strlen(a);
    while (la > 1 && a[la - 1] == '/')
        la--;
    while (*b == '/')
        b++;
    size_t lb = strlen(b);
    if (la == 0) {
        char *s = malloc(lb + 1);
        if (s)
            memcpy(s, b, lb + 1);
        return s;
    }
    bool slash = lb > 0 && a[la - 1] != '/'; /* a == "/" keeps its only slash */
    char *s = malloc(la + slash + lb + 1);
    if (!s)
        return NULL;
    memcpy(s, a, la);
    if (slash)
        s[la] = '/';
    memcpy(s + la + slash, b, lb + 1);
    return s;
}
