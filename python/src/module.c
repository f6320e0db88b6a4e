/*
 * python/src/module.c — the module `paimon_c._native`: its state (the
 * exception classes), pm_error → exception, the handle capsules and the
 * string helpers of native.h; the module's function table is the union of
 * the tables of catalog.c, read.c, write.c and compact.c.
 */
#include "native.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <paimon/version.h>

pmx_state *pmx_state_of(PyObject *module)
{
    return (pmx_state *)PyModule_GetState(module);
}

/* ------------------------------------------------------------------ */
/* errors                                                              */

/* [(code_name, message), ...] from e to its root. */
static PyObject *cause_list(const pm_error *e)
{
    PyObject *list = PyList_New(0);
    for (const pm_error *c = e; list && c; c = pm_error_cause(c)) {
        PyObject *item = Py_BuildValue("(ss)", pm_code_name(pm_error_code(c)), pm_error_message(c));
        if (!item || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            Py_CLEAR(list);
            break;
        }
        Py_DECREF(item);
    }
    return list;
}

PyObject *pmx_error_object(PyObject *module, pm_error *e)
{
    if (!e) {
        PyErr_SetString(PyExc_SystemError, "paimon_c: an error object without an error");
        return NULL;
    }
    pm_code code = pm_error_code(e);
    char *text = pm_error_format(e);
    const char *msg = text ? text : pm_error_message(e);
    pmx_state *st = module ? pmx_state_of(module) : NULL;
    PyObject *cls = NULL, *exc = NULL;
    if (st && code >= 0 && code < PMX_NCODES)
        cls = st->error_by_code[code];
    if (!cls && st)
        cls = st->error_base;
    if (!cls) { /* before the Python layer registered its classes */
        exc = PyObject_CallFunction(PyExc_RuntimeError, "s", msg);
    } else {
        PyObject *causes = cause_list(e);
        exc = causes ? PyObject_CallFunction(cls, "siO", msg, (int)code, causes) : NULL;
        Py_XDECREF(causes);
    }
    free(text);
    pm_error_free(e);
    return exc;
}

PyObject *pmx_raise(PyObject *module, pm_error *e)
{
    PyObject *exc = pmx_error_object(module, e);
    if (exc) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return NULL;
}

/* register_errors(base, {code: cls}) */
static PyObject *register_errors(PyObject *self, PyObject *args)
{
    PyObject *base, *by_code;
    if (!PyArg_ParseTuple(args, "OO!", &base, &PyDict_Type, &by_code))
        return NULL;
    pmx_state *st = pmx_state_of(self);
    Py_INCREF(base);
    Py_XDECREF(st->error_base);
    st->error_base = base;
    for (int c = 0; c < PMX_NCODES; c++) {
        PyObject *key = PyLong_FromLong(c);
        if (!key)
            return NULL;
        PyObject *cls = PyDict_GetItem(by_code, key); /* borrowed */
        Py_DECREF(key);
        Py_XINCREF(cls);
        Py_XDECREF(st->error_by_code[c]);
        st->error_by_code[c] = cls;
    }
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ */
/* handles                                                             */

typedef struct pmx_box {
    void *ptr;
    pmx_free_fn free;
    char name[40]; /* the capsule's name must outlive it */
} pmx_box;

static pmx_box *box_of(PyObject *cap)
{
    const char *name = PyCapsule_GetName(cap);
    return name ? (pmx_box *)PyCapsule_GetPointer(cap, name) : NULL;
}

static void handle_destroy(PyObject *cap)
{
    /* May run while an exception is pending (a handle passed as a
     * temporary to a call that failed): keep it. */
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    pmx_box *b = box_of(cap);
    PyObject *owner = (PyObject *)PyCapsule_GetContext(cap);
    if (b) {
        if (b->ptr && b->free)
            b->free(b->ptr);
        free(b);
    }
    PyErr_Clear();
    Py_XDECREF(owner);
    PyErr_Restore(et, ev, tb);
}

PyObject *pmx_handle(void *ptr, const char *kind, pmx_free_fn free_fn, PyObject *owner)
{
    pmx_box *b = calloc(1, sizeof *b);
    if (!b) {
        if (ptr && free_fn)
            free_fn(ptr);
        return PyErr_NoMemory();
    }
    b->ptr = ptr;
    b->free = free_fn;
    snprintf(b->name, sizeof b->name, "paimon_c.%s", kind);
    PyObject *cap = PyCapsule_New(b, b->name, handle_destroy);
    if (!cap) {
        if (ptr && free_fn)
            free_fn(ptr);
        free(b);
        return NULL;
    }
    if (owner) {
        Py_INCREF(owner);
        if (PyCapsule_SetContext(cap, owner) < 0) {
            Py_DECREF(owner);
            Py_DECREF(cap);
            return NULL;
        }
    }
    return cap;
}

static pmx_box *box_checked(PyObject *handle, const char *kind)
{
    char name[40];
    snprintf(name, sizeof name, "paimon_c.%s", kind);
    if (!PyCapsule_CheckExact(handle) || !PyCapsule_IsValid(handle, name)) {
        PyErr_Format(PyExc_TypeError, "expected a paimon_c %s handle", kind);
        return NULL;
    }
    return (pmx_box *)PyCapsule_GetPointer(handle, name);
}

void *pmx_get(PyObject *handle, const char *kind)
{
    pmx_box *b = box_checked(handle, kind);
    if (!b)
        return NULL;
    if (!b->ptr) {
        PyErr_Format(PyExc_ValueError, "the %s is closed", kind);
        return NULL;
    }
    return b->ptr;
}

void pmx_close(PyObject *handle, const char *kind)
{
    pmx_box *b = box_checked(handle, kind);
    if (!b) {
        PyErr_Clear();
        return;
    }
    if (b->ptr && b->free)
        b->free(b->ptr);
    b->ptr = NULL;
}

void *pmx_take(PyObject *handle, const char *kind)
{
    void *p = pmx_get(handle, kind);
    if (p)
        box_checked(handle, kind)->ptr = NULL;
    return p;
}

PyObject *pmx_owner(PyObject *handle)
{
    PyObject *o = (PyObject *)PyCapsule_GetContext(handle);
    if (!o)
        PyErr_Clear();
    return o;
}

/* ------------------------------------------------------------------ */
/* strings                                                             */

int pmx_strdup_opt(char **out, PyObject *s, const char *what)
{
    *out = NULL;
    if (!s || s == Py_None)
        return 0;
    if (!PyUnicode_Check(s)) {
        PyErr_Format(PyExc_TypeError, "%s must be a str", what);
        return -1;
    }
    PyObject *bytes = PyUnicode_AsUTF8String(s);
    if (!bytes)
        return -1;
    char *data;
    Py_ssize_t len;
    if (PyBytes_AsStringAndSize(bytes, &data, &len) < 0) {
        Py_DECREF(bytes);
        return -1;
    }
    if (memchr(data, 0, (size_t)len)) {
        Py_DECREF(bytes);
        PyErr_Format(PyExc_ValueError, "%s contains a NUL character", what);
        return -1;
    }
    *out = malloc((size_t)len + 1);
    if (*out)
        memcpy(*out, data, (size_t)len + 1);
    Py_DECREF(bytes);
    if (!*out) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

void pmx_strv_clear(pmx_strv *s)
{
    for (size_t i = 0; s->v && i < s->n; i++)
        free((void *)s->v[i]);
    free((void *)s->v);
    s->v = NULL;
    s->n = 0;
}

int pmx_strv_from(pmx_strv *out, PyObject *seq, const char *what)
{
    out->v = NULL;
    out->n = 0;
    if (!seq || seq == Py_None)
        return 0;
    if (PyUnicode_Check(seq)) {
        PyErr_Format(PyExc_TypeError, "%s must be a list of str, not a str", what);
        return -1;
    }
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast)
        return -1;
    Py_ssize_t n = PySequence_Size(fast);
    int rc = -1;
    if (n < 0)
        goto done;
    out->v = calloc((size_t)n + 1, sizeof *out->v);
    if (!out->v) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        char *s = NULL;
        PyObject *item = PySequence_GetItem(fast, i);
        if (!item)
            goto done;
        int r = item == Py_None ? (PyErr_Format(PyExc_TypeError, "%s[%zd] is None", what, i), -1)
                                : pmx_strdup_opt(&s, item, what);
        Py_DECREF(item);
        if (r < 0)
            goto done;
        out->v[out->n++] = s;
    }
    rc = 0;
done:
    Py_DECREF(fast);
    if (rc < 0)
        pmx_strv_clear(out);
    return rc;
}

PyObject *pmx_list(size_t n, pmx_item_fn item, void *ctx)
{
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list && i < n; i++) {
        PyObject *v = item(ctx, i);
        if (!v) {
            Py_CLEAR(list);
            break;
        }
        PyList_SetItem(list, (Py_ssize_t)i, v); /* steals v */
    }
    return list;
}

PyObject *pmx_take_text(char *text)
{
    if (!text)
        return PyErr_NoMemory();
    PyObject *s = PyUnicode_FromString(text);
    pm_free(text);
    return s;
}

/* ------------------------------------------------------------------ */
/* JSON forms (plans, tasks, results, splits, commit messages)          */

PyObject *pmx_to_json(PyObject *self, PyObject *args, const char *kind, pmx_to_json_fn fn)
{
    PyObject *h;
    if (!PyArg_ParseTuple(args, "O", &h))
        return NULL;
    void *obj = pmx_get(h, kind);
    if (!obj)
        return NULL;
    char *json = NULL;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = fn(obj, &json);
    PMX_NOGIL_END
    if (e)
        return pmx_raise(self, e);
    return pmx_take_text(json);
}

PyObject *pmx_from_json(PyObject *self, PyObject *args, const char *kind, pmx_from_json_fn fn, pmx_free_fn free_fn)
{
    const char *text;
    Py_ssize_t len;
    if (!PyArg_ParseTuple(args, "s#", &text, &len))
        return NULL;
    void *obj = NULL;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = fn(&obj, text, (size_t)len);
    PMX_NOGIL_END
    if (e)
        return pmx_raise(self, e);
    return pmx_handle(obj, kind, free_fn, NULL);
}

/* ------------------------------------------------------------------ */
/* the module                                                          */

static PyObject *version(PyObject *self, PyObject *unused)
{
    return Py_BuildValue("(si)", pm_version(), pm_abi_version());
}

static PyMethodDef module_methods[] = {
    {"register_errors", register_errors, METH_VARARGS,
     "register_errors(base, {code: cls}): the exception classes raised for pm_error codes."},
    {"version", version, METH_NOARGS, "version() -> (libpaimon version, ABI version)"},
    {NULL, NULL, 0, NULL},
};

static int state_traverse(PyObject *m, visitproc visit, void *arg)
{
    pmx_state *st = pmx_state_of(m);
    if (!st)
        return 0;
    Py_VISIT(st->error_base);
    for (int i = 0; i < PMX_NCODES; i++)
        Py_VISIT(st->error_by_code[i]);
    return 0;
}

static int state_clear(PyObject *m)
{
    pmx_state *st = pmx_state_of(m);
    if (!st)
        return 0;
    Py_CLEAR(st->error_base);
    for (int i = 0; i < PMX_NCODES; i++)
        Py_CLEAR(st->error_by_code[i]);
    return 0;
}

static void state_free(void *m)
{
    state_clear((PyObject *)m);
}

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "paimon_c._native",
    "libpaimon bound through its public C API (use the paimon_c package, not this module).",
    sizeof(pmx_state),
    NULL,
    NULL,
    state_traverse,
    state_clear,
    state_free,
};

static int add_methods(PyObject *m, PyMethodDef *defs)
{
    for (PyMethodDef *d = defs; d->ml_name; d++) {
        PyObject *f = PyCFunction_NewEx(d, m, NULL);
        if (!f)
            return -1;
        int rc = PyModule_AddObject(m, d->ml_name, f);
        if (rc < 0) {
            Py_DECREF(f);
            return -1;
        }
    }
    return 0;
}

PyMODINIT_FUNC PyInit__native(void)
{
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    memset(pmx_state_of(m), 0, sizeof(pmx_state));
    if (add_methods(m, module_methods) < 0 || add_methods(m, pmx_catalog_methods) < 0 ||
        add_methods(m, pmx_read_methods) < 0 || add_methods(m, pmx_write_methods) < 0 ||
        add_methods(m, pmx_compact_methods) < 0 ||
        PyModule_AddStringConstant(m, "LIBPAIMON_VERSION", PM_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
