/*
 * service/service.c — the process: arguments, start (catalog, job history,
 * scheduler, HTTP), "listening on ...", signals, drain, exit.
 *
 * Shutdown on SIGTERM / SIGINT (blocked in every thread, taken with
 * sigwait by the main thread): scheduling stops, queued and running jobs
 * finish (never skipped), the HTTP server stops, the threads join, exit 0.
 * A non-loopback listen address needs --auth-token-file (a file whose
 * first line is the token; then every request needs "Authorization:
 * Bearer <token>").
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "paimon/catalog.h"
#include "paimon/compact.h"
#include "service.h"
#include "svc.h"

int64_t svc_now_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

char *svc_error_text(pm_error *e)
{
    if (!e)
        return NULL;
    char *s = pm_error_format(e);
    pm_error_free(e);
    return s ? s : strdup("error (no message)");
}

/* "HOST:PORT" / "[HOST]:PORT" into host (cap bytes) and port. */
static int parse_listen(const char *l, char *host, size_t cap, int *port)
{
    const char *colon;
    if (l[0] == '[') {
        const char *rb = strchr(l, ']');
        if (!rb || rb[1] != ':' || (size_t)(rb - l - 1) >= cap)
            return -1;
        memcpy(host, l + 1, (size_t)(rb - l - 1));
        host[rb - l - 1] = 0;
        colon = rb + 1;
    } else {
        colon = strrchr(l, ':');
        if (!colon || (size_t)(colon - l) >= cap || colon == l)
            return -1;
        memcpy(host, l, (size_t)(colon - l));
        host[colon - l] = 0;
    }
    char *end = NULL;
    long p = strtol(colon + 1, &end, 10);
    if (!colon[1] || *end || p < 0 || p > 65535)
        return -1;
    *port = (int)p;
    return 0;
}

static bool loopback(const char *host)
{
    return !strncmp(host, "127.", 4) || !strcmp(host, "::1") || !strcmp(host, "localhost");
}

static char *read_token(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char buf[1024];
    char *tok = NULL;
    if (fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\r\n")] = 0;
        if (*buf)
            tok = strdup(buf);
    }
    fclose(f);
    return tok;
}

static void fail(const char *what, pm_error *e)
{
    char *m = svc_error_text(e);
    fprintf(stderr, "paimon serve: %s: %s\n", what, m ? m : "?");
    free(m);
}

int svc_main(const svc_args *a)
{
    svc s;
    memset(&s, 0, sizeof s);
    svc_config_defaults(&s.cfg);
    pm_error *e = NULL;
    if (a->config_file && (e = svc_config_load_file(&s.cfg, a->config_file))) {
        fail("config", e);
        svc_config_clear(&s.cfg);
        return 2;
    }
    for (size_t i = 0; i < a->noptions; i++)
        if ((e = svc_config_set(&s.cfg, a->options[i]))) {
            fail("--option", e);
            svc_config_clear(&s.cfg);
            return 2;
        }
    char host[256];
    int port = 0;
    const char *listen = a->listen ? a->listen : "127.0.0.1:8765";
    if (parse_listen(listen, host, sizeof host, &port) != 0) {
        fprintf(stderr, "paimon serve: --listen '%s' is not HOST:PORT\n", listen);
        svc_config_clear(&s.cfg);
        return 2;
    }
    if (!strcmp(host, "localhost"))
        snprintf(host, sizeof host, "127.0.0.1");
    if (a->auth_token_file) {
        s.auth_token = read_token(a->auth_token_file);
        if (!s.auth_token) {
            fprintf(stderr, "paimon serve: --auth-token-file %s: no token (cannot read it, or its first line is "
                            "empty)\n", a->auth_token_file);
            svc_config_clear(&s.cfg);
            return 2;
        }
    } else if (!loopback(host)) {
        fprintf(stderr, "paimon serve: listening on the non-loopback address %s needs --auth-token-file\n", host);
        svc_config_clear(&s.cfg);
        return 2;
    }

    /* every thread started from here on inherits the blocked signals */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.changed, NULL);
    s.started_at = svc_now_ms();
    int rc = 1;
    bool sched = false;
    struct MHD_Daemon *d = NULL;
    char *dir = NULL;
    if ((e = pm_catalog_open(&s.catalog, a->warehouse))) {
        fail("warehouse", e);
        goto out;
    }
    s.warehouse = strdup(pm_catalog_warehouse(s.catalog));
    size_t dl = strlen(s.warehouse) + 32;
    dir = malloc(dl);
    if (!s.warehouse || !dir)
        goto out;
    snprintf(dir, dl, "%s/.paimon-service", s.warehouse);
    if ((e = svc_jobs_open(&s.jobs, dir, s.cfg.history))) {
        fail("job history", e);
        goto out;
    }
    if ((e = pm_resources_new(&s.resources, 256LL << 20, 0))) {
        fail("resources", e);
        goto out;
    }
    if ((e = svc_discover(&s))) {
        fail("discover tables", e);
        goto out;
    }
    if ((e = svc_scheduler_start(&s))) {
        fail("scheduler", e);
        goto out;
    }
    sched = true;
    int bound = 0;
    if ((e = svc_http_start(&s, host, port, &d, &bound))) {
        fail("http", e);
        goto out;
    }
    printf(strchr(host, ':') ? "listening on http://[%s]:%d\n" : "listening on http://%s:%d\n", host, bound);
    fflush(stdout);
    int sig = 0;
    while (sigwait(&sigs, &sig) != 0)
        ;
    fprintf(stderr, "paimon serve: signal %d: draining\n", sig);
    pthread_mutex_lock(&s.mu);
    svc_drain(&s);
    pthread_mutex_unlock(&s.mu);
    rc = 0;
out:
    svc_http_stop(d);
    if (sched)
        svc_scheduler_stop(&s);
    else
        s.stopping = true;
    for (size_t i = 0; i < s.ntables; i++)
        svc_table_free(s.tables[i]);
    free(s.tables);
    free(s.queue);
    svc_jobs_close(&s.jobs);
    svc_latches_clear(&s.latches);
    svc_metrics_clear(&s.metrics);
    pm_resources_free(s.resources);
    pm_catalog_free(s.catalog);
    svc_config_clear(&s.cfg);
    free(s.warehouse);
    free(s.auth_token);
    free(dir);
    pthread_cond_destroy(&s.changed);
    pthread_mutex_destroy(&s.mu);
    if (rc == 0)
        fprintf(stderr, "paimon serve: stopped\n");
    return rc;
}
