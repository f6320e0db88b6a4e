/*
 * api/api_files.c — the `$files` and levels views of paimon/files.h.
 *
 * Both scan one snapshot (table/scan.h, no fallback branch) and turn each
 * live file into a pm_file_info whose strings live in the list's arena:
 * partition display, full path (bucket directory + name, or the external
 * path), format from the name's extension, creation time as local
 * date-time text, the deletion vector's cardinality from the index
 * manifest, and for primary-key tables the min/max keys decoded from their
 * BinaryRows and printed as JSON arrays.  Levels group each bucket's files
 * into sorted runs with lsm/levels.h (level-0 files newest first, then one
 * run per non-empty level); a bucket whose files do not form a valid LSM
 * tree carries the reason instead of runs.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "base/mem.h"
#include "lsm/levels.h"
#include "meta/json.h"
#include "paimon/files.h"
#include "table/partition.h"
#include "table/scan.h"
#include "table/table_internal.h"
#include "types/binary_row.h"
#include "types/column.h"
#include "types/temporal.h"

struct pm_file_list {
    pm_arena arena;
    int64_t snapshot_id;
    pm_file_info *files;
    size_t n;
};

typedef struct bucket_view {
    pm_bucket_levels b;
    pm_run_info *runs;
} bucket_view;

struct pm_level_list {
    pm_file_list *files;          /* every file, owning the strings */
    pm_bucket_levels *buckets;
    size_t n;
};

/* Decodes serialized key rows to text with one column per key field. */
typedef struct key_text {
    const pm_type *kt;            /* NULL for append tables */
    pm_column **cols;
} key_text;

static void key_text_free(key_text *k)
{
    for (size_t i = 0; k->cols && k->kt && i < k->kt->nfields; i++)
        pm_column_release(k->cols[i]);
    free(k->cols);
}

static pm_error *key_text_init(key_text *k, const pm_type *kt)
{
    k->kt = kt;
    k->cols = NULL;
    if (!kt)
        return NULL;
    PM_TRY(pm_calloc(&k->cols, kt->nfields ? kt->nfields : 1, sizeof *k->cols));
    for (size_t i = 0; i < kt->nfields; i++)
        PM_TRY(pm_column_new(&k->cols[i], kt->fields[i].type));
    return NULL;
}

/* "[v1, v2]" of a serialized key row; "<bad key>" when it does not decode. */
static pm_error *key_format(key_text *k, const pm_bytes *key, pm_buf *out)
{
    pm_binrow row;
    pm_error *e = pm_binrow_deserialize(&row, key->data, key->len, (int32_t)k->kt->nfields);
    if (e) {
        pm_error_free(e);
        return pm_buf_append_str(out, "<bad key>");
    }
    PM_TRY(pm_buf_append_byte(out, '['));
    for (size_t i = 0; i < k->kt->nfields; i++) {
        pm_column_reset(k->cols[i]);
        PM_TRY(pm_binrow_append_to_column(&row, (int32_t)i, k->cols[i]));
        if (i)
            PM_TRY(pm_buf_append_str(out, ", "));
        PM_TRY(pm_column_format_json(k->cols[i], 0, out));
    }
    return pm_buf_append_byte(out, ']');
}

static char *arena_text(pm_arena *a, const pm_buf *b)
{
    return pm_arena_strndup(a, b->data ? (const char *)b->data : "", b->len);
}

static const char *source_name(const pm_data_file_meta *f)
{
    if (!f->file_source.has)
        return NULL;
    return f->file_source.v == PM_FILE_SOURCE_COMPACT ? "COMPACT" : "APPEND";
}

static const pm_deletion_file *dv_of(const pm_bucket_files *b, const pm_data_file_meta *f)
{
    for (size_t i = 0; i < b->ndvs; i++)
        if (b->dvs[i].data_file == f->file_name)
            return &b->dvs[i];
    return NULL;
}

/* Fill one pm_file_info; strings go to the arena.  `dir` is the bucket's
 * directory (computed once per bucket). */
static pm_error *file_info(pm_arena *a, const char *dir, const pm_bucket_files *b, const pm_data_file_meta *f,
                           const char *partition, key_text *k, pm_buf *tmp, pm_file_info *out)
{
    memset(out, 0, sizeof *out);
    out->partition = partition;
    out->bucket = b->bucket;
    pm_buf_clear(tmp);
    if (f->external_path) {
        PM_TRY(pm_buf_append_str(tmp, f->external_path));
    } else {
        PM_TRY(pm_buf_append_str(tmp, dir));
        PM_TRY(pm_buf_append_byte(tmp, '/'));
        PM_TRY(pm_buf_append_str(tmp, f->file_name));
    }
    if (!(out->path = arena_text(a, tmp)) || !(out->file_name = pm_arena_strdup(a, f->file_name)))
        return pm_oom();
    const char *dot = strrchr(f->file_name, '.');
    if (!(out->format = pm_arena_strdup(a, dot ? dot + 1 : "")))
        return pm_oom();
    out->schema_id = f->schema_id;
    out->level = f->level;
    out->record_count = f->row_count;
    out->file_size = f->file_size;
    out->min_sequence_number = f->min_sequence_number;
    out->max_sequence_number = f->max_sequence_number;
    if (f->creation_time.has) {
        pm_buf_clear(tmp);
        PM_TRY(pm_format_timestamp(tmp, f->creation_time.v, 3, false));
        if (!(out->creation_time = arena_text(a, tmp)))
            return pm_oom();
    }
    out->has_delete_row_count = f->delete_row_count.has;
    out->delete_row_count = f->delete_row_count.v;
    out->file_source = source_name(f);
    out->has_first_row_id = f->first_row_id.has;
    out->first_row_id = f->first_row_id.v;
    if (f->has_write_cols) {
        const char **cols = pm_arena_calloc(a, (f->write_cols.count ? f->write_cols.count : 1) * sizeof *cols,
                                            _Alignof(const char *));
        if (!cols)
            return pm_oom();
        for (size_t i = 0; i < f->write_cols.count; i++)
            if (!(cols[i] = pm_arena_strdup(a, f->write_cols.items[i])))
                return pm_oom();
        out->write_cols = cols;
        out->nwrite_cols = f->write_cols.count;
    }
    if (f->external_path && !(out->external_path = pm_arena_strdup(a, f->external_path)))
        return pm_oom();
    const pm_deletion_file *dv = dv_of(b, f);
    out->has_deletion_vector = dv != NULL;
    out->has_deleted_rows = dv && dv->cardinality.has;
    out->deleted_rows = dv && dv->cardinality.has ? dv->cardinality.v : 0;
    if (k->kt) {
        pm_buf_clear(tmp);
        PM_TRY(key_format(k, &f->min_key, tmp));
        if (!(out->min_key = arena_text(a, tmp)))
            return pm_oom();
        pm_buf_clear(tmp);
        PM_TRY(key_format(k, &f->max_key, tmp));
        if (!(out->max_key = arena_text(a, tmp)))
            return pm_oom();
    }
    return NULL;
}

static pm_error *scan_options(const pm_read_options *o, pm_partition_spec **specs, size_t *nspecs,
                              pm_scan_options *so)
{
    *specs = NULL;
    *nspecs = 0;
    *so = pm_scan_options_default();
    if (!o)
        return NULL;
    if (o->version != PM_READ_OPTIONS_VERSION)
        return pm_error_new(PM_EINVALID, "read options version %d (this library knows %d)", o->version,
                            PM_READ_OPTIONS_VERSION);
    if (o->snapshot_id < 0)
        return pm_error_new(PM_EINVALID, "snapshot id %lld is negative", (long long)o->snapshot_id);
    so->snapshot_id = o->snapshot_id;
    if (!o->npartitions)
        return NULL;
    if (!o->partitions)
        return pm_error_new(PM_EINVALID, "npartitions is %zu but partitions is NULL", o->npartitions);
    PM_TRY(pm_calloc(specs, o->npartitions, sizeof **specs));
    for (size_t i = 0; i < o->npartitions; i++) {
        pm_error *e = o->partitions[i] ? pm_partition_spec_parse(o->partitions[i], &(*specs)[i])
                                       : pm_error_new(PM_EINVALID, "partition filter %zu is NULL", i);
        if (e) {
            for (size_t k = 0; k < i; k++)
                pm_partition_spec_clear(&(*specs)[k]);
            free(*specs);
            *specs = NULL;
            return e;
        }
    }
    *nspecs = o->npartitions;
    so->partitions = *specs;
    so->npartitions = *nspecs;
    return NULL;
}

void pm_file_list_free(pm_file_list *l)
{
    if (!l)
        return;
    pm_arena_free(&l->arena);
    free(l->files);
    free(l);
}

/* Scan and describe every file; *sr_out (optional) keeps the scan result
 * and *key_type the primary-key type (NULL for append tables). */
static pm_error *list_files(pm_file_list **out, pm_table *t, const pm_read_options *o, pm_scan_result **sr_out,
                            pm_type **key_type)
{
    *out = NULL;
    pm_partition_spec *specs = NULL;
    size_t nspecs = 0;
    pm_scan_options so;
    PM_TRY(scan_options(o, &specs, &nspecs, &so));
    pm_scan_result *sr = NULL;
    pm_file_list *l = NULL;
    pm_type *kt = NULL;
    key_text k = {NULL, NULL};
    pm_buf tmp = PM_BUF_INIT, part = PM_BUF_INIT;
    pm_error *e = pm_table_scan(t, &so, &sr);
    if (!e)
        e = pm_calloc(&l, 1, sizeof *l);
    if (e)
        goto done;
    pm_arena_init(&l->arena, 1 << 14);
    l->snapshot_id = sr->snapshot ? sr->snapshot->id : 0;
    const pm_schema *s = sr->schema ? sr->schema : pm_table_schema(t);
    if (s->primary_keys.count)
        PM_TRY_GOTO(e, pm_schema_trimmed_primary_key_type(s, &kt), done);
    PM_TRY_GOTO(e, key_text_init(&k, kt), done);
    size_t total = 0;
    for (size_t i = 0; i < sr->nbuckets; i++)
        total += sr->buckets[i].nfiles;
    if (total)
        PM_TRY_GOTO(e, pm_calloc(&l->files, total, sizeof *l->files), done);
    for (size_t i = 0; i < sr->nbuckets; i++) {
        const pm_bucket_files *b = &sr->buckets[i];
        pm_buf_clear(&part);
        PM_TRY_GOTO(e, pm_partition_display(t, b->partition.data, b->partition.len, &part), done);
        const char *ptext = arena_text(&l->arena, &part);
        if (!ptext) {
            e = pm_oom();
            goto done;
        }
        char *dir = NULL;
        PM_TRY_GOTO(e, pm_table_bucket_dir(t, b->partition.data, b->partition.len, b->bucket, &dir), done);
        for (size_t j = 0; j < b->nfiles && !e; j++)
            e = file_info(&l->arena, dir, b, &b->files[j], ptext, &k, &tmp, &l->files[l->n++]);
        free(dir);
        if (e)
            goto done;
    }
done:
    for (size_t i = 0; i < nspecs; i++)
        pm_partition_spec_clear(&specs[i]);
    free(specs);
    key_text_free(&k);
    pm_buf_free(&tmp);
    pm_buf_free(&part);
    if (e || !sr_out)
        pm_scan_result_free(sr);
    else
        *sr_out = sr;
    if (e || !key_type)
        pm_type_free(kt);
    else
        *key_type = kt;
    if (e) {
        pm_file_list_free(l);
        return pm_error_wrap(e, 0, "files of table %s", t->path);
    }
    *out = l;
    return NULL;
}

pm_error *pm_table_files(pm_file_list **out, pm_table *t, const pm_read_options *o)
{
    return list_files(out, t, o, NULL, NULL);
}

int64_t pm_file_list_snapshot_id(const pm_file_list *l) { return l->snapshot_id; }
size_t pm_file_list_count(const pm_file_list *l) { return l->n; }
const pm_file_info *pm_file_list_get(const pm_file_list *l, size_t i) { return i < l->n ? &l->files[i] : NULL; }

/* ---- JSON ---- */

static pm_error *json_str(pm_buf *out, const char *key, const char *v)
{
    PM_TRY(pm_buf_printf(out, ",\"%s\":", key));
    return v ? pm_json_append_string(out, v) : pm_buf_append_str(out, "null");
}

static pm_error *json_opt(pm_buf *out, const char *key, bool has, int64_t v)
{
    return has ? pm_buf_printf(out, ",\"%s\":%" PRId64, key, v) : pm_buf_printf(out, ",\"%s\":null", key);
}

static pm_error *file_json(pm_buf *out, const pm_file_info *f)
{
    PM_TRY(pm_buf_append_str(out, "{\"partition\":"));
    PM_TRY(pm_json_append_string(out, f->partition));
    PM_TRY(pm_buf_printf(out, ",\"bucket\":%d", (int)f->bucket));
    PM_TRY(json_str(out, "file_path", f->path));
    PM_TRY(json_str(out, "file_name", f->file_name));
    PM_TRY(json_str(out, "file_format", f->format));
    PM_TRY(pm_buf_printf(out,
                         ",\"schema_id\":%" PRId64 ",\"level\":%d,\"record_count\":%" PRId64
                         ",\"file_size_in_bytes\":%" PRId64 ",\"min_sequence_number\":%" PRId64
                         ",\"max_sequence_number\":%" PRId64,
                         f->schema_id, (int)f->level, f->record_count, f->file_size, f->min_sequence_number,
                         f->max_sequence_number));
    PM_TRY(json_str(out, "creation_time", f->creation_time));
    PM_TRY(json_opt(out, "delete_row_count", f->has_delete_row_count, f->delete_row_count));
    PM_TRY(json_str(out, "file_source", f->file_source));
    PM_TRY(json_opt(out, "first_row_id", f->has_first_row_id, f->first_row_id));
    PM_TRY(pm_buf_append_str(out, ",\"write_cols\":"));
    if (f->write_cols) {
        PM_TRY(pm_buf_append_byte(out, '['));
        for (size_t i = 0; i < f->nwrite_cols; i++) {
            if (i)
                PM_TRY(pm_buf_append_byte(out, ','));
            PM_TRY(pm_json_append_string(out, f->write_cols[i]));
        }
        PM_TRY(pm_buf_append_byte(out, ']'));
    } else {
        PM_TRY(pm_buf_append_str(out, "null"));
    }
    PM_TRY(json_str(out, "external_path", f->external_path));
    if (f->has_deletion_vector)
        PM_TRY(json_opt(out, "deleted_rows", f->has_deleted_rows, f->deleted_rows));
    else
        PM_TRY(pm_buf_append_str(out, ",\"deleted_rows\":0"));
    if (f->min_key) {
        PM_TRY(pm_buf_printf(out, ",\"min_key\":%s,\"max_key\":%s", f->min_key, f->max_key));
    }
    return pm_buf_append_byte(out, '}');
}

static pm_error *finish_json(pm_buf *b, char **out)
{
    pm_error *e = pm_buf_append_byte(b, 0);
    if (e) {
        pm_buf_free(b);
        return e;
    }
    *out = (char *)pm_buf_detach(b, NULL);
    return NULL;
}

pm_error *pm_file_list_to_json(char **out, const pm_file_list *l)
{
    *out = NULL;
    pm_buf b = PM_BUF_INIT;
    pm_error *e = pm_buf_append_byte(&b, '[');
    for (size_t i = 0; !e && i < l->n; i++) {
        e = pm_buf_append_str(&b, i ? ",\n  " : "\n  ");
        if (!e)
            e = file_json(&b, &l->files[i]);
    }
    if (!e)
        e = pm_buf_append_str(&b, l->n ? "\n]" : "]");
    if (e) {
        pm_buf_free(&b);
        return e;
    }
    return finish_json(&b, out);
}

/* ---- levels ---- */

void pm_level_list_free(pm_level_list *l)
{
    if (!l)
        return;
    pm_file_list_free(l->files);
    free(l->buckets);
    free(l);
}

/* The runs of one bucket (files [first, first + n) of the list). */
static pm_error *bucket_levels(pm_level_list *l, const pm_type *kt, int32_t num_levels, const pm_bucket_files *b,
                               size_t first, pm_bucket_levels *out)
{
    pm_arena *a = &l->files->arena;
    pm_file_info *infos = l->files->files + first;
    const pm_file_info **all = pm_arena_calloc(a, (b->nfiles ? b->nfiles : 1) * sizeof *all, _Alignof(void *));
    if (!all)
        return pm_oom();
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < b->nfiles; i++) {
        all[i] = &infos[i];
        out->record_count += infos[i].record_count;
        out->size += infos[i].file_size;
    }
    out->partition = b->nfiles ? infos[0].partition : "";
    out->bucket = b->bucket;
    out->nfiles = b->nfiles;
    out->files = all;
    pm_levels *lv = NULL;
    pm_error *le = pm_levels_new(&lv, kt, num_levels, b->files, b->nfiles);
    if (le) {
        char *msg = pm_error_format(le);
        pm_error_free(le);
        out->error = pm_arena_strdup(a, msg ? msg : "invalid levels");
        free(msg);
        return out->error ? NULL : pm_oom();
    }
    size_t nruns = 0;
    const pm_lsm_run *runs = pm_levels_runs(lv, &nruns);
    pm_run_info *ri = pm_arena_calloc(a, (nruns ? nruns : 1) * sizeof *ri, _Alignof(pm_run_info));
    pm_error *e = ri ? NULL : pm_oom();
    for (size_t r = 0; !e && r < nruns; r++) {
        const pm_lsm_run *run = &runs[r];
        pm_run_info *o = &ri[r];
        o->level = run->level;
        o->nfiles = run->nfiles;
        o->size = run->size;
        o->min_sequence_number = INT64_MAX;
        o->max_sequence_number = INT64_MIN;
        const pm_file_info **fs = pm_arena_calloc(a, (run->nfiles ? run->nfiles : 1) * sizeof *fs, _Alignof(void *));
        if (!fs) {
            e = pm_oom();
            break;
        }
        for (size_t f = 0; f < run->nfiles; f++) {
            const pm_data_file_meta *m = &run->files[f]->meta;
            for (size_t i = 0; i < b->nfiles && !fs[f]; i++)
                if (!strcmp(infos[i].file_name, m->file_name))
                    fs[f] = &infos[i];
            o->record_count += m->row_count;
            if (m->min_sequence_number < o->min_sequence_number)
                o->min_sequence_number = m->min_sequence_number;
            if (m->max_sequence_number > o->max_sequence_number)
                o->max_sequence_number = m->max_sequence_number;
        }
        o->files = fs;
        o->min_key = run->nfiles && fs[0] ? fs[0]->min_key : NULL;
        o->max_key = run->nfiles && fs[run->nfiles - 1] ? fs[run->nfiles - 1]->max_key : NULL;
    }
    pm_levels_free(lv);
    out->nruns = e ? 0 : nruns;
    out->runs = ri;
    return e;
}

pm_error *pm_table_levels(pm_level_list **out, pm_table *t, const pm_read_options *o)
{
    *out = NULL;
    pm_level_list *l;
    PM_TRY(pm_calloc(&l, 1, sizeof *l));
    pm_scan_result *sr = NULL;
    pm_type *kt = NULL;
    pm_error *e = list_files(&l->files, t, o, &sr, &kt);
    if (!e && !kt)
        e = pm_error_new(PM_EINVALID, "table %s has no primary key (levels are a primary-key table concept)",
                         t->path);
    int32_t num_levels = 0;
    if (!e) {
        const pm_schema *s = sr->schema ? sr->schema : pm_table_schema(t);
        e = pm_options_num_levels(s->options, &num_levels);
    }
    if (!e && sr->nbuckets)
        e = pm_calloc(&l->buckets, sr->nbuckets, sizeof *l->buckets);
    size_t first = 0;
    for (size_t i = 0; !e && i < sr->nbuckets; i++) {
        e = bucket_levels(l, kt, num_levels, &sr->buckets[i], first, &l->buckets[i]);
        first += sr->buckets[i].nfiles;
        if (!e)
            l->n = i + 1;
    }
    pm_scan_result_free(sr);
    pm_type_free(kt);
    if (e) {
        pm_level_list_free(l);
        return e;
    }
    *out = l;
    return NULL;
}

int64_t pm_level_list_snapshot_id(const pm_level_list *l) { return l->files->snapshot_id; }
size_t pm_level_list_count(const pm_level_list *l) { return l->n; }
const pm_bucket_levels *pm_level_list_get(const pm_level_list *l, size_t i)
{
    return i < l->n ? &l->buckets[i] : NULL;
}

static pm_error *run_json(pm_buf *out, const pm_run_info *r)
{
    PM_TRY(pm_buf_printf(out,
                         "{\"level\":%d,\"file_count\":%zu,\"record_count\":%" PRId64 ",\"size\":%" PRId64
                         ",\"min_sequence_number\":%" PRId64 ",\"max_sequence_number\":%" PRId64,
                         (int)r->level, r->nfiles, r->record_count, r->size, r->min_sequence_number,
                         r->max_sequence_number));
    PM_TRY(pm_buf_printf(out, ",\"min_key\":%s,\"max_key\":%s,\"files\":[", r->min_key ? r->min_key : "null",
                         r->max_key ? r->max_key : "null"));
    for (size_t i = 0; i < r->nfiles; i++) {
        if (i)
            PM_TRY(pm_buf_append_byte(out, ','));
        PM_TRY(pm_json_append_string(out, r->files[i] ? r->files[i]->file_name : ""));
    }
    return pm_buf_append_str(out, "]}");
}

pm_error *pm_level_list_to_json(char **out, const pm_level_list *l)
{
    *out = NULL;
    pm_buf b = PM_BUF_INIT;
    pm_error *e = pm_buf_append_byte(&b, '[');
    for (size_t i = 0; !e && i < l->n; i++) {
        const pm_bucket_levels *bl = &l->buckets[i];
        e = pm_buf_append_str(&b, i ? ",\n  {\"partition\":" : "\n  {\"partition\":");
        if (!e)
            e = pm_json_append_string(&b, bl->partition);
        if (!e)
            e = pm_buf_printf(&b, ",\"bucket\":%d,\"file_count\":%zu,\"record_count\":%" PRId64 ",\"size\":%" PRId64,
                              (int)bl->bucket, bl->nfiles, bl->record_count, bl->size);
        if (!e)
            e = json_str(&b, "error", bl->error);
        if (!e)
            e = pm_buf_append_str(&b, ",\"runs\":[");
        for (size_t r = 0; !e && r < bl->nruns; r++) {
            if (r)
                e = pm_buf_append_byte(&b, ',');
            if (!e)
                e = run_json(&b, &bl->runs[r]);
        }
        if (!e)
            e = pm_buf_append_str(&b, "]}");
    }
    if (!e)
        e = pm_buf_append_str(&b, l->n ? "\n]" : "]");
    if (e) {
        pm_buf_free(&b);
        return e;
    }
    return finish_json(&b, out);
}
