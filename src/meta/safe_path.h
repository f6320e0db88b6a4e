/*
 * meta/safe_path.h — paths taken from untrusted metadata stay inside the
 * table.
 *
 * Snapshots, manifests, index manifests and compaction plans, tasks and
 * results can be written by anyone with access to the warehouse, or come
 * over the network.  Every file they name is either
 *   - a plain file name that the reader joins to a directory it computed
 *     itself (bucket directory, manifest/, index/): checked with
 *     pm_safe_file_name, or
 *   - an absolute external path (`_EXTERNAL_PATH`), which must lie under one
 *     of the table's configured external roots (`data-file.external-paths`,
 *     comma-separated): checked with pm_safe_external_path.
 *
 * Rules, all lexical (the file system is never consulted):
 *   plain name    non-empty, at most 255 bytes, not "." or "..", no '/',
 *                 no '\\', no byte below 0x20 and no 0x7F.
 *   external path an optional `file:` / `file://` scheme (any case), then
 *                 an absolute path; no "." or ".." segment, no control
 *                 bytes; it must be a root or lie below one (segment
 *                 boundary: root /a/b admits /a/b/c, not /a/bc).  Roots are
 *                 read the same way (scheme stripped, repeated '/' and a
 *                 trailing '/' ignored); a root that is not absolute or has
 *                 ".." segments admits nothing.  Other schemes (s3://, ...)
 *                 are PM_EUNSUPPORTED.
 * Errors carry the caller's code (PM_ECORRUPT for table metadata,
 * PM_EINVALID for plans, tasks and results) and name the field.
 */
#ifndef PM_META_SAFE_PATH_H
#define PM_META_SAFE_PATH_H

#include <stdbool.h>

#include "paimon/error.h"

/* `name` from field `field` (e.g. "result.after[2].file_name") is a plain
 * file name.  NULL name is an error too. */
pm_error *pm_safe_file_name(pm_code code, const char *field, const char *name);
/* The same rule as a test (no message to build: for the many names of a
 * manifest, whose field is formatted only when one fails). */
bool pm_safe_file_name_ok(const char *name);

/* `path` from field `field` lies under one of `roots` (the value of
 * data-file.external-paths: comma-separated, may be NULL or empty = no
 * roots, so every external path is refused). */
pm_error *pm_safe_external_path(pm_code code, const char *field, const char *path, const char *roots);

/* The local path an external path denotes (scheme stripped), pointing into
 * `path`; NULL for a scheme other than file.  No checks: call
 * pm_safe_external_path first. */
const char *pm_safe_path_local(const char *path);

#endif
