/*
 * python/src/native.h — what the files of the CPython extension
 * `paimon_c._native` share: handles, errors, string lists, the GIL.
 *
 * The extension is compiled against CPython's stable ABI (Py_LIMITED_API
 * 0x03090000) and binds only the public API <paimon/...>.  It is a set of
 * module-level functions over handles; the classes users see live in the
 * Python layer (the modules of python/paimon_c/).
 *
 * Handles.  Every libpaimon object crosses as a PyCapsule named
 * "paimon_c.<kind>" whose pointer is a pmx_box {ptr, free}.  The capsule's
 * context is the handle it depends on (a reader's table, a split's scan, a
 * plan's builder), so a dependency lives as long as anything that borrows
 * from it.  pmx_close() frees the object early (ptr becomes NULL; later
 * use is a ValueError "closed"); the capsule destructor frees what is
 * left.  Objects that the C API does not allow to be used from two
 * threads at once (writers, builders) are guarded by a lock in the Python
 * layer.
 *
 * Errors.  A pm_error becomes an instance of the exception class the
 * Python layer registered for its code (register_errors), built as
 * cls(message, code, code_name, causes): message is the whole cause chain
 * (pm_error_format), causes a list of (code_name, message) from the
 * outermost error to the root.
 *
 * The GIL.  Every call into libpaimon that does I/O or computation runs
 * between PMX_NOGIL_BEGIN / PMX_NOGIL_END; arguments it reads are copied
 * or kept alive by the caller's references for the duration.
 */
#ifndef PAIMON_PY_NATIVE_H
#define PAIMON_PY_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <paimon/error.h>
#include <paimon/read.h>
#include <paimon/types.h>

/* ---- module state ---- */

#define PMX_NCODES 11 /* PM_OK .. PM_EINTERNAL */

typedef struct pmx_state {
    PyObject *error_base;              /* paimon_c.PaimonError (NULL before register_errors) */
    PyObject *error_by_code[PMX_NCODES];
} pmx_state;

pmx_state *pmx_state_of(PyObject *module);

/* Raise `e` (consumed) as the registered exception; returns NULL. */
PyObject *pmx_raise(PyObject *module, pm_error *e);
/* The exception object for `e` (consumed), not raised; NULL with an error set. */
PyObject *pmx_error_object(PyObject *module, pm_error *e);

/* ---- handles ---- */

typedef void (*pmx_free_fn)(void *);

/* New capsule "paimon_c.<kind>" holding ptr; `free` (NULL = borrowed) runs
 * when the capsule dies or is closed; `owner` (may be NULL) is kept alive
 * as long as the capsule.  On failure frees ptr and returns NULL. */
PyObject *pmx_handle(void *ptr, const char *kind, pmx_free_fn free, PyObject *owner);
/* The object of a live handle of `kind`; NULL with TypeError/ValueError set. */
void *pmx_get(PyObject *handle, const char *kind);
/* Take the object out of a live handle (the handle is closed, nothing is
 * freed: ownership moves to the caller); NULL with an error set. */
void *pmx_take(PyObject *handle, const char *kind);
/* Free the handle's object now (idempotent). */
void pmx_close(PyObject *handle, const char *kind);
/* The handle's owner (borrowed), or NULL. */
PyObject *pmx_owner(PyObject *handle);

/* ---- strings ---- */

/* A Python sequence of str as a C array of UTF-8 strings; valid until
 * pmx_strv_clear (the texts are copied, so the GIL may be released while
 * they are used).  None gives n = 0 and v = NULL. */
typedef struct pmx_strv {
    const char **v;
    size_t n;
} pmx_strv;
int pmx_strv_from(pmx_strv *out, PyObject *seq, const char *what); /* 0 ok, -1 error set */
void pmx_strv_clear(pmx_strv *s);

/* A str (or None → NULL) copied to malloc'd UTF-8; 0 ok, -1 error set. */
int pmx_strdup_opt(char **out, PyObject *s, const char *what);

/* A list of n items item(ctx, i) (new references); NULL with an error set. */
typedef PyObject *(*pmx_item_fn)(void *ctx, size_t i);
PyObject *pmx_list(size_t n, pmx_item_fn item, void *ctx);

/* A malloc'd C string as str, then free()d (pm_free for library text). */
PyObject *pmx_take_text(char *text);

/* The JSON forms of the library's documents, in one shape: to_json(handle)
 * -> str with the GIL released around fn; from_json(str) -> a new handle
 * of `kind` (no owner) freed by free_fn.  NULL with an error set. */
typedef pm_error *(*pmx_to_json_fn)(const void *obj, char **out);
typedef pm_error *(*pmx_from_json_fn)(void **out, const char *json, size_t len);
PyObject *pmx_to_json(PyObject *self, PyObject *args, const char *kind, pmx_to_json_fn fn);
PyObject *pmx_from_json(PyObject *self, PyObject *args, const char *kind, pmx_from_json_fn fn, pmx_free_fn free_fn);

/* Release the GIL around a libpaimon call. */
#define PMX_NOGIL_BEGIN Py_BEGIN_ALLOW_THREADS
#define PMX_NOGIL_END Py_END_ALLOW_THREADS

/* ---- the function tables of each file ---- */

extern PyMethodDef pmx_catalog_methods[];
extern PyMethodDef pmx_read_methods[];
extern PyMethodDef pmx_write_methods[];
extern PyMethodDef pmx_compact_methods[];

/* Shared between files: the table of a table handle (kind "table"). */
#define PMX_TABLE "table"

/* Read options picking a snapshot (0 = latest) and partitions (a list of
 * "k=v[,k2=v2]" or None), as scans and file lists take them; *pv holds the
 * texts until pmx_strv_clear.  0 ok, -1 error set. */
int pmx_scan_options(pm_read_options *o, pmx_strv *pv, long long snapshot_id, PyObject *partitions);

struct pm_compact_metrics;
/* A pm_compact_metrics as the tuple CompactMetrics is built from. */
PyObject *pmx_metrics_tuple(const struct pm_compact_metrics *m);

/* An "arrow_schema" capsule (the Arrow PyCapsule interface) of a row type. */
PyObject *pmx_schema_capsule_of_type(PyObject *module, const pm_type *row_type);

#endif
