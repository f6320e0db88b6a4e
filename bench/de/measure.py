"""Data-evolution compaction and materialization throughput (issue 10).

    .venv/bin/python bench/de/measure.py [ROWS]      (default 1,000,000)

Builds a table of ROWS rows (id BIGINT, name STRING, v DOUBLE, w DOUBLE) in
row groups of 100,000 rows, then two full-column updates (`paimon update`
of v, then of w) so every group has 3 column versions, deletes 1 % of the
rows, and times with build/paimon:
  - `paimon compact --option compaction.min.file-num=1` (3 versions merged
    into one file per group, deletion vectors moved),
  - pypaimon 2.1 reading the same (pre-compaction) table (to_arrow),
  - `paimon materialize-deletions` on the compacted table.
Rows/s are logical rows (slots) over wall time; the CLI runs on one core
(compaction tasks run in parallel only with --parallelism).  Apache Paimon
Java 1.4.2 has DataEvolutionCompactCoordinator but the bench oracle
(bench/java) has no command for it, and 1.4.2 has no deletion-vector
materialization: not measured here.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAIMON = os.environ.get("PAIMON_BIN", str(ROOT / "build" / "paimon"))


def run(*a, input=None):
    return subprocess.run([PAIMON, *map(str, a)], input=input, capture_output=True, text=True, check=True).stdout


def main():
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    group = 100_000
    wh = pathlib.Path(tempfile.mkdtemp(prefix="de-bench-"))
    try:
        t = wh / "db.db" / "t"
        run("create-database", wh, "db")
        run("create", t, "--schema", "id BIGINT, name STRING, v DOUBLE, w DOUBLE", "--option", "bucket=-1",
            "--option", "row-tracking.enabled=true", "--option", "data-evolution.enabled=true",
            "--option", "deletion-vectors.enabled=true", "--option", "write-only=true")
        for s in range(0, rows, group):
            n = min(group, rows - s)
            data = "".join(f'{{"id":{i},"name":"name-{i}","v":{i}.5,"w":0.0}}\n' for i in range(s, s + n))
            run("write", t, input=data)
        for col in ("v", "w"):
            data = "".join(f'{{"_ROW_ID":{i},"{col}":{i * 2}.25}}\n' for i in range(rows))
            run("update", t, "--columns", col, input=data)
        run("delete", t, "--row-ids", ",".join(str(i) for i in range(0, rows, 100)))
        from pypaimon import CatalogFactory
        tab = CatalogFactory.create({"warehouse": str(wh)}).get_table("db.t")
        t0 = time.perf_counter()
        rb = tab.new_read_builder()
        n_py = rb.new_read().to_arrow(rb.new_scan().plan().splits()).num_rows
        py_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        m = json.loads(run("compact", t, "--option", "compaction.min.file-num=1", "--json"))
        c_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        out = run("materialize-deletions", t)
        mat_s = time.perf_counter() - t0
        print(json.dumps({
            "rows": rows, "column_versions": 3, "deleted": len(range(0, rows, 100)),
            "compact_s": round(c_s, 3), "compact_rows_per_s": round(m["rows_written"] / c_s),
            "compact_files_removed": m["files_removed"], "compact_files_added": m["files_added"],
            "pypaimon_read_s": round(py_s, 3), "pypaimon_rows_per_s": round(n_py / py_s),
            "materialize_s": round(mat_s, 3), "materialize_rows_per_s": round(rows / mat_s),
            "materialize": out.strip().splitlines()[-1],
        }))
    finally:
        shutil.rmtree(wh, ignore_errors=True)


if __name__ == "__main__":
    main()
