/*
 * lsm/merge_engine.c — option parsing/validation and the fold of the four
 * merge engines (semantics in merge_engine.h; field aggregators in
 * merge_agg.c).
 *
 * Fold state: either a winner record (passed through whole: deduplicate,
 * first-row, single records in REDUCE mode) or a computed row of values
 * (partial-update, aggregation) plus the record whose key columns are
 * copied.  emit maps every output column to its role (key field, value
 * field, _SEQUENCE_NUMBER, _VALUE_KIND) once per output layout.
 */
#include "lsm/merge_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "lsm/merge_agg.h"

typedef struct pu_group {
    size_t nseq;
    size_t *seq;         /* value field indices of the ordering fields */
    char *name;          /* option key, for messages */
} pu_group;

enum { ROLE_SEQ = -1, ROLE_KIND = -2, ROLE_KEY0 = -3 };

struct pm_merge_fn {
    pm_merge_kind kind;
    pm_merge_mode mode;
    bool persist;
    pm_type *vt;
    size_t nf;
    bool *nullable;
    bool *is_pk;
    bool ignore_delete;
    size_t *seqf;
    size_t nseqf;
    bool seqf_desc;
    /* partial-update */
    pu_group *groups;
    size_t ngroups;
    int *field_group;    /* group protecting or ordering field i, -1 */
    bool *is_seq_field;
    bool *partial_delete;
    bool remove_on_delete;
    bool has_user_agg;
    bool has_unpersistable;
    /* aggregators (partial-update and aggregation) */
    pm_agg *aggs;
    bool *has_agg;
    /* fold state */
    const pm_kv_layout *in;
    const pm_kv_rec *recs;
    size_t n;
    long winner;
    size_t key_rec;
    pm_mval *row;
    bool *scratch_a, *scratch_b;
    pm_merge_result res;
    const pm_batch *checked;
    /* emit role cache */
    pm_kv_layout cache;
    bool cache_valid;
    int *role;
    int *width;          /* per output column: fixed value width, 0 = other */
    size_t nrole;
};

pm_merge_kind pm_merge_fn_kind(const pm_merge_fn *e) { return e->kind; }

const size_t *pm_merge_fn_seq_fields(const pm_merge_fn *e, size_t *n, bool *descending)
{
    *n = e->nseqf;
    if (descending)
        *descending = e->seqf_desc;
    return e->seqf;
}

void pm_merge_fn_free(pm_merge_fn *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < e->ngroups; i++) {
        free(e->groups[i].seq);
        free(e->groups[i].name);
    }
    free(e->groups);
    if (e->aggs)
        for (size_t i = 0; i < e->nf; i++)
            pm_agg_clear(&e->aggs[i]);
    free(e->aggs);
    free(e->has_agg);
    free(e->field_group);
    free(e->is_seq_field);
    free(e->partial_delete);
    free(e->nullable);
    free(e->is_pk);
    free(e->seqf);
    free(e->row);
    free(e->scratch_a);
    free(e->scratch_b);
    free(e->role);
    free(e->width);
    pm_kv_layout_clear(&e->cache);
    pm_type_free(e->vt);
    free(e);
}

/* ------------------------------------------------------------------ */
/* Configuration                                                       */

static ptrdiff_t field_index(const pm_merge_fn *e, const char *name, size_t len)
{
    for (size_t i = 0; i < e->nf; i++) {
        const char *f = e->vt->fields[i].name;
        if (strlen(f) == len && memcmp(f, name, len) == 0)
            return (ptrdiff_t)i;
    }
    return -1;
}

static pm_error *require_field(const pm_merge_fn *e, const char *name, size_t len, const char *key,
                               size_t *out)
{
    ptrdiff_t i = field_index(e, name, len);
    if (i < 0)
        return pm_error_new(PM_EINVALID, "option '%s': field '%.*s' can not be found in the table schema", key,
                            (int)len, name);
    *out = (size_t)i;
    return NULL;
}

/* Split `s` on ',' without trimming (as Java's String.split). */
typedef pm_error *(*part_fn)(void *ctx, const char *p, size_t n);
static pm_error *split_commas(const char *s, part_fn fn, void *ctx)
{
    const char *p = s;
    for (;;) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        PM_TRY(fn(ctx, p, n));
        if (!c)
            return NULL;
        p = c + 1;
    }
}

typedef struct prefix_ctx {
    const pm_merge_fn *e;
    const char *key;
} prefix_ctx;

static pm_error *check_prefix_field(void *ctx, const char *p, size_t n)
{
    prefix_ctx *c = ctx;
    if (n == strlen("default-aggregate-function") && memcmp(p, "default-aggregate-function", n) == 0)
        return NULL;
    if (field_index(c->e, p, n) < 0)
        return pm_error_new(PM_EINVALID, "option '%s': field '%.*s' can not be found in the table schema", c->key,
                            (int)n, p);
    return NULL;
}

/* Java's validateFieldsPrefix for `fields.*` options. */
static pm_error *validate_fields_prefix(const pm_merge_fn *e, const pm_options *o)
{
    for (size_t i = 0; i < pm_options_count(o); i++) {
        const char *k = pm_options_key_at(o, i);
        if (strncmp(k, "fields.", 7) != 0)
            continue;
        const char *seg = k + 7;
        const char *dot = strchr(seg, '.');
        size_t n = dot ? (size_t)(dot - seg) : strlen(seg);
        char *part = malloc(n + 1);
        if (!part)
            return pm_oom();
        memcpy(part, seg, n);
        part[n] = 0;
        prefix_ctx c = {e, k};
        pm_error *err = split_commas(part, check_prefix_field, &c);
        /* dot paths into ROW members are not supported */
        if (!err && dot && strchr(dot + 1, '.') && !strchr(part, ',')) {
            ptrdiff_t f = field_index(e, part, n);
            if (f >= 0 && e->vt->fields[f].type->id == PM_TYPE_ROW)
                err = pm_error_new(PM_EINVALID, "nested-field path is not supported on ROW field '%s': %s", part, k);
        }
        free(part);
        PM_TRY(err);
    }
    return NULL;
}

static const char *field_option(const pm_options *o, const char *field, const char *suffix, char *buf, size_t cap)
{
    snprintf(buf, cap, "fields.%s.%s", field, suffix);
    return pm_options_get(o, buf);
}

static pm_error *parse_sequence_field(pm_merge_fn *e, const pm_options *o)
{
    pm_str_list l = {0};
    PM_TRY(pm_options_list(o, PM_OPT_SEQUENCE_FIELD, &l));
    pm_error *err = NULL;
    if (l.count) {
        e->seqf = calloc(l.count, sizeof *e->seqf);
        if (!e->seqf)
            err = pm_oom();
    }
    for (size_t i = 0; i < l.count && !err; i++) {
        err = require_field(e, l.items[i], strlen(l.items[i]), "sequence.field", &e->seqf[i]);
        if (err)
            break;
        char key[512];
        if (field_option(o, l.items[i], "aggregate-function", key, sizeof key))
            err = pm_error_new(PM_EINVALID, "option '%s': should not define aggregation on sequence field '%s'", key,
                               l.items[i]);
        for (size_t j = 0; j < i && !err; j++)
            if (e->seqf[j] == e->seqf[i])
                err = pm_error_new(PM_EINVALID, "sequence field '%s' is defined repeatedly", l.items[i]);
        e->nseqf = i + 1;
    }
    pm_str_list_free(&l);
    PM_TRY(err);
    int order;
    PM_TRY(pm_options_enum(o, PM_OPT_SEQUENCE_FIELD_SORT_ORDER, &order));
    e->seqf_desc = order == PM_SORT_DESCENDING;
    if (e->nseqf && e->kind == PM_ENGINE_FIRST_ROW)
        return pm_error_new(PM_EINVALID, "sequence.field is not supported by the first-row merge engine");
    return NULL;
}

/* ---- partial-update sequence groups ---- */

typedef struct group_ctx {
    pm_merge_fn *e;
    const char *key;
    pu_group *g;
    int gi;
} group_ctx;

static pm_error *add_seq_field(void *ctx, const char *p, size_t n)
{
    group_ctx *c = ctx;
    size_t f = 0;
    PM_TRY(require_field(c->e, p, n, c->key, &f));
    size_t *ns = realloc(c->g->seq, (c->g->nseq + 1) * sizeof *ns);
    if (!ns)
        return pm_oom();
    c->g->seq = ns;
    ns[c->g->nseq++] = f;
    return NULL;
}

static pm_error *claim_field(group_ctx *c, size_t f, bool seq)
{
    pm_merge_fn *e = c->e;
    const char *name = e->vt->fields[f].name;
    if (e->is_pk[f])
        return pm_error_new(PM_EINVALID,
                            "the sequence-group '%s' contains primary key field '%s', which is not allowed", c->key,
                            name);
    if (e->field_group[f] >= 0) {
        if (seq && e->is_seq_field[f] && e->field_group[f] == c->gi)
            return NULL;
        return pm_error_new(e->field_group[f] == c->gi || !seq ? PM_EINVALID : PM_EUNSUPPORTED,
                            "field '%s' is defined repeatedly by multiple sequence groups: %s", name, c->key);
    }
    e->field_group[f] = c->gi;
    e->is_seq_field[f] = seq;
    return NULL;
}

static pm_error *add_protected(void *ctx, const char *p, size_t n)
{
    group_ctx *c = ctx;
    size_t f = 0;
    PM_TRY(require_field(c->e, p, n, c->key, &f));
    return claim_field(c, f, false);
}

static pm_error *parse_groups(pm_merge_fn *e, const pm_options *o)
{
    static const char suffix[] = ".sequence-group";
    size_t sl = strlen(suffix);
    for (size_t i = 0; i < pm_options_count(o); i++) {
        const char *k = pm_options_key_at(o, i);
        size_t kl = strlen(k);
        if (strncmp(k, "fields.", 7) != 0 || kl <= 7 + sl || strcmp(k + kl - sl, suffix) != 0)
            continue;
        pu_group *ng = realloc(e->groups, (e->ngroups + 1) * sizeof *ng);
        if (!ng)
            return pm_oom();
        e->groups = ng;
        pu_group *g = &e->groups[e->ngroups++];
        memset(g, 0, sizeof *g);
        PM_TRY(pm_strdup(&g->name, k));
        char *mid;
        PM_TRY(pm_strndup(&mid, k + 7, kl - 7 - sl));
        group_ctx c = {e, k, g, (int)(e->ngroups - 1)};
        pm_error *err = split_commas(mid, add_seq_field, &c);
        free(mid);
        PM_TRY(err);
        PM_TRY(split_commas(pm_options_value_at(o, i), add_protected, &c));
        for (size_t s = 0; s < g->nseq; s++)
            PM_TRY(claim_field(&c, g->seq[s], true));
    }
    return NULL;
}

static pm_error *remove_on_group_field(void *ctx, const char *p, size_t n)
{
    pm_merge_fn *e = ctx;
    ptrdiff_t f = field_index(e, p, n);
    if (f < 0 || !e->is_seq_field[f])
        return pm_error_new(PM_EINVALID,
                            "field '%.*s' defined in 'partial-update.remove-record-on-sequence-group' must be part of "
                            "sequence groups",
                            (int)n, p);
    e->partial_delete[f] = true;
    return NULL;
}

static bool is_seqf(const pm_merge_fn *e, size_t f)
{
    for (size_t i = 0; i < e->nseqf; i++)
        if (e->seqf[i] == f)
            return true;
    return false;
}

/* The configured (or default) function of field f, NULL if none. */
static const char *configured_func(const pm_options *o, const char *field, char *buf, size_t cap)
{
    const char *f = field_option(o, field, "aggregate-function", buf, cap);
    if (!f)
        f = pm_options_get(o, "fields.default-aggregate-function");
    return f;
}

static pm_error *make_agg(pm_merge_fn *e, size_t i, const char *fn, const pm_options *o, bool remove_on_delete)
{
    const char *field = e->vt->fields[i].name;
    PM_TRY(pm_agg_init(&e->aggs[i], fn, field, e->vt->fields[i].type, o));
    e->has_agg[i] = true;
    if (remove_on_delete && e->aggs[i].ignore_retract)
        return pm_error_new(PM_EINVALID,
                            "aggregation.remove-record-on-delete and fields.%s.ignore-retract have conflicting "
                            "behavior so should not be enabled at the same time",
                            field);
    if (pm_agg_state_not_persistable(&e->aggs[i]))
        e->has_unpersistable = true;
    return NULL;
}

static pm_error *config_partial_update(pm_merge_fn *e, const pm_options *o)
{
    PM_TRY(pm_options_bool(o, PM_OPT_PARTIAL_UPDATE_REMOVE_RECORD_ON_DELETE, &e->remove_on_delete));
    const char *on_group = pm_options_raw(o, PM_OPT_PARTIAL_UPDATE_REMOVE_RECORD_ON_SEQUENCE_GROUP);
    bool agg_remove;
    PM_TRY(pm_options_bool(o, PM_OPT_AGGREGATION_REMOVE_RECORD_ON_DELETE, &agg_remove));
    PM_TRY(parse_groups(e, o));
    for (size_t i = 0; i < e->nf; i++) {
        char buf[512];
        const char *name = e->vt->fields[i].name;
        /* every configured name must exist, even where it is not used */
        const char *cf = configured_func(o, name, buf, sizeof buf);
        if (cf)
            PM_TRY(pm_agg_check_name(cf, name));
        if (e->field_group[i] >= 0 && e->is_seq_field[i])
            continue; /* sequence fields of groups do not aggregate */
        const char *fn = e->is_pk[i] ? "primary-key" : cf;
        if (!fn)
            continue;
        if (!e->is_pk[i] && strcmp(fn, "last_non_null_value") != 0 && e->field_group[i] < 0)
            return pm_error_new(PM_EINVALID,
                                "must use sequence group for aggregation functions but not found for field '%s'", name);
        PM_TRY(make_agg(e, i, fn, o, agg_remove));
        if (!e->is_pk[i])
            e->has_user_agg = true;
    }
    if (e->remove_on_delete && e->ignore_delete)
        return pm_error_new(PM_EINVALID, "ignore-delete and partial-update.remove-record-on-delete have conflicting "
                                         "behavior so should not be enabled at the same time");
    if (on_group && e->ignore_delete)
        return pm_error_new(PM_EINVALID, "ignore-delete and partial-update.remove-record-on-sequence-group have "
                                         "conflicting behavior so should not be enabled at the same time");
    if (e->remove_on_delete && e->ngroups)
        return pm_error_new(PM_EINVALID, "sequence-group and partial-update.remove-record-on-delete have "
                                         "conflicting behavior so should not be enabled at the same time");
    if (on_group)
        PM_TRY(split_commas(on_group, remove_on_group_field, e));
    return NULL;
}

static pm_error *config_aggregation(pm_merge_fn *e, const pm_options *o)
{
    PM_TRY(pm_options_bool(o, PM_OPT_AGGREGATION_REMOVE_RECORD_ON_DELETE, &e->remove_on_delete));
    for (size_t i = 0; i < e->nf; i++) {
        char buf[512];
        const char *name = e->vt->fields[i].name;
        const char *cf = configured_func(o, name, buf, sizeof buf);
        if (cf)
            PM_TRY(pm_agg_check_name(cf, name));
        const char *fn = is_seqf(e, i) ? "last_value" : e->is_pk[i] ? "primary-key" : cf ? cf : "last_non_null_value";
        PM_TRY(make_agg(e, i, fn, o, e->remove_on_delete));
    }
    return NULL;
}

static pm_error *engine_init(pm_merge_fn *e, const pm_type *vt, const char *const *pk, size_t npk,
                             const pm_options *o)
{
    if (!vt || vt->id != PM_TYPE_ROW)
        return pm_error_new(PM_EINVALID, "merge engine needs the ROW type of the table");
    e->vt = pm_type_clone(vt);
    if (!e->vt)
        return pm_oom();
    e->nf = vt->nfields;
    size_t n = e->nf ? e->nf : 1;
    e->nullable = calloc(n, sizeof *e->nullable);
    e->is_pk = calloc(n, sizeof *e->is_pk);
    e->field_group = malloc(n * sizeof *e->field_group);
    e->is_seq_field = calloc(n, sizeof *e->is_seq_field);
    e->partial_delete = calloc(n, sizeof *e->partial_delete);
    e->aggs = calloc(n, sizeof *e->aggs);
    e->has_agg = calloc(n, sizeof *e->has_agg);
    e->row = calloc(n, sizeof *e->row);
    e->scratch_a = calloc(n, sizeof *e->scratch_a);
    e->scratch_b = calloc(n, sizeof *e->scratch_b);
    if (!e->nullable || !e->is_pk || !e->field_group || !e->is_seq_field || !e->partial_delete || !e->aggs ||
        !e->has_agg || !e->row || !e->scratch_a || !e->scratch_b)
        return pm_oom();
    for (size_t i = 0; i < e->nf; i++) {
        e->nullable[i] = vt->fields[i].type->nullable;
        e->field_group[i] = -1;
    }
    for (size_t k = 0; k < npk; k++) {
        ptrdiff_t f = pm_type_field_index(vt, pk[k]);
        if (f < 0)
            return pm_error_new(PM_EINVALID, "primary key '%s' is not a field of the table", pk[k]);
        e->is_pk[f] = true;
    }
    int engine;
    PM_TRY(pm_options_enum(o, PM_OPT_MERGE_ENGINE, &engine));
    switch (engine) {
    case PM_MERGE_PARTIAL_UPDATE: e->kind = PM_ENGINE_PARTIAL_UPDATE; break;
    case PM_MERGE_AGGREGATION: e->kind = PM_ENGINE_AGGREGATION; break;
    case PM_MERGE_FIRST_ROW: e->kind = PM_ENGINE_FIRST_ROW; break;
    default: e->kind = PM_ENGINE_DEDUPLICATE;
    }
    PM_TRY(pm_options_bool(o, PM_OPT_IGNORE_DELETE, &e->ignore_delete));
    PM_TRY(validate_fields_prefix(e, o));
    PM_TRY(parse_sequence_field(e, o));
    if (e->kind == PM_ENGINE_PARTIAL_UPDATE)
        PM_TRY(config_partial_update(e, o));
    else if (e->kind == PM_ENGINE_AGGREGATION)
        PM_TRY(config_aggregation(e, o));
    return NULL;
}

pm_error *pm_merge_fn_new(pm_merge_fn **out, const pm_type *value_type, const char *const *primary_keys,
                              size_t npk, const pm_options *options, const pm_merge_fn_options *eo)
{
    *out = NULL;
    pm_merge_fn *e = calloc(1, sizeof *e);
    if (!e)
        return pm_oom();
    e->mode = eo ? eo->mode : PM_MERGE_REDUCE;
    e->persist = eo ? eo->persist : false;
    e->winner = -1;
    pm_error *err = engine_init(e, value_type, primary_keys, npk, options);
    if (err) {
        pm_merge_fn_free(e);
        return pm_error_wrap(err, 0, "merge engine");
    }
    *out = e;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Fold                                                                */

static inline pm_mval cell(const pm_merge_fn *e, const pm_kv_rec *r, size_t f)
{
    return pm_mv_cell(r->batch->columns[e->in->value_cols[f]], r->row);
}

static pm_error *null_field(const pm_merge_fn *e, size_t f)
{
    return pm_error_new(PM_EINVALID, "field '%s' can not be null", e->vt->fields[f].name);
}

static void row_reset(pm_merge_fn *e)
{
    for (size_t i = 0; i < e->nf; i++)
        e->row[i] = pm_mv_null();
}

static pm_error *init_row(pm_merge_fn *e, const pm_kv_rec *r)
{
    for (size_t i = 0; i < e->nf; i++) {
        pm_mval v = cell(e, r, i);
        if (!e->nullable[i] && pm_mv_is_null(&v))
            return null_field(e, i);
        e->row[i] = v;
    }
    return NULL;
}

static bool group_empty(const pm_merge_fn *e, const pm_kv_rec *r, const pu_group *g, bool *processed)
{
    for (size_t s = 0; s < g->nseq; s++) {
        pm_mval v = cell(e, r, g->seq[s]);
        if (!pm_mv_is_null(&v))
            return false;
    }
    for (size_t s = 0; s < g->nseq; s++)
        processed[g->seq[s]] = true;
    return true;
}

/* The record's group ordering values against the row's (nulls first). */
static int group_cmp(const pm_merge_fn *e, const pm_kv_rec *r, const pu_group *g)
{
    for (size_t s = 0; s < g->nseq; s++) {
        size_t f = g->seq[s];
        pm_mval a = cell(e, r, f);
        const pm_mval *b = &e->row[f];
        bool an = pm_mv_is_null(&a), bn = pm_mv_is_null(b);
        if (an && bn)
            continue;
        if (an)
            return -1;
        if (bn)
            return 1;
        int c = pm_mv_compare(e->vt->fields[f].type, &a, b);
        if (c)
            return c;
    }
    return 0;
}

static pm_error *pu_update(pm_merge_fn *e, const pm_kv_rec *r)
{
    if (e->ngroups == 0) {
        for (size_t i = 0; i < e->nf; i++) {
            pm_mval v = cell(e, r, i);
            if (!pm_mv_is_null(&v))
                e->row[i] = v;
            else if (!e->nullable[i])
                return null_field(e, i);
        }
        return NULL;
    }
    bool *processed = e->scratch_a;
    memset(processed, 0, e->nf * sizeof *processed);
    for (size_t i = 0; i < e->nf; i++) {
        pm_agg *agg = e->has_agg[i] ? &e->aggs[i] : NULL;
        int gi = e->field_group[i];
        pm_mval in = cell(e, r, i);
        if (gi >= 0) {
            const pu_group *g = &e->groups[gi];
            if (processed[i] || group_empty(e, r, g, processed))
                continue;
            if (group_cmp(e, r, g) >= 0) {
                if (e->is_seq_field[i]) {
                    for (size_t s = 0; s < g->nseq; s++) {
                        e->row[g->seq[s]] = cell(e, r, g->seq[s]);
                        processed[g->seq[s]] = true;
                    }
                    continue;
                }
                if (agg)
                    PM_TRY(pm_agg_apply(agg, &e->row[i], &in, false));
                else
                    e->row[i] = in;
            } else if (agg) {
                PM_TRY(pm_agg_apply(agg, &e->row[i], &in, true));
            }
        } else if (agg) {
            PM_TRY(pm_agg_apply(agg, &e->row[i], &in, false));
        } else if (!pm_mv_is_null(&in)) {
            e->row[i] = in;
        }
    }
    return NULL;
}

/* Returns *deleted when a remove-record-on-sequence-group field deleted the row. */
static pm_error *pu_retract(pm_merge_fn *e, const pm_kv_rec *r, bool *deleted)
{
    *deleted = false;
    bool *processed = e->scratch_a, *updated = e->scratch_b;
    memset(processed, 0, e->nf * sizeof *processed);
    memset(updated, 0, e->nf * sizeof *updated);
    for (size_t i = 0; i < e->nf; i++) {
        int gi = e->field_group[i];
        if (gi < 0)
            continue;
        pm_agg *agg = e->has_agg[i] ? &e->aggs[i] : NULL;
        const pu_group *g = &e->groups[gi];
        if (processed[i] || group_empty(e, r, g, processed))
            continue;
        pm_mval in = cell(e, r, i);
        if (group_cmp(e, r, g) >= 0) {
            if (e->is_seq_field[i]) {
                for (size_t s = 0; s < g->nseq; s++) {
                    size_t f = g->seq[s];
                    if (!updated[f]) {
                        if (r->kind == PM_KIND_DELETE && e->partial_delete[f]) {
                            row_reset(e);
                            PM_TRY(init_row(e, r));
                            *deleted = true;
                            return NULL;
                        }
                        e->row[f] = cell(e, r, f);
                        updated[f] = true;
                    }
                    processed[f] = true;
                }
            } else if (!agg) {
                e->row[i] = pm_mv_null();
            } else {
                PM_TRY(pm_agg_retract(agg, &e->row[i], &in));
            }
        } else if (agg) {
            PM_TRY(pm_agg_retract(agg, &e->row[i], &in));
        }
    }
    return NULL;
}

static pm_error *fold_partial_update(pm_merge_fn *e)
{
    row_reset(e);
    for (size_t i = 0; i < e->nf; i++)
        if (e->has_agg[i])
            pm_agg_reset(&e->aggs[i]);
    bool meet_insert = false, filled = false, deleted = false, kept_retract = false;
    int64_t latest = 0;
    for (size_t j = 0; j < e->n; j++) {
        const pm_kv_rec *r = &e->recs[j];
        e->key_rec = j;
        deleted = false;
        if (pm_kind_is_retract(r->kind)) {
            if (!filled) {
                PM_TRY(init_row(e, r));
                filled = true;
            }
            if (e->ignore_delete)
                continue;
            kept_retract = true;
            latest = r->seq;
            if (e->ngroups) {
                PM_TRY(pu_retract(e, r, &deleted));
                continue;
            }
            if (e->remove_on_delete) {
                if (r->kind == PM_KIND_DELETE) {
                    deleted = true;
                    row_reset(e);
                    PM_TRY(init_row(e, r));
                }
                continue;
            }
            return pm_error_new(PM_EINVALID,
                                "partial-update can not accept delete records by default; configure "
                                "'ignore-delete' to ignore them, 'partial-update.remove-record-on-delete' to remove "
                                "the whole row, or sequence groups to retract partial columns (with "
                                "'partial-update.remove-record-on-sequence-group' to remove the row on deletes of "
                                "specific groups)");
        }
        latest = r->seq;
        PM_TRY(pu_update(e, r));
        meet_insert = true;
        filled = true;
    }
    e->res.has = true;
    e->res.kind = deleted || !meet_insert ? PM_KIND_DELETE : PM_KIND_INSERT;
    e->res.seq = latest;
    if (e->persist && e->n > 1) {
        if (e->res.kind == PM_KIND_DELETE && e->has_user_agg)
            return pm_error_new(PM_EUNSUPPORTED, "partial-update: a compound DELETE state with field aggregators "
                                                 "can not be persisted by compaction");
        if (kept_retract && e->has_unpersistable)
            return pm_error_new(PM_EUNSUPPORTED,
                                "partial-update: a compound state with retracts using first_value, "
                                "first_non_null_value, collect or listagg can not be persisted by compaction");
    }
    return NULL;
}

static pm_error *fold_aggregation(pm_merge_fn *e)
{
    row_reset(e);
    for (size_t i = 0; i < e->nf; i++)
        pm_agg_reset(&e->aggs[i]);
    bool deleted = false, any_retract = false;
    for (size_t j = 0; j < e->n; j++) {
        const pm_kv_rec *r = &e->recs[j];
        e->key_rec = j;
        deleted = e->remove_on_delete && r->kind == PM_KIND_DELETE;
        if (deleted) {
            row_reset(e);
            PM_TRY(init_row(e, r));
            continue;
        }
        bool retract = pm_kind_is_retract(r->kind);
        any_retract |= retract;
        for (size_t i = 0; i < e->nf; i++) {
            pm_mval in = cell(e, r, i);
            if (retract)
                PM_TRY(pm_agg_retract(&e->aggs[i], &e->row[i], &in));
            else
                PM_TRY(pm_agg_apply(&e->aggs[i], &e->row[i], &in, false));
        }
    }
    e->res.has = true;
    e->res.kind = deleted ? PM_KIND_DELETE : PM_KIND_INSERT;
    e->res.seq = e->recs[e->n - 1].seq;
    if (e->persist && e->n > 1 && any_retract && e->has_unpersistable)
        return pm_error_new(PM_EUNSUPPORTED, "aggregation: a compound state with retracts using first_value, "
                                             "first_non_null_value, collect or listagg can not be persisted by "
                                             "compaction");
    return NULL;
}

static pm_error *check_batch_types(pm_merge_fn *e, const pm_batch *b)
{
    if (b == e->checked)
        return NULL;
    for (size_t i = 0; i < e->nf; i++) {
        size_t c = e->in->value_cols[i];
        if (c >= b->ncolumns || b->columns[c]->type->id != e->vt->fields[i].type->id)
            return pm_error_new(PM_EINVALID, "merge input: value column for field '%s' has the wrong type",
                                e->vt->fields[i].name);
    }
    e->checked = b;
    return NULL;
}

pm_error *pm_merge_fn_fold(pm_merge_fn *e, const pm_kv_layout *in, const pm_kv_rec *recs, size_t n,
                               pm_merge_result *res)
{
    memset(&e->res, 0, sizeof e->res);
    memset(res, 0, sizeof *res);
    e->in = in;
    e->recs = recs;
    e->n = n;
    e->winner = -1;
    if (n == 0)
        return NULL;
    if (in->nvalue != e->nf)
        return pm_error_new(PM_EINVALID, "merge input layout has %zu value fields, the table %zu", in->nvalue, e->nf);
    if (e->kind == PM_ENGINE_PARTIAL_UPDATE || e->kind == PM_ENGINE_AGGREGATION)
        for (size_t j = 0; j < n; j++)
            PM_TRY(check_batch_types(e, recs[j].batch));
    pm_error *err = NULL;
    if (n == 1 && e->mode == PM_MERGE_REDUCE) {
        e->winner = 0;
    } else {
        switch (e->kind) {
        case PM_ENGINE_DEDUPLICATE:
            for (size_t j = 0; j < n; j++)
                if (!(e->ignore_delete && pm_kind_is_retract(recs[j].kind)))
                    e->winner = (long)j;
            break;
        case PM_ENGINE_FIRST_ROW:
            for (size_t j = 0; j < n && !err; j++) {
                if (pm_kind_is_retract(recs[j].kind)) {
                    if (!e->ignore_delete)
                        err = pm_error_new(PM_EINVALID, "the first-row merge engine can not accept DELETE/"
                                                        "UPDATE_BEFORE records; configure 'ignore-delete' to ignore them");
                    continue;
                }
                if (e->winner < 0)
                    e->winner = (long)j;
            }
            break;
        case PM_ENGINE_PARTIAL_UPDATE: err = fold_partial_update(e); break;
        case PM_ENGINE_AGGREGATION: err = fold_aggregation(e); break;
        }
    }
    if (err) {
        e->res.has = false;
        return err;
    }
    if (e->winner >= 0) {
        e->res.has = true;
        e->res.kind = recs[e->winner].kind;
        e->res.seq = recs[e->winner].seq;
        e->key_rec = (size_t)e->winner;
    }
    *res = e->res;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Emit                                                                */

static bool same_layout(const pm_kv_layout *a, const pm_kv_layout *b)
{
    return a->nkey == b->nkey && a->nvalue == b->nvalue && a->seq_col == b->seq_col && a->kind_col == b->kind_col &&
           (a->nkey == 0 || memcmp(a->key_cols, b->key_cols, a->nkey * sizeof *a->key_cols) == 0) &&
           (a->nvalue == 0 || memcmp(a->value_cols, b->value_cols, a->nvalue * sizeof *a->value_cols) == 0);
}

static pm_error *roles_for(pm_merge_fn *e, const pm_kv_layout *l, const pm_batch *out)
{
    size_t ncols = out->ncolumns;
    if (e->cache_valid && e->nrole == ncols && same_layout(&e->cache, l))
        return NULL;
    e->cache_valid = false;
    pm_kv_layout_clear(&e->cache);
    PM_TRY(pm_kv_layout_copy(&e->cache, l));
    int *role = realloc(e->role, (ncols ? ncols : 1) * sizeof *role);
    if (!role)
        return pm_oom();
    e->role = role;
    int *width = realloc(e->width, (ncols ? ncols : 1) * sizeof *width);
    if (!width)
        return pm_oom();
    e->width = width;
    for (size_t c = 0; c < ncols; c++)
        width[c] = pm_type_value_width(out->columns[c]->type);
    e->nrole = ncols;
    for (size_t c = 0; c < ncols; c++) {
        int r = INT32_MIN;
        if (c == l->seq_col)
            r = ROLE_SEQ;
        else if (c == l->kind_col)
            r = ROLE_KIND;
        for (size_t i = 0; i < l->nvalue && r == INT32_MIN; i++)
            if (l->value_cols[i] == c)
                r = (int)i;
        for (size_t k = 0; k < l->nkey && r == INT32_MIN; k++)
            if (l->key_cols[k] == c)
                r = ROLE_KEY0 - (int)k;
        if (r == INT32_MIN)
            return pm_error_new(PM_EINVALID, "output column %zu is not part of the KeyValue layout", c);
        if (r >= 0 && (size_t)r >= e->nf)
            return pm_error_new(PM_EINVALID, "output layout has more value fields than the table");
        role[c] = r;
    }
    e->cache_valid = true;
    return NULL;
}

static inline pm_error *put_i64(pm_column *dst, int64_t v)
{
    if (dst->validity.len == 0 && dst->values.cap - dst->values.len >= 8) {
        memcpy(dst->values.data + dst->values.len, &v, 8);
        dst->values.len += 8;
        dst->length++;
        return NULL;
    }
    return pm_column_append_i64(dst, v);
}

static inline pm_error *put_i8(pm_column *dst, int8_t v)
{
    if (dst->validity.len == 0 && dst->values.cap > dst->values.len) {
        dst->values.data[dst->values.len++] = (uint8_t)v;
        dst->length++;
        return NULL;
    }
    return pm_column_append_i8(dst, v);
}

pm_error *pm_merge_fn_emit(pm_merge_fn *e, pm_batch *out, const pm_kv_layout *ol)
{
    if (!e->res.has)
        return pm_error_new(PM_EINVALID, "merge engine: nothing to emit");
    PM_TRY(roles_for(e, ol, out));
    const pm_kv_layout *in = e->in;
    const pm_kv_rec *kr = &e->recs[e->key_rec];
    for (size_t c = 0; c < out->ncolumns; c++) {
        pm_column *dst = out->columns[c];
        int r = e->role[c];
        if (r == ROLE_SEQ) {
            PM_TRY(put_i64(dst, e->res.seq));
        } else if (r == ROLE_KIND) {
            PM_TRY(put_i8(dst, (int8_t)e->res.kind));
        } else if (r <= ROLE_KEY0) {
            size_t k = (size_t)(ROLE_KEY0 - r);
            if (k >= in->nkey)
                return pm_error_new(PM_EINVALID, "output layout has more key fields than the input");
            PM_TRY(pm_kv_copy_cell(dst, e->width[c], kr->batch->columns[in->key_cols[k]], kr->row));
        } else if (e->winner >= 0) {
            PM_TRY(pm_kv_copy_cell(dst, e->width[c], kr->batch->columns[in->value_cols[r]], kr->row));
        } else {
            PM_TRY(pm_error_wrap(pm_mv_append(dst, &e->row[r]), 0, "field '%s'", e->vt->fields[r].name));
        }
    }
    return NULL;
}

size_t pm_merge_lookup_pick(const pm_kv_rec *recs, size_t n, const int32_t *level, size_t nlevel, pm_kv_rec *out)
{
    size_t high = SIZE_MAX;
    int32_t high_level = 0;
    for (size_t i = 0; i < n; i++) {
        int32_t l = recs[i].source < nlevel ? level[recs[i].source] : 0;
        if (l > 0 && (high == SIZE_MAX || l < high_level)) {
            high = i;
            high_level = l;
        }
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int32_t l = recs[i].source < nlevel ? level[recs[i].source] : 0;
        if (l <= 0 || i == high)
            out[k++] = recs[i];
    }
    return k;
}
