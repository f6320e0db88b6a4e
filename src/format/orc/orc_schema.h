/*
 * format/orc/orc_schema.h — ORC types ↔ Paimon types, with Paimon's field
 * ids in the `paimon.id` type attribute.
 *
 * An ORC schema is a list of types in pre-order; column id = index, the
 * root (id 0) is a STRUCT whose fields are the file's columns.  Every type
 * Paimon writes carries the attribute paimon.id = the field id; elements,
 * keys and values of ARRAY / MAP carry the ids Paimon derives from the
 * enclosing field id f and the nesting depth d (32-bit wrapping):
 *   element = 2^31/4 - 1 + f*1024 + d, key = 2^31/4 - 1 - f*1024 - d,
 *   value = 2^31/4 - 1 + f*1024 + d   (d counts from 1 below the field).
 *
 * Paimon → ORC (Paimon's OrcTypeUtil, after OrcFileFormat.refineDataType):
 *   BOOLEAN boolean, TINYINT tinyint, SMALLINT smallint, INT and TIME int,
 *   BIGINT bigint, FLOAT float, DOUBLE double, DECIMAL(p,s) decimal(p,s),
 *   CHAR(n) char(n), VARCHAR(n) varchar(n), STRING string,
 *   BINARY/VARBINARY/BYTES/BLOB binary, DATE date, TIMESTAMP(p) timestamp,
 *   TIMESTAMP(p) WITH LOCAL TIME ZONE timestamp with local time zone
 *   (TIMESTAMP_INSTANT), ARRAY array, MAP map, MULTISET map<e, int>,
 *   ROW struct (members keep their own ids).  VARIANT is unsupported.
 * ORC → Paimon (without a read type): the inverse, with STRING, binary →
 *   BYTES, timestamp → TIMESTAMP(9), timestamp with local time zone →
 *   TIMESTAMP_LTZ(9), every type nullable; union is unsupported.  Field
 *   ids come from paimon.id, else the position among the siblings.
 * A read type (the table's Paimon type of a field) may ask for what the
 * ORC type cannot say: TIME from int, a timestamp precision, BINARY(n),
 * VARBINARY(n), BLOB, CHAR/VARCHAR lengths, MULTISET, NOT NULL;
 * orc_schema_check_read says whether a read type fits a file column.
 */
#ifndef PM_ORC_SCHEMA_H
#define PM_ORC_SCHEMA_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "format/orc/orc_meta.h"
#include "paimon/types.h"

#define ORC_FIELD_ID_KEY "paimon.id"
/* Deepest nesting accepted from a file. */
#define ORC_MAX_DEPTH 64

typedef struct orc_col orc_col;
struct orc_col {
    uint32_t id;                /* column id = type index */
    uint32_t kind;              /* orc_kind */
    const orc_type *type;
    uint32_t nchildren;
    orc_col **children;         /* struct fields; list element; map key, value */
    const char *name;           /* field name in the parent struct, else "" */
    bool has_field_id;
    int32_t field_id;           /* paimon.id */
    uint32_t last_id;           /* largest column id in the subtree */
    uint32_t precision, scale;  /* decimal (defaults 38, 10) */
    uint32_t max_length;        /* char / varchar (default 255) */
};

typedef struct orc_schema {
    pm_arena arena;
    uint32_t ncols;
    orc_col *cols;              /* by column id */
} orc_schema;

/* Validate the type list (a pre-order tree rooted at a STRUCT) and index it. */
pm_error *orc_schema_build(orc_schema **out, const orc_footer *ft);
void orc_schema_free(orc_schema *s);

/* Paimon type of a file column (see above); PM_EUNSUPPORTED for union.
 * `id` is the field id to record for ROW members (their own paimon.id or
 * position). */
pm_error *orc_schema_paimon_type(const orc_col *c, pm_type **out);
/* Whether values of column `c` can be read as Paimon type `want`. */
pm_error *orc_schema_check_read(const orc_col *c, const pm_type *want);

/* Paimon ROW type → ORC types in pre-order (allocated in `a`); ptypes[i]
 * is the Paimon type written to column i (NULL for the root; MULTISET
 * counts get a static INT NOT NULL).  PM_EUNSUPPORTED names a field whose
 * type has no ORC mapping. */
pm_error *orc_schema_from_paimon(pm_arena *a, const pm_type *row, orc_type **types, const pm_type ***ptypes,
                                 uint32_t *ntypes);

/* Nested field ids (32-bit wrapping). */
int32_t orc_array_element_id(int32_t id, int32_t depth);
int32_t orc_map_key_id(int32_t id, int32_t depth);
int32_t orc_map_value_id(int32_t id, int32_t depth);

#endif
