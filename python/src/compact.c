/*
 * python/src/compact.c — compaction as plan → execute → commit
 * (paimon/compact.h) for the Python layer's CompactBuilder and the
 * drivers in paimon_c.parallel / paimon_c.ray.
 *
 * Builders borrow their table (the handle keeps it alive), plans their
 * builder, and a plan's tasks their plan.  Tasks and results read from
 * JSON, and results of pm_compact_execute, are values on their own.
 * Planning, executing, committing and aborting run without the GIL, so
 * threads of one process execute tasks in parallel.
 */
#include "native.h"

#include <stdlib.h>
#include <string.h>

#include <paimon/compact.h>

#define BUILDER "compact_builder"
#define PLAN "compact_plan"
#define TASK "compact_task"
#define RESULT "compact_result"

static void builder_free(void *p)
{
    pm_compact_builder_free(p);
}
static void plan_free(void *p)
{
    pm_compact_plan_free(p);
}
static void task_free(void *p)
{
    pm_compact_task_free(p);
}
static void result_free(void *p)
{
    pm_compact_result_free(p);
}

PyObject *pmx_metrics_tuple(const pm_compact_metrics *m)
{
    return Py_BuildValue("(LLLLLLLLLLLL)", (long long)m->snapshot_id, (long long)m->tasks,
                         (long long)m->files_removed, (long long)m->files_added, (long long)m->rows_read,
                         (long long)m->rows_written, (long long)m->bytes_read, (long long)m->bytes_written,
                         (long long)m->duration_ms, (long long)m->changelog_files_added,
                         (long long)m->changelog_rows_written, (long long)m->changelog_bytes_written);
}

/* compact_builder_new(table, commit_user, partitions, full, dynamic_options) -> builder */
static PyObject *compact_builder_new(PyObject *self, PyObject *args)
{
    PyObject *th, *user, *parts, *dyn;
    int full;
    if (!PyArg_ParseTuple(args, "OOOpO", &th, &user, &parts, &full, &dyn))
        return NULL;
    pm_table *t = pmx_get(th, PMX_TABLE);
    if (!t)
        return NULL;
    char *u = NULL;
    pmx_strv pv = {0}, dv = {0};
    if (pmx_strdup_opt(&u, user, "commit_user") < 0 || pmx_strv_from(&pv, parts, "partitions") < 0 ||
        pmx_strv_from(&dv, dyn, "options") < 0) {
        free(u);
        pmx_strv_clear(&pv);
        return NULL;
    }
    pm_compact_options o;
    memset(&o, 0, sizeof o);
    o.version = PM_COMPACT_OPTIONS_VERSION;
    o.commit_user = u;
    o.partitions = pv.v;
    o.npartitions = pv.n;
    o.full = full;
    o.dynamic_options = dv.v;
    o.ndynamic_options = dv.n;
    pm_compact_builder *b = NULL;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_compact_builder_new(&b, t, &o); /* copies what it keeps of o */
    PMX_NOGIL_END
    free(u);
    pmx_strv_clear(&pv);
    pmx_strv_clear(&dv);
    if (e)
        return pmx_raise(self, e);
    return pmx_handle(b, BUILDER, builder_free, th);
}

static PyObject *compact_plan_new(PyObject *self, PyObject *args)
{
    PyObject *h;
    if (!PyArg_ParseTuple(args, "O", &h))
        return NULL;
    pm_compact_builder *b = pmx_get(h, BUILDER);
    if (!b)
        return NULL;
    pm_compact_plan *p = NULL;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_compact_plan_new(&p, b);
    PMX_NOGIL_END
    if (e)
        return pmx_raise(self, e);
    return pmx_handle(p, PLAN, plan_free, h);
}

/* compact_run(builder) -> metrics: plan, execute every task, commit. */
static PyObject *compact_run(PyObject *self, PyObject *args)
{
    PyObject *h;
    if (!PyArg_ParseTuple(args, "O", &h))
        return NULL;
    pm_compact_builder *b = pmx_get(h, BUILDER);
    if (!b)
        return NULL;
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_compact_run(&m, b);
    PMX_NOGIL_END
    if (e)
        return pmx_raise(self, e);
    return pmx_metrics_tuple(&m);
}

/* plan_info(plan) -> (snapshot_id, plan_id, commit_user, task_count) */
static PyObject *plan_info(PyObject *self, PyObject *args)
{
    PyObject *h;
    if (!PyArg_ParseTuple(args, "O", &h))
        return NULL;
    pm_compact_plan *p = pmx_get(h, PLAN);
    if (!p)
        return NULL;
    return Py_BuildValue("(Lssn)", (long long)pm_compact_plan_snapshot_id(p), pm_compact_plan_id(p),
                         pm_compact_plan_commit_user(p), (Py_ssize_t)pm_compact_plan_task_count(p));
}

static PyObject *task_item(void *plan_handle, size_t i)
{
    const pm_compact_plan *p = pmx_get(plan_handle, PLAN);
    return p ? pmx_handle((void *)pm_compact_plan_task(p, i), TASK, NULL, plan_handle) : NULL;
}

/* plan_tasks(plan) -> [task], borrowed from the plan (which they keep alive) */
static PyObject *plan_tasks(PyObject *self, PyObject *args)
{
    PyObject *h;
    if (!PyArg_ParseTuple(args, "O", &h))
        return NULL;
    pm_compact_plan *p = pmx_get(h, PLAN);
    if (!p)
        return NULL;
    return pmx_list(pm_compact_plan_task_count(p), task_item, h);
}

/* ---- JSON ---- */

/* compact.h with versioned metrics (PM_COMPACT_METRICS_VERSION) takes the
 * output first, like the rest of the API: (char **out, const T *obj). */
#ifdef PM_COMPACT_METRICS_VERSION
#define PMX_TO_JSON(fn, obj, out) fn(out, obj)
#else
#define PMX_TO_JSON(fn, obj, out) fn(obj, out)
#endif
static pm_error *plan_to(const void *o, char **out)
{
    return PMX_TO_JSON(pm_compact_plan_to_json, o, out);
}
static pm_error *task_to(const void *o, char **out)
{
    return PMX_TO_JSON(pm_compact_task_to_json, o, out);
}
static pm_error *result_to(const void *o, char **out)
{
    return PMX_TO_JSON(pm_compact_result_to_json, o, out);
}
static pm_error *plan_from(void **out, const char *j, size_t n)
{
    return pm_compact_plan_from_json((pm_compact_plan **)out, j, n);
}
static pm_error *task_from(void **out, const char *j, size_t n)
{
    return pm_compact_task_from_json((pm_compact_task **)out, j, n);
}
static pm_error *result_from(void **out, const char *j, size_t n)
{
    return pm_compact_result_from_json((pm_compact_result **)out, j, n);
}

static PyObject *plan_to_json(PyObject *self, PyObject *args)
{
    return pmx_to_json(self, args, PLAN, plan_to);
}
static PyObject *task_to_json(PyObject *self, PyObject *args)
{
    return pmx_to_json(self, args, TASK, task_to);
}
static PyObject *result_to_json(PyObject *self, PyObject *args)
{
    return pmx_to_json(self, args, RESULT, result_to);
}
static PyObject *plan_from_json(PyObject *self, PyObject *args)
{
    return pmx_from_json(self, args, PLAN, plan_from, plan_free);
}
static PyObject *task_from_json(PyObject *self, PyObject *args)
{
    return pmx_from_json(self, args, TASK, task_from, task_free);
}
static PyObject *result_from_json(PyObject *self, PyObject *args)
{
    return pmx_from_json(self, args, RESULT, result_from, result_free);
}

/* ---- execute, commit, abort ---- */

/* compact_execute(table, task) -> result */
static PyObject *compact_execute(PyObject *self, PyObject *args)
{
    PyObject *th, *kh;
    if (!PyArg_ParseTuple(args, "OO", &th, &kh))
        return NULL;
    pm_table *t = pmx_get(th, PMX_TABLE);
    const pm_compact_task *task = t ? pmx_get(kh, TASK) : NULL;
    if (!task)
        return NULL;
    pm_compact_result *r = NULL;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_compact_execute(&r, t, task, NULL);
    PMX_NOGIL_END
    if (e)
        return pmx_raise(self, e);
    return pmx_handle(r, RESULT, result_free, NULL);
}

/* The results of a list of result handles (kept alive by the list). */
static pm_compact_result **result_array(PyObject *list, size_t *n)
{
    PyObject *fast = PySequence_Fast(list, "results must be a sequence of compaction results");
    if (!fast)
        return NULL;
    Py_ssize_t len = PySequence_Size(fast);
    pm_compact_result **v = calloc((size_t)(len > 0 ? len : 1), sizeof *v);
    if (!v) {
        Py_DECREF(fast);
        return (pm_compact_result **)PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *item = PySequence_GetItem(fast, i);
        v[i] = item ? pmx_get(item, RESULT) : NULL;
        Py_XDECREF(item);
        if (!v[i]) {
            free(v);
            Py_DECREF(fast);
            return NULL;
        }
    }
    Py_DECREF(fast);
    *n = (size_t)len;
    return v;
}

/* compact_commit(table, commit_user or None, [result]) -> metrics */
static PyObject *compact_commit(PyObject *self, PyObject *args)
{
    PyObject *th, *user, *list;
    if (!PyArg_ParseTuple(args, "OOO", &th, &user, &list))
        return NULL;
    pm_table *t = pmx_get(th, PMX_TABLE);
    if (!t)
        return NULL;
    size_t n = 0;
    pm_compact_result **v = result_array(list, &n);
    if (!v)
        return NULL;
    char *u = NULL;
    if (pmx_strdup_opt(&u, user, "commit_user") < 0) {
        free(v);
        return NULL;
    }
    pm_compact_metrics m = PM_COMPACT_METRICS_INIT;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_compact_commit(&m, t, u, v, n);
    PMX_NOGIL_END
    free(u);
    free(v);
    if (e)
        return pmx_raise(self, e);
    return pmx_metrics_tuple(&m);
}

/* compact_abort(table, [result]): delete the results' prepared files. */
static PyObject *compact_abort(PyObject *self, PyObject *args)
{
    PyObject *th, *list;
    if (!PyArg_ParseTuple(args, "OO", &th, &list))
        return NULL;
    pm_table *t = pmx_get(th, PMX_TABLE);
    if (!t)
        return NULL;
    size_t n = 0;
    pm_compact_result **v = result_array(list, &n);
    if (!v)
        return NULL;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_compact_abort(t, v, n);
    PMX_NOGIL_END
    free(v);
    if (e)
        return pmx_raise(self, e);
    Py_RETURN_NONE;
}

PyMethodDef pmx_compact_methods[] = {
    {"compact_builder_new", compact_builder_new, METH_VARARGS,
     "compact_builder_new(table, commit_user, partitions, full, options) -> builder"},
    {"compact_plan_new", compact_plan_new, METH_VARARGS, "compact_plan_new(builder) -> plan"},
    {"compact_run", compact_run, METH_VARARGS, "compact_run(builder) -> metrics"},
    {"plan_info", plan_info, METH_VARARGS, "plan_info(plan) -> (snapshot_id, plan_id, commit_user, task_count)"},
    {"plan_tasks", plan_tasks, METH_VARARGS, "plan_tasks(plan) -> [task]"},
    {"plan_to_json", plan_to_json, METH_VARARGS, NULL},
    {"plan_from_json", plan_from_json, METH_VARARGS, NULL},
    {"task_to_json", task_to_json, METH_VARARGS, NULL},
    {"task_from_json", task_from_json, METH_VARARGS, NULL},
    {"result_to_json", result_to_json, METH_VARARGS, NULL},
    {"result_from_json", result_from_json, METH_VARARGS, NULL},
    {"compact_execute", compact_execute, METH_VARARGS, "compact_execute(table, task) -> result"},
    {"compact_commit", compact_commit, METH_VARARGS, "compact_commit(table, commit_user, results) -> metrics"},
    {"compact_abort", compact_abort, METH_VARARGS, "compact_abort(table, results)"},
    {NULL, NULL, 0, NULL},
};
