"""Commits from several processes at once, and failures around publication.

- 6 processes × 5 `paimon write` commits into one table: 30 snapshots with
  contiguous ids, every (commit user, identifier) exactly once, no row lost
  or duplicated, LATEST = 30, and every file under manifest/ referenced by
  some snapshot (lost attempts cleaned up after themselves).
- A failure injected before publication leaves the table byte-for-byte as
  it was; an uncertain outcome keeps the snapshot and a re-run with the same
  commit user and identifier completes it exactly once.
"""
import hashlib
import json
import os
import subprocess

import fastavro
import pyarrow as pa
from pypaimon import CatalogFactory, Schema

from conftest import paimon_bin, run_paimon

PROCS = 6
COMMITS = 5
ROWS = 10


def create(tmp_path, partition_keys=None, options=None):
    cat = CatalogFactory.create({"warehouse": str(tmp_path / "wh")})
    cat.create_database("db", True)
    schema = pa.schema([("id", pa.int64()), ("proc", pa.int32()), ("pt", pa.string())])
    cat.create_table("db.t", Schema.from_pyarrow_schema(schema, partition_keys=partition_keys,
                                                        options=options or {}), False)
    return cat, tmp_path / "wh" / "db.db" / "t"


def tree_hash(root):
    h = hashlib.sha256()
    for d, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        h.update(("D " + os.path.relpath(d, root) + "\n").encode())
        for f in sorted(files):
            p = os.path.join(d, f)
            h.update(("F " + os.path.relpath(p, root) + "\n").encode())
            with open(p, "rb") as fh:
                h.update(hashlib.sha256(fh.read()).digest())
    return h.hexdigest()


def referenced_manifest_files(table):
    names = set()
    for snap_file in (table / "snapshot").glob("snapshot-*"):
        snap = json.loads(snap_file.read_text())
        for key in ("baseManifestList", "deltaManifestList", "changelogManifestList", "indexManifest"):
            lst = snap.get(key)
            if not lst:
                continue
            names.add(lst)
            if key == "indexManifest":
                continue
            with open(table / "manifest" / lst, "rb") as f:
                names.update(m["_FILE_NAME"] for m in fastavro.reader(f))
    return names


def test_six_processes_five_commits_each(tmp_path):
    # write-only: this test counts data snapshots; automatic compaction
    # (separate COMPACT snapshots) is covered by test_compact_auto.py
    cat, table = create(tmp_path, ["pt"], {"bucket": "2", "bucket-key": "id",
                                             "manifest.merge-min-count": "4", "write-only": "true"})
    procs = []
    for p in range(PROCS):
        script = []
        for c in range(1, COMMITS + 1):
            lines = "".join('{"id":%d,"proc":%d,"pt":"p%d"}\\n' % ((p * COMMITS + c) * 1000 + r, p, r % 3)
                            for r in range(ROWS))
            script.append("printf '%s' | %s write %s --commit-user proc-%d --commit-identifier %d || exit 1"
                          % (lines, paimon_bin(), table, p, c))
        procs.append(subprocess.Popen(["bash", "-c", "\n".join(script)], stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    for pr in procs:
        out, err = pr.communicate(timeout=600)
        assert pr.returncode == 0, err
        assert out.count("snapshot ") == COMMITS

    snaps = sorted(int(f.name.split("-")[1]) for f in (table / "snapshot").glob("snapshot-*"))
    assert snaps == list(range(1, PROCS * COMMITS + 1))
    assert (table / "snapshot" / "LATEST").read_text() == str(PROCS * COMMITS)
    seen = {}
    total = 0
    for i in snaps:
        s = json.loads((table / "snapshot" / ("snapshot-%d" % i)).read_text())
        key = (s["commitUser"], s["commitIdentifier"])
        assert key not in seen, "commit %s landed twice" % (key,)
        seen[key] = i
        assert s["deltaRecordCount"] == ROWS
        total += ROWS
        assert s["totalRecordCount"] == total
    assert set(seen) == {("proc-%d" % p, c) for p in range(PROCS) for c in range(1, COMMITS + 1)}

    t = cat.get_table("db.t")
    rb = t.new_read_builder()
    ids = rb.new_read().to_arrow(rb.new_scan().plan().splits()).column("id").to_pylist()
    expected = [(p * COMMITS + c) * 1000 + r for p in range(PROCS) for c in range(1, COMMITS + 1)
                for r in range(ROWS)]
    assert sorted(ids) == sorted(expected)

    on_disk = {f.name for f in (table / "manifest").iterdir()}
    assert on_disk == referenced_manifest_files(table)


def test_failure_before_publication_changes_nothing(tmp_path):
    _, table = create(tmp_path, ["pt"])
    run_paimon("write", table, input='{"id":1,"proc":0,"pt":"a"}\n')
    before = tree_hash(table)
    env = dict(os.environ, PAIMON_FAULT_INJECT="commit-before-publish")
    p = subprocess.run([paimon_bin(), "write", str(table)], input='{"id":2,"proc":0,"pt":"b"}\n',
                       capture_output=True, text=True, env=env)
    assert p.returncode == 1
    assert "injected failure" in p.stderr
    assert tree_hash(table) == before


def test_uncertain_outcome_then_retry(tmp_path):
    cat, table = create(tmp_path)
    env = dict(os.environ, PAIMON_FAULT_INJECT="commit-after-publish")
    args = [paimon_bin(), "write", str(table), "--commit-user", "u", "--commit-identifier", "1"]
    p = subprocess.run(args, input='{"id":1,"proc":0,"pt":"a"}\n', capture_output=True, text=True, env=env)
    assert p.returncode == 1 and "EUNCERTAIN" in p.stderr
    # the retry finds the snapshot and writes nothing
    p = subprocess.run(args, input='{"id":1,"proc":0,"pt":"a"}\n', capture_output=True, text=True)
    assert p.returncode == 0 and "already committed" in p.stdout
    rb = cat.get_table("db.t").new_read_builder()
    assert rb.new_read().to_arrow(rb.new_scan().plan().splits()).num_rows == 1
    assert sorted(f.name for f in (table / "snapshot").iterdir()) == ["LATEST", "snapshot-1"]
