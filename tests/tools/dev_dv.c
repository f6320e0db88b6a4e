/*
 * tests/tools/dev_dv.c — `paimon-dev dv`: developer commands that read and write
 * deletion-vector index files directly (interop tests compare them with
 * pypaimon and pyroaring).
 *
 *   paimon-dev dv read FILE [--range NAME:OFFSET:LENGTH[:CARDINALITY]]...
 *       Decode the listed entries of a DV index file (offsets and lengths as
 *       in the index manifest's DeletionVectorMeta; CRCs are verified).
 *       Prints one JSON line per entry:
 *       {"file":NAME,"bitmap64":B,"cardinality":N,"positions":[...]}
 *
 *   paimon-dev dv write [--bitmap64] [--target-size BYTES] --input FILE.jsonl DIR
 *       Input lines {"file":NAME,"positions":[...]} (in file order; repeated
 *       names merge).  Writes one index file into DIR, or several rolling at
 *       BYTES when --target-size is given, and prints one JSON line per file:
 *       {"file_name":..,"file_size":..,"row_count":..,
 *        "ranges":[{"file":..,"offset":..,"length":..,"cardinality":..}]}
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "dev.h"
#include "dv/dv_index_file.h"
#include "meta/index_path.h"
#include "io/fileio.h"

#define CMD "dv"

static void usage(FILE *f)
{
    fprintf(f, "usage: paimon-dev " CMD " read FILE [--range NAME:OFFSET:LENGTH[:CARDINALITY]]...\n"
               "       paimon-dev " CMD " write [--bitmap64] [--target-size BYTES] --input FILE.jsonl DIR\n\n"
               "Read or write deletion-vector index files (developer command).\n");
}

static bool print_pos(int64_t pos, void *ctx)
{
    json_array_append_new(ctx, json_integer((json_int_t)pos));
    return true;
}

static int print_dv(const char *name, const pm_dv *dv)
{
    json_t *o = json_object(), *arr = json_array();
    json_object_set_new(o, "file", json_string(name));
    json_object_set_new(o, "bitmap64", json_boolean(pm_dv_is_bitmap64(dv)));
    json_object_set_new(o, "cardinality", json_integer((json_int_t)pm_dv_cardinality(dv)));
    pm_dv_foreach(dv, print_pos, arr);
    json_object_set_new(o, "positions", arr);
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!s)
        return 1;
    puts(s);
    free(s);
    return 0;
}

/* NAME:OFFSET:LENGTH[:CARDINALITY], NAME taken up to the first ':'. */
static bool parse_range(char *s, pm_dv_meta *r)
{
    char *p = strchr(s, ':');
    if (!p)
        return false;
    *p++ = 0;
    r->data_file_name = s;
    char *end;
    long long off = strtoll(p, &end, 10);
    if (*end != ':' || off < 0 || off > INT32_MAX)
        return false;
    long long len = strtoll(end + 1, &end, 10);
    if ((*end && *end != ':') || len < 0 || len > INT32_MAX)
        return false;
    r->offset = (int32_t)off;
    r->length = (int32_t)len;
    r->cardinality.has = *end == ':';
    r->cardinality.v = r->cardinality.has ? strtoll(end + 1, &end, 10) : 0;
    return !*end;
}

static int cmd_read(int argc, char **argv)
{
    const char *file = NULL;
    pm_dv_meta *ranges = calloc((size_t)argc, sizeof *ranges);
    size_t n = 0;
    if (!ranges)
        return 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--range")) {
            if (i + 1 >= argc || !parse_range(argv[++i], &ranges[n++])) {
                free(ranges);
                return pm_dev_usage_error(CMD, "--range needs NAME:OFFSET:LENGTH[:CARDINALITY]");
            }
        } else if (!file) {
            file = argv[i];
        } else {
            free(ranges);
            return pm_dev_usage_error(CMD, "unexpected argument '%s'", argv[i]);
        }
    }
    if (!file) {
        free(ranges);
        return pm_dev_usage_error(CMD, "read: missing FILE");
    }
    pm_fileio *fio = NULL;
    pm_dv_map *m = NULL;
    pm_buf buf = PM_BUF_INIT;
    pm_error *e = pm_fileio_local_new(&fio);
    if (!e)
        e = pm_dv_map_new(&m);
    if (!e)
        e = pm_fileio_read_file(fio, file, &buf);
    if (!e)
        e = pm_dv_index_parse(buf.data, buf.len, ranges, n, file, m);
    int rc = 0;
    if (e)
        rc = pm_dev_fail(CMD, e);
    else
        for (size_t i = 0; i < n && !rc; i++)
            rc = print_dv(ranges[i].data_file_name, pm_dv_map_get(m, ranges[i].data_file_name));
    pm_buf_free(&buf);
    pm_dv_map_free(m);
    pm_fileio_free(fio);
    free(ranges);
    return rc;
}

/* Fill the map from JSON lines. */
static pm_error *load_input(pm_fileio *fio, const char *path, bool bitmap64, pm_dv_map *m)
{
    pm_buf buf = PM_BUF_INIT;
    PM_TRY(pm_fileio_read_file(fio, path, &buf));
    pm_error *e = NULL;
    size_t line = 0;
    for (size_t pos = 0; pos < buf.len && !e;) {
        const uint8_t *nl = memchr(buf.data + pos, '\n', buf.len - pos);
        size_t end = nl ? (size_t)(nl - buf.data) : buf.len;
        line++;
        json_error_t jerr;
        json_t *o = end > pos ? json_loadb((const char *)buf.data + pos, end - pos, 0, &jerr) : NULL;
        pos = end + 1;
        if (!o)
            continue;
        const char *name = json_string_value(json_object_get(o, "file"));
        json_t *arr = json_object_get(o, "positions");
        if (!name || !json_is_array(arr)) {
            e = pm_error_new(PM_EINVALID, "line %zu: needs \"file\" and \"positions\"", line);
        } else {
            pm_dv *dv = pm_dv_map_get(m, name);
            if (!dv && !(e = pm_dv_new(bitmap64, &dv)))
                e = pm_dv_map_put(m, name, dv);
            size_t i;
            json_t *v;
            json_array_foreach(arr, i, v)
            {
                if (e)
                    break;
                if (!json_is_integer(v))
                    e = pm_error_new(PM_EINVALID, "line %zu: positions must be integers", line);
                else
                    e = pm_dv_add(dv, (int64_t)json_integer_value(v), NULL);
            }
        }
        json_decref(o);
    }
    pm_buf_free(&buf);
    return e;
}

static void print_meta(const pm_index_file_meta *f)
{
    json_t *o = json_object(), *arr = json_array();
    json_object_set_new(o, "file_name", json_string(f->file_name));
    json_object_set_new(o, "file_size", json_integer(f->file_size));
    json_object_set_new(o, "row_count", json_integer(f->row_count));
    for (size_t i = 0; i < f->dv_range_len; i++) {
        const pm_dv_meta *r = &f->dv_ranges[i];
        json_t *j = json_object();
        json_object_set_new(j, "file", json_string(r->data_file_name));
        json_object_set_new(j, "offset", json_integer(r->offset));
        json_object_set_new(j, "length", json_integer(r->length));
        json_object_set_new(j, "cardinality", json_integer(r->cardinality.v));
        json_array_append_new(arr, j);
    }
    json_object_set_new(o, "ranges", arr);
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (s)
        puts(s);
    free(s);
}

static int cmd_write(int argc, char **argv)
{
    bool bitmap64 = false, rolling = false;
    long long target = 0;
    const char *input = NULL, *dir = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--bitmap64")) {
            bitmap64 = true;
        } else if (!strcmp(a, "--target-size") || !strcmp(a, "--input")) {
            if (i + 1 >= argc)
                return pm_dev_usage_error(CMD, "%s needs a value", a);
            if (!strcmp(a, "--input")) {
                input = argv[++i];
            } else {
                char *end;
                target = strtoll(argv[++i], &end, 10);
                if (*end || target <= 0)
                    return pm_dev_usage_error(CMD, "--target-size needs a positive byte count");
                rolling = true;
            }
        } else if (!dir) {
            dir = a;
        } else {
            return pm_dev_usage_error(CMD, "unexpected argument '%s'", a);
        }
    }
    if (!input || !dir)
        return pm_dev_usage_error(CMD, "write needs --input and DIR");
    pm_fileio *fio = NULL;
    pm_options *opts = NULL;
    pm_type *ptype = pm_type_new_row(true);
    pm_path_factory *pf = NULL;
    pm_dv_map *m = NULL;
    pm_index_file_meta *metas = NULL;
    size_t nmetas = 0;
    pm_error *e = ptype ? NULL : pm_error_new(PM_ENOMEM, "out of memory");
    if (!e)
        e = pm_fileio_local_new(&fio);
    if (!e)
        e = pm_options_new(&opts);
    if (!e)
        e = pm_path_factory_new(&pf, dir, ptype, opts);
    if (!e)
        e = pm_dv_map_new(&m);
    if (!e)
        e = load_input(fio, input, bitmap64, m);
    if (!e && rolling) {
        e = pm_dv_index_write_rolling(fio, pf, dir, m, target, &metas, &nmetas);
    } else if (!e) {
        e = pm_calloc(&metas, 1, sizeof *metas);
        if (!e)
            e = pm_dv_index_write_single(fio, pf, dir, m, metas);
        if (!e)
            nmetas = 1;
    }
    int rc = e ? pm_dev_fail(CMD, e) : 0;
    for (size_t i = 0; i < nmetas; i++)
        print_meta(&metas[i]);
    pm_index_metas_free(metas, nmetas);
    pm_dv_map_free(m);
    pm_path_factory_free(pf);
    pm_options_free(opts);
    pm_type_free(ptype);
    pm_fileio_free(fio);
    return rc;
}

int pm_cmd_dv(int argc, char **argv)
{
    if (argc < 2 || pm_dev_wants_help(argc, argv)) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "read"))
        return cmd_read(argc - 1, argv + 1);
    if (!strcmp(argv[1], "write"))
        return cmd_write(argc - 1, argv + 1);
    return pm_dev_usage_error(CMD, "unknown subcommand '%s' (read, write)", argv[1]);
}
