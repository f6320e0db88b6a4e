#!/usr/bin/env python3
"""bench/compact/scale.py — flat cost of append compaction (issue 14 goal 5
and goal 4 at scale): CPU per row and peak RSS as the table grows.

  scale.py [--sizes 1000000,10000000,100000000] [--file-rows 100000]
           [--rounds 2] [--memory 64mb] [--option K=V ...] [--work DIR]
           [--json FILE] [--keep]

For every size N: an unaware-bucket append table of N rows in files of
--file-rows rows each (`bench_compact gen`: one commit per file, the
TableGen shape, Parquet zstd-1; paimon-c writes the inputs, which is fine
here: only paimon-c is measured, against itself at other sizes), then
--rounds interleaved rounds (size after size, each on a fresh copy:
bench/rounds.py) of `bench_compact run --threads 1 --memory M`.  Printed
per size: process CPU-s median [min-max] (wait4: user + system), CPU ns
per row, that figure relative to the smallest size (goal: within +-10%),
peak RSS median [min-max] and whether it stays under --memory + 32 MiB
(goal 4), and the compaction's own CPU-s per row (bench_compact's inner
timing: process start-up and table opening left out, which weigh on the
smallest size).  --option passes a table option to every run (e.g.
compaction.parquet.page-passthrough=false measures the rewrite).  The inputs of every size stay in --work until the end
(about 20 bytes a row on disk).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
import rounds  # noqa: E402

FIXED_MIB = 32


def parse_bytes(s):
    s = s.strip().lower()
    for suf, m in (("gb", 1 << 30), ("mb", 1 << 20), ("kb", 1 << 10), ("b", 1)):
        if s.endswith(suf):
            return int(float(s[:-len(suf)]) * m)
    return int(s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000000,10000000,100000000")
    ap.add_argument("--file-rows", type=int, default=100000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--memory", default="64mb")
    ap.add_argument("--work", default=os.path.join(ROOT, "bench", "out", "scale"))
    ap.add_argument("--json", default=None, help="also write the results here")
    ap.add_argument("--keep", action="store_true", help="keep the generated inputs")
    ap.add_argument("--option", action="append", default=[], metavar="K=V",
                    help="a table option for every compaction run (repeatable)")
    a = ap.parse_args()
    sizes = [int(x.replace("_", "")) for x in a.sizes.split(",") if x]
    if any(n < a.file_rows for n in sizes):
        ap.error("every size must be at least --file-rows")
    memory = parse_bytes(a.memory)
    build = os.environ.get("BUILD", os.path.join(ROOT, "build"))
    bc = os.path.join(build, "bench", "bench_compact")
    os.makedirs(a.work, exist_ok=True)
    tpath = lambda base: os.path.join(base, "db.db", "t")  # noqa: E731
    sides = []
    for n in sizes:
        src = os.path.join(a.work, f"in-{n}")
        if not os.path.isdir(tpath(src)):
            print(f"  generating {n} rows in {n // a.file_rows} files ({a.file_rows} rows each)", file=sys.stderr,
                  flush=True)
            subprocess.run([bc, "gen", "--table", tpath(src), "--files", str(n // a.file_rows), "--rows",
                            str(a.file_rows)], check=True, stdout=subprocess.DEVNULL)

        def fresh(src=src, n=n):
            def prep():
                dst = os.path.join(a.work, f"c-{n}")
                shutil.rmtree(dst, ignore_errors=True)
                shutil.copytree(src, dst)
                os.sync()
            return prep
        sides.append(rounds.Side(f"{n} rows", [bc, "run", "--table", tpath(os.path.join(a.work, f"c-{n}")),
                                               "--threads", "1", "--memory", str(memory)]
                                    + [x for o in a.option for x in ("--option", o)], fresh()))
    print(f"append compaction at growing sizes (flat cost), --threads 1 --memory {a.memory}, files of "
          f"{a.file_rows} rows, Parquet zstd-1, inputs written by paimon-c; options {a.option or 'default'}; {a.rounds} interleaved rounds; "
          f"{rounds.load_note()} (shared machine)", flush=True)
    res = rounds.run(sides, a.rounds)
    budget = memory / (1 << 20) + FIXED_MIB
    out = {"memory_bytes": memory, "file_rows": a.file_rows, "options": a.option, "sizes": {}}
    base_ns = None
    print(f"  {'rows':>11} {'CPU-s median [min-max]':<26} {'ns/row':>7} {'vs smallest':>11}  "
          f"{'inner ns/row':>12} {'vs smallest':>11}  {'peak RSS MB':<20} under {budget:.0f} MB")
    base_inner = None
    for n, s in zip(sizes, sides):
        rs = res[s.name]
        cpu = [r.process_cpu_s for r in rs]
        rss = [r.peak_rss_mb for r in rs]
        rows_read = [r.inner.get("rows") for r in rs]
        if any(x != n for x in rows_read):
            sys.exit(f"scale.py: the compaction of {n} rows read {rows_read} rows (fewer input files than "
                     "compaction.min.file-num? raise the size or lower --file-rows)")
        ns = rounds.median(cpu) / n * 1e9
        base_ns = base_ns or ns
        rel = ns / base_ns
        inner = [r.inner.get("cpu_s", float("nan")) for r in rs]
        ins = rounds.median(inner) / n * 1e9
        base_inner = base_inner or ins
        print(f"  {n:>11} {rounds.summary(cpu):<26} {ns:>7.0f} {rel:>10.2f}x  {ins:>12.0f} {ins / base_inner:>10.2f}x  "
              f"{rounds.summary(rss, '{:.0f}'):<20} {'yes' if max(rss) <= budget else 'NO'}", flush=True)
        out["sizes"][str(n)] = {"cpu_s": cpu, "peak_rss_mb": rss, "ns_per_row": ns, "vs_smallest": rel,
                                "wall_s": [r.wall_s for r in rs], "inner_cpu_s": inner,
                                "inner_ns_per_row": ins}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f)
    if not a.keep:
        shutil.rmtree(a.work, ignore_errors=True)


if __name__ == "__main__":
    main()
