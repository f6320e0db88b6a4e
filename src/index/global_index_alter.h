/*
 * index/global_index_alter.h — the schema-change guard of global index
 * declarations (Java's rule, also for primary-key source-backed indexes):
 * a column declared in the current schema (index/global_index_decl.h)
 * cannot be renamed, dropped or have its type changed while the next
 * schema still declares it.  A change that also removes the column's
 * declaration is allowed (retained payloads over files of the old type
 * are then ignored by readers and replaced by maintenance).
 *
 * Columns are matched by field id: the next schema must hold the id with
 * the same name and the same type (nullability included).  Refusals are
 * PM_EINVALID naming the column, the change and the option that declares
 * it.
 */
#ifndef PM_INDEX_GLOBAL_INDEX_ALTER_H
#define PM_INDEX_GLOBAL_INDEX_ALTER_H

#include "meta/schema.h"
#include "paimon/error.h"

/* May `next` follow `cur`?  Declarations that do not resolve in cur (an
 * older invalid schema) guard nothing. */
pm_error *pm_gi_check_alter(const pm_schema *cur, const pm_schema *next);

#endif
