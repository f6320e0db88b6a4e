/*
 * service/service.h — `paimon serve` as the CLI starts it: one
 * long-running compaction service over a filesystem warehouse (svc.h has
 * its parts).
 */
#ifndef PAIMON_SERVICE_H
#define PAIMON_SERVICE_H

#include <stddef.h>

typedef struct svc_args {
    const char *warehouse;
    const char *listen;           /* "HOST:PORT" ("[v6]:PORT"); NULL = 127.0.0.1:8765 */
    const char *config_file;      /* NULL = none */
    const char *const *options;   /* "key=value" service options, after the file */
    size_t noptions;
    const char *auth_token_file;  /* required for a non-loopback listen address */
} svc_args;

/* Run until SIGTERM or SIGINT, then drain (wait for queued and running
 * jobs, never skip one) and return 0; a bad argument or a failure to
 * start prints the reason on stderr and returns 2 or 1.  Prints
 * "listening on http://HOST:PORT" on stdout once requests are served. */
int svc_main(const svc_args *a);

#endif
