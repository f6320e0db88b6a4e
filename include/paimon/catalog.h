/*
 * paimon/catalog.h — the filesystem catalog: databases and tables under a
 * warehouse directory, laid out as Apache Paimon's filesystem catalog does:
 *
 *   <warehouse>/<db>.db/                a database
 *   <warehouse>/<db>.db/<table>/        a table (it exists once schema/ has a schema-N)
 *
 * A catalog handle only holds the warehouse path and file I/O; every call
 * looks at the file system, so several processes may share a warehouse.
 * Names must be non-empty, must not start with '.', and must not contain
 * '/', '\0' or control characters; database names must not end in ".db".
 */
#ifndef PAIMON_CATALOG_H
#define PAIMON_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "paimon/version.h"
#include "paimon/error.h"
#include "paimon/table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pm_catalog pm_catalog;

/* Open a warehouse (a local path or file:// URI); it need not exist yet. */
PM_API pm_error *pm_catalog_open(pm_catalog **out, const char *warehouse);
PM_API void pm_catalog_free(pm_catalog *c);
/* Warehouse path; owned by c. */
PM_API const char *pm_catalog_warehouse(const pm_catalog *c);

PM_API pm_error *pm_catalog_create_database(pm_catalog *c, const char *db, bool ignore_if_exists);
/* A database that still holds tables is only dropped with cascade. */
PM_API pm_error *pm_catalog_drop_database(pm_catalog *c, const char *db, bool ignore_if_not_exists,
                                          bool cascade);
/* Sorted names; free with pm_catalog_names_free. */
PM_API pm_error *pm_catalog_list_databases(pm_catalog *c, char ***names, size_t *count);
PM_API pm_error *pm_catalog_list_tables(pm_catalog *c, const char *db, char ***names, size_t *count);
PM_API void pm_catalog_names_free(char **names, size_t count);

/* Path of a table (malloc'd), whether or not it exists. */
PM_API pm_error *pm_catalog_table_path(pm_catalog *c, const char *db, const char *table, char **out);
/* The database must exist (PM_ENOTFOUND otherwise). */
PM_API pm_error *pm_catalog_create_table(pm_catalog *c, const char *db, const char *table,
                                         const pm_table_spec *spec, bool ignore_if_exists);
PM_API pm_error *pm_catalog_get_table(pm_catalog *c, const char *db, const char *table, pm_table **out);
/* Removes the table directory (data, manifests, snapshots, schemas). */
PM_API pm_error *pm_catalog_drop_table(pm_catalog *c, const char *db, const char *table,
                                       bool ignore_if_not_exists);

#ifdef __cplusplus
}
#endif
#endif
