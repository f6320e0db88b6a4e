"""bench/python/bench_python.py — the Python package against its peers.

One table (append, unaware bucket, PARTS partitions, FILES small Parquet
files in all, ROWS rows each: written by paimon_c in one commit with
target-file-row-num = ROWS) is compacted (full) on a fresh copy per run by:
  cli        build/paimon compact --full           (pm_compact_run, its threads)
  py_run     paimon_c CompactBuilder.run()         (the same C call from Python)
  py_loop    paimon_c plan → execute each task → commit, in one thread
  ray_1      paimon_c.ray.compact, num_workers=1   (Ray started beforehand)
  ray_2      paimon_c.ray.compact, num_workers=2
and the uncompacted table is read whole by:
  read_paimon_c  paimon_c to_arrow
  read_pypaimon  pypaimon to_arrow
Each run's preparation (copying the table) is not timed.  Variants run
interleaved, ROUNDS rounds (order rotated each round);
printed: median, min and max wall seconds per variant, then the ratios.
Env: FILES (1000), ROWS (1000), PARTS (10), ROUNDS (5), PAIMON_BIN
(build/paimon), OUT (bench/out/python).
"""
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import time

import pyarrow as pa

import paimon_c

ROOT = pathlib.Path(__file__).resolve().parents[2]
FILES = int(os.environ.get("FILES", 1000))
ROWS = int(os.environ.get("ROWS", 1000))
PARTS = int(os.environ.get("PARTS", 10))
ROUNDS = int(os.environ.get("ROUNDS", 5))
PAIMON_BIN = os.environ.get("PAIMON_BIN", str(ROOT / "build" / "paimon"))
OUT = pathlib.Path(os.environ.get("OUT", ROOT / "bench" / "out" / "python"))
BIG = str(1 << 40)  # compaction outputs: one file per task


def make_base(wh):
    cat = paimon_c.CatalogFactory.create({"warehouse": str(wh)})
    cat.create_database("db", True)
    schema = pa.schema([("id", pa.int64()), ("v", pa.float64()), ("s", pa.string()), ("pt", pa.string())])
    cat.create_table("db.t", paimon_c.Schema.from_pyarrow_schema(
        schema, partition_keys=["pt"], options={"write-only": "true", "target-file-row-num": str(ROWS)}), False)
    t = cat.get_table("db.t")
    n = FILES * ROWS
    ids = pa.array(range(n), pa.int64())
    per_part = n // PARTS
    tbl = pa.table({"id": ids, "v": pa.compute.multiply(ids.cast(pa.float64()), 0.5),
                    "s": pa.array(["value-%d" % (i % 977) for i in range(n)]),
                    "pt": pa.array(["p%02d" % min(i // per_part, PARTS - 1) for i in range(n)])})
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(tbl)
    wb.new_commit().commit(w.prepare_commit())
    files = len(t.files())
    assert files == FILES, "expected %d files, wrote %d" % (FILES, files)
    return cat


def fresh(base, work):
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(base, work)
    return work


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main():
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    base = OUT / "base"
    make_base(base)
    work = OUT / "work"
    opts = {"target-file-row-num": BIG}
    try:
        import ray
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
        from paimon_c import ray as paimon_ray
    except ImportError:
        ray = None
    import pypaimon

    # Each variant prepares (untimed: a fresh copy of the table) and returns
    # what is timed.
    def cli():
        wh = fresh(base, work)
        return lambda: subprocess.run([PAIMON_BIN, "compact", str(wh / "db.db" / "t"), "--full",
                                      "--option", "target-file-row-num=" + BIG], check=True, capture_output=True)

    def py_run():
        wh = fresh(base, work)
        return lambda: paimon_c.CatalogFactory.create({"warehouse": str(wh)}).get_table("db.t") \
            .new_compact_builder().with_full(True).with_options(opts).run()

    def py_loop():
        wh = fresh(base, work)

        def run():
            t = paimon_c.CatalogFactory.create({"warehouse": str(wh)}).get_table("db.t")
            cb = t.new_compact_builder().with_full(True).with_options(opts)
            plan = cb.new_planner().plan()
            ex = cb.new_executor()
            return cb.new_commit().commit_compact([ex.execute(task) for task in plan.tasks()])
        return run

    def ray_n(n):
        def prepare():
            wh = fresh(base, work)
            return lambda: paimon_ray.compact(str(wh), "db.t", full=True, num_workers=n, options=opts,
                                              progress=False)
        return prepare

    def read_paimon_c():
        def run():
            t = paimon_c.CatalogFactory.create({"warehouse": str(base)}).get_table("db.t")
            rb = t.new_read_builder()
            return rb.new_read().to_arrow(rb.new_scan().plan().splits()).num_rows
        return run

    def read_pypaimon():
        def run():
            t = pypaimon.CatalogFactory.create({"warehouse": str(base)}).get_table("db.t")
            rb = t.new_read_builder()
            return rb.new_read().to_arrow(rb.new_scan().plan().splits()).num_rows
        return run

    variants = {"cli": cli, "py_run": py_run, "py_loop": py_loop}
    if ray is not None:
        variants.update({"ray_1": ray_n(1), "ray_2": ray_n(2)})
    variants.update({"read_paimon_c": read_paimon_c, "read_pypaimon": read_pypaimon})
    # warm-up (imports, Ray workers, page cache), untimed
    for prepare in variants.values():
        prepare()()
    times = {k: [] for k in variants}
    names = list(variants)
    for r in range(ROUNDS):
        for k in names[r % len(names):] + names[:r % len(names)]:
            dt, out = timed(variants[k]())
            times[k].append(dt)
            if k == "py_run" and r == 0:
                print("compaction: %s" % json.dumps(out.to_dict()))
            if k.startswith("read_"):
                assert out == FILES * ROWS
    print("table: %d files x %d rows, %d partitions (%d tasks); %d rounds, wall seconds" % (
        FILES, ROWS, PARTS, PARTS, ROUNDS))
    summary = {}
    for k, v in times.items():
        summary[k] = {"median": statistics.median(v), "min": min(v), "max": max(v)}
        print("  %-14s median %.3f  (min %.3f, max %.3f)" % (k, summary[k]["median"], min(v), max(v)))

    def ratio(a, b):
        if a in summary and b in summary:
            print("  %-28s %.2f" % ("%s / %s" % (a, b), summary[a]["median"] / summary[b]["median"]))
    print("ratios of medians:")
    ratio("py_run", "cli")
    ratio("py_loop", "cli")
    ratio("ray_1", "py_loop")
    ratio("ray_2", "py_loop")
    ratio("ray_2", "ray_1")
    ratio("read_pypaimon", "read_paimon_c")
    (OUT / "summary.json").write_text(json.dumps(summary, indent=1))
    if ray is not None:
        ray.shutdown()
    shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
