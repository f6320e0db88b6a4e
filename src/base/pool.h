/*
 * base/pool.h — a small fixed-size thread pool with task groups.
 *
 * Jobs are (function, argument) pairs run in FIFO order by N worker threads.
 * A pm_task_group counts the jobs submitted through it so a caller can wait
 * for exactly its own jobs while others share the pool.  A pool of 0 threads
 * runs every job inline in pm_pool_submit (useful for tests and for
 * single-threaded builds).  Jobs must not call pm_group_wait on the group they
 * belong to.
 */
#ifndef PM_BASE_POOL_H
#define PM_BASE_POOL_H

#include <stddef.h>

#include "paimon/error.h"

typedef struct pm_pool pm_pool;
typedef struct pm_task_group pm_task_group;
typedef void (*pm_job_fn)(void *arg);

pm_error *pm_pool_new(pm_pool **out, size_t threads);
size_t pm_pool_threads(const pm_pool *p);
/* Waits for queued jobs to finish, then joins workers. NULL is fine. */
void pm_pool_free(pm_pool *p);

pm_error *pm_group_new(pm_task_group **out);
void pm_group_free(pm_task_group *g);
/* Queue fn(arg) on the pool; g may be NULL. */
pm_error *pm_pool_submit(pm_pool *p, pm_task_group *g, pm_job_fn fn, void *arg);
/* Block until every job submitted with g has finished. */
void pm_group_wait(pm_task_group *g);

/* Number of online CPUs (at least 1). */
size_t pm_cpu_count(void);

#endif
