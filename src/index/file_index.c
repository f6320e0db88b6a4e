/*
 * index/file_index.c — the file-index container and its options
 * (contract in file_index.h).
 *
 * Options parse (FileIndexOptions + DataFileIndexWriter): the table
 * options are walked in the order Java's option map iterates them; each
 * `file-index.<type>.columns` adds its columns (Column keys) and their
 * types; then the per-column options are applied.  The container order
 * is computed by replaying the maps Java fills: indexTypeOptions
 * (Column → type), indexMaintainers (type → column) and the serialized
 * map (column → type), each iterated in HashMap order (fi_java.h).
 * Writer: one state per spec fed with its column; finish serializes every
 * spec, lays the bodies out in spec order and writes the head.
 * Reader: the head is parsed and every entry checked against the bytes;
 * may_match tests each atom with the indexes of its column and ANDs the
 * results (FileIndexPredicate).
 */
#include "index/file_index.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "index/fi_internal.h"
#include "index/fi_java.h"

static const fi_ops *const OPS[] = {&pm_fi_bloom_ops, &pm_fi_bitmap_ops, &pm_fi_bsi_ops, &pm_fi_range_ops};

const char *pm_fi_kind_name(pm_fi_kind k) { return OPS[k]->name; }

static bool kind_by_name(const char *s, size_t n, pm_fi_kind *out)
{
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (strlen(OPS[i]->name) == n && !memcmp(OPS[i]->name, s, n)) {
            *out = (pm_fi_kind)i;
            return true;
        }
    return false;
}

/* ------------------------------------------------------------------ */
/* options                                                             */

#define PREFIX "file-index."
#define SUFFIX ".columns"

void pm_fi_options_clear(pm_fi_options *o)
{
    for (size_t i = 0; i < o->nspecs; i++)
        free(o->specs[i].column);
    free(o->specs);
    free(o->head);
    memset(o, 0, sizeof *o);
}

/* A list of distinct strings in insertion order with Java hashes. */
typedef struct slist {
    char **s;
    int32_t *h;
    size_t n, cap;
} slist;

static void slist_free(slist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->s[i]);
    free(l->s);
    free(l->h);
    memset(l, 0, sizeof *l);
}

static ptrdiff_t slist_find(const slist *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->s[i], s))
            return (ptrdiff_t)i;
    return -1;
}

/* Add s if absent; *idx = its position. */
static pm_error *slist_add(slist *l, const char *s, int32_t hash, size_t *idx)
{
    ptrdiff_t k = slist_find(l, s);
    if (k >= 0) {
        *idx = (size_t)k;
        return NULL;
    }
    if (l->n == l->cap) {
        size_t c = l->cap ? l->cap * 2 : 8;
        PM_TRY(pm_realloc_array(&l->s, c, sizeof *l->s));
        PM_TRY(pm_realloc_array(&l->h, c, sizeof *l->h));
        l->cap = c;
    }
    PM_TRY(pm_strdup(&l->s[l->n], s));
    l->h[l->n] = hash;
    *idx = l->n++;
    return NULL;
}

static int32_t str_hash(const char *s) { return pm_java_string_hash((const uint8_t *)s, strlen(s)); }

/* The order Java iterates l in, filled by put() or by computeIfAbsent()
 * (head): order[k] = index. */
static pm_error *slist_order(const slist *l, bool head, size_t **order)
{
    PM_TRY(pm_calloc(order, l->n ? l->n : 1, sizeof **order));
    pm_error *e = pm_java_hashmap_order(l->h, l->n, head, *order);
    if (e) {
        free(*order);
        *order = NULL;
    }
    return e;
}

/* Column → its index types, in insertion order. */
typedef struct col_types {
    slist types;
} col_types;

typedef struct order_state {
    slist cols;          /* indexTypeOptions keys (Column hashes) */
    col_types *ct;       /* per cols entry */
    size_t ctcap;
} order_state;

static void order_state_free(order_state *s)
{
    for (size_t i = 0; i < s->cols.n; i++)
        slist_free(&s->ct[i].types);
    free(s->ct);
    slist_free(&s->cols);
}

/* Arrays.hashCode(new Object[] {name, null, false}) of a Column key. */
static int32_t column_key_hash(const char *name)
{
    uint32_t h = 1;
    h = 31 * h + (uint32_t)str_hash(name);
    h = 31 * h + 0;
    h = 31 * h + 1237;
    return (int32_t)h;
}

static pm_error *add_column_type(order_state *s, const char *column, const char *type)
{
    size_t ci;
    size_t before = s->cols.n;
    PM_TRY(slist_add(&s->cols, column, column_key_hash(column), &ci));
    if (s->cols.n != before) {
        if (s->cols.n > s->ctcap) {
            size_t c = s->ctcap ? s->ctcap * 2 : 8;
            PM_TRY(pm_realloc_array(&s->ct, c, sizeof *s->ct));
            memset(s->ct + s->ctcap, 0, (c - s->ctcap) * sizeof *s->ct);
            s->ctcap = c;
        }
    }
    size_t ti;
    return slist_add(&s->ct[ci].types, type, str_hash(type), &ti);
}

static pm_error *spec_default(pm_fi_spec *sp, const char *column, pm_fi_kind kind)
{
    memset(sp, 0, sizeof *sp);
    sp->kind = kind;
    sp->bloom_items = 1000000;
    sp->bloom_fpp = 0.1;
    sp->bitmap_version = 2;
    sp->bitmap_block_size = 16 * 1024;
    return pm_strdup(&sp->column, column);
}

/* Java's String.trim: drop chars <= ' ' at both ends. */
static void trim_span(const char **s, size_t *n)
{
    while (*n && (unsigned char)(*s)[0] <= ' ') {
        (*s)++;
        (*n)--;
    }
    while (*n && (unsigned char)(*s)[*n - 1] <= ' ')
        (*n)--;
}

/* Columns of one `.columns` option value (String.split(","): trailing
 * empty parts dropped; an empty or blank part is an error). */
static pm_error *add_columns(order_state *st, const char *key, const char *type, const char *value)
{
    size_t len = strlen(value);
    while (len && value[len - 1] == ',')
        len--; /* split drops trailing empty strings */
    const char *p = value, *end = value + len;
    if (len == 0)
        return pm_error_new(PM_EINVALID, "Wrong option in %s, should not have empty column", key);
    while (p <= end) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        if (!comma)
            comma = end;
        const char *s = p;
        size_t n = (size_t)(comma - p);
        trim_span(&s, &n);
        if (!n)
            return pm_error_new(PM_EINVALID, "Wrong option in %s, should not have empty column", key);
        char *name;
        PM_TRY(pm_strndup(&name, s, n));
        pm_error *e = NULL;
        if (strchr(name, '[') && name[n - 1] == ']')
            e = pm_error_new(PM_EUNSUPPORTED, "%s: file indexes on map entries (%s) are not supported", key, name);
        if (!e)
            e = add_column_type(st, name, type);
        free(name);
        PM_TRY(e);
        p = comma + 1;
    }
    return NULL;
}

static pm_error *set_spec_option(pm_fi_spec *sp, const char *key, const char *opt, const char *value)
{
    pm_error *e = NULL;
    if (sp->kind == PM_FI_BLOOM && !strcmp(opt, "items")) {
        e = pm_parse_int32(value, &sp->bloom_items);
        if (!e && sp->bloom_items <= 0)
            e = pm_error_new(PM_EINVALID, "must be positive");
    } else if (sp->kind == PM_FI_BLOOM && !strcmp(opt, "fpp")) {
        e = pm_parse_double(value, &sp->bloom_fpp);
        if (!e && !(sp->bloom_fpp > 0 && sp->bloom_fpp < 1))
            e = pm_error_new(PM_EINVALID, "must be between 0 and 1");
    } else if (sp->kind == PM_FI_BITMAP && !strcmp(opt, "version")) {
        e = pm_parse_int32(value, &sp->bitmap_version);
        if (!e && sp->bitmap_version != 1 && sp->bitmap_version != 2)
            e = pm_error_new(PM_EINVALID, "bitmap index version 1 or 2");
    } else if (sp->kind == PM_FI_BITMAP && !strcmp(opt, "index-block-size")) {
        e = pm_parse_memory_size(value, &sp->bitmap_block_size);
        if (!e && (sp->bitmap_block_size <= 0 || sp->bitmap_block_size > INT32_MAX))
            e = pm_error_new(PM_EINVALID, "must be between 1 byte and 2 GiB");
    } else if (sp->kind == PM_FI_RANGE_BITMAP && !strcmp(opt, "chunk-size")) {
        e = pm_parse_memory_size(value, &sp->chunk_size);
        if (!e && (sp->chunk_size < 0 || sp->chunk_size > INT32_MAX))
            e = pm_error_new(PM_EINVALID, "must be between 0 bytes and 2 GiB");
        sp->has_chunk_size = true;
    } else {
        return pm_error_new(PM_EINVALID, "unknown file index option '%s' (%s index options: %s)", key,
                            pm_fi_kind_name(sp->kind),
                            sp->kind == PM_FI_BLOOM    ? "items, fpp"
                            : sp->kind == PM_FI_BITMAP ? "version, index-block-size"
                            : sp->kind == PM_FI_BSI    ? "none"
                                                       : "chunk-size");
    }
    return pm_error_wrap(e, PM_EINVALID, "option '%s' has invalid value '%s'", key, value);
}

/* The container order by replaying Java's maps (see top). */
static pm_error *spec_order(order_state *st, pm_fi_options *out)
{
    pm_error *e = NULL;
    size_t *co = NULL;
    slist types = {0};        /* indexMaintainers keys */
    slist *tcols = NULL;      /* per type: its columns (insertion order) */
    size_t tcap = 0;
    slist fcols = {0};        /* serialized map keys */
    slist *ftypes = NULL;
    size_t fcap = 0;
    size_t *to = NULL, *fo = NULL;
    /* indexTypeOptions: Column → (type → options), both computeIfAbsent */
    PM_TRY_GOTO(e, slist_order(&st->cols, true, &co), done);
    for (size_t k = 0; k < st->cols.n; k++) {
        size_t c = co[k];
        size_t *tyo = NULL;
        PM_TRY_GOTO(e, slist_order(&st->ct[c].types, true, &tyo), done);
        for (size_t j = 0; j < st->ct[c].types.n && !e; j++) {
            const char *ty = st->ct[c].types.s[tyo[j]];
            size_t ti, before = types.n;
            e = slist_add(&types, ty, str_hash(ty), &ti);
            if (!e && types.n != before && types.n > tcap) {
                size_t cap = tcap ? tcap * 2 : 4;
                e = pm_realloc_array(&tcols, cap, sizeof *tcols);
                if (!e) {
                    memset(tcols + tcap, 0, (cap - tcap) * sizeof *tcols);
                    tcap = cap;
                }
            }
            size_t dummy;
            if (!e)
                e = slist_add(&tcols[ti], st->cols.s[c], str_hash(st->cols.s[c]), &dummy);
        }
        free(tyo);
        if (e)
            goto done;
    }
    /* indexMaintainers: type (computeIfAbsent) → column (put) */
    PM_TRY_GOTO(e, slist_order(&types, true, &to), done);
    for (size_t k = 0; k < types.n; k++) {
        size_t t = to[k];
        size_t *cko = NULL;
        PM_TRY_GOTO(e, slist_order(&tcols[t], false, &cko), done);
        for (size_t j = 0; j < tcols[t].n && !e; j++) {
            const char *col = tcols[t].s[cko[j]];
            size_t fi, before = fcols.n;
            e = slist_add(&fcols, col, str_hash(col), &fi);
            if (!e && fcols.n != before && fcols.n > fcap) {
                size_t cap = fcap ? fcap * 2 : 8;
                e = pm_realloc_array(&ftypes, cap, sizeof *ftypes);
                if (!e) {
                    memset(ftypes + fcap, 0, (cap - fcap) * sizeof *ftypes);
                    fcap = cap;
                }
            }
            size_t dummy;
            if (!e)
                e = slist_add(&ftypes[fi], types.s[t], str_hash(types.s[t]), &dummy);
        }
        free(cko);
        if (e)
            goto done;
    }
    /* the serialized map: column (computeIfAbsent) → type (put); the body
     * follows it, the head re-inserts the columns in that order with
     * computeIfAbsent (FileIndexFormat's bodyInfo) */
    PM_TRY_GOTO(e, slist_order(&fcols, true, &fo), done);
    size_t total = 0;
    for (size_t i = 0; i < fcols.n; i++)
        total += ftypes[i].n;
    PM_TRY_GOTO(e, pm_calloc(&out->specs, total ? total : 1, sizeof *out->specs), done);
    PM_TRY_GOTO(e, pm_calloc(&out->head, fcols.n ? fcols.n : 1, sizeof *out->head), done);
    {
        slist body = {0};
        for (size_t k = 0; k < fcols.n && !e; k++) {
            size_t dummy;
            e = slist_add(&body, fcols.s[fo[k]], fcols.h[fo[k]], &dummy);
        }
        size_t *ho = NULL;
        if (!e)
            e = slist_order(&body, true, &ho);
        for (size_t k = 0; !e && k < fcols.n; k++)
            out->head[k] = ho[k]; /* the body's column groups, for now by group number */
        out->ncolumns = fcols.n;
        free(ho);
        slist_free(&body);
        if (e)
            goto done;
    }
    for (size_t k = 0; k < fcols.n; k++) {
        size_t c = fo[k];
        size_t *fto = NULL;
        PM_TRY_GOTO(e, slist_order(&ftypes[c], false, &fto), done);
        for (size_t j = 0; j < ftypes[c].n && !e; j++) {
            pm_fi_kind kind = PM_FI_BLOOM;
            const char *ty = ftypes[c].s[fto[j]];
            kind_by_name(ty, strlen(ty), &kind);
            e = spec_default(&out->specs[out->nspecs], fcols.s[c], kind);
            if (!e)
                out->nspecs++;
        }
        free(fto);
        if (e)
            goto done;
    }
done:
    free(co);
    free(to);
    free(fo);
    for (size_t i = 0; i < types.n; i++)
        slist_free(&tcols[i]);
    free(tcols);
    for (size_t i = 0; i < fcols.n; i++)
        slist_free(&ftypes[i]);
    free(ftypes);
    slist_free(&types);
    slist_free(&fcols);
    return e;
}

static pm_fi_spec *find_spec(pm_fi_options *o, const char *column, pm_fi_kind kind)
{
    for (size_t i = 0; i < o->nspecs; i++)
        if (o->specs[i].kind == kind && !strcmp(o->specs[i].column, column))
            return &o->specs[i];
    return NULL;
}

pm_error *pm_fi_options_parse(const pm_options *o, pm_fi_options *out)
{
    memset(out, 0, sizeof *out);
    PM_TRY(pm_options_memory(o, PM_OPT_FILE_INDEX_IN_MANIFEST_THRESHOLD, NULL, &out->in_manifest_threshold));
    PM_TRY(pm_options_bool(o, PM_OPT_FILE_INDEX_READ_ENABLED, &out->read_enabled));
    size_t nopt = pm_options_count(o);
    int32_t *hashes = NULL;
    size_t *order = NULL;
    order_state st = {0};
    pm_error *e = pm_calloc(&hashes, nopt ? nopt : 1, sizeof *hashes);
    if (!e)
        e = pm_calloc(&order, nopt ? nopt : 1, sizeof *order);
    for (size_t i = 0; !e && i < nopt; i++)
        hashes[i] = str_hash(pm_options_key_at(o, i));
    if (!e)
        e = pm_java_hashmap_order(hashes, nopt, false, order); /* Options.setString: put */
    /* 1. the columns to index */
    for (size_t k = 0; !e && k < nopt; k++) {
        const char *key = pm_options_key_at(o, order[k]);
        size_t n = strlen(key);
        if (strncmp(key, PREFIX, strlen(PREFIX)) || n < strlen(PREFIX) + strlen(SUFFIX) ||
            strcmp(key + n - strlen(SUFFIX), SUFFIX))
            continue;
        const char *type = key + strlen(PREFIX);
        size_t tn = n - strlen(PREFIX) - strlen(SUFFIX);
        pm_fi_kind kind;
        if (!kind_by_name(type, tn, &kind)) {
            e = pm_error_new(PM_EUNSUPPORTED, "file index type '%.*s' (option %s) is not supported (bloom-filter, "
                             "bitmap, bsi, range-bitmap)", (int)tn, type, key);
            break;
        }
        e = add_columns(&st, key, pm_fi_kind_name(kind), pm_options_get(o, key));
    }
    if (!e)
        e = spec_order(&st, out);
    /* 2. the options of each (type, column) */
    for (size_t k = 0; !e && k < nopt; k++) {
        const char *key = pm_options_key_at(o, order[k]);
        size_t n = strlen(key);
        if (strncmp(key, PREFIX, strlen(PREFIX)) ||
            (n >= strlen(PREFIX) + strlen(SUFFIX) && !strcmp(key + n - strlen(SUFFIX), SUFFIX)))
            continue;
        if (!strcmp(key, "file-index.in-manifest-threshold") || !strcmp(key, "file-index.read.enabled"))
            continue;
        const char *rest = key + strlen(PREFIX);
        const char *d1 = strchr(rest, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
        if (!d1 || !d2 || strchr(d2 + 1, '.') || d1 == rest || d2 == d1 + 1 || !d2[1])
            continue; /* not <type>.<column>.<option>: Java's FileIndexOptions ignores it too */
        pm_fi_kind kind;
        char *col = NULL;
        pm_fi_spec *sp = NULL;
        if (kind_by_name(rest, (size_t)(d1 - rest), &kind) && !(e = pm_strndup(&col, d1 + 1, (size_t)(d2 - d1 - 1))))
            sp = find_spec(out, col, kind);
        if (!e && !sp)
            e = pm_error_new(PM_EINVALID, "Wrong option in \"%s\", can't found column \"%.*s\" in \"file-index.%.*s"
                             ".columns\"", key, (int)(d2 - d1 - 1), d1 + 1, (int)(d1 - rest), rest);
        free(col);
        if (!e)
            e = set_spec_option(sp, key, d2 + 1, pm_options_get(o, key));
    }
    order_state_free(&st);
    free(hashes);
    free(order);
    if (e)
        pm_fi_options_clear(out);
    return e;
}

pm_error *pm_fi_options_check(const pm_fi_options *o, const pm_type *row_type)
{
    for (size_t i = 0; i < o->nspecs; i++) {
        const pm_fi_spec *sp = &o->specs[i];
        ptrdiff_t k = pm_type_field_index(row_type, sp->column);
        if (k < 0)
            return pm_error_new(PM_EINVALID, "file index column %s does not exist in column fields "
                                "(file-index.%s.columns)", sp->column, pm_fi_kind_name(sp->kind));
        PM_TRY(pm_error_wrap(OPS[sp->kind]->check(row_type->fields[k].type, sp), 0, "%s index on column '%s'",
                             pm_fi_kind_name(sp->kind), sp->column));
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* writer                                                              */

struct pm_fi_writer {
    const pm_fi_options *o;
    const pm_type *row_type;
    size_t *col;             /* per spec: its column in row_type */
    void **st;               /* per spec: the index type's state */
    pm_buf *bodies;          /* per spec, at finish */
};

static void writer_states_free(pm_fi_writer *w)
{
    for (size_t i = 0; w->st && i < w->o->nspecs; i++) {
        if (w->st[i])
            OPS[w->o->specs[i].kind]->writer_free(w->st[i]);
        w->st[i] = NULL;
    }
}

static pm_error *writer_states_new(pm_fi_writer *w)
{
    for (size_t i = 0; i < w->o->nspecs; i++) {
        const pm_fi_spec *sp = &w->o->specs[i];
        PM_TRY(OPS[sp->kind]->writer_new(&w->st[i], w->row_type->fields[w->col[i]].type, sp));
    }
    return NULL;
}

void pm_fi_writer_free(pm_fi_writer *w)
{
    if (!w)
        return;
    writer_states_free(w);
    for (size_t i = 0; w->bodies && i < w->o->nspecs; i++)
        pm_buf_free(&w->bodies[i]);
    free(w->bodies);
    free(w->st);
    free(w->col);
    free(w);
}

pm_error *pm_fi_writer_new(pm_fi_writer **out, const pm_fi_options *o, const pm_type *row_type)
{
    *out = NULL;
    PM_TRY(pm_fi_options_check(o, row_type));
    pm_fi_writer *w;
    PM_TRY(pm_calloc(&w, 1, sizeof *w));
    w->o = o;
    w->row_type = row_type;
    size_t n = o->nspecs ? o->nspecs : 1;
    pm_error *e = pm_calloc(&w->col, n, sizeof *w->col);
    if (!e)
        e = pm_calloc(&w->st, n, sizeof *w->st);
    if (!e)
        e = pm_calloc(&w->bodies, n, sizeof *w->bodies);
    for (size_t i = 0; !e && i < o->nspecs; i++)
        w->col[i] = (size_t)pm_type_field_index(row_type, o->specs[i].column);
    if (!e)
        e = writer_states_new(w);
    if (e) {
        pm_fi_writer_free(w);
        return e;
    }
    *out = w;
    return NULL;
}

pm_error *pm_fi_writer_add(pm_fi_writer *w, pm_column *const *cols, int64_t from, int64_t to)
{
    for (size_t i = 0; i < w->o->nspecs; i++)
        PM_TRY(pm_error_wrap(OPS[w->o->specs[i].kind]->add(w->st[i], cols[w->col[i]], from, to), 0,
                             "%s index of column '%s'", pm_fi_kind_name(w->o->specs[i].kind),
                             w->o->specs[i].column));
    return NULL;
}

/* The spec range [first, first + count) of body column group g. */
static void group_range(const pm_fi_options *o, size_t g, size_t *first, size_t *count)
{
    size_t i = 0, k = 0;
    while (i < o->nspecs) {
        size_t n = 1;
        while (i + n < o->nspecs && !strcmp(o->specs[i + n].column, o->specs[i].column))
            n++;
        if (k == g) {
            *first = i;
            *count = n;
            return;
        }
        k++;
        i += n;
    }
    *first = *count = 0;
}

pm_error *pm_fi_writer_finish(pm_fi_writer *w, pm_buf *out)
{
    const pm_fi_options *o = w->o;
    /* bodies in spec order (the body order), then the head in head order */
    uint64_t head = 8 + 4 + 4 + 4 + 4;
    for (size_t i = 0; i < o->nspecs; i++) {
        pm_buf_clear(&w->bodies[i]);
        PM_TRY(pm_error_wrap(OPS[o->specs[i].kind]->finish(w->st[i], &w->bodies[i]), 0, "%s index of column '%s'",
                             pm_fi_kind_name(o->specs[i].kind), o->specs[i].column));
        if (i == 0 || strcmp(o->specs[i - 1].column, o->specs[i].column))
            head += pm_java_utf_size(o->specs[i].column) + 4;
        head += pm_java_utf_size(pm_fi_kind_name(o->specs[i].kind)) + 8;
    }
    uint64_t total = head;
    for (size_t i = 0; i < o->nspecs; i++)
        total += w->bodies[i].len;
    if (total > INT32_MAX)
        return pm_error_new(PM_EINVALID, "file index of %llu bytes exceeds 2 GiB", (unsigned long long)total);
    uint64_t *start;
    PM_TRY(pm_calloc(&start, o->nspecs ? o->nspecs : 1, sizeof *start));
    uint64_t pos = head;
    for (size_t i = 0; i < o->nspecs; i++) {
        start[i] = pos;
        pos += w->bodies[i].len;
    }
    uint8_t b8[8];
    pm_store_u64be(b8, (uint64_t)PM_FI_MAGIC);
    pm_error *e = pm_buf_append(out, b8, 8);
    if (!e)
        e = pm_buf_append_u32be(out, 1);
    if (!e)
        e = pm_buf_append_u32be(out, (uint32_t)head);
    if (!e)
        e = pm_buf_append_u32be(out, (uint32_t)o->ncolumns);
    for (size_t k = 0; !e && k < o->ncolumns; k++) {
        size_t first, count;
        group_range(o, o->head[k], &first, &count);
        e = pm_java_write_utf(out, o->specs[first].column);
        if (!e)
            e = pm_buf_append_u32be(out, (uint32_t)count);
        for (size_t i = first; !e && i < first + count; i++) {
            e = pm_java_write_utf(out, pm_fi_kind_name(o->specs[i].kind));
            if (!e)
                e = pm_buf_append_u32be(out, (uint32_t)start[i]);
            if (!e)
                e = pm_buf_append_u32be(out, (uint32_t)w->bodies[i].len);
        }
    }
    free(start);
    if (!e)
        e = pm_buf_append_u32be(out, 0); /* redundant length */
    for (size_t i = 0; !e && i < o->nspecs; i++)
        if (w->bodies[i].len)
            e = pm_buf_append(out, w->bodies[i].data, w->bodies[i].len);
    PM_TRY(e);
    /* start over for the next file */
    writer_states_free(w);
    return writer_states_new(w);
}

/* ------------------------------------------------------------------ */
/* reader                                                              */

void pm_fi_file_clear(pm_fi_file *f)
{
    for (size_t i = 0; i < f->nentries; i++) {
        free(f->entries[i].column);
        free(f->entries[i].type);
    }
    free(f->entries);
    memset(f, 0, sizeof *f);
}

static pm_error *read_utf(pm_cursor *c, char **out, const char *what)
{
    size_t used;
    PM_TRY(pm_error_wrap(pm_java_read_utf(c->p, pm_cursor_left(c), out, &used), PM_ECORRUPT, "file index %s", what));
    c->p += used;
    return NULL;
}

static pm_error *parse_head(pm_cursor *c, size_t total, pm_fi_file *f)
{
    uint32_t ncols;
    PM_TRY(pm_cursor_u32be(c, &ncols, "file index column count"));
    if (ncols > pm_cursor_left(c) / 6)
        return pm_error_new(PM_ECORRUPT, "file index: %u columns do not fit the head", ncols);
    size_t cap = 0;
    for (uint32_t i = 0; i < ncols; i++) {
        char *col = NULL;
        PM_TRY(read_utf(c, &col, "column name"));
        uint32_t nidx;
        pm_error *e = pm_cursor_u32be(c, &nidx, "file index index count");
        if (!e && nidx > pm_cursor_left(c) / 10)
            e = pm_error_new(PM_ECORRUPT, "file index: column %s has %u indexes that do not fit the head", col, nidx);
        for (uint32_t k = 0; !e && k < nidx; k++) {
            if (f->nentries == cap) {
                size_t nc = cap ? cap * 2 : 8;
                e = pm_realloc_array(&f->entries, nc, sizeof *f->entries);
                if (e)
                    break;
                cap = nc;
            }
            pm_fi_entry *en = &f->entries[f->nentries];
            memset(en, 0, sizeof *en);
            e = read_utf(c, &en->type, "index type");
            uint32_t start = 0, len = 0;
            if (!e)
                e = pm_cursor_u32be(c, &start, "file index start");
            if (!e)
                e = pm_cursor_u32be(c, &len, "file index length");
            if (!e && ((uint64_t)start + len > total || start > INT32_MAX || len > INT32_MAX))
                e = pm_error_new(PM_ECORRUPT, "file index: %s index of column %s at %u+%u passes the end (%zu bytes)",
                                 en->type, col, start, len, total);
            if (!e)
                e = pm_strdup(&en->column, col);
            if (e) {
                free(en->type);
                break;
            }
            en->start = start;
            en->length = len;
            f->nentries++;
        }
        free(col);
        PM_TRY(e);
    }
    uint32_t redundant;
    PM_TRY(pm_cursor_u32be(c, &redundant, "file index redundant length"));
    return NULL;
}

pm_error *pm_fi_file_parse(const uint8_t *p, size_t n, pm_fi_file *out)
{
    memset(out, 0, sizeof *out);
    pm_cursor c = pm_cursor_make(p, n);
    uint64_t magic;
    uint32_t version, head;
    PM_TRY(pm_cursor_u64be(&c, &magic, "file index magic"));
    if ((int64_t)magic != PM_FI_MAGIC)
        return pm_error_new(PM_ECORRUPT, "not a file index (bad magic)");
    PM_TRY(pm_cursor_u32be(&c, &version, "file index version"));
    if (version != 1)
        return pm_error_new(PM_EUNSUPPORTED, "file index version %u (paimon-c reads version 1)", version);
    PM_TRY(pm_cursor_u32be(&c, &head, "file index head length"));
    if (head < 16 || head > n)
        return pm_error_new(PM_ECORRUPT, "file index head length %u outside the %zu bytes", head, n);
    pm_cursor hc = pm_cursor_make(p + 16, head - 16);
    out->data = p;
    out->len = n;
    pm_error *e = parse_head(&hc, n, out);
    if (e)
        pm_fi_file_clear(out);
    return e;
}

pm_error *pm_fi_file_may_match(const pm_fi_file *f, const pm_fi_atom *atoms, size_t n, bool *may)
{
    *may = true;
    fi_result all = {FI_REMAIN, NULL};
    pm_error *e = NULL;
    for (size_t a = 0; a < n && !e && all.kind != FI_SKIP; a++) {
        for (size_t i = 0; i < f->nentries && !e; i++) {
            const pm_fi_entry *en = &f->entries[i];
            if (strcmp(en->column, atoms[a].column))
                continue;
            pm_fi_kind kind;
            if (!kind_by_name(en->type, strlen(en->type), &kind))
                continue; /* an index type we do not know excludes nothing */
            fi_result r = {FI_REMAIN, NULL};
            e = OPS[kind]->test_in(atoms[a].type, f->data + en->start, en->length, atoms[a].values, &r);
            if (e) {
                e = pm_error_wrap(e, PM_ECORRUPT, "%s index of column %s", en->type, en->column);
                fi_result_clear(&r);
                break;
            }
            fi_result_and(&all, &r);
        }
    }
    if (!e)
        *may = !(all.kind == FI_SKIP || (all.kind == FI_ROWS && roaring_bitmap_is_empty(all.rows)));
    fi_result_clear(&all);
    return e;
}
