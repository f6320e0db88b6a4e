/*
 * meta/index_path.c — index file locations (see index_path.h).
 */
#include "meta/index_path.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "io/fileio.h"
#include "meta/safe_path.h"

pm_error *pm_index_dir(const pm_path_factory *pf, const char *bucket_dir, char **out)
{
    *out = NULL;
    if (pm_path_factory_index_in_data_dir(pf)) {
        if (!bucket_dir)
            return pm_error_new(PM_EINVALID, "index-file-in-data-file-dir: the bucket directory is required");
        return pm_strdup(out, bucket_dir);
    }
    *out = pm_path_join(pm_path_factory_root(pf), "index");
    return *out ? NULL : pm_oom();
}

pm_error *pm_index_file_path(const pm_path_factory *pf, const char *bucket_dir,
                             const pm_index_file_meta *file, char **out)
{
    *out = NULL;
    PM_TRY(pm_safe_file_name(PM_ECORRUPT, "index file _FILE_NAME", file->file_name));
    if (file->external_path) {
        const char *local = pm_safe_path_local(file->external_path);
        if (!local)
            return pm_error_new(PM_EUNSUPPORTED, "index file external path '%s': only local files are supported",
                                file->external_path);
        return pm_strdup(out, local);
    }
    char *dir;
    PM_TRY(pm_index_dir(pf, bucket_dir, &dir));
    *out = pm_path_join(dir, file->file_name);
    free(dir);
    return *out ? NULL : pm_oom();
}

void pm_index_meta_clear(pm_index_file_meta *f)
{
    pm_index_manifest_entry e;
    memset(&e, 0, sizeof e);
    e.index_file = *f;
    pm_index_manifest_entry_clear(&e);
    memset(f, 0, sizeof *f);
}

void pm_index_metas_free(pm_index_file_meta *f, size_t n)
{
    for (size_t i = 0; f && i < n; i++)
        pm_index_meta_clear(&f[i]);
    free(f);
}
