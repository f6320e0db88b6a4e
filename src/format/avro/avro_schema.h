/*
 * format/avro/avro_schema.h — Avro schemas: the parsed writer schema of a
 * container file, and the Avro schema Paimon derives from a row type.
 *
 * A parsed schema is a graph of pm_avro_node (named types referenced twice,
 * or recursively, are the same node) allocated in one arena owned by the
 * pm_avro_schema; nodes live as long as the schema.
 *
 * Parsing follows the Avro 1.11 specification: primitive names, records,
 * enums, arrays, maps, unions, fixed, named-type references resolved with
 * namespaces, and logical types.  A logical type that does not fit its
 * underlying type (e.g. "date" on a string, a decimal whose precision does
 * not fit its fixed size) is ignored, as the specification requires.
 */
#ifndef PM_FORMAT_AVRO_SCHEMA_H
#define PM_FORMAT_AVRO_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/buf.h"
#include "paimon/error.h"
#include "paimon/types.h"

typedef enum pm_avro_kind {
    PM_AVRO_NULL,
    PM_AVRO_BOOLEAN,
    PM_AVRO_INT,
    PM_AVRO_LONG,
    PM_AVRO_FLOAT,
    PM_AVRO_DOUBLE,
    PM_AVRO_BYTES,
    PM_AVRO_STRING,
    PM_AVRO_RECORD,
    PM_AVRO_ENUM,
    PM_AVRO_ARRAY,
    PM_AVRO_MAP,
    PM_AVRO_UNION,
    PM_AVRO_FIXED
} pm_avro_kind;

typedef enum pm_avro_logical {
    PM_AVRO_LT_NONE,
    PM_AVRO_LT_DATE,                   /* int */
    PM_AVRO_LT_TIME_MILLIS,            /* int */
    PM_AVRO_LT_TIME_MICROS,            /* long */
    PM_AVRO_LT_TIMESTAMP_MILLIS,       /* long */
    PM_AVRO_LT_TIMESTAMP_MICROS,       /* long */
    PM_AVRO_LT_TIMESTAMP_NANOS,        /* long (Avro 1.12) */
    PM_AVRO_LT_LOCAL_TIMESTAMP_MILLIS, /* long */
    PM_AVRO_LT_LOCAL_TIMESTAMP_MICROS, /* long */
    PM_AVRO_LT_LOCAL_TIMESTAMP_NANOS,  /* long (Avro 1.12) */
    PM_AVRO_LT_DECIMAL,                /* bytes or fixed */
    PM_AVRO_LT_UUID,                   /* string or fixed(16) */
    PM_AVRO_LT_MAP                     /* array of {key, value} records (Paimon, Iceberg) */
} pm_avro_logical;

typedef struct pm_avro_node pm_avro_node;

typedef struct pm_avro_field {
    const char *name;
    pm_avro_node *type;
} pm_avro_field;

struct pm_avro_node {
    pm_avro_kind kind;
    pm_avro_logical logical;
    int32_t precision, scale;  /* decimal */
    const char *name;          /* full name of a record/enum/fixed, else NULL */
    size_t size;               /* fixed: byte size */
    size_t n;                  /* record: fields; union: branches; enum: symbols */
    pm_avro_field *fields;     /* record */
    pm_avro_node **branches;   /* union */
    const char **symbols;      /* enum */
    pm_avro_node *items;       /* array: items; map: values */
    int null_branch;           /* union: index of the "null" branch, or -1 */
    size_t min_size;           /* fewest bytes one value can encode to */
    int min_state;             /* internal: 0 new, 1 computing, 2 done */
};

typedef struct pm_avro_schema {
    pm_arena arena;
    pm_avro_node *root;
} pm_avro_schema;

/* Parse schema JSON text (n bytes, need not be NUL-terminated). */
pm_error *pm_avro_schema_parse(const char *json, size_t n, pm_avro_schema **out);
void pm_avro_schema_free(pm_avro_schema *s);

const char *pm_avro_kind_name(pm_avro_kind k);

/* Record field by name (case-sensitive), or -1. */
ptrdiff_t pm_avro_field_index(const pm_avro_node *record, const char *name);

/* Naming used by pm_avro_schema_from_type. */
#define PM_AVRO_PAIMON_NAMESPACE "org.apache.paimon.avro.generated"
#define PM_AVRO_PAIMON_RECORD "record"

/*
 * The Avro schema JSON Paimon writes for a ROW type, byte for byte as Java's
 * Schema.toString() prints it (see the spec, paimon-metadata-format.md §4):
 * top record `record` in namespace org.apache.paimon.avro.generated, nested
 * rows `<parent>_<field>`, nullable T → ["null", T] with "default": null,
 * MAP/MULTISET with a CHAR/VARCHAR key → Avro map, otherwise an array of
 * {key, value} records with logicalType "map".  Appends to `out`.
 * PM_EUNSUPPORTED for types Avro cannot hold (TIMESTAMP precision > 6,
 * TIME precision > 3, VARIANT).
 */
pm_error *pm_avro_schema_json_from_type(const pm_type *row, pm_buf *out);

#endif
