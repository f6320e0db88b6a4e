"""Bad input for the read-side commands (read, files, snapshots, schema):
a corrupt snapshot JSON, a truncated manifest, a manifest list with a
wrong Avro magic, a missing data file and an unknown table each give a
clear error on stderr and a non-zero exit, and nothing on disk changes
(hash of every file under the table before and after).
"""
import hashlib
import os
import pathlib
import shutil

import pytest

from conftest import FIXTURES, run_paimon

SRC = FIXTURES / "java-written" / "parquet" / "append_complex_data.db" / "append_complex_data"


def tree_hash(root):
    h = hashlib.sha256()
    for d, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for f in sorted(files):
            p = pathlib.Path(d) / f
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes())
    return h.hexdigest()


@pytest.fixture
def table(tmp_path):
    dst = tmp_path / "append_complex_data"
    shutil.copytree(SRC, dst)
    return dst


def latest_snapshot(t):
    return t / "snapshot" / f"snapshot-{(t / 'snapshot' / 'LATEST').read_text().strip()}"


def manifest_of(t, key):
    text = latest_snapshot(t).read_text()
    import json
    return t / "manifest" / json.loads(text)[key]


def expect_failure(t, commands, code, *needles):
    before = tree_hash(t)
    for cmd in commands:
        p = run_paimon(*cmd, check=False)
        assert p.returncode == 1, (cmd, p.stdout, p.stderr)
        assert p.stderr.startswith(f"paimon {cmd[0]}: error [{code}]"), p.stderr
        for n in needles:
            assert n in p.stderr, (cmd, p.stderr)
    assert tree_hash(t) == before


def test_corrupt_snapshot_json(table):
    snap = latest_snapshot(table)
    snap.write_text('{"version" : 3, "id" : 4, "schemaId" : ')
    expect_failure(table, [["read", table], ["files", table], ["snapshots", table]], "ECORRUPT", snap.name)
    # an older snapshot still reads
    assert run_paimon("read", table, "--snapshot", "2").returncode == 0


def test_truncated_manifest(table):
    lst = manifest_of(table, "deltaManifestList")
    import fastavro
    with open(lst, "rb") as f:
        name = next(iter(fastavro.reader(f)))["_FILE_NAME"]
    m = table / "manifest" / name
    data = m.read_bytes()
    m.write_bytes(data[: len(data) // 2])
    expect_failure(table, [["read", table], ["files", table]], "ECORRUPT", name)


def test_wrong_avro_magic(table):
    lst = manifest_of(table, "baseManifestList")
    data = bytearray(lst.read_bytes())
    data[0:4] = b"Obj\x02"
    lst.write_bytes(bytes(data))
    expect_failure(table, [["read", table], ["files", table]], "ECORRUPT", lst.name)


def test_missing_data_file(table):
    files = sorted(table.glob("f1=*/bucket-*/*.parquet"))
    live = set()
    import json
    for f in json.loads(run_paimon("files", table, "--json").stdout):
        live.add(f["file_name"])
    victim = next(f for f in files if f.name in live)
    victim.unlink()
    expect_failure(table, [["read", table]], "ENOTFOUND", victim.name)
    # listing files does not open data files
    assert run_paimon("files", table).returncode == 0


def test_unknown_table(tmp_path):
    missing = tmp_path / "db.db" / "nope"
    for cmd in (["read", missing], ["files", missing], ["snapshots", missing], ["schema", missing]):
        p = run_paimon(*cmd, check=False)
        assert p.returncode == 1
        assert "ENOTFOUND" in p.stderr and "no Paimon table" in p.stderr
    assert not missing.exists()


def test_usage_errors(table):
    for cmd in (["read"], ["read", table, "--snapshot", "x"], ["read", table, "--format", "xml"],
                ["read", table, "--format", "parquet"], ["files", table, "--bogus"], ["snapshots"],
                ["schema", table, "extra"], ["create", table]):
        p = run_paimon(*cmd, check=False)
        assert p.returncode == 2, (cmd, p.stderr)
        assert "--help" in p.stderr
    for cmd in ("read", "files", "snapshots", "schema", "create"):
        p = run_paimon(cmd, "--help")
        assert p.stdout.startswith(f"usage: paimon {cmd} ")


def test_bad_partition_spec(table, tmp_path):
    # A --partition that is not k=v is a command-line error: exit 2 with the
    # error named, the same for every command that takes one; nothing changes.
    before = tree_hash(table)
    rows = tmp_path / "rows.jsonl"
    rows.write_text("")
    for cmd in (("files", table), ("levels", table), ("read", table), ("write", table, "--input", rows)):
        p = run_paimon(*cmd, "--partition", "nonsense", check=False)
        assert p.returncode == 2, (cmd, p.stderr)
        assert p.stderr.startswith(f"paimon {cmd[0]}: error [EINVALID]: bad partition spec 'nonsense'"), p.stderr
    assert tree_hash(table) == before
