/*
 * table/predicate.h — row filters of reads: the language of `paimon read
 * --where` and pm_read_options.filter, their rows, and the file skipping
 * they allow through data-file indexes (index/file_index.h).
 *
 * Language (keywords in any case):
 *   filter := atom { AND atom }
 *   atom   := column op literal | column IN '(' literal { ',' literal } ')'
 *           | '(' filter ')'
 *   op     := '=' | '<>' | '!=' | '<' | '<=' | '>' | '>='
 *   column := a name of letters, digits and '_' not starting with a digit,
 *             or any name in double quotes ("" for a quote)
 *   literal:= a number (-12, 3.5, 1e3), a string in single quotes ('' for a
 *             quote), TRUE or FALSE
 * A literal is read as a value of its column's type from its text (as
 * `paimon write` reads CSV cells: numbers, decimals, dates and times in
 * ISO form, base64 bytes, strings verbatim).  Only columns of atomic types
 * (not ARRAY, MAP, MULTISET, ROW, VARIANT, BLOB) can be compared; NULL is
 * not a literal (`col = NULL` holds for no row).  Errors are PM_EINVALID
 * naming the position, the column or the literal.
 *
 * Rows: a row is kept when every atom holds: its column's value is not
 * null and equals one of the atom's literals (= and IN), or compares with
 * the literal as the operator says, compared as Java's predicates compare
 * (floats by Float/Double.compare: NaN equals NaN and is above +Infinity,
 * -0.0 is below 0.0; booleans false < true; strings and bytes by their
 * unsigned bytes; decimals, dates, times and timestamps by value).
 *
 * Files: with `file-index.read.enabled` (default true), a data file whose
 * index (embedded, or its `.index` sidecar) proves no row can satisfy the
 * filter is not read.  Each atom is mapped to the file's schema by field id
 * (its column name there); an atom whose column the file lacks or holds
 * with another type (schema evolution) cannot exclude the file, nor can
 * an atom with another operator than = or IN.  The rows read are the same
 * with and without the indexes.
 *
 * Partitions: pm_predicate_partition_match evaluates a filter whose atoms
 * all name partition keys on one serialized partition row.
 */
#ifndef PM_TABLE_PREDICATE_H
#define PM_TABLE_PREDICATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "meta/data_file_meta.h"
#include "paimon/batch.h"
#include "paimon/error.h"
#include "paimon/types.h"
#include "table/table_internal.h"

typedef struct pm_column pm_column;

typedef enum pm_pred_op {
    PM_PRED_IN = 0,        /* = and IN: equals one of the literals */
    PM_PRED_NE,            /* <> and != */
    PM_PRED_LT,
    PM_PRED_LE,
    PM_PRED_GT,
    PM_PRED_GE
} pm_pred_op;

typedef struct pm_pred_atom {
    char *column;          /* name in the schema the filter was parsed against */
    int32_t field_id;
    pm_type *type;         /* the column's type (owned) */
    pm_pred_op op;
    pm_column *values;     /* the literals, of `type`, no nulls (owned); one unless op is IN */
} pm_pred_atom;

typedef struct pm_predicate {
    pm_pred_atom *atoms;   /* all must hold */
    size_t natoms;
} pm_predicate;

/* Parse `text` against the fields of `row_type` (a ROW). */
pm_error *pm_predicate_parse(pm_predicate **out, const char *text, const pm_type *row_type);
void pm_predicate_free(pm_predicate *p);

/* Rows of b that satisfy p: keep bit i (of ceil(rows / 8) bytes) is
 * cleared for each other row (bits already clear stay clear); cols[k] is
 * b's column of atom k.  *kept = rows whose bit is set afterwards. */
pm_error *pm_predicate_rows(const pm_predicate *p, const pm_batch *b, const size_t *cols, uint8_t *keep,
                            int64_t *kept);

/* May data file f (bucket directory `bucket_dir`, of table t) hold rows of
 * p, as far as its file index tells?  *may = true without an index. */
pm_error *pm_predicate_file_may_match(const pm_predicate *p, pm_table *t, const char *bucket_dir,
                                      const pm_data_file_meta *f, bool *may);

/* PM_EINVALID naming the first atom of p whose column is not a field of
 * `ptype` (the table's partition keys, a ROW), by field id; `what` names
 * the caller ("--where of materialize-deletions"). */
pm_error *pm_predicate_check_partition(const pm_predicate *p, const pm_type *ptype, const char *what);
/* Does the partition row (serialized BinaryRow with its arity prefix, of
 * `ptype`) satisfy p?  Every atom's column must be a field of ptype
 * (pm_predicate_check_partition). */
pm_error *pm_predicate_partition_match(const pm_predicate *p, const pm_type *ptype, const uint8_t *partition,
                                       size_t len, bool *match);

#endif
