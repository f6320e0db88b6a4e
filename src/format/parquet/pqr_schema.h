/*
 * format/parquet/pqr_schema.h — a Parquet file's schema as the reader sees
 * it: the Paimon type of every top-level field, and the record-assembly
 * tree (pqr_node) with definition/repetition thresholds that turns leaf
 * levels into Arrow-layout columns, plus one pqr_leaf per Parquet leaf
 * column (physical type and how its values convert to the Paimon layout).
 *
 * Level thresholds of a node (d = definition level, r = repetition level
 * of one leaf entry):
 *   def        the node's value is non-null when d >= def
 *   rep_begin  the entry starts a new instance of the node when
 *              r <= rep_begin (its number of repeated ancestors)
 *   elem_def   ARRAY/MAP only: an element exists when d >= elem_def
 * Each nested node is built ("owned") by the first leaf below it; the other
 * leaves only append to their own subtrees.
 */
#ifndef PM_PARQUET_PQ_SCHEMA_H
#define PM_PARQUET_PQ_SCHEMA_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "format/parquet/parquet_meta.h"
#include "paimon/types.h"

/* Longest node path of a leaf (schema nesting is limited to 64 levels). */
#define PQR_MAX_PATH 80

typedef enum { PQN_LEAF, PQN_ROW, PQN_ARRAY, PQN_MAP } pqr_node_kind;

/* Target layout of a leaf's values in its pm_column. */
typedef enum { PQR_BOOL, PQR_FIXED, PQR_VAR } pqr_value_kind;

/* Physical value → Paimon value conversion. */
typedef enum {
    PQC_NONE,        /* same bytes (width = physical width) */
    PQC_I32_I8,      /* INT32 → TINYINT */
    PQC_I32_I16,     /* INT32 → SMALLINT (also UINT_8) */
    PQC_U32_I64,     /* UINT_32 → BIGINT */
    PQC_I32_I128,    /* INT32 decimal → decimal128 */
    PQC_I64_I128,    /* INT64 decimal → decimal128 */
    PQC_U64_I128,    /* UINT_64 → DECIMAL(20, 0) */
    PQC_BE_I128,     /* FLBA / BYTE_ARRAY big-endian decimal → decimal128 */
    PQC_INT96_NS,    /* INT96 (nanos of day + julian day) → TIMESTAMP(9) nanos */
    PQC_MICROS_MS32, /* INT64 TIME(MICROS) → int32 millis of day */
    PQC_NANOS_MS32,  /* INT64 TIME(NANOS) → int32 millis of day */
    PQC_F16_F32      /* FLBA(2) FLOAT16 → FLOAT */
} pqr_conv;

typedef struct pqr_node pqr_node;
struct pqr_node {
    pqr_node_kind kind;
    int16_t def, rep_begin, elem_def;
    pqr_node *parent;
    pqr_node **children;      /* ROW fields; ARRAY: 1 element; MAP: key, value */
    uint32_t nchildren;
    uint32_t first_leaf;      /* owner leaf (global leaf index) */
    uint32_t nleaves;         /* leaves in this subtree */
    const char *name;         /* Parquet name of the node's field */
};

typedef struct pqr_leaf {
    uint32_t column;          /* index among the file's leaf columns */
    int32_t ptype;            /* pq_type */
    int32_t type_length;      /* FLBA width */
    int16_t max_def, max_rep;
    pqr_conv conv;
    pqr_value_kind vkind;
    int width;                /* PQR_FIXED: bytes per value in the column */
    int pwidth;               /* fixed physical width (0 for BYTE_ARRAY, BOOLEAN) */
    const char *path;         /* dotted path, for messages */
    pqr_node **nodes;         /* path from the top-level node to the leaf node */
    int depth;                /* entries in nodes */
    const pm_type *type;      /* Paimon type of the leaf (inside the schema's types) */
} pqr_leaf;

typedef struct pqr_field {
    const char *name;
    int32_t id;               /* Parquet field_id, else the position */
    bool has_field_id;
    pm_type *type;            /* owned; NULL when unsupported */
    pm_error *err;            /* owned; why the field cannot be read */
    pqr_node *node;
    uint32_t first_leaf, nleaves;
} pqr_field;

typedef struct pqr_schema {
    pm_arena arena;
    pqr_field *fields;
    uint32_t nfields;
    pqr_leaf *leaves;
    uint32_t nleaves;
} pqr_schema;

/* Build from a parsed footer.  A structurally broken schema is an error;
 * a field of an unsupported type only records its error in fields[i].err. */
pm_error *pqr_schema_build(pqr_schema **out, const pm_pq_file_meta *m);
void pqr_schema_free(pqr_schema *s);

/* The Paimon type of one leaf column for statistics: NULL when unsupported. */
const pm_type *pqr_schema_leaf_type(const pqr_schema *s, uint32_t leaf);

#endif
