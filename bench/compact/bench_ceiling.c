/*
 * bench/compact/bench_ceiling.c — the zstd-1 ceiling of a Parquet rewrite,
 * measured on the very pages the rewrite reads and writes.
 *
 *   bench_ceiling --inputs LIST --outputs LIST [--rounds K] [--level L]
 *       LIST: a text file with one Parquet file path per line.
 *
 * Steps:
 *   1. every page of every column chunk of the inputs is read (untimed):
 *      its compressed body, exactly as stored (zstd frames of the page
 *      sizes the writer chose, without a content size when Java wrote
 *      them);
 *   2. every page of the outputs is read and decompressed (untimed): the
 *      uncompressed bodies the rewrite had to compress, at its page sizes;
 *   3. timed, K rounds (median reported): decompress every input page with
 *      one reused ZSTD_DCtx (ZSTD_decompressDCtx into a reused buffer of
 *      the page's size, what the reader does), then compress every output
 *      body with one reused ZSTD_CCtx at level L (ZSTD_compress2, what the
 *      writer does).
 *   4. timed, K rounds (median reported), a separate figure beside the
 *      codec-only ceiling: the file I/O no rewrite avoids, from and to the
 *      page cache: every input file opened, read whole (one pread into a
 *      reused buffer) and closed; every output file's bytes written into
 *      a new file beside it (one write, then close; unlinked untimed).  No
 *      fsync: the durable-commit cost is the rewrite's own.
 * CPU seconds are this thread's (CLOCK_THREAD_CPUTIME_ID: user + system).
 * The libzstd is the one paimon-c links.  Prints one JSON line: pages and
 * bytes on both sides, the median CPU seconds of each half and their sum
 * (the ceiling), the MB/s (uncompressed MB per CPU second), and the I/O
 * figure (io_read_cpu_s, io_write_cpu_s, ceiling_with_io_cpu_s = the
 * ceiling + both).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "format/parquet/parquet_meta.h"

typedef struct page {
    const uint8_t *data; /* compressed body (inputs) or uncompressed body (outputs) */
    size_t len;
    size_t out_len;      /* inputs: the uncompressed size */
} page;

typedef struct pages {
    page *v;
    size_t n, cap;
    size_t bytes, unc_bytes;
} pages;

static void fail(const char *fmt, const char *what)
{
    fprintf(stderr, "bench_ceiling: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n");
    exit(1);
}

static double thread_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc(n > 0 ? (size_t)n : 1);
    if (!d || fread(d, 1, (size_t)n, f) != (size_t)n)
        fail("cannot read %s", path);
    fclose(f);
    *len = (size_t)n;
    return d;
}

static void push(pages *ps, page p)
{
    if (ps->n == ps->cap) {
        ps->cap = ps->cap ? 2 * ps->cap : 4096;
        ps->v = realloc(ps->v, ps->cap * sizeof *ps->v);
        if (!ps->v)
            fail("%s", "out of memory");
    }
    ps->v[ps->n++] = p;
}

/* The inputs' file contents, freed at the end. */
static uint8_t **files_kept;
static size_t nfiles_kept;

static void push_file(uint8_t *data)
{
    uint8_t **f = realloc(files_kept, (nfiles_kept + 1) * sizeof *f);
    if (!f)
        fail("%s", "out of memory");
    files_kept = f;
    files_kept[nfiles_kept++] = data;
}

/* The pages of one file: compressed bodies (decompress == 0) or their
 * decompressed bodies (decompress == 1, for the compression half). */
static void file_pages(const char *path, int decompress, pages *ps, ZSTD_DCtx *d)
{
    size_t len;
    uint8_t *data = read_all(path, &len);
    if (len < 12 || memcmp(data + len - 4, "PAR1", 4))
        fail("%s is not a Parquet file", path);
    uint32_t flen;
    memcpy(&flen, data + len - 8, 4);
    if ((size_t)flen > len - 12)
        fail("%s: footer length out of range", path);
    pm_pq_file_meta *m = NULL;
    pm_error *e = pm_pq_file_meta_parse(&m, data + len - 8 - flen, flen);
    if (e)
        fail("%s: bad footer", path);
    for (uint32_t g = 0; g < m->num_row_groups; g++) {
        const pq_row_group *rg = &m->row_groups[g];
        for (uint32_t c = 0; c < rg->num_columns; c++) {
            const pq_column_meta *cm = &rg->columns[c].meta_data;
            if (cm->codec != 6)
                fail("%s: a column chunk that is not zstd", path);
            int64_t at = cm->has_dictionary_page_offset && cm->dictionary_page_offset > 0 &&
                                 cm->dictionary_page_offset < cm->data_page_offset
                             ? cm->dictionary_page_offset
                             : cm->data_page_offset;
            int64_t end = at + cm->total_compressed_size;
            if (at < 0 || end > (int64_t)len)
                fail("%s: column chunk out of range", path);
            while (at < end) {
                pq_page_header h;
                size_t hl;
                e = pm_pq_page_header_parse(&h, data + at, (size_t)(end - at), &hl);
                if (e)
                    fail("%s: bad page header", path);
                const uint8_t *body = data + at + hl;
                size_t cs = (size_t)h.compressed_page_size, us = (size_t)h.uncompressed_page_size;
                if (h.type == 3)
                    fail("%s: data page v2 (not measured)", path);
                if (!decompress) {
                    push(ps, (page){body, cs, us});
                    ps->bytes += cs;
                    ps->unc_bytes += us;
                } else {
                    uint8_t *u = malloc(us ? us : 1);
                    if (!u || ZSTD_isError(ZSTD_decompressDCtx(d, u, us, body, cs)))
                        fail("%s: cannot decompress a page", path);
                    push(ps, (page){u, us, 0});
                    ps->bytes += us;
                    ps->unc_bytes += us;
                }
                at += (int64_t)(hl + cs);
            }
        }
    }
    pm_pq_file_meta_free(m);
    if (decompress)
        free(data); /* the outputs' bodies are copies */
    else
        push_file(data); /* the inputs' bodies point into data */
}

/* The paths of both lists, for the I/O figure. */
typedef struct paths {
    char **v;
    size_t n;
} paths;

static void push_path(paths *ps, const char *path)
{
    char **v = realloc(ps->v, (ps->n + 1) * sizeof *v);
    char *c = strdup(path);
    if (!v || !c)
        fail("%s", "out of memory");
    ps->v = v;
    ps->v[ps->n++] = c;
}

static void list_pages(const char *list, int decompress, pages *ps, ZSTD_DCtx *d, paths *names)
{
    FILE *f = fopen(list, "r");
    if (!f)
        fail("cannot open %s", list);
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (line[0]) {
            file_pages(line, decompress, ps, d);
            push_path(names, line);
        }
    }
    fclose(f);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    const char *in_list = NULL, *out_list = NULL;
    int rounds = 5, level = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--inputs"))
            in_list = argv[i + 1];
        else if (!strcmp(argv[i], "--outputs"))
            out_list = argv[i + 1];
        else if (!strcmp(argv[i], "--rounds"))
            rounds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--level"))
            level = atoi(argv[i + 1]);
        else
            fail("unknown option %s", argv[i]);
    }
    if (!in_list || !out_list || rounds < 1 || rounds > 99)
        fail("%s", "usage: bench_ceiling --inputs LIST --outputs LIST [--rounds K] [--level L]");
    ZSTD_DCtx *d = ZSTD_createDCtx();
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    if (!d || !cc || ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, level)))
        fail("%s", "cannot create zstd contexts");
    pages in = {0}, out = {0};
    paths in_paths = {0}, out_paths = {0};
    list_pages(in_list, 0, &in, d, &in_paths);
    list_pages(out_list, 1, &out, d, &out_paths);
    size_t max_unc = 1, max_bound = 1;
    for (size_t i = 0; i < in.n; i++)
        max_unc = in.v[i].out_len > max_unc ? in.v[i].out_len : max_unc;
    for (size_t i = 0; i < out.n; i++) {
        size_t b = ZSTD_compressBound(out.v[i].len);
        max_bound = b > max_bound ? b : max_bound;
    }
    uint8_t *ubuf = malloc(max_unc), *cbuf = malloc(max_bound);
    if (!ubuf || !cbuf)
        fail("%s", "out of memory");
    double dec[99], comp[99];
    size_t out_comp = 0;
    for (int r = 0; r < rounds; r++) {
        double t0 = thread_cpu();
        for (size_t i = 0; i < in.n; i++) {
            size_t k = ZSTD_decompressDCtx(d, ubuf, in.v[i].out_len, in.v[i].data, in.v[i].len);
            if (ZSTD_isError(k) || k != in.v[i].out_len)
                fail("%s", "an input page does not decompress to its size");
        }
        double t1 = thread_cpu();
        out_comp = 0;
        for (size_t i = 0; i < out.n; i++) {
            size_t k = ZSTD_compress2(cc, cbuf, max_bound, out.v[i].data, out.v[i].len);
            if (ZSTD_isError(k))
                fail("%s", "compression failed");
            out_comp += k;
        }
        double t2 = thread_cpu();
        dec[r] = t1 - t0;
        comp[r] = t2 - t1;
    }
    /* the I/O figure: the outputs' bytes read untimed, the reads buffer
     * sized for the largest input */
    uint8_t **out_bytes = calloc(out_paths.n ? out_paths.n : 1, sizeof *out_bytes);
    size_t *out_lens = calloc(out_paths.n ? out_paths.n : 1, sizeof *out_lens);
    if (!out_bytes || !out_lens)
        fail("%s", "out of memory");
    size_t max_in = 1, in_file_bytes = 0, out_file_bytes = 0;
    for (size_t i = 0; i < out_paths.n; i++) {
        out_bytes[i] = read_all(out_paths.v[i], &out_lens[i]);
        out_file_bytes += out_lens[i];
    }
    for (size_t i = 0; i < in_paths.n; i++) {
        struct stat st;
        if (stat(in_paths.v[i], &st))
            fail("cannot stat %s", in_paths.v[i]);
        max_in = (size_t)st.st_size > max_in ? (size_t)st.st_size : max_in;
        in_file_bytes += (size_t)st.st_size;
    }
    uint8_t *rbuf = malloc(max_in);
    if (!rbuf)
        fail("%s", "out of memory");
    double ior[99], iow[99];
    for (int r = 0; r < rounds; r++) {
        double t0 = thread_cpu();
        for (size_t i = 0; i < in_paths.n; i++) {
            int fd = open(in_paths.v[i], O_RDONLY | O_CLOEXEC);
            struct stat st;
            if (fd < 0 || fstat(fd, &st) || (size_t)st.st_size > max_in ||
                pread(fd, rbuf, (size_t)st.st_size, 0) != (ssize_t)st.st_size)
                fail("cannot read %s", in_paths.v[i]);
            close(fd);
        }
        double t1 = thread_cpu();
        char tmp[4200];
        for (size_t i = 0; i < out_paths.n; i++) {
            snprintf(tmp, sizeof tmp, "%s.ceiling-io-%ld", out_paths.v[i], (long)getpid());
            int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            if (fd < 0 || write(fd, out_bytes[i], out_lens[i]) != (ssize_t)out_lens[i] || close(fd))
                fail("cannot write %s", tmp);
        }
        double t2 = thread_cpu();
        for (size_t i = 0; i < out_paths.n; i++) {
            snprintf(tmp, sizeof tmp, "%s.ceiling-io-%ld", out_paths.v[i], (long)getpid());
            unlink(tmp);
        }
        ior[r] = t1 - t0;
        iow[r] = t2 - t1;
    }
    qsort(ior, (size_t)rounds, sizeof *ior, cmp_double);
    qsort(iow, (size_t)rounds, sizeof *iow, cmp_double);
    double irm = ior[rounds / 2], iwm = iow[rounds / 2];
    qsort(dec, (size_t)rounds, sizeof *dec, cmp_double);
    qsort(comp, (size_t)rounds, sizeof *comp, cmp_double);
    double dm = dec[rounds / 2], cm = comp[rounds / 2];
    printf("{\"zstd\":\"%s\",\"level\":%d,\"input_pages\":%zu,\"input_page_bytes\":%zu,"
           "\"input_compressed_bytes\":%zu,\"output_pages\":%zu,\"output_page_bytes\":%zu,"
           "\"output_compressed_bytes\":%zu,\"decompress_cpu_s\":%.4f,\"compress_cpu_s\":%.4f,"
           "\"ceiling_cpu_s\":%.4f,\"decompress_mb_s\":%.0f,\"compress_mb_s\":%.0f,"
           "\"input_files\":%zu,\"input_file_bytes\":%zu,\"output_files\":%zu,\"output_file_bytes\":%zu,"
           "\"io_read_cpu_s\":%.4f,\"io_write_cpu_s\":%.4f,\"ceiling_with_io_cpu_s\":%.4f}\n",
           ZSTD_versionString(), level, in.n, in.unc_bytes, in.bytes, out.n, out.unc_bytes, out_comp, dm, cm,
           dm + cm, (double)in.unc_bytes / 1e6 / dm, (double)out.unc_bytes / 1e6 / cm, in_paths.n, in_file_bytes,
           out_paths.n, out_file_bytes, irm, iwm, dm + cm + irm + iwm);
    for (size_t i = 0; i < out_paths.n; i++)
        free(out_bytes[i]);
    free(out_bytes);
    free(out_lens);
    free(rbuf);
    for (size_t i = 0; i < in_paths.n; i++)
        free(in_paths.v[i]);
    for (size_t i = 0; i < out_paths.n; i++)
        free(out_paths.v[i]);
    free(in_paths.v);
    free(out_paths.v);
    for (size_t i = 0; i < out.n; i++)
        free((void *)out.v[i].data);
    for (size_t i = 0; i < nfiles_kept; i++)
        free(files_kept[i]);
    free(files_kept);
    free(in.v);
    free(out.v);
    free(ubuf);
    free(cbuf);
    ZSTD_freeDCtx(d);
    ZSTD_freeCCtx(cc);
    return 0;
}
