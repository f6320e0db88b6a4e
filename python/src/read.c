/*
 * python/src/read.c — scans, splits and readers (paimon/read.h) for the
 * Python layer's ReadBuilder / TableScan / TableRead.
 *
 * A reader leaves as an Arrow C stream in an "arrow_array_stream" capsule
 * (the Arrow PyCapsule interface), which pyarrow, polars and duckdb import
 * without copying: the arrays are pm_batch_export's, whose buffers are the
 * reader's column buffers.  The reader needs its table to outlive it, and
 * a consumer may keep the stream longer than any Python object of ours, so
 * the stream handed out wraps the reader's stream and holds a reference to
 * the table handle; its release drops that reference (taking the GIL,
 * from whichever thread the consumer releases it).  The other callbacks
 * only forward and never touch Python, so consumers call them without
 * the GIL.  Splits also travel as JSON (pm_split_to_json / _from_json):
 * a split parsed from JSON is its own handle, with no scan behind it.
 */
#include "native.h"

#include <stdlib.h>
#include <string.h>

#include <paimon/read.h>
#include <paimon/table.h>

#define SCAN "scan"
#define SPLIT "split"

static void scan_free(void *p)
{
    pm_scan_free(p);
}

int pmx_scan_options(pm_read_options *o, pmx_strv *pv, long long snapshot_id, PyObject *partitions)
{
    if (pmx_strv_from(pv, partitions, "partitions") < 0)
        return -1;
    pm_read_options_init(o);
    o->snapshot_id = snapshot_id;
    o->partitions = pv->v;
    o->npartitions = pv->n;
    return 0;
}

/* scan_new(table, snapshot_id, partitions or None[, incr_from, incr_to, incr_mode]) -> scan;
 * incr_to > 0: an incremental scan of (incr_from, incr_to], mode 0 auto, 1 delta, 2 changelog */
static PyObject *scan_new(PyObject *self, PyObject *args)
{
    PyObject *th, *parts;
    long long sid, ifrom = 0, ito = 0;
    int imode = 0;
    if (!PyArg_ParseTuple(args, "OLO|LLi", &th, &sid, &parts, &ifrom, &ito, &imode))
        return NULL;
    pm_table *t = pmx_get(th, PMX_TABLE);
    if (!t)
        return NULL;
    pmx_strv pv;
    pm_read_options o;
    if (pmx_scan_options(&o, &pv, sid, parts) < 0)
        return NULL;
    o.incremental_from = ifrom;
    o.incremental_to = ito;
    o.incremental_mode = (pm_incremental_mode)imode;
    pm_scan *s = NULL;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_scan_new(&s, t, &o);
    PMX_NOGIL_END
    pmx_strv_clear(&pv);
    if (e)
        return pmx_raise(self, e);
    return pmx_handle(s, SCAN, scan_free, th);
}

/* scan_info(scan) -> (snapshot_id, schema_id, split_count) */
static PyObject *scan_info(PyObject *self, PyObject *args)
{
    PyObject *h;
    if (!PyArg_ParseTuple(args, "O", &h))
        return NULL;
    pm_scan *s = pmx_get(h, SCAN);
    if (!s)
        return NULL;
    return Py_BuildValue("(LLn)", (long long)pm_scan_snapshot_id(s), (long long)pm_scan_schema_id(s),
                         (Py_ssize_t)pm_scan_split_count(s));
}

static PyObject *split_item(void *scan_handle, size_t i)
{
    const pm_scan *s = pmx_get(scan_handle, SCAN);
    return s ? pmx_handle((void *)pm_scan_split(s, i), SPLIT, NULL, scan_handle) : NULL;
}

/* scan_splits(scan) -> [split]: borrowed from the scan, which they keep alive. */
static PyObject *scan_splits(PyObject *self, PyObject *args)
{
    PyObject *h;
    if (!PyArg_ParseTuple(args, "O", &h))
        return NULL;
    pm_scan *s = pmx_get(h, SCAN);
    if (!s)
        return NULL;
    return pmx_list(pm_scan_split_count(s), split_item, h);
}

/* split_info(split) -> (partition, bucket, branch, snapshot_id, file_count, row_count, file_bytes) */
static PyObject *split_info(PyObject *self, PyObject *args)
{
    PyObject *h;
    if (!PyArg_ParseTuple(args, "O", &h))
        return NULL;
    const pm_split *s = pmx_get(h, SPLIT);
    if (!s)
        return NULL;
    return Py_BuildValue("(sisLnLL)", pm_split_partition(s), (int)pm_split_bucket(s), pm_split_branch(s),
                         (long long)pm_split_snapshot_id(s), (Py_ssize_t)pm_split_file_count(s),
                         (long long)pm_split_row_count(s), (long long)pm_split_file_bytes(s));
}

static void split_free(void *p)
{
    pm_split_free(p);
}
static pm_error *split_to(const void *o, char **out)
{
    return pm_split_to_json(out, o);
}
static pm_error *split_from(void **out, const char *j, size_t n)
{
    return pm_split_from_json((pm_split **)out, j, n);
}

/* split_to_json(split) -> str */
static PyObject *split_to_json(PyObject *self, PyObject *args)
{
    return pmx_to_json(self, args, SPLIT, split_to);
}

/* split_from_json(str) -> split (its own, no scan behind it) */
static PyObject *split_from_json(PyObject *self, PyObject *args)
{
    return pmx_from_json(self, args, SPLIT, split_from, split_free);
}

/* ------------------------------------------------------------------ */
/* the stream handed out                                                */

typedef struct kept_stream {
    struct ArrowArrayStream inner;
    PyObject *keep; /* the table handle */
} kept_stream;

static int kept_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    kept_stream *k = s->private_data;
    return k->inner.get_schema(&k->inner, out);
}

static int kept_get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    kept_stream *k = s->private_data;
    return k->inner.get_next(&k->inner, out);
}

static const char *kept_get_last_error(struct ArrowArrayStream *s)
{
    kept_stream *k = s->private_data;
    return k->inner.get_last_error(&k->inner);
}

static void kept_release(struct ArrowArrayStream *s)
{
    kept_stream *k = s->private_data;
    if (k->inner.release)
        k->inner.release(&k->inner); /* frees the reader, before its table */
    if (k->keep && Py_IsInitialized()) {
        PyGILState_STATE g = PyGILState_Ensure();
        Py_DECREF(k->keep);
        PyGILState_Release(g);
    }
    free(k);
    s->release = NULL;
    s->private_data = NULL;
}

static void stream_capsule_destroy(PyObject *cap)
{
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb); /* keep a pending exception */
    struct ArrowArrayStream *s = PyCapsule_GetPointer(cap, "arrow_array_stream");
    if (s) {
        if (s->release)
            s->release(s);
        free(s);
    }
    PyErr_Clear();
    PyErr_Restore(et, ev, tb);
}

/* reader_stream(table, [split], columns or None, limit, batch_rows, threads[, filter or None])
 * -> "arrow_array_stream" capsule; filter: pm_read_options.filter's text */
static PyObject *reader_stream(PyObject *self, PyObject *args)
{
    PyObject *th, *splits, *cols, *filter = Py_None;
    long long limit, batch_rows;
    Py_ssize_t threads;
    if (!PyArg_ParseTuple(args, "OOOLLn|O", &th, &splits, &cols, &limit, &batch_rows, &threads, &filter))
        return NULL;
    pm_table *t = pmx_get(th, PMX_TABLE);
    if (!t)
        return NULL;
    if (threads < 0) {
        PyErr_SetString(PyExc_ValueError, "threads must be >= 0");
        return NULL;
    }
    PyObject *fast = PySequence_Fast(splits, "splits must be a sequence of splits");
    if (!fast)
        return NULL;
    Py_ssize_t n = PySequence_Size(fast);
    const pm_split **sv = calloc((size_t)(n > 0 ? n : 1), sizeof *sv);
    pmx_strv cv = {0};
    char *where = NULL;
    PyObject *ret = NULL;
    kept_stream *k = NULL;
    struct ArrowArrayStream *out = NULL;
    if (!sv) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_GetItem(fast, i);
        if (!item)
            goto done;
        sv[i] = pmx_get(item, SPLIT); /* the list holds the split handles during the call */
        Py_DECREF(item);
        if (!sv[i])
            goto done;
    }
    if (pmx_strv_from(&cv, cols, "columns") < 0 || pmx_strdup_opt(&where, filter, "filter") < 0)
        goto done;
    pm_read_options o = PM_READ_OPTIONS_INIT;
    o.filter = where;
    o.columns = cv.v;
    o.ncolumns = cv.n;
    o.limit = limit;
    o.batch_rows = batch_rows;
    o.threads = (size_t)threads;
    k = calloc(1, sizeof *k);
    out = calloc(1, sizeof *out);
    if (!k || !out) {
        PyErr_NoMemory();
        goto done;
    }
    pm_reader *r = NULL;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_reader_new(&r, t, sv, (size_t)n, &o);
    if (!e)
        e = pm_reader_to_arrow_stream(&k->inner, r); /* owns r from now on */
    PMX_NOGIL_END
    if (e) {
        pmx_raise(self, e);
        goto done;
    }
    Py_INCREF(th);
    k->keep = th;
    out->get_schema = kept_get_schema;
    out->get_next = kept_get_next;
    out->get_last_error = kept_get_last_error;
    out->release = kept_release;
    out->private_data = k;
    k = NULL;
    ret = PyCapsule_New(out, "arrow_array_stream", stream_capsule_destroy);
    if (!ret)
        out->release(out);
    else
        out = NULL;
done:
    if (k && k->inner.release)
        k->inner.release(&k->inner);
    free(k);
    free(out);
    pmx_strv_clear(&cv);
    free(where);
    free(sv);
    Py_DECREF(fast);
    return ret;
}

PyMethodDef pmx_read_methods[] = {
    {"scan_new", scan_new, METH_VARARGS, "scan_new(table, snapshot_id, partitions) -> scan"},
    {"scan_info", scan_info, METH_VARARGS, "scan_info(scan) -> (snapshot_id, schema_id, split_count)"},
    {"scan_splits", scan_splits, METH_VARARGS, "scan_splits(scan) -> [split]"},
    {"split_info", split_info, METH_VARARGS, NULL},
    {"split_to_json", split_to_json, METH_VARARGS, "split_to_json(split) -> str"},
    {"split_from_json", split_from_json, METH_VARARGS, "split_from_json(str) -> split"},
    {"reader_stream", reader_stream, METH_VARARGS,
     "reader_stream(table, splits, columns, limit, batch_rows, threads[, filter]) -> arrow_array_stream capsule"},
    {NULL, NULL, 0, NULL},
};
