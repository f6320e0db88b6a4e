"""pyarrow side of bench/orc: the same table, written and read by
pyarrow.orc on one thread, timed in process CPU seconds like bench_orc.c.

The table is loaded (not timed) from the file bench_orc wrote, so both
engines handle identical data.  Write: pyarrow.orc.write_table with zstd
(level: pyarrow's default) and its other defaults (direct strings:
dictionary_key_size_threshold 0; 64 MiB stripes; 64 KiB compression
blocks).  Reads: pyarrow's own file and the paimon-c file.
"""
import argparse
import json
import os
import time

import pyarrow as pa
import pyarrow.orc as po


def timed(fn):
    c0, w0 = time.process_time(), time.perf_counter()
    r = fn()
    return r, time.process_time() - c0, time.perf_counter() - w0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--input", required=True, help="ORC file written by bench_orc")
    ap.add_argument("--out", required=True)
    ap.add_argument("--codec", default="zstd")
    a = ap.parse_args()
    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    table = po.read_table(a.input)
    codec = "uncompressed" if a.codec == "none" else a.codec
    _, wc, ww = timed(lambda: po.write_table(table, a.out, compression=codec))
    own, rc, rw = timed(lambda: po.read_table(a.out))
    other, cc, cw = timed(lambda: po.read_table(a.input))
    assert own.num_rows == table.num_rows == other.num_rows
    print(json.dumps({"engine": "pyarrow " + pa.__version__, "rows": table.num_rows, "codec": a.codec,
                      "file_mb": round(os.path.getsize(a.out) / 1e6, 2),
                      "write_cpu_s": round(wc, 4), "write_s": round(ww, 4),
                      "read_cpu_s": round(rc, 4), "read_s": round(rw, 4),
                      "cross_read_cpu_s": round(cc, 4), "cross_read_s": round(cw, 4)}))


if __name__ == "__main__":
    main()
