"""Data-evolution compaction and materialization throughput (issue 10).

    .venv/bin/python bench/de/measure.py [--rows N] [--rounds R] [--warmup K] [--no-java]

Two templates of N rows (default 1,000,000; id BIGINT, name STRING,
v DOUBLE, w DOUBLE) written by build/paimon in ten appends (ten row-ID
groups), then two full-column updates (`paimon update` of v, then of w), so
every group holds 3 column versions:
  - DV: with deletion-vectors.enabled and 1 % of the rows deleted (our
    compaction moves the vectors; materialization drops the rows);
  - plain: without deletion vectors (Apache Paimon Java 1.4.2 refuses data
    evolution with deletion vectors, and its data-evolution compaction does
    not carry vectors over).
Each round (R rounds, default 5, the engines interleaved within a round)
runs every measurement on a fresh copy of its template:
  ours-compact-{dv,plain}   `paimon compact --option compaction.min.file-num=1`
  ours-materialize-dv       `paimon materialize-deletions` (the DV template)
  java-compact-plain cold   bench/java compact-de in a new JVM, no warm-up
  java-compact-plain steady the same after K (default 8) warm-up compactions in
                            the same JVM (on throw-away copies)
  pypaimon-read-{dv,plain}  pypaimon 2.1 reading the whole pre-compaction
                            table (to_arrow), in a process of its own
CPU seconds come from the OS: getrusage of the finished child (user +
system of the whole process), and for Java also the JVM's process CPU
during the operation alone (OperatingSystemMXBean.getProcessCpuTime, the
OS's per-process counter), which excludes JVM start-up; pypaimon likewise
reports time.process_time() around the read alone.  rows/s per core = N
logical rows (physical slots) / CPU seconds.  Printed: one JSON line per
run, then per measurement the median and min-max of CPU seconds, wall
seconds and rows/s per core.  Apache Paimon Java 1.4.2 has no
deletion-vector materialization (no such procedure or API): not measured.
Before the rounds (unless --no-verify), pypaimon reads each template before
and after our compaction (rows and _ROW_IDs identical) and after our
materialization (the same values without the deleted rows).
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

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAIMON = os.environ.get("PAIMON_BIN", str(ROOT / "build" / "paimon"))
JAVA = ROOT / "bench" / "java" / "run.sh"
PY = sys.executable
GROUPS = 10

PY_READ = r"""
import json, sys, time
from pypaimon import CatalogFactory
t = CatalogFactory.create({"warehouse": sys.argv[1]}).get_table("db.t")
c0, w0 = time.process_time(), time.perf_counter()
rb = t.new_read_builder()
n = rb.new_read().to_arrow(rb.new_scan().plan().splits()).num_rows
print(json.dumps({"rows": n, "op_cpu_s": time.process_time() - c0, "op_wall_s": time.perf_counter() - w0}))
"""


def child(args, input=None, env=None):
    """Run a child; (stdout, CPU seconds of the child from getrusage, wall seconds)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    p = subprocess.run([str(a) for a in args], input=input, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - w0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode:
        raise SystemExit("%s failed (%d): %s" % (" ".join(map(str, args)), p.returncode, p.stderr[-2000:]))
    return p.stdout, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), wall


def paimon(*a, input=None):
    return child([PAIMON, *a], input=input)[0]


def build(base, rows, dv):
    wh = base / ("dv" if dv else "plain")
    t = wh / "db.db" / "t"
    paimon("create-database", wh, "db")
    paimon("create", t, "--schema", "id BIGINT, name STRING, v DOUBLE, w DOUBLE", "--option", "bucket=-1",
           "--option", "row-tracking.enabled=true", "--option", "data-evolution.enabled=true",
           "--option", "deletion-vectors.enabled=%s" % ("true" if dv else "false"), "--option", "write-only=true")
    group = (rows + GROUPS - 1) // GROUPS
    for s in range(0, rows, group):
        n = min(group, rows - s)
        paimon("write", t, input="".join('{"id":%d,"name":"name-%d","v":%d.5,"w":0.0}\n' % (i, i, i)
                                         for i in range(s, s + n)))
    for col in ("v", "w"):
        paimon("update", t, "--columns", col,
               input="".join('{"_ROW_ID":%d,"%s":%d.25}\n' % (i, col, i * 2) for i in range(rows)))
    if dv:
        paimon("delete", t, "--row-ids", ",".join(str(i) for i in range(0, rows, 100)))
    return wh


def fresh(template, scratch, name):
    dst = scratch / name
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(template, dst)
    return dst, dst / "db.db" / "t"


def run_ours_compact(template, scratch, rows):
    wh, t = fresh(template, scratch, "ours")
    out, cpu, wall = child([PAIMON, "compact", t, "--option", "compaction.min.file-num=1", "--json"])
    m = json.loads(out)
    assert m["rows_written"] == rows and m["files_added"] >= 1, m
    return {"cpu_s": cpu, "wall_s": wall, "files_removed": m["files_removed"], "files_added": m["files_added"]}


def run_ours_materialize(template, scratch, rows):
    wh, t = fresh(template, scratch, "ours-mat")
    out, cpu, wall = child([PAIMON, "materialize-deletions", t])
    assert "rows removed" in out, out
    return {"cpu_s": cpu, "wall_s": wall, "summary": out.strip().splitlines()[-1]}


def run_java(template, scratch, rows, warmup):
    wh, t = fresh(template, scratch, "java")
    env = dict(os.environ, PAIMON_ORACLE_BUILT="1")
    out, cpu, wall = child([JAVA, "compact-de", t, "--option", "compaction.min.file-num=1", "--warmup", warmup],
                           env=env)
    m = json.loads(out.strip().splitlines()[-1])
    assert m["output_rows"] == rows and m["commit_kind"] == "COMPACT", m
    return {"cpu_s": m["cpu_ms"] / 1000.0, "wall_s": m["wall_ms"] / 1000.0, "process_cpu_s": cpu,
            "process_wall_s": wall, "output_files": m["output_files"], "gc_ms": m["gc_ms"]}


def run_py(template, rows):
    out, cpu, wall = child([PY, "-c", PY_READ, template])
    m = json.loads(out.strip().splitlines()[-1])
    return {"cpu_s": m["op_cpu_s"], "wall_s": m["op_wall_s"], "process_cpu_s": cpu, "process_wall_s": wall,
            "rows_read": m["rows"]}


PY_DUMP = r"""
import sys
import pyarrow.parquet as pq
from pypaimon import CatalogFactory
t = CatalogFactory.create({"warehouse": sys.argv[1]}).get_table("db.t")
rb = t.new_read_builder().with_projection(["_ROW_ID", "id", "name", "v", "w"])
pq.write_table(rb.new_read().to_arrow(rb.new_scan().plan().splits()).sort_by("_ROW_ID"), sys.argv[2])
"""


def py_dump(wh, out):
    import pyarrow.parquet as pq
    child([PY, "-c", PY_DUMP, wh, out])
    return pq.read_table(out)


def verify(template, scratch, dv):
    """pypaimon reads our compaction's output as the input; materialization keeps the live values."""
    before = py_dump(template, scratch / "before.parquet")
    wh, t = fresh(template, scratch, "verify")
    paimon("compact", t, "--option", "compaction.min.file-num=1")
    after = py_dump(wh, scratch / "after.parquet")
    assert after.equals(before), "compaction changed what pypaimon reads"
    if dv:
        paimon("materialize-deletions", t)
        mat = py_dump(wh, scratch / "mat.parquet")
        key = [("id", "ascending")]
        assert mat.drop_columns(["_ROW_ID"]).sort_by(key).equals(before.drop_columns(["_ROW_ID"]).sort_by(key)), \
            "materialization changed the live values"
        assert mat.num_rows == before.num_rows and len(set(mat.column("_ROW_ID").to_pylist())) == mat.num_rows
    shutil.rmtree(wh)
    return before.num_rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=8)
    ap.add_argument("--no-java", action="store_true")
    ap.add_argument("--no-verify", action="store_true")
    a = ap.parse_args()
    if not a.no_java:
        subprocess.run([str(ROOT / "scripts" / "java-oracle.sh")], check=True, capture_output=True)
    base = pathlib.Path(tempfile.mkdtemp(prefix="de-bench-"))
    try:
        t0 = time.perf_counter()
        dv, plain = build(base, a.rows, True), build(base, a.rows, False)
        print(json.dumps({"built_s": round(time.perf_counter() - t0, 1), "rows": a.rows, "groups": GROUPS,
                          "column_versions": 3, "deleted": len(range(0, a.rows, 100))}), flush=True)
        scratch = base / "scratch"
        scratch.mkdir()
        if not a.no_verify:
            print(json.dumps({"verified_rows": {"dv": verify(dv, scratch, True),
                                                "plain": verify(plain, scratch, False)}}), flush=True)
        plan = [("ours-compact-dv", lambda: run_ours_compact(dv, scratch, a.rows)),
                ("ours-compact-plain", lambda: run_ours_compact(plain, scratch, a.rows)),
                ("ours-materialize-dv", lambda: run_ours_materialize(dv, scratch, a.rows)),
                ("pypaimon-read-dv", lambda: run_py(dv, a.rows)),
                ("pypaimon-read-plain", lambda: run_py(plain, a.rows))]
        if not a.no_java:
            plan += [("java-compact-plain-cold", lambda: run_java(plain, scratch, a.rows, 0)),
                     ("java-compact-plain-steady", lambda: run_java(plain, scratch, a.rows, a.warmup))]
        results = {name: [] for name, _ in plan}
        for r in range(a.rounds):
            for name, fn in plan:
                m = fn()
                m["rows_per_core_s"] = a.rows / m["cpu_s"]
                results[name].append(m)
                print(json.dumps({"round": r + 1, "run": name, **{k: (round(v, 3) if isinstance(v, float) else v)
                                                                  for k, v in m.items()}}), flush=True)
        print()
        print("%-27s %22s %22s %28s" % ("measurement", "CPU s median (min-max)", "wall s median (min-max)",
                                        "rows/s/core median (min-max)"))
        summary = {}
        for name, runs in results.items():
            def stat(key, fmt):
                v = [x[key] for x in runs]
                return fmt % (statistics.median(v), min(v), max(v)), statistics.median(v)
            cpu, _ = stat("cpu_s", "%.3f (%.3f-%.3f)")
            wall, _ = stat("wall_s", "%.3f (%.3f-%.3f)")
            rps, med = stat("rows_per_core_s", "%.0f (%.0f-%.0f)")
            summary[name] = med
            print("%-27s %22s %22s %28s" % (name, cpu, wall, rps))
            if "process_cpu_s" in runs[0]:
                pc, _ = stat("process_cpu_s", "%.3f (%.3f-%.3f)")
                print("%-27s %22s" % ("  (whole process)", pc))
        print(json.dumps({"rows_per_core_s_median": {k: round(v) for k, v in summary.items()}}))
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
