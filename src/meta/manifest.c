/*
 * meta/manifest.c — read/write manifest files, manifest lists and index
 * manifests through their file format (manifest_format.h: Avro or ORC);
 * merge manifest entries.  Rules are in manifest.h.
 *
 * Reading steps: open the file (its magic picks the format), decode
 * batches of our row type (fields by name), convert each row into a struct
 * appended to a growing array,
 * checking that every file name it holds is a plain name (safe_path.h:
 * PM_ECORRUPT naming the manifest file and the field).
 * Writing steps: rows are appended to a pm_batch of the 2.0 row type and
 * handed to the format writer every 1000 rows (the rolling check cadence);
 * finishing a file closes (fsync) the output and records its size.
 */
#include "meta/manifest.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "meta/safe_path.h"
#include "meta/stats.h"

#define ROLL_CHECK_ROWS 1000

void pm_manifest_entries_free(pm_manifest_entry *e, size_t n)
{
    for (size_t i = 0; e && i < n; i++)
        pm_manifest_entry_clear(&e[i]);
    free(e);
}

void pm_manifest_file_metas_free(pm_manifest_file_meta *m, size_t n)
{
    for (size_t i = 0; m && i < n; i++)
        pm_manifest_file_meta_clear(&m[i]);
    free(m);
}

void pm_index_manifest_entries_free(pm_index_manifest_entry *e, size_t n)
{
    for (size_t i = 0; e && i < n; i++)
        pm_index_manifest_entry_clear(&e[i]);
    free(e);
}

/* ------------------------------------------------------------------ */
/* reading                                                              */
/* ------------------------------------------------------------------ */

typedef pm_error *(*row_fn)(const pm_batch *b, int64_t row, const char *what, void *elem);
typedef void (*clear_fn)(void *elem);

/* Append the rows of `path` to the array *arr of *n elements and *cap
 * capacity (grown as needed); on error the appended ones are cleared and
 * *n is restored (the array stays the caller's). */
static pm_error *read_rows_append(pm_fileio *fio, const char *path, pm_type *type, size_t elem_size, row_fn fn,
                                  clear_fn clear, void **arr_ptr, size_t *n_ptr, size_t *cap_ptr)
{
    if (!type)
        return pm_oom();
    pm_mf_reader *r = NULL;
    uint8_t *arr = *arr_ptr;
    size_t start = *n_ptr, n = start, cap = *cap_ptr;
    pm_error *e = pm_mf_reader_open(&r, fio, path, type);
    while (!e) {
        pm_batch *b;
        e = pm_mf_reader_next(r, &b);
        if (e || !b)
            break;
        int64_t rows = pm_batch_num_rows(b);
        if (n + (size_t)rows > cap) {
            size_t ncap = pm_grow_cap(cap, n + (size_t)rows);
            e = ncap ? pm_realloc_array(&arr, ncap, elem_size) : pm_oom();
            if (e)
                break;
            cap = ncap;
        }
        for (int64_t i = 0; !e && i < rows; i++) {
            e = fn(b, i, path, arr + n * elem_size);
            if (!e)
                n++;
        }
    }
    pm_mf_reader_free(r);
    pm_type_free(type);
    *arr_ptr = arr;
    *cap_ptr = cap;
    if (e) {
        for (size_t i = start; i < n; i++)
            clear(arr + i * elem_size);
        *n_ptr = start;
        return pm_error_wrap(e, 0, "read %s", path);
    }
    *n_ptr = n;
    return NULL;
}

static pm_error *read_rows(pm_fileio *fio, const char *path, pm_type *type, size_t elem_size,
                           row_fn fn, clear_fn clear, void **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    size_t cap = 0;
    pm_error *e = read_rows_append(fio, path, type, elem_size, fn, clear, out, count, &cap);
    if (e) {
        free(*out);
        *out = NULL;
    }
    return e;
}

static void entry_clear(void *p) { pm_manifest_entry_clear(p); }
static void meta_clear(void *p) { pm_manifest_file_meta_clear(p); }
static void index_clear(void *p) { pm_index_manifest_entry_clear(p); }

/* A file name read from the metadata file `what` (field `field` of the
 * entry of `file_name`) is a plain name (meta/safe_path.h). */
static pm_error *check_name(const char *what, const char *field, const char *entry, const char *name)
{
    if (pm_safe_file_name_ok(name))
        return NULL;
    char f[768];
    if (entry)
        snprintf(f, sizeof f, "%s: %s of the entry of %s", what, field, entry);
    else
        snprintf(f, sizeof f, "%s: %s", what, field);
    return pm_safe_file_name(PM_ECORRUPT, f, name);
}

/* The names are checked as rows are decoded, so no caller joins an
 * untrusted name to a directory; external paths need the table's roots
 * and are checked by the table layer (table/scan.c). */
static pm_error *entry_row(const pm_batch *b, int64_t row, const char *what, void *elem)
{
    PM_TRY(pm_manifest_entry_from_row(b, row, what, elem));
    pm_manifest_entry *e = elem;
    pm_error *err = check_name(what, "_FILE_NAME", NULL, e->file.file_name);
    for (size_t i = 0; !err && i < e->file.extra_files.count; i++)
        err = check_name(what, "_EXTRA_FILES", e->file.file_name, e->file.extra_files.items[i]);
    if (err)
        pm_manifest_entry_clear(e);
    return err;
}
static pm_error *meta_row(const pm_batch *b, int64_t row, const char *what, void *elem)
{
    PM_TRY(pm_manifest_file_meta_from_row(b, row, what, elem));
    pm_error *err = check_name(what, "_FILE_NAME", NULL, ((pm_manifest_file_meta *)elem)->file_name);
    if (err)
        meta_clear(elem);
    return err;
}
static pm_error *index_row(const pm_batch *b, int64_t row, const char *what, void *elem)
{
    PM_TRY(pm_index_manifest_entry_from_row(b, row, what, elem));
    pm_error *err = check_name(what, "_FILE_NAME", NULL, ((pm_index_manifest_entry *)elem)->index_file.file_name);
    if (err)
        index_clear(elem);
    return err;
}

pm_error *pm_manifest_read(pm_fileio *fio, const char *path, pm_manifest_entry **out, size_t *count)
{
    return read_rows(fio, path, pm_manifest_entry_row_type(false), sizeof(pm_manifest_entry),
                     entry_row, entry_clear, (void **)out, count);
}

pm_error *pm_manifest_read_append(pm_fileio *fio, const char *path, pm_manifest_entry_list *l)
{
    if (l->n && l->borrowed)
        return pm_error_new(PM_EINVALID, "manifest entry list: reading into a list of borrowed entries");
    l->borrowed = false;
    return read_rows_append(fio, path, pm_manifest_entry_row_type(false), sizeof(pm_manifest_entry), entry_row,
                            entry_clear, (void **)&l->v, &l->n, &l->cap);
}

pm_error *pm_manifest_list_read(pm_fileio *fio, const char *path, pm_manifest_file_meta **out,
                                size_t *count)
{
    return read_rows(fio, path, pm_manifest_file_meta_row_type(), sizeof(pm_manifest_file_meta),
                     meta_row, meta_clear, (void **)out, count);
}

pm_error *pm_index_manifest_read(pm_fileio *fio, const char *path, pm_index_manifest_entry **out,
                                 size_t *count)
{
    return read_rows(fio, path, pm_index_manifest_entry_row_type(), sizeof(pm_index_manifest_entry),
                     index_row, index_clear, (void **)out, count);
}

pm_error *pm_snapshot_data_manifests(pm_fileio *fio, const pm_path_factory *pf, const pm_snapshot *s,
                                     pm_manifest_file_meta **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    const char *lists[2] = {s->base_manifest_list, s->delta_manifest_list};
    pm_manifest_file_meta *all = NULL;
    size_t n = 0;
    for (int k = 0; k < 2; k++) {
        if (!lists[k])
            return pm_error_new(PM_ECORRUPT, "snapshot %" PRId64 " has no %s manifest list", s->id,
                                k ? "delta" : "base");
        char *p;
        pm_manifest_file_meta *part;
        size_t m;
        pm_error *e = pm_path_factory_manifest_path(pf, lists[k], &p);
        if (!e) {
            e = pm_manifest_list_read(fio, p, &part, &m);
            free(p);
        }
        if (!e && m) {
            e = pm_realloc_array(&all, n + m, sizeof *all);
            if (!e) {
                memcpy(all + n, part, m * sizeof *part);
                n += m;
                free(part);
            } else {
                pm_manifest_file_metas_free(part, m);
            }
        }
        if (e) {
            pm_manifest_file_metas_free(all, n);
            return e;
        }
    }
    *out = all;
    *count = n;
    return NULL;
}

pm_error *pm_manifest_keys_live(pm_fileio *fio, const pm_path_factory *pf, const pm_manifest_file_meta *metas,
                                size_t n, const pm_manifest_entry *keys, size_t nkeys, bool *live)
{
    memset(live, 0, nkeys * sizeof *live);
    if (!nkeys)
        return NULL;
    pm_manifest_ident_set set = {0};
    pm_error *e = NULL;
    for (size_t i = 0; i < nkeys && !e; i++)
        e = pm_manifest_ident_set_add(&set, &keys[i]);
    /* live[] of the first key of each identifier while reading */
    for (size_t i = 0; !e && i < n; i++) {
        char *p;
        pm_manifest_entry *part = NULL;
        size_t m = 0;
        e = pm_path_factory_manifest_path(pf, metas[i].file_name, &p);
        if (e)
            break;
        e = pm_manifest_read(fio, p, &part, &m);
        free(p);
        for (size_t k = 0; !e && k < m; k++) {
            const pm_manifest_entry *hit = pm_manifest_ident_set_find(&set, &part[k]);
            if (hit)
                live[hit - keys] = part[k].kind == PM_FILE_ADD;
        }
        pm_manifest_entries_free(part, m);
    }
    for (size_t i = 0; i < nkeys && !e; i++)
        live[i] = live[pm_manifest_ident_set_find(&set, &keys[i]) - keys];
    pm_manifest_ident_set_free(&set);
    return e;
}

pm_error *pm_manifest_read_merged(pm_fileio *fio, const pm_path_factory *pf,
                                  const pm_manifest_file_meta *metas, size_t n,
                                  pm_manifest_entry **out, size_t *count)
{
    *out = NULL;
    *count = 0;
    pm_manifest_entry_list l = {0};
    pm_error *e = NULL;
    for (size_t i = 0; !e && i < n; i++) {
        char *p;
        e = pm_path_factory_manifest_path(pf, metas[i].file_name, &p);
        if (e)
            break;
        e = pm_manifest_read_append(fio, p, &l);
        free(p);
    }
    pm_manifest_entry *all = l.v;
    size_t total = l.n;
    if (!e)
        e = pm_manifest_entries_merge(all, &total);
    if (e) {
        pm_manifest_entries_free(all, total);
        return e;
    }
    *out = all;
    *count = total;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* merging                                                              */
/* ------------------------------------------------------------------ */

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

uint64_t pm_manifest_file_ident_hash(const pm_bytes *partition, int32_t bucket, const pm_data_file_meta *f)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    h = mix(h, partition->data, partition->len);
    h = mix(h, &bucket, sizeof bucket);
    h = mix(h, &f->level, sizeof f->level);
    if (f->file_name)
        h = mix(h, f->file_name, strlen(f->file_name));
    return h;
}

uint64_t pm_manifest_entry_ident_hash(const pm_manifest_entry *e)
{
    return pm_manifest_file_ident_hash(&e->partition, e->bucket, &e->file);
}

static bool str_eq(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static bool bytes_eq(const pm_bytes *a, const pm_bytes *b)
{
    if (a->has != b->has)
        return false;
    return !a->has || (a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0));
}

bool pm_manifest_file_ident_eq(const pm_bytes *pa, int32_t ba, const pm_data_file_meta *a, const pm_bytes *pb,
                               int32_t bb, const pm_data_file_meta *b)
{
    if (ba != bb || a->level != b->level)
        return false;
    if (!bytes_eq(pa, pb) || !str_eq(a->file_name, b->file_name))
        return false;
    if (a->extra_files.count != b->extra_files.count)
        return false;
    for (size_t i = 0; i < a->extra_files.count; i++)
        if (!str_eq(a->extra_files.items[i], b->extra_files.items[i]))
            return false;
    return bytes_eq(&a->embedded_index, &b->embedded_index) && str_eq(a->external_path, b->external_path);
}

bool pm_manifest_entry_ident_eq(const pm_manifest_entry *a, const pm_manifest_entry *b)
{
    return pm_manifest_file_ident_eq(&a->partition, a->bucket, &a->file, &b->partition, b->bucket, &b->file);
}

/* The identifier fields of a set's item. */
static void item_key(const pm_manifest_ident_set *s, const void *item, const pm_bytes **p, int32_t *b,
                     const pm_data_file_meta **f)
{
    if (s->key) {
        s->key(item, p, b, f);
        return;
    }
    const pm_manifest_entry *e = item;
    *p = &e->partition;
    *b = e->bucket;
    *f = &e->file;
}

static uint64_t item_hash(const pm_manifest_ident_set *s, const void *item)
{
    const pm_bytes *p;
    int32_t b;
    const pm_data_file_meta *f;
    item_key(s, item, &p, &b, &f);
    return pm_manifest_file_ident_hash(p, b, f);
}

/* The slot holding the identifier (p, b, f), or the empty slot where it
 * would go (open addressing, linear probing; cap is a power of two). */
static size_t ident_slot(const pm_manifest_ident_set *s, uint64_t h, const pm_bytes *p, int32_t b,
                         const pm_data_file_meta *f)
{
    size_t k = (size_t)h & (s->cap - 1);
    while (s->slots[k]) {
        const pm_bytes *sp;
        int32_t sb;
        const pm_data_file_meta *sf;
        item_key(s, s->slots[k], &sp, &sb, &sf);
        if (pm_manifest_file_ident_eq(sp, sb, sf, p, b, f))
            break;
        k = (k + 1) & (s->cap - 1);
    }
    return k;
}

static pm_error *ident_set_grow(pm_manifest_ident_set *s)
{
    pm_manifest_ident_set n = {.key = s->key};
    n.cap = s->cap ? s->cap * 2 : 64;
    PM_TRY(pm_calloc(&n.slots, n.cap, sizeof *n.slots));
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->slots[i])
            continue;
        size_t k = (size_t)item_hash(s, s->slots[i]) & (n.cap - 1);
        while (n.slots[k])
            k = (k + 1) & (n.cap - 1);
        n.slots[k] = s->slots[i];
        n.n++;
    }
    free(s->slots);
    *s = n;
    return NULL;
}

pm_error *pm_manifest_ident_set_add_item(pm_manifest_ident_set *s, const void *item)
{
    if ((s->n + 1) * 2 > s->cap)
        PM_TRY(ident_set_grow(s));
    const pm_bytes *p;
    int32_t b;
    const pm_data_file_meta *f;
    item_key(s, item, &p, &b, &f);
    size_t k = ident_slot(s, pm_manifest_file_ident_hash(p, b, f), p, b, f);
    if (!s->slots[k]) {
        s->slots[k] = item;
        s->n++;
    }
    return NULL;
}

const void *pm_manifest_ident_set_find_file(const pm_manifest_ident_set *s, const pm_bytes *partition,
                                            int32_t bucket, const pm_data_file_meta *file)
{
    if (!s->cap)
        return NULL;
    return s->slots[ident_slot(s, pm_manifest_file_ident_hash(partition, bucket, file), partition, bucket, file)];
}

pm_error *pm_manifest_ident_set_add(pm_manifest_ident_set *s, const pm_manifest_entry *e)
{
    return pm_manifest_ident_set_add_item(s, e);
}

const pm_manifest_entry *pm_manifest_ident_set_find(const pm_manifest_ident_set *s, const pm_manifest_entry *e)
{
    return pm_manifest_ident_set_find_file(s, &e->partition, e->bucket, &e->file);
}

bool pm_manifest_ident_set_has(const pm_manifest_ident_set *s, const pm_manifest_entry *e)
{
    return pm_manifest_ident_set_find(s, e) != NULL;
}

void pm_manifest_ident_set_free(pm_manifest_ident_set *s)
{
    free(s->slots);
    memset(s, 0, sizeof *s);
}

/* The next slot of l (zeroed), for a list that is `borrowed` or not. */
static pm_error *entry_list_slot(pm_manifest_entry_list *l, bool borrowed, pm_manifest_entry **out)
{
    if (l->n && l->borrowed != borrowed)
        return pm_error_new(PM_EINVALID, "manifest entry list: %s entry pushed onto a list of %s entries",
                            borrowed ? "a borrowed" : "an owned", l->borrowed ? "borrowed" : "owned");
    l->borrowed = borrowed;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        PM_TRY(pm_realloc_array(&l->v, cap, sizeof *l->v));
        l->cap = cap;
    }
    *out = &l->v[l->n];
    memset(*out, 0, sizeof **out);
    return NULL;
}

pm_error *pm_manifest_entry_list_reserve(pm_manifest_entry_list *l, size_t extra)
{
    if (extra > SIZE_MAX / sizeof *l->v - l->n)
        return pm_oom();
    if (l->n + extra <= l->cap)
        return NULL;
    PM_TRY(pm_realloc_array(&l->v, l->n + extra, sizeof *l->v));
    l->cap = l->n + extra;
    return NULL;
}

pm_error *pm_manifest_entry_list_push_view(pm_manifest_entry_list *l, pm_file_kind kind, const pm_bytes *partition,
                                           int32_t bucket, int32_t total_buckets, const pm_data_file_meta *f)
{
    pm_manifest_entry *e;
    PM_TRY(entry_list_slot(l, true, &e));
    *e = (pm_manifest_entry){.kind = kind, .partition = *partition, .bucket = bucket,
                             .total_buckets = total_buckets, .file = *f};
    l->n++;
    return NULL;
}

pm_error *pm_manifest_entry_list_take(pm_manifest_entry_list *l, pm_manifest_entry *e)
{
    pm_manifest_entry *slot;
    PM_TRY(entry_list_slot(l, false, &slot));
    *slot = *e;
    memset(e, 0, sizeof *e);
    l->n++;
    return NULL;
}

pm_error *pm_manifest_entry_list_push(pm_manifest_entry_list *l, pm_file_kind kind, const pm_bytes *partition,
                                      int32_t bucket, int32_t total_buckets, const pm_data_file_meta *f)
{
    pm_manifest_entry *e;
    PM_TRY(entry_list_slot(l, false, &e));
    *e = (pm_manifest_entry){.kind = kind, .bucket = bucket, .total_buckets = total_buckets};
    pm_error *err = pm_bytes_set(&e->partition, partition->data, partition->len);
    if (!err)
        err = pm_data_file_meta_copy(&e->file, f);
    if (err) {
        pm_manifest_entry_clear(e);
        return err;
    }
    l->n++;
    return NULL;
}

void pm_manifest_entry_list_free(pm_manifest_entry_list *l)
{
    if (l->borrowed)
        free(l->v);
    else
        pm_manifest_entries_free(l->v, l->n);
    memset(l, 0, sizeof *l);
}

pm_error *pm_manifest_entries_merge(pm_manifest_entry *entries, size_t *n)
{
    size_t count = *n;
    if (count == 0)
        return NULL;
    size_t cap = 16;
    while (cap < count * 2)
        cap *= 2;
    /* slot → output position + 1 (0 = empty) and the identifier's hash
     * (compared before the entries, which are large and far apart);
     * removed outputs keep their slot pointing at a hole so probing stays
     * correct.  Entries (about 460 bytes) move only when a DELETE has
     * opened a gap before them. */
    typedef struct slot {
        size_t pos1;
        uint64_t hash;
    } slot;
    slot *table;
    bool *live;
    PM_TRY(pm_calloc(&table, cap, sizeof *table));
    pm_error *e = pm_calloc(&live, count, sizeof *live);
    if (e) {
        free(table);
        return e;
    }
    size_t w = 0; /* outputs are entries[0..w) (compacted later) */
    for (size_t i = 0; i < count; i++) {
        const pm_manifest_entry *cur = &entries[i];
        uint64_t h = pm_manifest_entry_ident_hash(cur);
        size_t mask = cap - 1, s = (size_t)h & mask, found = SIZE_MAX, free_slot = SIZE_MAX;
        for (;; s = (s + 1) & mask) {
            if (!table[s].pos1) {
                free_slot = s;
                break;
            }
            size_t pos = table[s].pos1 - 1;
            if (table[s].hash == h && live[pos] && pm_manifest_entry_ident_eq(&entries[pos], cur)) {
                found = s;
                break;
            }
        }
        if (cur->kind == PM_FILE_ADD) {
            if (found != SIZE_MAX) {
                e = pm_error_new(PM_ECORRUPT, "file %s (bucket %d, level %d) is added twice",
                                 cur->file.file_name ? cur->file.file_name : "?", (int)cur->bucket,
                                 (int)cur->file.level);
                /* keep every entry owned somewhere so the caller can free them */
                pm_manifest_entry tmp = entries[i];
                entries[i] = entries[w];
                entries[w] = tmp;
                live[w] = true;
                w++;
                for (size_t k = i + 1; k < count; k++) {
                    entries[w] = entries[k];
                    live[w++] = true;
                }
                break;
            }
        } else if (found != SIZE_MAX) {
            /* DELETE of a file added earlier: both disappear */
            size_t pos = table[found].pos1 - 1;
            live[pos] = false;
            pm_manifest_entry_clear(&entries[pos]);
            pm_manifest_entry_clear(&entries[i]);
            continue;
        }
        /* insert (ADD, or a DELETE whose ADD is in older manifests) */
        if (w != i) { /* entries[w] is a cleared hole */
            pm_manifest_entry tmp = entries[i];
            entries[i] = entries[w];
            entries[w] = tmp;
        }
        live[w] = true;
        table[free_slot] = (slot){w + 1, h};
        w++;
    }
    /* compact away holes, keeping order */
    size_t out = 0;
    for (size_t k = 0; k < w; k++) {
        if (live[k]) {
            if (out != k)
                entries[out] = entries[k];
            out++;
        }
    }
    for (size_t k = out; k < count; k++)
        memset(&entries[k], 0, sizeof entries[k]);
    *n = out;
    free(table);
    free(live);
    return e;
}

/* ------------------------------------------------------------------ */
/* writing                                                              */
/* ------------------------------------------------------------------ */

/* One open metadata file being written. */
typedef struct out_file {
    char *name;
    pm_output *out;
    pm_mf_writer *w;
} out_file;

static pm_error *out_open(pm_fileio *fio, const pm_path_factory *pf, char *name, const pm_type *type,
                          const pm_mf_write_options *opt, out_file *f)
{
    memset(f, 0, sizeof *f);
    f->name = name;
    char *path;
    PM_TRY(pm_path_factory_manifest_path(pf, name, &path));
    pm_error *e = pm_output_create(fio, path, false, &f->out);
    free(path);
    if (!e) {
        e = pm_mf_writer_open(&f->w, f->out, type, opt);
        if (e) {
            pm_output_abort(f->out);
            f->out = NULL;
        }
    }
    return e;
}

static void out_abort(out_file *f)
{
    pm_mf_writer_abort(f->w);
    pm_output_abort(f->out);
    free(f->name);
    memset(f, 0, sizeof *f);
}

/* Finish and close; *size = bytes written.  On error the file is removed. */
static pm_error *out_close(out_file *f, int64_t *size)
{
    pm_error *e = pm_mf_writer_finish(f->w);
    f->w = NULL;
    if (e) {
        pm_output_abort(f->out);
        f->out = NULL;
        return e;
    }
    *size = (int64_t)pm_output_pos(f->out);
    e = pm_output_close(f->out, true);
    f->out = NULL;
    return e;
}

static pm_error *flush_batch(pm_mf_writer *w, pm_batch *b, int64_t rows)
{
    if (!rows)
        return NULL;
    PM_TRY(pm_batch_finish(b, rows));
    PM_TRY(pm_mf_writer_write(w, b));
    return pm_batch_reset(b);
}

/* Accumulates one manifest file's ManifestFileMeta (ManifestEntryWriter). */
typedef struct meta_acc {
    int64_t added, deleted;
    int64_t schema_id;
    int32_t min_bucket, max_bucket, min_level, max_level;
    bool row_ids;
    int64_t min_row_id, max_row_id;
    pm_stats_collector *stats;
} meta_acc;

static pm_error *acc_init(meta_acc *a, const pm_type *partition_type)
{
    memset(a, 0, sizeof *a);
    a->schema_id = INT64_MIN;
    a->min_bucket = INT32_MAX;
    a->max_bucket = INT32_MIN;
    a->min_level = INT32_MAX;
    a->max_level = INT32_MIN;
    a->row_ids = true;
    a->min_row_id = INT64_MAX;
    a->max_row_id = INT64_MIN;
    return pm_stats_collector_new(&a->stats, partition_type);
}

static pm_error *acc_add(meta_acc *a, const pm_manifest_entry *e)
{
    if (e->kind == PM_FILE_ADD)
        a->added++;
    else
        a->deleted++;
    if (e->file.schema_id > a->schema_id)
        a->schema_id = e->file.schema_id;
    if (e->bucket < a->min_bucket)
        a->min_bucket = e->bucket;
    if (e->bucket > a->max_bucket)
        a->max_bucket = e->bucket;
    if (e->file.level < a->min_level)
        a->min_level = e->file.level;
    if (e->file.level > a->max_level)
        a->max_level = e->file.level;
    if (a->row_ids) {
        if (!e->file.first_row_id.has) {
            a->row_ids = false;
        } else {
            int64_t first = e->file.first_row_id.v;
            int64_t last = first + e->file.row_count - 1;
            if (first < a->min_row_id)
                a->min_row_id = first;
            if (last > a->max_row_id)
                a->max_row_id = last;
        }
    }
    if (!e->partition.has)
        return pm_error_new(PM_EINVALID, "manifest entry for %s has no partition", e->file.file_name);
    return pm_stats_collector_add(a->stats, e->partition.data, e->partition.len);
}

static pm_error *acc_result(meta_acc *a, char *name, int64_t size, int64_t latest_schema_id,
                            pm_manifest_file_meta *m)
{
    memset(m, 0, sizeof *m);
    m->file_size = size;
    m->num_added_files = a->added;
    m->num_deleted_files = a->deleted;
    m->schema_id = a->added + a->deleted > 0 ? a->schema_id : latest_schema_id;
    m->min_bucket = (pm_opt_int){true, a->min_bucket};
    m->max_bucket = (pm_opt_int){true, a->max_bucket};
    m->min_level = (pm_opt_int){true, a->min_level};
    m->max_level = (pm_opt_int){true, a->max_level};
    if (a->row_ids) {
        m->min_row_id = (pm_opt_long){true, a->min_row_id};
        m->max_row_id = (pm_opt_long){true, a->max_row_id};
    }
    PM_TRY(pm_stats_collector_result(a->stats, &m->partition_stats));
    m->file_name = name;
    return NULL;
}

static void acc_free(meta_acc *a)
{
    pm_stats_collector_free(a->stats);
    a->stats = NULL;
}

static void delete_written(pm_fileio *fio, const pm_path_factory *pf, pm_manifest_file_meta *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *p;
        if (pm_path_factory_manifest_path(pf, m[i].file_name, &p) == NULL) {
            pm_error_free(pm_fileio_delete(fio, p));
            free(p);
        }
    }
}

static const pm_manifest_entry *array_entry_at(void *arg, size_t i, pm_manifest_entry *scratch)
{
    (void)scratch;
    return (const pm_manifest_entry *)arg + i;
}

pm_error *pm_manifest_write(pm_fileio *fio, pm_path_factory *pf, const pm_options *options,
                            const pm_type *partition_type, int64_t latest_schema_id,
                            const pm_manifest_entry *entries, size_t n,
                            pm_manifest_file_meta **metas, size_t *nmetas)
{
    return pm_manifest_write_each(fio, pf, options, partition_type, latest_schema_id, array_entry_at,
                                  (void *)entries, n, metas, nmetas);
}

pm_error *pm_manifest_write_each(pm_fileio *fio, pm_path_factory *pf, const pm_options *options,
                                 const pm_type *partition_type, int64_t latest_schema_id,
                                 pm_manifest_entry_at_fn at, void *arg, size_t n,
                                 pm_manifest_file_meta **metas, size_t *nmetas)
{
    *metas = NULL;
    *nmetas = 0;
    if (n == 0)
        return NULL;
    pm_mf_write_options opt;
    int64_t target;
    PM_TRY(pm_options_memory(options, PM_OPT_MANIFEST_TARGET_FILE_SIZE, NULL, &target));
    PM_TRY(pm_mf_write_options_from(options, &opt));
    pm_type *type = pm_manifest_entry_row_type(true);
    if (!type) {
        pm_mf_write_options_clear(&opt);
        return pm_oom();
    }
    pm_batch *b = NULL;
    pm_manifest_file_meta *out = NULL;
    size_t nout = 0;
    out_file f = {0};
    meta_acc acc = {0};
    int64_t rows = 0;
    pm_error *e = pm_batch_new(&b, type);
    for (size_t i = 0; !e && i < n; i++) {
        if (!f.w) {
            char *name;
            e = pm_path_factory_new_manifest_name(pf, &name);
            if (!e)
                e = out_open(fio, pf, name, type, &opt, &f);
            if (e) {
                free(name);
                f.name = NULL;
                break;
            }
            e = acc_init(&acc, partition_type);
            if (e)
                break;
        }
        pm_manifest_entry scratch;
        const pm_manifest_entry *en = at(arg, i, &scratch);
        e = pm_manifest_entry_append(b, en);
        if (!e)
            e = acc_add(&acc, en);
        if (e)
            break;
        rows++;
        bool last = i + 1 == n;
        if ((i + 1) % ROLL_CHECK_ROWS == 0 || last) {
            e = flush_batch(f.w, b, rows);
            rows = 0;
            if (e)
                break;
            if (last || pm_mf_writer_estimated_size(f.w) >= (uint64_t)target) {
                int64_t size;
                char *name = f.name;
                f.name = NULL;
                e = out_close(&f, &size);
                if (!e)
                    e = pm_realloc_array(&out, nout + 1, sizeof *out);
                if (!e)
                    e = acc_result(&acc, name, size, latest_schema_id, &out[nout]);
                if (e) {
                    free(name);
                    break;
                }
                nout++;
                acc_free(&acc);
            }
        }
    }
    if (e) {
        if (f.out)
            out_abort(&f);
        free(f.name);
        delete_written(fio, pf, out, nout);
        pm_manifest_file_metas_free(out, nout);
        out = NULL;
        nout = 0;
    }
    acc_free(&acc);
    pm_batch_free(b);
    pm_type_free(type);
    pm_mf_write_options_clear(&opt);
    if (e)
        return pm_error_wrap(e, 0, "write manifest");
    *metas = out;
    *nmetas = nout;
    return NULL;
}

typedef pm_error *(*append_fn)(pm_batch *b, const void *elem);

static pm_error *write_single(pm_fileio *fio, pm_path_factory *pf, const pm_options *options,
                              pm_type *type, char *name, const void *elems, size_t elem_size,
                              size_t n, append_fn fn, int64_t *size)
{
    pm_mf_write_options opt;
    out_file f = {0};
    pm_batch *b = NULL;
    memset(&opt, 0, sizeof opt);
    pm_error *e = type ? pm_mf_write_options_from(options, &opt) : pm_oom();
    if (!e)
        e = pm_batch_new(&b, type);
    if (!e)
        e = out_open(fio, pf, name, type, &opt, &f);
    int64_t rows = 0;
    for (size_t i = 0; !e && i < n; i++) {
        e = fn(b, (const uint8_t *)elems + i * elem_size);
        if (!e && ++rows == ROLL_CHECK_ROWS) {
            e = flush_batch(f.w, b, rows);
            rows = 0;
        }
    }
    if (!e)
        e = flush_batch(f.w, b, rows);
    if (!e) {
        f.name = NULL;
        e = out_close(&f, size);
    } else if (f.out) {
        f.name = NULL;
        out_abort(&f);
    }
    pm_batch_free(b);
    pm_type_free(type);
    pm_mf_write_options_clear(&opt);
    return e;
}

static pm_error *meta_append(pm_batch *b, const void *elem) { return pm_manifest_file_meta_append(b, elem); }
static pm_error *index_append(pm_batch *b, const void *elem) { return pm_index_manifest_entry_append(b, elem); }

pm_error *pm_manifest_list_write(pm_fileio *fio, pm_path_factory *pf, const pm_options *options,
                                 const pm_manifest_file_meta *metas, size_t n, char **name,
                                 int64_t *size)
{
    *name = NULL;
    PM_TRY(pm_path_factory_new_manifest_list_name(pf, name));
    pm_error *e = write_single(fio, pf, options, pm_manifest_file_meta_row_type(), *name, metas,
                               sizeof *metas, n, meta_append, size);
    if (e) {
        e = pm_error_wrap(e, 0, "write manifest list %s", *name);
        free(*name);
        *name = NULL;
    }
    return e;
}

pm_error *pm_index_manifest_write(pm_fileio *fio, pm_path_factory *pf, const pm_options *options,
                                  const pm_index_manifest_entry *entries, size_t n, char **name,
                                  int64_t *size)
{
    *name = NULL;
    PM_TRY(pm_path_factory_new_index_manifest_name(pf, name));
    pm_error *e = write_single(fio, pf, options, pm_index_manifest_entry_row_type(), *name, entries,
                               sizeof *entries, n, index_append, size);
    if (e) {
        e = pm_error_wrap(e, 0, "write index manifest %s", *name);
        free(*name);
        *name = NULL;
    }
    return e;
}
