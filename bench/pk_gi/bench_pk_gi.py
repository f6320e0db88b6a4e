#!/usr/bin/env python3
"""bench/pk_gi/bench_pk_gi.py — source-backed global indexes of a
primary-key table (compact/pk/pk_global_index.h): what maintaining them
costs a compaction and what they save a point query.

Two tables of the same rows (ROWS keys, bucket=1, small target files so a
level has many files), written by `paimon write` in four commits at level
0: A declares nothing, B declares a btree on `cat` (ROWS/2 distinct
values) and a bitmap on `tag` (16 values).  Interleaved rounds
(bench/rounds.py), each on a fresh copy:
  compact    `paimon compact --full` of A and of B: process CPU seconds and
             wall; index build rows/s = rows indexed (2 columns × ROWS) /
             (CPU of B − CPU of A), medians of the same run;
  query      after compaction, `paimon read --where 'cat = v'` on A (full
             scan + filter) and on B (index positions, files without a hit
             not read): CPU seconds and wall.
Usage: bench_pk_gi.py [ROWS] [ROUNDS]   (PAIMON_BIN = build/paimon)
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import rounds  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PAIMON = os.environ.get("PAIMON_BIN", str(ROOT / "build" / "paimon"))


def sh(*a):
    subprocess.run([PAIMON, *map(str, a)], check=True, stdout=subprocess.DEVNULL)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    nrounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    work = Path(tempfile.mkdtemp(prefix="pk_gi_"))
    rng = random.Random(14)
    inputs = []
    for c in range(4):
        p = work / f"in{c}.jsonl"
        with open(p, "w") as f:
            for i in (range(n) if c == 0 else rng.sample(range(n), n // 8)):
                f.write(json.dumps({"id": i, "cat": rng.randrange(n // 2), "tag": "t%d" % rng.randrange(16),
                                    "v": c}) + "\n")
        inputs.append(p)
    base = {}
    for name, decl in (("A", []), ("B", ["--option", "global-index.btree.index-columns=cat", "--option",
                                          "global-index.bitmap.index-columns=tag"])):
        t = work / "base" / name
        sh("create", t, "--schema", "id BIGINT NOT NULL, cat INT, tag STRING, v INT", "--primary-keys", "id",
           "--option", "bucket=1", "--option", "write-only=true", "--option", "target-file-size=256kb", *decl)
        for p in inputs:
            sh("write", t, "--input", p)
        base[name] = t

    def fresh(name):
        def prep():
            d = work / "run" / name
            shutil.rmtree(d, ignore_errors=True)
            shutil.copytree(base[name], d)
        return prep

    sides = [rounds.Side(f"compact-{k}", [PAIMON, "compact", str(work / "run" / k), "--full"], prepare=fresh(k))
             for k in ("A", "B")]
    res = rounds.run(sides, nrounds)
    # compacted copies for the queries
    for k in ("A", "B"):
        d = work / "q" / k
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(base[k], d)
        sh("compact", d, "--full")
    v = rng.randrange(n // 2)
    qs = [rounds.Side(f"query-{k}", [PAIMON, "read", str(work / "q" / k), "--where", f"cat = {v}"])
          for k in ("A", "B")]
    qres = rounds.run(qs, nrounds * 2)
    cpu = {k: rounds.median([r.process_cpu_s for r in res[f"compact-{k}"]]) for k in ("A", "B")}
    out = {
        "rows": n, "rounds": nrounds,
        "compact_cpu_s": {k: rounds.summary([r.process_cpu_s for r in res[f"compact-{k}"]]) for k in ("A", "B")},
        "compact_wall_s": {k: rounds.summary([r.wall_s for r in res[f"compact-{k}"]]) for k in ("A", "B")},
        "compact_cpu_ratio_B_over_A": round(cpu["B"] / cpu["A"], 3),
        "index_build_rows_per_cpu_s": round(2 * n / (cpu["B"] - cpu["A"])) if cpu["B"] > cpu["A"] else None,
        "query_cpu_s": {k: rounds.summary([r.process_cpu_s for r in qres[f"query-{k}"]], "{:.3f}") for k in ("A", "B")},
        "query_wall_s": {k: rounds.summary([r.wall_s for r in qres[f"query-{k}"]], "{:.3f}") for k in ("A", "B")},
        "query_wall_ratio_A_over_B": round(rounds.median([r.wall_s for r in qres["query-A"]]) /
                                           rounds.median([r.wall_s for r in qres["query-B"]]), 2),
    }
    print(json.dumps(out, indent=1))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
