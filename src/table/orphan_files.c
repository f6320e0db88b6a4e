/*
 * table/orphan_files.c — orphan-file removal (paimon/maintenance.h has
 * the rules).
 *
 * Steps:
 *   1. references: every snapshot of the branch (live files of the
 *      earliest plus the ADDs of every later delta), every tag, every
 *      other branch (table/file_refs.h), and the caller's keep names;
 *      snapshots committed while this runs reference only files younger
 *      than the age bound, which are never candidates;
 *   2. candidates: the files of manifest/, index/ and statistics/, and of
 *      the bucket directories ("bucket-N") of the data directories
 *      (nested partition directories "k=v" from the table root; external
 *      data paths are not walked), and the global index files directly
 *      under global-index.external-path (a root belongs to one table);
 *   3. delete each candidate that nothing references and that was last
 *      modified before now - older_than.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "base/mem.h"
#include "paimon/maintenance.h"
#include "table/file_refs.h"
#include "table/table_internal.h"

#define DAY_MS (24LL * 3600 * 1000)

void pm_orphan_options_init(pm_orphan_options *o)
{
    pm_orphan_options d = PM_ORPHAN_OPTIONS_INIT;
    *o = d;
}

void pm_orphan_result_clear(pm_orphan_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->npaths; i++)
        free(r->paths[i]);
    free(r->paths);
    r->paths = NULL;
    r->npaths = 0;
}

typedef struct orphan_run {
    pm_table *t;
    pm_file_refs refs;
    const pm_orphan_options *o;
    int64_t cutoff;                  /* delete files modified before */
    pm_orphan_result res;
} orphan_run;

static bool referenced(const orphan_run *r, const char *path)
{
    const pm_file_refs *f = &r->refs;
    if (pm_path_set_has(&f->data, path) || pm_path_set_has(&f->manifests, path) ||
        pm_path_set_has(&f->changelog, path) || pm_path_set_has(&f->index, path) || pm_path_set_has(&f->stats, path))
        return true;
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    for (size_t i = 0; r->o && i < r->o->nkeep; i++)
        if (r->o->keep[i] && !strcmp(r->o->keep[i], name))
            return true;
    return false;
}

static pm_error *consider(orphan_run *r, char *path)
{
    bool dir = false;
    pm_error *e = pm_fileio_is_dir(r->t->fio, path, &dir);
    if (e || dir || referenced(r, path)) {
        free(path);
        return e;
    }
    int64_t mtime = 0;
    uint64_t size = 0;
    e = pm_fileio_modified_ms(r->t->fio, path, &mtime);
    if (!e)
        e = pm_fileio_file_size(r->t->fio, path, &size);
    if (e) { /* gone meanwhile */
        pm_error_free(e);
        free(path);
        return NULL;
    }
    if (mtime >= r->cutoff) {
        free(path);
        return NULL;
    }
    if (!(r->o && r->o->dry_run)) {
        e = pm_fileio_delete(r->t->fio, path);
        if (e) {
            free(path);
            return e;
        }
    }
    r->res.files_deleted++;
    r->res.bytes_deleted += (int64_t)size;
    e = pm_realloc_array(&r->res.paths, r->res.npaths + 1, sizeof *r->res.paths);
    if (e) {
        free(path);
        return e;
    }
    r->res.paths[r->res.npaths++] = path;
    return NULL;
}

/* Every plain file of dir. */
static pm_error *walk_files(orphan_run *r, const char *dir)
{
    pm_name_list names = {0};
    PM_TRY(pm_fileio_list(r->t->fio, dir, &names));
    pm_error *e = NULL;
    for (size_t i = 0; !e && i < names.count; i++) {
        char *p = pm_path_join(dir, names.names[i]);
        e = p ? consider(r, p) : pm_error_new(PM_ENOMEM, "out of memory");
    }
    pm_fileio_list_free(&names);
    return e;
}

/* The global index files (`<type>-global-index-<id>.index`) directly
 * under the table's global-index.external-path: other files of that
 * directory are never candidates. */
static pm_error *walk_gi_root(orphan_run *r)
{
    const char *root;
    char *dir = NULL;
    PM_TRY(pm_table_gi_external_root(pm_table_options(r->t), &root, &dir));
    if (!dir)
        return NULL;
    pm_name_list names = {0};
    pm_error *e = pm_fileio_list(r->t->fio, dir, &names);
    for (size_t i = 0; !e && i < names.count; i++) {
        const char *n = names.names[i], *mark = strstr(n, "-global-index-");
        size_t len = strlen(n);
        if (!mark || mark == n || len < 6 || strcmp(n + len - 6, ".index"))
            continue;
        char *p = pm_path_join(dir, n);
        e = p ? consider(r, p) : pm_error_new(PM_ENOMEM, "out of memory");
    }
    pm_fileio_list_free(&names);
    free(dir);
    return e;
}

static bool bucket_dir_name(const char *n)
{
    if (strncmp(n, "bucket-", 7) || !n[7])
        return false;
    const char *d = n + 7;
    if (*d == '-')
        d++;
    for (; *d; d++)
        if (*d < '0' || *d > '9')
            return false;
    return true;
}

/* Data directories: "k=v" partition directories down to bucket-N. */
static pm_error *walk_data(orphan_run *r, const char *dir, int depth)
{
    if (depth > 64)
        return NULL;
    pm_name_list names = {0};
    PM_TRY(pm_fileio_list(r->t->fio, dir, &names));
    pm_error *e = NULL;
    for (size_t i = 0; !e && i < names.count; i++) {
        const char *n = names.names[i];
        bool bucket = bucket_dir_name(n), part = n[0] != '.' && strchr(n, '=') != NULL;
        if (!bucket && !part)
            continue;
        char *p = pm_path_join(dir, n);
        if (!p) {
            e = pm_error_new(PM_ENOMEM, "out of memory");
            break;
        }
        bool is_dir = false;
        e = pm_fileio_is_dir(r->t->fio, p, &is_dir);
        if (!e && is_dir)
            e = bucket ? walk_files(r, p) : walk_data(r, p, depth + 1);
        free(p);
    }
    pm_fileio_list_free(&names);
    return e;
}

static int64_t now_millis(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

pm_error *pm_table_remove_orphan_files(pm_orphan_result *out, pm_table *t, const pm_orphan_options *o)
{
    if (o && o->version != PM_ORPHAN_OPTIONS_VERSION)
        return pm_error_new(PM_EINVALID, "pm_orphan_options.version %d is not %d", o->version,
                            PM_ORPHAN_OPTIONS_VERSION);
    if (out && out->version != PM_ORPHAN_RESULT_VERSION)
        return pm_error_new(PM_EINVALID, "pm_orphan_result.version %d is not %d", out->version,
                            PM_ORPHAN_RESULT_VERSION);
    if (o && o->has_older_than && o->older_than_ms < 0)
        return pm_error_new(PM_EINVALID, "older than %lld ms is negative", (long long)o->older_than_ms);
    orphan_run r;
    memset(&r, 0, sizeof r);
    r.t = t;
    r.o = o;
    r.res.version = PM_ORPHAN_RESULT_VERSION;
    int64_t now = o && o->now_ms ? o->now_ms : now_millis();
    r.cutoff = now - (o && o->has_older_than ? o->older_than_ms : DAY_MS);
    int64_t *ids = NULL;
    size_t nids = 0;
    pm_error *e = pm_snapshot_store_list_ids(t->snapshots, &ids, &nids);
    if (!e && nids)
        e = pm_file_refs_add_range(&r.refs, t, ids[0], ids[nids - 1]);
    free(ids);
    if (!e)
        e = pm_file_refs_add_tags(&r.refs, t);
    if (!e)
        e = pm_file_refs_add_other_branches(&r.refs, t);
    if (!e) {
        pm_file_refs_seal(&r.refs);
        static const char *const META_DIRS[] = {"manifest", "index", "statistics"};
        for (size_t i = 0; !e && i < 3; i++) {
            char *d = pm_path_join(t->path, META_DIRS[i]);
            e = d ? walk_files(&r, d) : pm_error_new(PM_ENOMEM, "out of memory");
            free(d);
        }
    }
    if (!e)
        e = walk_data(&r, t->path, 0);
    if (!e)
        e = walk_gi_root(&r);
    pm_file_refs_clear(&r.refs);
    if (out) {
        *out = r.res;
    } else {
        pm_orphan_result_clear(&r.res);
    }
    return e ? pm_error_wrap(e, 0, "remove orphan files of %s", t->path) : NULL;
}
