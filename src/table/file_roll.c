/*
 * table/file_roll.c — steps shared by the rolling data-file writers
 * (file_roll.h).
 */
#include "table/file_roll.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "base/util.h"
#include "types/column.h"

pm_error *pm_roll_avro_codec(const pm_options *o, const char *compression, pm_avro_write_options *out)
{
    memset(out, 0, sizeof *out);
    int32_t level = 1;
    PM_TRY(pm_options_int(o, PM_OPT_FILE_COMPRESSION_ZSTD_LEVEL, NULL, &level));
    const char *name = pm_options_get(o, "avro.codec");
    const char *which = "avro.codec";
    if (!name) {
        name = compression;
        if (!name)
            PM_TRY(pm_options_string(o, PM_OPT_FILE_COMPRESSION, &name));
        which = "file.compression";
        if (!strcasecmp(name, "zstd")) {
            out->codec = PM_CODEC_ZSTD;
            out->level = level;
            return NULL;
        }
    }
    if (!strcmp(name, "null") || !strcasecmp(name, "none") || !strcasecmp(name, "uncompressed")) {
        out->codec = PM_CODEC_NONE;
    } else if (!strcmp(name, "deflate")) {
        out->codec = PM_CODEC_DEFLATE;
    } else if (!strcmp(name, "snappy")) {
        out->codec = PM_CODEC_SNAPPY;
    } else if (!strcmp(name, "zstandard")) {
        out->codec = PM_CODEC_ZSTD;
        out->level = 3; /* Avro's zstandard default */
    } else {
        return pm_error_new(PM_EUNSUPPORTED, "%s=%s is not an Avro codec paimon-c writes "
                                             "(null, deflate, snappy, zstandard, zstd)", which, name);
    }
    return NULL;
}

pm_error *pm_roll_copy_range(pm_batch *dst, const pm_batch *b, int64_t from, int64_t to)
{
    PM_TRY(pm_batch_reset(dst));
    for (size_t c = 0; c < b->ncolumns; c++) {
        pm_column *d = dst->columns[c];
        PM_TRY(pm_column_reserve(d, to - from));
        for (int64_t r = from; r < to; r++)
            PM_TRY(pm_column_append_from(d, b->columns[c], r));
    }
    return pm_batch_finish(dst, to - from);
}

uint64_t pm_roll_raw_bytes(const pm_batch *b)
{
    uint64_t n = 0;
    for (size_t c = 0; c < b->ncolumns; c++) {
        const pm_column *col = b->columns[c];
        n += col->values.len + col->data.len + col->offsets.len + col->validity.len;
        for (size_t k = 0; k < col->nchildren; k++)
            n += col->children[k]->values.len + col->children[k]->data.len;
    }
    return n;
}

pm_error *pm_roll_close_format(pm_pq_writer **pq, pm_avro_writer *avro, pm_output **out,
                               pm_pq_write_result *res, uint64_t *size)
{
    pm_error *e = NULL;
    if (*pq) {
        pm_pq_writer *w = *pq;
        *pq = NULL;
        e = pm_pq_writer_close(w, res);
        if (!e)
            *size = res->file_size;
    } else {
        e = pm_avro_writer_finish(avro);
        if (!e)
            *size = pm_output_pos(*out);
    }
    if (e)
        return e;
    pm_output *o = *out;
    *out = NULL;
    return pm_output_close(o, true);
}

pm_error *pm_roll_col_stats(const pm_type *type, const pm_stats_mode *modes, bool disabled, pm_stats_accum *accs,
                            const pm_pq_write_result *res, pm_col_stats **out)
{
    size_t nf = type->nfields;
    pm_col_stats *cs;
    PM_TRY(pm_calloc(&cs, nf ? nf : 1, sizeof *cs));
    pm_error *e = NULL;
    for (size_t i = 0; i < nf && !e; i++) {
        if (disabled)
            continue; /* NONE */
        if (accs)
            pm_stats_accum_result(&accs[i], &cs[i]);
        else if (res && i < res->ncolumns)
            e = pm_col_stats_from_parquet(type->fields[i].type, modes[i], &res->stats[i], &cs[i]);
    }
    if (e) {
        for (size_t i = 0; i < nf; i++)
            pm_col_stats_clear(&cs[i]);
        free(cs);
        return e;
    }
    *out = cs;
    return NULL;
}

static const uint8_t EMPTY_ROW_SER[12] = {0};

pm_error *pm_roll_empty_keys(pm_data_file_meta *m)
{
    PM_TRY(pm_bytes_set(&m->min_key, EMPTY_ROW_SER, sizeof EMPTY_ROW_SER));
    PM_TRY(pm_bytes_set(&m->max_key, EMPTY_ROW_SER, sizeof EMPTY_ROW_SER));
    return pm_simple_stats_empty(&m->key_stats);
}

void pm_roll_stamp(pm_data_file_meta *m, int64_t deletes, pm_file_source source)
{
    m->creation_time.has = true;
    m->creation_time.v = pm_now_local_millis();
    m->delete_row_count.has = true;
    m->delete_row_count.v = deletes;
    m->file_source.has = true;
    m->file_source.v = source;
}

pm_error *pm_roll_push_file(pm_data_file_meta **arr, size_t *n, size_t *cap, const pm_data_file_meta *m)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 4;
        PM_TRY(pm_realloc_array(arr, c, sizeof **arr));
        *cap = c;
    }
    (*arr)[(*n)++] = *m;
    return NULL;
}
