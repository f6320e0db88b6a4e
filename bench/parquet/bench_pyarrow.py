"""pyarrow side of bench/parquet: the same table, written and read on one
thread with zstd level 1, reported like bench_parquet.c.

The table is read from the file bench_parquet wrote (identical data); the
write is pq.write_table with dictionary encoding and v1 data pages (pyarrow
defaults otherwise); reads use use_threads=False.  Times are process CPU
seconds (robust on a shared machine) and wall seconds.
"""
import argparse
import json
import time

import pyarrow as pa
import pyarrow.parquet as pq


def timed(fn):
    c0, w0 = time.process_time(), time.perf_counter()
    r = fn()
    return r, time.process_time() - c0, time.perf_counter() - w0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--input", required=True, help="Parquet file written by bench_parquet")
    ap.add_argument("--out", required=True)
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    table = pq.read_table(a.input, use_threads=False)
    data_mb = table.nbytes / 1e6
    rows = table.num_rows
    best_w = best_r = best_r_own = None
    for _ in range(a.repeat):
        _, wc, ww = timed(lambda: pq.write_table(table, a.out, compression="zstd", compression_level=1,
                                                 use_dictionary=True, data_page_version="1.0"))
        _, rc, rw = timed(lambda: pq.read_table(a.input, use_threads=False))
        _, oc, ow = timed(lambda: pq.read_table(a.out, use_threads=False))
        if best_w is None or wc < best_w[0]:
            best_w = (wc, ww)
        if best_r is None or rc < best_r[0]:
            best_r = (rc, rw)
        if best_r_own is None or oc < best_r_own[0]:
            best_r_own = (oc, ow)
    import os
    print(json.dumps({
        "engine": "pyarrow " + pa.__version__, "rows": rows, "data_mb": round(data_mb, 1),
        "file_mb": round(os.path.getsize(a.out) / 1e6, 1),
        "write_cpu_s": round(best_w[0], 3), "write_s": round(best_w[1], 3),
        "write_mb_s": round(data_mb / best_w[0], 1), "write_rows_s": round(rows / best_w[0]),
        "read_cpu_s": round(best_r[0], 3), "read_s": round(best_r[1], 3),
        "read_mb_s": round(data_mb / best_r[0], 1), "read_rows_s": round(rows / best_r[0]),
        "read_own_cpu_s": round(best_r_own[0], 3),
    }))


if __name__ == "__main__":
    main()
