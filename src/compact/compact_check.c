/*
 * compact/compact_check.c — the checks of untrusted plans, tasks and
 * results (compact_internal.h): every file they name is a plain file name
 * and every external path lies under the table's external roots, both
 * through the one checker of meta/safe_path.h.
 *
 * Checked fields (doc = "task", "result", "plan.tasks[2]", ...):
 *   data files    task files[i], result before[i] / after[i] / changelog[i]:
 *                 file_name, extra_files[k], external_path
 *   DV refs       deletion_vectors[i].data_file / .index_file
 *   index files   task index_files[i], result index_added[i] /
 *                 index_removed[i]: file_name, external_path,
 *                 dv_ranges[k].data_file
 * External paths need the table's roots: a value just read from JSON
 * (roots_known false) has its file names checked only; its external paths
 * are checked when it meets its table (execute, commit, abort).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compact/compact_internal.h"
#include "meta/options.h"
#include "meta/safe_path.h"
#include "table/table_internal.h"

#define FIELD_MAX 512

typedef struct checker {
    const char *doc;
    bool roots_known;
    const char *roots;
} checker;

static pm_error *name_ok(const checker *c, const char *field, size_t i, const char *member, const char *name)
{
    char f[FIELD_MAX];
    snprintf(f, sizeof f, "%s.%s[%zu].%s", c->doc, field, i, member);
    return pm_safe_file_name(PM_EINVALID, f, name);
}

static pm_error *external_ok(const checker *c, const char *field, size_t i, const char *path)
{
    if (!path || !c->roots_known)
        return NULL;
    char f[FIELD_MAX];
    snprintf(f, sizeof f, "%s.%s[%zu].external_path", c->doc, field, i);
    return pm_safe_external_path(PM_EINVALID, f, path, c->roots);
}

static pm_error *files_ok(const checker *c, const char *field, const pm_data_file_meta *files, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const pm_data_file_meta *f = &files[i];
        PM_TRY(name_ok(c, field, i, "file_name", f->file_name));
        for (size_t k = 0; k < f->extra_files.count; k++) {
            char member[48];
            snprintf(member, sizeof member, "extra_files[%zu]", k);
            PM_TRY(name_ok(c, field, i, member, f->extra_files.items[k]));
        }
        PM_TRY(external_ok(c, field, i, f->external_path));
    }
    return NULL;
}

static pm_error *dvs_ok(const checker *c, const pm_compact_dv_ref *d, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        PM_TRY(name_ok(c, "deletion_vectors", i, "data_file", d[i].data_file));
        PM_TRY(name_ok(c, "deletion_vectors", i, "index_file", d[i].index_file));
    }
    return NULL;
}

static pm_error *index_ok(const checker *c, const char *field, const pm_index_manifest_entry *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const pm_index_file_meta *f = &e[i].index_file;
        PM_TRY(name_ok(c, field, i, "file_name", f->file_name));
        PM_TRY(external_ok(c, field, i, f->external_path));
        for (size_t k = 0; k < f->dv_range_len; k++) {
            char member[48];
            snprintf(member, sizeof member, "dv_ranges[%zu].data_file", k);
            PM_TRY(name_ok(c, field, i, member, f->dv_ranges[k].data_file_name));
        }
    }
    return NULL;
}

pm_error *pm_compact_check_data_files(const char *doc, const char *field, const pm_data_file_meta *files, size_t n,
                                      bool roots_known, const char *roots)
{
    checker c = {doc, roots_known, roots};
    return files_ok(&c, field, files, n);
}

pm_error *pm_compact_check_index_files(const char *doc, const char *field, const pm_index_manifest_entry *e,
                                       size_t n, bool roots_known, const char *roots)
{
    checker c = {doc, roots_known, roots};
    return index_ok(&c, field, e, n);
}

pm_error *pm_compact_task_check_files(const pm_compact_task *t, const char *doc, bool roots_known, const char *roots)
{
    checker c = {doc, roots_known, roots};
    PM_TRY(files_ok(&c, "files", t->files, t->nfiles));
    PM_TRY(dvs_ok(&c, t->dvs, t->ndvs));
    return index_ok(&c, "index_files", t->dv_index, t->ndv_index);
}

pm_error *pm_compact_result_check_files(const pm_compact_result *r, const char *doc, bool roots_known,
                                        const char *roots)
{
    checker c = {doc, roots_known, roots};
    PM_TRY(files_ok(&c, "before", r->before, r->nbefore));
    PM_TRY(files_ok(&c, "after", r->after, r->nafter));
    PM_TRY(files_ok(&c, "changelog", r->changelog, r->nchangelog));
    PM_TRY(dvs_ok(&c, r->dvs, r->ndvs));
    PM_TRY(index_ok(&c, "index_added", r->index_added, r->nindex_added));
    return index_ok(&c, "index_removed", r->index_removed, r->nindex_removed);
}

pm_error *pm_compact_check_common(pm_table *t, const pm_options *o, const char *kind)
{
    bool b = false;
    PM_TRY(pm_options_bool(o, PM_OPT_DATA_EVOLUTION_ENABLED, &b));
    if (b)
        return pm_error_new(PM_EUNSUPPORTED, "compaction of %s with data-evolution.enabled=true is not supported",
                            kind);
    PM_TRY(pm_options_bool(o, PM_OPT_ROW_TRACKING_ENABLED, &b));
    if (b)
        return pm_error_new(PM_EUNSUPPORTED, "compaction of %s with row-tracking.enabled=true is not supported",
                            kind);
    const pm_type *rt = pm_table_schema(t)->row_type;
    for (size_t i = 0; i < rt->nfields; i++) {
        pm_type_id id = rt->fields[i].type->id;
        if (id == PM_TYPE_BLOB || id == PM_TYPE_VARIANT)
            return pm_error_new(PM_EUNSUPPORTED, "compaction of %s with %s column '%s' is not supported", kind,
                                pm_type_id_name(id), rt->fields[i].name);
    }
    return pm_compact_check_outputs(t, o);
}

pm_error *pm_compact_check_outputs(pm_table *t, const pm_options *o)
{
    /* outputs must be complete: no data-file indexes, no external data paths */
    for (size_t i = 0; i < pm_options_count(o); i++) {
        const char *k = pm_options_key_at(o, i);
        size_t n = strlen(k);
        if (!strncmp(k, "file-index.", 11) && n > 8 && !strcmp(k + n - 8, ".columns"))
            return pm_error_new(PM_EUNSUPPORTED, "compaction of tables with data-file indexes (%s) is not "
                                "supported: the outputs would lack the index", k);
    }
    return pm_error_wrap(pm_path_factory_check_writable(t->paths), PM_EUNSUPPORTED, "compaction");
}

const char *pm_compact_external_roots(pm_table *t)
{
    return pm_options_get(pm_table_options(t), "data-file.external-paths");
}

bool pm_compact_same_table(const char *a, const char *b)
{
    if (!strcmp(a, b))
        return true;
    char ra[PATH_MAX], rb[PATH_MAX];
    if (realpath(a, ra) && realpath(b, rb))
        return !strcmp(ra, rb);
    return false;
}
