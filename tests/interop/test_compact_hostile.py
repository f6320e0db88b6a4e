"""Hostile compaction results through the CLI (`paimon compact-plan / -exec /
-commit / -abort`): a result JSON is untrusted input.

For results whose files have `../` names, absolute external paths, the
names of live files, or that belong to another table: compact-commit and
compact-abort exit 1 naming the field, no snapshot is added, and nothing
inside or outside the table changes (sentinel files keep existing).  The
genuine result still commits afterwards.
"""
import copy
import hashlib
import json
import os

import pytest

from conftest import run_paimon


def make_table(wh, name):
    path = wh / "db.db" / name
    run_paimon("create", path, "--schema", "id BIGINT, s STRING", "--option", "bucket=-1",
               "--option", "write-only=true")
    for c in range(6):
        run_paimon("write", path, input='{"id":%d,"s":"v%d"}\n' % (c, c))
    return path


def snapshots(path):
    return sorted(n for n in os.listdir(path / "snapshot") if n.startswith("snapshot-"))


def tree_digest(root):
    """Every file under root with a hash of its content."""
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = hashlib.sha256(fh.read()).hexdigest()
    return out


@pytest.fixture
def setup(tmp_path):
    wh = tmp_path / "wh"
    table = make_table(wh, "t")
    other = make_table(wh, "other")
    plan = tmp_path / "plan.json"
    plan.write_text(run_paimon("compact-plan", table).stdout)
    good = json.loads(run_paimon("compact-exec", plan, "--task", "0").stdout)
    # sentinels outside the table: where a ../ name and an absolute path point
    outside = wh / "db.db" / "outside.parquet"
    outside.write_text("sentinel")
    absolute = tmp_path / "abs-sentinel.parquet"
    absolute.write_text("sentinel")
    return {"tmp": tmp_path, "wh": wh, "table": table, "other": other, "good": good,
            "outside": outside, "absolute": absolute}


def write_result(tmp, doc, name):
    p = tmp / name
    p.write_text(json.dumps(doc))
    return p


def refused(env, doc, field, name):
    """compact-commit and compact-abort of doc exit 1 naming field; nothing changes."""
    table = env["table"]
    res = write_result(env["tmp"], doc, name)
    before_snaps = snapshots(table)
    before_tree = tree_digest(env["tmp"])
    for cmd in (["compact-commit", table, res], ["compact-abort", table, res]):
        p = run_paimon(*cmd, check=False)
        assert p.returncode == 1, (cmd, p.stdout, p.stderr)
        assert field in p.stderr, (cmd, p.stderr)
        assert snapshots(table) == before_snaps
        assert tree_digest(env["tmp"]) == before_tree, cmd
    assert env["outside"].read_text() == "sentinel"
    assert env["absolute"].read_text() == "sentinel"
    return res


def test_dotdot_names(setup):
    doc = copy.deepcopy(setup["good"])
    doc["after"][0]["file_name"] = "../../outside.parquet"
    refused(setup, doc, "after[0].file_name", "dotdot.json")
    doc = copy.deepcopy(setup["good"])
    doc["changelog"] = [copy.deepcopy(doc["after"][0])]
    doc["changelog"][0]["file_name"] = "../../outside.parquet"
    refused(setup, doc, "changelog[0].file_name", "dotdot-changelog.json")
    doc = copy.deepcopy(setup["good"])
    doc["before"][1]["file_name"] = "sub/../x.parquet"
    refused(setup, doc, "before[1].file_name", "dotdot-before.json")


def test_absolute_external_path(setup):
    doc = copy.deepcopy(setup["good"])
    doc["after"][0]["external_path"] = str(setup["absolute"])
    refused(setup, doc, "after[0].external_path", "abs.json")
    doc["after"][0]["external_path"] = "file:" + str(setup["absolute"])
    refused(setup, doc, "after[0].external_path", "abs-scheme.json")


def test_names_of_live_files(setup):
    table = setup["table"]
    inputs = {f["file_name"] for f in setup["good"]["before"]}
    # a live file of the table that is not an input of the task
    run_paimon("write", table, input='{"id":100,"s":"late"}\n')
    live = [f["file_name"] for f in json.loads(run_paimon("files", table, "--json").stdout)]
    late = [n for n in live if n not in inputs]
    assert late
    doc = copy.deepcopy(setup["good"])
    doc["after"][0]["file_name"] = late[0]
    refused(setup, doc, "after[0].file_name", "live.json")
    assert (table / "bucket-0" / late[0]).exists()


def test_files_of_another_table(setup):
    other = setup["other"]
    plan = setup["tmp"] / "other-plan.json"
    plan.write_text(run_paimon("compact-plan", other).stdout)
    theirs = json.loads(run_paimon("compact-exec", plan, "--task", "0").stdout)
    refused(setup, theirs, "table", "other.json")
    # the other table's prepared output is still there for its own abort
    out = other / "bucket-0" / theirs["after"][0]["file_name"]
    assert out.exists()
    res = write_result(setup["tmp"], theirs, "other-own.json")
    run_paimon("compact-abort", other, res)
    assert not out.exists()


def test_genuine_result_still_commits(setup):
    doc = copy.deepcopy(setup["good"])
    doc["after"][0]["file_name"] = "../../outside.parquet"
    refused(setup, doc, "after[0].file_name", "bad.json")
    good = write_result(setup["tmp"], setup["good"], "good.json")
    n = len(snapshots(setup["table"]))
    out = json.loads(run_paimon("compact-commit", setup["table"], good, "--json").stdout)
    assert out["snapshot_id"] > 0
    assert len(snapshots(setup["table"])) == n + 1
    # committed: abort refuses and deletes nothing
    p = run_paimon("compact-abort", setup["table"], good, check=False)
    assert p.returncode == 1 and "was committed" in p.stderr, p.stderr
    assert (setup["table"] / "bucket-0" / setup["good"]["after"][0]["file_name"]).exists()
