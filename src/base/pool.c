/*
 * base/pool.c — fixed-size thread pool (see pool.h).
 *
 * One mutex guards a singly linked FIFO of jobs; workers sleep on a condition
 * variable.  Task groups have their own mutex/condvar and a pending counter
 * decremented after each job returns.
 */
#include "base/pool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/mem.h"

typedef struct job {
    struct job *next;
    pm_job_fn fn;
    void *arg;
    pm_task_group *group;
} job;

struct pm_task_group {
    pthread_mutex_t mu;
    pthread_cond_t done;
    size_t pending;
};

struct pm_pool {
    pthread_mutex_t mu;
    pthread_cond_t wake;
    job *head, *tail;
    bool stopping;
    size_t nthreads;
    pthread_t *threads;
};

static void group_finish(pm_task_group *g)
{
    if (!g)
        return;
    pthread_mutex_lock(&g->mu);
    if (--g->pending == 0)
        pthread_cond_broadcast(&g->done);
    pthread_mutex_unlock(&g->mu);
}

static void *worker(void *arg)
{
    pm_pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (!p->head && !p->stopping)
            pthread_cond_wait(&p->wake, &p->mu);
        job *j = p->head;
        if (!j) {
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        p->head = j->next;
        if (!p->head)
            p->tail = NULL;
        pthread_mutex_unlock(&p->mu);
        j->fn(j->arg);
        group_finish(j->group);
        free(j);
    }
}

pm_error *pm_pool_new(pm_pool **out, size_t threads)
{
    *out = NULL;
    pm_pool *p;
    PM_TRY(pm_calloc(&p, 1, sizeof *p));
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    if (threads) {
        pm_error *e = pm_calloc(&p->threads, threads, sizeof(pthread_t));
        if (e) {
            pm_pool_free(p);
            return e;
        }
    }
    for (size_t i = 0; i < threads; i++) {
        if (pthread_create(&p->threads[i], NULL, worker, p) != 0) {
            pm_pool_free(p);
            return pm_error_new(PM_EIO, "cannot start thread %zu of %zu", i + 1, threads);
        }
        p->nthreads++;
    }
    *out = p;
    return NULL;
}

size_t pm_pool_threads(const pm_pool *p) { return p ? p->nthreads : 0; }

void pm_pool_free(pm_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stopping = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (size_t i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    /* Workers drain the queue before exiting; nothing is left here. */
    free(p->threads);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

pm_error *pm_group_new(pm_task_group **out)
{
    pm_task_group *g;
    PM_TRY(pm_calloc(&g, 1, sizeof *g));
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->done, NULL);
    *out = g;
    return NULL;
}

void pm_group_free(pm_task_group *g)
{
    if (!g)
        return;
    pm_group_wait(g);
    pthread_cond_destroy(&g->done);
    pthread_mutex_destroy(&g->mu);
    free(g);
}

pm_error *pm_pool_submit(pm_pool *p, pm_task_group *g, pm_job_fn fn, void *arg)
{
    if (!p || p->nthreads == 0) {
        fn(arg);
        return NULL;
    }
    job *j = malloc(sizeof *j);
    if (!j)
        return pm_oom();
    j->next = NULL;
    j->fn = fn;
    j->arg = arg;
    j->group = g;
    if (g) {
        pthread_mutex_lock(&g->mu);
        g->pending++;
        pthread_mutex_unlock(&g->mu);
    }
    pthread_mutex_lock(&p->mu);
    if (p->tail)
        p->tail->next = j;
    else
        p->head = j;
    p->tail = j;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

void pm_group_wait(pm_task_group *g)
{
    if (!g)
        return;
    pthread_mutex_lock(&g->mu);
    while (g->pending)
        pthread_cond_wait(&g->done, &g->mu);
    pthread_mutex_unlock(&g->mu);
}

size_t pm_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (size_t)n : 1;
}
