/*
 * io/fileio.h — file I/O behind an interface (local today, object stores
 * later).
 *
 * A pm_fileio is a table-independent handle; several may coexist.  It opens
 * random-access inputs (pread-style, safe to share between threads), creates
 * streaming outputs, and offers the directory operations Paimon needs.
 *
 * Publication: pm_fileio_publish_if_absent writes the bytes to a temporary
 * file beside the target (`.<name>.<uuid>.tmp`), fsyncs it, then links it to
 * the target name with link(2) (or renameat2 RENAME_NOREPLACE), which fails
 * when the target exists even across processes; the temp file is removed in
 * every case and the directory is fsynced.  This is the atomic step of every
 * snapshot commit.
 */
#ifndef PM_IO_FILEIO_H
#define PM_IO_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "paimon/error.h"

typedef struct pm_fileio pm_fileio;
typedef struct pm_input pm_input;
typedef struct pm_output pm_output;

/* Local file system. */
pm_error *pm_fileio_local_new(pm_fileio **out);
void pm_fileio_free(pm_fileio *fio);

/* Random-access input. PM_ENOTFOUND when missing. */
pm_error *pm_input_open(pm_fileio *fio, const char *path, pm_input **out);
/* As pm_input_open, but a file of at most `max` bytes is read whole at
 * open (the descriptor is closed at once; reads are copies from memory and
 * pm_input_data gives the bytes).  size_hint: the size the caller expects
 * (a manifest's file size; 0 = unknown): when it is the file's size the
 * local backend opens and reads with two system calls and no stat; a wrong
 * hint costs a stat, never wrong bytes (the size is always the file's).
 * Larger files are opened as by pm_input_open. */
pm_error *pm_input_open_whole(pm_fileio *fio, const char *path, uint64_t size_hint, uint64_t max, pm_input **out);
/* The size up to which the format readers read a file whole (one read at
 * open instead of one per footer, index and chunk). */
#define PM_INPUT_WHOLE_MAX ((uint64_t)256 << 10)
uint64_t pm_input_size(const pm_input *in);
const char *pm_input_path(const pm_input *in);
/* The whole file's bytes of an input read whole (pm_input_open_whole),
 * borrowed until pm_input_close; NULL for other inputs. */
const uint8_t *pm_input_data(const pm_input *in);
/* Read exactly n bytes at off; PM_ECORRUPT if the file is shorter. Thread-safe. */
pm_error *pm_input_read_at(pm_input *in, uint64_t off, void *buf, size_t n);
void pm_input_close(pm_input *in);

/* Streaming output. overwrite=false → PM_EEXIST if the path exists.
 * Parent directories are created. */
pm_error *pm_output_create(pm_fileio *fio, const char *path, bool overwrite, pm_output **out);
pm_error *pm_output_write(pm_output *o, const void *p, size_t n);
uint64_t pm_output_pos(const pm_output *o);
/* Flush, optionally fsync, close and free. On error the file is removed. */
pm_error *pm_output_close(pm_output *o, bool sync);
/* Close, delete the partial file and free. NULL is fine. */
void pm_output_abort(pm_output *o);

/* Whole small files. */
pm_error *pm_fileio_read_file(pm_fileio *fio, const char *path, pm_buf *out);
/* Write-if-absent (see above). *published=false when the target existed. */
pm_error *pm_fileio_publish_if_absent(pm_fileio *fio, const char *path, const void *p, size_t n,
                                      bool *published);
/* Replace atomically (temp + rename); used for hint files. */
pm_error *pm_fileio_overwrite_atomic(pm_fileio *fio, const char *path, const void *p, size_t n);

pm_error *pm_fileio_exists(pm_fileio *fio, const char *path, bool *exists);
pm_error *pm_fileio_is_dir(pm_fileio *fio, const char *path, bool *is_dir);
pm_error *pm_fileio_file_size(pm_fileio *fio, const char *path, uint64_t *size);
/* Last modification time, epoch milliseconds. */
pm_error *pm_fileio_modified_ms(pm_fileio *fio, const char *path, int64_t *ms);
pm_error *pm_fileio_mkdirs(pm_fileio *fio, const char *path);
/* Delete a file; missing is not an error. */
pm_error *pm_fileio_delete(pm_fileio *fio, const char *path);
/* Delete a directory tree; missing is not an error. */
pm_error *pm_fileio_delete_tree(pm_fileio *fio, const char *path);
pm_error *pm_fileio_rename(pm_fileio *fio, const char *from, const char *to);
/* Remove the directory `path` when it is empty.  *removed = false (not an
 * error) when it is missing or holds anything; other failures are
 * errors.  removed may be NULL. */
pm_error *pm_fileio_rmdir(pm_fileio *fio, const char *path, bool *removed);
/* Create a new private (owner-only) directory `<parent>/<prefix>XXXXXX`
 * with a random suffix that did not exist before; *out = its path
 * (malloc'd, the caller frees).  The parent must exist (PM_ENOTFOUND). */
pm_error *pm_fileio_mkdtemp(pm_fileio *fio, const char *parent, const char *prefix, char **out);

/* Names (not paths) in a directory, sorted, excluding "." and "..".
 * Missing directory → empty list.  Free with pm_fileio_list_free. */
typedef struct pm_name_list {
    char **names;
    size_t count;
} pm_name_list;
pm_error *pm_fileio_list(pm_fileio *fio, const char *dir, pm_name_list *out);
void pm_fileio_list_free(pm_name_list *l);

/* Join two path parts with exactly one '/' (malloc'd). */
char *pm_path_join(const char *a, const char *b);

#endif
