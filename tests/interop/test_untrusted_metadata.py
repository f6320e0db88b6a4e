"""Snapshots and manifests are untrusted input: a table whose metadata
names a file outside the table (a manifest list or manifest named
"../...", a data file name holding '/', an absolute external path outside
data-file.external-paths) fails to read and to compact with ECORRUPT
naming the field, and nothing outside the table is touched.

The named outside file is a FIFO: opening it for reading would block until
a writer comes, so a read that got that far would hang (the commands run
with a timeout); after the command the FIFO is still there and the rest of
the outside directory is unchanged.
"""
import hashlib
import json
import os
import pathlib
import stat
import subprocess

import fastavro
import pytest

from conftest import paimon_bin, run_paimon

ROWS = '{"id":1,"s":"a"}\n{"id":2,"s":"b"}\n'


def tree_hash(root):
    h = hashlib.sha256()
    for d, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(d, f)
            st = os.lstat(p)
            h.update(f"{os.path.relpath(p, root)} {st.st_mode} {st.st_size} {st.st_mtime_ns}\n".encode())
            if stat.S_ISREG(st.st_mode):
                with open(p, "rb") as fh:
                    h.update(hashlib.sha256(fh.read()).digest())
    return h.hexdigest()


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "wh" / "db.db" / "t"
    run_paimon("create", path, "--schema", "id BIGINT NOT NULL, s STRING")
    run_paimon("write", path, input=ROWS)
    run_paimon("write", path, input=ROWS)
    return path


def outside_fifo(tmp_path, name):
    p = tmp_path / name
    os.mkfifo(p)
    return p


def rewrite_avro(path, change):
    with open(path, "rb") as f:
        r = fastavro.reader(f)
        schema, codec, recs = r.writer_schema, r.codec, list(r)
    for rec in recs:
        change(rec)
    with open(path, "wb") as f:
        fastavro.writer(f, fastavro.parse_schema(schema), recs, codec=codec)


def latest_snapshot(table):
    snap = table / "snapshot"
    sid = max(int(p.name[9:]) for p in snap.glob("snapshot-*"))
    return snap / f"snapshot-{sid}"


def data_manifests(table):
    snap = json.loads(latest_snapshot(table).read_text())
    out = []
    for key in ("baseManifestList", "deltaManifestList"):
        with open(table / "manifest" / snap[key], "rb") as f:
            out += [table / "manifest" / rec["_FILE_NAME"] for rec in fastavro.reader(f)]
    return out


def expect_refused(tmp_path, table, fifo, *words):
    before = tree_hash(tmp_path)
    for cmd in (["read", table], ["compact", table]):
        try:
            p = subprocess.run([paimon_bin(), *map(str, cmd)], capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"paimon {cmd[0]} opened the file outside the table ({fifo})")
        assert p.returncode != 0, (cmd, p.stdout)
        assert "ECORRUPT" in p.stderr, p.stderr
        for w in words:
            assert w in p.stderr, (w, p.stderr)
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert tree_hash(tmp_path) == before


def test_data_file_name_climbing_out(tmp_path, table):
    fifo = outside_fifo(tmp_path, "outside.parquet")
    rel = os.path.relpath(fifo, table / "bucket-0")

    def change(rec):
        rec["_FILE"]["_FILE_NAME"] = rel
    for m in data_manifests(table):
        rewrite_avro(m, change)
    expect_refused(tmp_path, table, fifo, "_FILE_NAME", "path separator")


def test_external_path_outside_roots(tmp_path, table):
    fifo = outside_fifo(tmp_path, "outside.parquet")

    def change(rec):
        rec["_FILE"]["_EXTERNAL_PATH"] = f"file:{fifo}"
    for m in data_manifests(table):
        rewrite_avro(m, change)
    expect_refused(tmp_path, table, fifo, "_EXTERNAL_PATH", "outside the table's data-file.external-paths")


def test_manifest_name_climbing_out(tmp_path, table):
    fifo = outside_fifo(tmp_path, "outside-manifest")
    snap = json.loads(latest_snapshot(table).read_text())
    rel = os.path.relpath(fifo, table / "manifest")

    def change(rec):
        rec["_FILE_NAME"] = rel
    rewrite_avro(table / "manifest" / snap["baseManifestList"], change)
    rewrite_avro(table / "manifest" / snap["deltaManifestList"], change)
    expect_refused(tmp_path, table, fifo, "_FILE_NAME", snap["baseManifestList"])


def test_snapshot_manifest_list_climbing_out(tmp_path, table):
    fifo = outside_fifo(tmp_path, "outside-list")
    path = latest_snapshot(table)
    snap = json.loads(path.read_text())
    snap["baseManifestList"] = os.path.relpath(fifo, table / "manifest")
    path.write_text(json.dumps(snap, indent=2))
    expect_refused(tmp_path, table, fifo, "baseManifestList", path.name)
