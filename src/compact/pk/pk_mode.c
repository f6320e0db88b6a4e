/*
 * compact/pk/pk_mode.c — the primary-key mode: which primary-key tables
 * compaction supports, the part of tasks and results (pk_compact.h:
 * value, copy, its agreement with the task), and pm_compact_pk_mode, the
 * ops the shared core calls (compact_mode.h).
 *
 * Supported: fixed buckets, dynamic buckets (bucket = -1: the hash
 * index places each key in one bucket; compaction works per bucket and
 * leaves that index alone, as Java's does) and postpone buckets (bucket =
 * -2: one run assigns real buckets, pk_postpone.c); merge engines deduplicate,
 * first-row, partial-update, aggregation; deletion vectors (not with
 * first-row); changelog-producer none / input / lookup (every engine) /
 * full-compaction (not with first-row; with deletion vectors the
 * compactions below the max level mark replaced rows through lookups and
 * the full compactions write the changelog).
 * Everything else is refused naming it.
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "compact/pk/pk_compact.h"
#include "lsm/merge_engine.h"
#include "meta/options.h"
#include "table/lookup_file.h"

pm_error *pm_pk_check_options(pm_table *t, const pm_options *o)
{
    int32_t nb = pm_table_num_buckets(t);
    /* Dynamic bucket mode (bucket=-1): the hash index places each key in
     * one bucket; compaction works per bucket as for fixed buckets and
     * leaves that index alone (Java's too).  Postpone (bucket=-2):
     * pk_postpone.c. */
    if (nb == -2) {
        int producer = 0;
        PM_TRY(pm_options_enum(o, PM_OPT_CHANGELOG_PRODUCER, &producer));
        if (producer != PM_CHANGELOG_NONE)
            return pm_error_new(PM_EUNSUPPORTED, "compaction of postpone-bucket tables (bucket=-2) with "
                                                 "changelog-producer=%s is not supported yet",
                                pm_options_get(o, "changelog-producer"));
    }
    if (nb == 0 || nb < -2)
        return pm_error_new(PM_EINVALID, "bucket=%d is not valid for a primary-key table", (int)nb);
    bool b = false;
    PM_TRY(pm_options_bool(o, PM_OPT_DELETION_VECTORS_ENABLED, &b));
    int engine = 0;
    PM_TRY(pm_options_enum(o, PM_OPT_MERGE_ENGINE, &engine));
    if (b && engine == PM_MERGE_FIRST_ROW)
        return pm_error_new(PM_EINVALID, "merge-engine=first-row does not use deletion vectors "
                                         "(deletion-vectors.enabled=true): it never deletes old data");
    int producer = 0;
    PM_TRY(pm_options_enum(o, PM_OPT_CHANGELOG_PRODUCER, &producer));
    if (producer == PM_CHANGELOG_FULL_COMPACTION && engine == PM_MERGE_FIRST_ROW)
        return pm_error_new(PM_EUNSUPPORTED, "compaction of primary-key tables with changelog-producer="
                                             "full-compaction is not supported with merge-engine=first-row");
    /* the local cache's options (lookups of retained levels) */
    bool cache = false;
    pm_lookup_cache_options co;
    PM_TRY(pm_lookup_cache_options_parse(o, &cache, &co));
    pm_lookup_cache_options_clear(&co);
    const char *v = pm_options_get(o, "record-level.expire-time");
    if (v && *v)
        return pm_error_new(PM_EUNSUPPORTED, "compaction of primary-key tables with record-level.expire-time is not "
                                             "supported yet");
    return pm_compact_check_common(t, o, "primary-key tables");
}

/* Key prefixes of the options the executor takes from the table's schema. */
static const char *const execution_keys[] = {
    "merge-engine", "fields.", "sequence.field", "ignore-delete", "ignore-update-before", "partial-update.",
    "aggregation.", "first-row.", "changelog-producer", "changelog-file.", "changelog.", "deletion-vectors.",
    "force-lookup", "local-cache.", "lookup.", "record-level.",
};

pm_error *pm_pk_check_dynamic_options(pm_table *t, const pm_options *o)
{
    const pm_options *table = pm_table_options(t);
    for (size_t i = 0; i < pm_options_count(o); i++) {
        const char *k = pm_options_key_at(o, i), *v = pm_options_value_at(o, i);
        const char *tv = pm_options_get(table, k);
        if (tv && !strcmp(tv, v))
            continue;
        for (size_t j = 0; j < sizeof execution_keys / sizeof *execution_keys; j++)
            if (!strncmp(k, execution_keys[j], strlen(execution_keys[j])))
                return pm_error_new(PM_EUNSUPPORTED, "option %s cannot be set for one compaction of a primary-key "
                                                     "table (dynamic options change planning and output settings "
                                                     "only): set it on the table",
                                    k);
    }
    return NULL;
}

pm_error *pm_pk_mode_select(pm_table *t, const pm_compact_mode_ops **out)
{
    *out = NULL;
    if (!pm_table_has_primary_key(t))
        return NULL;
    PM_TRY(pm_pk_check_options(t, pm_table_options(t)));
    *out = &pm_compact_pk_mode;
    return NULL;
}

/* ------------------------------------------------------------------ */
/* the part                                                            */

pm_compact_pk *pm_pk_part(const pm_compact_part *p)
{
    return p && p->mode == &pm_compact_pk_mode ? (pm_compact_pk *)(uintptr_t)p : NULL;
}

pm_error *pm_compact_pk_new(pm_compact_pk **out)
{
    PM_TRY(pm_calloc(out, 1, sizeof **out));
    (*out)->base.mode = &pm_compact_pk_mode;
    return NULL;
}

static void part_free(pm_compact_part *p) { free(pm_pk_part(p)); }

static pm_error *part_copy(pm_compact_part **out, const pm_compact_part *p)
{
    *out = NULL;
    pm_compact_pk *c = NULL;
    PM_TRY(pm_calloc(&c, 1, sizeof *c));
    *c = *pm_pk_part(p);
    *out = &c->base;
    return NULL;
}

/* The task's output level is the part's, and no input sits above the
 * bucket's max level. */
static pm_error *part_check(const pm_compact_task *t, const char *doc)
{
    const pm_compact_pk *pk = pm_pk_part(t->part);
    if (pk->output_level != t->output.level)
        return pm_error_new(PM_EINVALID, "%s.pk: output level %d differs from output.level %d", doc,
                            (int)pk->output_level, (int)t->output.level);
    for (size_t i = 0; i < t->nfiles; i++)
        if (t->files[i].level > pk->max_level)
            return pm_error_new(PM_EINVALID, "%s.files[%zu].level: input %s is at level %d, above the task's max "
                                "level %d", doc, i, t->files[i].file_name, (int)t->files[i].level,
                                (int)pk->max_level);
    return NULL;
}

/* ------------------------------------------------------------------ */
/* the mode                                                            */

/* Postpone-bucket tables compact in one run (pk_postpone.c). */
static pm_error *run(pm_compact_metrics *out, pm_compact_builder *b, bool *done)
{
    *done = false;
    return pm_pk_is_postpone(b->table) ? pm_pk_postpone_run(out, b, done) : NULL;
}

/* A bucket's tasks of one plan follow each other (levels). */
const pm_compact_mode_ops pm_compact_pk_mode = {
    .name = "primary-key",
    .part_key = "pk",
    .ordered_buckets = true,
    .planner_new = pm_pk_planner_new,
    .plan_bucket = pm_pk_plan_bucket,
    .planner_free = pm_pk_planner_free,
    .pending = pm_pk_pending,
    .execute = pm_pk_execute,
    .validate = pm_pk_validate,
    .validate_free = pm_pk_validate_free,
    .run = run,
    .write_stall = pm_pk_write_stall,
    .part_free = part_free,
    .part_copy = part_copy,
    .part_to_json = pm_compact_pk_to_json,
    .part_from_json = pm_compact_pk_from_json,
    .part_check = part_check,
};
