/*
 * python/src/catalog.c — catalogs, tables, schemas and snapshots
 * (paimon/catalog.h, table.h, schema.h, snapshot.h, files.h) for the
 * Python layer's Catalog and Table classes; and the Arrow schema capsule
 * helpers shared with read.c and write.c.
 *
 * A new table's row type comes from an Arrow schema: the Python layer
 * passes an empty record batch of it (__arrow_c_array__), pm_batch_import
 * derives the Paimon types exactly as every Arrow import does, and its
 * type (field ids numbered in pre-order from 0, as Paimon assigns them)
 * becomes the spec's row type.
 */
#include "native.h"

#include <stdlib.h>
#include <string.h>

#include <paimon/batch.h>
#include <paimon/catalog.h>
#include <paimon/files.h>
#include <paimon/read.h>
#include <paimon/schema.h>
#include <paimon/snapshot.h>
#include <paimon/table.h>

/* ------------------------------------------------------------------ */
/* Arrow capsules                                                       */

static void schema_capsule_destroy(PyObject *cap)
{
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb); /* keep a pending exception */
    struct ArrowSchema *s = PyCapsule_GetPointer(cap, "arrow_schema");
    if (s) {
        if (s->release)
            s->release(s);
        free(s);
    }
    PyErr_Clear();
    PyErr_Restore(et, ev, tb);
}

PyObject *pmx_schema_capsule_of_type(PyObject *module, const pm_type *row_type)
{
    struct ArrowSchema *s = calloc(1, sizeof *s);
    if (!s)
        return PyErr_NoMemory();
    pm_error *e = pm_type_export_schema(row_type, s);
    if (e) {
        free(s);
        return pmx_raise(module, e);
    }
    PyObject *cap = PyCapsule_New(s, "arrow_schema", schema_capsule_destroy);
    if (!cap) {
        s->release(s);
        free(s);
    }
    return cap;
}

/* ------------------------------------------------------------------ */
/* catalog                                                              */

#define CATALOG "catalog"

static void catalog_free(void *p)
{
    pm_catalog_free(p);
}

static void table_free(void *p)
{
    pm_table_free(p);
}

static PyObject *catalog_open(PyObject *self, PyObject *args)
{
    const char *wh;
    if (!PyArg_ParseTuple(args, "s", &wh))
        return NULL;
    pm_catalog *c = NULL;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_catalog_open(&c, wh);
    PMX_NOGIL_END
    if (e)
        return pmx_raise(self, e);
    return pmx_handle(c, CATALOG, catalog_free, NULL);
}

static PyObject *catalog_warehouse(PyObject *self, PyObject *args)
{
    PyObject *h;
    if (!PyArg_ParseTuple(args, "O", &h))
        return NULL;
    pm_catalog *c = pmx_get(h, CATALOG);
    return c ? PyUnicode_FromString(pm_catalog_warehouse(c)) : NULL;
}

static PyObject *catalog_create_database(PyObject *self, PyObject *args)
{
    PyObject *h;
    const char *db;
    int ignore;
    if (!PyArg_ParseTuple(args, "Osp", &h, &db, &ignore))
        return NULL;
    pm_catalog *c = pmx_get(h, CATALOG);
    if (!c)
        return NULL;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_catalog_create_database(c, db, ignore);
    PMX_NOGIL_END
    if (e)
        return pmx_raise(self, e);
    Py_RETURN_NONE;
}

static PyObject *catalog_drop_database(PyObject *self, PyObject *args)
{
    PyObject *h;
    const char *db;
    int ignore, cascade;
    if (!PyArg_ParseTuple(args, "Ospp", &h, &db, &ignore, &cascade))
        return NULL;
    pm_catalog *c = pmx_get(h, CATALOG);
    if (!c)
        return NULL;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_catalog_drop_database(c, db, ignore, cascade);
    PMX_NOGIL_END
    if (e)
        return pmx_raise(self, e);
    Py_RETURN_NONE;
}

static PyObject *name_item(void *names, size_t i)
{
    return PyUnicode_FromString(((char **)names)[i]);
}

static PyObject *names_to_list(char **names, size_t n)
{
    PyObject *list = pmx_list(n, name_item, names);
    pm_catalog_names_free(names, n);
    return list;
}

/* catalog_list(h, db or None): databases, or the tables of db. */
static PyObject *catalog_list(PyObject *self, PyObject *args)
{
    PyObject *h;
    const char *db = NULL;
    if (!PyArg_ParseTuple(args, "Oz", &h, &db))
        return NULL;
    pm_catalog *c = pmx_get(h, CATALOG);
    if (!c)
        return NULL;
    char **names = NULL;
    size_t n = 0;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = db ? pm_catalog_list_tables(c, db, &names, &n) : pm_catalog_list_databases(c, &names, &n);
    PMX_NOGIL_END
    if (e)
        return pmx_raise(self, e);
    return names_to_list(names, n);
}

static PyObject *catalog_table_path(PyObject *self, PyObject *args)
{
    PyObject *h;
    const char *db, *name;
    if (!PyArg_ParseTuple(args, "Oss", &h, &db, &name))
        return NULL;
    pm_catalog *c = pmx_get(h, CATALOG);
    if (!c)
        return NULL;
    char *path = NULL;
    pm_error *e = pm_catalog_table_path(c, db, name, &path);
    if (e)
        return pmx_raise(self, e);
    PyObject *s = PyUnicode_FromString(path);
    free(path);
    return s;
}

/* The row type of an empty Arrow record batch (schema and array capsules). */
static pm_error *row_type_of(pm_type **out, PyObject *schema_cap, PyObject *array_cap)
{
    *out = NULL;
    struct ArrowSchema *s = PyCapsule_GetPointer(schema_cap, "arrow_schema");
    struct ArrowArray *a = s ? PyCapsule_GetPointer(array_cap, "arrow_array") : NULL;
    if (!s || !a) {
        PyErr_Clear();
        return pm_error_new(PM_EINVALID, "the schema must be given as Arrow schema and array capsules");
    }
    pm_batch *b = NULL;
    PM_TRY(pm_error_wrap(pm_batch_import(&b, NULL, s, a), 0, "table schema"));
    *out = pm_type_clone(pm_batch_type(b));
    pm_batch_free(b);
    return *out ? NULL : pm_error_new(PM_ENOMEM, "out of memory");
}

/* catalog_create_table(h, db, name, schema_cap, array_cap, partition_keys,
 * primary_keys, option_keys, option_values, comment, ignore_if_exists) */
static PyObject *catalog_create_table(PyObject *self, PyObject *args)
{
    PyObject *h, *scap, *acap, *pks, *prks, *okeys, *ovals;
    const char *db, *name, *comment;
    int ignore;
    if (!PyArg_ParseTuple(args, "OssOOOOOOzp", &h, &db, &name, &scap, &acap, &pks, &prks, &okeys, &ovals,
                          &comment, &ignore))
        return NULL;
    pm_catalog *c = pmx_get(h, CATALOG);
    if (!c)
        return NULL;
    pmx_strv part = {0}, prim = {0}, keys = {0}, vals = {0};
    PyObject *ret = NULL;
    pm_type *row = NULL;
    if (pmx_strv_from(&part, pks, "partition_keys") < 0 || pmx_strv_from(&prim, prks, "primary_keys") < 0 ||
        pmx_strv_from(&keys, okeys, "option keys") < 0 || pmx_strv_from(&vals, ovals, "option values") < 0)
        goto done;
    if (keys.n != vals.n) {
        PyErr_SetString(PyExc_ValueError, "option keys and values differ in number");
        goto done;
    }
    pm_error *e = row_type_of(&row, scap, acap);
    if (!e) {
        pm_table_spec spec = PM_TABLE_SPEC_INIT;
        spec.row_type = row;
        spec.partition_keys = part.v;
        spec.npartition_keys = part.n;
        spec.primary_keys = prim.v;
        spec.nprimary_keys = prim.n;
        spec.option_keys = keys.v;
        spec.option_values = vals.v;
        spec.noptions = keys.n;
        spec.comment = comment;
        PMX_NOGIL_BEGIN
        e = pm_catalog_create_table(c, db, name, &spec, ignore);
        PMX_NOGIL_END
    }
    if (e) {
        pmx_raise(self, e);
        goto done;
    }
    ret = Py_None;
    Py_INCREF(ret);
done:
    pm_type_free(row);
    pmx_strv_clear(&part);
    pmx_strv_clear(&prim);
    pmx_strv_clear(&keys);
    pmx_strv_clear(&vals);
    return ret;
}

static PyObject *catalog_get_table(PyObject *self, PyObject *args)
{
    PyObject *h;
    const char *db, *name;
    if (!PyArg_ParseTuple(args, "Oss", &h, &db, &name))
        return NULL;
    pm_catalog *c = pmx_get(h, CATALOG);
    if (!c)
        return NULL;
    pm_table *t = NULL;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_catalog_get_table(c, db, name, &t);
    PMX_NOGIL_END
    if (e)
        return pmx_raise(self, e);
    return pmx_handle(t, PMX_TABLE, table_free, NULL);
}

static PyObject *catalog_drop_table(PyObject *self, PyObject *args)
{
    PyObject *h;
    const char *db, *name;
    int ignore;
    if (!PyArg_ParseTuple(args, "Ossp", &h, &db, &name, &ignore))
        return NULL;
    pm_catalog *c = pmx_get(h, CATALOG);
    if (!c)
        return NULL;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_catalog_drop_table(c, db, name, ignore);
    PMX_NOGIL_END
    if (e)
        return pmx_raise(self, e);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ */
/* tables                                                               */

static PyObject *table_open(PyObject *self, PyObject *args)
{
    const char *path, *branch = NULL;
    if (!PyArg_ParseTuple(args, "sz", &path, &branch))
        return NULL;
    pm_table *t = NULL;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_table_open(&t, path, branch);
    PMX_NOGIL_END
    if (e)
        return pmx_raise(self, e);
    return pmx_handle(t, PMX_TABLE, table_free, NULL);
}

/* table_info(h) -> (path, branch, has_primary_key) */
static PyObject *table_info(PyObject *self, PyObject *args)
{
    PyObject *h;
    if (!PyArg_ParseTuple(args, "O", &h))
        return NULL;
    pm_table *t = pmx_get(h, PMX_TABLE);
    if (!t)
        return NULL;
    return Py_BuildValue("(ssO)", pm_table_path(t), pm_table_branch(t),
                         pm_table_has_primary_key(t) ? Py_True : Py_False);
}

static PyObject *partition_key_item(void *s, size_t i)
{
    return PyUnicode_FromString(pm_schema_partition_key(s, i));
}

static PyObject *primary_key_item(void *s, size_t i)
{
    return PyUnicode_FromString(pm_schema_primary_key(s, i));
}

/* table_schema(h, schema_id or -1) -> (id, arrow schema capsule,
 * partition keys, primary keys, {options}, comment, json text) */
static PyObject *table_schema(PyObject *self, PyObject *args)
{
    PyObject *h;
    long long id;
    if (!PyArg_ParseTuple(args, "OL", &h, &id))
        return NULL;
    pm_table *t = pmx_get(h, PMX_TABLE);
    if (!t)
        return NULL;
    const pm_schema *s = pm_table_schema(t);
    if (id >= 0) {
        pm_error *e;
        PMX_NOGIL_BEGIN
        e = pm_table_schema_get(&s, t, id);
        PMX_NOGIL_END
        if (e)
            return pmx_raise(self, e);
    }
    char *json = NULL;
    pm_error *e = pm_schema_to_json_text(&json, s);
    if (e)
        return pmx_raise(self, e);
    PyObject *js = pmx_take_text(json);
    PyObject *cap = js ? pmx_schema_capsule_of_type(self, pm_schema_row_type(s)) : NULL;
    PyObject *parts = cap ? pmx_list(pm_schema_partition_key_count(s), partition_key_item, (void *)s) : NULL;
    PyObject *prims = parts ? pmx_list(pm_schema_primary_key_count(s), primary_key_item, (void *)s) : NULL;
    PyObject *opts = prims ? PyDict_New() : NULL;
    for (size_t i = 0; opts && i < pm_schema_option_count(s); i++) {
        PyObject *v = PyUnicode_FromString(pm_schema_option_value(s, i));
        if (!v || PyDict_SetItemString(opts, pm_schema_option_key(s, i), v) < 0) {
            Py_XDECREF(v);
            Py_CLEAR(opts);
            break;
        }
        Py_DECREF(v);
    }
    PyObject *ret = NULL;
    if (opts) {
        const char *comment = pm_schema_comment(s);
        ret = Py_BuildValue("(LOOOOzO)", (long long)pm_schema_id(s), cap, parts, prims, opts, comment, js);
    }
    Py_XDECREF(js);
    Py_XDECREF(cap);
    Py_XDECREF(parts);
    Py_XDECREF(prims);
    Py_XDECREF(opts);
    return ret;
}

static PyObject *id_item(void *ids, size_t i)
{
    return PyLong_FromLongLong(((int64_t *)ids)[i]);
}

static PyObject *ids_to_list(int64_t *ids, size_t n)
{
    PyObject *list = pmx_list(n, id_item, ids);
    pm_free(ids);
    return list;
}

static PyObject *table_snapshot_ids(PyObject *self, PyObject *args)
{
    PyObject *h;
    if (!PyArg_ParseTuple(args, "O", &h))
        return NULL;
    pm_table *t = pmx_get(h, PMX_TABLE);
    if (!t)
        return NULL;
    int64_t *ids = NULL;
    size_t n = 0;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_table_snapshot_ids(&ids, &n, t);
    PMX_NOGIL_END
    if (e)
        return pmx_raise(self, e);
    return ids_to_list(ids, n);
}

/* table_snapshot_json(h, id) -> the snapshot file's JSON text, or None
 * (id 0 on a table without snapshots). */
static PyObject *table_snapshot_json(PyObject *self, PyObject *args)
{
    PyObject *h;
    long long id;
    if (!PyArg_ParseTuple(args, "OL", &h, &id))
        return NULL;
    pm_table *t = pmx_get(h, PMX_TABLE);
    if (!t)
        return NULL;
    pm_snapshot *s = NULL;
    char *json = NULL;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_table_snapshot(&s, t, id);
    if (!e && s)
        e = pm_snapshot_to_json_text(&json, s);
    pm_snapshot_free(s);
    PMX_NOGIL_END
    if (e)
        return pmx_raise(self, e);
    if (!json)
        Py_RETURN_NONE;
    return pmx_take_text(json);
}

/* table_files_json(h, snapshot_id, partitions) -> JSON array text of the live files */
static PyObject *table_files_json(PyObject *self, PyObject *args)
{
    PyObject *h, *parts;
    long long sid;
    if (!PyArg_ParseTuple(args, "OLO", &h, &sid, &parts))
        return NULL;
    pm_table *t = pmx_get(h, PMX_TABLE);
    if (!t)
        return NULL;
    pmx_strv pv;
    pm_read_options o;
    if (pmx_scan_options(&o, &pv, sid, parts) < 0)
        return NULL;
    pm_file_list *l = NULL;
    char *json = NULL;
    pm_error *e;
    PMX_NOGIL_BEGIN
    e = pm_table_files(&l, t, &o);
    if (!e)
        e = pm_file_list_to_json(&json, l);
    pm_file_list_free(l);
    PMX_NOGIL_END
    pmx_strv_clear(&pv);
    if (e)
        return pmx_raise(self, e);
    return pmx_take_text(json);
}

PyMethodDef pmx_catalog_methods[] = {
    {"catalog_open", catalog_open, METH_VARARGS, "catalog_open(warehouse) -> catalog"},
    {"catalog_warehouse", catalog_warehouse, METH_VARARGS, "catalog_warehouse(catalog) -> str"},
    {"catalog_create_database", catalog_create_database, METH_VARARGS, NULL},
    {"catalog_drop_database", catalog_drop_database, METH_VARARGS, NULL},
    {"catalog_list", catalog_list, METH_VARARGS, "catalog_list(catalog, db or None) -> [names]"},
    {"catalog_table_path", catalog_table_path, METH_VARARGS, NULL},
    {"catalog_create_table", catalog_create_table, METH_VARARGS, NULL},
    {"catalog_get_table", catalog_get_table, METH_VARARGS, NULL},
    {"catalog_drop_table", catalog_drop_table, METH_VARARGS, NULL},
    {"table_open", table_open, METH_VARARGS, "table_open(path, branch or None) -> table"},
    {"table_info", table_info, METH_VARARGS, "table_info(table) -> (path, branch, has_primary_key)"},
    {"table_schema", table_schema, METH_VARARGS, NULL},
    {"table_snapshot_ids", table_snapshot_ids, METH_VARARGS, NULL},
    {"table_snapshot_json", table_snapshot_json, METH_VARARGS, NULL},
    {"table_files_json", table_files_json, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
