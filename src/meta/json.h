/*
 * meta/json.h — JSON for metadata files: a writer that reproduces Jackson's
 * DefaultPrettyPrinter byte for byte, and reading helpers over jansson that
 * turn every type or presence problem into a PM_ECORRUPT naming the file
 * and the field.
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

/* ---- reading ---- */

/* Parse a whole document that must be an object.  PM_ECORRUPT naming
 * `what` (a file path) with jansson's line/column on malformed JSON. */
pm_error *pm_json_parse_object(const void *data, size_t len, const char *what, json_t **out);

/* Field getters.  `what` names the file for messages.  Absent fields: the
 * `_opt` forms set *present=false; a JSON null counts as absent for them.
 * Wrong JSON types are PM_ECORRUPT naming the field. */
pm_error *pm_json_long(const json_t *obj, const char *key, const char *what, int64_t *out);
pm_error *pm_json_long_opt(const json_t *obj, const char *key, const char *what, bool *present,
                           int64_t *out);
pm_error *pm_json_int(const json_t *obj, const char *key, const char *what, int32_t *out);
/* Required string (not null). *out is malloc'd. */
pm_error *pm_json_string(const json_t *obj, const char *key, const char *what, char **out);
/* Optional or nullable string: *out = NULL when absent or null. */
pm_error *pm_json_string_opt(const json_t *obj, const char *key, const char *what, char **out);

#endif
