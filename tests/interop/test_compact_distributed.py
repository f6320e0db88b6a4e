"""Distributed compaction through the CLI: plan in one process, execute the
tasks in several processes at once, commit in a third.

- subset commit, then the rest; retries (in any order) are idempotent;
- results of another plan are rejected;
- an append committed while tasks execute commits alongside and survives;
- a concurrent rewrite of an input (another compaction) makes the commit
  fail with a "replan" conflict; compact-abort then deletes its files;
- tasks run from a task file as well as from a plan.
"""
import collections
import json
import os
import subprocess

import pyarrow as pa
from pypaimon import CatalogFactory, Schema

from conftest import paimon_bin, run_paimon

SCHEMA = pa.schema([("id", pa.int64()), ("s", pa.string()), ("pt", pa.string())])


def make_table(tmp_path, commits=8):
    wh = tmp_path / "wh"
    cat = CatalogFactory.create({"warehouse": str(wh)})
    cat.create_database("db", True)
    cat.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, partition_keys=["pt"]), False)
    for c in range(commits):
        append(wh, c * 9, 9)
    return wh, wh / "db.db" / "t"


def append(wh, start, n):
    t = CatalogFactory.create({"warehouse": str(wh)}).get_table("db.t")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(pa.Table.from_pylist(
        [{"id": k, "s": None if k % 4 == 0 else "v%d" % (k % 7), "pt": "p%d" % (k % 3)} for k in range(start, start + n)],
        schema=SCHEMA))
    cm = wb.new_commit()
    cm.commit(w.prepare_commit())
    w.close()
    cm.close()


def py_rows(wh):
    t = CatalogFactory.create({"warehouse": str(wh)}).get_table("db.t")
    rb = t.new_read_builder()
    tb = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    return collections.Counter(tuple(sorted(r.items())) for r in tb.to_pylist())


def snapshots(path):
    return sorted(int(n.split("-")[1]) for n in os.listdir(path / "snapshot") if n.startswith("snapshot-"))


def snapshot(path, sid):
    with open(path / "snapshot" / ("snapshot-%d" % sid)) as f:
        return json.load(f)


def plan(tmp_path, path, name, *extra):
    out = tmp_path / (name + ".json")
    out.write_text(run_paimon("compact-plan", path, *extra).stdout)
    return out, json.loads(out.read_text())


def exec_all(tmp_path, plan_file, n, prefix):
    """Run every task in its own process, all at once."""
    procs = []
    for i in range(n):
        f = open(tmp_path / ("%s-%d.json" % (prefix, i)), "w")
        procs.append((subprocess.Popen([paimon_bin(), "compact-exec", str(plan_file), "--task", str(i)],
                                       stdout=f, stderr=subprocess.PIPE, text=True), f))
    for p, f in procs:
        _, err = p.communicate()
        f.close()
        assert p.returncode == 0, err
    return [tmp_path / ("%s-%d.json" % (prefix, i)) for i in range(n)]


def test_plan_exec_commit_subsets_retries(tmp_path):
    wh, path = make_table(tmp_path)
    before = py_rows(wh)
    plan_file, p = plan(tmp_path, path, "plan")
    assert p["format"] == 1 and p["kind"] == "plan" and p["snapshot_id"] == 8
    assert len(p["tasks"]) == 3
    results = exec_all(tmp_path, plan_file, 3, "result")
    assert snapshots(path)[-1] == 8  # execution publishes nothing

    # a subset first
    out = run_paimon("compact-commit", path, results[1], "--json").stdout
    m1 = json.loads(out)
    assert m1["snapshot_id"] == 9 and m1["tasks"] == 1
    assert snapshot(path, 9)["commitKind"] == "COMPACT"
    assert snapshot(path, 9)["commitUser"] == p["commit_user"]
    # retry: idempotent
    assert json.loads(run_paimon("compact-commit", path, results[1], "--json").stdout)["snapshot_id"] == 9
    # the rest, then retried in another order
    m2 = json.loads(run_paimon("compact-commit", path, results[2], results[0], "--json").stdout)
    assert m2["snapshot_id"] == 10 and m2["tasks"] == 2
    m3 = json.loads(run_paimon("compact-commit", path, results[0], results[2], "--json").stdout)
    assert m3["snapshot_id"] == 10
    assert snapshots(path)[-1] == 10
    assert py_rows(wh) == before
    files = run_paimon("files", path).stdout.splitlines()[1:]
    assert len(files) == 3

    # a task file works like a plan + index
    wh2, path2 = make_table(tmp_path / "second")
    _, p2 = plan(tmp_path, path2, "plan2")
    task_file = tmp_path / "task.json"
    task_file.write_text(json.dumps(p2["tasks"][0]))
    res = run_paimon("compact-exec", task_file).stdout
    r = json.loads(res)
    assert r["kind"] == "result" and r["task_index"] == 0 and r["plan_id"] == p2["plan_id"]
    assert sum(f["row_count"] for f in r["after"]) == sum(f["row_count"] for f in r["before"])
    assert all(f["file_source"] == 1 for f in r["after"])
    assert run_paimon("compact-exec", task_file, "--task", "2", check=False).returncode == 1


def test_other_plan_rejected_and_concurrent_append(tmp_path):
    wh, path = make_table(tmp_path)
    plan_a, pa_ = plan(tmp_path, path, "a")
    res_a = exec_all(tmp_path, plan_a, 3, "ra")
    # an append commits while the results wait
    append(wh, 1000, 5)
    plan_b, _ = plan(tmp_path, path, "b", "--partition", "pt=p0")
    res_b = exec_all(tmp_path, plan_b, 1, "rb")
    mixed = run_paimon("compact-commit", path, res_a[0], res_b[0], check=False)
    assert mixed.returncode == 1 and "different plans" in mixed.stderr
    before = py_rows(wh)
    m = json.loads(run_paimon("compact-commit", path, *res_a, "--json").stdout)
    assert m["snapshot_id"] == 10
    assert py_rows(wh) == before  # the appended rows survived
    assert sum(v for k, v in py_rows(wh).items() if dict(k)["id"] >= 1000) == 5
    # plan b read p0's old files, now rewritten by plan a: replan
    res = run_paimon("compact-commit", path, res_b[0], check=False)
    assert res.returncode == 1
    assert "ECONFLICT" in res.stderr and "replan" in res.stderr
    after_files = json.loads(res_b[0].read_text())["after"]
    bdir = path / "pt=p0" / "bucket-0"
    assert all((bdir / f["file_name"]).exists() for f in after_files)
    out = run_paimon("compact-abort", path, res_b[0]).stdout
    assert "aborted 1 result" in out
    assert not any((bdir / f["file_name"]).exists() for f in after_files)
    # aborting committed results is refused and deletes nothing
    res = run_paimon("compact-abort", res_a[0], check=False)
    assert res.returncode == 1 and "committed" in res.stderr
    assert py_rows(wh) == before


def test_concurrent_rewrite_during_execution(tmp_path):
    wh, path = make_table(tmp_path)
    plan_a, _ = plan(tmp_path, path, "a")
    # another compaction of the same files wins while plan a executes
    run_paimon("compact", path)
    res_a = exec_all(tmp_path, plan_a, 3, "ra")
    res = run_paimon("compact-commit", path, *res_a, check=False)
    assert res.returncode == 1 and "replan" in res.stderr
    assert snapshot(path, snapshots(path)[-1])["commitKind"] == "COMPACT"
    run_paimon("compact-abort", path, *res_a)
