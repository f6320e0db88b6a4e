/*
 * format/parquet/pq_schema.h — a Parquet file's schema as the reader sees
 * it: the Paimon type of every top-level field, and the record-assembly
 * tree (pq_rnode) with definition/repetition thresholds that turns leaf
 * levels into Arrow-layout columns, plus one pq_leaf per Parquet leaf
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

typedef enum { PQN_LEAF, PQN_ROW, PQN_ARRAY, PQN_MAP } pq_node_kind;

/* Target layout of a leaf's values in its pm_column. */
typedef enum { PQV_BOOL, PQV_FIXED, PQV_VAR } pq_value_kind;

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
} pq_conv;

typedef struct pq_rnode pq_rnode;
struct pq_rnode {
    pq_node_kind kind;
    int16_t def, rep_begin, elem_def;
    pq_rnode *parent;
    pq_rnode **children;      /* ROW fields; ARRAY: 1 element; MAP: key, value */
    uint32_t nchildren;
    uint32_t first_leaf;      /* owner leaf (global leaf index) */
    uint32_t nleaves;         /* leaves in this subtree */
    const char *name;         /* Parquet name of the node's field */
};

typedef struct pq_leaf {
    uint32_t column;          /* index among the file's leaf columns */
    int32_t ptype;            /* pq_type */
    int32_t type_length;      /* FLBA width */
    int16_t max_def, max_rep;
    pq_conv conv;
    pq_value_kind vkind;
    int width;                /* PQV_FIXED: bytes per value in the column */
    int pwidth;               /* fixed physical width (0 for BYTE_ARRAY, BOOLEAN) */
    const char *path;         /* dotted path, for messages */
    pq_rnode **nodes;         /* path from the top-level node to the leaf node */
    int depth;                /* entries in nodes */
    const pm_type *type;      /* Paimon type of the leaf (inside the schema's types) */
} pq_leaf;

typedef struct pq_top_field {
    const char *name;
    int32_t id;               /* Parquet field_id, else the position */
    bool has_field_id;
    pm_type *type;            /* owned; NULL when unsupported */
    pm_error *err;            /* owned; why the field cannot be read */
    pq_rnode *node;
    uint32_t first_leaf, nleaves;
} pq_top_field;

typedef struct pq_schema {
    pm_arena arena;
    pq_top_field *fields;
    uint32_t nfields;
    pq_leaf *leaves;
    uint32_t nleaves;
} pq_schema;

/* Build from a parsed footer.  A structurally broken schema is an error;
 * a field of an unsupported type only records its error in fields[i].err. */
pm_error *pq_schema_build(pq_schema **out, const pm_pq_file_meta *m);
void pq_schema_free(pq_schema *s);

/* The Paimon type of one leaf column for statistics: NULL when unsupported. */
const pm_type *pq_schema_leaf_type(const pq_schema *s, uint32_t leaf);

#endif
