"""Crash test of data-evolution tables (issue 10): `paimon compact`,
`paimon compact-commit` and `paimon materialize-deletions` killed with
SIGKILL at random moments (planning, execution, the deletion-vector rebase,
manifest writing, snapshot publication, the LATEST hint; for
materialization also between its batches).

The template (pypaimon wrote it): appends in four commits, column updates
by row ID in every group, deletes by row ID through deletion vectors.  The
model is row ID -> (id, name, v) of the live rows.

After every kill:
  - our reader and pypaimon read the table, and every snapshot's files
    exist;
  - compaction: the rows are exactly the model, row IDs included (a kill
    leaves the table before or after the COMPACT snapshot, both the same);
  - materialization: the values are exactly the model's, no deleted row is
    back, row IDs are unique, and every row ID from before materialization
    still holds the model's values for it (a group is rewritten with new
    IDs in one snapshot or not at all);
  - recovery works: compacting again (or the same commit again, which
    publishes exactly once) keeps the model exact; materializing again
    leaves no deletion vector and the same values.
Runs: CRASH_RUNS (default 50) split between the three commands.
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
SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("v", pa.float64())])
OPTS = {"bucket": "-1", "row-tracking.enabled": "true", "data-evolution.enabled": "true",
        "deletion-vectors.enabled": "true", "write-only": "true"}
COMMITS = 4
ROWS = 1500
# small targets: several tasks, and a bin per pair of groups
COMPACT_OPTS = ["--option", "compaction.min.file-num=1", "--option", "target-file-size=40 kb"]


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


def py_table(wh):
    return CatalogFactory.create({"warehouse": str(wh)}).get_table("db.t")


def py_commit(t, msgs):
    c = t.new_batch_write_builder().new_commit()
    c.commit(msgs)
    c.close()


def make_template(base):
    wh = base / "wh"
    cat = CatalogFactory.create({"warehouse": str(wh)})
    cat.create_database("db", True)
    cat.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, options=OPTS), False)
    rng = random.Random(17)
    for c in range(COMMITS):
        t = py_table(wh)
        w = t.new_batch_write_builder().new_write()
        ids = list(range(c * ROWS, (c + 1) * ROWS))
        w.write_arrow(pa.table({"id": ids, "name": ["n%d" % i if i % 7 else None for i in ids],
                                "v": [float(i) for i in ids]}, schema=SCHEMA))
        py_commit(t, w.prepare_commit())
        w.close()
    # a column version in every group, and deletes in three of the four
    t = py_table(wh)
    upd = sorted(rng.sample(range(COMMITS * ROWS), 300))
    u = t.new_batch_write_builder().new_update().with_update_type(["v"])
    py_commit(t, u.update_by_arrow_with_row_id(pa.table({"_ROW_ID": pa.array(upd, pa.int64()),
                                                         "v": [-float(r) for r in upd]})))
    t = py_table(wh)
    dels = sorted(rng.sample(range(ROWS, COMMITS * ROWS), 120))
    py_commit(t, t.new_batch_write_builder().new_update().delete_by_row_id(dels))
    return wh


def rows_ours(path):
    out = run("read", path, "--columns", "_ROW_ID,id,name,v").stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def rows_py(wh):
    rb = py_table(wh).new_read_builder().with_projection(["_ROW_ID", "id", "name", "v"])
    return rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist()


def as_model(rows):
    m = {r["_ROW_ID"]: (r["id"], r["name"], r["v"]) for r in rows}
    assert len(m) == len(rows), "duplicate row IDs"
    return m


def snapshot_ids(path):
    return sorted(int(n.split("-")[1]) for n in os.listdir(path / "snapshot")
                  if n.startswith("snapshot-") and n.split("-")[1].isdigit())


def check_files(path, all_snapshots=True):
    ids = snapshot_ids(path)
    for sid in ids if all_snapshots else ids[-1:]:
        for f in json.loads(run("files", path, "--snapshot", sid, "--json").stdout):
            assert pathlib.Path(f["file_path"]).exists(), "snapshot %d refers to missing %s" % (sid, f["file_path"])


def check_exact(wh, path, model, py=True):
    assert as_model(rows_ours(path)) == model
    if py:
        assert as_model(rows_py(wh)) == model


def check_materialized_state(wh, path, model, next_row_id):
    """Between or after materialization batches: values exact, old row IDs
    still hold their values, new row IDs unique."""
    for rows in (rows_ours(path), rows_py(wh)):
        got = as_model(rows)
        assert collections.Counter(got.values()) == collections.Counter(model.values())
        for rid, vals in got.items():
            if rid < next_row_id:
                assert model.get(rid) == vals, "row ID %d changed its values" % rid


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    base = tmp_path_factory.mktemp("crash-de-template")
    wh = make_template(base)
    path = wh / "db.db" / "t"
    model = as_model(rows_ours(path))
    assert model == as_model(rows_py(wh))
    assert len(model) == COMMITS * ROWS - 120
    snap = json.loads((path / "snapshot" / ("snapshot-%d" % snapshot_ids(path)[-1])).read_text())
    return wh, model, snap["nextRowId"]


def fresh(template, tmp_path, i):
    wh = template[0]
    dst = tmp_path / ("run-%d" % i) / "wh"
    shutil.copytree(wh, dst)
    return dst, dst / "db.db" / "t"


def measure(template, tmp_path, args):
    wh, path = fresh(template, tmp_path, 10_000)
    t0 = time.monotonic()
    run(*args(path))
    took = time.monotonic() - t0
    shutil.rmtree(wh.parent)
    return took


def test_kill_de_compact(template, tmp_path):
    _, model, _ = template
    args = lambda p: ["compact", p, "--commit-user", "crash-user", *COMPACT_OPTS]  # noqa: E731
    window = measure(template, tmp_path, args) * 1.1
    rng = random.Random(21)
    killed = 0
    runs = RUNS // 3
    for i in range(runs):
        wh, path = fresh(template, tmp_path, i)
        k = timed_kill(args(path), rng.uniform(0, window))
        killed += k
        if not k:
            window *= 0.8
        check_exact(wh, path, model)
        check_files(path)
        # recovery: compacting again completes (or finds nothing left)
        run(*args(path))
        check_exact(wh, path, model, py=False)
        check_files(path, all_snapshots=False)
        files = json.loads(run("files", path, "--json").stdout)
        assert sum(f["deleted_rows"] for f in files) == 120   # the vectors moved, none lost
        shutil.rmtree(wh.parent)
    assert killed >= runs // 3, "too few runs were actually killed (%d)" % killed


def plan_and_execute(tmp_path, path, tag):
    plan = tmp_path / ("plan-%s.json" % tag)
    plan.write_text(run("compact-plan", path, *COMPACT_OPTS).stdout)
    ntasks = len(json.loads(plan.read_text())["tasks"])
    assert ntasks > 1
    results = []
    for k in range(ntasks):
        r = tmp_path / ("result-%s-%d.json" % (tag, k))
        r.write_text(run("compact-exec", plan, "--task", k).stdout)
        results.append(r)
    return results


def test_kill_de_compact_commit(template, tmp_path):
    _, model, _ = template
    rng = random.Random(23)
    wh, path = fresh(template, tmp_path, 20_000)
    results = plan_and_execute(tmp_path, path, "timing")
    t0 = time.monotonic()
    run("compact-commit", path, *results)
    window = (time.monotonic() - t0) * 1.2
    shutil.rmtree(wh.parent)
    killed = 0
    runs = RUNS // 3
    for i in range(runs):
        wh, path = fresh(template, tmp_path, 1000 + i)
        results = plan_and_execute(tmp_path, path, str(i))
        before = snapshot_ids(path)[-1]
        k = timed_kill(["compact-commit", path, *results], rng.uniform(0, window))
        killed += k
        if not k:
            window *= 0.8
        check_exact(wh, path, model)
        check_files(path)
        # recovery: the same commit again publishes exactly once
        out = json.loads(run("compact-commit", path, *results, "--json").stdout)
        assert out["snapshot_id"] == before + 1
        assert snapshot_ids(path)[-1] == before + 1
        check_exact(wh, path, model, py=False)
        shutil.rmtree(wh.parent)
    assert killed >= runs // 4, "too few commits were actually killed (%d)" % killed


def test_kill_materialize(template, tmp_path):
    _, model, next_row_id = template
    args = lambda p: ["materialize-deletions", p, "--batch-vectors", "1"]  # noqa: E731
    window = measure(template, tmp_path, args) * 1.1
    rng = random.Random(29)
    killed = 0
    runs = RUNS - 2 * (RUNS // 3)
    for i in range(runs):
        wh, path = fresh(template, tmp_path, 2000 + i)
        k = timed_kill(args(path), rng.uniform(0, window))
        killed += k
        if not k:
            window *= 0.8
        check_materialized_state(wh, path, model, next_row_id)
        check_files(path)
        # recovery: materializing again finishes what is left
        run(*args(path))
        check_materialized_state(wh, path, model, next_row_id)
        files = json.loads(run("files", path, "--json").stdout)
        assert all(f["deleted_rows"] == 0 for f in files)
        assert "nothing to materialize" in run(*args(path)).stdout
        shutil.rmtree(wh.parent)
    assert killed >= runs // 3, "too few runs were actually killed (%d)" % killed
