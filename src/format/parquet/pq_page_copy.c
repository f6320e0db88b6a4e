/*
 * format/parquet/pq_page_copy.c — offered input pages taken into a column
 * writer's chunk unchanged (rules and steps in pq_page_copy.h).
 */
#include "format/parquet/pq_page_copy.h"

#include <string.h>

#include "format/parquet/parquet_meta.h"

/* Elements of the subtree at e[i] (itself included); n bounds the walk. */
static uint32_t subtree(const pq_schema_element *e, uint32_t n, uint32_t i)
{
    uint32_t end = i + 1;
    int32_t kids = e[i].has_num_children ? e[i].num_children : 0;
    for (int32_t k = 0; k < kids && end < n; k++)
        end += subtree(e, n, end);
    return end - i;
}

const pq_schema_element *pq_schema_top_element(const pq_schema_element *e, uint32_t n, const char *name)
{
    if (!n || !e[0].has_num_children)
        return NULL;
    uint32_t i = 1;
    for (int32_t k = 0; k < e[0].num_children && i < n; k++) {
        if (e[i].name && strcmp(e[i].name, name) == 0)
            return &e[i];
        i += subtree(e, n, i);
    }
    return NULL;
}

bool pq_schema_same_storage(const pq_schema_element *a, const pq_schema_element *b)
{
    if (a->has_num_children || b->has_num_children || !a->has_type || !b->has_type || a->type != b->type)
        return false;
    if (a->has_type_length != b->has_type_length || (a->has_type_length && a->type_length != b->type_length))
        return false;
    int32_t ra = a->has_repetition ? a->repetition : 0, rb = b->has_repetition ? b->repetition : 0;
    if (ra != rb || a->has_converted_type != b->has_converted_type ||
        (a->has_converted_type && a->converted_type != b->converted_type))
        return false;
    if (a->has_scale != b->has_scale || (a->has_scale && a->scale != b->scale) ||
        a->has_precision != b->has_precision || (a->has_precision && a->precision != b->precision))
        return false;
    if (a->has_logical_type != b->has_logical_type)
        return false;
    if (!a->has_logical_type)
        return true;
    const pq_logical_type *x = &a->logical_type, *y = &b->logical_type;
    return x->kind == y->kind && x->decimal_scale == y->decimal_scale && x->decimal_precision == y->decimal_precision &&
           x->is_adjusted_to_utc == y->is_adjusted_to_utc && x->unit == y->unit &&
           x->int_bit_width == y->int_bit_width && x->int_is_signed == y->int_is_signed;
}

pm_error *pq_colw_offer_page(pq_colw *cw, const uint8_t *page, size_t len, pm_codec_id codec, int64_t rows,
                             bool *taken)
{
    *taken = false;
    const pq_leaf *l = cw->leaf;
    if (!l->flat || l->max_rep > 0 || rows <= 0 || rows > INT32_MAX || codec != cw->opt->codec ||
        codec == PM_CODEC_NONE)
        return NULL;
    if (cw->dict_on) {
        /* a chunk that holds no value yet may start PLAIN */
        if (!(cw->first_page && cw->page_values == 0 && cw->dict.count == 0 && !cw->fwd_dict))
            return NULL;
    }
    pq_page_header h;
    size_t hl = 0;
    pm_error *e = pm_pq_page_header_parse(&h, page, len, &hl);
    if (e) {
        pm_error_free(e); /* not a page we can vouch for: encoded as usual */
        return NULL;
    }
    if (h.type != PQ_DATA_PAGE || !h.has_data_page_header || h.data_page_header.num_values != rows ||
        h.data_page_header.encoding != PQ_ENC_PLAIN || h.compressed_page_size < 0 ||
        (size_t)h.compressed_page_size != len - hl || h.uncompressed_page_size < 0 ||
        (l->max_def > 0 && h.data_page_header.definition_level_encoding != PQ_ENC_RLE))
        return NULL;
    PM_TRY(pq_colw_close_page(cw));
    cw->copy.len = 0;
    PM_TRY(pm_buf_append(&cw->copy, page, len));
    cw->dict_on = false;
    cw->copy_rows = rows;
    cw->copy_uncompressed = (int64_t)hl + h.uncompressed_page_size;
    *taken = true;
    return NULL;
}

void pq_colw_cancel_page(pq_colw *cw)
{
    cw->copy_rows = 0;
}

pm_error *pq_colw_put_offered(pq_colw *cw, bool *done)
{
    *done = false;
    int64_t rows = cw->copy_rows;
    cw->copy_rows = 0;
    if (!rows || cw->page_rows != rows || cw->page_values != rows || cw->dict_on)
        return NULL;
    const pq_leaf *l = cw->leaf;
    uint64_t at = cw->chunk.len;
    uint8_t *to;
    PM_TRY(pq_page_blocks_take(&cw->chunk, cw->opt->buffers, cw->copy.len, &to));
    memcpy(to, cw->copy.data, cw->copy.len);
    PM_TRY(pq_page_index_add(&cw->pidx, l, &cw->pstats, cw->page_values, (int64_t)at, (int32_t)cw->copy.len,
                             cw->chunk_rows, cw->page_unencoded, cw->rep_hist, cw->def_hist));
    PM_TRY(pq_stats_merge(&cw->stats, &cw->pstats));
    cw->first_page = false;
    cw->chunk_rows += cw->page_rows;
    cw->chunk_uncompressed += cw->copy_uncompressed;
    cw->chunk_values += cw->page_values;
    cw->pages_plain++;
    cw->copied++;
    *done = true;
    return NULL;
}
