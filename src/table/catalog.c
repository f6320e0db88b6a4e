/*
 * table/catalog.c — the filesystem catalog (see paimon/catalog.h).
 *
 * Existence rules follow Paimon's FileSystemCatalog: a database is a
 * directory `<name>.db` under the warehouse; a table is a directory inside
 * it whose `schema/` holds at least one `schema-N` file.  Directories
 * without a schema (half-created or foreign) are not tables.  Dropping
 * removes the directory tree; it is not transactional, so a crash in the
 * middle leaves a directory that is no longer a table or database.
 */
#include "paimon/catalog.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "io/fileio.h"
#include "meta/schema.h"

struct pm_catalog {
    pm_fileio *fio;
    char *warehouse;
};

static pm_error *check_name(const char *what, const char *name)
{
    if (!name || !*name)
        return pm_error_new(PM_EINVALID, "%s name is empty", what);
    if (name[0] == '.')
        return pm_error_new(PM_EINVALID, "%s name '%s' must not start with '.'", what, name);
    for (const char *p = name; *p; p++)
        if (*p == '/' || (unsigned char)*p < 0x20 || *p == 0x7f)
            return pm_error_new(PM_EINVALID, "%s name '%s' contains '/' or a control character",
                                what, name);
    return NULL;
}

pm_error *pm_catalog_open(pm_catalog **out, const char *warehouse)
{
    *out = NULL;
    if (!warehouse || !*warehouse)
        return pm_error_new(PM_EINVALID, "warehouse path is empty");
    if (!strncmp(warehouse, "file://", 7))
        warehouse += 7;
    pm_catalog *c;
    PM_TRY(pm_calloc(&c, 1, sizeof *c));
    size_t n = strlen(warehouse);
    while (n > 1 && warehouse[n - 1] == '/')
        n--;
    pm_error *e = pm_strndup(&c->warehouse, warehouse, n);
    if (!e)
        e = pm_fileio_local_new(&c->fio);
    if (e) {
        pm_catalog_free(c);
        return e;
    }
    *out = c;
    return NULL;
}

void pm_catalog_free(pm_catalog *c)
{
    if (!c)
        return;
    pm_fileio_free(c->fio);
    free(c->warehouse);
    free(c);
}

const char *pm_catalog_warehouse(const pm_catalog *c) { return c->warehouse; }

static pm_error *db_path(pm_catalog *c, const char *db, char **out)
{
    *out = NULL;
    PM_TRY(check_name("database", db));
    size_t n = strlen(db);
    if (n >= 3 && !strcmp(db + n - 3, ".db"))
        return pm_error_new(PM_EINVALID, "database name '%s' must not end in '.db'", db);
    char *dir = malloc(n + 4);
    if (!dir)
        return pm_oom();
    memcpy(dir, db, n);
    memcpy(dir + n, ".db", 4);
    *out = pm_path_join(c->warehouse, dir);
    free(dir);
    return *out ? NULL : pm_oom();
}

static pm_error *db_exists(pm_catalog *c, const char *db, char **path, bool *exists)
{
    PM_TRY(db_path(c, db, path));
    return pm_fileio_is_dir(c->fio, *path, exists);
}

/* A table exists when its schema directory holds a schema file. */
static pm_error *table_exists(pm_catalog *c, const char *path, bool *exists)
{
    int64_t *ids = NULL;
    size_t n = 0;
    PM_TRY(pm_schema_list_ids(c->fio, path, &ids, &n));
    free(ids);
    *exists = n > 0;
    return NULL;
}

pm_error *pm_catalog_create_database(pm_catalog *c, const char *db, bool ignore_if_exists)
{
    char *path = NULL;
    bool exists = false;
    pm_error *e = db_exists(c, db, &path, &exists);
    if (!e && exists && !ignore_if_exists)
        e = pm_error_new(PM_EEXIST, "database '%s' already exists", db);
    if (!e && !exists)
        e = pm_fileio_mkdirs(c->fio, path);
    free(path);
    return pm_error_wrap(e, 0, "create database '%s'", db);
}

pm_error *pm_catalog_list_tables(pm_catalog *c, const char *db, char ***names, size_t *count)
{
    *names = NULL;
    *count = 0;
    char *path = NULL;
    bool exists = false;
    pm_name_list l = {0};
    pm_error *e = db_exists(c, db, &path, &exists);
    if (!e && !exists)
        e = pm_error_new(PM_ENOTFOUND, "database '%s' does not exist in %s", db, c->warehouse);
    if (!e)
        e = pm_fileio_list(c->fio, path, &l);
    char **out = NULL;
    size_t n = 0;
    if (!e && l.count)
        e = pm_calloc(&out, l.count, sizeof *out);
    for (size_t i = 0; !e && i < l.count; i++) {
        if (l.names[i][0] == '.')
            continue;
        char *tp = pm_path_join(path, l.names[i]);
        bool is_table = false;
        e = tp ? table_exists(c, tp, &is_table) : pm_oom();
        free(tp);
        if (!e && is_table)
            e = pm_strdup(&out[n++], l.names[i]);
    }
    pm_fileio_list_free(&l);
    free(path);
    if (e) {
        pm_catalog_names_free(out, n);
        return pm_error_wrap(e, 0, "list tables of database '%s'", db);
    }
    *names = out;
    *count = n;
    return NULL;
}

pm_error *pm_catalog_list_databases(pm_catalog *c, char ***names, size_t *count)
{
    *names = NULL;
    *count = 0;
    pm_name_list l = {0};
    PM_TRY(pm_fileio_list(c->fio, c->warehouse, &l));
    char **out = NULL;
    size_t n = 0;
    pm_error *e = l.count ? pm_calloc(&out, l.count, sizeof *out) : NULL;
    for (size_t i = 0; !e && i < l.count; i++) {
        size_t len = strlen(l.names[i]);
        if (len <= 3 || strcmp(l.names[i] + len - 3, ".db") || l.names[i][0] == '.')
            continue;
        char *p = pm_path_join(c->warehouse, l.names[i]);
        bool dir = false;
        e = p ? pm_fileio_is_dir(c->fio, p, &dir) : pm_oom();
        free(p);
        if (!e && dir)
            e = pm_strndup(&out[n++], l.names[i], len - 3);
    }
    pm_fileio_list_free(&l);
    if (e) {
        pm_catalog_names_free(out, n);
        return e;
    }
    *names = out;
    *count = n;
    return NULL;
}

void pm_catalog_names_free(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

pm_error *pm_catalog_drop_database(pm_catalog *c, const char *db, bool ignore_if_not_exists,
                                   bool cascade)
{
    char *path = NULL;
    bool exists = false;
    pm_error *e = db_exists(c, db, &path, &exists);
    if (!e && !exists && !ignore_if_not_exists)
        e = pm_error_new(PM_ENOTFOUND, "database '%s' does not exist in %s", db, c->warehouse);
    if (!e && exists && !cascade) {
        char **tables = NULL;
        size_t n = 0;
        e = pm_catalog_list_tables(c, db, &tables, &n);
        if (!e && n)
            e = pm_error_new(PM_EINVALID,
                             "database '%s' is not empty (%zu tables, e.g. '%s'); drop it with cascade",
                             db, n, tables[0]);
        pm_catalog_names_free(tables, n);
    }
    if (!e && exists)
        e = pm_fileio_delete_tree(c->fio, path);
    free(path);
    return pm_error_wrap(e, 0, "drop database '%s'", db);
}

pm_error *pm_catalog_table_path(pm_catalog *c, const char *db, const char *table, char **out)
{
    *out = NULL;
    char *dir = NULL;
    PM_TRY(db_path(c, db, &dir));
    pm_error *e = check_name("table", table);
    if (!e) {
        *out = pm_path_join(dir, table);
        if (!*out)
            e = pm_oom();
    }
    free(dir);
    return e;
}

pm_error *pm_catalog_create_table(pm_catalog *c, const char *db, const char *table,
                                  const pm_table_spec *spec, bool ignore_if_exists)
{
    char *dir = NULL, *path = NULL;
    bool exists = false;
    pm_error *e = db_exists(c, db, &dir, &exists);
    if (!e && !exists)
        e = pm_error_new(PM_ENOTFOUND, "database '%s' does not exist in %s", db, c->warehouse);
    if (!e)
        e = pm_catalog_table_path(c, db, table, &path);
    if (!e)
        e = pm_table_create(path, spec, ignore_if_exists);
    free(dir);
    free(path);
    return pm_error_wrap(e, 0, "create table %s.%s", db, table);
}

pm_error *pm_catalog_get_table(pm_catalog *c, const char *db, const char *table, pm_table **out)
{
    *out = NULL;
    char *path = NULL;
    PM_TRY(pm_catalog_table_path(c, db, table, &path));
    pm_error *e = pm_table_open(out, path, NULL);
    free(path);
    return e;
}

pm_error *pm_catalog_drop_table(pm_catalog *c, const char *db, const char *table,
                                bool ignore_if_not_exists)
{
    char *path = NULL;
    bool exists = false;
    pm_error *e = pm_catalog_table_path(c, db, table, &path);
    if (!e)
        e = table_exists(c, path, &exists);
    if (!e && !exists && !ignore_if_not_exists)
        e = pm_error_new(PM_ENOTFOUND, "table %s.%s does not exist in %s", db, table, c->warehouse);
    if (!e && exists)
        e = pm_fileio_delete_tree(c->fio, path);
    free(path);
    return pm_error_wrap(e, 0, "drop table %s.%s", db, table);
}
