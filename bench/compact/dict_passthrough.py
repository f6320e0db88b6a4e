"""Dictionary passthrough in append compaction: the seed's trade-off
(seed 001, parquet.read.enable-dictionary-passthrough) measured.

    .venv/bin/python bench/compact/dict_passthrough.py [--files F] [--rows N] [--rounds R]

Three template tables, unaware bucket, Parquet zstd, F input files of N
rows each (default 20 x 50,000 = 1,000,000 rows; id BIGINT, three STRING
columns s1..s3 of 8-24 bytes, n INT), written by build/paimon with
write-only=true (one file per commit, no automatic compaction):
  shared     every file's STRING columns hold the same 200 values, first
             seen in the same order (the same dictionary recurs in every file)
  per-file   every file its own 200 values per column (different
             dictionaries per file)
  high-card  every value distinct (the inputs' dictionaries fall back to
             PLAIN, so no input qualifies)
Each is compacted into one output (`paimon compact --option
compaction.min.file-num=2`) in three modes on fresh copies:
  rewrite    decode + re-encode (today's default)
  dict       parquet.read.enable-dictionary-passthrough=true
  row-group  compaction.parquet.row-group-passthrough=true (min-size 0):
             row groups copied as they are
R rounds (default 5), the modes interleaved within a round (shape by
shape).  CPU seconds = user + system of the finished `paimon compact`
process (getrusage of the child); output size = the bytes of the COMPACT
files.  Printed: one JSON line per run, then per shape and mode the median
and min-max of CPU seconds, wall seconds and output bytes, and the ratios of
the medians to `rewrite`.  One thread (--parallelism 1).
"""
import argparse
import json
import os
import pathlib
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAIMON = os.environ.get("PAIMON_BIN", str(ROOT / "build" / "paimon"))
MODES = {
    "rewrite": [],
    "dict": ["--option", "parquet.read.enable-dictionary-passthrough=true"],
    "row-group": ["--option", "compaction.parquet.row-group-passthrough=true",
                  "--option", "compaction.parquet.row-group-passthrough.min-size=0"],
}
SHAPES = ("shared", "per-file", "high-card")


def run(*args, **kw):
    p = subprocess.run([PAIMON, *map(str, args)], capture_output=True, text=True, **kw)
    if p.returncode:
        sys.exit(f"paimon {' '.join(map(str, args))} failed:\n{p.stderr}")
    return p.stdout


def values(shape, f, col, n):
    if shape == "high-card":
        return [f"{col}-f{f:03d}-{i:08d}-x" for i in range(n)]
    tag = "all" if shape == "shared" else f"f{f:03d}"
    pool = [f"{col}-{tag}-value-{k:03d}" + "z" * (k % 8) for k in range(200)]
    return [pool[(i * 7 + i // 200) % 200] for i in range(n)]


def make_template(root, shape, files, rows):
    path = root / shape / "db.db" / "t"
    run("create", path, "--schema", "id BIGINT, s1 STRING, s2 STRING, s3 STRING, n INT",
        "--option", "bucket=-1", "--option", "write-only=true", "--option", "target-file-size=4gb")
    for f in range(files):
        tbl = pa.table({
            "id": pa.array(range(f * rows, (f + 1) * rows), pa.int64()),
            "s1": values(shape, f, "a", rows), "s2": values(shape, f, "bb", rows),
            "s3": values(shape, f, "ccc", rows),
            "n": pa.array([i % 97 for i in range(rows)], pa.int32()),
        })
        src = root / f"in-{shape}-{f}.parquet"
        pq.write_table(tbl, src)
        run("write", path, "--input", src, "--threads", "1")
        src.unlink()
    return path


def compacted_bytes(path):
    lines = run("files", path).splitlines()[1:]
    return sum(int(x.split("\t")[5]) for x in lines if x.strip() and x.split("\t")[9] == "COMPACT")


def one(template, work, mode):
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(template.parent.parent, work)
    path = work / "db.db" / "t"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    out = run("compact", path, "--json", "--parallelism", "1", "--option", "compaction.min.file-num=2",
              *MODES[mode])
    wall = time.perf_counter() - w0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    m = json.loads(out)
    assert m["snapshot_id"] > 0 and m["files_added"] == 1, m
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"cpu_s": cpu, "wall_s": wall, "bytes": compacted_bytes(path), "rows": m["rows_written"]}


def med(xs):
    return statistics.median(xs), min(xs), max(xs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--rows", type=int, default=50000)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    root = pathlib.Path(tempfile.mkdtemp(prefix="dictpt-"))
    try:
        templates = {s: make_template(root, s, a.files, a.rows) for s in SHAPES}
        res = {(s, m): [] for s in SHAPES for m in MODES}
        for r in range(a.rounds):
            for s in SHAPES:
                for m in MODES:
                    x = one(templates[s], root / "work", m)
                    res[(s, m)].append(x)
                    print(json.dumps({"round": r, "shape": s, "mode": m, **x}), flush=True)
        print(f"\n{a.files} files x {a.rows} rows, {a.rounds} rounds; median [min-max]; ratio = median / rewrite's")
        for s in SHAPES:
            base_cpu = statistics.median(x["cpu_s"] for x in res[(s, "rewrite")])
            base_bytes = statistics.median(x["bytes"] for x in res[(s, "rewrite")])
            for m in MODES:
                xs = res[(s, m)]
                c, cl, ch = med([x["cpu_s"] for x in xs])
                w, wl, wh = med([x["wall_s"] for x in xs])
                b, bl, bh = med([x["bytes"] for x in xs])
                print(f"{s:9s} {m:9s} cpu {c:6.3f}s [{cl:.3f}-{ch:.3f}] ({c / base_cpu:5.2f}x)  "
                      f"wall {w:6.3f}s [{wl:.3f}-{wh:.3f}]  "
                      f"out {b / 1e6:8.3f} MB [{bl / 1e6:.3f}-{bh / 1e6:.3f}] ({b / base_bytes:5.2f}x)")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
