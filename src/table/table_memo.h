/*
 * table/table_memo.h — values computed once per table handle and shared by
 * every thread using the handle (e.g. a decision all tasks of one
 * compaction take alike: the key names what makes it valid, such as the
 * plan id, schema id and writer settings).
 *
 * Protocol: pm_table_memo_claim either copies a stored value (*found) or
 * makes the caller the one computing it; meanwhile other claimants of the
 * same key wait.  The computing caller then calls pm_table_memo_put (the
 * value is stored for all) or pm_table_memo_abandon (nothing stored: the
 * next waiter, or the next claimant, computes it for itself).  At most
 * PM_TABLE_MEMO_MAX keys are kept; the oldest stored one gives way.
 */
#ifndef PM_TABLE_MEMO_H
#define PM_TABLE_MEMO_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "paimon/error.h"
#include "paimon/table.h"

#define PM_TABLE_MEMO_MAX 16

typedef struct pm_table_memo pm_table_memo;

pm_error *pm_table_memo_new(pm_table_memo **out);
void pm_table_memo_free(pm_table_memo *m);

/* The value stored under `key` appended to `value` (*found = true), or
 * *found = false and the caller now computes it: it must call put or
 * abandon with the same key exactly once. */
pm_error *pm_table_memo_claim(pm_table *t, const char *key, pm_buf *value, bool *found);
/* Store the claimed key's value (copied) and wake the waiters. */
pm_error *pm_table_memo_put(pm_table *t, const char *key, const void *value, size_t len);
/* Give up a claimed key: nothing stored, one waiter computes instead. */
void pm_table_memo_abandon(pm_table *t, const char *key);

#endif
