/*
 * tests/fuzz/fuzz_pq_write.c — libFuzzer target for the Parquet writer.
 *
 * Input layout: line 1 = a row type ("ROW<a INT, b ARRAY<STRING>>" or a
 * field list); byte 0 of line 2 = option bits (page row limit, dictionary,
 * tiny dictionary page, tiny row groups, codec); the rest = JSON lines.
 * Whatever parses is written to a file; the file must then have a footer
 * that parses, the right row count, chunks whose page headers parse and
 * add up to each chunk's value count and size, and page indexes between the
 * data and the footer.  Line 1 is also fed to the
 * memory-size parser.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/parquet_writer.h"
#include "io/fileio.h"
#include "types/column.h"
#include "types/value.h"

static void check_file(const char *path, int64_t rows)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        abort();
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc((size_t)len);
    if (!d || fread(d, 1, (size_t)len, f) != (size_t)len)
        abort();
    fclose(f);
    if (len < 12 || memcmp(d, "PAR1", 4) || memcmp(d + len - 4, "PAR1", 4))
        abort();
    uint32_t n;
    memcpy(&n, d + len - 8, 4);
    if ((long)n + 12 > len)
        abort();
    pm_pq_file_meta *m = NULL;
    pm_error *e = pm_pq_file_meta_parse(&m, d + len - 8 - n, n);
    if (e)
        abort();
    if (m->num_rows != rows)
        abort();
    int64_t total = 0;
    for (uint32_t g = 0; g < m->num_row_groups; g++) {
        const pq_row_group *rg = &m->row_groups[g];
        total += rg->num_rows;
        for (uint32_t c = 0; c < rg->num_columns; c++) {
            const pq_column_meta *cm = &rg->columns[c].meta_data;
            int64_t off = cm->has_dictionary_page_offset ? cm->dictionary_page_offset : cm->data_page_offset;
            int64_t end = off + cm->total_compressed_size, values = 0;
            if (off < 4 || end > len - 8 - (long)n)
                abort();
            while (off < end) {
                pq_page_header h;
                size_t used;
                if (pm_pq_page_header_parse(&h, d + off, (size_t)(end - off), &used))
                    abort();
                if (h.type == PQ_DATA_PAGE)
                    values += h.data_page_header.num_values;
                off += (int64_t)used + h.compressed_page_size;
            }
            if (off != end || values != cm->num_values)
                abort();
            /* page indexes sit between the last chunk and the footer */
            const pq_column_chunk *cc = &rg->columns[c];
            long foot = len - 8 - (long)n;
            if (!cc->has_offset_index || cc->offset_index_offset < end ||
                cc->offset_index_offset + cc->offset_index_length > foot)
                abort();
            if (cc->has_column_index &&
                (cc->column_index_offset < end || cc->column_index_offset + cc->column_index_length > foot))
                abort();
        }
    }
    if (total != rows)
        abort();
    pm_pq_file_meta_free(m);
    free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    if (!nl || nl + 1 >= data + size)
        return 0;
    char *type_text = strndup((const char *)data, (size_t)(nl - data));
    int64_t ms;
    pm_error_free(pm_pq_parse_memory_size(type_text, &ms));
    uint8_t bits = nl[1];
    const char *json = (const char *)nl + 2;
    size_t json_len = size - (size_t)(nl + 2 - data);

    pm_type *t = NULL;
    pm_batch *b = NULL;
    pm_error *e = pm_type_parse(&t, type_text);
    if (e || t->id != PM_TYPE_ROW)
        goto done;
    t->nullable = false;
    e = pm_batch_from_json_lines(&b, t, json, json_len);
    if (e)
        goto done;

    pm_pq_writer_options o;
    pm_pq_writer_options_default(&o);
    o.page_row_limit = 1 + (bits & 7);
    o.dictionary = !(bits & 8);
    if (bits & 16)
        o.dictionary_page_size = 64;
    if (bits & 32)
        o.row_group_size = 256;
    o.codec = (bits & 64) ? PM_CODEC_SNAPPY : PM_CODEC_NONE;
    o.page_size = (bits & 128) ? 128 : 1 << 20;

    char path[64];
    snprintf(path, sizeof path, "/tmp/fuzz_pq_write_%d.parquet", (int)getpid());
    pm_fileio *fio = NULL;
    pm_output *out = NULL;
    pm_pq_writer *w = NULL;
    if (pm_fileio_local_new(&fio) || pm_output_create(fio, path, true, &out))
        abort();
    e = pm_pq_writer_new(&w, out, t, &o);
    if (!e) {
        /* write the batch twice: the second time into a warmed-up writer */
        e = pm_pq_writer_write(w, b);
        if (!e)
            e = pm_pq_writer_write(w, b);
        if (!e) {
            pm_pq_write_result res;
            e = pm_pq_writer_close(w, &res);
            w = NULL;
            if (!e) {
                if (res.row_count != 2 * b->num_rows)
                    abort();
                pm_pq_write_result_free(&res);
                if (pm_output_close(out, false))
                    abort();
                out = NULL;
                check_file(path, 2 * b->num_rows);
            }
        }
    }
    pm_error_free(e);
    e = NULL;
    pm_pq_writer_abort(w);
    pm_output_abort(out);
    unlink(path);
    pm_fileio_free(fio);
done:
    pm_error_free(e);
    pm_batch_free(b);
    pm_type_free(t);
    free(type_text);
    return 0;
}
