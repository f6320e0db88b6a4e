"""bench/pk/bench_pypaimon_read.py — merge-on-read throughput of pypaimon on
an existing primary-key table: plan the latest snapshot and read every row
into one Arrow table (to_arrow; pypaimon merges overlapping runs with its
loser tree).  Prints one JSON line per round:
  {"engine": "pypaimon", "rows": .., "wall_ms": .., "cpu_ms": .., "rows_per_s": ..}

  bench_pypaimon_read.py TABLE [--rounds N]
TABLE is <warehouse>/<db>.db/<table>.
"""
import argparse
import json
import pathlib
import time

from pypaimon import CatalogFactory


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("table")
    ap.add_argument("--rounds", type=int, default=1)
    a = ap.parse_args()
    p = pathlib.Path(a.table).resolve()
    warehouse, db, name = p.parent.parent, p.parent.name[:-3], p.name
    for r in range(a.rounds):
        w0, c0 = time.perf_counter(), time.process_time()
        t = CatalogFactory.create({"warehouse": str(warehouse)}).get_table(f"{db}.{name}")
        rb = t.new_read_builder()
        out = rb.new_read().to_arrow(rb.new_scan().plan().splits())
        rows = out.num_rows
        wall = (time.perf_counter() - w0) * 1000
        cpu = (time.process_time() - c0) * 1000
        print(json.dumps({"engine": "pypaimon", "round": r + 1, "rows": rows, "wall_ms": round(wall, 1),
                          "cpu_ms": round(cpu, 1), "rows_per_s": round(rows / (wall / 1000))}), flush=True)


if __name__ == "__main__":
    main()
