"""bench/table/bench_pypaimon.py — the pypaimon side of the table benchmark.

Loads the rows bench_table generated (<dir>/input.parquet, not timed) and
does what bench_table did for the same --scenario on a new append table with
the same schema and defaults:
  big    one write_arrow + prepare_commit + commit of all rows, then a full
         read (scan + to_arrow);
  small  --commits commits, each of the next --commit-rows rows (a new
         write builder, write_arrow, prepare_commit, commit per batch, as an
         application committing small batches does), then a full read.
pypaimon has no CLI: run.sh compares paimon-c's `cli` scenario (a process
per commit) with pypaimon's in-process `small` one, which flatters pypaimon.
Times are wall seconds and process CPU seconds (time.process_time: all
threads).  Prints one JSON object like bench_table.
"""
import argparse
import json
import time

import pyarrow.parquet as pq
from pypaimon import CatalogFactory, Schema


def commit(table, data):
    wb = table.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(data)
    msgs = w.prepare_commit()
    c = wb.new_commit()
    c.commit(msgs)
    w.close()
    c.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--scenario", default="big", choices=["big", "small"])
    ap.add_argument("--commits", type=int, default=1000)
    ap.add_argument("--commit-rows", type=int, default=1000)
    args = ap.parse_args()
    data = pq.read_table(f"{args.dir}/input.parquet")
    cat = CatalogFactory.create({"warehouse": f"{args.dir}/pypaimon"})
    cat.create_database("db", True)
    cat.create_table("db.t", Schema.from_pyarrow_schema(data.schema), False)
    table = cat.get_table("db.t")

    if args.scenario == "big":
        batches = [data]
    else:
        m = args.commit_rows
        batches = [data.slice(k * m, m) for k in range(args.commits)]
    rows = sum(b.num_rows for b in batches)
    w0, c0 = time.perf_counter(), time.process_time()
    for b in batches:
        commit(table, b)
    w1, c1 = time.perf_counter(), time.process_time()
    del data, batches

    table = cat.get_table("db.t")
    r0, rc0 = time.perf_counter(), time.process_time()
    rb = table.new_read_builder()
    splits = rb.new_scan().plan().splits()
    out = rb.new_read().to_arrow(splits)
    total = out.num_rows
    r1, rc1 = time.perf_counter(), time.process_time()
    if total != rows:
        raise SystemExit(f"pypaimon read {total} rows, expected {rows}")
    files = sum(len(s.files) for s in splits) if splits and hasattr(splits[0], "files") else None
    print(json.dumps({"engine": "pypaimon", "scenario": args.scenario, "rows": rows,
                      "commits": 1 if args.scenario == "big" else args.commits, "files": files,
                      "write_s": round(w1 - w0, 3), "write_cpu_s": round(c1 - c0, 3),
                      "read_s": round(r1 - r0, 3), "read_cpu_s": round(rc1 - rc0, 3)}))


if __name__ == "__main__":
    main()
