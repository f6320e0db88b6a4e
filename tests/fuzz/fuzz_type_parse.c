/*
 * tests/fuzz/fuzz_type_parse.c — pm_type_parse on arbitrary text.  Every
 * accepted type must print (pm_type_to_string), re-parse to an equal type,
 * clone equal, and print the same string again.
 */
#include <stdlib.h>
#include <string.h>

#include "paimon/types.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    pm_type *t = NULL;
    pm_error *e = pm_type_parse(&t, text);
    free(text);
    if (e) {
        if (t)
            abort();
        pm_error_free(e);
        return 0;
    }
    char *s = pm_type_to_string(t);
    if (!s)
        abort();
    pm_type *u = NULL;
    e = pm_type_parse(&u, s);
    if (e || !pm_type_equals(t, u))
        abort();
    char *s2 = pm_type_to_string(u);
    if (!s2 || strcmp(s, s2) != 0)
        abort();
    pm_type *c = pm_type_clone(t);
    if (!c || !pm_type_equals(c, t))
        abort();
    pm_type_free(c);
    free(s);
    free(s2);
    pm_type_free(t);
    pm_type_free(u);
    return 0;
}
