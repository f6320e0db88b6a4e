"""bench/table/bench_pypaimon.py — the pypaimon side of the table benchmark.

Loads the rows bench_table generated (<dir>/input.parquet, not timed), then
times (1) writing them into a new append table with the same schema and
defaults (write_arrow + prepare_commit + commit) and (2) reading the whole
table back (scan + to_arrow).  Prints one JSON object like bench_table.
"""
import argparse
import json
import time

import pyarrow.parquet as pq
from pypaimon import CatalogFactory, Schema


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    args = ap.parse_args()
    data = pq.read_table(f"{args.dir}/input.parquet")
    rows = data.num_rows
    cat = CatalogFactory.create({"warehouse": f"{args.dir}/pypaimon"})
    cat.create_database("db", True)
    cat.create_table("db.t", Schema.from_pyarrow_schema(data.schema), False)
    table = cat.get_table("db.t")

    w0, c0 = time.perf_counter(), time.process_time()
    wb = table.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(data)
    msgs = w.prepare_commit()
    c = wb.new_commit()
    c.commit(msgs)
    w.close()
    c.close()
    w1, c1 = time.perf_counter(), time.process_time()
    del data

    table = cat.get_table("db.t")
    r0, rc0 = time.perf_counter(), time.process_time()
    rb = table.new_read_builder()
    out = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    total = out.num_rows
    r1, rc1 = time.perf_counter(), time.process_time()
    if total != rows:
        raise SystemExit(f"pypaimon read {total} rows, expected {rows}")
    files = sum(len(m.new_files_increment.new_files) for m in msgs) if msgs and hasattr(
        msgs[0], "new_files_increment") else None
    print(json.dumps({"engine": "pypaimon", "rows": rows, "files": files,
                      "write_s": round(w1 - w0, 3), "write_cpu_s": round(c1 - c0, 3),
                      "write_rows_s": round(rows / (w1 - w0)),
                      "read_s": round(r1 - r0, 3), "read_cpu_s": round(rc1 - rc0, 3),
                      "read_rows_s": round(rows / (r1 - r0))}))


if __name__ == "__main__":
    main()
