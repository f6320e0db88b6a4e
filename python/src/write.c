/*
 * python/src/write.c — writers, commit messages and commits
 * (paimon/write.h) for the Python layer's BatchWriteBuilder /
 * BatchTableWrite / BatchTableCommit.
 *
 * Rows arrive through the Arrow PyCapsule interface: an
 * "arrow_array_stream" capsule (moved out of the capsule, then written and
 * released by pm_writer_write_arrow_stream) or an "arrow_schema" +
 * "arrow_array" pair (the array moved out of its capsule into
 * pm_writer_write_arrow_move; the schema is borrowed).  Both write columns
 * whose layout is the table's without copying their buffers.  A writer handle that dies unclosed aborts its
 * writer (deletes the files it wrote and did not hand out).
 */
#include "native.h"

#include <stdlib.h>
#include <string.h>

#include <paimon/compact.h>
#include <paimon/write.h>

#define WRITER "writer"
#define MESSAGES "messages"

static void writer_abort_free(void *p)
{
    pm_writer_abort(p);
}

static void messages_free(void *p)
{
    pm_commit_messages_free(p);
}

/* The options pm_writer_new and pm_commit share; strings copied into *strs. */
typedef struct write_opts {
    pm_write_options o;
    char *user;
    pmx_strv parts;
} write_opts;

static int write_opts_from(write_opts *w, PyObject *user, long long ident, int overwrite, PyObject *parts,
                           Py_ssize_t threads)
{
    memset(w, 0, sizeof *w);
    pm_write_options_init(&w->o);
    if (threads < 0) {
        PyErr_SetString(PyExc_ValueError, "threads must be >= 0");
        return -1;
    }
    if (pmx_strdup_opt(&w->user, user, "commit_user") < 0 || pmx_strv_from(&w->parts, parts, "partitions") < 0) {
        free(w->user);
        return -1;
    }
    w->o.commit_user = w->user;
    w->o.commit_identifier = ident;
    w->o.overwrite = overwrite;
    w->o.overwrite_partitions = w->parts.v;
    w->o.noverwrite_partitions = w->parts.n;
    w->o.threads = (size_t)threads;
    return 0;
}

static void write_opts_clear(write_opts *w)
{
    free(w->user);
    pmx_strv_clear(&w->parts);
}

/* writer_new(table, commit_user, identifier, overwrite, partitions, threads) -> writer */
static PyObject *writer_new(PyObject *self, PyObject *args)
{
    PyObject *th, *user, *parts;
    long long ident;
    int overwrite;
    Py_ssize_t threads;
    if (!PyArg_ParseTuple(args, "OOLpOn", &th, &user, &ident, &overwrite, &parts, &threads))
        return NULL;
    pm_table *t = pmx_get(th, PMX_TABLE);
    write_opts wo;
    if (!t || write_opts_from(&wo, user, ident, overwrite, parts, threads) < 0)
        return NULL;
    pm_writer *w = NULL;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_writer_new(&w, t, &wo.o);
    PMX_NOGIL_END
    write_opts_clear(&wo);
    if (e)
        return pmx_raise(self, e);
    return pmx_handle(w, WRITER, writer_abort_free, th);
}

/* writer_info(writer) -> (input arrow schema capsule, commit_user, rows written) */
static PyObject *writer_info(PyObject *self, PyObject *args)
{
    PyObject *h;
    if (!PyArg_ParseTuple(args, "O", &h))
        return NULL;
    pm_writer *w = pmx_get(h, WRITER);
    if (!w)
        return NULL;
    PyObject *cap = pmx_schema_capsule_of_type(self, pm_writer_input_type(w));
    if (!cap)
        return NULL;
    PyObject *ret = Py_BuildValue("(OsL)", cap, pm_writer_commit_user(w), (long long)pm_writer_row_count(w));
    Py_DECREF(cap);
    return ret;
}

/* writer_write_stream(writer, arrow_array_stream capsule): the stream is
 * moved out of the capsule and released once written. */
static PyObject *writer_write_stream(PyObject *self, PyObject *args)
{
    PyObject *h, *cap;
    if (!PyArg_ParseTuple(args, "OO", &h, &cap))
        return NULL;
    pm_writer *w = pmx_get(h, WRITER);
    if (!w)
        return NULL;
    struct ArrowArrayStream *src = PyCapsule_GetPointer(cap, "arrow_array_stream");
    if (!src)
        return NULL;
    if (!src->release) {
        PyErr_SetString(PyExc_ValueError, "the Arrow stream was already consumed");
        return NULL;
    }
    struct ArrowArrayStream stream = *src;
    src->release = NULL; /* moved: the capsule's destructor leaves it alone */
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_writer_write_arrow_stream(w, &stream);
    PMX_NOGIL_END
    if (e)
        return pmx_raise(self, e);
    Py_RETURN_NONE;
}

/* writer_write_array(writer, arrow_schema capsule, arrow_array capsule) */
static PyObject *writer_write_array(PyObject *self, PyObject *args)
{
    PyObject *h, *scap, *acap;
    if (!PyArg_ParseTuple(args, "OOO", &h, &scap, &acap))
        return NULL;
    pm_writer *w = pmx_get(h, WRITER);
    if (!w)
        return NULL;
    struct ArrowSchema *s = PyCapsule_GetPointer(scap, "arrow_schema");
    struct ArrowArray *a = s ? PyCapsule_GetPointer(acap, "arrow_array") : NULL;
    if (!a)
        return NULL;
    if (!s->release || !a->release) {
        PyErr_SetString(PyExc_ValueError, "the Arrow array was already consumed");
        return NULL;
    }
    struct ArrowArray array = *a;
    a->release = NULL; /* moved: the capsule's destructor leaves it alone */
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_writer_write_arrow_move(w, s, &array);
    PMX_NOGIL_END
    if (e)
        return pmx_raise(self, e);
    Py_RETURN_NONE;
}

/* writer_prepare(writer) -> messages */
static PyObject *writer_prepare(PyObject *self, PyObject *args)
{
    PyObject *h;
    if (!PyArg_ParseTuple(args, "O", &h))
        return NULL;
    pm_writer *w = pmx_get(h, WRITER);
    if (!w)
        return NULL;
    pm_commit_messages *m = NULL;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_writer_prepare_commit(&m, w);
    PMX_NOGIL_END
    if (e)
        return pmx_raise(self, e);
    return pmx_handle(m, MESSAGES, messages_free, pmx_owner(h));
}

/* writer_close(writer): abort (delete files not handed out) and free. */
static PyObject *writer_close(PyObject *self, PyObject *args)
{
    PyObject *h;
    if (!PyArg_ParseTuple(args, "O", &h))
        return NULL;
    pm_writer *w = pmx_take(h, WRITER);
    if (!w) {
        PyErr_Clear(); /* closing twice is fine */
        Py_RETURN_NONE;
    }
    PMX_NOGIL_BEGIN
    pm_writer_abort(w);
    PMX_NOGIL_END
    Py_RETURN_NONE;
}

/* messages_info(messages) -> (messages, files, rows) */
static PyObject *messages_info(PyObject *self, PyObject *args)
{
    PyObject *h;
    if (!PyArg_ParseTuple(args, "O", &h))
        return NULL;
    pm_commit_messages *m = pmx_get(h, MESSAGES);
    if (!m)
        return NULL;
    return Py_BuildValue("(nLL)", (Py_ssize_t)pm_commit_messages_count(m),
                         (long long)pm_commit_messages_file_count(m), (long long)pm_commit_messages_row_count(m));
}

static pm_error *messages_to(const void *o, char **out)
{
    return pm_commit_messages_to_json(out, o);
}
static pm_error *messages_from(void **out, const char *j, size_t n)
{
    return pm_commit_messages_from_json((pm_commit_messages **)out, j, n);
}

/* messages_to_json(messages) -> str */
static PyObject *messages_to_json(PyObject *self, PyObject *args)
{
    return pmx_to_json(self, args, MESSAGES, messages_to);
}

/* messages_from_json(str) -> messages (checked against their table by the commit) */
static PyObject *messages_from_json(PyObject *self, PyObject *args)
{
    return pmx_from_json(self, args, MESSAGES, messages_from, messages_free);
}

/* messages_merge(dst, src): src's messages move into dst (src is closed). */
static PyObject *messages_merge(PyObject *self, PyObject *args)
{
    PyObject *dh, *sh;
    if (!PyArg_ParseTuple(args, "OO", &dh, &sh))
        return NULL;
    if (dh == sh) {
        PyErr_SetString(PyExc_ValueError, "cannot merge commit messages into themselves");
        return NULL;
    }
    pm_commit_messages *d = pmx_get(dh, MESSAGES);
    pm_commit_messages *s = d ? pmx_take(sh, MESSAGES) : NULL;
    if (!s)
        return NULL;
    pm_error *e = pm_commit_messages_merge(d, s);
    if (e)
        return pmx_raise(self, e);
    Py_RETURN_NONE;
}

/* messages_abort(table, messages): delete their data files. */
static PyObject *messages_abort(PyObject *self, PyObject *args)
{
    PyObject *th, *h;
    if (!PyArg_ParseTuple(args, "OO", &th, &h))
        return NULL;
    pm_table *t = pmx_get(th, PMX_TABLE);
    pm_commit_messages *m = t ? pmx_get(h, MESSAGES) : NULL;
    if (!m)
        return NULL;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_commit_messages_abort(t, m);
    PMX_NOGIL_END
    if (e)
        return pmx_raise(self, e);
    Py_RETURN_NONE;
}

/* commit(table, messages or None, commit_user, identifier, overwrite,
 * partitions, threads) -> (snapshot_id, already_committed, rows, files,
 * stall metrics, compaction metrics, compaction error or None) */
static PyObject *commit(PyObject *self, PyObject *args)
{
    PyObject *th, *mh, *user, *parts;
    long long ident;
    int overwrite;
    Py_ssize_t threads;
    if (!PyArg_ParseTuple(args, "OOOLpOn", &th, &mh, &user, &ident, &overwrite, &parts, &threads))
        return NULL;
    pm_table *t = pmx_get(th, PMX_TABLE);
    if (!t)
        return NULL;
    pm_commit_messages *m = NULL;
    if (mh != Py_None && !(m = pmx_get(mh, MESSAGES)))
        return NULL;
    write_opts wo;
    if (write_opts_from(&wo, user, ident, overwrite, parts, threads) < 0)
        return NULL;
    pm_commit_outcome out = PM_COMMIT_OUTCOME_INIT;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_commit(&out, t, m, &wo.o);
    PMX_NOGIL_END
    write_opts_clear(&wo);
    if (e) {
        pm_error_free(out.compaction_error);
        return pmx_raise(self, e);
    }
    PyObject *cerr = Py_None;
    Py_INCREF(cerr);
    if (out.compaction_error) {
        Py_DECREF(cerr);
        cerr = pmx_error_object(self, out.compaction_error);
        if (!cerr)
            return NULL;
    }
    PyObject *stall = pmx_metrics_tuple(&out.stall);
    PyObject *round = stall ? pmx_metrics_tuple(&out.compaction) : NULL;
    PyObject *ret = round ? Py_BuildValue("(LOLLOOO)", (long long)out.snapshot_id,
                                          out.already_committed ? Py_True : Py_False, (long long)out.rows,
                                          (long long)out.files, stall, round, cerr)
                          : NULL;
    Py_XDECREF(stall);
    Py_XDECREF(round);
    Py_DECREF(cerr);
    return ret;
}

PyMethodDef pmx_write_methods[] = {
    {"writer_new", writer_new, METH_VARARGS,
     "writer_new(table, commit_user, identifier, overwrite, partitions, threads) -> writer"},
    {"writer_info", writer_info, METH_VARARGS, "writer_info(writer) -> (input schema capsule, commit_user, rows)"},
    {"writer_write_stream", writer_write_stream, METH_VARARGS, NULL},
    {"writer_write_array", writer_write_array, METH_VARARGS, NULL},
    {"writer_prepare", writer_prepare, METH_VARARGS, "writer_prepare(writer) -> messages"},
    {"writer_close", writer_close, METH_VARARGS, NULL},
    {"messages_info", messages_info, METH_VARARGS, "messages_info(messages) -> (count, files, rows)"},
    {"messages_merge", messages_merge, METH_VARARGS, NULL},
    {"messages_to_json", messages_to_json, METH_VARARGS, "messages_to_json(messages) -> str"},
    {"messages_from_json", messages_from_json, METH_VARARGS, "messages_from_json(str) -> messages"},
    {"messages_abort", messages_abort, METH_VARARGS, NULL},
    {"commit", commit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
