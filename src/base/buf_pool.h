/*
 * base/buf_pool.h — a bounded pool of spare byte buffers.
 *
 * Writers that buffer a lot per file (a Parquet writer's page blocks and
 * page values: a row group of compressed pages) give their big buffers
 * back when they are done, and the next writer of the same owner (a table
 * handle: the next file, the next compaction task) takes them instead of
 * allocating fresh memory, whose every first touched 4 KiB page costs a
 * page fault and zeroing by the kernel.
 *
 * Rules: the pool keeps at most `cap` bytes of spare capacity (a buffer
 * given beyond that is freed); take hands out the smallest spare of at
 * least the asked capacity (len 0, contents undefined) or nothing; one
 * mutex guards the list (takes and gives are per buffer, never per value),
 * so writers on several threads may share a pool.  A NULL pool is allowed
 * everywhere: take gives nothing, give frees.
 */
#ifndef PM_BASE_BUF_POOL_H
#define PM_BASE_BUF_POOL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"

typedef struct pm_buf_pool pm_buf_pool;

pm_error *pm_buf_pool_new(pm_buf_pool **out, size_t cap);
/* Frees every spare buffer and the pool (NULL: nothing). */
void pm_buf_pool_free(pm_buf_pool *p);
/* Frees every spare buffer; the pool stays usable (NULL: nothing).  For an
 * owner whose writers are done for a while (a compaction before its
 * commit), so its spares do not stay resident. */
void pm_buf_pool_trim(pm_buf_pool *p);
/* When a spare of capacity >= min_cap exists, *b (which must own no
 * storage: empty or borrowed) becomes it, len 0, and true is returned;
 * else *b is untouched and false returned. */
bool pm_buf_pool_take(pm_buf_pool *p, size_t min_cap, pm_buf *b);
/* b's storage goes to the pool (or is freed when the pool is full or
 * NULL); b becomes empty.  Borrowed bytes are only forgotten. */
void pm_buf_pool_give(pm_buf_pool *p, pm_buf *b);
/* Spare bytes held now (tests, memory figures). */
size_t pm_buf_pool_spare(pm_buf_pool *p);

#endif
