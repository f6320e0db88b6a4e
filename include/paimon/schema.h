/*
 * paimon/schema.h — one version of a table's schema (`schema/schema-N`):
 * fields with ids and types, partition keys, primary keys, options and
 * comment.
 *
 * A pm_schema is immutable.  The schemas a table handle returns
 * (pm_table_schema, pm_table_schema_get) are owned by that handle and stay
 * valid until pm_table_free; every string and type a getter returns is
 * owned by the schema and lives as long as it does.
 */
#ifndef PAIMON_SCHEMA_H
#define PAIMON_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

#include "paimon/error.h"
#include "paimon/types.h"
#include "paimon/version.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pm_schema pm_schema;

/* The schema id (N of schema/schema-N). */
PM_API int64_t pm_schema_id(const pm_schema *s);
/* The ROW of the table's fields, with field ids. */
PM_API const pm_type *pm_schema_row_type(const pm_schema *s);
PM_API size_t pm_schema_partition_key_count(const pm_schema *s);
/* Partition key i (0-based), NULL when out of range. */
PM_API const char *pm_schema_partition_key(const pm_schema *s, size_t i);
PM_API size_t pm_schema_primary_key_count(const pm_schema *s);
/* Primary key i (0-based), NULL when out of range. */
PM_API const char *pm_schema_primary_key(const pm_schema *s, size_t i);
/* Number of table options, and option i as key and value (NULL when out
 * of range), in the order of the schema file. */
PM_API size_t pm_schema_option_count(const pm_schema *s);
PM_API const char *pm_schema_option_key(const pm_schema *s, size_t i);
PM_API const char *pm_schema_option_value(const pm_schema *s, size_t i);
/* The value of option `key` as the schema stores it, or NULL when it is
 * not set (Paimon's default then applies). */
PM_API const char *pm_schema_option(const pm_schema *s, const char *key);
/* Table comment, or NULL. */
PM_API const char *pm_schema_comment(const pm_schema *s);
/* When the schema was written (epoch milliseconds). */
PM_API int64_t pm_schema_time_millis(const pm_schema *s);
/* The schema file's JSON exactly as Apache Paimon Java writes it
 * (malloc'd; release with pm_free). */
PM_API pm_error *pm_schema_to_json_text(char **out, const pm_schema *s);

#ifdef __cplusplus
}
#endif
#endif
