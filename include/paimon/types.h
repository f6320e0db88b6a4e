/*
 * paimon/types.h — Paimon logical data types.
 *
 * A pm_type is a plain tree: atomic types carry their parameters (length,
 * precision, scale), ARRAY/MULTISET an element type, MAP a key and a value
 * type, ROW a list of fields (id, name, type).  Nullability is part of the
 * type, as in Paimon's schema JSON (`INT NOT NULL`).
 *
 * Ownership: a pm_type owns its children and field names; pm_type_free
 * releases the whole tree; pm_type_clone makes an independent deep copy.
 * Types are immutable once built and shared read-only between threads.
 *
 * String forms follow Paimon's schema JSON exactly: `VARCHAR(10)`, `STRING`
 * (= VARCHAR(2147483647)), `BYTES` (= VARBINARY(2147483647)),
 * `DECIMAL(10, 2)`, `TIMESTAMP(6)`, `TIMESTAMP(3) WITH LOCAL TIME ZONE`, each
 * followed by ` NOT NULL` when not nullable.
 */
#ifndef PAIMON_TYPES_H
#define PAIMON_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/version.h"
#include "paimon/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pm_type_id {
    PM_TYPE_BOOLEAN,
    PM_TYPE_TINYINT,
    PM_TYPE_SMALLINT,
    PM_TYPE_INT,
    PM_TYPE_BIGINT,
    PM_TYPE_FLOAT,
    PM_TYPE_DOUBLE,
    PM_TYPE_DECIMAL,       /* precision 1..38, scale 0..precision */
    PM_TYPE_CHAR,          /* length 1..2^31-1 */
    PM_TYPE_VARCHAR,       /* length 1..2^31-1; STRING = VARCHAR(PM_MAX_LENGTH) */
    PM_TYPE_BINARY,
    PM_TYPE_VARBINARY,     /* BYTES = VARBINARY(PM_MAX_LENGTH) */
    PM_TYPE_DATE,          /* days since 1970-01-01 */
    PM_TYPE_TIME,          /* precision 0..9; value = millis of day */
    PM_TYPE_TIMESTAMP,     /* precision 0..9, no time zone */
    PM_TYPE_TIMESTAMP_LTZ, /* precision 0..9, instant (WITH LOCAL TIME ZONE) */
    PM_TYPE_ARRAY,
    PM_TYPE_MAP,
    PM_TYPE_MULTISET,      /* stored as MAP<element NOT NULL, INT NOT NULL> */
    PM_TYPE_ROW,
    PM_TYPE_VARIANT,
    PM_TYPE_BLOB
} pm_type_id;

#define PM_MAX_LENGTH INT32_MAX

typedef struct pm_type pm_type;

typedef struct pm_field {
    int32_t id;
    char *name;
    pm_type *type;
    char *description;   /* NULL when absent */
    char *default_value; /* NULL when absent */
} pm_field;

struct pm_type {
    pm_type_id id;
    bool nullable;
    int32_t length;    /* CHAR, VARCHAR, BINARY, VARBINARY */
    int32_t precision; /* DECIMAL, TIME, TIMESTAMP, TIMESTAMP_LTZ */
    int32_t scale;     /* DECIMAL */
    pm_type *element;  /* ARRAY, MULTISET */
    pm_type *key;      /* MAP */
    pm_type *value;    /* MAP */
    size_t nfields;    /* ROW */
    pm_field *fields;  /* ROW */
};

/* Constructors return a new tree the caller owns (NULL on OOM only). */
PM_API pm_type *pm_type_new(pm_type_id id, bool nullable);              /* atomic, default params */
PM_API pm_type *pm_type_new_decimal(int32_t precision, int32_t scale, bool nullable);
PM_API pm_type *pm_type_new_string(pm_type_id id, int32_t length, bool nullable); /* CHAR..VARBINARY */
PM_API pm_type *pm_type_new_temporal(pm_type_id id, int32_t precision, bool nullable); /* TIME, TIMESTAMP(_LTZ) */
PM_API pm_type *pm_type_new_array(pm_type *element, bool nullable);     /* takes element */
PM_API pm_type *pm_type_new_multiset(pm_type *element, bool nullable);  /* takes element */
PM_API pm_type *pm_type_new_map(pm_type *key, pm_type *value, bool nullable); /* takes both */
PM_API pm_type *pm_type_new_row(bool nullable);                         /* add fields with pm_type_add_field */
/* Append a field to a ROW (takes `type`, copies name). */
PM_API pm_error *pm_type_add_field(pm_type *row, int32_t id, const char *name, pm_type *type);

PM_API pm_type *pm_type_clone(const pm_type *t);
PM_API void pm_type_free(pm_type *t);
/* Structural equality including nullability, params, field ids and names. */
PM_API bool pm_type_equals(const pm_type *a, const pm_type *b);
/* Same but ignoring nullability at every level. */
PM_API bool pm_type_equals_ignore_nullable(const pm_type *a, const pm_type *b);
/* Find a ROW field by name (index or -1). */
PM_API ptrdiff_t pm_type_field_index(const pm_type *row, const char *name);
/* Find a ROW field by field id (index or -1). */
PM_API ptrdiff_t pm_type_field_index_by_id(const pm_type *row, int32_t id);

/* The SQL string form used by schema JSON for atomic types, e.g.
 * "DECIMAL(10, 2) NOT NULL".  Nested types print as e.g. "ARRAY<INT>" (the
 * JSON object form lives in the schema module).  malloc'd; caller frees. */
PM_API char *pm_type_to_string(const pm_type *t);
/* Parse the SQL string form (atomic and nested `ARRAY<..>`, `MAP<..,..>`,
 * `ROW<a INT, b STRING>`); keywords INTEGER, NUMERIC, DEC, STRING, BYTES,
 * TIMESTAMP_LTZ accepted. */
PM_API pm_error *pm_type_parse(pm_type **out, const char *text);

PM_API const char *pm_type_id_name(pm_type_id id);
PM_API bool pm_type_is_nested(const pm_type *t);   /* ARRAY, MAP, MULTISET, ROW */

#ifdef __cplusplus
}
#endif
#endif
