/*
 * meta/json.h — JSON: a writer that reproduces Jackson's
 * DefaultPrettyPrinter byte for byte (metadata files), and the one set of
 * strict reading helpers over jansson (metadata files; compaction plans,
 * tasks and results), described under "reading" below.
 *
 * Jackson DefaultPrettyPrinter layout (what Paimon Java writes for snapshot,
 * schema, tag and hint-adjacent JSON):
 *   - objects: "{", then per field "\n" + 2*depth spaces + "\"key\" : " + value,
 *     fields separated by ","; close with "\n" + 2*(depth-1) spaces + "}";
 *     an empty object is "{ }".  depth counts enclosing objects only.
 *   - arrays are inline: "[ " + values joined by ", " + " ]"; empty "[ ]".
 *     An object inside an array still breaks lines by its own depth:
 *     `"fields" : [ {\n    "id" : 0\n  }, {\n ...  } ]`.
 *   - strings: UTF-8 as is; `"` and `\` escaped, control chars as \b \t \n
 *     \f \r or \u00XX (uppercase hex); "/" and DEL are not escaped.
 *   - no newline after the root value.
 *
 * The writer keeps the first error (allocation failure, nesting too deep)
 * and reports it from pm_jw_finish, so callers write straight-line code.
 */
#ifndef PM_META_JSON_H
#define PM_META_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "base/buf.h"
#include "meta/options.h"
#include "paimon/error.h"

#define PM_JW_MAX_DEPTH 64

typedef struct pm_jw {
    pm_buf *out;
    pm_error *err;
    int depth;      /* open containers */
    int objects;    /* open objects (indentation level) */
    struct {
        bool array;
        size_t count;
    } stack[PM_JW_MAX_DEPTH];
} pm_jw;

void pm_jw_init(pm_jw *w, pm_buf *out);
void pm_jw_begin_object(pm_jw *w);
void pm_jw_end_object(pm_jw *w);
void pm_jw_begin_array(pm_jw *w);
void pm_jw_end_array(pm_jw *w);
/* Field name inside an object; the next call writes its value. */
void pm_jw_key(pm_jw *w, const char *key);
/* String value; NULL writes null. */
void pm_jw_string(pm_jw *w, const char *s);
void pm_jw_long(pm_jw *w, int64_t v);
void pm_jw_null(pm_jw *w);
/* key + value shorthands */
void pm_jw_field_string(pm_jw *w, const char *key, const char *s);
void pm_jw_field_long(pm_jw *w, const char *key, int64_t v);
/* The first error, or NULL; the writer must not be used afterwards. */
pm_error *pm_jw_finish(pm_jw *w);

/* Append s as a JSON string literal (with quotes) using Jackson's escaping. */
pm_error *pm_json_append_string(pm_buf *out, const char *s);

/* ---- reading ----
 *
 * One strict reader set for every JSON document the library reads:
 * metadata files (snapshot, schema: PM_ECORRUPT) and compaction plans,
 * tasks and results (PM_EINVALID).  A pm_jnode is a JSON value together
 * with where it is (document name, field path below it, error code), so
 * every error names the place, in one of two styles chosen at the root:
 *   values  "task.files[2].file_size: -1 is out of range [0, 9223372036854775807]"
 *   files   "snapshot/snapshot-9: field 'id': expected an integer"
 *           "schema/schema-3: field 'id' of fields[0]: missing"
 * The field getters take an object node and a key; the pm_json_as_* forms
 * read a node itself (array elements).  A key that is absent is "missing";
 * with PM_JSON_NULLABLE an absent key and a JSON null both read as "no
 * value".  Unknown keys are refused only by pm_json_keys (strict
 * documents).  Strings never contain NUL characters.
 */

#define PM_JSON_PATH_MAX 256

/* getter flags */
#define PM_JSON_NULLABLE 1u       /* absent or null → no value (NULL, has = false) */
#define PM_JSON_NONEMPTY 2u       /* strings: "" is refused */

/* pm_json_parse_doc flags */
#define PM_JSON_FILE 1u           /* doc names a file (message style above) */
#define PM_JSON_NO_DUPLICATES 2u  /* an object with a repeated key is refused */

typedef struct pm_jnode {
    const json_t *v;              /* NULL = absent */
    pm_code code;
    const char *doc;              /* borrowed: document name for messages */
    bool file;
    size_t leaf;                  /* offset of the last key in path */
    char path[PM_JSON_PATH_MAX];  /* below doc: "files[2].value_stats"; "" = the root */
} pm_jnode;

/* Parse a whole document whose root must be an object: *tree (free with
 * json_decref) and its root node.  Errors: "empty file" / "empty document"
 * for no text (or whitespace only), jansson's line and column for
 * malformed JSON, "not an object". */
pm_error *pm_json_parse_doc(const void *data, size_t len, pm_code code, const char *doc, unsigned flags,
                            json_t **tree, pm_jnode *root);
/* The metadata-file form: PM_ECORRUPT, `what` = the file. */
pm_error *pm_json_parse_object(const void *data, size_t len, const char *what, json_t **out);

void pm_json_root(pm_jnode *out, const json_t *v, pm_code code, const char *doc, bool file);
/* Member `key` of an object node (absent when n is no object or lacks it). */
void pm_json_get(pm_jnode *out, const pm_jnode *obj, const char *key);
/* Element i of an array node. */
void pm_json_at(pm_jnode *out, const pm_jnode *arr, size_t i);
/* Absent or JSON null. */
bool pm_json_is_null(const pm_jnode *n);

/* An error of the node's code naming the node's place. */
__attribute__((format(printf, 2, 3))) pm_error *pm_json_error(const pm_jnode *n, const char *fmt, ...);

/* An object with exactly the keys of the NULL-terminated `keys`: an
 * unknown key or a missing one is an error. */
pm_error *pm_json_keys(const pm_jnode *obj, const char *const *keys);

/* ---- a node's value ---- */
pm_error *pm_json_as_object(const pm_jnode *n, unsigned flags, bool *has);
pm_error *pm_json_as_i64(const pm_jnode *n, int64_t lo, int64_t hi, int64_t *out);
pm_error *pm_json_as_i32(const pm_jnode *n, int32_t lo, int32_t hi, int32_t *out);
/* Nullable integer: *has = false for absent or null. */
pm_error *pm_json_as_opt_i64(const pm_jnode *n, int64_t lo, int64_t hi, bool *has, int64_t *out);
pm_error *pm_json_as_bool(const pm_jnode *n, bool *out);
/* *out malloc'd; NULL when nullable and absent or null. */
pm_error *pm_json_as_str(const pm_jnode *n, unsigned flags, char **out);
/* Strict standard base64 (length a multiple of 4, padding only at the
 * end) decoded into out (appended); *has = false for null when nullable. */
pm_error *pm_json_as_base64(const pm_jnode *n, unsigned flags, bool *has, pm_buf *out);
/* One of names[0..n) (NULL entries never match): *out = its index; -1
 * when nullable and absent or null. */
pm_error *pm_json_as_enum(const pm_jnode *n, const char *const *names, size_t count, unsigned flags, int *out);
/* An array: *count elements (0 and *has = false for null when nullable). */
pm_error *pm_json_as_array(const pm_jnode *n, unsigned flags, bool *has, size_t *count);
/* An array of strings → list (empty and *has = false for null). */
pm_error *pm_json_as_str_list(const pm_jnode *n, unsigned flags, bool *has, pm_str_list *out);
/* An object whose values are all strings: fn(ctx, key, value) per member
 * in document order (nothing when nullable and null). */
typedef pm_error *(*pm_json_member_fn)(void *ctx, const char *key, const char *value);
pm_error *pm_json_as_str_map(const pm_jnode *n, unsigned flags, pm_json_member_fn fn, void *ctx);

/* ---- object members: pm_json_get + the node form ---- */
pm_error *pm_json_object(const pm_jnode *obj, const char *key, unsigned flags, pm_jnode *out);
pm_error *pm_json_i64(const pm_jnode *obj, const char *key, int64_t lo, int64_t hi, int64_t *out);
pm_error *pm_json_i32(const pm_jnode *obj, const char *key, int32_t lo, int32_t hi, int32_t *out);
pm_error *pm_json_opt_i64(const pm_jnode *obj, const char *key, int64_t lo, int64_t hi, bool *has, int64_t *out);
pm_error *pm_json_bool(const pm_jnode *obj, const char *key, bool *out);
pm_error *pm_json_str(const pm_jnode *obj, const char *key, unsigned flags, char **out);
pm_error *pm_json_base64(const pm_jnode *obj, const char *key, unsigned flags, bool *has, pm_buf *out);
pm_error *pm_json_enum(const pm_jnode *obj, const char *key, const char *const *names, size_t count, unsigned flags,
                       int *out);
/* *arr = the array node (its v NULL for null when nullable). */
pm_error *pm_json_array(const pm_jnode *obj, const char *key, unsigned flags, pm_jnode *arr, size_t *count);
pm_error *pm_json_str_list(const pm_jnode *obj, const char *key, unsigned flags, bool *has, pm_str_list *out);
pm_error *pm_json_str_map(const pm_jnode *obj, const char *key, unsigned flags, pm_json_member_fn fn, void *ctx);

#endif
