/*
 * meta/snapshot_store.c — snapshot directory: list, hints, load, commit.
 * Rules are in snapshot_store.h.
 */
#include "meta/snapshot_store.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "base/mem.h"
#include "meta/paths.h"
#include "meta/safe_path.h"

#define SNAPSHOT_PREFIX "snapshot-"

struct pm_snapshot_store {
    pm_fileio *fio;
    char *branch_root;
    char *dir;
};

pm_error *pm_snapshot_store_open(pm_snapshot_store **out, pm_fileio *fio, const char *table_root,
                                 const char *branch)
{
    *out = NULL;
    pm_snapshot_store *st;
    PM_TRY(pm_calloc(&st, 1, sizeof *st));
    st->fio = fio;
    pm_error *e = pm_branch_root(table_root, branch, &st->branch_root);
    if (!e) {
        st->dir = pm_path_join(st->branch_root, "snapshot");
        if (!st->dir)
            e = pm_oom();
    }
    if (e) {
        pm_snapshot_store_free(st);
        return e;
    }
    *out = st;
    return NULL;
}

void pm_snapshot_store_free(pm_snapshot_store *st)
{
    if (!st)
        return;
    free(st->branch_root);
    free(st->dir);
    free(st);
}

const char *pm_snapshot_store_dir(const pm_snapshot_store *st) { return st->dir; }

pm_error *pm_snapshot_store_path(const pm_snapshot_store *st, int64_t id, char **out)
{
    return pm_snapshot_file_path(st->branch_root, id, out);
}

pm_error *pm_snapshot_store_exists(pm_snapshot_store *st, int64_t id, bool *exists)
{
    char *p;
    PM_TRY(pm_snapshot_store_path(st, id, &p));
    pm_error *e = pm_fileio_exists(st->fio, p, exists);
    free(p);
    return e;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

pm_error *pm_snapshot_store_list_ids(pm_snapshot_store *st, int64_t **ids, size_t *count)
{
    *ids = NULL;
    *count = 0;
    pm_name_list names;
    PM_TRY(pm_fileio_list(st->fio, st->dir, &names));
    pm_error *e = NULL;
    int64_t *v = NULL;
    size_t n = 0;
    if (names.count)
        e = pm_calloc(&v, names.count, sizeof *v);
    for (size_t i = 0; !e && i < names.count; i++) {
        const char *name = names.names[i];
        if (strncmp(name, SNAPSHOT_PREFIX, strlen(SNAPSHOT_PREFIX)) != 0)
            continue;
        int64_t id;
        pm_error *pe = pm_parse_int64(name + strlen(SNAPSHOT_PREFIX), &id);
        if (pe) {
            pm_error_free(pe);
            continue;
        }
        v[n++] = id;
    }
    pm_fileio_list_free(&names);
    if (e) {
        free(v);
        return pm_error_wrap(e, 0, "list %s", st->dir);
    }
    if (n == 0) {
        free(v);
        return NULL;
    }
    qsort(v, n, sizeof *v, cmp_i64);
    *ids = v;
    *count = n;
    return NULL;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

pm_error *pm_snapshot_store_read_hint(pm_snapshot_store *st, const char *name, bool *found,
                                      int64_t *id)
{
    *found = false;
    *id = 0;
    char *p = pm_path_join(st->dir, name);
    if (!p)
        return pm_oom();
    /* HintFileUtils.readHint: 3 tries 1 ms apart; any failure = no hint */
    for (int attempt = 0; attempt < 3; attempt++) {
        pm_buf b = PM_BUF_INIT;
        pm_error *e = pm_fileio_read_file(st->fio, p, &b);
        if (e) {
            bool missing = pm_error_root_code(e) == PM_ENOTFOUND;
            pm_error_free(e);
            pm_buf_free(&b);
            if (missing)
                break;
            sleep_ms(1);
            continue;
        }
        const char *text;
        e = pm_buf_cstr(&b, &text);
        if (!e && strlen(text) == b.len) {
            pm_error *pe = pm_parse_int64(text, id);
            *found = pe == NULL;
            pm_error_free(pe);
        }
        pm_error_free(e);
        pm_buf_free(&b);
        break;
    }
    if (!*found)
        *id = 0;
    free(p);
    return NULL;
}

pm_error *pm_snapshot_store_write_hint(pm_snapshot_store *st, const char *name, int64_t id)
{
    char *p = pm_path_join(st->dir, name);
    if (!p)
        return pm_oom();
    char text[24];
    int n = snprintf(text, sizeof text, "%" PRId64, id);
    pm_error *e = pm_fileio_overwrite_atomic(st->fio, p, text, (size_t)n);
    free(p);
    return e;
}

pm_error *pm_snapshot_store_latest_id(pm_snapshot_store *st, bool *found, int64_t *id)
{
    bool has;
    int64_t hint;
    PM_TRY(pm_snapshot_store_read_hint(st, "LATEST", &has, &hint));
    if (has && hint > 0 && hint < INT64_MAX) {
        bool next_exists;
        PM_TRY(pm_snapshot_store_exists(st, hint + 1, &next_exists));
        if (!next_exists) {
            *found = true;
            *id = hint;
            return NULL;
        }
    }
    int64_t *ids;
    size_t n;
    PM_TRY(pm_snapshot_store_list_ids(st, &ids, &n));
    *found = n > 0;
    *id = n ? ids[n - 1] : 0;
    free(ids);
    return NULL;
}

pm_error *pm_snapshot_store_earliest_id(pm_snapshot_store *st, bool *found, int64_t *id)
{
    bool has;
    int64_t hint;
    PM_TRY(pm_snapshot_store_read_hint(st, "EARLIEST", &has, &hint));
    if (has) {
        bool exists;
        PM_TRY(pm_snapshot_store_exists(st, hint, &exists));
        if (exists) {
            *found = true;
            *id = hint;
            return NULL;
        }
    }
    int64_t *ids;
    size_t n;
    PM_TRY(pm_snapshot_store_list_ids(st, &ids, &n));
    *found = n > 0;
    *id = n ? ids[0] : 0;
    free(ids);
    return NULL;
}

/* The files a snapshot names are plain names the readers join to
 * manifest/ or statistics/ (meta/safe_path.h). */
static pm_error *check_file_names(const pm_snapshot *s, const char *path)
{
    const struct {
        const char *field;
        const char *name;
    } f[] = {{"baseManifestList", s->base_manifest_list},
             {"deltaManifestList", s->delta_manifest_list},
             {"changelogManifestList", s->changelog_manifest_list},
             {"indexManifest", s->index_manifest},
             {"statistics", s->statistics}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        if (!f[i].name)
            continue;
        char field[512];
        snprintf(field, sizeof field, "snapshot file %s, field %s", path, f[i].field);
        PM_TRY(pm_safe_file_name(PM_ECORRUPT, field, f[i].name));
    }
    return NULL;
}

pm_error *pm_snapshot_store_load(pm_snapshot_store *st, int64_t id, pm_snapshot **out)
{
    *out = NULL;
    char *p;
    PM_TRY(pm_snapshot_store_path(st, id, &p));
    pm_buf b = PM_BUF_INIT;
    pm_error *e = pm_fileio_read_file(st->fio, p, &b);
    if (e) {
        e = pm_error_wrap(e, 0, "load snapshot %" PRId64, id);
    } else {
        e = pm_snapshot_parse(b.data, b.len, p, out);
        if (!e && (*out)->id != id)
            e = pm_error_new(PM_ECORRUPT, "%s: holds snapshot id %" PRId64, p, (*out)->id);
        if (!e)
            e = check_file_names(*out, p);
        if (e && *out) {
            pm_snapshot_free(*out);
            *out = NULL;
        }
    }
    pm_buf_free(&b);
    free(p);
    return e;
}

pm_error *pm_snapshot_store_load_latest(pm_snapshot_store *st, pm_snapshot **out)
{
    *out = NULL;
    bool found;
    int64_t id;
    PM_TRY(pm_snapshot_store_latest_id(st, &found, &id));
    if (!found)
        return NULL;
    return pm_snapshot_store_load(st, id, out);
}

pm_error *pm_snapshot_store_commit(pm_snapshot_store *st, const pm_snapshot *s, bool *committed)
{
    *committed = false;
    if (s->id < 1)
        return pm_error_new(PM_EINVALID, "snapshot id %" PRId64 " (ids start at 1)", s->id);
    pm_buf json = PM_BUF_INIT;
    char *p = NULL;
    pm_buf existing = PM_BUF_INIT;
    pm_error *e = pm_snapshot_to_json(s, &json);
    if (!e)
        e = pm_snapshot_store_path(st, s->id, &p);
    bool published = false;
    if (!e)
        e = pm_fileio_publish_if_absent(st->fio, p, json.data, json.len, &published);
    if (!e && !published) {
        /* someone wrote snapshot-<id>: ours only if the bytes are identical */
        pm_error *re = pm_fileio_read_file(st->fio, p, &existing);
        if (!re && existing.len == json.len && memcmp(existing.data, json.data, json.len) == 0)
            published = true;
        pm_error_free(re);
    }
    if (!e && published) {
        *committed = true;
        pm_error *he = pm_snapshot_store_write_hint(st, "LATEST", s->id);
        if (he) {
            char *msg = pm_error_format(he);
            pm_log(PM_LOG_WARN, "meta", "snapshot %" PRId64 " committed but LATEST hint not written: %s",
                   s->id, msg ? msg : "?");
            free(msg);
            pm_error_free(he);
        }
    }
    pm_buf_free(&existing);
    pm_buf_free(&json);
    free(p);
    return e ? pm_error_wrap(e, 0, "commit snapshot %" PRId64, s->id) : NULL;
}
