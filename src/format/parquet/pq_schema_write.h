/*
 * format/parquet/pq_schema_write.h — Paimon ROW type → Parquet schema, the
 * way Apache Paimon's ParquetSchemaConverter writes it (spec §5.1, §0.1),
 * plus one leaf descriptor per Parquet column telling the column writer how
 * to walk the in-memory column tree and encode the values.
 *
 * Schema elements come out depth-first, root first:
 *   root         `paimon_schema`, num_children, no repetition
 *   atomic       physical type (+ type_length), repetition from nullability,
 *                field_id, logical type and the legacy converted type
 *                parquet-java derives from it (TIMESTAMP_MILLIS/MICROS
 *                also when not adjusted to UTC)
 *   ROW          group, children keep their own field ids (depth restarts)
 *   ARRAY        group (LIST) id { repeated group list { element } }
 *   MAP/MULTISET group (MAP) id { repeated group key_value (MAP_KEY_VALUE)
 *                  { required key; value } }   (MULTISET value = INT NOT NULL)
 * Nested element/key/value ids derive from the enclosing top-level (or ROW
 * member) field id and the nesting depth with 32-bit wrapping arithmetic:
 *   element = 536870911 + id*1024 + depth, key = 536870911 - id*1024 - depth,
 *   value = 536870911 + id*1024 + depth.
 *
 * Leaves: each Parquet column has a path of steps from its top-level batch
 * column down to the leaf.  A step says whether that node is OPTIONAL and
 * how to descend (ROW member, LIST element, MAP key or value).  Definition
 * levels grow by one at every OPTIONAL node that is present and at every
 * repeated group with at least one element; repetition levels number the
 * repeated groups from the top (1-based).
 */
#ifndef PM_PQ_SCHEMA_WRITE_H
#define PM_PQ_SCHEMA_WRITE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "format/parquet/parquet_meta.h"
#include "paimon/types.h"

/* Deepest supported nesting of groups along one path. */
#define PQ_MAX_NESTING 64

/* How a leaf's values are read from the column and written physically. */
typedef enum pq_value_kind {
    PQV_BOOL,        /* bitmap → BOOLEAN */
    PQV_I8,          /* int8 → INT32 */
    PQV_I16,         /* int16 → INT32 */
    PQV_I32,         /* int32 → INT32 (INT, DATE, TIME) */
    PQV_I64,         /* int64 → INT64 (BIGINT, TIMESTAMP p<=6) */
    PQV_F32,         /* float → FLOAT */
    PQV_F64,         /* double → DOUBLE */
    PQV_DEC32,       /* decimal128 → INT32 unscaled (p <= 9) */
    PQV_DEC64,       /* decimal128 → INT64 unscaled (p <= 18) */
    PQV_DECFLBA,     /* decimal128 → big-endian FIXED_LEN_BYTE_ARRAY(n) */
    PQV_INT96,       /* epoch nanos → INT96 (nanos of day LE, julian day LE) */
    PQV_BYTES        /* offsets/data → BYTE_ARRAY */
} pq_value_kind;

/* Statistics comparison of a leaf. */
typedef enum pq_stats_kind {
    PQS_INT96,       /* INT96: compared as bytes, min/max kept only when all equal */
    PQS_BOOL,
    PQS_I32,         /* signed */
    PQS_I64,         /* signed */
    PQS_F32,         /* IEEE, NaN ignored */
    PQS_F64,
    PQS_DEC128,      /* FIXED_LEN_BYTE_ARRAY decimal: signed numeric order */
    PQS_BYTES        /* unsigned lexicographic */
} pq_stats_kind;

typedef enum pq_step_kind {
    PQ_STEP_LEAF,       /* the leaf column itself */
    PQ_STEP_ROW,        /* descend into children[child] */
    PQ_STEP_LIST,       /* ARRAY: elements in children[0] */
    PQ_STEP_MAP_KEY,    /* MAP/MULTISET: keys in children[0] */
    PQ_STEP_MAP_VALUE   /* MAP/MULTISET: values in children[1] */
} pq_step_kind;

typedef struct pq_step {
    uint8_t kind;        /* pq_step_kind */
    bool nullable;       /* OPTIONAL in Parquet (NOT NULL or forced key → false) */
    int16_t rep_level;   /* LIST/MAP: repetition level of this repeated group */
    int32_t child;       /* ROW: member index */
    const char *name;    /* field name for error messages */
} pq_step;

typedef struct pq_leaf {
    const char **path;   /* path_in_schema */
    uint32_t path_len;
    int16_t max_def, max_rep;
    int32_t phys;        /* pq_type */
    int32_t type_length; /* FIXED_LEN_BYTE_ARRAY width (INT96: 12) */
    pq_value_kind kind;
    pq_stats_kind stats;
    bool legacy_stats;   /* sort order SIGNED: also write legacy min/max */
    bool dict_ok;        /* PARQUET_1_0 dictionary-encodes this physical type */
    const pm_type *type; /* the leaf's Paimon type (borrowed from the row type) */
    uint32_t top;        /* top-level field index */
    uint32_t nsteps;
    pq_step *steps;      /* steps[0] is the top-level field */
    bool flat;           /* single step: the top-level column is the leaf */
} pq_leaf;

typedef struct pq_write_schema {
    pq_schema_element *elems;
    uint32_t nelems;
    pq_leaf *leaves;
    uint32_t nleaves;
    uint32_t ntop;
    uint32_t *top_first_leaf;   /* per top-level field: index of its first leaf */
    uint32_t *top_nleaves;      /* per top-level field: number of leaves */
} pq_write_schema;

/* Build the schema of `row` (a ROW type) into arena memory.  The leaves
 * borrow `row`'s sub-types: keep `row` alive as long as the schema.
 * PM_EUNSUPPORTED names a field whose type has no Parquet mapping. */
pm_error *pq_schema_build(pm_arena *a, const pm_type *row, pq_write_schema *out);

/* Nested field ids of §0.1 (32-bit wrapping). */
int32_t pq_array_element_id(int32_t id, int32_t depth);
int32_t pq_map_key_id(int32_t id, int32_t depth);
int32_t pq_map_value_id(int32_t id, int32_t depth);

/* FIXED_LEN_BYTE_ARRAY width for a DECIMAL precision > 18. */
int32_t pq_decimal_flba_len(int32_t precision);

#endif
