/*
 * compact/compact_json.h — the pieces of compaction JSON shared by the
 * documents (compact_json.c) and the file and index entries
 * (compact_json_meta.c); the layout of every document is described in
 * compact_json.c.  Internal to src/compact/.
 *
 * Writing builds a jansson tree; pm_cjw keeps the first failure
 * (allocation, invalid UTF-8) so callers write straight-line code.
 * Reading goes through meta/json.h (strict keys, errors naming the path).
 */
#ifndef PM_COMPACT_JSON_H
#define PM_COMPACT_JSON_H

#include <jansson.h>
#include <stdbool.h>

#include "compact/compact_internal.h"
#include "meta/json.h"

typedef struct pm_cjw {
    bool failed;                  /* allocation failure or invalid UTF-8 */
    const char *bad_string;
} pm_cjw;

/* v, noting a NULL (failure). */
json_t *pm_cjw_take(pm_cjw *b, json_t *v);
/* obj[key] = v / arr += v (v's reference moves; NULL v or obj fails). */
void pm_cjw_set(pm_cjw *b, json_t *obj, const char *key, json_t *v);
void pm_cjw_push(pm_cjw *b, json_t *arr, json_t *v);
/* String (NULL → null), integer, bytes as standard base64 (absent → null). */
json_t *pm_cjw_str(pm_cjw *b, const char *s);
json_t *pm_cjw_long(pm_cjw *b, int64_t v);
json_t *pm_cjw_bytes(pm_cjw *b, const pm_bytes *v);
/* Arrays of DataFileMeta, DV references, index manifest entries. */
json_t *pm_cjw_files(pm_cjw *b, const pm_data_file_meta *f, size_t n);
json_t *pm_cjw_dvs(pm_cjw *b, const pm_compact_dv_ref *d, size_t n);
json_t *pm_cjw_index(pm_cjw *b, const pm_index_manifest_entry *e, size_t n);

/* Readers of the same (obj[key]); arrays are malloc'd, *n elements. */
pm_error *pm_cjr_bytes(const pm_jnode *o, const char *key, unsigned flags, pm_bytes *out);
pm_error *pm_cjr_files(const pm_jnode *o, const char *key, pm_data_file_meta **out, size_t *n);
pm_error *pm_cjr_dvs(const pm_jnode *o, const char *key, pm_compact_dv_ref **out, size_t *n);
/* Index entries, each of kind `expect`. */
pm_error *pm_cjr_index(const pm_jnode *o, const char *key, pm_file_kind expect, pm_index_manifest_entry **out,
                       size_t *n);

#endif
