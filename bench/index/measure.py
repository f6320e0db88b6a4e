"""Global index build throughput and filtered-read latency (issue 16).

    .venv/bin/python bench/index/measure.py [--rows N] [--rounds R] [--warmup K] [--no-java]

A template data-evolution table of N rows (default 1,000,000; k BIGINT with
about ten rows per key, s STRING) written by build/paimon in ten appends
with write-only=true and `global-index.btree.index-columns=k` (so nothing is
indexed yet).  Each round (R rounds, default 3, engines interleaved) builds
the btree index of k on a fresh copy of the template:
  ours       `paimon index TABLE --column k` (read + sort + write + commit)
  pypaimon   pypaimon 2.1 create_global_index(table, 'k', 'btree') in a
             process of its own (time.process_time() around the call)
  java       bench/java gi-build (BTreeGlobalIndexBuilder.incrementalScan +
             build + commit) after K (default 1) warm-up builds in the same
             JVM; CPU = the JVM's process CPU during the build alone
CPU seconds: getrusage of the finished child for ours (the whole process);
rows/s per core = N / CPU seconds.  Then the query latency of
`paimon read --where 'k = v'` on the indexed copy against the un-indexed
template (R runs each, 5 keys).  Printed: one JSON line per run, then the
median and min-max of each measurement.
"""
import argparse
import json
import os
import pathlib
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAIMON = os.environ.get("PAIMON_BIN", str(ROOT / "build" / "paimon"))
JAVA = ROOT / "bench" / "java" / "run.sh"
PY = sys.executable


def child_cpu(fn):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = fn()
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return out, wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def run(*args, **kw):
    p = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kw)
    if p.returncode:
        raise SystemExit(f"{' '.join(map(str, args))} failed:\n{p.stderr}")
    return p.stdout


def template(base, n):
    t = base / "db.db" / "tpl"
    run(PAIMON, "create", t, "--schema", "k BIGINT, s STRING", "--option", "bucket=-1", "--option",
        "row-tracking.enabled=true", "--option", "data-evolution.enabled=true", "--option", "write-only=true",
        "--option", "global-index.btree.index-columns=k")
    rng = random.Random(1)
    per = n // 10
    for w in range(10):
        p = base / "in.jsonl"
        with open(p, "w") as f:
            for i in range(per):
                f.write('{"k":%d,"s":"v%d"}\n' % (rng.randrange(n // 10), w * per + i))
        run(PAIMON, "write", t, "--input", p)
    os.unlink(base / "in.jsonl")
    return t


PY_BUILD = r"""
import json, os, sys, time
from pypaimon import CatalogFactory
from pypaimon.globalindex.create_global_index import create_global_index
path = sys.argv[1]
wh = os.path.dirname(os.path.dirname(path))
t = CatalogFactory.create({'warehouse': wh}).get_table('db.' + os.path.basename(path))
c0, w0 = time.process_time(), time.perf_counter()
files = create_global_index(t, 'k', 'btree')
print(json.dumps({"files": files, "cpu": time.process_time() - c0, "wall": time.perf_counter() - w0}))
"""


def summary(name, xs, n):
    cpu = [x["cpu"] for x in xs]
    wall = [x["wall"] for x in xs]
    rps = [n / c for c in cpu]
    print(json.dumps({"measure": name, "runs": len(xs),
                      "cpu_s": [round(statistics.median(cpu), 3), round(min(cpu), 3), round(max(cpu), 3)],
                      "wall_s": [round(statistics.median(wall), 3), round(min(wall), 3), round(max(wall), 3)],
                      "rows_per_s_per_core": [int(statistics.median(rps)), int(min(rps)), int(max(rps))]}))
    return statistics.median(rps)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--no-java", action="store_true")
    a = ap.parse_args()
    base = pathlib.Path(tempfile.mkdtemp(prefix="gidx-bench-"))
    try:
        tpl = template(base, a.rows)
        res = {"ours": [], "pypaimon": [], "java": []}
        indexed = None
        for r in range(a.rounds):
            c = base / "db.db" / f"ours{r}"
            shutil.copytree(tpl, c)
            out, wall, cpu = child_cpu(lambda: run(PAIMON, "index", c, "--column", "k", "--json"))
            res["ours"].append({"cpu": cpu, "wall": wall, **json.loads(out)})
            print(json.dumps({"engine": "ours", **res["ours"][-1]}))
            if indexed is None:
                indexed = c
            else:
                shutil.rmtree(c)
            c = base / "db.db" / f"py{r}"
            shutil.copytree(tpl, c)
            out = json.loads(run(PY, "-c", PY_BUILD, c).strip().splitlines()[-1])
            res["pypaimon"].append(out)
            print(json.dumps({"engine": "pypaimon", **out}))
            shutil.rmtree(c)
            if not a.no_java:
                c = base / "db.db" / f"java{r}"
                shutil.copytree(tpl, c)
                out = json.loads(run(JAVA, "gi-build", c, "--column", "k", "--warmup", a.warmup,
                                     env={**os.environ, "PAIMON_ORACLE_LOG": "error"}).strip().splitlines()[-1])
                res["java"].append({"cpu": out["cpu_ms"] / 1000, "wall": out["build_ms"] / 1000, **out})
                print(json.dumps({"engine": "java", **res["java"][-1]}))
                shutil.rmtree(c)
        med = {k: summary(f"{k}-btree-build", v, a.rows) for k, v in res.items() if v}
        for k in ("pypaimon", "java"):
            if k in med:
                print(json.dumps({"ratio": f"ours/{k} rows/s per core", "value": round(med["ours"] / med[k], 2)}))
        # query latency, with and without the index
        rng = random.Random(2)
        keys = [rng.randrange(a.rows // 10) for _ in range(5)]
        lat = {"indexed": [], "unindexed": []}
        for _ in range(a.rounds):
            for name, t in (("indexed", indexed), ("unindexed", tpl)):
                t0 = time.perf_counter()
                for k in keys:
                    run(PAIMON, "read", t, "--where", f"k = {k}")
                lat[name].append((time.perf_counter() - t0) / len(keys))
        for name, v in lat.items():
            print(json.dumps({"measure": f"read-where-{name}", "seconds_per_query":
                              [round(statistics.median(v), 4), round(min(v), 4), round(max(v), 4)]}))
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
