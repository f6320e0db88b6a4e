/*
 * tests/fuzz/fuzz_orc_proto.c — libFuzzer target for ORC's protobuf codec
 * and message parsers: the first byte picks the message (PostScript,
 * Footer, StripeFooter, Metadata, RowIndex, ColumnStatistics), the rest is
 * its bytes.  Parsed ColumnStatistics and Types are serialized again and
 * re-parsed: the second parse must succeed and give the same values.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/buf.h"
#include "format/orc/orc_meta.h"

static int same_str(const pm_orc_str *a, const pm_orc_str *b)
{
    return a->len == b->len && (a->len == 0 || !memcmp(a->data, b->data, a->len));
}

static void check_stats(pm_arena *a, const pm_orc_stats *s)
{
    pm_buf b = PM_BUF_INIT;
    pm_orc_stats t;
    if (orc_put_stats(&b, s))
        abort();
    pm_error *e = orc_parse_stats(a, b.data ? b.data : (const uint8_t *)"", b.len, &t);
    if (e)
        abort();
    if (t.has_count != s->has_count || t.count != s->count || t.has_null != s->has_null ||
        t.ints.min != s->ints.min || t.ints.has_sum != s->ints.has_sum || t.date.max != s->date.max ||
        t.ts.max_nanos != s->ts.max_nanos || t.coll.total != s->coll.total || t.bin.sum != s->bin.sum ||
        t.bucket.ncount != s->bucket.ncount || !same_str(&t.str.min, &s->str.min) ||
        !same_str(&t.dec.sum, &s->dec.sum))
        abort();
    pm_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    pm_arena a;
    pm_arena_init(&a, 0);
    pm_error *e = NULL;
    switch (data[0] % 6) {
    case 0: {
        orc_postscript ps;
        e = orc_parse_postscript(p, n, &ps);
        break;
    }
    case 1: {
        orc_footer ft;
        e = orc_parse_footer(&a, p, n, &ft);
        if (!e) {
            for (uint32_t i = 0; i < ft.nstats; i++)
                check_stats(&a, &ft.stats[i]);
            pm_buf b = PM_BUF_INIT;
            for (uint32_t i = 0; i < ft.ntypes; i++)
                if (orc_put_type(&b, &ft.types[i]))
                    abort();
            pm_buf_free(&b);
        }
        break;
    }
    case 2: {
        orc_stripe_footer sf;
        e = orc_parse_stripe_footer(&a, p, n, &sf);
        break;
    }
    case 3: {
        orc_metadata md;
        e = orc_parse_metadata(&a, p, n, &md);
        break;
    }
    case 4: {
        orc_row_index ri;
        e = orc_parse_row_index(&a, p, n, &ri);
        if (!e)
            for (uint32_t i = 0; i < ri.nentries; i++)
                if (ri.entries[i].has_stats)
                    check_stats(&a, &ri.entries[i].stats);
        break;
    }
    default: {
        pm_orc_stats st;
        e = orc_parse_stats(&a, p, n, &st);
        if (!e)
            check_stats(&a, &st);
        break;
    }
    }
    pm_error_free(e);
    pm_arena_free(&a);
    return 0;
}
