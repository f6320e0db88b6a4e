/*
 * io/fileio_local.c — the local file system backend of pm_fileio.
 *
 * Paths are plain POSIX paths; a "file:" URI prefix ("file:///x", "file:/x")
 * as found in Java-written warehouse paths is accepted and stripped.
 *
 * Inputs: one O_RDONLY descriptor, size fixed at open, reads with pread in a
 * loop (EINTR and short reads), so one input can be shared by threads.
 * Whole inputs (pm_input_open_whole): open, then one read of size_hint + 1
 * bytes; fewer bytes than asked mean end of file, so that count is the
 * size and no stat is needed (the usual case: the hint is the manifest's
 * file size); a file longer than the hint, or no hint, is stat'ed and
 * read whole (at most `max` bytes) or kept as a descriptor input.  The
 * descriptor is closed before returning a memory input.
 * Outputs: a 256 KiB write buffer in front of write(2); a write of at
 * least 64 KiB is not copied: the buffered bytes and it go out in one
 * writev(2).  close(sync=true) fsyncs the file and then
 * its parent directory so the new name is durable too.  Any failure removes
 * the partial file.
 *
 * publish_if_absent, step by step:
 *   1. mkdir -p the target's directory;
 *   2. write the bytes to `<dir>/.<name>.<uuid>.tmp` (O_EXCL) and fsync it;
 *   3. link(tmp, target): the kernel creates the name only if it does not
 *      exist, atomically across processes.  EEXIST → not published.  File
 *      systems without hard links get renameat2(RENAME_NOREPLACE) instead,
 *      which has the same semantics;
 *   4. unlink the temp name (every path, success or not);
 *   5. fsync the directory.  If that fails after the link succeeded, the
 *      target is visible but maybe not durable: PM_EUNCERTAIN, so a
 *      committer keeps its files instead of cleaning up.
 * overwrite_atomic: same temp file, then rename(2) over the target.
 */
#define _GNU_SOURCE /* renameat2 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/util.h"
#include "io/fileio_impl.h"

#define OUT_BUF_SIZE (256 * 1024)
#define OUT_DIRECT_SIZE (64 * 1024) /* writes at least this large go out with the buffer, uncopied */

static const char *strip_scheme(const char *path)
{
    if (strncmp(path, "file://", 7) == 0)
        return path + 7;
    if (strncmp(path, "file:/", 6) == 0)
        return path + 5;
    return path;
}

static pm_error *sys_err(int err, const char *op, const char *path)
{
    pm_code code = PM_EIO;
    if (err == ENOENT)
        code = PM_ENOTFOUND;
    else if (err == EEXIST)
        code = PM_EEXIST;
    else if (err == ENOMEM)
        code = PM_ENOMEM;
    return pm_error_new(code, "%s %s: %s", op, path, strerror(err));
}

/* Parent directory of a path (malloc'd): "a/b" → "a", "b" → ".", "/b" → "/". */
static pm_error *parent_dir(const char *path, char **out)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return pm_strdup(out, ".");
    while (slash > path && slash[-1] == '/')
        slash--;
    if (slash == path)
        return pm_strdup(out, "/");
    return pm_strndup(out, path, (size_t)(slash - path));
}

static pm_error *fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return sys_err(errno, "open directory", dir);
    int r = fsync(fd);
    int err = errno;
    close(fd);
    /* Some file systems cannot fsync directories; nothing more to do there. */
    if (r != 0 && err != EINVAL && err != ENOTSUP)
        return sys_err(err, "fsync directory", dir);
    return NULL;
}

static pm_error *fsync_parent(const char *path)
{
    char *dir;
    PM_TRY(parent_dir(path, &dir));
    pm_error *e = fsync_dir(dir);
    free(dir);
    return e;
}

static pm_error *write_all(int fd, const uint8_t *p, size_t n, const char *path)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return sys_err(errno, "write", path);
        }
        p += w;
        n -= (size_t)w;
    }
    return NULL;
}

static pm_error *local_mkdirs_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return NULL;
        return pm_error_new(PM_EIO, "mkdirs %s: exists and is not a directory", path);
    }
    char *buf;
    PM_TRY(pm_strdup(&buf, path));
    pm_error *e = NULL;
    size_t len = strlen(buf);
    /* Create each prefix ending at a '/', then the whole path. */
    for (size_t i = 1; i <= len; i++) {
        if (i < len && buf[i] != '/')
            continue;
        if (i < len && buf[i - 1] == '/')
            continue;
        char saved = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0755) != 0) {
            if (errno != EEXIST) {
                e = sys_err(errno, "mkdir", buf);
                break;
            }
            if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) {
                e = pm_error_new(PM_EIO, "mkdirs %s: %s is not a directory", path, buf);
                break;
            }
        }
        buf[i] = saved;
    }
    free(buf);
    return e;
}

/* ---- inputs ---- */

typedef struct local_input {
    pm_input base;
    int fd;
} local_input;

static pm_error *local_read_at(pm_input *in, uint64_t off, void *buf, size_t n)
{
    local_input *li = (local_input *)in;
    uint8_t *p = buf;
    while (n > 0) {
        ssize_t r = pread(li->fd, p, n, (off_t)off);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return sys_err(errno, "read", in->path);
        }
        if (r == 0)
            return pm_error_new(PM_ECORRUPT, "file %s: unexpected end of file at offset %llu",
                                in->path, (unsigned long long)off);
        p += r;
        off += (uint64_t)r;
        n -= (size_t)r;
    }
    return NULL;
}

static void local_input_close(pm_input *in)
{
    local_input *li = (local_input *)in;
    close(li->fd);
    free(in->path);
    free(li);
}

static const pm_input_ops local_input_ops = {local_read_at, local_input_close};

/* A descriptor input over fd (ownership moves in, also on failure). */
static pm_error *fd_input(const char *upath, int fd, uint64_t size, pm_input **out)
{
    local_input *li;
    pm_error *e = pm_calloc(&li, 1, sizeof *li);
    if (!e)
        e = pm_strdup(&li->base.path, upath);
    if (e) {
        free(li);
        close(fd);
        return e;
    }
    li->base.ops = &local_input_ops;
    li->base.size = size;
    li->fd = fd;
    *out = &li->base;
    return NULL;
}

static pm_error *local_open_input(pm_fileio *fio, const char *upath, pm_input **out)
{
    const char *path = strip_scheme(upath);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return sys_err(errno, "open", path);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int err = errno;
        close(fd);
        return sys_err(err, "stat", path);
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return pm_error_new(PM_EINVALID, "open %s: not a regular file", path);
    }
    return fd_input(upath, fd, (uint64_t)st.st_size, out);
}

/* Read up to n bytes at off until end of file: *got = bytes read. */
static pm_error *read_upto(int fd, const char *path, uint64_t off, uint8_t *p, size_t n, size_t *got)
{
    *got = 0;
    while (*got < n) {
        ssize_t r = pread(fd, p + *got, n - *got, (off_t)(off + *got));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return sys_err(errno, "read", path);
        }
        if (r == 0)
            break;
        *got += (size_t)r;
    }
    return NULL;
}

static pm_error *local_open_input_whole(pm_fileio *fio, const char *upath, uint64_t size_hint, uint64_t max,
                                        pm_input **out)
{
    (void)fio;
    const char *path = strip_scheme(upath);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return sys_err(errno, "open", path);
    pm_error *e = NULL;
    uint8_t *data = NULL;
    size_t got = 0;
    if (size_hint && size_hint <= max && size_hint < SIZE_MAX) {
        data = malloc((size_t)size_hint + 1);
        if (!data)
            e = pm_oom();
        if (!e)
            e = read_upto(fd, path, 0, data, (size_t)size_hint + 1, &got);
        if (!e && got <= size_hint) {
            close(fd);
            return pm_input_new_memory(upath, data, got, out);
        }
        if (e && pm_error_code(e) != PM_ENOMEM) {
            /* a directory, or a read error: the stat path below says which */
            pm_error_free(e);
            e = NULL;
            got = 0;
        }
    }
    struct stat st;
    if (!e && fstat(fd, &st) != 0)
        e = sys_err(errno, "stat", path);
    if (!e && !S_ISREG(st.st_mode))
        e = pm_error_new(PM_EINVALID, "open %s: not a regular file", path);
    if (!e && (uint64_t)st.st_size <= max && (uint64_t)st.st_size < SIZE_MAX) {
        /* no hint, or the file is longer than it: read it whole now */
        uint64_t size = (uint64_t)st.st_size;
        uint8_t *d = realloc(data, size ? (size_t)size : 1);
        if (!d)
            e = pm_oom();
        else
            data = d;
        size_t more = 0;
        if (!e && got < size)
            e = read_upto(fd, path, got, data + got, (size_t)(size - got), &more);
        if (!e && got + more != size)
            e = pm_error_new(PM_EIO, "read %s: the file changed size while it was read", path);
        if (!e) {
            close(fd);
            return pm_input_new_memory(upath, data, size, out);
        }
    }
    free(data);
    if (e) {
        close(fd);
        return e;
    }
    return fd_input(upath, fd, (uint64_t)st.st_size, out); /* too large to hold */
}

/* ---- outputs ---- */

typedef struct local_output {
    pm_output base;
    int fd;
    const char *fs_path; /* points into base.path past any scheme */
    uint8_t *buf;
    size_t used;
} local_output;

static pm_error *out_flush(local_output *lo)
{
    pm_error *e = write_all(lo->fd, lo->buf, lo->used, lo->fs_path);
    lo->used = 0;
    return e;
}

/* The buffered bytes, then n bytes at p, in one writev (short writes and
 * EINTR continue where they stopped); the buffer is empty afterwards. */
static pm_error *flush_with(local_output *lo, const uint8_t *p, size_t n)
{
    struct iovec v[2] = {{lo->buf, lo->used}, {(void *)(uintptr_t)p, n}};
    int first = lo->used ? 0 : 1;
    lo->used = 0;
    while (first < 2) {
        ssize_t w = writev(lo->fd, v + first, 2 - first);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return sys_err(errno, "write", lo->fs_path);
        }
        size_t k = (size_t)w;
        while (first < 2 && k >= v[first].iov_len)
            k -= v[first++].iov_len;
        if (first < 2) {
            v[first].iov_base = (uint8_t *)v[first].iov_base + k;
            v[first].iov_len -= k;
        }
    }
    return NULL;
}

static pm_error *local_write(pm_output *o, const void *p, size_t n)
{
    local_output *lo = (local_output *)o;
    if (n >= OUT_DIRECT_SIZE)
        return flush_with(lo, p, n); /* large pieces (page blocks) are not copied */
    if (lo->used + n <= OUT_BUF_SIZE) {
        memcpy(lo->buf + lo->used, p, n);
        lo->used += n;
        return NULL;
    }
    PM_TRY(out_flush(lo));
    memcpy(lo->buf, p, n);
    lo->used = n;
    return NULL;
}

static void out_free(local_output *lo)
{
    free(lo->buf);
    free(lo->base.path);
    free(lo);
}

static void local_abort(pm_output *o)
{
    local_output *lo = (local_output *)o;
    close(lo->fd);
    unlink(lo->fs_path);
    out_free(lo);
}

static pm_error *local_close(pm_output *o, bool sync)
{
    local_output *lo = (local_output *)o;
    pm_error *e = out_flush(lo);
    if (!e && sync && fsync(lo->fd) != 0)
        e = sys_err(errno, "fsync", lo->fs_path);
    if (close(lo->fd) != 0 && !e)
        e = sys_err(errno, "close", lo->fs_path);
    lo->fd = -1;
    if (!e && sync)
        e = fsync_parent(lo->fs_path);
    if (e)
        unlink(lo->fs_path);
    out_free(lo);
    return e;
}

static const pm_output_ops local_output_ops = {local_write, local_close, local_abort};

static pm_error *local_create_output(pm_fileio *fio, const char *upath, bool overwrite,
                                     pm_output **out)
{
    const char *path = strip_scheme(upath);
    char *dir;
    PM_TRY(parent_dir(path, &dir));
    pm_error *e = local_mkdirs_path(dir);
    free(dir);
    PM_TRY(e);
    local_output *lo;
    PM_TRY(pm_calloc(&lo, 1, sizeof *lo));
    lo->fd = -1;
    e = pm_strdup(&lo->base.path, upath);
    if (!e && !(lo->buf = malloc(OUT_BUF_SIZE)))
        e = pm_oom();
    if (e) {
        out_free(lo);
        return e;
    }
    lo->fs_path = lo->base.path + (path - upath);
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (overwrite ? O_TRUNC : O_EXCL);
    lo->fd = open(path, flags, 0644);
    if (lo->fd < 0) {
        e = sys_err(errno, "create", path);
        out_free(lo);
        return e;
    }
    lo->base.ops = &local_output_ops;
    *out = &lo->base;
    return NULL;
}

/* ---- publication ---- */

/* Write `<dir>/.<name>.<uuid>.tmp`, fsynced and closed; *tmp_out malloc'd. */
static pm_error *write_temp(const char *path, const void *p, size_t n, char **tmp_out)
{
    *tmp_out = NULL;
    char *dir;
    PM_TRY(parent_dir(path, &dir));
    pm_error *e = local_mkdirs_path(dir);
    if (e) {
        free(dir);
        return e;
    }
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    char uuid[37];
    e = pm_uuid(uuid);
    pm_buf tmp = PM_BUF_INIT;
    if (!e)
        e = pm_buf_printf(&tmp, "%s/.%s.%s.tmp", dir, name, uuid);
    free(dir);
    const char *tmp_path = NULL;
    if (!e)
        e = pm_buf_cstr(&tmp, &tmp_path);
    if (e) {
        pm_buf_free(&tmp);
        return e;
    }
    int fd = open(tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        e = sys_err(errno, "create", tmp_path);
        pm_buf_free(&tmp);
        return e;
    }
    e = write_all(fd, p, n, tmp_path);
    if (!e && fsync(fd) != 0)
        e = sys_err(errno, "fsync", tmp_path);
    if (close(fd) != 0 && !e)
        e = sys_err(errno, "close", tmp_path);
    if (e) {
        unlink(tmp_path);
        pm_buf_free(&tmp);
        return e;
    }
    *tmp_out = (char *)pm_buf_detach(&tmp, NULL);
    return NULL;
}

static pm_error *local_publish_if_absent(pm_fileio *fio, const char *upath, const void *p,
                                         size_t n, bool *published)
{
    const char *path = strip_scheme(upath);
    char *tmp;
    PM_TRY(write_temp(path, p, n, &tmp));
    pm_error *e = NULL;
    if (link(tmp, path) == 0) {
        *published = true;
    } else if (errno == EEXIST) {
        *published = false;
    } else if (errno == EPERM || errno == ENOTSUP || errno == EOPNOTSUPP || errno == EMLINK) {
        /* No hard links here: an exclusive rename has the same effect. */
        if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
            *published = true;
        else if (errno == EEXIST)
            *published = false;
        else if (errno == EINVAL || errno == ENOSYS)
            e = pm_error_new(PM_EUNSUPPORTED,
                             "publish %s: file system supports neither link(2) nor "
                             "renameat2(RENAME_NOREPLACE)",
                             path);
        else
            e = sys_err(errno, "publish (renameat2)", path);
    } else {
        e = sys_err(errno, "publish (link)", path);
    }
    unlink(tmp); /* gone already after a successful renameat2 */
    free(tmp);
    if (e)
        return e;
    pm_error *se = fsync_parent(path);
    if (se && *published)
        return pm_error_wrap(se, PM_EUNCERTAIN,
                             "published %s but could not make it durable", path);
    return se;
}

static pm_error *local_overwrite_atomic(pm_fileio *fio, const char *upath, const void *p,
                                        size_t n)
{
    const char *path = strip_scheme(upath);
    char *tmp;
    PM_TRY(write_temp(path, p, n, &tmp));
    pm_error *e = NULL;
    if (rename(tmp, path) != 0) {
        e = sys_err(errno, "rename over", path);
        unlink(tmp);
    }
    free(tmp);
    return e ? e : fsync_parent(path);
}

/* ---- metadata and directories ---- */

static pm_error *local_exists(pm_fileio *fio, const char *upath, bool *exists)
{
    const char *path = strip_scheme(upath);
    struct stat st;
    if (stat(path, &st) == 0) {
        *exists = true;
        return NULL;
    }
    if (errno == ENOENT || errno == ENOTDIR) {
        *exists = false;
        return NULL;
    }
    return sys_err(errno, "stat", path);
}

static pm_error *local_is_dir(pm_fileio *fio, const char *upath, bool *is_dir)
{
    const char *path = strip_scheme(upath);
    struct stat st;
    if (stat(path, &st) == 0) {
        *is_dir = S_ISDIR(st.st_mode);
        return NULL;
    }
    if (errno == ENOENT || errno == ENOTDIR) {
        *is_dir = false;
        return NULL;
    }
    return sys_err(errno, "stat", path);
}

static pm_error *local_file_size(pm_fileio *fio, const char *upath, uint64_t *size)
{
    const char *path = strip_scheme(upath);
    struct stat st;
    if (stat(path, &st) != 0)
        return sys_err(errno == ENOTDIR ? ENOENT : errno, "stat", path);
    *size = (uint64_t)st.st_size;
    return NULL;
}

static pm_error *local_modified_ms(pm_fileio *fio, const char *upath, int64_t *ms)
{
    const char *path = strip_scheme(upath);
    struct stat st;
    if (stat(path, &st) != 0)
        return sys_err(errno == ENOTDIR ? ENOENT : errno, "stat", path);
    *ms = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
    return NULL;
}

static pm_error *local_mkdirs(pm_fileio *fio, const char *upath)
{
    return local_mkdirs_path(strip_scheme(upath));
}

static pm_error *local_delete(pm_fileio *fio, const char *upath)
{
    const char *path = strip_scheme(upath);
    if (unlink(path) == 0 || errno == ENOENT || errno == ENOTDIR)
        return NULL;
    if ((errno == EISDIR || errno == EPERM) && rmdir(path) == 0)
        return NULL;
    return sys_err(errno, "delete", path);
}

/* Remove everything inside the directory open as `dfd` (closes dfd). */
static pm_error *remove_contents(int dfd, const char *path)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        int err = errno;
        close(dfd);
        return sys_err(err, "open directory", path);
    }
    pm_error *e = NULL;
    struct dirent *de;
    errno = 0;
    while (!e && (de = readdir(d)) != NULL) {
        const char *name = de->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
            continue;
        if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
            continue;
        if (errno != EISDIR && errno != EPERM) {
            e = sys_err(errno, "delete", name);
            break;
        }
        int sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0) {
            e = sys_err(errno, "open directory", name);
            break;
        }
        e = remove_contents(sub, name);
        if (!e && unlinkat(dfd, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
            e = sys_err(errno, "remove directory", name);
        if (e)
            e = pm_error_wrap(e, 0, "in %s", path);
    }
    closedir(d);
    return e;
}

static pm_error *local_delete_tree(pm_fileio *fio, const char *upath)
{
    const char *path = strip_scheme(upath);
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT || errno == ENOTDIR ? NULL : sys_err(errno, "stat", path);
    if (!S_ISDIR(st.st_mode))
        return local_delete(fio, upath);
    int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return sys_err(errno, "open directory", path);
    PM_TRY(remove_contents(dfd, path));
    if (rmdir(path) != 0 && errno != ENOENT)
        return sys_err(errno, "remove directory", path);
    return NULL;
}

static pm_error *local_rename(pm_fileio *fio, const char *ufrom, const char *uto)
{
    const char *from = strip_scheme(ufrom), *to = strip_scheme(uto);
    if (rename(from, to) != 0)
        return pm_error_wrap(sys_err(errno, "rename", from), 0, "to %s", to);
    return NULL;
}

static pm_error *local_rmdir(pm_fileio *fio, const char *upath, bool *removed)
{
    const char *path = strip_scheme(upath);
    *removed = false;
    if (rmdir(path) == 0) {
        *removed = true;
        return NULL;
    }
    if (errno == ENOENT || errno == ENOTEMPTY || errno == EEXIST)
        return NULL;
    return sys_err(errno, "remove directory", path);
}

static pm_error *local_mkdtemp(pm_fileio *fio, const char *uparent, const char *prefix, char **out)
{
    const char *parent = strip_scheme(uparent);
    size_t n = strlen(parent) + strlen(prefix) + 8;
    char *p = malloc(n);
    if (!p)
        return pm_oom();
    snprintf(p, n, "%s/%sXXXXXX", parent, prefix);
    if (!mkdtemp(p)) { /* mode 0700 */
        pm_error *e = pm_error_wrap(sys_err(errno, "create a temporary directory under", parent), 0,
                                    "prefix %s", prefix);
        free(p);
        return e;
    }
    *out = p;
    return NULL;
}

static pm_error *local_list(pm_fileio *fio, const char *udir, pm_name_list *out)
{
    const char *dir = strip_scheme(udir);
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT)
            return NULL;
        return sys_err(errno, "list", dir);
    }
    pm_error *e = NULL;
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (out->count == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            PM_TRY_GOTO(e, pm_realloc_array(&out->names, ncap, sizeof *out->names), fail);
            cap = ncap;
        }
        PM_TRY_GOTO(e, pm_strdup(&out->names[out->count], de->d_name), fail);
        out->count++;
    }
    closedir(d);
    return NULL;
fail:
    closedir(d);
    pm_fileio_list_free(out);
    return e;
}

static void local_destroy(pm_fileio *fio) { free(fio); }

static const pm_fileio_ops local_ops = {
    .name = "local",
    .destroy = local_destroy,
    .open_input = local_open_input,
    .create_output = local_create_output,
    .publish_if_absent = local_publish_if_absent,
    .overwrite_atomic = local_overwrite_atomic,
    .exists = local_exists,
    .is_dir = local_is_dir,
    .file_size = local_file_size,
    .modified_ms = local_modified_ms,
    .mkdirs = local_mkdirs,
    .delete_file = local_delete,
    .delete_tree = local_delete_tree,
    .rename = local_rename,
    .rmdir = local_rmdir,
    .mkdtemp = local_mkdtemp,
    .list = local_list,
    .open_input_whole = local_open_input_whole,
};

pm_error *pm_fileio_local_new(pm_fileio **out)
{
    *out = NULL;
    pm_fileio *fio;
    PM_TRY(pm_calloc(&fio, 1, sizeof *fio));
    fio->ops = &local_ops;
    *out = fio;
    return NULL;
}
