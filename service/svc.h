/*
 * service/svc.h — the compaction service's parts and what they share (the
 * front end behind `paimon serve`; it uses only the public paimon headers).
 *
 *   config.c      service options (defaults, config file, --option, table
 *                 options that win), include/exclude lists
 *   trigger.c     the trigger decision of one bucket (pure)
 *   latch.c       per-bucket and per-table latches
 *   jobs.c        the job registry, its JSON, its history file
 *                 (WAREHOUSE/.paimon-service/jobs.jsonl)
 *   tables.c      owned tables: discovery, pending files per bucket, the
 *                 status the API and the page show
 *   scheduler.c   the periodic walk, the snapshot watcher (backpressure),
 *                 the queue, the workers (passes, maintenance), checkpoint,
 *                 drain
 *   ray_exec.c    a pass's tasks executed on a Ray cluster (executor=ray)
 *   metrics.c     Prometheus counters, gauges, the pass duration histogram
 *   http.c        the HTTP API (libmicrohttpd), status page (status_page.c)
 *   service.c     process life: start, signals, drain, exit (service.h)
 * Locking: one service mutex (svc->mu) guards the tables, the jobs, the
 * queue, the latches and the metrics; it is never held while a table is
 * read or compacted.  Condition `changed` is signalled on every job state
 * change (waiters: workers, checkpoint, drain).
 */
#ifndef SVC_H
#define SVC_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "paimon/catalog.h"
#include "paimon/compact.h"
#include "paimon/error.h"

/* ---- options (config.c) ---- */

typedef struct svc_thresholds {
    int64_t interval_ms;          /* compaction-service.interval (5 s; 0 = no periodic walk) */
    int64_t trigger_count;        /* compaction-service.trigger.count (4 files) */
    int64_t trigger_bytes;        /* compaction-service.trigger.bytes (1 GiB) */
    int64_t trigger_age_ms;       /* compaction-service.trigger.age (7 d) */
    int64_t prefix_max;           /* compaction-service.prefix-max (32 files) */
    int64_t pass_target_bytes;    /* compaction-service.pass-target-bytes (2 GiB) */
    int64_t orphan_older_than_ms; /* compaction-service.orphan-older-than (1 d) */
    int64_t expire_interval_ms;   /* compaction-service.expire-interval (1 min; 0 = never) */
    int64_t orphan_interval_ms;   /* compaction-service.orphan-interval (1 h; 0 = never) */
    bool backpressure;            /* compaction-service.backpressure (true): re-check on new snapshots */
} svc_thresholds;

typedef struct svc_config {
    svc_thresholds th;            /* service-wide values (tables may override) */
    int64_t concurrency;          /* compaction-service.concurrency (2 passes at once) */
    int64_t history;              /* compaction-service.history (1000 jobs kept) */
    int64_t watch_ms;             /* compaction-service.watch-interval (200 ms) */
    char **include, **exclude;    /* "db.table" globs (fnmatch); NULL = every table */
    size_t ninclude, nexclude;
    bool ray;                     /* compaction-service.executor=ray (default local) */
    char *ray_address;            /* compaction-service.ray.address (NULL = "auto") */
    char *ray_python;             /* compaction-service.ray.python (NULL = "python3") */
} svc_config;

void svc_config_defaults(svc_config *c);
void svc_config_clear(svc_config *c);
/* One "key=value" (service option, include=, exclude=); PM_EINVALID naming it. */
pm_error *svc_config_set(svc_config *c, const char *kv);
/* Lines "key=value", '#' comments, blank lines. */
pm_error *svc_config_load_file(svc_config *c, const char *path);
/* The thresholds of a table: the service's, overridden by its options. */
pm_error *svc_table_thresholds(const svc_config *c, pm_table *t, svc_thresholds *out);
bool svc_config_owns(const svc_config *c, const char *qualified);
/* "db.table" that is a plain name pair: no '/', '\\', NUL or control
 * characters, no empty part, neither part starting with '.'. */
bool svc_valid_table_name(const char *name);

/* The bucket of a postpone-bucket table's postponed files (bucket=-2,
 * directory bucket-postpone): its pass is a whole-partition run that
 * assigns real buckets (scheduler.c) and holds the table's latch. */
#define SVC_BUCKET_POSTPONE (-2)

/* ---- the Ray executor (ray_exec.c) ---- */

/* Execute every task of plan on a Ray cluster: the helper process
 * `<ray.python> -m paimon_c._service_exec` (the Python package paimon_c
 * with Ray) gets {"address", "table", "tasks": [task documents]} on its
 * standard input, runs each task as a Ray task (the worker opens the
 * table by path) and answers {"results": [...]} or {"error": "..."}.
 * *out (malloc'd, n results in task order) on success; on failure nothing
 * is left behind (the helper aborts the results it got before failing). */
pm_error *svc_ray_execute(const svc_config *c, pm_table *t, const pm_compact_plan *plan, pm_compact_result ***out,
                          size_t *n);

/* ---- triggers (trigger.c) ---- */

typedef enum svc_trigger {
    SVC_TRIGGER_NONE = 0,
    SVC_TRIGGER_COUNT,
    SVC_TRIGGER_BYTES,
    SVC_TRIGGER_AGE,
    SVC_TRIGGER_MANUAL,
    SVC_TRIGGER_BACKPRESSURE,
    SVC_TRIGGER_INTERVAL,         /* maintenance on its interval */
} svc_trigger;

const char *svc_trigger_name(svc_trigger t);
bool svc_trigger_parse(const char *s, svc_trigger *out);

/* What a bucket holds that is not folded yet. */
typedef struct svc_load {
    int64_t pending_files;
    int64_t pending_bytes;
    int64_t oldest_age_ms;        /* -1 = unknown */
    int64_t min_files;            /* a pass needs this many pending files (append 2, primary keys 1) */
} svc_load;

/* The first trigger the load crosses, in the order count, bytes, age
 * (SVC_TRIGGER_NONE when none, or fewer than min_files are pending). */
svc_trigger svc_trigger_check(const svc_thresholds *th, const svc_load *l);

/* The prefix a pass takes (how the library bounds it): at most
 * prefix_max files and pass_target_bytes bytes of the pending sizes
 * (oldest first; the first always).  Returns the file count. */
int64_t svc_prefix_count(const svc_thresholds *th, const int64_t *sizes, size_t n);

/* ---- latches (latch.c) ---- */

typedef struct svc_latches {
    char **keys;                  /* "db.t|partition|bucket", or "db.t|*" for a table */
    size_t n, cap;
} svc_latches;

void svc_latches_clear(svc_latches *l);
/* The key of a bucket (bucket < 0: the whole table), malloc'd. */
char *svc_latch_key(const char *table, const char *partition, int32_t bucket);
/* A bucket latch is free when neither it nor its table's latch is held; a
 * table latch when no latch of the table is held. */
bool svc_latch_held(const svc_latches *l, const char *table, const char *partition, int32_t bucket);
/* Take it (false = held already, nothing changes). */
bool svc_latch_try(svc_latches *l, const char *table, const char *partition, int32_t bucket);
void svc_latch_release(svc_latches *l, const char *table, const char *partition, int32_t bucket);

/* ---- jobs (jobs.c) ---- */

/* SVC_JOB_INDEX: global index maintenance (paimon/index.h) after passes */
typedef enum { SVC_JOB_COMPACTION, SVC_JOB_EXPIRE, SVC_JOB_ORPHANS, SVC_JOB_INDEX } svc_job_type;
typedef enum { SVC_QUEUED, SVC_RUNNING, SVC_SUCCEEDED, SVC_FAILED, SVC_CANCELLED } svc_job_state;

typedef struct svc_job {
    int64_t id;
    svc_job_type type;
    char *table;                  /* "db.table" */
    char *partition;              /* display "k=v/..." ("" unpartitioned); NULL for maintenance */
    char *partition_filter;       /* for the builder; NULL = unpartitioned */
    int32_t bucket;               /* -1 = none (maintenance); SVC_BUCKET_POSTPONE */
    svc_trigger trigger;
    svc_job_state state;
    int64_t created_at, started_at, finished_at;  /* epoch ms; 0 = not yet */
    int64_t input_files, input_bytes, output_files, output_bytes;
    int64_t snapshot;             /* published snapshot id; 0 = none */
    char *error;                  /* message with cause chain */
    char *detail;                 /* what maintenance did */
} svc_job;

const char *svc_job_type_name(svc_job_type t);
const char *svc_job_state_name(svc_job_state s);
bool svc_job_state_parse(const char *s, svc_job_state *out);
bool svc_job_done(const svc_job *j);

typedef struct svc_jobs {
    svc_job **jobs;               /* oldest first */
    size_t n, cap;
    int64_t next_id;
    char *path;                   /* jobs.jsonl; NULL = in memory only */
    int64_t history;              /* finished jobs kept */
    size_t lines;                 /* lines in the file */
} svc_jobs;

/* Open (creating the directory) and replay the history: the last record
 * of each id wins; queued or running ones become failed, "service
 * restarted" (and are appended so). */
pm_error *svc_jobs_open(svc_jobs *js, const char *dir, int64_t history);
void svc_jobs_close(svc_jobs *js);
/* A new queued job (owned by js), persisted. */
pm_error *svc_jobs_add(svc_jobs *js, svc_job_type type, const char *table, const char *partition,
                       const char *partition_filter, int32_t bucket, svc_trigger trigger, int64_t now,
                       svc_job **out);
/* Persist j's current record (after a state change); trims the history. */
pm_error *svc_jobs_save(svc_jobs *js, svc_job *j);
svc_job *svc_jobs_find(const svc_jobs *js, int64_t id);
/* A JSON object of the job (jansson json_t *, new reference). */
struct json_t;
struct json_t *svc_job_to_json(const svc_job *j);

/* ---- tables (tables.c) ---- */

typedef struct svc_bucket {
    char *partition;
    char *partition_filter;
    int32_t bucket;
    int64_t files, bytes, pending_files, pending_bytes, oldest_age_ms;
    int32_t max_level;
    int64_t *pending_sizes;       /* oldest first */
    int64_t no_progress_snapshot; /* a pass at this snapshot folded nothing (0 = none) */
} svc_bucket;

typedef struct svc_table {
    char *name;                   /* "db.table" */
    char *path;
    char *mode;                   /* NULL when unknown */
    char *error;                  /* why it cannot be compacted (NULL = fine) */
    bool primary_key;
    int64_t snapshot;
    svc_thresholds th;
    svc_bucket *buckets;
    size_t nbuckets;
    char latest_hint[40];         /* svc_latest_token as last seen */
    int64_t last_refresh;         /* when the pending files were read */
    int64_t last_walk;            /* the last periodic walk */
    int64_t last_expire, last_orphans;
    int64_t expired_at_snapshot;  /* the snapshot at the last expiration job */
    int64_t last_job;             /* id of the last compaction job (0 = none) */
    bool index_auto;              /* declares global indexes and write-only is not true */
    bool index_due;               /* a pass succeeded since the last index job was queued */
    bool seen;                    /* still in the warehouse at the last discovery */
} svc_table;

void svc_table_free(svc_table *t);

/* ---- metrics (metrics.c) ---- */

#define SVC_HIST_BUCKETS 10
typedef struct svc_metric_row {
    char *table;
    svc_trigger trigger;
    int64_t started, succeeded, failed;
} svc_metric_row;

typedef struct svc_metrics {
    svc_metric_row *rows;
    size_t nrows;
    char **fold_tables;           /* files and bytes folded per table */
    int64_t *fold_files, *fold_bytes;
    size_t nfold;
    int64_t hist[SVC_HIST_BUCKETS + 1]; /* +Inf last */
    double hist_sum;
    int64_t hist_count;
    int64_t latch_collisions;
    int64_t maintenance_runs, maintenance_failures;
} svc_metrics;

void svc_metrics_clear(svc_metrics *m);
void svc_metrics_pass(svc_metrics *m, const svc_job *j);          /* a pass started */
void svc_metrics_pass_done(svc_metrics *m, const svc_job *j);     /* succeeded or failed */

/* ---- text (text.c): a growing string; `bad` after an allocation failure ---- */

typedef struct svc_text {
    char *s;
    size_t n, cap;
    bool bad;
} svc_text;

void svc_text_printf(svc_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* v with & < > " ' as HTML entities. */
void svc_text_html(svc_text *t, const char *v);
/* The string (malloc'd; NULL after a failure), t emptied. */
char *svc_text_take(svc_text *t);

/* ---- the service ---- */

typedef struct svc {
    pthread_mutex_t mu;
    pthread_cond_t changed;       /* job state, queue, stop */
    svc_config cfg;
    char *warehouse;
    pm_catalog *catalog;
    pm_resources *resources;
    svc_jobs jobs;
    svc_latches latches;
    svc_metrics metrics;
    svc_table **tables;
    size_t ntables;
    svc_job **queue;              /* queued jobs in order (borrowed from jobs) */
    size_t nqueue, capqueue;
    size_t running;
    bool draining;                /* no new scheduling */
    bool stopping;                /* threads exit */
    pthread_t tick_thread, watch_thread;
    pthread_t *workers;
    size_t nworkers;
    int64_t started_at;
    char *auth_token;             /* NULL = no auth */
} svc;

int64_t svc_now_ms(void);
/* The message of e with its causes (malloc'd); frees e. */
char *svc_error_text(pm_error *e);

/* tables.c: refresh one table's status (pending files) or discover the
 * warehouse; called without svc->mu held. */
pm_error *svc_discover(svc *s);
pm_error *svc_refresh_table(svc *s, const char *name, svc_trigger reason);
/* What the watcher compares: the first line of <path>/snapshot/LATEST,
 * with "+" when the snapshot after it exists ("" without a hint). */
void svc_latest_token(const char *path, char *out, size_t cap);
/* svc->mu held: the table named (NULL = none). */
svc_table *svc_find_table(svc *s, const char *name);

/* scheduler.c */
pm_error *svc_scheduler_start(svc *s);
void svc_scheduler_stop(svc *s);
/* svc->mu held: enqueue a pass of bucket b of table t (takes the latch;
 * false = latched). */
bool svc_enqueue_pass(svc *s, svc_table *t, const svc_bucket *b, svc_trigger trig, svc_job **out);
/* svc->mu held: evaluate the triggers of t's buckets (periodic or backpressure). */
void svc_schedule_table(svc *s, svc_table *t, svc_trigger reason);
/* Wait (svc->mu held) until the jobs are done or deadline_ms (0 = none)
 * passes; true = all done. */
bool svc_wait_jobs(svc *s, const int64_t *ids, size_t n, int64_t deadline_ms);
/* Drain: stop scheduling, wait for queued and running jobs (svc->mu held). */
void svc_drain(svc *s);
/* A checkpoint of one table: passes until nothing foldable is left.
 * *ids (malloc'd) gets the jobs run; returns false on timeout. */
bool svc_checkpoint(svc *s, const char *table, int64_t timeout_ms, int64_t **ids, size_t *nids, pm_error **err);

/* http.c */
struct MHD_Daemon;
pm_error *svc_http_start(svc *s, const char *host, int port, struct MHD_Daemon **out, int *bound_port);
void svc_http_stop(struct MHD_Daemon *d);
/* status_page.c: the HTML page (malloc'd), svc->mu held. */
char *svc_status_page(svc *s);
/* metrics.c: the Prometheus text (malloc'd), svc->mu held. */
char *svc_metrics_text(svc *s);

#endif
