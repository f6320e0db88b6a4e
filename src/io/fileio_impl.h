/*
 * io/fileio_impl.h — the vtables behind pm_fileio, pm_input and pm_output.
 *
 * fileio.c implements the public API of fileio.h by dispatching through
 * these tables, so an object-store backend only has to fill in the
 * operations (and can leave the rest of the engine unchanged).  A backend
 * embeds the public struct as the FIRST member of its own struct and casts.
 * Paths reach the backend exactly as the caller gave them.
 */
#ifndef PM_IO_FILEIO_IMPL_H
#define PM_IO_FILEIO_IMPL_H

#include "io/fileio.h"

typedef struct pm_fileio_ops {
    const char *name; /* "local", ... (for messages) */
    void (*destroy)(pm_fileio *fio);
    pm_error *(*open_input)(pm_fileio *fio, const char *path, pm_input **out);
    pm_error *(*create_output)(pm_fileio *fio, const char *path, bool overwrite,
                               pm_output **out);
    pm_error *(*publish_if_absent)(pm_fileio *fio, const char *path, const void *p, size_t n,
                                   bool *published);
    pm_error *(*overwrite_atomic)(pm_fileio *fio, const char *path, const void *p, size_t n);
    pm_error *(*exists)(pm_fileio *fio, const char *path, bool *exists);
    pm_error *(*is_dir)(pm_fileio *fio, const char *path, bool *is_dir);
    pm_error *(*file_size)(pm_fileio *fio, const char *path, uint64_t *size);
    pm_error *(*modified_ms)(pm_fileio *fio, const char *path, int64_t *ms);
    pm_error *(*mkdirs)(pm_fileio *fio, const char *path);
    pm_error *(*delete_file)(pm_fileio *fio, const char *path);
    pm_error *(*delete_tree)(pm_fileio *fio, const char *path);
    pm_error *(*rename)(pm_fileio *fio, const char *from, const char *to);
    pm_error *(*rmdir)(pm_fileio *fio, const char *path, bool *removed);
    /* *out is malloc'd by the backend */
    pm_error *(*mkdtemp)(pm_fileio *fio, const char *parent, const char *prefix, char **out);
    /* Unsorted names; fileio.c sorts them. */
    pm_error *(*list)(pm_fileio *fio, const char *dir, pm_name_list *out);
    /* Optional (NULL: fileio.c opens with open_input and reads the file
     * whole itself): pm_input_open_whole's semantics (fileio.h); a whole
     * file becomes a memory input (pm_input_new_memory). */
    pm_error *(*open_input_whole)(pm_fileio *fio, const char *path, uint64_t size_hint, uint64_t max,
                                  pm_input **out);
} pm_fileio_ops;

struct pm_fileio {
    const pm_fileio_ops *ops;
};

typedef struct pm_input_ops {
    /* Read exactly n bytes at off (bounds already checked against size). */
    pm_error *(*read_at)(pm_input *in, uint64_t off, void *buf, size_t n);
    void (*close)(pm_input *in); /* also frees */
} pm_input_ops;

struct pm_input {
    const pm_input_ops *ops;
    char *path;          /* owned; freed by the backend's close */
    uint64_t size;       /* fixed at open */
    const uint8_t *data; /* a memory input's bytes (pm_input_data), else NULL */
};

/* A memory input over `data` (size bytes, malloc'd; ownership moves in,
 * also on failure) named `path` (copied): reads are copies from it. */
pm_error *pm_input_new_memory(const char *path, uint8_t *data, uint64_t size, pm_input **out);

typedef struct pm_output_ops {
    pm_error *(*write)(pm_output *o, const void *p, size_t n);
    /* Flush, optionally sync, close and free; on error remove the file. */
    pm_error *(*close)(pm_output *o, bool sync);
    void (*abort)(pm_output *o); /* close, delete, free */
} pm_output_ops;

struct pm_output {
    const pm_output_ops *ops;
    char *path;   /* owned */
    uint64_t pos; /* bytes accepted so far (maintained by fileio.c) */
};

#endif
