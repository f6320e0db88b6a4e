"""Crash test: `paimon compact` and `paimon compact-commit` killed with
SIGKILL at random moments (during planning, execution, manifest writing,
snapshot publication and the LATEST hint).

After every kill:
  - the table reads, with our reader and with pypaimon, and the row
    multiset is exactly the original one;
  - every snapshot reads, and no snapshot refers to a missing data file;
  - recovery works: re-running the same commit (same results, same commit
    user) or a fresh compaction completes, and the rows stay exact.
Runs: CRASH_RUNS (default 50) split between the two commands; the tables
are small so the whole test takes seconds.
"""
import collections
import json
import os
import pathlib
import random
import shutil
import signal
import subprocess
import time

import pyarrow as pa
import pytest
from pypaimon import CatalogFactory, Schema

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUNS = int(os.environ.get("CRASH_RUNS", "50"))
SCHEMA = pa.schema([("id", pa.int64()), ("s", pa.string()), ("d", pa.float64()), ("pt", pa.string())])


def paimon_bin():
    return os.environ.get("PAIMON_BIN", str(ROOT / "build" / "paimon"))


def run(*args, check=True):
    p = subprocess.run([paimon_bin(), *map(str, args)], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError("paimon %s failed (%d): %s" % (" ".join(map(str, args)), p.returncode, p.stderr))
    return p


def timed_kill(args, delay):
    """Start paimon with args, SIGKILL it after `delay` seconds (if still running)."""
    p = subprocess.Popen([paimon_bin(), *map(str, args)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + delay
    while time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.0005)
    killed = p.poll() is None
    if killed:
        p.send_signal(signal.SIGKILL)
    p.communicate()
    return killed


def make_template(base):
    wh = base / "wh"
    cat = CatalogFactory.create({"warehouse": str(wh)})
    cat.create_database("db", True)
    cat.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, partition_keys=["pt"]), False)
    t = cat.get_table("db.t")
    rng = random.Random(7)
    for c in range(DATA_SNAPSHOTS):
        rows = [{"id": rng.randrange(500), "s": None if k % 6 == 0 else "x" * rng.randrange(40),
                 "d": None if k % 5 == 0 else rng.random(), "pt": "p%d" % (k % 2)} for k in range(ROWS)]
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        w.write_arrow(pa.Table.from_pylist(rows, schema=SCHEMA))
        cm = wb.new_commit()
        cm.commit(w.prepare_commit())
        w.close()
        cm.close()
    return wh


def rows_ours(path, snapshot=None):
    args = ["read", path] + (["--snapshot", snapshot] if snapshot else [])
    out = run(*args).stdout
    return collections.Counter(line for line in out.splitlines() if line.strip())


def rows_py(wh):
    t = CatalogFactory.create({"warehouse": str(wh)}).get_table("db.t")
    rb = t.new_read_builder()
    tb = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    return collections.Counter(tuple(sorted(r.items())) for r in tb.to_pylist())


def snapshot_ids(path):
    return sorted(int(n.split("-")[1]) for n in os.listdir(path / "snapshot")
                  if n.startswith("snapshot-") and n.split("-")[1].isdigit())


DATA_SNAPSHOTS = 6
ROWS = 2000


def check_table(wh, path, want_ours, want_py, all_snapshots=True):
    assert rows_ours(path) == want_ours
    if want_py is not None:
        assert rows_py(wh) == want_py
    ids = snapshot_ids(path)
    for sid in ids if all_snapshots else ids[-1:]:
        files = json.loads(run("files", path, "--snapshot", sid, "--json").stdout)
        for f in files:
            p = pathlib.Path(f["file_path"])
            assert p.exists(), "snapshot %d refers to missing %s" % (sid, p)
        # data snapshots hold 400 rows each; COMPACT snapshots never change the rows
        got = sum(f["record_count"] for f in files)
        assert got == ROWS * min(sid, DATA_SNAPSHOTS), "snapshot %d has %d rows" % (sid, got)


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    base = tmp_path_factory.mktemp("crash-template")
    wh = make_template(base)
    path = wh / "db.db" / "t"
    return wh, rows_ours(path), rows_py(wh)


def fresh(template, tmp_path, i):
    wh, _, _ = template
    dst = tmp_path / ("run-%d" % i) / "wh"
    shutil.copytree(wh, dst)
    return dst, dst / "db.db" / "t"


def measure(template, tmp_path, args_fn):
    wh, path = fresh(template, tmp_path, 10_000)
    t0 = time.monotonic()
    run(*args_fn(path))
    return time.monotonic() - t0


def test_kill_compact(template, tmp_path):
    _, want_ours, want_py = template
    window = measure(template, tmp_path, lambda p: ["compact", p]) * 1.1
    rng = random.Random(11)
    killed = 0
    for i in range(RUNS // 2):
        wh, path = fresh(template, tmp_path, i)
        k = timed_kill(["compact", path, "--commit-user", "crash-user"], rng.uniform(0, window))
        killed += k
        if not k:
            window *= 0.8  # the window shrinks when the run finished first
        check_table(wh, path, want_ours, want_py)
        # recovery: compacting again completes (or finds nothing left)
        run("compact", path, "--commit-user", "crash-user")
        check_table(wh, path, want_ours, None, all_snapshots=False)
        assert len(json.loads(run("files", path, "--json").stdout)) == 2
        shutil.rmtree(wh.parent)
    assert killed >= RUNS // 6, "too few runs were actually killed (%d)" % killed


def plan_and_execute(tmp_path, path, tag):
    plan = tmp_path / ("plan-%s.json" % tag)
    plan.write_text(run("compact-plan", path).stdout)
    ntasks = len(json.loads(plan.read_text())["tasks"])
    results = []
    for k in range(ntasks):
        r = tmp_path / ("result-%s-%d.json" % (tag, k))
        r.write_text(run("compact-exec", plan, "--task", k).stdout)
        results.append(r)
    return results


def test_kill_commit(template, tmp_path):
    _, want_ours, want_py = template
    rng = random.Random(13)
    killed = 0
    wh, path = fresh(template, tmp_path, 20_000)
    results = plan_and_execute(tmp_path, path, "timing")
    t0 = time.monotonic()
    run("compact-commit", path, *results)
    # kill moments drawn from a window that starts at 1.2 x one measured
    # commit and shrinks whenever a commit finished first (a cold first
    # measurement or a busy machine would otherwise kill too few)
    window = (time.monotonic() - t0) * 1.2
    for i in range(RUNS - RUNS // 2):
        wh, path = fresh(template, tmp_path, 1000 + i)
        results = plan_and_execute(tmp_path, path, str(i))
        delay = rng.uniform(0, window)
        before = snapshot_ids(path)[-1]
        k = timed_kill(["compact-commit", path, *results], delay)
        killed += k
        if not k:
            window *= 0.8
        check_table(wh, path, want_ours, want_py)
        # recovery: the same commit again publishes exactly once
        out = json.loads(run("compact-commit", path, *results, "--json").stdout)
        assert out["snapshot_id"] == before + 1
        assert snapshot_ids(path)[-1] == before + 1
        check_table(wh, path, want_ours, None, all_snapshots=False)
        shutil.rmtree(wh.parent)
    assert killed >= (RUNS - RUNS // 2) // 4, "too few commits were actually killed (%d)" % killed
