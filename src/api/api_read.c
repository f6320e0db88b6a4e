/*
 * api/api_read.c — scan → splits → reader of paimon/read.h, and the Arrow
 * C stream over a reader.
 *
 * A scan runs the table layer's scan (table/scan.h) once and moves each
 * (partition, bucket) of its result into a pm_split, which owns its files,
 * deletion-vector references and index entries, and knows its table path,
 * branch, snapshot and read schema.  The scan keeps the scan result for
 * the fallback-branch handle and the snapshot.
 *
 * A reader checks that its splits belong to the table it is given and
 * agree on the read schema (per branch), copies them back into a private
 * scan result (opening the fallback branch when a split needs it) and
 * reads it with the table layer's reader (table/table_read.h: merge on
 * read, deletion vectors, projection, read-ahead threads).  The limit cuts
 * the last batch with a copy of its first rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_internal.h"
#include "base/buf.h"
#include "base/mem.h"
#include "meta/manifest.h"
#include "paimon/read.h"
#include "table/partition.h"
#include "table/incremental.h"
#include "table/scan.h"
#include "table/table_internal.h"
#include "table/predicate.h"
#include "table/table_read.h"
#include "types/column.h"

struct pm_scan {
    pm_scan_result *sr;        /* buckets moved out into splits */
    int64_t snapshot_id;
    int64_t schema_id;
    pm_split **splits;
    size_t nsplits;
};

struct pm_reader {
    pm_scan_result *sr;        /* private copy of the splits' buckets */
    pm_predicate *filter;      /* parsed pm_read_options.filter, or NULL */
    pm_table_reader *tr;
    pm_incr_reader *ir;        /* incremental splits: read record by record instead */
    int64_t limit;             /* -1 = none */
    int64_t done;              /* rows handed out */
    pm_batch *cut;             /* the last batch under a limit */
    char *last_error;          /* for the Arrow stream */
};

void pm_read_options_init(pm_read_options *o)
{
    static const pm_read_options init = PM_READ_OPTIONS_INIT;
    *o = init;
}

/* Is o an incremental read (version 2 fields; a version-1 struct has none)? */
static bool incremental(const pm_read_options *o)
{
    return o->version >= 2 && (o->incremental_from || o->incremental_to);
}

static pm_error *check_options(const pm_read_options *o)
{
    if (o->version < 1 || o->version > PM_READ_OPTIONS_VERSION)
        return pm_error_new(PM_EINVALID, "read options version %d (this library knows 1..%d)", o->version,
                            PM_READ_OPTIONS_VERSION);
    if (incremental(o)) {
        if (o->incremental_from < 0 || o->incremental_to < o->incremental_from)
            return pm_error_new(PM_EINVALID, "incremental read between %lld and %lld: need 0 <= from <= to",
                                (long long)o->incremental_from, (long long)o->incremental_to);
        if (o->incremental_mode != PM_INCREMENTAL_AUTO && o->incremental_mode != PM_INCREMENTAL_DELTA &&
            o->incremental_mode != PM_INCREMENTAL_CHANGELOG)
            return pm_error_new(PM_EINVALID, "incremental_mode %d is not a pm_incremental_mode",
                                (int)o->incremental_mode);
        if (o->snapshot_id)
            return pm_error_new(PM_EINVALID, "an incremental read takes no snapshot_id (it reads the range)");
    }
    if (o->snapshot_id < 0)
        return pm_error_new(PM_EINVALID, "snapshot id %lld is negative", (long long)o->snapshot_id);
    if (o->limit < -1)
        return pm_error_new(PM_EINVALID, "limit %lld (use -1 for no limit)", (long long)o->limit);
    if (o->batch_rows < 0 || o->batch_rows > (1 << 24))
        return pm_error_new(PM_EINVALID, "batch_rows %lld is not in 0..16777216", (long long)o->batch_rows);
    if (o->threads > 64)
        return pm_error_new(PM_EINVALID, "threads %zu is above 64", o->threads);
    if ((o->npartitions && !o->partitions) || (o->ncolumns && !o->columns))
        return pm_error_new(PM_EINVALID, "a count is set but its array is NULL");
    for (size_t i = 0; i < o->ncolumns; i++)
        if (!o->columns[i] || !*o->columns[i])
            return pm_error_new(PM_EINVALID, "column %zu of the projection has no name", i);
    return NULL;
}

/* ---- bucket files: deep copy ---- */

static void bucket_clear(pm_bucket_files *b)
{
    pm_bytes_clear(&b->partition);
    for (size_t i = 0; i < b->nfiles; i++)
        pm_data_file_meta_clear(&b->files[i]);
    free(b->files);
    for (size_t i = 0; i < b->ndvs; i++)
        free(b->dvs[i].index_path);
    free(b->dvs);
    pm_index_manifest_entries_free(b->index_entries, b->nindex_entries);
    memset(b, 0, sizeof *b);
}

static pm_error *bucket_copy(pm_bucket_files *dst, const pm_bucket_files *src, bool dvs)
{
    memset(dst, 0, sizeof *dst);
    dst->bucket = src->bucket;
    dst->total_buckets = src->total_buckets;
    pm_error *e = pm_bytes_set(&dst->partition, src->partition.data, src->partition.len);
    if (!e && src->nfiles)
        e = pm_calloc(&dst->files, src->nfiles, sizeof *dst->files);
    for (size_t i = 0; !e && i < src->nfiles; i++) {
        e = pm_data_file_meta_copy(&dst->files[i], &src->files[i]);
        if (!e)
            dst->nfiles = i + 1;
    }
    if (!e && dvs && src->ndvs)
        e = pm_calloc(&dst->dvs, src->ndvs, sizeof *dst->dvs);
    for (size_t i = 0; !e && dvs && i < src->ndvs; i++) {
        const pm_deletion_file *d = &src->dvs[i];
        pm_deletion_file *c = &dst->dvs[i];
        *c = *d;
        c->index_path = NULL;
        c->data_file = NULL;
        for (size_t k = 0; k < src->nfiles; k++) /* re-point at the copy's file name */
            if (src->files[k].file_name == d->data_file)
                c->data_file = dst->files[k].file_name;
        if (!c->data_file)
            e = pm_error_new(PM_EINTERNAL, "deletion vector of a file the bucket does not hold");
        if (!e)
            e = pm_strdup(&c->index_path, d->index_path);
        if (!e)
            dst->ndvs = i + 1;
    }
    if (!e && src->nindex_entries)
        e = pm_calloc(&dst->index_entries, src->nindex_entries, sizeof *dst->index_entries);
    for (size_t i = 0; !e && i < src->nindex_entries; i++) {
        e = pm_index_manifest_entry_copy(&dst->index_entries[i], &src->index_entries[i]);
        if (!e)
            dst->nindex_entries = i + 1;
    }
    if (e)
        bucket_clear(dst);
    return e;
}

/* ---- splits ---- */

void pm_split_free(pm_split *s)
{
    if (!s)
        return;
    bucket_clear(&s->bf);
    free(s->table_path);
    free(s->branch);
    free(s->partition_text);
    free(s);
}

pm_error *pm_split_copy(pm_split **out, const pm_split *s)
{
    *out = NULL;
    pm_split *c;
    PM_TRY(pm_calloc(&c, 1, sizeof *c));
    c->fallback = s->fallback;
    c->incremental = s->incremental;
    c->snapshot_id = s->snapshot_id;
    c->schema_id = s->schema_id;
    pm_error *e = pm_strdup(&c->table_path, s->table_path);
    if (!e)
        e = pm_strdup(&c->branch, s->branch);
    if (!e)
        e = pm_strdup(&c->partition_text, s->partition_text);
    if (!e)
        e = bucket_copy(&c->bf, &s->bf, true);
    if (e) {
        pm_split_free(c);
        return e;
    }
    *out = c;
    return NULL;
}

const char *pm_split_partition(const pm_split *s) { return s->partition_text; }
int32_t pm_split_bucket(const pm_split *s) { return s->bf.bucket; }
const char *pm_split_branch(const pm_split *s) { return s->branch; }
int64_t pm_split_snapshot_id(const pm_split *s) { return s->snapshot_id; }

void pm_split_incremental(const pm_split *s, bool *incremental, pm_incremental_mode *mode)
{
    *incremental = s->incremental != 0;
    *mode = s->incremental ? (pm_incremental_mode)s->incremental : PM_INCREMENTAL_AUTO;
}
size_t pm_split_file_count(const pm_split *s) { return s->bf.nfiles; }

int64_t pm_split_row_count(const pm_split *s)
{
    int64_t n = 0;
    for (size_t i = 0; i < s->bf.nfiles; i++)
        n += s->bf.files[i].row_count;
    return n;
}

int64_t pm_split_file_bytes(const pm_split *s)
{
    int64_t n = 0;
    for (size_t i = 0; i < s->bf.nfiles; i++)
        n += s->bf.files[i].file_size;
    return n;
}

/* ---- scan ---- */

pm_error *pm_partition_filter_check(const char *text)
{
    pm_partition_spec spec;
    pm_error *e = pm_partition_spec_parse(text, &spec);
    pm_partition_spec_clear(&spec);
    return e;
}

static pm_error *partition_specs(const pm_read_options *o, pm_partition_spec **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!o->npartitions)
        return NULL;
    pm_partition_spec *specs;
    PM_TRY(pm_calloc(&specs, o->npartitions, sizeof *specs));
    for (size_t i = 0; i < o->npartitions; i++) {
        pm_error *e = o->partitions[i] ? pm_partition_spec_parse(o->partitions[i], &specs[i])
                                       : pm_error_new(PM_EINVALID, "partition filter %zu is NULL", i);
        if (e) {
            for (size_t k = 0; k < i; k++)
                pm_partition_spec_clear(&specs[k]);
            free(specs);
            return e;
        }
    }
    *out = specs;
    *n = o->npartitions;
    return NULL;
}

void pm_scan_free(pm_scan *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nsplits; i++)
        pm_split_free(s->splits[i]);
    free(s->splits);
    pm_scan_result_free(s->sr);
    free(s);
}

/* Move bucket i of the scan result into a new split. */
static pm_error *make_split(pm_scan *s, pm_table *t, size_t i, pm_split **out)
{
    pm_bucket_files *b = &s->sr->buckets[i];
    bool fb = s->sr->fallback && b->table == s->sr->fallback;
    pm_table *bt = fb ? s->sr->fallback : t;
    pm_split *sp;
    PM_TRY(pm_calloc(&sp, 1, sizeof *sp));
    sp->fallback = fb;
    sp->snapshot_id = fb ? (s->sr->fallback_snapshot ? s->sr->fallback_snapshot->id : 0) : s->snapshot_id;
    sp->schema_id = fb ? s->sr->fallback_schema->id : s->schema_id;
    pm_buf text = PM_BUF_INIT;
    pm_error *e = pm_strdup(&sp->table_path, t->path);
    if (!e)
        e = pm_strdup(&sp->branch, bt->branch);
    if (!e)
        e = pm_partition_display(bt, b->partition.data, b->partition.len, &text);
    if (!e)
        e = pm_buf_append_byte(&text, 0);
    if (!e)
        sp->partition_text = (char *)pm_buf_detach(&text, NULL);
    pm_buf_free(&text);
    if (e) {
        pm_split_free(sp);
        return e;
    }
    sp->bf = *b; /* move */
    sp->bf.table = NULL;
    memset(b, 0, sizeof *b);
    *out = sp;
    return NULL;
}

pm_error *pm_scan_new(pm_scan **out, pm_table *t, const pm_read_options *o)
{
    *out = NULL;
    pm_read_options defaults = PM_READ_OPTIONS_INIT;
    if (!o)
        o = &defaults;
    PM_TRY(check_options(o));
    pm_partition_spec *specs = NULL;
    size_t nspecs = 0;
    PM_TRY(partition_specs(o, &specs, &nspecs));
    pm_scan *s = NULL;
    pm_error *e = pm_calloc(&s, 1, sizeof *s);
    int incr = 0;
    if (!e && incremental(o)) {
        pm_incr_mode m = (pm_incr_mode)o->incremental_mode;
        e = pm_incr_mode_resolve(t, m, &m);
        incr = (int)m;
        if (!e)
            e = pm_incremental_scan(t, o->incremental_from, o->incremental_to, m, specs, nspecs, &s->sr);
    } else if (!e) {
        pm_scan_options so = pm_scan_options_default();
        so.snapshot_id = o->snapshot_id;
        so.partitions = specs;
        so.npartitions = nspecs;
        so.fallback_branch = !o->no_fallback_branch;
        e = pm_table_scan(t, &so, &s->sr);
    }
    if (!e) {
        s->snapshot_id = s->sr->snapshot ? s->sr->snapshot->id : 0;
        s->schema_id = (s->sr->schema ? s->sr->schema : pm_table_schema(t))->id;
        if (s->sr->nbuckets)
            e = pm_calloc(&s->splits, s->sr->nbuckets, sizeof *s->splits);
    }
    for (size_t i = 0; !e && s->sr && i < s->sr->nbuckets; i++) {
        e = make_split(s, t, i, &s->splits[i]);
        if (!e) {
            s->splits[i]->incremental = incr;
            s->nsplits = i + 1;
        }
    }
    for (size_t i = 0; i < nspecs; i++)
        pm_partition_spec_clear(&specs[i]);
    free(specs);
    if (e) {
        pm_scan_free(s);
        return e;
    }
    *out = s;
    return NULL;
}

int64_t pm_scan_snapshot_id(const pm_scan *s) { return s->snapshot_id; }
int64_t pm_scan_schema_id(const pm_scan *s) { return s->schema_id; }
size_t pm_scan_split_count(const pm_scan *s) { return s->nsplits; }
const pm_split *pm_scan_split(const pm_scan *s, size_t i) { return i < s->nsplits ? s->splits[i] : NULL; }

/* ---- reader ---- */

void pm_reader_free(pm_reader *r)
{
    if (!r)
        return;
    pm_table_reader_free(r->tr);
    pm_predicate_free(r->filter);
    pm_incr_reader_free(r->ir);
    pm_scan_result_free(r->sr);
    pm_batch_free(r->cut);
    free(r->last_error);
    free(r);
}

/* A split's bucket as the reader uses it: its external paths checked
 * against table t (splits may come from JSON), its deletion vectors
 * rebuilt from its index files as the scan builds them. */
static pm_error *resolve_split(pm_table *t, pm_bucket_files *b, const pm_split *s, size_t i)
{
    b->table = t;
    char field[160];
    for (size_t k = 0; k < b->nfiles; k++)
        if (b->files[k].external_path) {
            snprintf(field, sizeof field, "split %zu: files[%zu].external_path", i, k);
            PM_TRY(pm_table_check_external_path(t, s->schema_id, field, b->files[k].external_path));
        }
    for (size_t k = 0; k < b->nindex_entries; k++) {
        const pm_index_file_meta *f = &b->index_entries[k].index_file;
        if (f->external_path) {
            snprintf(field, sizeof field, "split %zu: index_files[%zu].external_path", i, k);
            PM_TRY(pm_table_check_index_external_path(t, s->schema_id, field, f->external_path));
        }
        snprintf(field, sizeof field, "split %zu: index file %s", i, f->file_name);
        PM_TRY(pm_bucket_files_add_dvs(t, b, f, field));
    }
    return NULL;
}

/* The private scan result of a reader: the splits' buckets (copied), the
 * read schemas, and the fallback branch when a split needs it. */
static pm_error *splits_to_scan(pm_table *t, const pm_split *const *splits, size_t n, pm_scan_result **out)
{
    *out = NULL;
    const pm_split *main = NULL, *fb = NULL;
    for (size_t i = 0; i < n; i++) {
        const pm_split *s = splits[i];
        if (!s)
            return pm_error_new(PM_EINVALID, "split %zu is NULL", i);
        if (strcmp(s->table_path, t->path))
            return pm_error_new(PM_EINVALID, "split %zu belongs to table %s, not %s", i, s->table_path, t->path);
        if ((s->incremental != 0) != (splits[0]->incremental != 0))
            return pm_error_new(PM_EINVALID, "split %zu is %san incremental split, split 0 is %s", i,
                                s->incremental ? "" : "not ", splits[0]->incremental ? "one" : "not");
        if (s->incremental && s->fallback)
            return pm_error_new(PM_EINVALID, "split %zu: an incremental split of a fallback branch", i);
        const pm_split **first = s->fallback ? &fb : &main;
        if (!s->fallback && strcmp(s->branch, t->branch))
            return pm_error_new(PM_EINVALID, "split %zu is of branch %s, the table is open on %s", i, s->branch,
                                t->branch);
        if (!*first)
            *first = s;
        else if ((*first)->schema_id != s->schema_id || strcmp((*first)->branch, s->branch))
            return pm_error_new(PM_EINVALID, "split %zu is of another scan (schema %lld, branch %s; the first "
                                "split has schema %lld, branch %s)", i, (long long)s->schema_id, s->branch,
                                (long long)(*first)->schema_id, (*first)->branch);
    }
    pm_scan_result *sr;
    PM_TRY(pm_calloc(&sr, 1, sizeof *sr));
    pm_error *e = NULL;
    const pm_schema *schema = NULL;
    /* incremental splits are read in the table's current schema */
    bool incr = n && splits[0]->incremental;
    e = pm_table_schema_by_id(t, main && !incr ? main->schema_id : t->schema->id, &schema);
    sr->schema = schema;
    if (!e && fb) {
        e = pm_table_open(&sr->fallback, t->path, fb->branch);
        if (!e)
            e = pm_table_schema_by_id(sr->fallback, fb->schema_id, &sr->fallback_schema);
    }
    if (!e && n)
        e = pm_calloc(&sr->buckets, n, sizeof *sr->buckets);
    for (size_t i = 0; !e && i < n; i++) {
        e = bucket_copy(&sr->buckets[i], &splits[i]->bf, false);
        if (!e) {
            sr->nbuckets = i + 1;
            e = resolve_split(splits[i]->fallback ? sr->fallback : t, &sr->buckets[i], splits[i], i);
        }
    }
    if (e) {
        pm_scan_result_free(sr);
        return e;
    }
    *out = sr;
    return NULL;
}

pm_error *pm_reader_new(pm_reader **out, pm_table *t, const pm_split *const *splits, size_t nsplits,
                        const pm_read_options *o)
{
    *out = NULL;
    pm_read_options defaults = PM_READ_OPTIONS_INIT;
    if (!o)
        o = &defaults;
    PM_TRY(check_options(o));
    if (nsplits && !splits)
        return pm_error_new(PM_EINVALID, "nsplits is %zu but splits is NULL", nsplits);
    pm_reader *r;
    PM_TRY(pm_calloc(&r, 1, sizeof *r));
    r->limit = o->limit;
    pm_error *e = splits_to_scan(t, splits, nsplits, &r->sr);
    const char *filter = o->version >= 2 ? o->filter : NULL;
    bool incr = nsplits && splits[0]->incremental;
    if (!e && filter && incr)
        e = pm_error_new(PM_EUNSUPPORTED, "a filter on an incremental read (its records are not merged rows)");
    if (!e && filter)
        e = pm_predicate_parse(&r->filter, filter, r->sr->schema ? r->sr->schema->row_type : t->schema->row_type);
    if (!e && incr) {
        e = pm_incr_reader_new(&r->ir, t, r->sr, o->columns, o->ncolumns, o->batch_rows);
    } else if (!e) {
        pm_table_read_options ro = {o->columns, o->ncolumns, o->batch_rows, r->filter};
        e = pm_table_reader_new(&r->tr, t, r->sr, &ro);
    }
    if (e) {
        pm_reader_free(r);
        return pm_error_wrap(e, 0, "read table %s", t->path);
    }
    if (o->threads > 1 && r->tr)
        pm_table_reader_set_threads(r->tr, o->threads);
    *out = r;
    return NULL;
}

pm_error *pm_table_read(pm_reader **out, pm_table *t, const pm_read_options *o)
{
    *out = NULL;
    pm_scan *s = NULL;
    PM_TRY(pm_scan_new(&s, t, o));
    pm_error *e = NULL;
    if (!s->nsplits && o && incremental(o)) {
        /* an empty range still has the incremental row type */
        pm_reader *r = NULL;
        e = pm_calloc(&r, 1, sizeof *r);
        if (!e) {
            r->limit = o->limit;
            e = pm_calloc(&r->sr, 1, sizeof *r->sr);
        }
        if (!e) {
            r->sr->schema = pm_table_schema(t);
            e = pm_incr_reader_new(&r->ir, t, r->sr, o->columns, o->ncolumns, o->batch_rows);
        }
        if (e)
            pm_reader_free(r);
        else
            *out = r;
    } else {
        e = pm_reader_new(out, t, (const pm_split *const *)s->splits, s->nsplits, o);
    }
    pm_scan_free(s);
    return e;
}

const pm_type *pm_reader_type(const pm_reader *r)
{
    return r->ir ? pm_incr_reader_type(r->ir) : pm_table_reader_type(r->tr);
}

size_t pm_reader_files_skipped(const pm_reader *r) { return r->tr ? pm_table_reader_files_skipped(r->tr) : 0; }

/* The first `rows` rows of b as the reader's cut batch. */
static pm_error *cut_batch(pm_reader *r, const pm_batch *b, int64_t rows)
{
    if (!r->cut)
        PM_TRY(pm_batch_new(&r->cut, b->type));
    PM_TRY(pm_batch_reset(r->cut));
    for (size_t i = 0; i < b->ncolumns; i++)
        for (int64_t k = 0; k < rows; k++)
            PM_TRY(pm_column_append_from(r->cut->columns[i], b->columns[i], k));
    return pm_batch_finish(r->cut, rows);
}

pm_error *pm_reader_next(const pm_batch **out, pm_reader *r)
{
    *out = NULL;
    if (r->limit >= 0 && r->done >= r->limit)
        return NULL;
    const pm_batch *b = NULL;
    PM_TRY(r->ir ? pm_incr_reader_next(r->ir, &b) : pm_table_reader_next(r->tr, &b));
    if (!b)
        return NULL;
    int64_t rows = b->num_rows;
    if (r->limit >= 0 && rows > r->limit - r->done) {
        rows = r->limit - r->done;
        PM_TRY(cut_batch(r, b, rows));
        b = r->cut;
    }
    r->done += rows;
    *out = b;
    return NULL;
}

/* ---- Arrow C stream ---- */

static pm_reader *stream_reader(struct ArrowArrayStream *s) { return s->private_data; }

static int stream_fail(pm_reader *r, pm_error *e)
{
    free(r->last_error);
    r->last_error = pm_error_format(e);
    int rc = pm_error_code(e) == PM_ENOMEM ? 12 /* ENOMEM */ : 5 /* EIO */;
    if (pm_error_code(e) == PM_EINVALID)
        rc = 22; /* EINVAL */
    pm_error_free(e);
    return rc;
}

static int stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    pm_reader *r = stream_reader(s);
    pm_error *e = pm_type_export_schema(pm_reader_type(r), out);
    return e ? stream_fail(r, e) : 0;
}

static int stream_get_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    pm_reader *r = stream_reader(s);
    memset(out, 0, sizeof *out);
    const pm_batch *b = NULL;
    pm_error *e = pm_reader_next(&b, r);
    if (e)
        return stream_fail(r, e);
    if (!b)
        return 0; /* out->release == NULL: the end */
    struct ArrowSchema schema;
    e = pm_batch_export(b, &schema, out);
    if (e)
        return stream_fail(r, e);
    schema.release(&schema);
    return 0;
}

static const char *stream_last_error(struct ArrowArrayStream *s)
{
    pm_reader *r = stream_reader(s);
    return r ? r->last_error : NULL;
}

static void stream_release(struct ArrowArrayStream *s)
{
    pm_reader_free(stream_reader(s));
    s->private_data = NULL;
    s->release = NULL;
}

pm_error *pm_reader_to_arrow_stream(struct ArrowArrayStream *out, pm_reader *r)
{
    if (!out) {
        pm_reader_free(r);
        return pm_error_new(PM_EINVALID, "no stream to fill");
    }
    memset(out, 0, sizeof *out);
    if (!r)
        return pm_error_new(PM_EINVALID, "no reader");
    out->get_schema = stream_get_schema;
    out->get_next = stream_get_next;
    out->get_last_error = stream_last_error;
    out->release = stream_release;
    out->private_data = r;
    return NULL;
}
