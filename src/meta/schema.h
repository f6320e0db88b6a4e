/*
 * meta/schema.h — the table schema file (`schema/schema-N`): parsed value,
 * JSON reader, Java-identical writer, schema directory operations and
 * derived information (trimmed primary keys, bucket keys, partition type).
 *
 * JSON layout (SchemaSerializer, Jackson pretty printer), keys in order:
 *   version (int, 3), id (long), fields [DataField...], highestFieldId (int),
 *   partitionKeys [string...], primaryKeys [string...], options {string: string},
 *   comment (omitted when null), timeMillis (long)
 * DataField: id, name, type, then description / defaultValue only when set.
 * Types: atomic types are strings ("INT NOT NULL", "DECIMAL(10, 2)"); nested
 * types are objects:
 *   {"type": "ARRAY[ NOT NULL]", "element": T}
 *   {"type": "MULTISET[ NOT NULL]", "element": T}
 *   {"type": "MAP[ NOT NULL]", "key": K, "value": V}
 *   {"type": "ROW[ NOT NULL]", "fields": [DataField...]}   (nested ids kept)
 * and, like Java's parser, a nested type is recognised by the prefix of its
 * "type" string and is nullable unless that string contains "NOT NULL".
 * VECTOR is recognised and reported as unsupported.
 *
 * Read compatibility: missing version = 1; version <= 1 without `bucket`
 * gets bucket=1 and version <= 2 without `file.format` gets file.format=orc
 * (appended to the options, as Java does); missing timeMillis = 0;
 * pypaimon's "comment": null, "description": null and the extra "nullable"
 * keys of nested types are tolerated (null = absent).
 *
 * Validation on load (pm_schema_validate) mirrors Java's TableSchema
 * constructor: primary keys must not all be partition keys; `bucket-key`
 * fields must exist, must not be partition keys and must be primary keys
 * when there are any; `bucket` must be an int.  The one validation pass of
 * a table (pm_schema_validate_table, run when a table is created, opened
 * or reloaded) adds Java's SchemaValidation: every known option passes
 * pm_options_validate (type, range, enumerated values, bucket -2, -1 or
 * > 0), `sequence.field` and `rowkind.field` name fields, and for a new
 * table a fixed-bucket append table needs a `bucket-key`.
 * Creating a table additionally checks (Schema): field names unique,
 * partition and primary keys unique and existing, field ids unique; and
 * moves the `primary-key` / `partition` options into the key lists, making
 * primary-key fields NOT NULL unless primary-key.nullable.
 */
#ifndef PM_META_SCHEMA_H
#define PM_META_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "io/fileio.h"
#include "meta/options.h"
#include "paimon/error.h"
#include "paimon/types.h"

#define PM_SCHEMA_VERSION 3

/* Row-tracking system fields (SpecialFields): readable columns of tables
 * with row-tracking.enabled, physical only in files that list them in
 * `_WRITE_COLS`. */
#define PM_ROW_ID_FIELD_ID 2147483642
#define PM_ROW_ID_NAME "_ROW_ID"
#define PM_SEQUENCE_NUMBER_FIELD_ID 2147483646
#define PM_SEQUENCE_NUMBER_NAME "_SEQUENCE_NUMBER"

typedef struct pm_schema {
    int32_t version;
    int64_t id;
    pm_type *row_type;        /* ROW (nullable) of the table's fields; owns them */
    int32_t highest_field_id;
    pm_str_list partition_keys;
    pm_str_list primary_keys;
    pm_options *options;
    char *comment;            /* NULL = absent */
    int64_t time_millis;
} pm_schema;

void pm_schema_free(pm_schema *s);
pm_error *pm_schema_clone(const pm_schema *s, pm_schema **out);

/* Parse schema JSON; `what` names the file in errors. */
pm_error *pm_schema_parse(const void *json, size_t len, const char *what, pm_schema **out);
/* Append the Java-identical JSON (no trailing newline). */
pm_error *pm_schema_to_json(const pm_schema *s, pm_buf *out);
/* Append the JSON form of one type (string or object, see top). */
pm_error *pm_schema_type_to_json(const pm_type *t, pm_buf *out);

/* Java's TableSchema checks (see top). */
pm_error *pm_schema_validate(const pm_schema *s);
/* The table's one validation pass (see top): TableSchema checks, options,
 * SchemaValidation rules (`creating`: those for new tables too).
 * PM_EINVALID naming the first problem. */
pm_error *pm_schema_validate_table(const pm_schema *s, bool creating);

/* Build schema 0 for a new table.  `row_type` is cloned; keys and options
 * are copied; the `primary-key`/`partition` options are applied (see top).
 * highestFieldId = the largest field id, nested fields included. */
pm_error *pm_schema_new_table(pm_schema **out, const pm_type *row_type,
                              const char *const *partition_keys, size_t npartition,
                              const char *const *primary_keys, size_t nprimary,
                              const pm_options *options, const char *comment, int64_t time_millis);

/* ---- derived information ---- */
size_t pm_schema_field_count(const pm_schema *s);
const pm_field *pm_schema_field(const pm_schema *s, size_t i);
ptrdiff_t pm_schema_field_index(const pm_schema *s, const char *name);
bool pm_schema_has_primary_key(const pm_schema *s);
/* Primary keys minus partition keys (PM_EINVALID if that leaves none). */
pm_error *pm_schema_trimmed_primary_keys(const pm_schema *s, pm_str_list *out);
/* bucket-key option (split on ',', like Java no trimming) or the trimmed
 * primary keys; may be empty (append tables without bucket-key). */
pm_error *pm_schema_bucket_keys(const pm_schema *s, pm_str_list *out);
pm_error *pm_schema_num_buckets(const pm_schema *s, int32_t *out);
/* ROW of the named fields, in the given order (new tree, caller frees);
 * PM_EINVALID naming a missing field. */
pm_error *pm_schema_project(const pm_schema *s, const char *const *names, size_t n, pm_type **out);
pm_error *pm_schema_partition_type(const pm_schema *s, pm_type **out);
pm_error *pm_schema_trimmed_primary_key_type(const pm_schema *s, pm_type **out);
pm_error *pm_schema_bucket_key_type(const pm_schema *s, pm_type **out);

/* ---- schema directory of a branch (<branch root>/schema) ---- */
pm_error *pm_schema_list_ids(pm_fileio *fio, const char *branch_root, int64_t **ids, size_t *count);
/* PM_ENOTFOUND when missing. */
pm_error *pm_schema_load(pm_fileio *fio, const char *branch_root, int64_t id, pm_schema **out);
/* Highest id; *out = NULL when the table has no schema. */
pm_error *pm_schema_load_latest(pm_fileio *fio, const char *branch_root, pm_schema **out);
/* Publish schema-<id> if absent; *committed=false when it already exists. */
pm_error *pm_schema_commit(pm_fileio *fio, const char *branch_root, const pm_schema *s, bool *committed);

#endif
